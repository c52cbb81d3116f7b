"""ACP v1 wire types where the shape differs from v2 (the v1 JSON schema; see docs/protocol.md).

Content blocks, usage, session info, notices, plan_update and compactions have the same shape in
both versions and reuse the v2 Structs. In v1 a tool-call patch treats `null` like an omitted field
(both leave the value unchanged); the v1 adapter in `acp_tui.session` applies that rule, these types
only keep what was sent.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import Meta, Patch, WireStruct
from acp_tui.protocol.v2 import (
    UNKNOWN_TAG,
    AvailableCommand,
    CompactionSummaryChunk,
    CompactionUpdate,
    ConfigOptionUpdate,
    ContentBlock,
    Notice,
    PlanEntry,
    PlanUpdate,
    SessionInfoUpdate,
    SessionMessage,
    SubagentUpdate,
    TerminalRef,
    ToolCallLocation,
    ToolContent,
    UnknownToolContent,
    UnknownUpdate,
    UsageUpdate,
)


def _meta() -> Any:
    """The `_meta` field of a Struct: kept as decoded, omitted when absent."""
    return msgspec.field(default=UNSET, name="_meta")


class V1Diff(WireStruct, tag_field="type", tag="diff"):
    """A whole-file diff in a v1 tool call: `new_text` replaces `old_text` (`None` = new file)."""

    path: str
    new_text: str
    old_text: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


V1ToolCallContent = Union[ToolContent, V1Diff, TerminalRef, UnknownToolContent]


class V1UserMessageChunk(WireStruct, tag_field="sessionUpdate", tag="user_message_chunk"):
    """Appends a block to the user message (v1 `ContentChunk`; `message_id` optional)."""

    content: ContentBlock
    message_id: str | None = None
    meta: Patch[Meta] = _meta()


class V1AgentMessageChunk(WireStruct, tag_field="sessionUpdate", tag="agent_message_chunk"):
    """Appends a block to the agent's answer (v1 `ContentChunk`; `message_id` optional)."""

    content: ContentBlock
    message_id: str | None = None
    meta: Patch[Meta] = _meta()


class V1AgentThoughtChunk(WireStruct, tag_field="sessionUpdate", tag="agent_thought_chunk"):
    """Appends a block to the agent's reasoning (v1 `ContentChunk`; `message_id` optional)."""

    content: ContentBlock
    message_id: str | None = None
    meta: Patch[Meta] = _meta()


class V1ToolCall(WireStruct, tag_field="sessionUpdate", tag="tool_call"):
    """Creates a tool call (v1 `ToolCall`): `title` required, the rest optional."""

    tool_call_id: str
    title: str
    kind: Patch[str] = UNSET
    status: Patch[str] = UNSET
    content: Patch[list[V1ToolCallContent]] = UNSET
    locations: Patch[list[ToolCallLocation]] = UNSET
    raw_input: Patch[Any] = UNSET
    raw_output: Patch[Any] = UNSET
    name: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class V1ToolCallUpdate(WireStruct, tag_field="sessionUpdate", tag="tool_call_update"):
    """Patches a tool call (v1 `ToolCallUpdate`); in v1 `null` and omitted both mean unchanged."""

    tool_call_id: str
    title: Patch[str] = UNSET
    kind: Patch[str] = UNSET
    status: Patch[str] = UNSET
    content: Patch[list[V1ToolCallContent]] = UNSET
    locations: Patch[list[ToolCallLocation]] = UNSET
    raw_input: Patch[Any] = UNSET
    raw_output: Patch[Any] = UNSET
    name: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class V1Plan(WireStruct, tag_field="sessionUpdate", tag="plan"):
    """The whole plan, replacing the previous one (v1 `Plan`; one plan per session)."""

    entries: list[PlanEntry]
    meta: Patch[Meta] = _meta()


class V1AvailableCommandsUpdate(WireStruct, tag_field="sessionUpdate", tag="available_commands_update"):
    """The full set of slash commands (v1 `AvailableCommandsUpdate`; commands have no `type`)."""

    available_commands: list[AvailableCommand]
    meta: Patch[Meta] = _meta()


class V1CurrentModeUpdate(WireStruct, tag_field="sessionUpdate", tag="current_mode_update"):
    """The session mode changed (v1 `CurrentModeUpdate`); some agents send `modeId` instead."""

    current_mode_id: str = ""
    mode_id: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()

    def __post_init__(self) -> None:
        if not self.current_mode_id:
            if isinstance(self.mode_id, str) and self.mode_id:
                self.current_mode_id = self.mode_id
            else:
                raise ValueError("current_mode_update needs `currentModeId`")


#: v1 config options have the v2 shape except the key (`id`), which the v2 Structs accept.
V1ConfigOptionUpdate = ConfigOptionUpdate

#: Every v1 update the codec decodes (tagged members; `UnknownUpdate` is added by the codec).
V1KnownSessionUpdate = Union[
    V1UserMessageChunk,
    V1AgentMessageChunk,
    V1AgentThoughtChunk,
    V1ToolCall,
    V1ToolCallUpdate,
    V1Plan,
    V1AvailableCommandsUpdate,
    V1CurrentModeUpdate,
    ConfigOptionUpdate,
    SessionInfoUpdate,
    UsageUpdate,
    Notice,
    PlanUpdate,
    CompactionUpdate,
    CompactionSummaryChunk,
    # Claude's adapter sends its subagents in the unstable v2 form on v1 too (docs/protocol.md §10.6)
    SubagentUpdate,
    SessionMessage,
]

__all__ = [
    "UNKNOWN_TAG",
    "V1Diff",
    "V1ToolCallContent",
    "V1UserMessageChunk",
    "V1AgentMessageChunk",
    "V1AgentThoughtChunk",
    "V1ToolCall",
    "V1ToolCallUpdate",
    "V1Plan",
    "V1AvailableCommandsUpdate",
    "V1CurrentModeUpdate",
    "V1ConfigOptionUpdate",
    "V1KnownSessionUpdate",
    "V1SessionUpdate",
    "V1_SESSION_CAPABILITIES",
]

V1SessionUpdate = Union[V1KnownSessionUpdate, UnknownUpdate]

#: v1 `clientCapabilities.session` (schema `ClientSessionCapabilities`): what we show of v2's baseline
#: that v1 agents send only when told: live `notice`s, ID-addressed compactions, boolean config options
#: (each decoded above and applied by the v1 adapter like v2's; docs/protocol.md §2.3).
V1_SESSION_CAPABILITIES: dict[str, Any] = {"notices": {}, "compaction": {}, "configOptions": {"boolean": {}}}
