"""Subagents through AgentSession against the scripted agent: the capability, routing by session id, and a
child's permission request through the one permission queue, labelled and answered once, for its session."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from acp_tui.agent.session import AgentSession
from acp_tui.protocol.v2 import TextContent
from acp_tui.services.base import ClientService
from acp_tui.services.permission import PermissionService
from acp_tui.services.subagents import SubagentService
from acp_tui.session.model import ToolCall
from tests.support.agent_session import Recorder
from tests.support.agents import AGENTS_DIR
from tests.support.scripted_app import v2_turn
from tests.support.subagents import CHILD, TITLE, child_permission, subagent_steps

SCRIPTED = str(AGENTS_DIR / "scripted_agent.py")


async def start(tmp_path: Path, script: dict[str, Any], recorder: Recorder) -> AgentSession:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    services: list[ClientService] = [PermissionService(recorder), SubagentService()]
    session = AgentSession(
        [sys.executable, SCRIPTED, str(path)], cwd=tmp_path, trace=recorder, listener=recorder, services=services
    )
    await session.start()
    return session


async def test_a_child_session_fills_its_lane_and_asks_through_the_queue(tmp_path: Path) -> None:
    recorder = Recorder()
    session = await start(tmp_path, {"turns": [{"steps": v2_turn(*subagent_steps(ask=True))}]}, recorder)
    try:
        init = json.loads(recorder.sent[0])["params"]
        assert init["capabilities"]["subagents"] == {} and init["clientCapabilities"]["subagents"] == {}
        await session.prompt([TextContent(text="go")])
        await recorder.until(lambda: bool(recorder.asked))
        [asked] = recorder.asked
        assert asked.question.subagent == TITLE and asked.request.session_id == CHILD
        child = session.state.subagents[CHILD]
        # the child's call, patched by its own request, is in its lane and not in the parent's timeline
        assert [call.title for call in child.tool_calls] == ["grep -rn def test", "Write notes.md"]
        assert list(child.model.permissions) == [40] and not session.state.permissions
        assert not [e for e in session.state.entities.values() if isinstance(e, ToolCall)]
        asked.outcome.set_result("allow")
        await recorder.until(lambda: child.ended and session.state.foreground.state == "idle")
        answers = [json.loads(line) for line in recorder.sent if b'"result"' in line and b'"outcome"' in line]
        assert [(a["id"], a["result"]["outcome"]["optionId"]) for a in answers] == [(40, "allow")]
        assert not child.model.permissions and child.reply == "3 tests found"
        assert session.state.problem_count == 0, list(session.state.problems)
        recorder.validate_sent(2)
    finally:
        await session.shutdown()


async def test_a_request_for_a_session_nobody_announced_is_refused_once(tmp_path: Path) -> None:
    recorder = Recorder()
    steps = v2_turn(child_permission(41, session="stranger"))
    session = await start(tmp_path, {"turns": [{"steps": steps}]}, recorder)
    try:
        await session.prompt([TextContent(text="go")])
        await recorder.until(lambda: session.state.foreground.state == "idle")
        await recorder.until(lambda: any(b'"id":41' in line.replace(b" ", b"") for line in recorder.sent))
        [answer] = [json.loads(line) for line in recorder.sent if b'"id":41' in line.replace(b" ", b"")]
        assert answer["error"]["code"] == -32602 and not recorder.asked  # never put to the user
        assert any("unknown session" in p.reason for p in session.state.problems)
    finally:
        await session.shutdown()


async def test_updates_for_an_unannounced_session_are_reported_not_applied(tmp_path: Path) -> None:
    recorder = Recorder()
    steps = v2_turn(
        {"op": "update", "session": "ghost", "update": {"sessionUpdate": "tool_call_update", "toolCallId": "g"}}
    )
    session = await start(tmp_path, {"turns": [{"steps": steps}]}, recorder)
    try:
        await session.prompt([TextContent(text="go")])
        await recorder.until(lambda: session.state.foreground.state == "idle")
        assert not session.state.subagents and session.state.tool_call("g") is None
        assert any("unknown session" in p.reason for p in session.state.problems)
    finally:
        await session.shutdown()


async def test_a_subagents_history_replayed_on_resume_goes_to_its_lane(tmp_path: Path) -> None:
    recorder = Recorder()
    session = AgentSession(
        [sys.executable, str(AGENTS_DIR / "rpc_v2_agent.py")],
        cwd=tmp_path,
        trace=recorder,
        listener=recorder,
        services=[PermissionService(recorder), SubagentService()],
    )
    await session.start()
    try:
        await session.others.open_session("with-subagent")
        kid = session.state.subagents["kid"]
        assert kid.title == "Kid" and [call.id for call in kid.tool_calls] == ["k1"]
        assert session.state.problem_count == 0, list(session.state.problems)
    finally:
        await session.shutdown()
