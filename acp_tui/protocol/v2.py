"""ACP v2 wire types (the v2 JSON schema and the "Prompt Lifecycle" page; see docs/protocol.md).

Every type is a msgspec Struct: camelCase on the wire, `_meta` kept as `meta`, open enums (status,
kind, severity, stop reason, ...) plain `str` so values from newer agents survive. Patch fields are
`Patch[X] = UNSET`: omitted = unchanged, `null` = clear, value = replace (docs/protocol.md §5.1).

Tagged unions (`type`, `sessionUpdate`) raise in msgspec on an unknown tag, so each union also holds
an `Unknown*` member with a tag no agent sends; `acp_tui.protocol.codec` substitutes it for any
unknown variant, keeping the raw payload. Only the codec builds those members.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import ErrorObject, Meta, Patch, WireStruct

#: The tag of the `Unknown*` members: never sent by an agent, set only by the codec.
UNKNOWN_TAG = "\x00unknown"


def _meta() -> Any:
    """The `_meta` field of a Struct: kept as decoded, omitted when absent."""
    return msgspec.field(default=UNSET, name="_meta")


# --- Content blocks (schema `ContentBlock`) ------------------------------------------------------


class Annotations(WireStruct):
    """Display hints on a content block (schema `Annotations`)."""

    audience: Patch[list[str]] = UNSET
    last_modified: Patch[str] = UNSET
    priority: Patch[float] = UNSET
    meta: Patch[Meta] = _meta()


class TextContent(WireStruct, tag_field="type", tag="text"):
    """Plain or markdown text (schema `TextContent`)."""

    text: str
    annotations: Patch[Annotations] = UNSET
    meta: Patch[Meta] = _meta()


class ImageContent(WireStruct, tag_field="type", tag="image"):
    """A base64 image (schema `ImageContent`)."""

    data: str
    mime_type: str
    uri: Patch[str] = UNSET
    annotations: Patch[Annotations] = UNSET
    meta: Patch[Meta] = _meta()


class AudioContent(WireStruct, tag_field="type", tag="audio"):
    """Base64 audio (schema `AudioContent`)."""

    data: str
    mime_type: str
    annotations: Patch[Annotations] = UNSET
    meta: Patch[Meta] = _meta()


class ResourceLink(WireStruct, tag_field="type", tag="resource_link"):
    """A reference to a resource the agent can read (schema `ResourceLink`)."""

    uri: str
    name: str
    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    mime_type: Patch[str] = UNSET
    size: Patch[int] = UNSET
    icons: Patch[list[Any]] = UNSET
    annotations: Patch[Annotations] = UNSET
    meta: Patch[Meta] = _meta()


class TextResourceContents(WireStruct):
    """Text contents of an embedded resource (schema `TextResourceContents`)."""

    uri: str
    text: str
    mime_type: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class BlobResourceContents(WireStruct):
    """Base64 contents of an embedded resource (schema `BlobResourceContents`)."""

    uri: str
    blob: str
    mime_type: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class EmbeddedResource(WireStruct, tag_field="type", tag="resource"):
    """A resource sent inline (schema `EmbeddedResource`).

    `resource` is a `TextResourceContents` or a `BlobResourceContents`; both are untagged, so it
    is decoded as a dict and told apart by the `blob` key in `__post_init__`.
    """

    resource: Any
    annotations: Patch[Annotations] = UNSET
    meta: Patch[Meta] = _meta()

    def __post_init__(self) -> None:
        if isinstance(self.resource, dict):
            target: Any = BlobResourceContents if "blob" in self.resource else TextResourceContents
            self.resource = msgspec.convert(self.resource, target)
        elif not isinstance(self.resource, (TextResourceContents, BlobResourceContents)):
            raise ValueError("resource must be an object")


class UnknownContent(WireStruct, tag_field="type", tag=UNKNOWN_TAG):
    """A content block whose `type` this client does not know; `raw` is the payload as received."""

    type: str = msgspec.field(name="unknownType")
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


ContentBlock = Union[TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource, UnknownContent]


# --- Tool calls (schema `ToolCallUpdate`, `ToolCallContent`) -------------------------------------


class ToolContent(WireStruct, tag_field="type", tag="content"):
    """A content block shown inside a tool call (schema `Content`)."""

    content: ContentBlock
    meta: Patch[Meta] = _meta()


class DiffChange(WireStruct):
    """One file changed by a diff (schema `DiffChange`); `old_path` only for move/copy."""

    operation: str
    path: str
    old_path: Patch[str] = UNSET
    file_type: Patch[str] = UNSET
    mime_type: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class DiffPatch(WireStruct):
    """The patch text of a diff, e.g. format `unified` (schema `DiffPatch`)."""

    format: str
    text: str
    meta: Patch[Meta] = _meta()


class Diff(WireStruct, tag_field="type", tag="diff"):
    """File changes made by a tool call (schema `Diff`)."""

    changes: list[DiffChange]
    patch: Patch[DiffPatch] = UNSET
    meta: Patch[Meta] = _meta()


class TerminalRef(WireStruct, tag_field="type", tag="terminal"):
    """A terminal embedded in a tool call (schema `Terminal`)."""

    terminal_id: str
    meta: Patch[Meta] = _meta()


class UnknownToolContent(WireStruct, tag_field="type", tag=UNKNOWN_TAG):
    """Tool-call content whose `type` this client does not know; `raw` is the payload as received."""

    type: str = msgspec.field(name="unknownType")
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


ToolCallContent = Union[ToolContent, Diff, TerminalRef, UnknownToolContent]


class ToolCallLocation(WireStruct):
    """A file (and line) a tool call touches, for follow-along (schema `ToolCallLocation`)."""

    path: str
    line: Patch[int] = UNSET
    meta: Patch[Meta] = _meta()


class ToolCallCapabilities(WireStruct):
    """What the client may do with a tool call, e.g. `cancel` (schema `ToolCallCapabilities`)."""

    cancel: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


# --- Plans, commands, config options -------------------------------------------------------------


class PlanEntry(WireStruct):
    """One step of a plan (schema `PlanEntry`)."""

    content: str
    priority: str
    status: str
    meta: Patch[Meta] = _meta()


class PlanItems(WireStruct, tag_field="type", tag="items"):
    """A plan given as a full list of entries, replacing the previous one (schema `PlanItems`)."""

    plan_id: str
    entries: list[PlanEntry]
    meta: Patch[Meta] = _meta()


class UnknownPlan(WireStruct, tag_field="type", tag=UNKNOWN_TAG):
    """Plan content of a `type` this client does not know; `raw` is the payload as received."""

    type: str = msgspec.field(name="unknownType")
    plan_id: str = ""
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


PlanContent = Union[PlanItems, UnknownPlan]


class AvailableCommand(WireStruct):
    """A slash command the agent offers (schema `AvailableCommand`); `type` is `command` today.

    Not a tagged union: an unknown `type` still has `name` and `description`, so it stays usable.
    `input` is kept raw (`{"type": "text", "hint": ...}` today).
    """

    name: str
    description: str
    type: Patch[str] = UNSET
    input: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


class SessionConfigSelectOption(WireStruct):
    """One value of a select config option (schema `SessionConfigSelectOption`)."""

    value: str
    name: str
    description: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class SessionConfigSelectGroup(WireStruct):
    """A named group of select values (schema `SessionConfigSelectGroup`).

    The group's key is `group_id`: v2 sends `groupId`, v1 sends `group`; both are accepted.
    """

    name: str
    options: list[SessionConfigSelectOption]
    group_id: str = ""
    group: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()

    def __post_init__(self) -> None:
        if not self.group_id:
            if isinstance(self.group, str) and self.group:
                self.group_id = self.group
            else:
                raise ValueError("config option group needs `groupId` (v2) or `group` (v1)")


#: Keys that mark an item of a select's `options` as a group rather than a plain value.
GROUP_KEYS = frozenset({"groupId", "group", "options"})


def _fill_config_id(option: Any) -> None:
    """Accept the v1 key `id` (also sent by some v2 agents) where v2 says `configId`."""
    if not option.config_id:
        if isinstance(option.id, str) and option.id:
            option.config_id = option.id
        else:
            raise ValueError("config option needs `configId` (v2) or `id` (v1)")


class SessionConfigSelect(WireStruct, tag_field="type", tag="select"):
    """A select config option (schema `SessionConfigOption` + `SessionConfigSelect`), v1 and v2.

    The option's key is `config_id`: v2 sends `configId`, v1 sends `id`; both are accepted.

    `options` is flat (`list[SessionConfigSelectOption]`) or grouped
    (`list[SessionConfigSelectGroup]`); both are untagged arrays, so they are told apart after
    decoding by the first item's keys: a group has `groupId` (v2), `group` (v1) or nested
    `options` (see `__post_init__`).
    """

    name: str
    current_value: str
    options: list[Any]
    config_id: str = ""
    id: Patch[str] = UNSET
    description: Patch[str] = UNSET
    category: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()

    def __post_init__(self) -> None:
        _fill_config_id(self)
        if self.options and isinstance(self.options[0], dict):
            target: Any = (
                list[SessionConfigSelectGroup]
                if not GROUP_KEYS.isdisjoint(self.options[0])
                else list[SessionConfigSelectOption]
            )
            self.options = msgspec.convert(self.options, target)

    @property
    def grouped(self) -> bool:
        """True when `options` holds groups rather than plain values."""
        return bool(self.options) and isinstance(self.options[0], SessionConfigSelectGroup)

    def all_options(self) -> list[SessionConfigSelectOption]:
        """Every selectable value, groups flattened in order."""
        if self.grouped:
            return [opt for group in self.options for opt in group.options]
        return list(self.options)


class SessionConfigBoolean(WireStruct, tag_field="type", tag="boolean"):
    """An on/off config option (schema `SessionConfigOption` + `SessionConfigBoolean`)."""

    name: str
    current_value: bool
    config_id: str = ""
    id: Patch[str] = UNSET
    description: Patch[str] = UNSET
    category: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()

    def __post_init__(self) -> None:
        _fill_config_id(self)


class UnknownConfigOption(WireStruct, tag_field="type", tag=UNKNOWN_TAG):
    """A config option of a `type` this client does not know; `raw` is the payload as received."""

    type: str = msgspec.field(name="unknownType")
    config_id: str = ""
    name: str = ""
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


SessionConfigOption = Union[SessionConfigSelect, SessionConfigBoolean, UnknownConfigOption]


# --- Terminals, usage, background work -----------------------------------------------------------


class TerminalOutput(WireStruct):
    """The full (base64) output of an agent-owned terminal so far (schema `TerminalOutput`)."""

    data: str
    meta: Patch[Meta] = _meta()


class TerminalExitStatus(WireStruct):
    """How a terminal's command ended (schema `TerminalExitStatus`)."""

    exit_code: Patch[int] = UNSET
    signal: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class TerminalSize(WireStruct):
    """A terminal's size in cells (schema `TerminalSize`)."""

    cols: int
    rows: int
    meta: Patch[Meta] = _meta()


class Cost(WireStruct):
    """Cumulative cost of the session (schema `Cost`)."""

    amount: float
    currency: str
    meta: Patch[Meta] = _meta()


class BackgroundWork(WireStruct):
    """Work still running while the session is idle (schema `BackgroundWork`).

    `type` is `terminal` (with `terminal_id`), `tool_call` (with `tool_call_id`) or the unstable
    `subagent` (with `session_id`); kept as one open Struct so unknown kinds survive.
    """

    type: str
    terminal_id: Patch[str] = UNSET
    tool_call_id: Patch[str] = UNSET
    session_id: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class UnsupportedProtocolVersionErrorData(WireStruct):
    """The `data` of a `-32022` answer to `initialize`: what was asked, what the agent speaks
    (schema `UnsupportedProtocolVersionErrorData`)."""

    requested: int
    supported: list[int]


# --- Session updates (schema `SessionUpdate`, tag `sessionUpdate`) -------------------------------


class UserMessageChunk(WireStruct, tag_field="sessionUpdate", tag="user_message_chunk"):
    """Appends a block to the user message `message_id` (schema `ContentChunk`)."""

    message_id: str
    content: ContentBlock
    meta: Patch[Meta] = _meta()


class AgentMessageChunk(WireStruct, tag_field="sessionUpdate", tag="agent_message_chunk"):
    """Appends a block to the agent message `message_id` (schema `ContentChunk`)."""

    message_id: str
    content: ContentBlock
    meta: Patch[Meta] = _meta()


class AgentThoughtChunk(WireStruct, tag_field="sessionUpdate", tag="agent_thought_chunk"):
    """Appends a block to the agent thought `message_id` (schema `ContentChunk`)."""

    message_id: str
    content: ContentBlock
    meta: Patch[Meta] = _meta()


class UserMessage(WireStruct, tag_field="sessionUpdate", tag="user_message"):
    """Creates or patches the user message `message_id` (schema `UserMessage`)."""

    message_id: str
    content: Patch[list[ContentBlock]] = UNSET
    meta: Patch[Meta] = _meta()


class AgentMessage(WireStruct, tag_field="sessionUpdate", tag="agent_message"):
    """Creates or patches the agent message `message_id` (schema `AgentMessage`)."""

    message_id: str
    content: Patch[list[ContentBlock]] = UNSET
    meta: Patch[Meta] = _meta()


class AgentThought(WireStruct, tag_field="sessionUpdate", tag="agent_thought"):
    """Creates or patches the agent thought `message_id` (schema `AgentThought`)."""

    message_id: str
    content: Patch[list[ContentBlock]] = UNSET
    meta: Patch[Meta] = _meta()


class StateUpdate(WireStruct, tag_field="sessionUpdate", tag="state_update"):
    """The foreground state: `running`, `requires_action`, `idle` or newer (schema `StateUpdate`).

    `stop_reason` and `error` come with `idle` only; an idle after `session/resume` may have none.
    """

    state: str
    stop_reason: Patch[str] = UNSET
    error: Patch[ErrorObject] = UNSET
    background: Patch[list[BackgroundWork]] = UNSET
    meta: Patch[Meta] = _meta()


class ToolCallUpdate(WireStruct, tag_field="sessionUpdate", tag="tool_call_update"):
    """Creates or patches the tool call `tool_call_id` (schema `ToolCallUpdate`)."""

    tool_call_id: str
    title: Patch[str] = UNSET
    kind: Patch[str] = UNSET
    status: Patch[str] = UNSET
    content: Patch[list[ToolCallContent]] = UNSET
    locations: Patch[list[ToolCallLocation]] = UNSET
    raw_input: Patch[Any] = UNSET
    raw_output: Patch[Any] = UNSET
    name: Patch[str] = UNSET
    capabilities: Patch[ToolCallCapabilities] = UNSET
    meta: Patch[Meta] = _meta()


class ToolCallContentChunk(WireStruct, tag_field="sessionUpdate", tag="tool_call_content_chunk"):
    """Appends one content item to the tool call `tool_call_id` (schema `ToolCallContentChunk`)."""

    tool_call_id: str
    content: ToolCallContent
    meta: Patch[Meta] = _meta()


class TerminalUpdate(WireStruct, tag_field="sessionUpdate", tag="terminal_update"):
    """Creates or patches the agent-owned terminal `terminal_id` (schema `TerminalUpdate`)."""

    terminal_id: str
    command: Patch[str] = UNSET
    cwd: Patch[str] = UNSET
    output: Patch[TerminalOutput] = UNSET
    exit_status: Patch[TerminalExitStatus] = UNSET
    size: Patch[TerminalSize] = UNSET
    capabilities: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


class TerminalOutputChunk(WireStruct, tag_field="sessionUpdate", tag="terminal_output_chunk"):
    """Appends base64 output bytes to the terminal `terminal_id` (schema `TerminalOutputChunk`)."""

    terminal_id: str
    data: str
    meta: Patch[Meta] = _meta()


class PlanUpdate(WireStruct, tag_field="sessionUpdate", tag="plan_update"):
    """Creates or replaces the content of a plan (schema `PlanUpdate`)."""

    plan: PlanContent
    meta: Patch[Meta] = _meta()


class AvailableCommandsUpdate(WireStruct, tag_field="sessionUpdate", tag="available_commands_update"):
    """The full set of slash commands, replacing the previous one (schema `AvailableCommandsUpdate`)."""

    available_commands: list[AvailableCommand]
    meta: Patch[Meta] = _meta()


class ConfigOptionUpdate(WireStruct, tag_field="sessionUpdate", tag="config_option_update"):
    """The full set of config options, replacing the previous one (schema `ConfigOptionUpdate`)."""

    config_options: list[SessionConfigOption]
    meta: Patch[Meta] = _meta()


class SessionInfoUpdate(WireStruct, tag_field="sessionUpdate", tag="session_info_update"):
    """Patches the session's title and update time (schema `SessionInfoUpdate`)."""

    title: Patch[str] = UNSET
    updated_at: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class UsageUpdate(WireStruct, tag_field="sessionUpdate", tag="usage_update"):
    """Context window use (`used` of `size` tokens) and cumulative cost (schema `UsageUpdate`)."""

    used: int
    size: int
    cost: Patch[Cost] = UNSET
    meta: Patch[Meta] = _meta()


class Notice(WireStruct, tag_field="sessionUpdate", tag="notice"):
    """A live, user-facing notice that is not part of history (schema `Notice`)."""

    severity: str
    title: str
    description: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class CompactionUpdate(WireStruct, tag_field="sessionUpdate", tag="compaction_update"):
    """Creates or patches a context compaction (schema `CompactionUpdate`)."""

    compaction_id: str
    status: str
    summary: Patch[list[ContentBlock]] = UNSET
    error: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class CompactionSummaryChunk(WireStruct, tag_field="sessionUpdate", tag="compaction_summary_chunk"):
    """Appends a block to a compaction's retained summary (schema `CompactionSummaryChunk`)."""

    compaction_id: str
    content: ContentBlock
    meta: Patch[Meta] = _meta()


class SubagentState(WireStruct):
    """A child's foreground state as its parent mirrors it (schema `StateUpdate` inside `SubagentUpdate`)."""

    state: str
    stop_reason: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class SubagentUpdate(WireStruct, tag_field="sessionUpdate", tag="subagent_update"):
    """The parent session created (first update) or relabels a child session (unstable v2 `SubagentUpdate`).

    Patch semantics: an omitted field is unchanged, `null` clears it (docs/protocol.md §10.6).
    """

    session_id: str
    title: Patch[str | None] = UNSET
    description: Patch[str | None] = UNSET
    capabilities: Patch[dict[str, Any] | None] = UNSET
    state: Patch[SubagentState | None] = UNSET
    cwd: Patch[str | None] = UNSET
    meta: Patch[Meta] = _meta()


class SessionMessage(WireStruct, tag_field="sessionUpdate", tag="session_message"):
    """A message between two sessions, e.g. a parent's task for its child (unstable v2 `SessionMessage`)."""

    message_id: str
    sender_session_id: Patch[str] = UNSET
    recipient_session_id: Patch[str] = UNSET
    content: Patch[list[ContentBlock]] = UNSET
    meta: Patch[Meta] = _meta()


class UnknownUpdate(WireStruct):
    """A `sessionUpdate` this client does not know: shown generically, never dropped (docs/protocol.md §5.1)."""

    kind: str
    raw: dict[str, Any]


#: Every v2 update the codec decodes (all tagged members; `UnknownUpdate` is added by the codec).
KnownSessionUpdate = Union[
    UserMessageChunk,
    AgentMessageChunk,
    AgentThoughtChunk,
    UserMessage,
    AgentMessage,
    AgentThought,
    StateUpdate,
    ToolCallUpdate,
    ToolCallContentChunk,
    TerminalUpdate,
    TerminalOutputChunk,
    PlanUpdate,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    SessionInfoUpdate,
    UsageUpdate,
    Notice,
    CompactionUpdate,
    CompactionSummaryChunk,
    SubagentUpdate,
    SessionMessage,
]

SessionUpdate = Union[KnownSessionUpdate, UnknownUpdate]
