"""Permission and cancel in the real app against the official TypeScript SDK example agents.

What the client sent is read back from the app's own wire trace (`Launch.log_path`) and checked
exactly, and validated against the schema of the version the peer negotiated.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.permission import request_title
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.peers import TsSdkPeers
from tests.support.schema_check import validate_client_message
from tests.support.scripted_app import (
    ARM_DELAY,
    SIZE,
    armed_dialog,
    isolate_user_dirs,
    make_launch,
    ready,
    submit,
    wait_until,
)


@pytest.fixture(autouse=True)
def _user_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)


def sent(trace: Path) -> list[dict[str, Any]]:
    """Every JSON frame the client sent, from the wire trace."""
    if not trace.exists():
        return []
    frames = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [f["msg"] for f in frames if f["dir"] == "->" and isinstance(f["msg"], dict)]


async def test_sdk_agent_v1_permission_with_request_id_zero_is_approved_and_the_turn_completes(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    trace = tmp_path / "wire.jsonl"
    launch = make_launch(ts_sdk_peers.agent, tmp_path, env=peer_home_env, name="sdk-agent", log_path=trace)
    app = AcpApp(launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        session = chat.controller.session
        assert session is not None and session.version == 1
        await submit(pilot, chat, "Hello, who are you?")
        screen = await armed_dialog(pilot, app)
        assert request_title(screen.request) == "Modifying critical configuration file"
        assert chat.status.values.waiting_for_user == 1
        await pilot.press("a")
        await wait_until(
            pilot,
            lambda: not chat.status.values.busy and chat.status.values.state == "idle",
            "the turn to complete",
            timeout=20,
        )
        assert chat.status.values.stop_reason == "end_turn"
        assert "ready" in chat.status.state_text().plain
    messages = sent(trace)
    answer = next(m for m in messages if "method" not in m)
    option = next(o.option_id for o in screen.options if o.kind == "allow_once")
    assert answer == {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": option}}}
    for message in messages:
        validate_client_message(message, 1, answering=None if "method" in message else "session/request_permission")


async def test_sdk_agent_v1_permission_rejected_shows_the_call_rejected_not_pending(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    # The SDK agent never reports a status for a call the user refused: the card says what happened.
    launch = make_launch(ts_sdk_peers.agent, tmp_path, env=peer_home_env, name="sdk-agent")
    app = AcpApp(launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "Hello, who are you?")
        screen = await armed_dialog(pilot, app)
        await pilot.press("r")
        await wait_until(
            pilot,
            lambda: not chat.status.values.busy and chat.status.values.state == "idle",
            "the turn to complete",
            timeout=20,
        )
        session = chat.controller.session
        assert session is not None
        request = screen.request
        call_id = request.subject.tool_call.tool_call_id  # type: ignore[union-attr]
        call = session.state.tool_call(call_id)
        assert call is not None and call.status == "pending" and call.rejected
        line = next(card.header_text() for card in chat.query(ToolCallCard) if card.call is call)
        assert line.startswith("⊘ ") and line.endswith("· rejected")


async def test_dual_version_agent_v2_prompt_cancelled_with_ctrl_c_ends_idle_cancelled(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    trace = tmp_path / "wire.jsonl"
    launch = make_launch(ts_sdk_peers.dual_version_agent, tmp_path, env=peer_home_env, name="dual", log_path=trace)
    app = AcpApp(launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        session = chat.controller.session
        assert session is not None and session.version == 2
        pid = session.transport.pid
        assert pid is not None
        # The agent works for only 250 ms once it reads a prompt, and on a loaded machine the cancel can
        # go out later than that (a poll for its `running` misses the window; even an at-once Ctrl-C
        # follows the prompt by 100-200 ms under load), leaving no turn to cancel. So the agent is held
        # (SIGSTOP) while the prompt and then the cancel are written: both wait in its stdin, in order,
        # and it reads them together when it continues, so the cancel always meets the running turn.
        os.kill(pid, signal.SIGSTOP)
        try:
            await submit(pilot, chat, "Hello, who are you?")
            assert chat.controller.busy
            await pilot.press("ctrl+c")
            await wait_until(
                pilot,
                lambda: (
                    [m.get("method") for m in sent(trace) if "method" in m][-2:] == ["session/prompt", "session/cancel"]
                ),
                "the prompt, then the cancel, on the wire",
            )
        finally:
            os.kill(pid, signal.SIGCONT)
        await wait_until(
            pilot, lambda: not chat.status.values.busy and not chat.status.values.cancelling, "the agent to go idle"
        )
        assert chat.status.values.state == "idle"
        assert chat.status.values.stop_reason == "cancelled"
        assert "cancelled" in chat.status.state_text().plain
    messages = sent(trace)
    session_id = session.session_id
    assert {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}} in messages
    for message in messages:
        validate_client_message(message, 2)
