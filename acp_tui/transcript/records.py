"""The transcript's records: one msgspec Struct per line kind, tagged by the `"ev"` field.

A transcript is JSON Lines. The first line of each writer's run is an `open` record whose `format` says
which record shapes follow; every record carries `"at"` (Unix time, rounded to milliseconds), and the
entity records name their entity by `"type"` (the `EntityKey` type, e.g. "tool_call") and `"id"`.

Format 2 is format 1 plus:
- a tool call's content is a list of typed items (`content` on `added` and `replaced`, `item` on
  `content`) instead of one flattened `text`, so a diff stays a diff (docs/protocol.md §6.2, §6.3);
- files the client read or wrote for the agent (docs/protocol.md §10.2): `access` on an `added`
  `file_access` entity, `files` on an `added` tool call, and a `file` record per access appended to a
  tool call;
- `turn_end` (the end of a turn, docs/protocol.md §9.2) where format 1 wrote `{"ev": "unhandled"}`;
- `interrupted` and `rejected` among a tool call's `changed` fields.
Format 3 (written now) is format 2 with `permissions` records that say what changed (`opened`,
`resolved`, `dropped`) instead of restating every open request id (`open`).
Every other record is unchanged, so the reader reads every format with these types: a format 1 tool
call simply has `text` and no `content`.

Optional fields default to `UNSET`, which msgspec never writes: a field is on the line exactly when
the writer set it, and `null` stays distinct from "not there" (a `changed` record lists only what
changed). Unknown fields are ignored on reading; an unknown `"ev"` fails to decode and the reader skips
that line.
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

import msgspec
from msgspec import UNSET, UnsetType

__all__ = [
    "FORMAT_VERSION",
    "Record",
    "EntityRecord",
    "OpenRecord",
    "NoteRecord",
    "AddedRecord",
    "TextRecord",
    "ContentRecord",
    "OutputRecord",
    "ReplacedRecord",
    "ChangedRecord",
    "RemovedRecord",
    "FileRecord",
    "StateRecord",
    "TurnEndRecord",
    "NoticeRecord",
    "UsageRecord",
    "InfoRecord",
    "CommandsRecord",
    "ConfigRecord",
    "PermissionsRecord",
    "SubmissionRecord",
    "ProblemRecord",
    "ExitRecord",
    "EntityFields",
    "Location",
    "ExitStatusValue",
    "ErrorValue",
    "CostValue",
    "PlanValue",
    "PlanEntryValue",
    "InfoFields",
    "ToolItem",
    "ContentItem",
    "DiffItem",
    "DiffFile",
    "TerminalItem",
    "UnknownItem",
    "FileAccessValue",
]

#: The shapes the writer produces; bumped when a record changes incompatibly (adding a record kind or an
#: optional field is compatible: readers skip what they do not know).
FORMAT_VERSION: Final = 3


# -- values inside records -------------------------------------------------------------------------------


class Location(msgspec.Struct):
    """A tool call's location (docs/protocol.md §6.1)."""

    path: str
    line: int | None = None


class ExitStatusValue(msgspec.Struct):
    """A terminal's exit: both fields are written, `null` when the agent did not say."""

    exit_code: int | None = None
    signal: str | None = None


class ErrorValue(msgspec.Struct):
    """A JSON-RPC error as the conversation shows it."""

    code: int | None = None
    message: str = ""


class CostValue(msgspec.Struct):
    amount: float
    currency: str


class PlanEntryValue(msgspec.Struct):
    content: str
    priority: str = ""
    status: str = ""


class PlanValue(msgspec.Struct):
    """A plan as last replaced (docs/protocol.md §7): its entries, or the type this client does not know."""

    entries: list[PlanEntryValue] | UnsetType = UNSET
    #: entries the client left out (it keeps `MAX_PLAN_ENTRIES`), counted
    more: int | UnsetType = UNSET
    unsupported: str | UnsetType = UNSET
    raw: Any | UnsetType = UNSET


class DiffFile(msgspec.Struct, omit_defaults=True):
    """One file of a diff (docs/protocol.md §6.3)."""

    operation: str
    path: str
    old_path: str | None = None
    file_type: str | None = None


class ContentItem(msgspec.Struct, tag_field="type", tag="content", omit_defaults=True):
    """A content block in a tool call: its text, or for another block kind (`block`) a placeholder."""

    text: str
    block: str = "text"


class DiffItem(msgspec.Struct, tag_field="type", tag="diff", omit_defaults=True):
    """File changes: the files, and the patch text when the agent (or the client) gave one."""

    files: list[DiffFile] = msgspec.field(default_factory=list)
    patch: str | None = None
    format: str | None = None


class TerminalItem(msgspec.Struct, tag_field="type", tag="terminal"):
    """A terminal embedded in a tool call: its output is the `terminal` entity's (docs/protocol.md §6.4)."""

    terminal_id: str


class UnknownItem(msgspec.Struct, tag_field="type", tag="unknown"):
    """Tool-call content this client does not understand, by its wire type."""

    kind: str


ToolItem: TypeAlias = ContentItem | DiffItem | TerminalItem | UnknownItem


class FileAccessValue(msgspec.Struct, omit_defaults=True):
    """A file read or written for the agent (docs/protocol.md §10.2); fields as in `session.model.FileAccess`."""

    kind: str
    path: str
    cwd: str = ""
    status: str = "done"
    detail: str = ""
    requested_path: str | None = None
    first_line: int | None = None
    line_count: int | None = None
    created: bool = False
    lines_added: int = 0
    lines_removed: int = 0
    diff: DiffItem | None = None
    #: the file is outside the session folder (format 2 files written before this lack it: inside)
    outside: bool = False


class EntityFields(msgspec.Struct, kw_only=True):
    """The entity fields a `changed` record can carry (new values; only the ones that changed are set).

    Also the base of `AddedRecord`, whose snapshot holds the same names, so a reader can replay
    `changed` onto `added` with `msgspec.structs.replace`.
    """

    title: str | None | UnsetType = UNSET
    #: a tool call's kind; an `unknown` entity's update kind; a file access's "read"/"write"
    kind: str | None | UnsetType = UNSET
    status: str | None | UnsetType = UNSET
    locations: list[Location] | UnsetType = UNSET
    name: str | None | UnsetType = UNSET
    raw_input: Any | UnsetType = UNSET
    raw_output: Any | UnsetType = UNSET
    cancelling: bool | UnsetType = UNSET
    interrupted: bool | UnsetType = UNSET
    #: display only: the user rejected the call's permission (shown while the call stays pending)
    rejected: bool | UnsetType = UNSET
    command: str | None | UnsetType = UNSET
    cwd: str | None | UnsetType = UNSET
    exit_status: ExitStatusValue | None | UnsetType = UNSET
    plan: PlanValue | UnsetType = UNSET
    #: a compaction's error text
    error: str | None | UnsetType = UNSET
    local_echo: bool | UnsetType = UNSET
    #: a user message sent again after a login: the id of the message it repeats (Markdown shows the words once)
    resend_of: str | None | UnsetType = UNSET


class InfoFields(msgspec.Struct):
    """Session info fields that changed (docs/protocol.md §10.5)."""

    title: str | None | UnsetType = UNSET
    updated_at: str | None | UnsetType = UNSET


# -- the records -------------------------------------------------------------------------------------------
# `at` is declared last in each record (first in `open`), where format 1 wrote it.


class _Record(msgspec.Struct, tag_field="ev", kw_only=True):
    """Base of every record: tagged by `"ev"`; mutable so the writer stamps `at` when it writes."""


class OpenRecord(_Record, tag="open"):
    """The first line of each writer's run (a file may hold several: a transcript is appended to)."""

    at: float = 0.0
    format: int = 1
    label: str = ""


class NoteRecord(_Record, tag="note"):
    """A client line: agent started, exited, restarted, a turn cancelled, ... (`kind` "restart" starts a new agent)."""

    kind: str = "note"
    text: str = ""
    at: float = 0.0


class AddedRecord(EntityFields, tag_field="ev", tag="added", kw_only=True):
    """A timeline entity, rendered whole as it is when it appears.

    Which fields are set depends on `type`: a message `text`, `local_echo` and `resend_of`; a tool call `title`,
    `kind`, `status`, `locations`, `name`, `content` (format 1: `text`) and `files`; a terminal
    `command`, `cwd`, `exit_status` and its decoded output as `text`; a plan `plan`; a compaction
    `status`, `error` and its summary as `text`; an unknown update `kind` and `raw`; a file access `access`.
    """

    type: str
    id: str
    text: str | UnsetType = UNSET
    content: list[ToolItem] | UnsetType = UNSET
    files: list[FileAccessValue] | UnsetType = UNSET
    raw: Any | UnsetType = UNSET
    access: FileAccessValue | UnsetType = UNSET
    at: float = 0.0


class TextRecord(_Record, tag="text"):
    """Text appended to a message, thought or compaction summary."""

    type: str
    id: str
    text: str = ""
    at: float = 0.0


class ContentRecord(_Record, tag="content"):
    """One content item appended: a tool call's `item` (format 1: `text`), or a message's non-text block as `text`."""

    type: str
    id: str
    text: str | UnsetType = UNSET
    item: ToolItem | UnsetType = UNSET
    at: float = 0.0


class OutputRecord(_Record, tag="output"):
    """Terminal output, decoded to plain text (colours and controls gone)."""

    type: str
    id: str
    text: str = ""
    at: float = 0.0


class ReplacedRecord(_Record, tag="replaced"):
    """The entity's whole content was replaced: a tool call's `content` (format 1: `text`), else `text`."""

    type: str
    id: str
    text: str | UnsetType = UNSET
    content: list[ToolItem] | UnsetType = UNSET
    at: float = 0.0


class ChangedRecord(_Record, tag="changed"):
    """Fields of an entity changed; `fields` holds the new values."""

    type: str
    id: str
    fields: EntityFields = msgspec.field(default_factory=EntityFields)
    at: float = 0.0


class RemovedRecord(_Record, tag="removed"):
    """The entity left the timeline (a removed plan)."""

    type: str
    id: str
    at: float = 0.0


class FileRecord(_Record, tag="file"):
    """A file access that belongs to the tool call `type`/`id` (docs/protocol.md §10.2)."""

    type: str
    id: str
    access: FileAccessValue
    at: float = 0.0


class StateRecord(_Record, tag="state"):
    """The foreground state changed (docs/protocol.md §9.1)."""

    state: str = "unknown"
    busy: bool = False
    stop_reason: str | None = None
    error: ErrorValue | None = None
    at: float = 0.0


class TurnEndRecord(_Record, tag="turn_end"):
    """A turn ended, after all its output (docs/protocol.md §9.2); `cancel_requested`: the user cancelled it."""

    turn: int = 0
    stop_reason: str | None = None
    error: ErrorValue | None = None
    cancel_requested: bool = False
    at: float = 0.0


class NoticeRecord(_Record, tag="notice"):
    """A live notice (docs/protocol.md §5.4): shown once, never history (`live` says so)."""

    live: bool = True
    severity: str = ""
    title: str = ""
    description: str | None = None
    at: float = 0.0


class UsageRecord(_Record, tag="usage"):
    used: int = 0
    size: int = 0
    cost: CostValue | None = None
    at: float = 0.0


class InfoRecord(_Record, tag="info"):
    fields: InfoFields = msgspec.field(default_factory=InfoFields)
    at: float = 0.0


class CommandsRecord(_Record, tag="commands"):
    """The slash commands now available (names only)."""

    names: list[str] = msgspec.field(default_factory=list)
    at: float = 0.0


class ConfigRecord(_Record, tag="config"):
    """Each config option's current value, by option id."""

    options: dict[str, Any] = msgspec.field(default_factory=dict)
    at: float = 0.0


class PermissionsRecord(_Record, tag="permissions"):
    """What changed among the permission requests (format 3): those `opened`, those `resolved` with their
    outcome, those `dropped` unanswered (the agent went away). Format 2 restated every open id (`open`) on
    each change, so a flood of requests wrote its square; that field is still read."""

    opened: list[int | str] | UnsetType = UNSET
    resolved: list[tuple[int | str, str]] | UnsetType = UNSET
    dropped: list[int | str] | UnsetType = UNSET
    open: list[int | str] | UnsetType = UNSET
    at: float = 0.0


class SubmissionRecord(_Record, tag="submission"):
    """A prompt's submission changed; "settled" (only `request_id` and `status`) when it left the table."""

    request_id: int | str
    status: str = "settled"
    text: str | UnsetType = UNSET
    error: ErrorValue | None | UnsetType = UNSET
    at: float = 0.0


class ProblemRecord(_Record, tag="problem"):
    """A protocol problem (malformed data from the agent)."""

    reason: str = ""
    detail: str = ""
    at: float = 0.0


class ExitRecord(_Record, tag="exit"):
    """The agent process ended (`detail`: how)."""

    detail: str = ""
    at: float = 0.0


Record: TypeAlias = (
    OpenRecord
    | NoteRecord
    | AddedRecord
    | TextRecord
    | ContentRecord
    | OutputRecord
    | ReplacedRecord
    | ChangedRecord
    | RemovedRecord
    | FileRecord
    | StateRecord
    | TurnEndRecord
    | NoticeRecord
    | UsageRecord
    | InfoRecord
    | CommandsRecord
    | ConfigRecord
    | PermissionsRecord
    | SubmissionRecord
    | ProblemRecord
    | ExitRecord
)
#: The records that name a timeline entity.
EntityRecord: TypeAlias = (
    AddedRecord
    | TextRecord
    | ContentRecord
    | OutputRecord
    | ReplacedRecord
    | ChangedRecord
    | RemovedRecord
    | FileRecord
)
