"""`AgentSession.set_config_option` end to end: the demo agent (v2 and v1), and scripted agents for v1
modes and error answers. Every frame the session sends is validated against the negotiated schema.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.connection import RpcError
from acp_tui.agent.session import AgentSession, SessionError
from acp_tui.agent.session_events import ModelChanged, SessionEvent
from acp_tui.agent.trace import Direction
from acp_tui.protocol.v2 import SessionConfigBoolean, SessionConfigSelect
from acp_tui.session.changes import ConfigChanged
from tests.support.agents import scripted_agent_argv
from tests.support.schema_check import validate_client_message

DEMO = [sys.executable, "-m", "acp_tui.demo"]
DEMO_ENV = {"ACP_TUI_DEMO_SPEED": "0"}


class Recorder:
    """Trace sink keeping what the session sent, and the events it emitted."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.events: list[SessionEvent] = []

    def record(self, direction: Direction, payload: Any) -> None:
        if direction == "->":
            self.sent.append(json.loads(bytes(payload)))

    def session_event(self, session: AgentSession, event: SessionEvent) -> None:
        self.events.append(event)

    def requests(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("method") == method]

    def config_changes(self) -> int:
        return sum(
            1 for e in self.events if isinstance(e, ModelChanged) for c in e.changes if isinstance(c, ConfigChanged)
        )

    def validate_sent(self, version: int) -> None:
        for message in self.sent:
            if message.get("method") == "initialize":
                continue  # the hybrid initialize is validated by the handshake tests
            if "method" in message:
                validate_client_message(message, version)


def current(session: AgentSession, config_id: str) -> Any:
    option = next(o for o in session.state.config_options if o.config_id == config_id)
    assert isinstance(option, SessionConfigSelect | SessionConfigBoolean)
    return option.current_value


async def open_session(argv: list[str], tmp_path: Path, recorder: Recorder, **kwargs: Any) -> AgentSession:
    session = AgentSession(argv, cwd=tmp_path, trace=recorder, listener=recorder, handshake_timeout=15, **kwargs)
    await session.start()
    return session


@pytest.mark.parametrize("version", [2, 1])
async def test_demo_select_option_round_trip(version: int, tmp_path: Path) -> None:
    recorder = Recorder()
    session = await open_session(DEMO, tmp_path, recorder, env=DEMO_ENV, protocol=version)
    try:
        assert session.version == version
        assert [o.config_id for o in session.state.config_options] == ["mode", "model"]
        assert current(session, "mode") == "code"
        before = recorder.config_changes()
        await session.set_config_option("model", "demo-smart")
        (request,) = recorder.requests("session/set_config_option")
        expected: dict[str, Any] = {"sessionId": session.session_id, "configId": "model", "value": "demo-smart"}
        if version == 2:
            expected["type"] = "id"
        assert request["params"] == expected
        # The answer is the full new set, adopted at once (no update notification needed).
        assert current(session, "model") == "demo-smart"
        assert current(session, "mode") == "code"
        assert recorder.config_changes() == before + 1
        await session.set_config_option("mode", "ask")
        assert current(session, "mode") == "ask"
        recorder.validate_sent(version)
    finally:
        await session.shutdown()


async def test_values_and_options_the_session_lacks_are_refused_locally(tmp_path: Path) -> None:
    recorder = Recorder()
    session = await open_session(DEMO, tmp_path, recorder, env=DEMO_ENV)
    try:
        with pytest.raises(SessionError, match="no config option"):
            await session.set_config_option("colour", "blue")
        with pytest.raises(SessionError, match="not a value"):
            await session.set_config_option("mode", "yolo")
        with pytest.raises(SessionError, match="not a value"):
            await session.set_config_option("mode", True)
        assert recorder.requests("session/set_config_option") == []
        assert current(session, "mode") == "code"
    finally:
        await session.shutdown()


def write_script(tmp_path: Path, script: dict[str, Any]) -> tuple[list[str], Path]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    record = tmp_path / "record.jsonl"
    return scripted_agent_argv(path, record), record


def recorded(record: Path, method: str) -> list[dict[str, Any]]:
    messages = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [m for m in messages if m.get("method") == method]


V2_OPTIONS: list[dict[str, Any]] = [
    {
        "type": "select",
        "configId": "mode",
        "name": "Mode",
        "category": "mode",
        "currentValue": "ask",
        "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
    },
    {"type": "boolean", "configId": "fast", "name": "Fast", "currentValue": False},
    {"type": "_x_dial", "configId": "dial", "name": "Dial", "currentValue": 3},
]


async def test_v2_boolean_option_and_error_answer(tmp_path: Path) -> None:
    flipped = [dict(V2_OPTIONS[0]), {**V2_OPTIONS[1], "currentValue": True}]
    argv, record = write_script(
        tmp_path,
        {
            "version": 2,
            "session_new": {"sessionId": "s-1", "configOptions": V2_OPTIONS},
            "responses": {"session/set_config_option": {"result": {"configOptions": flipped}}},
        },
    )
    recorder = Recorder()
    session = await open_session(argv, tmp_path, recorder)
    try:
        with pytest.raises(SessionError, match="cannot set"):
            await session.set_config_option("dial", "4")  # unknown types are kept, never set
        with pytest.raises(SessionError, match="true or false"):
            await session.set_config_option("fast", "yes")
        await session.set_config_option("fast", True)
        (request,) = recorded(record, "session/set_config_option")
        assert request["params"] == {"sessionId": "s-1", "configId": "fast", "type": "boolean", "value": True}
        validate_client_message(request, 2)
        # Replace, not merge: the unknown option the answer left out is gone.
        assert [o.config_id for o in session.state.config_options] == ["mode", "fast"]
        assert current(session, "fast") is True
    finally:
        await session.shutdown()


async def test_agent_error_raises_rpc_error_and_keeps_the_options(tmp_path: Path) -> None:
    argv, _record = write_script(
        tmp_path,
        {
            "version": 2,
            "session_new": {"sessionId": "s-1", "configOptions": V2_OPTIONS},
            "responses": {"session/set_config_option": {"error": {"code": -32602, "message": "no such mode"}}},
        },
    )
    recorder = Recorder()
    session = await open_session(argv, tmp_path, recorder)
    try:
        with pytest.raises(RpcError) as caught:
            await session.set_config_option("mode", "code")
        assert caught.value.code == -32602 and caught.value.message == "no such mode"
        assert current(session, "mode") == "ask"
    finally:
        await session.shutdown()


async def test_v1_modes_are_set_with_set_mode(tmp_path: Path) -> None:
    modes = {
        "currentModeId": "ask",
        "availableModes": [
            {"id": "ask", "name": "Ask"},
            {"id": "architect", "name": "Architect", "description": "plans"},
        ],
    }
    argv, record = write_script(
        tmp_path,
        {
            "version": 1,
            "session_new": {"sessionId": "s-1", "modes": modes},
            "responses": {"session/set_mode": {"result": {}}},
        },
    )
    recorder = Recorder()
    session = await open_session(argv, tmp_path, recorder)
    try:
        assert session.version == 1
        (option,) = session.state.config_options
        assert isinstance(option, SessionConfigSelect) and option.category == "mode"
        await session.set_config_option(option.config_id, "architect")
        (request,) = recorded(record, "session/set_mode")
        assert request["params"] == {"sessionId": "s-1", "modeId": "architect"}
        validate_client_message(request, 1)
        assert recorded(record, "session/set_config_option") == []
        assert current(session, option.config_id) == "architect"
    finally:
        await session.shutdown()


async def test_v1_boolean_options_are_set_and_advertised(tmp_path: Path) -> None:
    """v1 agents offer booleans to clients advertising `session.configOptions.boolean`, which we do."""
    options = [{"type": "boolean", "id": "fast", "name": "Fast", "currentValue": False}]
    flipped = [{**options[0], "currentValue": True}]
    argv, record = write_script(
        tmp_path,
        {
            "version": 1,
            "session_new": {"sessionId": "s-1", "configOptions": options},
            "responses": {"session/set_config_option": {"result": {"configOptions": flipped}}},
        },
    )
    recorder = Recorder()
    session = await open_session(argv, tmp_path, recorder)
    try:
        (init,) = recorded(record, "initialize")
        assert init["params"]["clientCapabilities"]["session"]["configOptions"] == {"boolean": {}}
        assert [o.config_id for o in session.state.config_options] == ["fast"]
        await session.set_config_option("fast", True)
        (request,) = recorded(record, "session/set_config_option")
        assert request["params"] == {"sessionId": "s-1", "configId": "fast", "type": "boolean", "value": True}
        validate_client_message(request, 1)
        assert current(session, "fast") is True
    finally:
        await session.shutdown()


async def test_agent_exit_during_set_raises_session_error(tmp_path: Path) -> None:
    argv, _record = write_script(
        tmp_path,
        {
            "version": 2,
            "session_new": {"sessionId": "s-1", "configOptions": V2_OPTIONS},
        },
    )
    recorder = Recorder()
    session = await open_session(argv, tmp_path, recorder)
    await session.shutdown()
    with pytest.raises(SessionError):
        await session.set_config_option("mode", "code")
