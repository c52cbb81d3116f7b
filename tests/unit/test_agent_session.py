"""AgentSession end to end: a local v2 fake agent, and the official TypeScript SDK example agents (v2 and v1).

Every frame the session sends is validated against the negotiated version's JSON Schema.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from acp_tui.agent.session import AgentSession, HandshakeTimeout, SessionError
from acp_tui.agent.session_events import ModelChanged
from acp_tui.protocol.v2 import TextContent
from acp_tui.session.changes import AgentGone
from acp_tui.session.model import ToolCall
from tests.support.agent_session import Recorder, idle_with, make_session
from tests.support.agents import AGENTS_DIR
from tests.support.peers import TsSdkPeers
from tests.support.schema_check import validate_client_message

V2_AGENT = str(AGENTS_DIR / "rpc_v2_agent.py")


@pytest.fixture
async def v2_session(recorder: Recorder, tmp_path: Path) -> AsyncIterator[AgentSession]:
    session = make_session([sys.executable, V2_AGENT], recorder, tmp_path)
    await session.start()
    yield session
    await session.shutdown()


# -- local v2 fake agent --------------------------------------------------------------------------


async def test_v2_turn_with_update_racing_session_new(v2_session: AgentSession, recorder: Recorder) -> None:
    assert v2_session.version == 2 and v2_session.session_id == "sess-1"
    assert [c.name for c in v2_session.state.commands] == ["help"]  # buffered before session/new answered
    message_id = await v2_session.prompt([TextContent(text="hi")])
    assert message_id == "u1"
    await recorder.until(idle_with(v2_session, "end_turn"))
    texts = [e.text for e in v2_session.state.entities.values() if hasattr(e, "text")]
    assert "hi" in texts and "Hello" in texts
    assert recorder.validate_sent(2) == 3
    new_params = json.loads(recorder.sent[1])["params"]
    assert new_params == {"cwd": v2_session.cwd, "mcpServers": []} and Path(new_params["cwd"]).is_absolute()


async def test_a_prompt_that_cannot_be_encoded_fails_as_a_refused_one_and_the_session_goes_on(
    v2_session: AgentSession, recorder: Recorder
) -> None:
    """A lone surrogate (a byte that was no UTF-8) cannot be JSON: an exception nobody awaited left it pending."""
    from acp_tui.agent.connection import RpcError

    with pytest.raises(RpcError, match="no valid UTF-8"):
        await v2_session.prompt([TextContent(text="a\udcff")])
    (submission,) = v2_session.state.submissions.values()
    assert submission.status == "failed" and submission.error is not None
    assert "no valid UTF-8" in submission.error.message
    assert await v2_session.prompt([TextContent(text="hi")]) == "u1"  # nothing half-sent stands in the way
    await recorder.until(idle_with(v2_session, "end_turn"))


async def test_v2_permission_answered_by_the_user(v2_session: AgentSession, recorder: Recorder) -> None:
    await v2_session.prompt([TextContent(text="ask")])
    await recorder.until(lambda: len(recorder.permissions()) == 1)
    asked = recorder.permissions()[0]
    assert asked.request_id == 0 and asked.request.title == "Allow writing?"
    assert v2_session.state.permissions
    asked.outcome.set_result("allow")
    await recorder.until(idle_with(v2_session, "end_turn"))
    call = v2_session.state.tool_call("call-0")
    assert call is not None and call.status == "completed"
    assert not v2_session.state.permissions
    answer = json.loads(recorder.sent[-1])
    assert answer == {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}
    recorder.validate_sent(2)


async def test_v2_cancel_answers_every_pending_permission(v2_session: AgentSession, recorder: Recorder) -> None:
    await v2_session.prompt([TextContent(text="ask twice")])
    # Both requests in (the second may be read later than the first; one arriving after the cancel is a
    # late request, shown to the user, whom this recorder never answers): the agent sends
    # `requires_action` after them.
    await recorder.until(
        lambda: (
            len(v2_session.state.permissions) == 2
            and bool(recorder.permissions())
            and v2_session.state.foreground.state == "requires_action"
        )
    )
    assert len(recorder.permissions()) == 1  # one dialog at a time: the second waits
    await v2_session.cancel()
    assert all(p.outcome.done() and p.outcome.result() == "cancelled" for p in recorder.permissions())
    await recorder.until(idle_with(v2_session, "cancelled"))
    sent = [json.loads(line) for line in recorder.sent]
    assert {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "sess-1"}} in sent
    answers = [m for m in sent if "result" in m]
    assert sorted(m["id"] for m in answers) == [0, 1]
    assert all(m["result"] == {"outcome": {"outcome": "cancelled"}} for m in answers)
    call = v2_session.state.tool_call("call-0")
    assert call is not None and call.status == "cancelled"
    recorder.validate_sent(2)


async def test_handshake_timeout_is_a_clear_error(recorder: Recorder, tmp_path: Path) -> None:
    session = make_session([sys.executable, V2_AGENT, "--hang"], recorder, tmp_path, handshake_timeout=0.5)
    with pytest.raises(HandshakeTimeout, match="initialize within 0.5 s"):
        await session.start()
    await session.shutdown()


async def test_agent_exit_is_an_event(v2_session: AgentSession, recorder: Recorder) -> None:
    await v2_session.shutdown()
    gone = [c for e in recorder.events if isinstance(e, ModelChanged) for c in e.changes if isinstance(c, AgentGone)]
    await recorder.until(
        lambda: any(isinstance(c, AgentGone) for e in recorder.events if isinstance(e, ModelChanged) for c in e.changes)
    )
    assert v2_session.connection.exit_info is not None and v2_session.connection.exit_info.code == 0
    assert len(gone) <= 1  # the exit is reported once


async def test_forcing_v2_against_a_v1_answer_fails_naming_both(
    recorder: Recorder, tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    session = make_session(ts_sdk_peers.agent, recorder, tmp_path, env=peer_home_env, protocol=2)
    with pytest.raises(SessionError, match="protocolVersion 1"):
        await session.start()
    await session.shutdown()


# -- the official TypeScript SDK example agents ----------------------------------------------------


async def test_sdk_dual_agent_v2_turn_and_cancel(
    recorder: Recorder, tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    session = make_session(ts_sdk_peers.dual_version_agent, recorder, tmp_path, env=peer_home_env)
    try:
        await session.start()
        assert session.version == 2
        message_id = await session.prompt([TextContent(text="Hello, who are you?")])
        assert message_id
        await recorder.until(idle_with(session, "end_turn"))
        assert session.state.message("user_message", message_id) is not None
        # The agent works 250 ms per turn, and a cancel sent on seeing it busy can reach it later than
        # that on a loaded machine, finding no turn (the CI failure of the app-level twin). So it is held
        # (SIGSTOP) while the prompt and then the cancel are written, and reads both when it continues.
        pid = session.transport.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        try:
            before = len(recorder.sent)
            second = asyncio.ensure_future(session.prompt([TextContent(text="Second")]))
            for _ in range(1000):  # the prompt on the wire (its answer waits for the agent)
                if len(recorder.sent) > before:
                    break
                await asyncio.sleep(0.01)
            assert json.loads(recorder.sent[-1]).get("method") == "session/prompt"
            await session.cancel()
        finally:
            os.kill(pid, signal.SIGCONT)
        assert await second
        await recorder.until(idle_with(session, "cancelled"))
        sent = [json.loads(line).get("method") for line in recorder.sent]
        assert sent[-2:] == ["session/prompt", "session/cancel"]
        recorder.validate_sent(2)
    finally:
        await session.shutdown()


async def test_sdk_dual_agent_v1_turn_and_cancel(
    recorder: Recorder, tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    session = make_session(ts_sdk_peers.dual_version_agent, recorder, tmp_path, env=peer_home_env, protocol=1)
    try:
        await session.start()
        assert session.version == 1
        message_id = await session.prompt([TextContent(text="Hello, who are you?")])
        assert message_id.startswith("local:")
        await recorder.until(idle_with(session, "end_turn"))
        texts = [getattr(e, "text", "") for e in session.state.entities.values()]
        assert any("v1" in t for t in texts)
        await session.prompt([TextContent(text="again")])
        await session.cancel()
        await recorder.until(
            lambda: (
                not session.state.foreground.busy and session.state.foreground.stop_reason in ("cancelled", "end_turn")
            )
        )
        recorder.validate_sent(1, hybrid_initialize=False)
    finally:
        await session.shutdown()


async def test_sdk_agent_v1_tool_calls_and_permission_id_zero(
    recorder: Recorder, tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    session = make_session(ts_sdk_peers.agent, recorder, tmp_path, env=peer_home_env)
    try:
        await session.start()
        assert session.version == 1
        await session.prompt([TextContent(text="Hello, who are you?")])
        await recorder.until(lambda: len(recorder.permissions()) == 1)
        asked = recorder.permissions()[0]
        assert asked.request_id == 0 and type(asked.request_id) is int
        assert session.state.foreground.state == "requires_action"
        asked.outcome.set_result(asked.request.options[0].option_id)
        await recorder.until(idle_with(session, "end_turn"))
        calls = [e for e in session.state.entities.values() if isinstance(e, ToolCall)]
        assert [c.status for c in calls] == ["completed", "completed"]
        answer = next(json.loads(line) for line in recorder.sent if b'"result"' in line)
        assert answer["id"] == 0 and answer["result"]["outcome"]["outcome"] == "selected"
        recorder.validate_sent(1)
    finally:
        await session.shutdown()


# -- floods (issue 21: hostile agent) -----------------------------------------------------------------------


async def test_ten_thousand_permission_requests_are_each_answered_exactly_once(
    v2_session: AgentSession, recorder: Recorder
) -> None:
    """One dialog at a time, the rest queued; a cancel answers every one still open, once."""
    count = 10_000
    await v2_session.prompt([TextContent(text=f"ask {count}")])
    await recorder.until(lambda: len(v2_session.state.permissions) == count and bool(recorder.permissions()), 100)
    for n in range(3):  # the user answers a few, one dialog after the other
        await recorder.until(lambda: len(recorder.permissions()) == n + 1, 60)
        recorder.permissions()[n].outcome.set_result("allow")
    await recorder.until(lambda: len(recorder.permissions()) == 4, 60)
    await v2_session.cancel()
    await recorder.until(lambda: len([line for line in recorder.sent if b'"outcome"' in line]) == count, 100)
    sent = [json.loads(line) for line in recorder.sent]
    answers = [m for m in sent if "result" in m and "outcome" in m["result"]]
    assert sorted(m["id"] for m in answers) == list(range(count))  # each id exactly once
    assert [m["result"]["outcome"]["outcome"] for m in answers[:3]] == ["selected"] * 3
    assert all(m["result"] == {"outcome": {"outcome": "cancelled"}} for m in answers[3:])
    assert len(recorder.permissions()) == 4  # the queued ones were never put to the user
    await recorder.until(lambda: not v2_session.state.permissions, 60)
    for message in answers[:50] + answers[-50:]:
        validate_client_message(message, 2, answering="session/request_permission")


async def test_a_hundred_thousand_replayed_updates_open_the_session(
    v2_session: AgentSession, recorder: Recorder
) -> None:
    count = 100_000
    method = await v2_session.others.open_session(f"replay-{count}")
    assert method == "resume_replay" and v2_session.session_id == f"replay-{count}"
    state = v2_session.state
    assert len([e for e in state.entities.values() if isinstance(e, ToolCall)]) == count // 100
    texts = [getattr(e, "text", "") for e in state.entities.values()]
    assert any(text.endswith(f"chunk {count - 1} ") for text in texts)  # the last chunk of the last answer
    assert "question 0" in texts and f"question {count - 100}" in texts
    assert state.problem_count == 0
