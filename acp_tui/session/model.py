"""The session state model: everything the UI shows about one ACP session, as plain mutable objects.

Only `acp_tui.session.reducer.apply` mutates these objects; everyone else reads them and listens to the
`Change`s that `apply` returns (see `acp_tui.session.changes`). Entities live in one dict keyed by
`(entity type, id)` (docs/protocol.md §5.1: ids are unique per type, not across types); Python dicts keep insertion
order, so that dict *is* the timeline in first-seen order and nothing ever moves or gets copied.
One exception to "key = wire id": a tool-call id reused in a later turn names a new card, whose key gets
a generation suffix (`call_1#2`) while `ToolCall.id` keeps the wire id (docs/protocol.md §6.1);
`SessionState.tool_call_keys` says which card each wire id names now.

Patch fields follow the wire rule: omitted = unchanged, `null` = cleared (stored as `None`), value =
replaced. Live-only things (notices, usage, commands, config, session info, foreground state,
permissions, submissions, problems) sit beside the timeline, never in it.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from acp_tui.protocol.v2 import TextContent
from acp_tui.session.account import AccountState, TurnTokens
from acp_tui.session.background import Background

if TYPE_CHECKING:
    from acp_tui.protocol.common import ErrorObject, Meta
    from acp_tui.protocol.v2 import (
        AvailableCommand,
        ContentBlock,
        Cost,
        Diff,
        Notice,
        PlanItems,
        SessionConfigOption,
        TerminalExitStatus,
        ToolCallContent,
        ToolCallLocation,
        UnknownPlan,
    )

# -- entity types and keys ---------------------------------------------------------------------------

USER_MESSAGE: Final = "user_message"
AGENT_MESSAGE: Final = "agent_message"
AGENT_THOUGHT: Final = "agent_thought"
TOOL_CALL: Final = "tool_call"
TERMINAL: Final = "terminal"
PLAN: Final = "plan"
#: A plan keeps at most this many entries (the rest are counted: "… N more entries").
MAX_PLAN_ENTRIES: Final = 500
#: A plan entry's text is cut here.
MAX_PLAN_ENTRY_CHARS: Final = 1_000
COMPACTION: Final = "compaction"
UNKNOWN: Final = "unknown"
FILE_ACCESS: Final = "file_access"
SUBAGENT: Final = "subagent"

#: The timeline entity types (the first element of every `EntityKey`).
EntityType: TypeAlias = Literal[
    "user_message",
    "agent_message",
    "agent_thought",
    "tool_call",
    "terminal",
    "plan",
    "compaction",
    "unknown",
    "file_access",
    "subagent",
]
#: `(entity type, id)`: the only way an entity is ever looked up. Unknown updates get ids `"1"`, `"2"`, ...
EntityKey: TypeAlias = tuple[str, str]

#: Tool-call statuses after which the call is finished (anything else, unknown values included, is not).
FINISHED_TOOL_STATUSES: Final = frozenset({"completed", "failed", "cancelled"})

#: Foreground states as the wire names them; an unknown string is kept as sent (docs/protocol.md §9.1).
RUNNING: Final = "running"
REQUIRES_ACTION: Final = "requires_action"
IDLE: Final = "idle"


class ContentBuffer:
    """An ordered list of content blocks plus their text, where appending costs O(len(chunk)).

    `blocks` is the content as received (each chunk is one block, so a chunk's own `_meta` stays on its
    block). `text` is the concatenation of the text blocks; it is built on demand from a list of parts
    and the joined result is cached (and the parts collapsed into it), so streaming never re-joins.
    Reading `text` costs O(total) after a change: a streaming widget should consume `TextAppended`
    instead of re-reading `text` per chunk.
    """

    __slots__ = ("blocks", "_parts", "_text")

    def __init__(self) -> None:
        self.blocks: list[ContentBlock] = []
        self._parts: list[str] = []
        self._text: str | None = ""

    def append(self, block: ContentBlock) -> str | None:
        """Append one block; return its text if it is a text block (else `None`)."""
        self.blocks.append(block)
        if type(block) is not TextContent:
            return None
        text = block.text
        if text:
            self._parts.append(text)
            self._text = None
        return text

    def replace(self, blocks: list[ContentBlock] | None) -> None:
        """Replace everything (a full-content update); `None` or `[]` clears."""
        self.blocks = list(blocks) if blocks else []
        self._parts = [b.text for b in self.blocks if type(b) is TextContent and b.text]
        self._text = None

    @property
    def text(self) -> str:
        """All text blocks joined, in order (other block types contribute nothing)."""
        if self._text is None:
            joined = "".join(self._parts)
            self._parts = [joined] if joined else []
            self._text = joined
        return self._text

    def __len__(self) -> int:
        return len(self.blocks)


# -- timeline entities -------------------------------------------------------------------------------


class Message:
    """A user message, agent message or agent thought (which one is `key[0]`).

    `local_echo` is true while a user message shows the blocks the client submitted because the agent has
    not reported that message yet; the agent's first update or chunk for it then replaces the echo.
    `submission_id` is the JSON-RPC request id of the prompt that inserted it, when known. `resend_of` is the
    id of the user message this one repeats (the prompt was sent again after a login): the agent holds both,
    the conversation shows the words once. `steered`: the user steered it into a running turn (the agent's
    `_session/steering` took it), so it shows inside that turn, marked as steered.
    """

    __slots__ = ("key", "content", "meta", "local_echo", "submission_id", "resend_of", "steered")

    def __init__(self, key: EntityKey) -> None:
        self.key: EntityKey = key
        self.content: ContentBuffer = ContentBuffer()
        self.meta: Meta | None = None
        self.local_echo: bool = False
        self.submission_id: int | str | None = None
        self.resend_of: str | None = None
        self.steered: bool = False

    @property
    def id(self) -> str:
        return self.key[1]

    @property
    def text(self) -> str:
        return self.content.text


class ToolCall:
    """A tool call (docs/protocol.md §6). Defaults on creation: status "pending", kind "other".

    `cancelling` is a display-only flag set when the user cancels while this call is unfinished; it
    clears as soon as the agent reports a finished status (the agent's word wins). `key[1]` is the wire id,
    or for a card started by an id reused in a later turn that id with a generation suffix; `id` is always
    the wire id (what `tool_call/cancel` names).
    """

    __slots__ = (
        "key",
        "tool_call_id",
        "title",
        "kind",
        "status",
        "content",
        "locations",
        "raw_input",
        "raw_output",
        "name",
        "meta",
        "cancelling",
        "interrupted",
        "rejected",
        "turn",
        "files",
        "cancellable",
    )

    def __init__(self, key: EntityKey, turn: int = 0, tool_call_id: str | None = None) -> None:
        self.key: EntityKey = key
        #: the agent's `toolCallId` (the same for every card a reused id started)
        self.tool_call_id: str = key[1] if tool_call_id is None else tool_call_id
        self.title: str | None = None
        self.kind: str = "other"
        self.status: str = "pending"
        self.content: list[ToolCallContent] = []
        self.locations: list[ToolCallLocation] = []
        self.raw_input: Any = None
        self.raw_output: Any = None
        self.name: str | None = None
        self.meta: Meta | None = None
        self.cancelling: bool = False
        #: display only: the agent exited while this call was unfinished, so it never will finish
        self.interrupted: bool = False
        #: display only: the user rejected this call's permission request; shown while the agent leaves it
        #: pending (many agents never report a status for a call they were refused)
        self.rejected: bool = False
        #: the foreground-work counter (`SessionState.turn`) when this call was first seen
        self.turn: int = turn
        #: files the client read or wrote for this call (v1 `fs/*`, docs/protocol.md §10.2), in order
        self.files: list[FileAccess] = []
        #: the latest `capabilities` patch advertised `cancel` (v2 `tool_call/cancel` may be sent)
        self.cancellable: bool = False

    @property
    def id(self) -> str:
        return self.tool_call_id

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_TOOL_STATUSES


class Terminal:
    """A terminal shown in the timeline (docs/protocol.md §6.4, §10.2): raw bytes, bounded to the newest `limit` bytes.

    A v2 agent-owned display-only terminal, a v1 tool call's `_meta.terminal_*` output, or a command the
    client runs for a v1 agent (`terminal/create`); all three are fed as v2 terminal updates.
    `dropped` counts bytes discarded from the front to honour the bound. `exit_status` is `None` while
    running; a concrete object means exited (even with neither code nor signal). `capabilities` is the
    latest `capabilities` patch (`cancel` lets the user stop it); `cancelling` is display-only, set when
    the user asked to stop it and cleared by the exit status (or a refusal). `started_at`/`ended_at` are
    monotonic-clock seconds, known only for commands the client runs itself.
    """

    __slots__ = (
        "key",
        "command",
        "cwd",
        "output",
        "dropped",
        "limit",
        "exit_status",
        "meta",
        "capabilities",
        "cancelling",
        "started_at",
        "ended_at",
        "size",
    )

    def __init__(self, key: EntityKey, limit: int) -> None:
        self.key: EntityKey = key
        self.command: str | None = None
        self.cwd: str | None = None
        self.output: bytearray = bytearray()
        self.dropped: int = 0
        self.limit: int = limit
        self.exit_status: TerminalExitStatus | None = None
        self.meta: Meta | None = None
        self.capabilities: dict[str, Any] | None = None
        self.cancelling: bool = False
        self.started_at: float | None = None
        self.ended_at: float | None = None
        #: the size (cols, rows) the command runs with, when the agent says (`TerminalUpdate.size`)
        self.size: tuple[int, int] | None = None

    @property
    def id(self) -> str:
        return self.key[1]

    @property
    def cancellable(self) -> bool:
        """Running and advertising `capabilities.cancel` (an object; anything else means no control)."""
        caps = self.capabilities
        return self.exit_status is None and isinstance(caps, dict) and isinstance(caps.get("cancel"), dict)

    def append(self, data: bytes) -> None:
        """Append bytes, then trim the front to the bound (amortised O(len(data)))."""
        self.output += data
        excess = len(self.output) - self.limit
        if excess > 0:
            del self.output[:excess]
            self.dropped += excess

    def replace(self, data: bytes) -> None:
        """Replace all bytes with an authoritative snapshot (kept within the bound)."""
        self.output = bytearray()
        self.dropped = 0
        self.append(data)


class Plan:
    """One plan by `planId` (docs/protocol.md §7): the latest `PlanItems` or an unsupported `UnknownPlan`, replaced whole.

    A plan is bounded here, so nothing above ever sees more (the reducer's `bound_plan`): at most
    `MAX_PLAN_ENTRIES` entries are kept, each cut at `MAX_PLAN_ENTRY_CHARS`; `more` counts the entries left
    out and `more_done` how many of those were completed (the progress counts every entry).
    """

    __slots__ = ("key", "plan", "more", "more_done")

    def __init__(self, key: EntityKey, plan: PlanItems | UnknownPlan, more: int = 0, more_done: int = 0) -> None:
        self.key: EntityKey = key
        self.plan: PlanItems | UnknownPlan = plan
        self.more = more
        self.more_done = more_done

    @property
    def id(self) -> str:
        return self.key[1]


class Compaction:
    """A context compaction (docs/protocol.md §5.5): fixed timeline slot, status (open string), summary, error."""

    __slots__ = ("key", "status", "summary", "error", "meta")

    def __init__(self, key: EntityKey) -> None:
        self.key: EntityKey = key
        self.status: str = "in_progress"
        self.summary: ContentBuffer = ContentBuffer()
        self.error: str | None = None
        self.meta: Meta | None = None

    @property
    def id(self) -> str:
        return self.key[1]


class UnknownEntry:
    """An update variant this client does not understand, kept in timeline order with its raw payload."""

    __slots__ = ("key", "kind", "raw")

    def __init__(self, key: EntityKey, kind: str, raw: dict[str, Any]) -> None:
        self.key: EntityKey = key
        self.kind: str = kind
        self.raw: dict[str, Any] = raw

    @property
    def id(self) -> str:
        return self.key[1]


def read_range_text(first_line: int | None, line_count: int | None) -> str:
    """ " (lines 10–60)" for a ranged read of a file access; "" for a whole-file read."""
    if first_line is None:
        return ""
    count = line_count or 0
    if count == 0:
        return f" (from line {first_line}: nothing)"
    if count == 1:
        return f" (line {first_line})"
    return f" (lines {first_line}–{first_line + count - 1})"


class FileAccess:
    """A file the client read or wrote for the agent (v1 `fs/*`, docs/protocol.md §10.2), or refused to.

    A line in the timeline, or an entry of `ToolCall.files` when it belongs to a tool call (then
    `tool_call_id` names it). Fields as in `acp_tui.session.local_events.FileAccessed`; never changes once made.
    """

    __slots__ = (
        "key",
        "kind",
        "path",
        "cwd",
        "status",
        "detail",
        "requested_path",
        "first_line",
        "line_count",
        "created",
        "diff",
        "added",
        "removed",
        "tool_call_id",
        "outside",
    )

    def __init__(self, key: EntityKey, kind: str, path: str, cwd: str) -> None:
        self.key: EntityKey = key
        #: "read" or "write"
        self.kind: str = kind
        self.path: str = path
        self.cwd: str = cwd
        #: "done", "refused", "failed" or "cancelled"
        self.status: str = "done"
        self.detail: str = ""
        self.requested_path: str = path
        self.first_line: int | None = None
        self.line_count: int | None = None
        self.created: bool = False
        #: a write's change (a git-style patch computed by the client), when there is one to show
        self.diff: Diff | None = None
        self.added: int = 0
        self.removed: int = 0
        self.tool_call_id: str | None = None
        #: the file is outside the session folder
        self.outside: bool = False

    @property
    def id(self) -> str:
        return self.key[1]


class Subagent:
    """A child session the agent announced with `subagent_update` (docs/protocol.md §10.6): a lane in
    the timeline of the session that owns it, with its own bounded model (`model`, the same reducer's types).

    `key[1]` and `session_id` are the child's session id; `parent_id` is the owning child's id, `None` for
    the root session. `ended`: its work is over, as it said (idle) or as we judged (the parent's turn ended
    without listing it as background work). `dropped` counts the entries past the cap that were not kept.
    """

    __slots__ = (
        "key",
        "session_id",
        "parent_id",
        "depth",
        "title",
        "description",
        "state",
        "stop_reason",
        "ended",
        "prompt",
        "reply",
        "model",
        "dropped",
        "text_chars",
    )

    def __init__(self, key: EntityKey, parent_id: str | None, depth: int) -> None:
        self.key: EntityKey = key
        self.session_id: str = key[1]
        self.parent_id: str | None = parent_id
        self.depth: int = depth
        self.title: str | None = None
        self.description: str | None = None
        self.state: str = RUNNING
        self.stop_reason: str | None = None
        self.ended: bool = False
        #: what the parent asked of it and what it answered (`session_message`s between the two)
        self.prompt: str = ""
        self.reply: str = ""
        self.model: SessionState = SessionState(terminal_limit=256 * 1024, max_notices=5, max_problems=20)
        self.dropped: int = 0
        #: characters of streamed text kept so far (bounded: session/subagents.py `MAX_TEXT_BUDGET`)
        self.text_chars: int = 0

    @property
    def name(self) -> str:
        return self.title or self.description or "subagent"

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [entity for entity in self.model.entities.values() if type(entity) is ToolCall]


Entity: TypeAlias = Message | ToolCall | Terminal | Plan | Compaction | UnknownEntry | FileAccess | Subagent


# -- beside the timeline -----------------------------------------------------------------------------


class Usage:
    """Context-window usage (tokens) and optional cumulative cost; replaced whole on each update."""

    __slots__ = ("used", "size", "cost")

    def __init__(self, used: int, size: int, cost: Cost | None) -> None:
        self.used: int = used
        self.size: int = size
        self.cost: Cost | None = cost


class SessionInfo:
    """Session metadata from `session_info_update` (patch fields; `None` = no value)."""

    __slots__ = ("title", "updated_at", "meta")

    def __init__(self) -> None:
        self.title: str | None = None
        self.updated_at: str | None = None
        self.meta: Meta | None = None


class Foreground:
    """The foreground work state (docs/protocol.md §9).

    `state` is "running", "requires_action", "idle", "unknown" before anything was reported, or an
    unknown string kept as sent. `busy` is the last *known* busy/idle judgement, which an unknown state
    leaves as it was. `stop_reason`/`error` describe how the last foreground work ended (`error` only
    with the "error" stop reason); `background` is the last background-work snapshot, kept as decoded.
    """

    __slots__ = ("state", "busy", "stop_reason", "error", "background")

    def __init__(self) -> None:
        self.state: str = "unknown"
        self.busy: bool = False
        self.stop_reason: str | None = None
        self.error: ErrorObject | None = None
        self.background: Any = None


class PendingPermission:
    """A `session/request_permission` waiting for the user. The future lives in the agent layer."""

    __slots__ = ("request_id", "request")

    def __init__(self, request_id: int | str, request: Any) -> None:
        self.request_id: int | str = request_id
        #: the decoded request params (v1 or v2 Struct), shown by the dialog
        self.request: Any = request


SubmissionStatus: TypeAlias = Literal["pending", "failed", "cancelled", "unknown"]


class Submission:
    """A prompt the user sent that the agent has not inserted (yet, or ever).

    "pending": waiting for insertion (show a greyed bubble). "failed": error response (show it red with
    `error`). "cancelled": -32800, "not sent". "unknown": the agent went away before answering.
    Accepted submissions leave this table: they are user messages in the timeline then. `resend_of`: the
    user message this prompt repeats (`Message.resend_of`), carried to the message it becomes.
    """

    __slots__ = ("request_id", "blocks", "status", "error", "resend_of")

    def __init__(self, request_id: int | str, blocks: list[ContentBlock]) -> None:
        self.request_id: int | str = request_id
        self.blocks: list[ContentBlock] = blocks
        self.status: SubmissionStatus = "pending"
        self.error: ErrorObject | None = None
        self.resend_of: str | None = None


class Problem:
    """A protocol problem seen in this session (malformed data, bad base64, ...), for a debug view."""

    __slots__ = ("reason", "detail")

    def __init__(self, reason: str, detail: str) -> None:
        self.reason: str = reason
        self.detail: str = detail

    def __repr__(self) -> str:
        return f"Problem({self.reason!r}, {self.detail!r})"


#: Default bound on one terminal's retained output bytes.
DEFAULT_TERMINAL_LIMIT: Final = 8 * 1024 * 1024


class SessionState:
    """Everything known about one session. Mutated only by `reducer.apply`."""

    __slots__ = (
        "entities",
        "notices",
        "usage",
        "commands",
        "config_options",
        "info",
        "foreground",
        "permissions",
        "submissions",
        "problems",
        "problem_count",
        "turn",
        "terminal_limit",
        "unknown_count",
        "tool_call_keys",
        "cancel_requested",
        "file_access_count",
        "background",
        "subagents",
        "account",
        "turn_tokens",
    )

    def __init__(
        self,
        *,
        terminal_limit: int = DEFAULT_TERMINAL_LIMIT,
        max_notices: int = 50,
        max_problems: int = 100,
    ) -> None:
        #: the timeline: every entity by (type, id), in first-seen order
        self.entities: dict[EntityKey, Entity] = {}
        #: recent live notices, newest last (never history, never replayed)
        self.notices: deque[Notice] = deque(maxlen=max_notices)
        self.usage: Usage | None = None
        self.commands: list[AvailableCommand] = []
        self.config_options: list[SessionConfigOption] = []
        self.info: SessionInfo = SessionInfo()
        self.foreground: Foreground = Foreground()
        #: pending permission requests by JSON-RPC request id, in arrival order
        self.permissions: dict[int | str, PendingPermission] = {}
        #: prompt submissions not (yet) inserted, by JSON-RPC request id
        self.submissions: dict[int | str, Submission] = {}
        #: the most recent protocol problems; `problem_count` counts all of them
        self.problems: deque[Problem] = deque(maxlen=max_problems)
        self.problem_count: int = 0
        #: how many times foreground work started (`running` after not-running); tags tool calls
        self.turn: int = 0
        self.terminal_limit: int = terminal_limit
        self.unknown_count: int = 0
        #: the card each wire `toolCallId` names now (a reused id moves on to a new card, docs/protocol.md §6.1)
        self.tool_call_keys: dict[str, EntityKey] = {}
        #: the user cancelled the foreground work now in progress (cleared when its `TurnEnded` reports it)
        self.cancel_requested: bool = False
        #: file accesses seen (their keys are `("file_access", "1")`, ...)
        self.file_access_count: int = 0
        #: the latest background-work snapshot, typed and bounded (session/background.py)
        self.background: Background = Background()
        #: every subagent of this (root) session, nested ones too, by child session id (session/subagents.py)
        self.subagents: dict[str, Subagent] = {}
        #: the signed-in account and the plan's windows, where the agent reports them (session/account.py)
        self.account: AccountState = AccountState()
        #: the last turn's tokens, in all and per model, where the agent reports them (codex-acp's `_meta.quota`)
        self.turn_tokens: TurnTokens | None = None

    @property
    def timeline(self) -> list[Entity]:
        """The entities in timeline order (a new list; prefer iterating `entities.values()`)."""
        return list(self.entities.values())

    def get(self, entity_type: str, entity_id: str) -> Entity | None:
        """Look an entity up by its type and id."""
        return self.entities.get((entity_type, entity_id))

    def message(self, entity_type: str, message_id: str) -> Message | None:
        """A user message, agent message or thought by id."""
        entity = self.entities.get((entity_type, message_id))
        return entity if isinstance(entity, Message) else None

    def tool_call(self, tool_call_id: str) -> ToolCall | None:
        """The card the wire id `tool_call_id` names now (the newest one, if the id was reused)."""
        entity = self.entities.get(self.tool_call_keys.get(tool_call_id, (TOOL_CALL, tool_call_id)))
        return entity if isinstance(entity, ToolCall) else None

    def terminal(self, terminal_id: str) -> Terminal | None:
        entity = self.entities.get((TERMINAL, terminal_id))
        return entity if isinstance(entity, Terminal) else None

    def plan(self, plan_id: str) -> Plan | None:
        entity = self.entities.get((PLAN, plan_id))
        return entity if isinstance(entity, Plan) else None

    def compaction(self, compaction_id: str) -> Compaction | None:
        entity = self.entities.get((COMPACTION, compaction_id))
        return entity if isinstance(entity, Compaction) else None


__all__ = [
    "USER_MESSAGE",
    "AGENT_MESSAGE",
    "AGENT_THOUGHT",
    "TOOL_CALL",
    "TERMINAL",
    "PLAN",
    "MAX_PLAN_ENTRIES",
    "MAX_PLAN_ENTRY_CHARS",
    "COMPACTION",
    "UNKNOWN",
    "EntityType",
    "EntityKey",
    "FINISHED_TOOL_STATUSES",
    "RUNNING",
    "REQUIRES_ACTION",
    "IDLE",
    "ContentBuffer",
    "Message",
    "ToolCall",
    "Terminal",
    "Plan",
    "Compaction",
    "UnknownEntry",
    "Entity",
    "FILE_ACCESS",
    "SUBAGENT",
    "Subagent",
    "FileAccess",
    "Usage",
    "SessionInfo",
    "Foreground",
    "PendingPermission",
    "SubmissionStatus",
    "Submission",
    "Problem",
    "DEFAULT_TERMINAL_LIMIT",
    "SessionState",
]
