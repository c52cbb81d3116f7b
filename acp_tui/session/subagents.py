"""Subagents: child sessions the agent runs for its own work, each a bounded lane in its owner's timeline.

The agent announces a child with the unstable v2 `subagent_update` on the session that owns it (Claude's
adapter sends exactly this form to a client that advertises `subagents`, docs/protocol.md §10.6); the
child's own updates then arrive under the child's session id and reach the reducer as `ChildUpdate`s.

Every child, nested ones too, is registered once in the root state's `subagents` by session id, so routing
is one lookup and never a recursion; a child can only be announced by a session already known, and a known
child never changes owner, so ownership has no cycle. Caps, not hopes: `MAX_SUBAGENTS` per session,
`MAX_DEPTH` levels, `MAX_ENTRIES` timeline entries and `MAX_TEXT_BUDGET` characters of streamed text per
child (the rest counted in `dropped`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_tui.protocol.common import UNSET
from acp_tui.protocol.v2 import (
    AgentMessage,
    AgentMessageChunk,
    AgentThoughtChunk,
    ContentBlock,
    SessionMessage,
    StateUpdate,
    SubagentState,
    SubagentUpdate,
    TextContent,
    UserMessage,
    UserMessageChunk,
)
from acp_tui.session.changes import Change, EntityAdded, EntityChanged, ProblemAdded
from acp_tui.session.local_events import ChildUpdate
from acp_tui.session.model import IDLE, SUBAGENT, Problem, SessionState, Subagent

MAX_SUBAGENTS: Final = 64
MAX_DEPTH: Final = 4
MAX_ENTRIES: Final = 400
MAX_ID_CHARS: Final = 200
MAX_TEXT_CHARS: Final = 4000
#: streamed message and thought text kept per child; chunks past it are counted in `dropped`, not kept
MAX_TEXT_BUDGET: Final = 2 * 1024 * 1024

_CHUNKS: Final = (AgentMessageChunk, AgentThoughtChunk, UserMessageChunk)

#: the field name a lane's `EntityChanged` carries when anything inside the child changed
LANE: Final = frozenset({"lane"})

Apply = Callable[[SessionState, Any], list[Change]]


def announce(root: SessionState, owner: Subagent | None, update: SubagentUpdate) -> list[Change]:
    """`subagent_update` sent on the root session (`owner` None) or on the known child `owner`."""
    child_id = update.session_id
    parent_id = owner.session_id if owner is not None else None
    known = root.subagents.get(child_id)
    changes: list[Change] = []
    if known is None:
        if not child_id or len(child_id) > MAX_ID_CHARS:
            return _problem(root, "subagent_update with an unusable session id", child_id[:80])
        if len(root.subagents) >= MAX_SUBAGENTS:
            return _problem(root, f"more than {MAX_SUBAGENTS} subagents: not shown", child_id)
        depth = owner.depth + 1 if owner is not None else 1
        if depth > MAX_DEPTH:
            return _problem(root, f"subagents nested deeper than {MAX_DEPTH}: not shown", child_id)
        known = Subagent((SUBAGENT, child_id), parent_id, depth)
        root.subagents[child_id] = known
        holder = owner.model if owner is not None else root
        holder.entities[known.key] = known
        if owner is None:
            changes.append(EntityAdded(known.key, len(root.entities) - 1))
    elif known.parent_id != parent_id:
        return _problem(root, "subagent_update for a child another session owns", child_id)
    if update.title is not UNSET:
        known.title = update.title[:MAX_TEXT_CHARS] if isinstance(update.title, str) else None
    if update.description is not UNSET:
        known.description = update.description[:MAX_TEXT_CHARS] if isinstance(update.description, str) else None
    if isinstance(update.state, SubagentState):
        _set_state(known, update.state.state, update.state.stop_reason)
    changes.append(EntityChanged(lane_key(root, known), LANE))
    return changes


def route(root: SessionState, event: ChildUpdate, apply: Apply) -> list[Change]:
    """One update (or local event) for a child session: into that child's own model, bounded."""
    child = root.subagents.get(event.session_id)
    if child is None:
        return _problem(root, "session/update for unknown session", event.session_id[:MAX_ID_CHARS])
    item = event.item
    if type(item) is SubagentUpdate:
        return announce(root, child, item)
    if type(item) is SessionMessage:
        item = _as_message(item, child.session_id)
    if type(item) in _CHUNKS and type(item.content) is TextContent:
        child.text_chars += len(item.content.text)
        if child.text_chars > MAX_TEXT_BUDGET:
            child.dropped += 1
            return [EntityChanged(lane_key(root, child), LANE)]
    seen = child.model.problem_count
    apply(child.model, item)
    if type(item) is StateUpdate:
        _set_state(child, item.state, item.stop_reason)
    entities = child.model.entities
    while len(entities) > MAX_ENTRIES:
        entities.pop(next(reversed(entities)))  # the newest beyond the cap goes; what was shown stays
        child.dropped += 1
    changes: list[Change] = [EntityChanged(lane_key(root, child), LANE)]
    new = min(child.model.problem_count - seen, len(child.model.problems))
    for problem in list(child.model.problems)[len(child.model.problems) - new :]:
        # what the child sent that could not be used is the session's problem too (F3 lists it)
        changes.extend(_problem(root, f"subagent {child.name[:80]}: {problem.reason}", problem.detail))
    return changes


def message(root: SessionState, update: SessionMessage, apply: Apply) -> list[Change]:
    """A `session_message` on the root session: a child's answer goes to its lane, the parent's own view of
    the task it sent is already the child's first message; one between strangers is shown as it came."""
    text = _text(update.content)
    sender = root.subagents.get(update.sender_session_id) if isinstance(update.sender_session_id, str) else None
    recipient = (
        root.subagents.get(update.recipient_session_id) if isinstance(update.recipient_session_id, str) else None
    )
    if recipient is not None and recipient.parent_id is None:
        recipient.prompt = text[:MAX_TEXT_CHARS]
        return [EntityChanged(recipient.key, LANE)]
    if sender is not None and sender.parent_id is None:
        sender.reply = text[:MAX_TEXT_CHARS]
        return [EntityChanged(sender.key, LANE)]
    return apply(root, AgentMessage(message_id=update.message_id, content=update.content))


def close_unlisted(root: SessionState) -> list[Change]:
    """The root is idle: a top-level child it does not list as background work is over, and its own
    children with it (a child that never said idle must not look alive forever)."""
    if root.foreground.busy or not root.subagents:
        return []
    listed = {
        item.session_id
        for item in root.foreground.background or ()
        if item.type == "subagent" and isinstance(item.session_id, str)
    }
    changes: list[Change] = []
    for child in root.subagents.values():
        if child.ended or lane_key(root, child)[1] in listed:
            continue
        child.ended = True
        changes.append(EntityChanged(lane_key(root, child), LANE))
    return changes


def close_all(root: SessionState) -> list[Change]:
    """The agent went away: no child will ever report again."""
    changes: list[Change] = []
    for child in root.subagents.values():
        if not child.ended:
            child.ended = True
            changes.append(EntityChanged(lane_key(root, child), LANE))
    return changes


def lane_key(root: SessionState, child: Subagent) -> tuple[str, str]:
    """The key of the top-level lane `child` is shown in (itself, or the ancestor in the root timeline)."""
    node = child
    for _ in range(MAX_DEPTH):
        if node.parent_id is None:
            break
        parent = root.subagents.get(node.parent_id)
        if parent is None:
            break
        node = parent
    return node.key


def subagent_name(root: SessionState, session_id: str) -> str | None:
    """The name a question from `session_id` is labelled with: the child's, `None` for the root's own."""
    child = root.subagents.get(session_id)
    return child.name if child is not None else None


def _set_state(child: Subagent, state: str, stop_reason: object) -> None:
    child.state = state
    if state == IDLE:
        child.ended = True
        child.stop_reason = stop_reason if isinstance(stop_reason, str) else None
    else:
        child.ended = False  # the parent may message a finished child again (`subagent_update`)


def _as_message(update: SessionMessage, child_id: str) -> UserMessage | AgentMessage:
    """A `session_message` inside a child: what it sent is its own words, what it received is its prompt."""
    if update.sender_session_id == child_id:
        return AgentMessage(message_id=update.message_id, content=update.content)
    return UserMessage(message_id=update.message_id, content=update.content)


def _text(content: object) -> str:
    blocks: list[ContentBlock] = content if isinstance(content, list) else []
    return "".join(block.text for block in blocks if isinstance(block, TextContent))


def _problem(state: SessionState, reason: str, detail: str) -> list[Change]:
    state.problems.append(Problem(reason, detail))
    state.problem_count += 1
    return [ProblemAdded(reason, detail)]


__all__ = [
    "MAX_SUBAGENTS",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_TEXT_BUDGET",
    "LANE",
    "announce",
    "route",
    "message",
    "close_unlisted",
    "close_all",
    "lane_key",
    "subagent_name",
]
