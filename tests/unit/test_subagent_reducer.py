"""Reducer rules for subagents (session/subagents.py): a child session's work in a bounded lane of its own.

The shapes are the unstable v2 `subagent_update` and `session_message` as Claude's ACP adapter sends them
(tests/support/fixtures/traffic/claude-v2-subagent.log is one real session of it).
"""

from __future__ import annotations

from acp_tui.protocol.v2 import (
    AgentMessage,
    AgentMessageChunk,
    BackgroundWork,
    ContentBlock,
    SessionMessage,
    StateUpdate,
    SubagentState,
    SubagentUpdate,
    TextContent,
    ToolCallUpdate,
)
from acp_tui.session.changes import Change, EntityAdded, EntityChanged, ProblemAdded
from acp_tui.session.local_events import AgentExited, ChildUpdate
from acp_tui.session.model import AGENT_MESSAGE, SUBAGENT, Message, SessionState, Subagent
from acp_tui.session.reducer import apply
from acp_tui.session.subagents import LANE, MAX_DEPTH, MAX_ENTRIES, MAX_SUBAGENTS, MAX_TEXT_BUDGET, subagent_name


def announce(s: SessionState, child: str, **fields: object) -> list[Change]:
    return list(apply(s, SubagentUpdate(session_id=child, **fields)))  # type: ignore[arg-type]


def child_of(state: SessionState, child: str) -> Subagent:
    found = state.subagents[child]
    assert isinstance(found, Subagent)
    return found


def test_a_child_is_announced_once_and_its_updates_go_to_its_own_model() -> None:
    s = SessionState()
    changes = announce(s, "c1", title="Explore", description="general-purpose", state=SubagentState(state="running"))
    assert changes == [EntityAdded((SUBAGENT, "c1"), 0), EntityChanged((SUBAGENT, "c1"), LANE)]
    changes = apply(s, ChildUpdate("c1", ToolCallUpdate(tool_call_id="t1", title="grep", status="in_progress")))
    assert changes == [EntityChanged((SUBAGENT, "c1"), LANE)]  # the parent sees one lane change, nothing else
    apply(s, ChildUpdate("c1", AgentMessage(message_id="m1", content=[TextContent(text="found [b]3[/b]")])))
    child = child_of(s, "c1")
    assert [e.key for e in s.entities.values()] == [(SUBAGENT, "c1")]
    assert [call.title for call in child.tool_calls] == ["grep"]
    message = child.model.message(AGENT_MESSAGE, "m1")
    assert isinstance(message, Message) and message.text == "found [b]3[/b]"  # data, kept as sent
    assert child.name == "Explore" and subagent_name(s, "c1") == "Explore" and subagent_name(s, "other") is None


def test_patches_keep_what_they_omit_and_null_clears() -> None:
    s = SessionState()
    announce(s, "c1", title="Explore", description="general-purpose")
    announce(s, "c1", description=None)
    child = child_of(s, "c1")
    assert child.title == "Explore" and child.description is None
    announce(s, "c1", title=None)
    assert child.name == "subagent"  # no title: a fallback, never an empty header


def test_an_unknown_child_is_a_problem_never_a_crash() -> None:
    s = SessionState()
    changes = apply(s, ChildUpdate("ghost", ToolCallUpdate(tool_call_id="t1")))
    assert [type(c) for c in changes] == [ProblemAdded] and not s.entities and not s.subagents


def test_a_child_never_changes_owner_so_there_is_no_cycle() -> None:
    s = SessionState()
    announce(s, "a")
    apply(s, ChildUpdate("a", SubagentUpdate(session_id="b")))  # a owns b
    # b claims a, a claims itself: ownership stands, each a problem
    for sender, claimed in (("b", "a"), ("a", "a")):
        changes = apply(s, ChildUpdate(sender, SubagentUpdate(session_id=claimed, title="hijack")))
        assert [type(c) for c in changes] == [ProblemAdded]
    assert child_of(s, "a").parent_id is None and child_of(s, "a").title is None
    assert child_of(s, "b").parent_id == "a" and child_of(s, "b").depth == 2
    # a nested child's work changes the top-level lane, where it is shown
    assert apply(s, ChildUpdate("b", ToolCallUpdate(tool_call_id="t"))) == [EntityChanged((SUBAGENT, "a"), LANE)]
    assert (SUBAGENT, "b") in child_of(s, "a").model.entities and (SUBAGENT, "b") not in s.entities


def test_depth_count_and_entries_are_capped() -> None:
    s = SessionState()
    announce(s, "d1")
    for depth in range(2, MAX_DEPTH + 2):
        apply(s, ChildUpdate(f"d{depth - 1}", SubagentUpdate(session_id=f"d{depth}")))
    assert f"d{MAX_DEPTH}" in s.subagents and f"d{MAX_DEPTH + 1}" not in s.subagents
    for n in range(MAX_SUBAGENTS + 5):
        announce(s, f"n{n}")
    assert len(s.subagents) == MAX_SUBAGENTS
    for n in range(MAX_ENTRIES + 10):
        apply(s, ChildUpdate("d1", ToolCallUpdate(tool_call_id=f"t{n}", status="completed")))
    d1 = child_of(s, "d1")
    assert len(d1.model.entities) == MAX_ENTRIES and d1.dropped == 11  # d2's lane counts as one of them


def test_a_child_that_never_ends_is_closed_when_the_parent_is_idle_without_it() -> None:
    s = SessionState()
    apply(s, StateUpdate(state="running"))
    announce(s, "bg", state=SubagentState(state="running"))
    announce(s, "fg", state=SubagentState(state="running"))
    listed = [BackgroundWork(type="subagent", session_id="bg")]
    apply(s, StateUpdate(state="idle", stop_reason="end_turn", background=listed))
    assert child_of(s, "fg").ended and not child_of(s, "bg").ended  # background work outlives the turn
    apply(s, ChildUpdate("bg", StateUpdate(state="running")))
    apply(s, StateUpdate(state="idle", background=[]))  # the snapshot no longer lists it
    assert child_of(s, "bg").ended


def test_a_child_says_it_is_idle_and_may_run_again() -> None:
    s = SessionState()
    announce(s, "c", state=SubagentState(state="running"))
    announce(s, "c", state=SubagentState(state="idle", stop_reason="end_turn"))
    child = child_of(s, "c")
    assert child.ended and child.stop_reason == "end_turn"
    apply(s, ChildUpdate("c", StateUpdate(state="running")))
    assert not child.ended


def test_the_agent_exiting_closes_every_child() -> None:
    s = SessionState()
    announce(s, "c", state=SubagentState(state="running"))
    apply(s, AgentExited(returncode=1))
    assert child_of(s, "c").ended


def test_session_messages_between_parent_and_child() -> None:
    s = SessionState()
    announce(s, "c")
    text: list[ContentBlock] = [TextContent(text="Find the tests")]
    apply(s, SessionMessage(message_id="m", sender_session_id="root", recipient_session_id="c", content=text))
    apply(s, ChildUpdate("c", SessionMessage(message_id="m", sender_session_id="root", content=text)))
    reply: list[ContentBlock] = [TextContent(text="3 tests")]
    apply(s, SessionMessage(message_id="r", sender_session_id="c", recipient_session_id="root", content=reply))
    child = child_of(s, "c")
    assert child.prompt == "Find the tests" and child.reply == "3 tests"
    assert [e.key[0] for e in child.model.entities.values()] == ["user_message"]  # its prompt, as its first message
    # one between sessions it does not know is shown as it came, not dropped
    apply(s, SessionMessage(message_id="x", sender_session_id="p", recipient_session_id="q", content=reply))
    stray = s.message(AGENT_MESSAGE, "x")
    assert isinstance(stray, Message) and stray.text == "3 tests"


def test_what_a_child_sent_that_could_not_be_used_is_a_problem_of_the_session() -> None:
    s = SessionState()
    announce(s, "c", title="Explore")
    apply(s, ChildUpdate("c", object()))  # nothing the reducer knows
    assert s.problem_count == 1 and s.problems[-1].reason == "subagent Explore: unsupported update"


def test_a_child_streaming_without_end_is_bounded() -> None:
    s = SessionState()
    announce(s, "c")
    chunk = "x" * 65536
    for _ in range(MAX_TEXT_BUDGET // len(chunk) + 10):
        apply(s, ChildUpdate("c", AgentMessageChunk(message_id="m", content=TextContent(text=chunk))))
    child = child_of(s, "c")
    message = child.model.message(AGENT_MESSAGE, "m")
    assert isinstance(message, Message) and len(message.text) <= MAX_TEXT_BUDGET and child.dropped == 10
