"""Local events: things the client itself did or saw that change the session model but are not updates.

The agent layer feeds these to `reducer.apply` next to decoded `session/update`s, so every state rule
still lives in the reducer. They never go on the wire.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from msgspec import Struct

# Imported, not only named for the type checker: a Struct's signature resolves its fields' types
# (`inspect.signature`, hypothesis' `builds`).
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import ContentBlock, Diff, ToolCallUpdate
from acp_tui.session.account import Account, TurnTokens


class PromptSubmitted(Struct, frozen=True):
    """The client sent `session/prompt` with JSON-RPC id `request_id`: show a pending bubble."""

    request_id: int | str
    blocks: list[ContentBlock]


class PromptAccepted(Struct, frozen=True):
    """The prompt response arrived: the submission was inserted as user message `message_id` (docs/protocol.md §4.1)."""

    request_id: int | str
    message_id: str


class PromptRejected(Struct, frozen=True):
    """The prompt got an error response: never inserted. `cancelled` for -32800 ("not sent")."""

    request_id: int | str
    error: ErrorObject | None
    cancelled: bool = False


class CancelRequested(Struct, frozen=True):
    """The client sent `session/cancel`: pending permissions resolve `cancelled`, tool calls show cancelling."""


class PermissionRequested(Struct, frozen=True):
    """`session/request_permission` arrived (`request` is its decoded params).

    A v2 request whose `subject` is a tool call also patches that tool call; for v1, pass the request to
    `V1Adapter.permission_requested`, which does the same with its `toolCall`.
    """

    request_id: int | str
    request: Any


class PermissionResolved(Struct, frozen=True):
    """The user (or a policy) answered a permission request: `outcome` is an option id or "cancelled"."""

    request_id: int | str
    outcome: str


class ProtocolProblem(Struct, frozen=True):
    """Something the agent sent could not be used (e.g. a malformed update); recorded, never raised."""

    reason: str
    detail: str = ""


class AgentExited(Struct, frozen=True):
    """The agent process went away: foreground work is over, nothing pending can be answered."""

    returncode: int | None = None
    reason: str = ""


#: How a file access ended: done, refused by policy or the user, failed (an error), or cancelled.
FileAccessStatus: TypeAlias = Literal["done", "refused", "failed", "cancelled"]


class FileAccessed(Struct, frozen=True):
    """The client read or wrote a file for the agent (v1 `fs/*`, docs/protocol.md §10.2), or did not.

    Every access is shown, so the user always sees what the agent touched: the reducer lists it in the
    tool call it belongs to (named by the agent, or the only unfinished call of the turn whose locations
    name the file), else as a line of its own in the timeline.
    """

    kind: Literal["read", "write"]
    #: absolute, symlinks and `..` resolved (what was or would have been touched)
    path: str
    #: the session's working directory, for showing `path` relative to it
    cwd: str
    status: FileAccessStatus = "done"
    #: why it failed or was refused, or a note ("new file", "does not exist: read as empty")
    detail: str = ""
    #: the path as the agent sent it
    requested_path: str = ""
    #: read: the first line returned when a range was asked (1-based), and how many lines came back
    first_line: int | None = None
    line_count: int | None = None
    #: write: the file did not exist; the change as a diff (`None` when there is none to show: binary or
    #: too large), and how many lines it adds and removes
    created: bool = False
    diff: Diff | None = None
    added: int = 0
    removed: int = 0
    #: the tool call the agent named in the request's `_meta`, if any
    tool_call_id: str | None = None
    #: `path` is outside the session's folder (shown with a warning: the `outside_reads` setting)
    outside: bool = False


class PromptResent(Struct, frozen=True):
    """The prompt sent with `request_id` repeats user message `of`: the client sent it again after a login
    (docs/protocol.md §2.4). The agent inserts it as a message of its own; the conversation shows the words once."""

    request_id: int | str
    of: str


class SubmissionDismissed(Struct, frozen=True):
    """The user dismissed a failed/cancelled submission bubble: drop it from `state.submissions`."""

    request_id: int | str


class ToolCallCreated(Struct, frozen=True):
    """A v1 `tool_call`: a creation, not a patch (`update` is its v2 upsert form, from the `V1Adapter`).

    v2 has only upserts, so this is the one place the model learns that the agent meant a new tool call:
    an id that named a card in an earlier turn then starts a new card (docs/protocol.md §6.1).
    """

    update: ToolCallUpdate


class TerminalCancelRequested(Struct, frozen=True):
    """The user asked to stop terminal `terminal_id` (v2 `terminal/cancel`, or a command the client runs):
    it shows "stopping…" until its exit status arrives (docs/protocol.md §6.4)."""

    terminal_id: str


class TerminalCancelFailed(Struct, frozen=True):
    """The stop request was refused or could not be sent: the terminal no longer shows "stopping…"."""

    terminal_id: str


class ToolCallCancelRequested(Struct, frozen=True):
    """The user asked to stop tool call `tool_call_id` (v2 `tool_call/cancel`, from its card or the jobs
    tray): it shows "stopping…" until the agent reports its final status, and is not asked again."""

    tool_call_id: str


class ToolCallCancelFailed(Struct, frozen=True):
    """`tool_call/cancel` was refused or could not be sent: the tool call no longer shows "stopping…"."""

    tool_call_id: str


class TerminalTimed(Struct, frozen=True):
    """When a command the client runs started and ended (monotonic-clock seconds; `None` = unchanged),
    so its card can show the elapsed time (docs/protocol.md §10.2)."""

    terminal_id: str
    started_at: float | None = None
    ended_at: float | None = None


class ChildUpdate(Struct, frozen=True):
    """`item` (an update, or a local event such as a permission request) arrived for the child session
    `session_id`, not the session itself: the reducer routes it to that subagent (session/subagents.py)."""

    session_id: str
    item: Any


class PromptSteered(Struct, frozen=True):
    """The agent took a prompt steered into its work (`_session/steering`): show it as user message
    `message_id`. `injected`: inside the running turn (marked steered); else it started a new turn."""

    message_id: str
    blocks: list[ContentBlock]
    injected: bool


class AccountReported(Struct, frozen=True):
    """The agent said which account it acts as (`_auth/status_update`); `account` None when its shape could
    not be read (`detail`: what came, cut), which is said once."""

    account: Account | None
    detail: str = ""
    #: what it came in: `_auth/status_update`, or v2's `auth/status` answer or `auth/status_update`
    method: str = "_auth/status_update"


class TurnTokensReported(Struct, frozen=True):
    """The turn's result carried codex-acp's `_meta.quota` (session/account.py); `tokens` None when its
    shape could not be read (`detail`: what came, cut), which is said once."""

    tokens: TurnTokens | None
    detail: str = ""


LocalEvent: TypeAlias = (
    PromptSubmitted
    | PromptAccepted
    | PromptRejected
    | PromptResent
    | CancelRequested
    | PermissionRequested
    | PermissionResolved
    | ProtocolProblem
    | AgentExited
    | SubmissionDismissed
    | ToolCallCreated
    | FileAccessed
    | TerminalCancelRequested
    | TerminalCancelFailed
    | TerminalTimed
    | ChildUpdate
    | PromptSteered
    | AccountReported
    | TurnTokensReported
    | ToolCallCancelRequested
    | ToolCallCancelFailed
)

__all__ = [
    "ChildUpdate",
    "PromptSubmitted",
    "PromptAccepted",
    "PromptRejected",
    "PromptResent",
    "CancelRequested",
    "PermissionRequested",
    "PermissionResolved",
    "ProtocolProblem",
    "AgentExited",
    "SubmissionDismissed",
    "ToolCallCreated",
    "FileAccessed",
    "FileAccessStatus",
    "LocalEvent",
    "TerminalCancelRequested",
    "TerminalCancelFailed",
    "TerminalTimed",
    "PromptSteered",
    "AccountReported",
    "TurnTokensReported",
    "ToolCallCancelRequested",
    "ToolCallCancelFailed",
]
