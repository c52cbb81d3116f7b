"""Terminals through AgentSession against the scripted agent (docs/protocol.md §6.4, §10.2).

v1: the agent runs commands through our `terminal/*` methods; every frame we send, answers included,
validates against the official v1 schema. v2: the user stops an agent-owned terminal with
`terminal/cancel`, only while it advertises `capabilities.cancel`; a -32602 answer is a clear error.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.session import AgentSession, SessionError
from acp_tui.agent.session_events import SessionEvent
from acp_tui.agent.trace import Direction
from acp_tui.protocol.v2 import TerminalRef, TextContent
from acp_tui.services.terminals import TerminalService
from tests.support.agents import AGENTS_DIR
from tests.support.processes import processes_with
from tests.support.schema_check import validate_client_message

SCRIPTED = str(AGENTS_DIR / "scripted_agent.py")
PY = sys.executable


class Wire:
    """Every frame both ways (to pair our answers with the agent's requests), and a condition wait."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    def record(self, direction: Direction, payload: Any) -> None:
        if direction in ("->", "<-"):
            (self.sent if direction == "->" else self.received).append(json.loads(bytes(payload)))

    def session_event(self, session: AgentSession, event: SessionEvent) -> None:
        self.changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = 20) -> None:
        async def wait() -> None:
            while not condition():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), timeout)

    def answer(self, request_id: int) -> dict[str, Any]:
        return next(m for m in self.sent if "method" not in m and m.get("id") == request_id)

    def validate_sent(self, version: int) -> int:
        """Check each frame we sent against the schema (answers against the method they answer)."""
        asked = {m["id"]: m["method"] for m in self.received if "method" in m and "id" in m}
        for msg in self.sent:
            if msg.get("method") == "initialize":
                validate_client_message(msg, 2)  # the hybrid initialize: v2-shaped, with the v1 twins
            elif "method" in msg:
                validate_client_message(msg, version)
            else:
                validate_client_message(msg, version, answering=asked[msg["id"]])
        return len(self.sent)


def request(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {
        "op": "request",
        "id": request_id,
        "method": method,
        "params": {"sessionId": "$SESSION", **params},
        "timeout": 15,
    }


async def start(
    tmp_path: Path, script: dict[str, Any], wire: Wire, **service: Any
) -> tuple[AgentSession, TerminalService]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    terminals = TerminalService(id_prefix="t", kill_grace=0.3, **service)
    session = AgentSession([PY, SCRIPTED, str(path)], cwd=tmp_path, trace=wire, listener=wire, services=[terminals])
    await session.start()
    return session, terminals


async def test_v1_agent_runs_waits_kills_and_releases_commands(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    sleeper = ["-c", "import time; time.sleep(60)", marker]
    steps = [
        {
            "op": "update",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "call-1",
                "title": "Run tests",
                "kind": "execute",
                "status": "in_progress",
            },
        },
        request(10, "terminal/create", command=PY, args=["-c", "print('3 passed')"], outputByteLimit=1000),
        {
            "op": "update",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "call-1",
                "content": [{"type": "terminal", "terminalId": "term-t-1"}],
            },
        },
        request(11, "terminal/wait_for_exit", terminalId="term-t-1"),
        request(12, "terminal/output", terminalId="term-t-1"),
        request(13, "terminal/create", command=PY, args=sleeper),
        request(14, "terminal/kill", terminalId="term-t-2"),
        request(15, "terminal/output", terminalId="term-t-2"),
        request(16, "terminal/release", terminalId="term-t-1"),
        request(17, "terminal/release", terminalId="term-t-2"),
        request(18, "terminal/output", terminalId="term-t-1"),
        request(19, "terminal/create", command=PY, args=sleeper),  # left running: the session's end kills it
        {
            "op": "update",
            "update": {"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed"},
        },
        {"op": "respond_prompt", "stopReason": "end_turn"},
    ]
    wire = Wire()
    session, _ = await start(tmp_path, {"version": 1, "turns": [{"steps": steps}]}, wire)
    try:
        assert session.version == 1
        init = wire.sent[0]["params"]["clientCapabilities"]
        assert init["terminal"] is True and init["_meta"] == {"terminal_output": True, "terminal_output_delta": True}
        await session.prompt([TextContent(text="go")])
        await wire.until(lambda: session.state.foreground.state == "idle" and bool(processes_with(marker)))
        assert wire.answer(10)["result"] == {"terminalId": "term-t-1"}
        assert wire.answer(11)["result"] == {"exitCode": 0}
        assert wire.answer(12)["result"] == {"output": "3 passed\n", "truncated": False, "exitStatus": {"exitCode": 0}}
        assert wire.answer(14)["result"] == {}
        assert wire.answer(15)["result"]["exitStatus"] == {"signal": "SIGTERM"}
        assert wire.answer(16)["result"] == {} and wire.answer(17)["result"] == {}
        error = wire.answer(18)["error"]
        assert error["code"] == -32602 and "term-t-1" in error["message"] and "released" in error["message"]
        # the card shows the command's terminal, readable after release
        call = session.state.tool_call("call-1")
        assert call is not None and call.content == [TerminalRef(terminal_id="term-t-1")]
        term = session.state.terminal("term-t-1")
        assert term is not None and bytes(term.output) == b"3 passed\n" and term.exit_status is not None
        assert wire.validate_sent(1) == 13  # initialize, session/new, the prompt, and ten answers
    finally:
        await session.shutdown()
    assert not processes_with(marker), "nothing outlives the session"


async def test_v1_agent_exit_kills_its_commands(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    steps = [
        request(10, "terminal/create", command="sh", args=["-c", f"{PY} -c 'import time; time.sleep(60)' {marker}"]),
        {"op": "sleep", "seconds": 0.5},
        {"op": "exit", "code": 3},
    ]
    wire = Wire()
    session, _ = await start(tmp_path, {"version": 1, "turns": [{"steps": steps}]}, wire)
    try:
        await session.prompt([TextContent(text="go")])
        await wire.until(lambda: session.connection.closed)
        await wire.until(lambda: not processes_with(marker))
    finally:
        await session.shutdown()


async def test_client_terminals_off(tmp_path: Path) -> None:
    steps = [request(10, "terminal/create", command="true"), {"op": "respond_prompt", "stopReason": "end_turn"}]
    wire = Wire()
    session, _ = await start(tmp_path, {"version": 1, "turns": [{"steps": steps}]}, wire, client_terminals=False)
    try:
        caps = wire.sent[0]["params"]["clientCapabilities"]
        assert caps["terminal"] is False and caps["_meta"]["terminal_output_delta"] is True
        await session.prompt([TextContent(text="go")])
        await wire.until(lambda: session.state.foreground.state == "idle")
        assert wire.answer(10)["error"]["code"] == -32601
        wire.validate_sent(1)
    finally:
        await session.shutdown()


async def test_the_user_stops_a_v1_command_from_its_card(tmp_path: Path) -> None:
    steps = [
        request(10, "terminal/create", command=PY, args=["-c", "import time; time.sleep(60)"]),
        request(11, "terminal/wait_for_exit", terminalId="term-t-1"),
        {"op": "respond_prompt", "stopReason": "end_turn"},
    ]
    wire = Wire()
    session, _ = await start(tmp_path, {"version": 1, "turns": [{"steps": steps}]}, wire)
    try:
        await session.prompt([TextContent(text="go")])
        await wire.until(lambda: (t := session.state.terminal("term-t-1")) is not None and t.cancellable)
        await session.cancel_terminal("term-t-1")
        await wire.until(lambda: session.state.foreground.state == "idle")
        assert wire.answer(11)["result"] == {"signal": "SIGTERM"}
        term = session.state.terminal("term-t-1")
        assert term is not None and not term.cancelling and not term.cancellable
        with pytest.raises(SessionError, match="cannot be stopped"):
            await session.cancel_terminal("term-t-1")
    finally:
        await session.shutdown()


def v2_terminal_turn(answer: dict[str, Any]) -> dict[str, Any]:
    """A v2 turn with one cancellable agent terminal; the agent answers `terminal/cancel` (our request 4)."""
    running = {
        "sessionUpdate": "terminal_update",
        "terminalId": "t1",
        "command": "npm run dev",
        "capabilities": {"cancel": {}},
    }
    steps: list[dict[str, Any]] = [
        {"op": "respond_prompt"},
        {"op": "user_message"},
        {"op": "state", "state": "running"},
        {
            "op": "update",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "title": "dev server",
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": "t1"}],
            },
        },
        {"op": "update", "update": running},
        {"op": "wait_for", "method": "terminal/cancel", "timeout": 15},
        {"op": "send", "message": {"jsonrpc": "2.0", "id": 4, **answer}},
    ]
    if "result" in answer:
        steps.append(
            {
                "op": "update",
                "update": {
                    "sessionUpdate": "terminal_update",
                    "terminalId": "t1",
                    "exitStatus": {"signal": "SIGTERM"},
                    "capabilities": None,
                },
            }
        )
    steps.append({"op": "state", "state": "idle", "stopReason": "end_turn"})
    return {"version": 2, "turns": [{"steps": steps}]}


async def test_v2_terminal_cancel(tmp_path: Path) -> None:
    wire = Wire()
    session, _ = await start(tmp_path, v2_terminal_turn({"result": {}}), wire)
    try:
        with pytest.raises(SessionError, match="cannot be stopped"):
            await session.cancel_terminal("t1")  # not reported yet: nothing is sent
        await session.prompt([TextContent(text="go")])
        await wire.until(lambda: (t := session.state.terminal("t1")) is not None and t.cancellable)
        stopping = asyncio.ensure_future(session.cancel_terminal("t1"))
        await wire.until(lambda: (t := session.state.terminal("t1")) is not None and t.cancelling)
        await stopping
        await wire.until(lambda: session.state.foreground.state == "idle")
        term = session.state.terminal("t1")
        assert term is not None and not term.cancelling and not term.cancellable
        assert term.exit_status is not None and term.exit_status.signal == "SIGTERM"
        cancels = [m for m in wire.sent if m.get("method") == "terminal/cancel"]
        assert cancels == [
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "terminal/cancel",
                "params": {"sessionId": session.session_id, "terminalId": "t1"},
            }
        ]
        with pytest.raises(SessionError, match="cannot be stopped"):
            await session.cancel_terminal("t1")  # exited: no longer advertised
        assert wire.validate_sent(2) == len(wire.sent)
    finally:
        await session.shutdown()


async def test_v2_terminal_cancel_refused(tmp_path: Path) -> None:
    wire = Wire()
    refusal = {"error": {"code": -32602, "message": "terminal t1 has already exited"}}
    session, _ = await start(tmp_path, v2_terminal_turn(refusal), wire)
    try:
        await session.prompt([TextContent(text="go")])
        await wire.until(lambda: (t := session.state.terminal("t1")) is not None and t.cancellable)
        with pytest.raises(SessionError, match="already exited") as info:
            await session.cancel_terminal("t1")
        assert "-32602" in str(info.value)
        term = session.state.terminal("t1")
        assert term is not None and not term.cancelling  # no longer "stopping…"
    finally:
        await session.shutdown()
