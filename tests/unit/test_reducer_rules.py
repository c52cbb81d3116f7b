"""One named test per v2 session rule; each docstring quotes the spec sentence it checks.

Sources: the ACP v2 spec page "Prompt Lifecycle" ("lifecycle") and `docs/protocol.md` (§).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from msgspec import UNSET

from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import (
    AgentMessage,
    AgentMessageChunk,
    AgentThought,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandsUpdate,
    CompactionSummaryChunk,
    CompactionUpdate,
    ConfigOptionUpdate,
    Cost,
    ImageContent,
    Notice,
    PlanEntry,
    PlanItems,
    PlanUpdate,
    SessionConfigBoolean,
    SessionInfoUpdate,
    StateUpdate,
    TerminalExitStatus,
    TerminalOutput,
    TerminalOutputChunk,
    TerminalUpdate,
    TextContent,
    ToolCallContentChunk,
    ToolCallUpdate,
    ToolContent,
    UnknownPlan,
    UnknownUpdate,
    UsageUpdate,
    UserMessage,
    UserMessageChunk,
)
from acp_tui.session.changes import (
    AgentGone,
    BytesAppended,
    Change,
    ContentAppended,
    ContentReplaced,
    EntityAdded,
    EntityChanged,
    NoticeRaised,
    PermissionsChanged,
    ProblemAdded,
    StateChanged,
    SubmissionChanged,
    TextAppended,
    TurnEnded,
)
from acp_tui.session.local_events import (
    AgentExited,
    CancelRequested,
    PermissionRequested,
    PermissionResolved,
    PromptAccepted,
    PromptRejected,
    PromptSubmitted,
    ProtocolProblem,
    SubmissionDismissed,
)
from acp_tui.session.model import (
    AGENT_MESSAGE,
    AGENT_THOUGHT,
    TOOL_CALL,
    USER_MESSAGE,
    Compaction,
    Message,
    SessionState,
    Terminal,
    ToolCall,
    UnknownEntry,
)
from acp_tui.session.reducer import ModelInput, apply


def t(text: str, meta: dict[str, Any] | None = None) -> TextContent:
    return TextContent(text=text) if meta is None else TextContent(text=text, meta=meta)


def texts(blocks: Sequence[object]) -> list[str]:
    """The text of each block; every block must be text."""
    assert all(isinstance(b, TextContent) for b in blocks)
    return [b.text for b in blocks if isinstance(b, TextContent)]


def feed(state: SessionState, *items: ModelInput) -> list[Change]:
    changes: list[Change] = []
    for item in items:
        changes.extend(apply(state, item))
    return changes


def agent_msg(state: SessionState, message_id: str = "m") -> Message:
    msg = state.message(AGENT_MESSAGE, message_id)
    assert msg is not None
    return msg


def tool(state: SessionState, tool_call_id: str = "c") -> ToolCall:
    call = state.tool_call(tool_call_id)
    assert call is not None
    return call


# -- messages --------------------------------------------------------------------------------------


def test_message_full_update_replaces_chunks_and_chunks_append_to_replacement() -> None:
    """lifecycle: "if an Agent sends agent_message with content: [A], then sends agent_message_chunk with
    B, the rendered message content is [A, B]. If it later sends another agent_message with content: [C],
    the rendered content becomes [C] ... Subsequent chunks append to [C]."""
    s = SessionState()
    feed(s, AgentMessage(message_id="m", content=[t("A")]), AgentMessageChunk(message_id="m", content=t("B")))
    assert texts(agent_msg(s).content.blocks) == ["A", "B"]
    assert agent_msg(s).text == "AB"
    changes = apply(s, AgentMessage(message_id="m", content=[t("C")]))
    assert changes == [ContentReplaced((AGENT_MESSAGE, "m"))]
    assert agent_msg(s).text == "C"
    assert apply(s, AgentMessageChunk(message_id="m", content=t("D"))) == [TextAppended((AGENT_MESSAGE, "m"), "D")]
    assert texts(agent_msg(s).content.blocks) == ["C", "D"]


def test_message_update_without_content_keeps_content_and_patches_meta() -> None:
    """lifecycle: "A message update without content leaves the current content unchanged, so Agents can
    update other optional fields without resending content." """
    s = SessionState()
    feed(s, AgentMessageChunk(message_id="m", content=t("hi")))
    changes = apply(s, AgentMessage(message_id="m", meta={"k": 1}))
    assert agent_msg(s).text == "hi"
    assert agent_msg(s).meta == {"k": 1}
    assert changes == [EntityChanged((AGENT_MESSAGE, "m"), frozenset({"meta"}))]
    apply(s, AgentMessage(message_id="m", meta=None))
    assert agent_msg(s).meta is None and agent_msg(s).text == "hi"


def test_message_null_or_empty_content_clears() -> None:
    """lifecycle: "A message update with content: [] or content: null clears the message content." """
    cleared: list[TextContent] | None
    for cleared in (None, []):
        s = SessionState()
        feed(s, AgentMessageChunk(message_id="m", content=t("x")), AgentMessageChunk(message_id="m", content=t("y")))
        apply(s, AgentMessage(message_id="m", content=cleared))
        assert agent_msg(s).content.blocks == [] and agent_msg(s).text == ""
        apply(s, AgentMessageChunk(message_id="m", content=t("z")))
        assert agent_msg(s).text == "z"


def test_chunk_meta_is_chunk_scoped() -> None:
    """lifecycle: "A chunk's _meta, when present, is chunk-scoped." """
    s = SessionState()
    feed(s, AgentMessage(message_id="m", content=[t("a")], meta={"top": True}))
    apply(s, AgentMessageChunk(message_id="m", content=t("b", meta={"block": 1}), meta={"chunk": 2}))
    assert agent_msg(s).meta == {"top": True}
    block = agent_msg(s).content.blocks[1]
    assert isinstance(block, TextContent) and block.meta == {"block": 1}


def test_same_message_id_names_two_entities_across_types() -> None:
    """lifecycle: "an agent_thought whose messageId matches an existing Agent message creates or updates a
    thought and leaves the message unchanged." """
    s = SessionState()
    feed(s, AgentMessageChunk(message_id="x", content=t("answer")), AgentThought(message_id="x", content=[t("why")]))
    feed(s, AgentThoughtChunk(message_id="x", content=t("!")), UserMessage(message_id="x", content=[t("q")]))
    assert agent_msg(s, "x").text == "answer"
    thought = s.message(AGENT_THOUGHT, "x")
    user = s.message(USER_MESSAGE, "x")
    assert thought is not None and thought.text == "why!"
    assert user is not None and user.text == "q"
    assert list(s.entities) == [(AGENT_MESSAGE, "x"), (AGENT_THOUGHT, "x"), (USER_MESSAGE, "x")]


def test_first_notification_fixes_timeline_position() -> None:
    """§5.1: "the first notification for an ID fixes that entity's position in the timeline. Later updates
    and chunks patch it in place: they never move it or split it around later entities." """
    s = SessionState()
    changes = feed(
        s,
        AgentMessageChunk(message_id="a", content=t("1")),
        ToolCallUpdate(tool_call_id="c", title="Read"),
        AgentMessageChunk(message_id="a", content=t("2")),
    )
    assert changes[0] == EntityAdded((AGENT_MESSAGE, "a"), 0)
    assert changes[1] == EntityAdded((TOOL_CALL, "c"), 1)
    assert list(s.entities) == [(AGENT_MESSAGE, "a"), (TOOL_CALL, "c")]
    assert agent_msg(s, "a").text == "12"


def test_non_text_chunk_is_reported_as_content_appended() -> None:
    """§5.1: "Chunks append" — any content block type, not only text."""
    s = SessionState()
    feed(s, AgentMessageChunk(message_id="m", content=t("see:")))
    image = ImageContent(data="AAAA", mime_type="image/png")
    assert apply(s, AgentMessageChunk(message_id="m", content=image)) == [ContentAppended((AGENT_MESSAGE, "m"), image)]
    assert agent_msg(s).content.blocks[-1] is image and agent_msg(s).text == "see:"


# -- user messages and prompt submissions ------------------------------------------------------------


def test_prompt_response_binds_by_request_id_when_update_came_first() -> None:
    """lifecycle: "If the message update arrived first, the Client reconciles with that existing message
    rather than creating a duplicate." """
    s = SessionState()
    feed(s, PromptSubmitted(7, [t("hello")]))
    assert s.submissions[7].status == "pending"
    feed(s, UserMessage(message_id="u1", content=[t("hello")]))
    changes = apply(s, PromptAccepted(7, "u1"))
    assert SubmissionChanged(7) in changes
    assert 7 not in s.submissions
    user = s.message(USER_MESSAGE, "u1")
    assert user is not None and user.submission_id == 7 and user.text == "hello" and not user.local_echo
    assert len(s.entities) == 1


def test_prompt_response_first_shows_submitted_blocks_then_update_replaces_echo() -> None:
    """lifecycle: "Clients MUST tolerate the updates arriving before or after the response." """
    s = SessionState()
    feed(s, PromptSubmitted(3, [t("do it")]))
    changes = apply(s, PromptAccepted(3, "u9"))
    assert EntityAdded((USER_MESSAGE, "u9"), 0) in changes
    user = s.message(USER_MESSAGE, "u9")
    assert user is not None and user.text == "do it" and user.local_echo
    # The agent reports the same message as chunks: they replace the echo, no duplicated text.
    feed(s, UserMessageChunk(message_id="u9", content=t("do ")), UserMessageChunk(message_id="u9", content=t("it")))
    assert user.text == "do it" and not user.local_echo and len(s.entities) == 1


def test_identical_prompts_are_matched_by_request_id_not_content_or_order() -> None:
    """lifecycle: "Clients must not infer the association from content or arrival order." """
    s = SessionState()
    feed(s, PromptSubmitted(1, [t("same")]), PromptSubmitted(2, [t("same")]))
    feed(s, UserMessage(message_id="second", content=[t("same")]), PromptAccepted(2, "second"))
    assert s.message(USER_MESSAGE, "second").submission_id == 2  # type: ignore[union-attr]
    assert s.submissions[1].status == "pending"
    feed(s, PromptAccepted(1, "first"))
    assert s.message(USER_MESSAGE, "first").submission_id == 1  # type: ignore[union-attr]
    assert list(s.entities) == [(USER_MESSAGE, "second"), (USER_MESSAGE, "first")]


def test_rejected_prompt_leaves_no_user_message() -> None:
    """lifecycle: "If a request is rejected before insertion ... the Agent MUST return a JSON-RPC error
    response and MUST NOT emit user-message updates for that submission." Request cancellation uses -32800."""
    s = SessionState()
    feed(s, PromptSubmitted(1, [t("a")]), PromptSubmitted(2, [t("b")]))
    feed(
        s,
        PromptRejected(1, ErrorObject(code=-32603, message="hook failed")),
        PromptRejected(2, ErrorObject(code=-32800, message="cancelled"), cancelled=True),
    )
    assert s.entities == {}
    assert s.submissions[1].status == "failed" and s.submissions[1].error.message == "hook failed"  # type: ignore[union-attr]
    assert s.submissions[2].status == "cancelled"
    assert apply(s, SubmissionDismissed(1)) == [SubmissionChanged(1)]
    assert 1 not in s.submissions


# -- tool calls --------------------------------------------------------------------------------------


def test_tool_call_created_with_defaults() -> None:
    """§5.1 "On a first-seen ID, omitted fields take client defaults"; §5.6 "Defaults: status: pending,
    kind: other"."""
    s = SessionState()
    assert apply(s, ToolCallUpdate(tool_call_id="c", status="in_progress")) == [EntityAdded((TOOL_CALL, "c"), 0)]
    call = tool(s)
    assert (call.status, call.kind, call.title, call.content) == ("in_progress", "other", None, [])


def test_tool_call_patch_omitted_unchanged_null_cleared_value_replaced() -> None:
    """§5.1: "omitted ⇒ unchanged; null ⇒ clear; value ⇒ replace; arrays are replaced wholesale" """
    s = SessionState()
    feed(
        s,
        ToolCallUpdate(
            tool_call_id="c",
            title="Read file",
            kind="read",
            raw_input={"p": 1},
            locations=[],
            content=[ToolContent(content=t("x"))],
        ),
    )
    changes = apply(s, ToolCallUpdate(tool_call_id="c", title="Read a.py", raw_input=None))
    call = tool(s)
    assert call.title == "Read a.py" and call.raw_input is None and call.kind == "read"
    assert len(call.content) == 1
    assert changes == [EntityChanged((TOOL_CALL, "c"), frozenset({"title", "raw_input"}))]
    changes = apply(s, ToolCallUpdate(tool_call_id="c", content=[]))
    assert call.content == [] and changes == [ContentReplaced((TOOL_CALL, "c"))]


def test_tool_call_content_chunk_appends_and_creates() -> None:
    """lifecycle: "Clients append each tool_call_content_chunk to the current content for that toolCallId.
    A later tool_call_update with content replaces the accumulated content." """
    s = SessionState()
    first = ToolContent(content=t("Checked syntax..."))
    assert apply(s, ToolCallContentChunk(tool_call_id="c", content=first)) == [EntityAdded((TOOL_CALL, "c"), 0)]
    second = ToolContent(content=t("more"))
    assert apply(s, ToolCallContentChunk(tool_call_id="c", content=second)) == [
        ContentAppended((TOOL_CALL, "c"), second)
    ]
    assert tool(s).content == [first, second] and tool(s).status == "pending"
    apply(s, ToolCallUpdate(tool_call_id="c", status="completed", content=[ToolContent(content=t("done"))]))
    assert tool(s).content == [ToolContent(content=t("done"))]


def test_tool_call_unknown_status_kept_and_cancelled_status_accepted() -> None:
    """§11: "Never infer lifecycle ... an unknown tool status is neither done nor failed." """
    s = SessionState()
    feed(s, ToolCallUpdate(tool_call_id="c", status="_paused"))
    assert tool(s).status == "_paused" and not tool(s).finished
    feed(s, ToolCallUpdate(tool_call_id="c", status="cancelled"))
    assert tool(s).finished


# -- terminals ---------------------------------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_terminal_snapshot_replaces_and_chunks_decode_separately() -> None:
    """§6.4: "base64-decode each chunk separately (MUST NOT concatenate the base64 strings), then append
    bytes"; "output.data: an authoritative replacement snapshot ... Replace all stored bytes" """
    s = SessionState()
    feed(s, TerminalUpdate(terminal_id="t", command="ls", cwd="/w"))
    # "a" and "b" each padded: concatenating the base64 text would be invalid.
    changes = feed(
        s, TerminalOutputChunk(terminal_id="t", data=b64(b"a")), TerminalOutputChunk(terminal_id="t", data=b64(b"b"))
    )
    assert changes == [BytesAppended(("terminal", "t"), b"a"), BytesAppended(("terminal", "t"), b"b")]
    term = s.terminal("t")
    assert term is not None and bytes(term.output) == b"ab"
    changes = apply(
        s,
        TerminalUpdate(
            terminal_id="t", output=TerminalOutput(data=b64(b"fresh")), exit_status=TerminalExitStatus(exit_code=0)
        ),
    )
    assert bytes(term.output) == b"fresh" and term.exit_status.exit_code == 0  # type: ignore[union-attr]
    assert ContentReplaced(("terminal", "t")) in changes
    feed(s, TerminalOutputChunk(terminal_id="t", data=b64(b"!")))
    assert bytes(term.output) == b"fresh!" and term.command == "ls"


def test_terminal_invalid_base64_is_a_problem_not_an_exception() -> None:
    """§1.2 / §11: malformed data is a protocol problem; the session goes on."""
    s = SessionState()
    changes = apply(s, TerminalOutputChunk(terminal_id="t", data="%%%not base64"))
    assert isinstance(changes[0], ProblemAdded) and s.problem_count == 1
    apply(s, TerminalUpdate(terminal_id="t", output=TerminalOutput(data="@@")))
    assert s.problem_count == 2


def test_terminal_output_is_bounded_and_counts_dropped_bytes() -> None:
    """§6.4: terminal output is kept for display; the model keeps the newest bytes within a bound."""
    s = SessionState(terminal_limit=10)
    for _ in range(3):
        apply(s, TerminalOutputChunk(terminal_id="t", data=b64(b"0123456")))
    term = s.terminal("t")
    assert isinstance(term, Terminal)
    assert bytes(term.output) == (b"0123456" * 3)[-10:] and term.dropped == 11


def test_terminal_first_seen_by_chunk_keeps_output() -> None:
    """§6.4: "The reference and the updates may arrive in either order: keep state for a first-seen ID
    (MUST not lose output)." """
    s = SessionState()
    feed(s, TerminalOutputChunk(terminal_id="t", data=b64(b"early")), TerminalUpdate(terminal_id="t", command="make"))
    assert bytes(s.terminal("t").output) == b"early"  # type: ignore[union-attr]


# -- plans -------------------------------------------------------------------------------------------


def test_plan_update_replaces_plan_in_place_and_keeps_unknown_variants() -> None:
    """§7: "The client MUST replace that plan's entries entirely"; "Unknown plan.type ⇒ preserve" """
    s = SessionState()
    feed(
        s, PlanUpdate(plan=PlanItems(plan_id="p", entries=[PlanEntry(content="a", priority="high", status="pending")]))
    )
    feed(s, AgentMessageChunk(message_id="m", content=t("x")))
    changes = apply(
        s, PlanUpdate(plan=PlanItems(plan_id="p", entries=[PlanEntry(content="b", priority="low", status="completed")]))
    )
    assert changes == [EntityChanged(("plan", "p"), frozenset({"plan"}))]
    plan = s.plan("p")
    assert plan is not None and [e.content for e in plan.plan.entries] == ["b"]  # type: ignore[union-attr]
    assert list(s.entities)[0] == ("plan", "p")
    feed(s, PlanUpdate(plan=UnknownPlan(type="markdown", plan_id="q", raw={"content": "# x"})))
    assert isinstance(s.plan("q").plan, UnknownPlan)  # type: ignore[union-attr]


# -- compaction --------------------------------------------------------------------------------------


def test_compaction_first_seen_in_progress_chunks_append_summary_replaces() -> None:
    """§5.5: "A first-seen ID, from either variant, initialises to {status:"in_progress"}"; "Chunks append.
    A concrete summary replaces the accumulation, and later chunks append to it." """
    s = SessionState()
    feed(s, CompactionSummaryChunk(compaction_id="k", content=t("## Retained\n")))
    comp = s.compaction("k")
    assert isinstance(comp, Compaction) and comp.status == "in_progress"
    assert apply(s, CompactionSummaryChunk(compaction_id="k", content=t("more"))) == [
        TextAppended(("compaction", "k"), "more")
    ]
    assert comp.summary.text == "## Retained\nmore"
    feed(s, CompactionUpdate(compaction_id="k", status="completed", summary=[t("final")]))
    assert comp.status == "completed" and comp.summary.text == "final"
    feed(s, CompactionSummaryChunk(compaction_id="k", content=t("+")))
    assert comp.summary.text == "final+"


def test_compaction_null_or_empty_summary_clears_and_unknown_status_kept() -> None:
    """§5.5: "null or [] clears partial output, e.g. before failed / cancelled"; "Unknown statuses are
    kept as-is" """
    cleared: list[TextContent] | None
    for cleared in (None, []):
        s = SessionState()
        feed(s, CompactionUpdate(compaction_id="k", status="in_progress", summary=[t("partial")]))
        feed(s, CompactionUpdate(compaction_id="k", status="failed", summary=cleared, error="disk full"))
        comp = s.compaction("k")
        assert comp is not None and comp.summary.blocks == [] and comp.error == "disk full" and comp.status == "failed"
    feed(s, CompactionUpdate(compaction_id="k", status="_archived", error=None))
    assert comp is not None and comp.status == "_archived" and comp.error is None


def test_compaction_position_fixed_by_first_notification() -> None:
    """lifecycle: "The first notification fixes the entity's timeline position in receive order: it follows
    previously received timeline content and precedes content first received later." """
    s = SessionState()
    feed(
        s,
        AgentMessageChunk(message_id="a", content=t("before")),
        CompactionUpdate(compaction_id="k", status="in_progress"),
    )
    feed(
        s,
        AgentMessageChunk(message_id="b", content=t("after")),
        CompactionUpdate(compaction_id="k", status="completed"),
    )
    feed(s, AgentMessageChunk(message_id="a", content=t(" more")))
    assert list(s.entities) == [(AGENT_MESSAGE, "a"), ("compaction", "k"), (AGENT_MESSAGE, "b")]


# -- notices and unknown updates -----------------------------------------------------------------------


def test_notice_is_live_only_and_severity_open() -> None:
    """§5.4: "severity is required and open: preserve unknown values"; "Not history: SHOULD NOT be
    replayed"; "Even error does not ... change state" """
    s = SessionState()
    feed(s, StateUpdate(state="running"))
    notice = Notice(severity="_fatal_ish", title="Model retry")
    assert apply(s, notice) == [NoticeRaised(notice)]
    assert s.entities == {} and list(s.notices) == [notice] and s.foreground.state == "running"


def test_unknown_updates_kept_in_timeline_order_with_raw_payload() -> None:
    """§5.1: "Unknown sessionUpdate values (custom _x or future): preserve the raw payload when storing" """
    s = SessionState()
    raw = {"sessionUpdate": "_x_progress", "pct": 40}
    feed(s, AgentMessageChunk(message_id="m", content=t("a")), UnknownUpdate(kind="_x_progress", raw=raw))
    feed(s, UnknownUpdate(kind="fancy_notice", raw={"sessionUpdate": "fancy_notice"}))
    entries = [e for e in s.entities.values() if isinstance(e, UnknownEntry)]
    assert [e.kind for e in entries] == ["_x_progress", "fancy_notice"]
    assert entries[0].raw == raw and list(s.entities)[1] == entries[0].key


# -- foreground state ------------------------------------------------------------------------------------


def test_every_idle_ends_foreground_work_whatever_the_stop_reason() -> None:
    """lifecycle: "Clients MUST recognize idle as the end of foreground work even when the stop reason is
    omitted, null, malformed, or unknown" """
    for reason in (UNSET, None, "_weird", 42, "end_turn"):
        s = SessionState()
        feed(s, StateUpdate(state="running"))
        assert s.foreground.busy
        changes = apply(s, StateUpdate(state="idle", stop_reason=reason))  # type: ignore[arg-type]
        stop_reason = reason if isinstance(reason, str) else None
        assert changes == [StateChanged("idle", False), TurnEnded(1, stop_reason)]
        assert not s.foreground.busy
        assert s.foreground.stop_reason == (reason if isinstance(reason, str) else None)


def test_error_stop_reason_carries_error_object_only_with_error() -> None:
    """lifecycle: "error belongs to the error stop reason; beside any other stop reason it is an unknown
    field." """
    s = SessionState()
    err = ErrorObject(code=-32000, message="Authentication required")
    feed(s, StateUpdate(state="running"), StateUpdate(state="idle", stop_reason="error", error=err))
    assert s.foreground.error == err and s.foreground.stop_reason == "error"
    feed(s, StateUpdate(state="running"), StateUpdate(state="idle", stop_reason="end_turn", error=err))
    assert s.foreground.error is None


def test_requires_action_and_unknown_states() -> None:
    """§9.1: requires_action = "Foreground work is blocked on user action"; "_x / future: Keep the last
    known busy/idle; show a generic label." """
    s = SessionState()
    feed(s, StateUpdate(state="running"), StateUpdate(state="requires_action"))
    assert s.foreground.state == "requires_action" and s.foreground.busy
    feed(s, StateUpdate(state="_thinking_hard"))
    assert s.foreground.state == "_thinking_hard" and s.foreground.busy
    feed(s, StateUpdate(state="idle"), StateUpdate(state="_napping"))
    assert s.foreground.state == "_napping" and not s.foreground.busy


def test_updates_while_idle_do_not_change_state_and_idle_is_idempotent() -> None:
    """lifecycle: "Background activity MAY continue and emit other session/update notifications while the
    Agent reports idle. These notifications do not change the state." §9.1 "Idle is idempotent." """
    s = SessionState()
    feed(s, StateUpdate(state="running"), StateUpdate(state="idle", stop_reason="end_turn"))
    feed(
        s,
        ToolCallUpdate(tool_call_id="bg", status="in_progress"),
        ToolCallUpdate(tool_call_id="bg", status="completed"),
    )
    feed(s, AgentMessageChunk(message_id="m", content=t("bg")))
    assert s.foreground.state == "idle" and not s.foreground.busy
    assert apply(s, StateUpdate(state="idle", stop_reason="end_turn")) == []


def test_background_snapshot_kept() -> None:
    """§9.1: "idle ... Background activity may continue" (the idle update may carry a background snapshot)."""
    from acp_tui.protocol.v2 import BackgroundWork

    s = SessionState()
    work = [BackgroundWork(type="terminal", terminal_id="t1")]
    feed(s, StateUpdate(state="idle", stop_reason="end_turn", background=work))
    assert s.foreground.background == work


# -- cancellation and permissions ------------------------------------------------------------------------


def test_cancel_resolves_pending_permissions_and_marks_current_tool_calls_cancelling() -> None:
    """lifecycle: "The Client SHOULD preemptively mark all non-finished tool calls pertaining to the current
    active work as cancelled ... The Client MUST respond to all pending session/request_permission requests
    with the cancelled outcome." """
    s = SessionState()
    feed(
        s,
        StateUpdate(state="running"),
        ToolCallUpdate(tool_call_id="old", status="in_progress"),
        StateUpdate(state="idle"),
    )
    feed(s, StateUpdate(state="running"))
    feed(
        s,
        ToolCallUpdate(tool_call_id="done", status="completed"),
        ToolCallUpdate(tool_call_id="run", status="in_progress"),
    )
    feed(s, ToolCallUpdate(tool_call_id="odd", status="_x"))
    feed(s, PermissionRequested(0, {"title": "Allow?"}), PermissionRequested("p2", {"title": "And this?"}))
    changes = apply(s, CancelRequested())
    assert changes[0] == PermissionsChanged(resolved=((0, "cancelled"), ("p2", "cancelled")))
    assert s.permissions == {}
    assert all(isinstance(c, EntityChanged) for c in changes[1:])
    assert [c.key for c in changes[1:] if isinstance(c, EntityChanged)] == [(TOOL_CALL, "run"), (TOOL_CALL, "odd")]
    assert tool(s, "run").cancelling and not tool(s, "done").cancelling and not tool(s, "old").cancelling
    # "later agent updates win"; a late answer to an already-cancelled request is not answered twice
    feed(s, ToolCallUpdate(tool_call_id="run", status="failed"))
    assert not tool(s, "run").cancelling and tool(s, "run").status == "failed"
    assert apply(s, PermissionResolved(0, "allow")) == []


def test_a_turn_ended_cancelled_cancels_its_unfinished_tool_calls() -> None:
    """lifecycle: "After all ongoing operations have been successfully aborted and pending updates have been
    sent, the Agent MUST send an idle state_update session update with the cancelled stop reason": a tool call
    of that turn still unfinished then (the SDK example agent never reports on it) will not finish, so it no
    longer shows "cancelling" but cancelled; other turns' calls and other stop reasons are left alone."""
    s = SessionState()
    feed(
        s,
        StateUpdate(state="running"),
        ToolCallUpdate(tool_call_id="old", status="in_progress"),
        StateUpdate(state="idle", stop_reason="end_turn"),
    )
    feed(
        s,
        StateUpdate(state="running"),
        ToolCallUpdate(tool_call_id="run", status="in_progress"),
        ToolCallUpdate(tool_call_id="wait", status="pending"),
        ToolCallUpdate(tool_call_id="done", status="completed"),
    )
    feed(s, CancelRequested())
    assert tool(s, "run").cancelling
    changes = feed(s, StateUpdate(state="idle", stop_reason="cancelled"))
    assert tool(s, "run").status == "cancelled" and not tool(s, "run").cancelling
    assert tool(s, "wait").status == "cancelled"
    assert tool(s, "done").status == "completed" and tool(s, "old").status == "in_progress"
    keys = [c.key for c in changes if isinstance(c, EntityChanged)]
    assert keys == [(TOOL_CALL, "run"), (TOOL_CALL, "wait")]
    assert isinstance(changes[-1], TurnEnded)  # the calls show cancelled before the turn's line
    feed(
        s,
        StateUpdate(state="running"),
        ToolCallUpdate(tool_call_id="err", status="in_progress"),
        StateUpdate(state="idle", stop_reason="end_turn"),
    )
    assert tool(s, "err").status == "in_progress"


def test_permission_requested_and_resolved_once() -> None:
    """§8: "Answer each request exactly once, even if the dialog was dismissed." """
    s = SessionState()
    assert apply(s, PermissionRequested(5, "req")) == [PermissionsChanged(opened=(5,))]
    assert s.permissions[5].request == "req"
    assert apply(s, PermissionResolved(5, "allow-once")) == [PermissionsChanged(resolved=((5, "allow-once"),))]
    assert apply(s, PermissionResolved(5, "allow-once")) == []


def test_agent_exit_goes_idle_drops_permissions_and_marks_submissions_unknown() -> None:
    """lifecycle: "Clients detect a lost connection or an exited Agent process themselves"; §4.1 "Lost
    response: the outcome is uncertain ... mark the submission unknown" """
    s = SessionState()
    feed(
        s,
        StateUpdate(state="running"),
        PermissionRequested(1, "r"),
        PromptSubmitted(9, [t("x")]),
        ToolCallUpdate(tool_call_id="open", status="in_progress"),
        ToolCallUpdate(tool_call_id="done", status="completed"),
    )
    changes = apply(s, AgentExited(returncode=1, reason="crashed"))
    assert StateChanged("idle", False) in changes
    assert s.permissions == {} and s.submissions[9].status == "unknown" and not s.foreground.busy
    # an exit is not a protocol problem; unfinished tool calls will never finish and say so
    assert s.problem_count == 0 and AgentGone("exit code 1; crashed") in changes
    assert tool(s, "open").interrupted and not tool(s, "done").interrupted
    assert EntityChanged((TOOL_CALL, "open"), frozenset({"interrupted"})) in changes


def test_protocol_problem_event_and_unknown_item_are_recorded() -> None:
    """§11: malformed known variants are errors to record, never crashes."""
    s = SessionState(max_problems=2)
    apply(s, ProtocolProblem("malformed update", "agent_message_chunk: missing content"))
    apply(s, object())  # type: ignore[arg-type]  # a foreign object, on purpose: recorded, never a crash
    apply(s, ProtocolProblem("malformed update", "third"))
    assert s.problem_count == 3 and len(s.problems) == 2 and s.problems[-1].detail == "third"


# -- beside the timeline --------------------------------------------------------------------------------


def test_usage_commands_config_replace_and_session_info_patches() -> None:
    """§5.2: usage "Replace the current usage; cost is cumulative"; commands "Replace the whole list";
    config "Replace the whole set"; session_info "Patch session metadata" """
    s = SessionState()
    feed(s, UsageUpdate(used=10, size=100, cost=Cost(amount=0.5, currency="USD")), UsageUpdate(used=20, size=100))
    assert s.usage is not None and (s.usage.used, s.usage.cost) == (20, None)
    feed(s, AvailableCommandsUpdate(available_commands=[AvailableCommand(name="a", description="A")]))
    feed(s, AvailableCommandsUpdate(available_commands=[AvailableCommand(name="b", description="B")]))
    assert [c.name for c in s.commands] == ["b"]
    feed(
        s, ConfigOptionUpdate(config_options=[SessionConfigBoolean(name="Fast", current_value=True, config_id="fast")])
    )
    assert [o.config_id for o in s.config_options] == ["fast"]
    feed(s, SessionInfoUpdate(title="T", updated_at="2026-01-01T00:00:00Z"), SessionInfoUpdate(updated_at=None))
    assert (s.info.title, s.info.updated_at) == ("T", None)
    assert s.entities == {}


def test_permission_tool_call_subject_patches_the_tool_call() -> None:
    """§8: "tool_call (toolCall = a ToolCallUpdate): rec, also apply it as an ordinary tool-call patch" """
    from acp_tui.protocol.methods import PermissionOption, RequestPermissionRequest, ToolCallPermissionSubject

    s = SessionState()
    feed(s, ToolCallUpdate(tool_call_id="c", title="Preparing file…", kind="edit"))
    request = RequestPermissionRequest(
        session_id="s",
        title="Allow writing?",
        options=[PermissionOption(option_id="allow", name="Allow", kind="allow_once")],
        subject=ToolCallPermissionSubject(tool_call=ToolCallUpdate(tool_call_id="c", title="Write hello.txt")),
    )
    changes = apply(s, PermissionRequested(0, request))
    assert changes == [EntityChanged((TOOL_CALL, "c"), frozenset({"title"})), PermissionsChanged(opened=(0,))]
    assert tool(s).title == "Write hello.txt" and tool(s).kind == "edit"


def test_a_rejected_permission_marks_its_pending_tool_call_until_the_agent_reports() -> None:
    """docs/protocol.md §8: the user's reject is shown on the call (display only) while the agent leaves it
    pending; an allow marks nothing, and the agent's own status wins."""
    from acp_tui.protocol.methods import (
        CommandPermissionSubject,
        PermissionOption,
        RequestPermissionRequest,
        ToolCallPermissionSubject,
    )

    def ask(call_id: str, command: bool = False) -> RequestPermissionRequest:
        subject: Any = (
            CommandPermissionSubject(command="rm -rf build", cwd="/p", tool_call_id=call_id)
            if command
            else ToolCallPermissionSubject(tool_call=ToolCallUpdate(tool_call_id=call_id))
        )
        return RequestPermissionRequest(
            session_id="s",
            title="Allow?",
            subject=subject,
            options=[
                PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                PermissionOption(option_id="no", name="Skip", kind="reject_once"),
            ],
        )

    s = SessionState()
    feed(
        s,
        ToolCallUpdate(tool_call_id="a", title="Edit a"),
        ToolCallUpdate(tool_call_id="b", title="Edit b"),
        ToolCallUpdate(tool_call_id="c", title="rm", kind="execute"),
    )
    feed(s, PermissionRequested(1, ask("a")), PermissionRequested(2, ask("b")), PermissionRequested(3, ask("c", True)))
    assert apply(s, PermissionResolved(1, "yes")) == [PermissionsChanged(resolved=((1, "yes"),))]
    assert not tool(s, "a").rejected
    assert apply(s, PermissionResolved(2, "no")) == [
        PermissionsChanged(resolved=((2, "no"),)),
        EntityChanged((TOOL_CALL, "b"), frozenset({"rejected"})),
    ]
    assert tool(s, "b").rejected and tool(s, "b").status == "pending"  # the agent's status is untouched
    feed(s, PermissionResolved(3, "no"))
    assert tool(s, "c").rejected  # a command subject names its call by id
    feed(s, ToolCallUpdate(tool_call_id="b", status="failed"))
    assert tool(s, "b").status == "failed"  # the agent reported: its word is what the card shows


def test_session_core_is_pure() -> None:
    """docs/style.md "Layering": the session core does no I/O and imports neither the UI libraries nor asyncio."""
    import subprocess
    import sys

    code = (
        "import sys, acp_tui.session.reducer, acp_tui.session.v1_adapter, acp_tui.session.changes;"
        "print(sorted(m for m in ('textual', 'rich', 'asyncio') if m in sys.modules))"
    )
    from tests.support.paths import REPO

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]"


def test_unstable_plan_removed_removes_the_plan() -> None:
    """§5.2: "Treat unstable plan_removed {planId} as a tolerated extra: rec, remove the plan if understood." """
    from acp_tui.session.changes import EntityRemoved

    s = SessionState()
    feed(s, PlanUpdate(plan=PlanItems(plan_id="p", entries=[])))
    assert apply(s, UnknownUpdate(kind="plan_removed", raw={"sessionUpdate": "plan_removed", "planId": "p"})) == [
        EntityRemoved(("plan", "p"))
    ]
    assert s.plan("p") is None
    # an unknown plan id: kept generically like any other unknown update
    apply(s, UnknownUpdate(kind="plan_removed", raw={"sessionUpdate": "plan_removed", "planId": "zz"}))
    assert [type(e).__name__ for e in s.entities.values()] == ["UnknownEntry"]
