"""Params and results of the ACP methods the client calls or answers, v2 and v1.

Where both versions share a shape (session/new, session/resume, session/cancel, config options)
one Struct serves both; where they differ the v1 type is prefixed `V1`. Capabilities objects are
kept raw (`dict`): the client only reads a few flags from them, and newer agents add more.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import Meta, Patch, WireStruct
from acp_tui.protocol.v1 import V1ToolCallUpdate
from acp_tui.protocol.v2 import (
    UNKNOWN_TAG,
    AvailableCommand,
    ContentBlock,
    SessionConfigOption,
    ToolCallUpdate,
)


def _meta() -> Any:
    """The `_meta` field of a Struct: kept as decoded, omitted when absent."""
    return msgspec.field(default=UNSET, name="_meta")


# --- initialize -----------------------------------------------------------------------------------


class Implementation(WireStruct):
    """Name and version of a client or agent (schema `Implementation`, both versions)."""

    name: str
    version: str
    title: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class InitializeRequest(WireStruct):
    """The hybrid `initialize` params: v2 fields (`info`, `capabilities`) and their v1 twins.

    A v2 agent reads `info`/`capabilities`, a v1 agent `clientInfo`/`clientCapabilities`; neither
    schema forbids the other's keys, so one request negotiates either version.
    """

    protocol_version: int
    info: Patch[Implementation] = UNSET
    capabilities: Patch[dict[str, Any]] = UNSET
    client_info: Patch[Implementation] = UNSET
    client_capabilities: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


class InitializeResponse(WireStruct):
    """The `initialize` result of either version; which fields are present tells the dialect.

    v2 sends `info` + `capabilities`; v1 sends `agentCapabilities` (+ `agentInfo`).
    """

    protocol_version: int
    info: Patch[Implementation] = UNSET
    capabilities: Patch[dict[str, Any]] = UNSET
    agent_info: Patch[Implementation] = UNSET
    agent_capabilities: Patch[dict[str, Any]] = UNSET
    auth_methods: Patch[list[dict[str, Any]]] = UNSET
    meta: Patch[Meta] = _meta()

    @property
    def agent(self) -> Implementation | None:
        """The agent's name and version, from whichever version's field is present."""
        for value in (self.info, self.agent_info):
            if isinstance(value, Implementation):
                return value
        return None


# --- sessions -------------------------------------------------------------------------------------


class NewSessionRequest(WireStruct):
    """`session/new` params; `mcpServers` is always sent (required in v1)."""

    cwd: str
    mcp_servers: list[dict[str, Any]]
    additional_directories: Patch[list[str]] = UNSET
    meta: Patch[Meta] = _meta()


class NewSessionResponse(WireStruct):
    """`session/new` result (both versions; `modes` is v1 only and kept raw)."""

    session_id: str
    config_options: Patch[list[SessionConfigOption]] = UNSET
    available_commands: Patch[list[AvailableCommand]] = UNSET
    modes: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


class ResumeSessionRequest(WireStruct):
    """`session/resume` params; `replayFrom: {"type": "start"}` asks a v2 agent to replay history."""

    session_id: str
    cwd: str
    mcp_servers: list[dict[str, Any]]
    replay_from: Patch[dict[str, Any]] = UNSET
    additional_directories: Patch[list[str]] = UNSET
    meta: Patch[Meta] = _meta()


class ResumeSessionResponse(WireStruct):
    """`session/resume` result (both versions)."""

    config_options: Patch[list[SessionConfigOption]] = UNSET
    available_commands: Patch[list[AvailableCommand]] = UNSET
    modes: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


class ListSessionsRequest(WireStruct):
    """`session/list` params: `cwd` (absolute) filters by working directory; `cursor` is a previous `nextCursor`."""

    cwd: Patch[str] = UNSET
    cursor: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class ListedSession(WireStruct):
    """One `session/list` entry (schema `SessionInfo`); `updatedAt` is an RFC 3339 / ISO 8601 time."""

    session_id: str
    cwd: str
    title: Patch[str] = UNSET
    updated_at: Patch[str] = UNSET
    additional_directories: Patch[list[str]] = UNSET
    meta: Patch[Meta] = _meta()


class ListSessionsResponse(WireStruct):
    """`session/list` result; no `nextCursor` (or `null`) means the last page."""

    sessions: list[ListedSession]
    next_cursor: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class LoadSessionRequest(WireStruct):
    """v1 `session/load` params (`mcpServers` required); the agent replays the history before answering."""

    session_id: str
    cwd: str
    mcp_servers: list[dict[str, Any]]
    additional_directories: Patch[list[str]] = UNSET
    meta: Patch[Meta] = _meta()


class SessionIdRequest(WireStruct):
    """`session/close` and `session/delete` params (both versions): only the session id."""

    session_id: str
    meta: Patch[Meta] = _meta()


class PromptRequest(WireStruct):
    """`session/prompt` params (both versions)."""

    session_id: str
    prompt: list[ContentBlock]
    meta: Patch[Meta] = _meta()


class PromptResponse(WireStruct):
    """v2 `session/prompt` result: the accepted user message's id; the turn ends with `state_update` idle."""

    message_id: str
    meta: Patch[Meta] = _meta()


class V1PromptResponse(WireStruct):
    """v1 `session/prompt` result: the turn is over when it arrives."""

    stop_reason: str
    usage: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


class CancelSessionNotification(WireStruct):
    """`session/cancel` params (both versions)."""

    session_id: str
    meta: Patch[Meta] = _meta()


class SetSessionConfigOptionRequest(WireStruct):
    """`session/set_config_option` params; `type` is `id` (v2 select), `boolean`, or omitted (v1 select)."""

    session_id: str
    config_id: str
    value: Any
    type: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class SetSessionConfigOptionResponse(WireStruct):
    """`session/set_config_option` result: the full new set of options."""

    config_options: list[SessionConfigOption]
    meta: Patch[Meta] = _meta()


class CancelToolCallRequest(WireStruct):
    """v2 `tool_call/cancel` params."""

    session_id: str
    tool_call_id: str
    meta: Patch[Meta] = _meta()


class EmptyResponse(WireStruct):
    """A result with nothing but `_meta` (tool_call/cancel, v1 set_mode ...)."""

    meta: Patch[Meta] = _meta()


# --- session/request_permission -------------------------------------------------------------------


class PermissionOption(WireStruct):
    """One answer the user may choose; `kind` is e.g. `allow_once`, `reject_always` (open)."""

    option_id: str
    name: str
    kind: str
    meta: Patch[Meta] = _meta()


class ToolCallPermissionSubject(WireStruct, tag_field="type", tag="tool_call"):
    """Permission is asked for a tool call, given as a tool-call patch (v2)."""

    tool_call: ToolCallUpdate
    meta: Patch[Meta] = _meta()


class CommandPermissionSubject(WireStruct, tag_field="type", tag="command"):
    """Permission is asked to run a shell command (v2)."""

    command: str
    cwd: str
    tool_call_id: Patch[str] = UNSET
    terminal_id: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class UnknownPermissionSubject(WireStruct, tag_field="type", tag=UNKNOWN_TAG):
    """A subject of a `type` this client does not know; `raw` is the payload as received."""

    type: str = msgspec.field(name="unknownType")
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


PermissionSubject = Union[ToolCallPermissionSubject, CommandPermissionSubject, UnknownPermissionSubject]


class RequestPermissionRequest(WireStruct):
    """v2 `session/request_permission` params."""

    session_id: str
    title: str
    options: list[PermissionOption]
    description: Patch[str] = UNSET
    subject: Patch[PermissionSubject] = UNSET
    meta: Patch[Meta] = _meta()


class V1RequestPermissionRequest(WireStruct):
    """v1 `session/request_permission` params: always about a tool call."""

    session_id: str
    tool_call: V1ToolCallUpdate
    options: list[PermissionOption]
    meta: Patch[Meta] = _meta()


class SelectedOutcome(WireStruct, tag_field="outcome", tag="selected"):
    """The user chose `option_id`."""

    option_id: str
    meta: Patch[Meta] = _meta()


class CancelledOutcome(WireStruct, tag_field="outcome", tag="cancelled"):
    """The request was cancelled (turn cancelled, dialog dismissed, agent withdrew it)."""

    meta: Patch[Meta] = _meta()


PermissionOutcome = Union[SelectedOutcome, CancelledOutcome]


class RequestPermissionResponse(WireStruct):
    """The client's answer to `session/request_permission` (both versions)."""

    outcome: PermissionOutcome
    meta: Patch[Meta] = _meta()


class SessionUpdateNotification(WireStruct):
    """`session/update` params with the update left undecoded (the codec decodes it per version)."""

    session_id: str
    update: msgspec.Raw
    meta: Patch[Meta] = _meta()
