"""The one place every v2 session-update rule lives: `apply(state, update_or_event) -> list[Change]`.

Rules (§ = docs/protocol.md, which also names the public spec page behind each):
- Entities are keyed by (type, id) (docs/protocol.md §5.1); the first notification fixes the timeline position.
- Patch fields: omitted (`UNSET`) = unchanged, `None` = cleared, value = replaced; `[]` clears content.
- Chunks append to whatever content is current; a later full update replaces it all (docs/protocol.md §5.1).
- Notices are live only: never in the timeline (docs/protocol.md §5.4). Unknown variants are kept with their raw payload.
- Every idle ends foreground work, whatever its stop reason (docs/protocol.md §9.2); busy then idle is
  reported as `TurnEnded`, after every change of that turn, so the end-of-turn line is drawn in order.
- Tool-call ids reused across turns (docs/protocol.md §6.1): a card from an earlier turn is never
  rewritten by a later turn's tool call. An update or chunk for an id whose card finished (completed,
  failed, cancelled) in an earlier turn starts a new card; so does a v1 `tool_call` (a creation,
  `ToolCallCreated`) for an id whose card is from an earlier turn, finished or not. An unfinished card
  from an earlier turn is still patched by updates (a detached task), and within one turn an id always
  names one card. The new card's key carries a generation suffix; its wire id is unchanged.

`apply` never raises on agent data: anything unusable becomes a `ProblemAdded`. It does no I/O and
touches only `state`. A v1 update must first go through `acp_tui.session.v1_adapter.V1Adapter`.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar, assert_never

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import (
    AgentMessage,
    AgentMessageChunk,
    AgentThought,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    BackgroundWork,
    CompactionSummaryChunk,
    CompactionUpdate,
    ConfigOptionUpdate,
    Notice,
    PlanItems,
    PlanUpdate,
    SessionInfoUpdate,
    SessionMessage,
    SessionUpdate,
    StateUpdate,
    SubagentUpdate,
    TerminalOutputChunk,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
    UnknownPlan,
    UnknownUpdate,
    UsageUpdate,
    UserMessage,
    UserMessageChunk,
)
from acp_tui.sanitize import cut
from acp_tui.session import changes as ch
from acp_tui.session import subagents
from acp_tui.session.account import (
    MAX_WINDOWS,
    QUOTA_META,
    RATE_LIMIT_META,
    decode_rate_limit,
    decode_unified_windows,
)
from acp_tui.session.background import Job, read_snapshot
from acp_tui.session.local_events import (
    AccountReported,
    AgentExited,
    CancelRequested,
    ChildUpdate,
    FileAccessed,
    LocalEvent,
    PermissionRequested,
    PermissionResolved,
    PromptAccepted,
    PromptRejected,
    PromptResent,
    PromptSteered,
    PromptSubmitted,
    ProtocolProblem,
    SubmissionDismissed,
    TerminalCancelFailed,
    TerminalCancelRequested,
    TerminalTimed,
    ToolCallCancelFailed,
    ToolCallCancelRequested,
    ToolCallCreated,
    TurnTokensReported,
)
from acp_tui.session.model import (
    AGENT_MESSAGE,
    AGENT_THOUGHT,
    COMPACTION,
    FILE_ACCESS,
    IDLE,
    MAX_PLAN_ENTRIES,
    MAX_PLAN_ENTRY_CHARS,
    PLAN,
    REQUIRES_ACTION,
    RUNNING,
    TERMINAL,
    TOOL_CALL,
    UNKNOWN,
    USER_MESSAGE,
    Compaction,
    Entity,
    EntityKey,
    FileAccess,
    Message,
    PendingPermission,
    Plan,
    Problem,
    SessionState,
    Subagent,
    Submission,
    Terminal,
    ToolCall,
    UnknownEntry,
    Usage,
)

_Handler = Callable[[SessionState, Any], list[ch.Change]]


#: The timeline entity classes `_entity` creates.
_E = TypeVar("_E", Message, ToolCall, Terminal, Compaction)


#: What the reducer applies: a decoded v2 update (v1's translated by its adapter) or a local event.
ModelInput: TypeAlias = SessionUpdate | LocalEvent


def apply(state: SessionState, item: ModelInput) -> list[ch.Change]:
    """Apply one decoded v2 update or local event to `state`; return what changed, in order.

    It is typed for a `ModelInput` (mypy holds every caller to it); at run time it takes anything else too, on
    purpose: a foreign object is recorded as a problem ("unsupported update"), never a crash (docs/protocol.md
    §11).
    """
    handler = _HANDLERS.get(type(item))
    if handler is None:
        return _problem(state, "unsupported update", type(item).__name__)
    return handler(state, item)


# -- helpers -----------------------------------------------------------------------------------------


def _add(state: SessionState, entity: Entity) -> ch.EntityAdded:
    index = len(state.entities)
    state.entities[entity.key] = entity
    return ch.EntityAdded(entity.key, index)


def _entity(state: SessionState, key: EntityKey, changes: list[ch.Change], kind: type[_E], *args: Any) -> _E | None:
    """The entity at `key`, created as `kind(key, *args)` (and reported) if first seen; `None` if the
    key holds another kind of entity."""
    entity = state.entities.get(key)
    if entity is None:
        created = kind(key, *args)
        changes.append(_add(state, created))
        return created
    return entity if isinstance(entity, kind) else None


def _problem(state: SessionState, reason: str, detail: str) -> list[ch.Change]:
    state.problems.append(Problem(reason, detail))
    state.problem_count += 1
    return [ch.ProblemAdded(reason, detail)]


def _decode_b64(data: str) -> bytes | None:
    """Decode one RFC 4648 base64 string on its own; `None` if it is not valid base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


# -- messages (Prompt Lifecycle, "Message IDs") -----------------------------------------------------


def _message_upsert(
    state: SessionState, update: UserMessage | AgentMessage | AgentThought, kind: str
) -> list[ch.Change]:
    key = (kind, update.message_id)
    changes: list[ch.Change] = []
    msg = _entity(state, key, changes, Message)
    if msg is None:
        return _problem(state, "entity type clash", repr(key))
    created = bool(changes)
    fields: set[str] = set()
    if update.content is not UNSET:
        msg.content.replace(update.content)
        if msg.local_echo:
            msg.local_echo = False
            fields.add("local_echo")
        if not created:
            changes.append(ch.ContentReplaced(key))
    if update.meta is not UNSET:
        msg.meta = update.meta
        fields.add("meta")
    if fields and not created:
        changes.append(ch.EntityChanged(key, frozenset(fields)))
    return changes


def _message_chunk(
    state: SessionState, update: UserMessageChunk | AgentMessageChunk | AgentThoughtChunk, kind: str
) -> list[ch.Change]:
    key = (kind, update.message_id)
    msg = state.entities.get(key)
    if type(msg) is Message and not msg.local_echo:
        # The hot path: one append, one change.
        block = update.content
        text = msg.content.append(block)
        return [ch.TextAppended(key, text) if text is not None else ch.ContentAppended(key, block)]
    changes: list[ch.Change] = []
    msg = _entity(state, key, changes, Message)
    if msg is None:
        return _problem(state, "entity type clash", repr(key))
    if changes:  # created: the UI renders it whole from the model
        msg.content.append(update.content)
        return changes
    # The agent's first report of a message the client echoed locally replaces the echo.
    msg.local_echo = False
    msg.content.replace([update.content])
    return [ch.ContentReplaced(key), ch.EntityChanged(key, frozenset({"local_echo"}))]


def _user_message(state: SessionState, update: UserMessage) -> list[ch.Change]:
    return _message_upsert(state, update, USER_MESSAGE)


def _agent_message(state: SessionState, update: AgentMessage) -> list[ch.Change]:
    return _message_upsert(state, update, AGENT_MESSAGE)


def _agent_thought(state: SessionState, update: AgentThought) -> list[ch.Change]:
    return _message_upsert(state, update, AGENT_THOUGHT)


def _user_chunk(state: SessionState, update: UserMessageChunk) -> list[ch.Change]:
    return _message_chunk(state, update, USER_MESSAGE)


def _agent_chunk(state: SessionState, update: AgentMessageChunk) -> list[ch.Change]:
    return _message_chunk(state, update, AGENT_MESSAGE)


def _thought_chunk(state: SessionState, update: AgentThoughtChunk) -> list[ch.Change]:
    return _message_chunk(state, update, AGENT_THOUGHT)


# -- tool calls (docs/protocol.md §6.1) ---------------------------------------------------------------


def _tool_call_key(state: SessionState, tool_call_id: str, creation: bool = False) -> EntityKey:
    """The card an update for the wire id `tool_call_id` goes to: the one the id names now, unless that
    card is from an earlier turn and finished (or this is a v1 creation); then a fresh key for a new card."""
    key = state.tool_call_keys.get(tool_call_id)
    if key is not None:
        call = state.entities.get(key)
        if type(call) is not ToolCall or call.turn >= state.turn or not (creation or call.finished):
            return key
    key = (TOOL_CALL, tool_call_id)
    generation = 1
    while key in state.entities:  # also steps over a generated key that equals another wire id
        generation += 1
        key = (TOOL_CALL, f"{tool_call_id}#{generation}")
    state.tool_call_keys[tool_call_id] = key
    return key


def _tool_call_created(state: SessionState, event: ToolCallCreated) -> list[ch.Change]:
    return _tool_call_update(state, event.update, creation=True)


def _tool_call_update(state: SessionState, update: ToolCallUpdate, creation: bool = False) -> list[ch.Change]:
    key = _tool_call_key(state, update.tool_call_id, creation)
    changes: list[ch.Change] = []
    call = _entity(state, key, changes, ToolCall, state.turn, update.tool_call_id)
    if call is None:
        return _problem(state, "entity type clash", repr(key))
    created = bool(changes)
    fields: set[str] = set()
    # Each patch field: UNSET = unchanged, None = cleared (to the creation default), value = replaced.
    if (value := update.title) is not UNSET:
        call.title = value
        fields.add("title")
    if (value := update.kind) is not UNSET:
        call.kind = "other" if value is None else value
        fields.add("kind")
    if (value := update.status) is not UNSET:
        call.status = "pending" if value is None else value
        fields.add("status")
    if (locations := update.locations) is not UNSET:
        call.locations = [] if locations is None else locations
        fields.add("locations")
    if (raw_input := update.raw_input) is not UNSET:
        call.raw_input = raw_input
        fields.add("raw_input")
    if (raw_output := update.raw_output) is not UNSET:
        call.raw_output = raw_output
        fields.add("raw_output")
    if (value := update.name) is not UNSET:
        call.name = value
        fields.add("name")
    if (meta := update.meta) is not UNSET:
        call.meta = meta
        fields.add("meta")
    if (caps := update.capabilities) is not UNSET:
        call.cancellable = caps is not None and caps.cancel not in (UNSET, None)
        fields.add("cancellable")
    if update.status is not UNSET and call.cancelling and call.finished:
        call.cancelling = False
        fields.add("cancelling")
    if update.content is not UNSET:
        call.content = list(update.content) if update.content else []
        if not created:
            changes.append(ch.ContentReplaced(key))
    if fields and not created:
        changes.append(ch.EntityChanged(key, frozenset(fields)))
    return changes


def _tool_call_chunk(state: SessionState, update: ToolCallContentChunk) -> list[ch.Change]:
    key = _tool_call_key(state, update.tool_call_id)
    changes: list[ch.Change] = []
    call = _entity(state, key, changes, ToolCall, state.turn, update.tool_call_id)
    if call is None:
        return _problem(state, "entity type clash", repr(key))
    call.content.append(update.content)
    if not changes:
        changes.append(ch.ContentAppended(key, update.content))
    return changes


# -- terminals (docs/protocol.md §6.4) ----------------------------------------------------------------


def _terminal_update(state: SessionState, update: TerminalUpdate) -> list[ch.Change]:
    key = (TERMINAL, update.terminal_id)
    changes: list[ch.Change] = []
    term = _entity(state, key, changes, Terminal, state.terminal_limit)
    if term is None:
        return _problem(state, "entity type clash", repr(key))
    created = bool(changes)
    fields: set[str] = set()
    for name in ("command", "cwd", "exit_status", "meta", "capabilities"):
        value = getattr(update, name)
        if value is not UNSET:
            setattr(term, name, value)
            fields.add(name)
    if (size := update.size) is not UNSET:
        term.size = None if size is None else (_cells(size.cols), _cells(size.rows))
        fields.add("size")
    if term.cancelling and term.exit_status is not None:
        term.cancelling = False  # the exit status confirms the stop (docs/protocol.md §6.4)
        fields.add("cancelling")
    problem: list[ch.Change] = []
    if update.output is not UNSET:
        data = b"" if update.output is None else _decode_b64(update.output.data)
        if data is None:
            problem = _problem(state, "invalid base64", f"terminal {update.terminal_id} output snapshot")
        else:
            term.replace(data)
            if not created:
                changes.append(ch.ContentReplaced(key))
    if fields and not created:
        changes.append(ch.EntityChanged(key, frozenset(fields)))
    return changes + problem


def _cells(value: int) -> int:
    """A terminal dimension as the schema bounds it (1..65535), whatever was sent."""
    return min(max(value, 1), 65535)


def _terminal_cancel_requested(state: SessionState, event: TerminalCancelRequested) -> list[ch.Change]:
    """The user asked to stop a running terminal: show "stopping…" until its exit status arrives."""
    term = state.terminal(event.terminal_id)
    if term is None or term.exit_status is not None or term.cancelling:
        return []
    term.cancelling = True
    return [ch.EntityChanged(term.key, frozenset({"cancelling"}))]


def _terminal_cancel_failed(state: SessionState, event: TerminalCancelFailed) -> list[ch.Change]:
    term = state.terminal(event.terminal_id)
    if term is None or not term.cancelling:
        return []
    term.cancelling = False
    return [ch.EntityChanged(term.key, frozenset({"cancelling"}))]


def _tool_call_cancel_requested(state: SessionState, event: ToolCallCancelRequested) -> list[ch.Change]:
    """The user asked to stop one tool call (`tool_call/cancel`): "stopping…" until its final status."""
    call = state.tool_call(event.tool_call_id)
    if call is None or call.finished or call.cancelling:
        return []
    call.cancelling = True
    return [ch.EntityChanged(call.key, frozenset({"cancelling"}))]


def _tool_call_cancel_failed(state: SessionState, event: ToolCallCancelFailed) -> list[ch.Change]:
    call = state.tool_call(event.tool_call_id)
    if call is None or not call.cancelling:
        return []
    call.cancelling = False
    return [ch.EntityChanged(call.key, frozenset({"cancelling"}))]


def _terminal_timed(state: SessionState, event: TerminalTimed) -> list[ch.Change]:
    """The client's own command started or ended (the clock is read by the caller: this stays pure)."""
    term = state.terminal(event.terminal_id)
    if term is None:
        return []
    fields: set[str] = set()
    if event.started_at is not None:
        term.started_at = event.started_at
        fields.add("started_at")
    if event.ended_at is not None:
        term.ended_at = event.ended_at
        fields.add("ended_at")
    return [ch.EntityChanged(term.key, frozenset(fields))] if fields else []


def _terminal_chunk(state: SessionState, update: TerminalOutputChunk) -> list[ch.Change]:
    data = _decode_b64(update.data)
    if data is None:
        return _problem(state, "invalid base64", f"terminal {update.terminal_id} output chunk")
    key = (TERMINAL, update.terminal_id)
    changes: list[ch.Change] = []
    term = _entity(state, key, changes, Terminal, state.terminal_limit)
    if term is None:
        return _problem(state, "entity type clash", repr(key))
    term.append(data)
    if not changes:
        changes.append(ch.BytesAppended(key, data))
    return changes


# -- plans (docs/protocol.md §7) ----------------------------------------------------------------------


def bound_plan(plan: PlanItems | UnknownPlan) -> tuple[PlanItems | UnknownPlan, int, int]:
    """`plan` as the model keeps it: at most `MAX_PLAN_ENTRIES` entries, each cut at `MAX_PLAN_ENTRY_CHARS`;
    with the number of entries left out and how many of those were completed. A hundred thousand entries
    cost one pass here and nothing above (the UI, the transcript) ever sees more than the cap."""
    if not isinstance(plan, PlanItems):
        return plan, 0, 0
    entries = plan.entries
    more = max(0, len(entries) - MAX_PLAN_ENTRIES)
    more_done = sum(1 for entry in entries[MAX_PLAN_ENTRIES:] if entry.status == "completed") if more else 0
    kept = entries[:MAX_PLAN_ENTRIES] if more else entries
    if more or any(len(entry.content) > MAX_PLAN_ENTRY_CHARS for entry in kept):
        kept = [
            entry
            if len(entry.content) <= MAX_PLAN_ENTRY_CHARS
            else msgspec.structs.replace(entry, content=cut(entry.content, MAX_PLAN_ENTRY_CHARS, "entry"))
            for entry in kept
        ]
        plan = msgspec.structs.replace(plan, entries=kept)
    return plan, more, more_done


def _plan_update(state: SessionState, update: PlanUpdate) -> list[ch.Change]:
    key = (PLAN, update.plan.plan_id)
    entity = state.entities.get(key)
    plan, more, more_done = bound_plan(update.plan)
    if entity is None:
        return [_add(state, Plan(key, plan, more, more_done))]
    if type(entity) is not Plan:
        return _problem(state, "entity type clash", repr(key))
    entity.plan, entity.more, entity.more_done = plan, more, more_done
    return [ch.EntityChanged(key, frozenset({"plan"}))]


# -- compaction (docs/protocol.md §5.5) ---------------------------------------------------------------


def _compaction_update(state: SessionState, update: CompactionUpdate) -> list[ch.Change]:
    key = (COMPACTION, update.compaction_id)
    changes: list[ch.Change] = []
    comp = _entity(state, key, changes, Compaction)
    if comp is None:
        return _problem(state, "entity type clash", repr(key))
    created = bool(changes)
    fields: set[str] = set()
    if comp.status != update.status:
        comp.status = update.status
        fields.add("status")
    if update.summary is not UNSET:
        comp.summary.replace(update.summary)
        if not created:
            changes.append(ch.ContentReplaced(key))
    if update.error is not UNSET:
        comp.error = update.error
        fields.add("error")
    if update.meta is not UNSET:
        comp.meta = update.meta
        fields.add("meta")
    if fields and not created:
        changes.append(ch.EntityChanged(key, frozenset(fields)))
    return changes


def _compaction_chunk(state: SessionState, update: CompactionSummaryChunk) -> list[ch.Change]:
    key = (COMPACTION, update.compaction_id)
    changes: list[ch.Change] = []
    comp = _entity(state, key, changes, Compaction)
    if comp is None:
        return _problem(state, "entity type clash", repr(key))
    text = comp.summary.append(update.content)
    if not changes:
        changes.append(ch.TextAppended(key, text) if text is not None else ch.ContentAppended(key, update.content))
    return changes


# -- unknown variants and notices ---------------------------------------------------------------------


def _unknown(state: SessionState, update: UnknownUpdate) -> list[ch.Change]:
    """Keep it in the timeline with its raw payload; the unstable `plan_removed` is understood (docs/protocol.md §5.2)."""
    plan_id = update.raw.get("planId") if update.kind == "plan_removed" else None
    if isinstance(plan_id, str) and type(state.entities.get((PLAN, plan_id))) is Plan:
        del state.entities[(PLAN, plan_id)]
        return [ch.EntityRemoved((PLAN, plan_id))]
    state.unknown_count += 1
    return [_add(state, UnknownEntry((UNKNOWN, str(state.unknown_count)), update.kind, update.raw))]


def _notice(state: SessionState, update: Notice) -> list[ch.Change]:
    state.notices.append(update)
    return [ch.NoticeRaised(update)]


# -- foreground state (docs/protocol.md §9) -----------------------------------------------------------


def _state_update(state: SessionState, update: StateUpdate) -> list[ch.Change]:
    fg = state.foreground
    before = (fg.state, fg.busy, fg.stop_reason, fg.error, fg.background)
    was_busy = fg.busy
    new = update.state
    if new == RUNNING or new == REQUIRES_ACTION:
        if not fg.busy:
            state.turn += 1  # new foreground work: tool calls from here on belong to it
        fg.busy = True
    elif new == IDLE:
        # Idle always ends foreground work; a missing/unknown/malformed stop reason is just unknown.
        fg.busy = False
        reason = update.stop_reason
        fg.stop_reason = reason if isinstance(reason, str) else None
        error = update.error
        fg.error = error if fg.stop_reason == "error" and isinstance(error, ErrorObject) else None
    fg.state = new  # an unknown state is kept as sent; `busy` stays at the last known value
    problems: list[ch.Change] = []
    if isinstance(update.background, list):  # omitted or null: not reported, the last snapshot stands
        fg.background = update.background
        problems = _background(state, update.background)
    if state.subagents and not fg.busy:
        problems.extend(subagents.close_unlisted(state))  # the turn ended, or a snapshot while idle
    if (fg.state, fg.busy, fg.stop_reason, fg.error, fg.background) == before:
        return problems
    changes: list[ch.Change] = [*problems, ch.StateChanged(fg.state, fg.busy)]
    if was_busy and not fg.busy:
        if fg.stop_reason == "cancelled":
            changes.extend(_cancel_unfinished(state, state.turn))
        changes.append(ch.TurnEnded(state.turn, fg.stop_reason, fg.error, state.cancel_requested))
        state.cancel_requested = False
    return changes


# -- subagents (session/subagents.py) -----------------------------------------------------------------


def _subagent_update(state: SessionState, update: SubagentUpdate) -> list[ch.Change]:
    return subagents.announce(state, None, update)


def _session_message(state: SessionState, update: SessionMessage) -> list[ch.Change]:
    return subagents.message(state, update, apply)


def _child_update(state: SessionState, event: ChildUpdate) -> list[ch.Change]:
    return subagents.route(state, event, apply)


def _background(state: SessionState, items: list[BackgroundWork]) -> list[ch.Change]:
    """A complete background snapshot replaces the last one (session/background.py); rule breaks logged once."""
    bg = state.background
    snapshot = read_snapshot(items, lambda job: _job_entity(state, job) is not None)
    jobs, other, hidden = snapshot.jobs, snapshot.other, snapshot.hidden
    problems: list[ch.Change] = []

    def once(reason: str, detail: str) -> None:
        if reason not in bg.warned:
            bg.warned.add(reason)
            problems.extend(_problem(state, reason, detail))

    for note in snapshot.notes:
        once("malformed background item", note)
    if (job := snapshot.unannounced) is not None:  # checked over the whole list, not only the kept part
        once("background work listed before it was announced", f"{job.kind} {job.id}")
    for job in set(bg.jobs) - set(jobs):
        entity = _job_entity(state, job)
        if entity is not None and not _job_finished(entity):
            once("background work dropped before its final status", f"{job.kind} {job.id}")
    bg.reported = True
    bg.jobs, bg.other, bg.hidden = jobs, other, hidden
    return problems


def _job_entity(state: SessionState, job: Job) -> Terminal | ToolCall | Subagent | None:
    match job.kind:
        case "terminal":
            return state.terminal(job.id)
        case "tool_call":
            return state.tool_call(job.id)
        case "subagent":
            return state.subagents.get(job.id)
        case unreachable:
            assert_never(unreachable)


def _job_finished(entity: Terminal | ToolCall | Subagent) -> bool:
    """Has it reported its final status? A subagent has none to report (the schema asks it only of terminals
    and tool calls): dropping it from the list is how it ends (session/subagents.py `close_unlisted`)."""
    if isinstance(entity, Subagent):
        return True
    return entity.exit_status is not None if isinstance(entity, Terminal) else entity.finished


def _cancel_unfinished(state: SessionState, turn: int) -> list[ch.Change]:
    """docs/protocol.md §9.3: a turn confirmed `cancelled` has flushed its updates, so a tool call of it the
    agent left unfinished (many never report on a cancelled call) will not finish: it is cancelled."""
    # `session/cancel` does not cover work in the latest background list (schema `CancelSessionNotification`)
    detached = {job.id for job in state.background.jobs if job.kind == "tool_call"}
    changes: list[ch.Change] = []
    for key, entity in state.entities.items():
        if type(entity) is ToolCall and entity.turn == turn and not entity.finished and entity.id not in detached:
            entity.status = "cancelled"
            entity.cancelling = False
            changes.append(ch.EntityChanged(key, frozenset({"status", "cancelling"})))
    return changes


# -- beside the timeline ------------------------------------------------------------------------------


def _usage(state: SessionState, update: UsageUpdate) -> list[ch.Change]:
    cost = update.cost if update.cost is not UNSET else None
    state.usage = Usage(update.used, update.size, cost)
    changes: list[ch.Change] = [ch.UsageChanged()]
    meta = update.meta
    if isinstance(meta, dict) and RATE_LIMIT_META in meta:
        changes += _limit_window(state, meta[RATE_LIMIT_META])
    return changes


def _limit_window(state: SessionState, info: object) -> list[ch.Change]:
    """A plan window (`_claude/rateLimit`, session/account.py), and the others its `unifiedWindows` lists:
    each kept by its kind until its next report."""
    window = decode_rate_limit(info)
    account = state.account
    if window is None:
        return _warn_once(state, "rate limit", f"unreadable {RATE_LIMIT_META} in usage_update", repr(info)[:500])
    changes: list[ch.Change] = []
    # the headline window wins over its own entry in `unifiedWindows` (it has the overall status)
    others = [w for w in decode_unified_windows(info) if w.kind != window.kind]
    for each in (window, *others):
        if each.kind not in account.windows and len(account.windows) >= MAX_WINDOWS:
            changes += _warn_once(
                state, "windows", f"more than {MAX_WINDOWS} plan windows: the rest ignored", each.kind
            )
            continue
        account.windows[each.kind] = each
    return [ch.AccountChanged(), *changes]


def _account_reported(state: SessionState, event: AccountReported) -> list[ch.Change]:
    if event.account is None:
        return _warn_once(state, "account", f"unreadable {event.method}", event.detail[:500])
    state.account.account = event.account
    return [ch.AccountChanged()]


def _turn_tokens_reported(state: SessionState, event: TurnTokensReported) -> list[ch.Change]:
    if event.tokens is None:
        return _warn_once(state, "quota", f"unreadable _meta.{QUOTA_META} in the session/prompt result", event.detail)
    state.turn_tokens = event.tokens
    return [ch.AccountChanged()]


def _warn_once(state: SessionState, kind: str, reason: str, detail: str) -> list[ch.Change]:
    """An unknown account or limit shape is ignored and said once per kind (session/account.py)."""
    if kind in state.account.warned:
        return []
    state.account.warned.add(kind)
    return _problem(state, reason, detail)


def _commands(state: SessionState, update: AvailableCommandsUpdate) -> list[ch.Change]:
    state.commands = list(update.available_commands)
    return [ch.CommandsChanged()]


def _config(state: SessionState, update: ConfigOptionUpdate) -> list[ch.Change]:
    state.config_options = list(update.config_options)
    return [ch.ConfigChanged()]


def _info(state: SessionState, update: SessionInfoUpdate) -> list[ch.Change]:
    info = state.info
    fields: set[str] = set()
    for name in ("title", "updated_at", "meta"):
        value = getattr(update, name)
        if value is not UNSET:
            setattr(info, name, value)
            fields.add(name)
    return [ch.InfoChanged(frozenset(fields))] if fields else []


# -- local events ---------------------------------------------------------------------------------------


def _prompt_submitted(state: SessionState, event: PromptSubmitted) -> list[ch.Change]:
    state.submissions[event.request_id] = Submission(event.request_id, list(event.blocks))
    return [ch.SubmissionChanged(event.request_id)]


def _prompt_accepted(state: SessionState, event: PromptAccepted) -> list[ch.Change]:
    """Bind the submission to its user message by request id (docs/protocol.md §4.1 reconciliation)."""
    submission = state.submissions.pop(event.request_id, None)
    changes: list[ch.Change] = [ch.SubmissionChanged(event.request_id)] if submission is not None else []
    key = (USER_MESSAGE, event.message_id)
    entity = state.entities.get(key)
    if entity is None:
        if submission is None:
            return changes  # nothing to show until the agent reports the message
        msg = Message(key)
        msg.content.replace(submission.blocks)
        msg.local_echo = True
        msg.submission_id = event.request_id
        msg.resend_of = submission.resend_of
        changes.append(_add(state, msg))
    elif type(entity) is Message:
        entity.submission_id = event.request_id
        fields = {"submission_id"}
        if submission is not None and submission.resend_of is not None:
            entity.resend_of = submission.resend_of
            fields.add("resend_of")
        changes.append(ch.EntityChanged(key, frozenset(fields)))
    return changes


def _prompt_steered(state: SessionState, event: PromptSteered) -> list[ch.Change]:
    """A steered prompt the agent took: a user message of the client's (the agent echoes none)."""
    key = (USER_MESSAGE, event.message_id)
    if key in state.entities:
        return []
    msg = Message(key)
    msg.content.replace(list(event.blocks))
    msg.local_echo = True
    msg.steered = event.injected
    return [_add(state, msg)]


def _prompt_resent(state: SessionState, event: PromptResent) -> list[ch.Change]:
    """Mark a prompt sent again after a login as a repeat of message `of` (its submission, or the message it became)."""
    submission = state.submissions.get(event.request_id)
    if submission is not None:
        submission.resend_of = event.of
        return [ch.SubmissionChanged(event.request_id)]
    for key, entity in reversed(state.entities.items()):
        if key[0] == USER_MESSAGE and type(entity) is Message and entity.submission_id == event.request_id:
            entity.resend_of = event.of
            return [ch.EntityChanged(key, frozenset({"resend_of"}))]
    return []


def _prompt_rejected(state: SessionState, event: PromptRejected) -> list[ch.Change]:
    submission = state.submissions.get(event.request_id)
    if submission is None:
        return []
    submission.status = "cancelled" if event.cancelled else "failed"
    submission.error = event.error
    return [ch.SubmissionChanged(event.request_id)]


def _submission_dismissed(state: SessionState, event: SubmissionDismissed) -> list[ch.Change]:
    submission = state.submissions.get(event.request_id)
    if submission is None or submission.status == "pending":
        return []
    del state.submissions[event.request_id]
    return [ch.SubmissionChanged(event.request_id)]


def _cancel_requested(state: SessionState, event: CancelRequested) -> list[ch.Change]:
    """docs/protocol.md §9.3: answer every pending permission `cancelled`; show unfinished current tool calls cancelling."""
    changes: list[ch.Change] = []
    # The turn being cancelled: one running, or one sent and not yet answered (its `running` may follow).
    if state.foreground.busy or any(sub.status == "pending" for sub in state.submissions.values()):
        state.cancel_requested = True
    if state.permissions:
        resolved = tuple((request_id, "cancelled") for request_id in state.permissions)
        state.permissions.clear()
        changes.append(ch.PermissionsChanged(resolved=resolved))
    if state.foreground.state != IDLE:
        turn = state.turn
        for key, entity in state.entities.items():
            if type(entity) is ToolCall and entity.turn == turn and not entity.finished and not entity.cancelling:
                entity.cancelling = True
                changes.append(ch.EntityChanged(key, frozenset({"cancelling"})))
    return changes


def _permission_requested(state: SessionState, event: PermissionRequested) -> list[ch.Change]:
    """Queue the request; a v2 `tool_call` subject also patches that tool call (docs/protocol.md §8)."""
    changes: list[ch.Change] = []
    subject = getattr(event.request, "subject", None)
    call = getattr(subject, "tool_call", None)
    if type(call) is ToolCallUpdate:
        changes = _tool_call_update(state, call)
    state.permissions[event.request_id] = PendingPermission(event.request_id, event.request)
    changes.append(ch.PermissionsChanged(opened=(event.request_id,)))
    return changes


def _permission_resolved(state: SessionState, event: PermissionResolved) -> list[ch.Change]:
    pending = state.permissions.pop(event.request_id, None)
    if pending is None:
        return []  # already answered (e.g. cancelled): each request is answered exactly once
    return [
        ch.PermissionsChanged(resolved=((event.request_id, event.outcome),)),
        *_rejected(state, pending.request, event.outcome),
    ]


def _rejected(state: SessionState, request: Any, outcome: str) -> list[ch.Change]:
    """The user chose a reject option: the tool call it was about says so until the agent reports on it."""
    option = next((o for o in getattr(request, "options", None) or () if o.option_id == outcome), None)
    if option is None or not str(option.kind).startswith("reject"):
        return []
    subject = getattr(request, "subject", None)
    call_id = getattr(getattr(subject, "tool_call", None), "tool_call_id", None) or getattr(
        subject, "tool_call_id", None
    )
    call = state.tool_call(call_id) if isinstance(call_id, str) else None
    if call is None or call.finished or call.rejected:
        return []
    call.rejected = True
    return [ch.EntityChanged(call.key, frozenset({"rejected"}))]


def _protocol_problem(state: SessionState, event: ProtocolProblem) -> list[ch.Change]:
    return _problem(state, event.reason, event.detail)


def _agent_exited(state: SessionState, event: AgentExited) -> list[ch.Change]:
    """No agent, no foreground work: go idle, drop open permissions, mark pending prompts unknown (docs/protocol.md §4.1)
    and unfinished tool calls interrupted. An exit is not a protocol problem: the agent may just have
    crashed or been stopped by the user."""
    changes: list[ch.Change] = []
    fg = state.foreground
    state.cancel_requested = False  # the work ended with the agent; the exit banner says so, not a turn line
    if fg.busy or fg.state != IDLE:
        fg.state = IDLE
        fg.busy = False
        fg.stop_reason = None
        fg.error = None
        changes.append(ch.StateChanged(IDLE, False))
    if state.permissions:
        dropped = tuple(state.permissions)
        state.permissions.clear()
        changes.append(ch.PermissionsChanged(dropped=dropped))
    for request_id, submission in state.submissions.items():
        if submission.status == "pending":
            submission.status = "unknown"
            changes.append(ch.SubmissionChanged(request_id))
    for entity in state.entities.values():
        if type(entity) is ToolCall and not entity.finished and not entity.interrupted:
            entity.interrupted = True  # display only: the agent is gone, this call will never finish
            changes.append(ch.EntityChanged(entity.key, frozenset({"interrupted"})))
    changes.extend(subagents.close_all(state))
    detail = f"exit code {event.returncode}" if event.returncode is not None else "no exit code"
    changes.append(ch.AgentGone(f"{detail}; {event.reason}" if event.reason else detail))
    return changes


def _file_accessed(state: SessionState, event: FileAccessed) -> list[ch.Change]:
    """A file the client read or wrote for the agent (docs/protocol.md §10.2): listed in its tool call when
    one can be told for sure, else a line of its own in the timeline."""
    state.file_access_count += 1
    access = FileAccess((FILE_ACCESS, str(state.file_access_count)), event.kind, event.path, event.cwd)
    access.status = event.status
    access.detail = event.detail
    access.requested_path = event.requested_path or event.path
    access.first_line = event.first_line
    access.line_count = event.line_count
    access.created = event.created
    access.diff = event.diff
    access.added = event.added
    access.removed = event.removed
    access.outside = event.outside
    call = _owning_tool_call(state, event)
    if call is None:
        return [_add(state, access)]
    access.tool_call_id = call.id
    call.files.append(access)
    return [ch.EntityChanged(call.key, frozenset({"files"}))]


def _owning_tool_call(state: SessionState, event: FileAccessed) -> ToolCall | None:
    """The tool call a file access belongs to, conservatively: the one the agent named in `_meta`, else
    the only unfinished call of the current turn whose locations name the file. An access no call
    claims for sure stands alone (a wrong card would hide it where the user does not look)."""
    if event.tool_call_id is not None:
        named = state.tool_call(event.tool_call_id)
        if named is not None:
            return named
    paths = {event.path, posixpath.normpath(event.requested_path or event.path)}
    found: ToolCall | None = None
    for entity in reversed(state.entities.values()):
        if type(entity) is not ToolCall:
            continue
        if entity.turn < state.turn:
            break  # calls are in first-seen order: everything earlier is from an earlier turn
        if entity.finished or entity.turn != state.turn:
            continue
        if any(posixpath.normpath(location.path) in paths for location in entity.locations):
            if found is not None:
                return None  # two candidates: no telling
            found = entity
    return found


_HANDLERS: dict[type, _Handler] = {
    UserMessageChunk: _user_chunk,
    AgentMessageChunk: _agent_chunk,
    AgentThoughtChunk: _thought_chunk,
    UserMessage: _user_message,
    AgentMessage: _agent_message,
    AgentThought: _agent_thought,
    StateUpdate: _state_update,
    ToolCallUpdate: _tool_call_update,
    ToolCallCreated: _tool_call_created,
    ToolCallContentChunk: _tool_call_chunk,
    TerminalUpdate: _terminal_update,
    TerminalOutputChunk: _terminal_chunk,
    TerminalCancelRequested: _terminal_cancel_requested,
    TerminalCancelFailed: _terminal_cancel_failed,
    ToolCallCancelRequested: _tool_call_cancel_requested,
    ToolCallCancelFailed: _tool_call_cancel_failed,
    TerminalTimed: _terminal_timed,
    PlanUpdate: _plan_update,
    AvailableCommandsUpdate: _commands,
    ConfigOptionUpdate: _config,
    SessionInfoUpdate: _info,
    UsageUpdate: _usage,
    Notice: _notice,
    CompactionUpdate: _compaction_update,
    CompactionSummaryChunk: _compaction_chunk,
    UnknownUpdate: _unknown,
    SubagentUpdate: _subagent_update,
    SessionMessage: _session_message,
    ChildUpdate: _child_update,
    PromptSubmitted: _prompt_submitted,
    PromptAccepted: _prompt_accepted,
    PromptRejected: _prompt_rejected,
    PromptResent: _prompt_resent,
    SubmissionDismissed: _submission_dismissed,
    CancelRequested: _cancel_requested,
    PermissionRequested: _permission_requested,
    PermissionResolved: _permission_resolved,
    ProtocolProblem: _protocol_problem,
    AgentExited: _agent_exited,
    FileAccessed: _file_accessed,
    PromptSteered: _prompt_steered,
    AccountReported: _account_reported,
    TurnTokensReported: _turn_tokens_reported,
}

__all__ = ["apply", "bound_plan"]
