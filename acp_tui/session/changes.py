"""What `reducer.apply` reports: one small immutable record per thing that changed.

The UI renders the model by listening to these alone. Every entity change names its `EntityKey`, so the
UI touches exactly one widget; the new values are read from `state.entities[key]` (the change says
*what* changed, the model holds *the value*), except for appends, which carry the appended piece so a
streaming widget never re-reads the whole text.

Rendering guide:
- `EntityAdded(key, index)`: mount a widget for `state.entities[key]` at timeline position `index`
  (always the end: positions are first-seen order and never move), rendered from the model as it is
  now. No other change for that key follows in the same `apply` result. A UI that coalesces several
  `apply` results into one frame must, for a key added in that batch, skip that key's later changes in
  the batch (the model already contains them).
- `TextAppended(key, text)`: append `text` to the message / thought / compaction summary stream.
- `ContentAppended(key, item)`: append one non-text content block (messages, compaction summaries) or
  one `ToolCallContent` item (tool calls).
- `BytesAppended(key, data)`: feed raw terminal bytes to that terminal's incremental decoder.
- `ContentReplaced(key)`: re-render the content (message/thought blocks, compaction summary, tool-call
  content, terminal output) from the model; for a terminal, reset the decoder first.
- `EntityChanged(key, fields)`: re-render only the named fields (attribute names on the entity).
- `EntityRemoved(key)`: unmount that widget (rare: the unstable `plan_removed`).
- `TurnEnded(...)`: foreground work ended. Write the end-of-turn line (failed, cancelled, refused, ...)
  here, in change order: it then follows that turn's user message and output. Never derive it from
  `state.foreground` when some other event arrives: the model may be ahead of what is drawn.
- The rest concern state beside the timeline; each names what to re-read.

The records are frozen msgspec Structs rather than dataclasses only for speed: one is made per streamed
chunk, and a frozen dataclass costs several times more to construct. They never go on the wire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import msgspec

from acp_tui.session.model import EntityKey

if TYPE_CHECKING:
    from acp_tui.protocol.common import ErrorObject
    from acp_tui.protocol.v2 import Notice


class _Change(msgspec.Struct, frozen=True, gc=False):
    """Base of every change record: immutable, slotted, compared by value."""


class EntityAdded(_Change, frozen=True):
    """A new timeline entity appeared at `index` (its permanent, first-seen position)."""

    key: EntityKey
    index: int


class EntityRemoved(_Change, frozen=True):
    """The entity left the timeline (only the unstable `plan_removed` does this): unmount its widget."""

    key: EntityKey


class TextAppended(_Change, frozen=True):
    """`text` was appended to the entity's text (a message/thought, or a compaction's summary)."""

    key: EntityKey
    text: str


class ContentAppended(_Change, frozen=True):
    """One content item was appended: a non-text `ContentBlock`, or a tool call's `ToolCallContent`."""

    key: EntityKey
    item: Any


class BytesAppended(_Change, frozen=True):
    """Raw output bytes were appended to a terminal (already base64-decoded)."""

    key: EntityKey
    data: bytes


class ContentReplaced(_Change, frozen=True):
    """The entity's whole content (or terminal output, or compaction summary) was replaced or cleared."""

    key: EntityKey


class EntityChanged(_Change, frozen=True):
    """Scalar fields of the entity changed; `fields` are its attribute names (e.g. "status", "title")."""

    key: EntityKey
    fields: frozenset[str]


class StateChanged(_Change, frozen=True):
    """The foreground state (`state.foreground`) changed: state, stop reason, error or background."""

    state: str
    busy: bool


class TurnEnded(_Change, frozen=True):
    """Foreground work ended (busy, then idle): reported once, after every change of that turn.

    `turn` is `state.turn` of the work that ended; `stop_reason` and `error` as the idle reported them
    (docs/protocol.md §9.2). `cancel_requested`: the user cancelled this turn (docs/protocol.md §9.3),
    whatever stop reason the agent then gave, so prompts queued behind it should wait for the user.
    An agent exit ends work without a `TurnEnded` (`AgentGone` says how it ended).
    """

    turn: int
    stop_reason: str | None
    error: ErrorObject | None = None
    cancel_requested: bool = False


class UsageChanged(_Change, frozen=True):
    """`state.usage` was replaced."""


class AccountChanged(_Change, frozen=True):
    """`state.account` changed: the signed-in account or a plan window (session/account.py)."""


class NoticeRaised(_Change, frozen=True):
    """A live notice arrived: show it once (toast). It is not history."""

    notice: Notice


class CommandsChanged(_Change, frozen=True):
    """`state.commands` (the available slash commands) was replaced."""


class ConfigChanged(_Change, frozen=True):
    """`state.config_options` was replaced."""


class InfoChanged(_Change, frozen=True):
    """`state.info` fields changed (names as in `SessionInfo`)."""

    fields: frozenset[str]


class PermissionsChanged(_Change, frozen=True):
    """Permission requests were opened or closed; `state.permissions` holds the ones still open.

    It says what changed, never what is open (a flood of requests then costs its length, not its square,
    wherever the change is written): `opened` the request ids that arrived, `resolved` each id resolved
    by this step with its outcome ("cancelled" or an option id), `dropped` the ids closed unanswered
    because the agent went away.
    """

    opened: tuple[int | str, ...] = ()
    resolved: tuple[tuple[int | str, str], ...] = ()
    dropped: tuple[int | str, ...] = ()


class SubmissionChanged(_Change, frozen=True):
    """The submission with this request id changed (added, failed, or left `state.submissions`)."""

    request_id: int | str


class ProblemAdded(_Change, frozen=True):
    """A protocol problem was recorded (`state.problems[-1]`)."""

    reason: str
    detail: str


class AgentGone(_Change, frozen=True):
    """The agent process ended: nothing it started will finish (`detail` says how it ended)."""

    detail: str


Change: TypeAlias = (
    EntityAdded
    | EntityRemoved
    | TextAppended
    | ContentAppended
    | BytesAppended
    | ContentReplaced
    | EntityChanged
    | StateChanged
    | TurnEnded
    | UsageChanged
    | AccountChanged
    | NoticeRaised
    | CommandsChanged
    | ConfigChanged
    | InfoChanged
    | PermissionsChanged
    | SubmissionChanged
    | ProblemAdded
    | AgentGone
)

__all__ = [
    "EntityAdded",
    "EntityRemoved",
    "TextAppended",
    "ContentAppended",
    "BytesAppended",
    "ContentReplaced",
    "EntityChanged",
    "StateChanged",
    "TurnEnded",
    "UsageChanged",
    "AccountChanged",
    "NoticeRaised",
    "CommandsChanged",
    "ConfigChanged",
    "InfoChanged",
    "PermissionsChanged",
    "SubmissionChanged",
    "ProblemAdded",
    "AgentGone",
    "Change",
]
