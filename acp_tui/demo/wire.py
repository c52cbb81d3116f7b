"""The agent-side payloads the demo needs beyond `acp_tui.protocol.methods`.

Results and params shared with the client come from `acp_tui.protocol.methods`; what is here is
what only an agent sends (`session/list` results, v1-keyed config options, permission requests
whose tool call is a plain object without the `sessionUpdate` tag) plus lenient decoders for
inbound params: only the fields the demo reads, everything else ignored.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import Patch, WireStruct
from acp_tui.protocol.methods import PermissionOption

# --- sessions ----------------------------------------------------------------------------------


class V1SessionConfigSelect(WireStruct, tag_field="type", tag="select"):
    """v1 select config option: the v2 shape with `id` where v2 says `configId`."""

    id: str
    name: str
    current_value: str
    options: list[Any]
    description: Patch[str] = UNSET
    category: Patch[str] = UNSET


class SessionInfo(WireStruct):
    """One entry of `session/list` (schema `SessionInfo`)."""

    session_id: str
    cwd: str
    title: Patch[str] = UNSET
    updated_at: Patch[str] = UNSET


class ListSessionsResult(WireStruct):
    """`ListSessionsResponse`; no `nextCursor` on the last page."""

    sessions: list[SessionInfo]
    next_cursor: Patch[str] = UNSET


class SessionNotification(WireStruct):
    """`session/update` params; `update` is a protocol Struct (or a raw dict for `_demo/*`)."""

    session_id: str
    update: Any


# --- permission ----------------------------------------------------------------------------------


class ToolCallSubject(WireStruct, tag_field="type", tag="tool_call"):
    """v2 permission subject: the tool call to run, applied like a `tool_call_update`."""

    tool_call: dict[str, Any]


class PermissionRequest(WireStruct):
    """v2 `RequestPermissionRequest`."""

    session_id: str
    title: str
    options: list[PermissionOption]
    description: Patch[str] = UNSET
    subject: Patch[ToolCallSubject] = UNSET


class V1PermissionRequest(WireStruct):
    """v1 `RequestPermissionRequest`."""

    session_id: str
    tool_call: dict[str, Any]
    options: list[PermissionOption]


# --- inbound params (decoded leniently) --------------------------------------------------------------


class InitializeParams(msgspec.Struct, rename="camel"):
    """`initialize` params: the version, and the client's capabilities (v2 and v1 spellings)."""

    protocol_version: Any = None
    capabilities: Any = None
    client_capabilities: Any = None


class NewSessionParams(msgspec.Struct, rename="camel"):
    """`session/new` params."""

    cwd: str = "/"


class SessionParams(msgspec.Struct, rename="camel"):
    """Params of every method that names a session (`resume`, `cancel`, `close`, ...)."""

    session_id: str
    cwd: str = "/"
    replay_from: Any = None


class ListParams(msgspec.Struct, rename="camel"):
    """`session/list` params."""

    cwd: str | None = None
    cursor: str | None = None


class ToolCallParams(msgspec.Struct, rename="camel"):
    """`tool_call/cancel` params."""

    session_id: str
    tool_call_id: str


class PromptParams(msgspec.Struct, rename="camel"):
    """`session/prompt` params; blocks stay raw dicts so unknown kinds survive the echo."""

    session_id: str
    prompt: list[dict[str, Any]]


class SetConfigParams(msgspec.Struct, rename="camel"):
    """`session/set_config_option` params (`type` is v2 only)."""

    session_id: str
    config_id: str
    value: Any = None


class CancelRequestParams(msgspec.Struct, rename="camel"):
    """`$/cancel_request` params."""

    request_id: int | str | None = None


class PermissionOutcome(msgspec.Struct, rename="camel"):
    """The `outcome` of a permission response; anything unknown is not approval."""

    outcome: str = ""
    option_id: str | None = None


class PermissionAnswer(msgspec.Struct, rename="camel"):
    """A `session/request_permission` result."""

    outcome: PermissionOutcome = msgspec.field(default_factory=PermissionOutcome)


def tool_call_object(update: Any) -> dict[str, Any]:
    """A tool-call update Struct as the plain object a permission request embeds (no tag)."""
    data: dict[str, Any] = msgspec.to_builtins(update)
    data.pop("sessionUpdate", None)
    return data
