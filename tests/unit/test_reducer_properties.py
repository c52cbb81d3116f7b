"""Property tests for the reducer: chunking, replacement, interleaving, and never raising."""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
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
    Cost,
    ImageContent,
    Notice,
    PlanEntry,
    PlanItems,
    PlanUpdate,
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
from acp_tui.session.local_events import (
    AgentExited,
    CancelRequested,
    PermissionRequested,
    PermissionResolved,
    PromptAccepted,
    PromptRejected,
    PromptSubmitted,
)
from acp_tui.session.model import AGENT_MESSAGE, Message, SessionState, ToolCall
from acp_tui.session.reducer import apply


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:], strict=False)]


@given(st.text(max_size=200), st.lists(st.integers(min_value=0, max_value=400), max_size=30))
def test_any_split_into_chunks_yields_the_same_message(text: str, cuts: list[int]) -> None:
    state = SessionState()
    pieces = split(text, cuts) or [""]
    for piece in pieces:
        apply(state, AgentMessageChunk(message_id="m", content=TextContent(text=piece)))
    msg = state.message(AGENT_MESSAGE, "m")
    assert msg is not None and msg.text == text
    assert "".join(b.text for b in msg.content.blocks) == text  # type: ignore[union-attr]


@given(
    st.lists(st.text(max_size=20), max_size=5),
    st.lists(st.text(max_size=20), max_size=5),
    st.lists(st.text(max_size=20), max_size=10),
)
def test_full_update_then_chunks_equals_full_content_plus_chunks(
    before: list[str], full: list[str], after: list[str]
) -> None:
    state = SessionState()
    for piece in before:
        apply(state, AgentMessageChunk(message_id="m", content=TextContent(text=piece)))
    apply(state, AgentMessage(message_id="m", content=[TextContent(text=p) for p in full]))
    for piece in after:
        apply(state, AgentMessageChunk(message_id="m", content=TextContent(text=piece)))
    msg = state.message(AGENT_MESSAGE, "m")
    assert msg is not None
    assert [b.text for b in msg.content.blocks] == full + after  # type: ignore[union-attr]
    assert msg.text == "".join(full + after)


# -- strategies for schema-shaped updates ---------------------------------------------------------------

ids = st.sampled_from(["a", "b", "c"])
texts = st.text(max_size=12)
meta = st.one_of(st.just(UNSET), st.none(), st.dictionaries(st.sampled_from(["k", "_x"]), st.integers(), max_size=2))
blocks = st.one_of(
    st.builds(TextContent, text=texts),
    st.builds(ImageContent, data=st.just("AAAA"), mime_type=st.just("image/png")),
)
block_lists = st.one_of(st.just(UNSET), st.none(), st.lists(blocks, max_size=3))
open_enum = st.sampled_from(["pending", "in_progress", "completed", "failed", "cancelled", "_x", "future"])


def patch(strategy: Any) -> Any:
    return st.one_of(st.just(UNSET), st.none(), strategy)


def b64_or_junk() -> Any:
    return st.one_of(st.binary(max_size=8).map(lambda b: base64.b64encode(b).decode()), st.text(max_size=6))


tool_content = st.builds(ToolContent, content=blocks)
updates = st.one_of(
    st.builds(UserMessageChunk, message_id=ids, content=blocks, meta=meta),
    st.builds(AgentMessageChunk, message_id=ids, content=blocks, meta=meta),
    st.builds(AgentThoughtChunk, message_id=ids, content=blocks, meta=meta),
    st.builds(UserMessage, message_id=ids, content=block_lists, meta=meta),
    st.builds(AgentMessage, message_id=ids, content=block_lists, meta=meta),
    st.builds(AgentThought, message_id=ids, content=block_lists, meta=meta),
    st.builds(
        StateUpdate,
        state=st.sampled_from(["running", "idle", "requires_action", "_x"]),
        stop_reason=patch(st.sampled_from(["end_turn", "cancelled", "error", "_x"])),
        error=patch(st.builds(ErrorObject, code=st.integers(-33000, 0), message=texts)),
    ),
    st.builds(
        ToolCallUpdate,
        tool_call_id=ids,
        title=patch(texts),
        kind=patch(open_enum),
        status=patch(open_enum),
        content=patch(st.lists(tool_content, max_size=2)),
        raw_input=patch(st.integers()),
        meta=meta,
    ),
    st.builds(ToolCallContentChunk, tool_call_id=ids, content=tool_content),
    st.builds(
        TerminalUpdate,
        terminal_id=ids,
        command=patch(texts),
        output=patch(st.builds(TerminalOutput, data=b64_or_junk())),
        exit_status=patch(st.builds(TerminalExitStatus, exit_code=patch(st.integers(0, 255)))),
    ),
    st.builds(TerminalOutputChunk, terminal_id=ids, data=b64_or_junk()),
    st.builds(
        PlanUpdate,
        plan=st.one_of(
            st.builds(
                PlanItems,
                plan_id=ids,
                entries=st.lists(st.builds(PlanEntry, content=texts, priority=open_enum, status=open_enum), max_size=3),
            ),
            st.builds(UnknownPlan, type=st.just("markdown"), plan_id=ids, raw=st.just({})),
        ),
    ),
    st.builds(
        AvailableCommandsUpdate,
        available_commands=st.lists(st.builds(AvailableCommand, name=texts, description=texts), max_size=2),
    ),
    st.builds(SessionInfoUpdate, title=patch(texts), updated_at=patch(texts)),
    st.builds(
        UsageUpdate,
        used=st.integers(0, 10**6),
        size=st.integers(0, 10**6),
        cost=patch(st.builds(Cost, amount=st.floats(0, 10), currency=st.just("USD"))),
    ),
    st.builds(Notice, severity=open_enum, title=texts),
    st.builds(
        CompactionUpdate, compaction_id=ids, status=open_enum, summary=block_lists, error=patch(texts), meta=meta
    ),
    st.builds(CompactionSummaryChunk, compaction_id=ids, content=blocks),
    st.builds(UnknownUpdate, kind=st.sampled_from(["_x", "future_thing"]), raw=st.just({"sessionUpdate": "_x"})),
)
request_ids = st.integers(0, 3)
events = st.one_of(
    st.builds(PromptSubmitted, request_id=request_ids, blocks=st.lists(blocks, max_size=2)),
    st.builds(PromptAccepted, request_id=request_ids, message_id=ids),
    st.builds(PromptRejected, request_id=request_ids, error=st.none(), cancelled=st.booleans()),
    st.builds(CancelRequested),
    st.builds(PermissionRequested, request_id=request_ids, request=st.none()),
    st.builds(PermissionResolved, request_id=request_ids, outcome=st.just("allow")),
    st.builds(AgentExited),
)


@settings(max_examples=300)
@given(st.lists(st.one_of(updates, events), max_size=40))
def test_no_schema_shaped_update_in_any_order_raises(items: list[Any]) -> None:
    state = SessionState()
    for item in items:
        changes = apply(state, item)
        assert isinstance(changes, list)
    # every key indexes the entity it names, in first-seen order
    for key, entity in state.entities.items():
        assert entity.key == key


def snapshot(entity: Any) -> Any:
    if isinstance(entity, Message):
        return ("msg", [type(b).__name__ + getattr(b, "text", "") for b in entity.content.blocks], entity.meta)
    if isinstance(entity, ToolCall):
        return ("tool", entity.title, entity.kind, entity.status, len(entity.content), entity.raw_input, entity.meta)
    return type(entity).__name__


entity_updates = st.one_of(
    st.builds(AgentMessageChunk, message_id=ids, content=blocks, meta=meta),
    st.builds(AgentMessage, message_id=ids, content=block_lists, meta=meta),
    st.builds(AgentThoughtChunk, message_id=ids, content=blocks),
    st.builds(
        ToolCallUpdate,
        tool_call_id=ids,
        title=patch(texts),
        status=patch(open_enum),
        content=patch(st.lists(tool_content, max_size=2)),
        raw_input=patch(st.integers()),
        meta=meta,
    ),
    st.builds(ToolCallContentChunk, tool_call_id=ids, content=tool_content),
)


def entity_key(update: Any) -> tuple[str, str]:
    if isinstance(update, (AgentMessageChunk, AgentMessage)):
        return ("agent_message", update.message_id)
    if isinstance(update, AgentThoughtChunk):
        return ("agent_thought", update.message_id)
    return ("tool_call", update.tool_call_id)


@given(st.lists(entity_updates, max_size=30), st.randoms(use_true_random=False))
def test_interleaving_other_entities_never_changes_an_entitys_result(items: list[Any], rnd: Any) -> None:
    """Receive order per entity is all that matters (docs/protocol.md §5.1 "apply in receive order per entity")."""
    by_key: dict[tuple[str, str], list[Any]] = {}
    for item in items:
        by_key.setdefault(entity_key(item), []).append(item)
    # A different interleaving that keeps each entity's own order.
    queues = [list(v) for v in by_key.values()]
    shuffled: list[Any] = []
    while queues:
        queue = rnd.choice(queues)
        shuffled.append(queue.pop(0))
        if not queue:
            queues.remove(queue)
    results = []
    for order in (items, shuffled):
        state = SessionState()
        for item in order:
            apply(state, item)
        results.append({key: snapshot(entity) for key, entity in state.entities.items()})
    assert results[0] == results[1]
