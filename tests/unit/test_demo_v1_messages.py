"""Separate agent messages stay apart in v1 (issue 11: the v1 demo showed `…to see it.`compact` needs ACP v2`).

v1 chunks may carry a `messageId` ("a change in messageId indicates a new message has started", v1
schema `ContentChunk`); without one, consecutive chunks of one kind are one message (docs/protocol.md
§5.6), which is right for real v1 agents that stream one answer per turn. So the demo, which knows where
its messages start, names them; and an id-less chunk after an agent-named message starts a new local
message instead of going back into an older one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.demo import content
from acp_tui.launch_resolve import demo_argv
from acp_tui.protocol import codec
from acp_tui.protocol.v2 import TextContent
from acp_tui.session.model import AGENT_MESSAGE, Message, SessionState
from acp_tui.session.reducer import apply
from acp_tui.session.v1_adapter import V1Adapter
from tests.support.agent_session import Recorder, idle_with


def agent_texts(state: SessionState) -> list[str]:
    return [e.text for e in state.entities.values() if isinstance(e, Message) and e.key[0] == AGENT_MESSAGE]


@pytest.mark.parametrize("version", [1, 2])
async def test_demo_messages_stay_apart(tmp_path: Path, version: int) -> None:
    recorder = Recorder()
    session = AgentSession(
        demo_argv(),
        cwd=tmp_path,
        env={**os.environ, "ACP_TUI_DEMO_SPEED": "0"},
        protocol=version,
        trace=recorder,
        listener=recorder,
    )
    try:
        await session.start()
        assert session.version == version
        await session.prompt([TextContent(text="notice compact")])
        await recorder.until(lambda: session.state.turn == 1 and idle_with(session, "end_turn")())
        texts = agent_texts(session.state)
        if version == 1:
            assert texts[-2:] == [content.V2_ONLY.format(feature="notice"), content.V2_ONLY.format(feature="compact")]
        else:
            assert not any("to see it.`compact`" in text for text in texts), texts
        assert session.state.problem_count == 0, list(session.state.problems)
        recorder.validate_sent(version, hybrid_initialize=version == 2)
    finally:
        await session.shutdown()


def v1(update: dict[str, Any]) -> Any:
    _, decoded = codec.decode_update(json.dumps({"sessionId": "s", "update": update}).encode(), 1)
    return decoded


def chunk(text: str, message_id: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    if message_id is not None:
        update["messageId"] = message_id
    return update


def test_id_less_chunks_after_an_agent_named_message_start_a_new_one() -> None:
    """An id-less chunk after an agent-named one never goes back into an older local message."""
    state = SessionState()
    adapter = V1Adapter()
    for item in adapter.turn_started(1):
        apply(state, item)
    for update in (chunk("one "), chunk("local"), chunk("Two", "m2"), chunk(" more"), chunk("Three", "m3")):
        for item in adapter.update(v1(update)):
            apply(state, item)
    assert agent_texts(state) == ["one local", "Two", " more", "Three"]
