"""Decoders and encoders for ACP params and results, built once (docs/style.md).

The JSON-RPC envelope is decoded elsewhere with `params`/`result` left as raw bytes; this module
turns those bytes into the typed Structs of `v2`, `v1` and `methods`.

Two paths: the fast path decodes bytes straight into the tagged unions. msgspec raises on an
unknown tag, so when the fast path fails the fallback decodes to builtins, replaces every unknown
variant (update kind, content `type`, tool-content `type`, plan `type`, config option `type`,
permission subject `type`) by its `Unknown*` Struct keeping the raw payload, and converts. If that
fails, it drops, at any depth, each malformed optional field (the schemas mark them
`x-deserialize-default-on-error`: absent, so a patch field means no change) and each invalid item of
the lists marked `x-deserialize-skip-invalid-items`, and converts again. Whatever still fails is a
malformed *known* variant (a malformed required field): `MalformedMessage`, which the caller
reports as a protocol error.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, overload

import msgspec
from msgspec import UNSET

import acp_tui
from acp_tui.mcp_servers import McpServer
from acp_tui.protocol import methods, terminal, v1, v2
from acp_tui.protocol.auth import bound_auth_methods
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v1 import V1_SESSION_CAPABILITIES

T = TypeVar("T")

#: The protocol versions this client speaks, newest first.
SUPPORTED_VERSIONS = (2, 1)


class MalformedMessage(Exception):
    """A known message or variant whose payload does not match its schema."""

    def __init__(self, reason: str, raw: bytes) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class UnsupportedVersion(Exception):
    """The agent answered `initialize` with a protocol version this client does not speak."""


# --- encoding -------------------------------------------------------------------------------------

_encoder = msgspec.json.Encoder()


def encode(obj: Any) -> bytes:
    """Compact JSON for a Struct (or builtins); omitted fields are not sent."""
    return _encoder.encode(obj)


def to_builtins(obj: Any) -> Any:
    """A Struct as plain JSON-ready builtins, with every `Unknown*` value put back as its raw payload."""
    return _restore_unknown(msgspec.to_builtins(obj))


def _restore_unknown(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("type") == v2.UNKNOWN_TAG and "raw" in value:
            return value["raw"]
        return {key: _restore_unknown(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_restore_unknown(item) for item in value]
    return value


# --- repairing unknown variants (fallback path) ---------------------------------------------------

_CONTENT_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})
_TOOL_CONTENT_TYPES = frozenset({"content", "diff", "terminal"})
_CONFIG_TYPES = frozenset({"select", "boolean"})
_SUBJECT_TYPES = frozenset({"tool_call", "command"})


def _tag(value: dict[str, Any], field: str = "type") -> str:
    tag = value.get(field)
    return tag if isinstance(tag, str) else repr(tag)


def _unknown(tag: Any, known: frozenset[str]) -> bool:
    """True when a `type` value names no known variant (any non-string, even unhashable, counts)."""
    return not (isinstance(tag, str) and tag in known)


def _fix_block(block: Any) -> Any:
    if isinstance(block, dict) and "type" in block and _unknown(block["type"], _CONTENT_TYPES):
        return v2.UnknownContent(type=_tag(block), raw=block)
    return block


def _fix_blocks(blocks: Any) -> Any:
    return [_fix_block(block) for block in blocks] if isinstance(blocks, list) else blocks


def _fix_tool_content(item: Any) -> Any:
    if not isinstance(item, dict) or "type" not in item:
        return item
    if _unknown(item["type"], _TOOL_CONTENT_TYPES):
        return v2.UnknownToolContent(type=_tag(item), raw=item)
    if item["type"] == "content" and "content" in item:
        return {**item, "content": _fix_block(item["content"])}
    return item


def _fix_tool_contents(items: Any) -> Any:
    return [_fix_tool_content(item) for item in items] if isinstance(items, list) else items


def _fix_config_option(option: Any) -> Any:
    if isinstance(option, dict) and "type" in option and _unknown(option["type"], _CONFIG_TYPES):
        key = option.get("configId", option.get("id", ""))
        name = option.get("name", "")
        return v2.UnknownConfigOption(
            type=_tag(option),
            config_id=key if isinstance(key, str) else "",
            name=name if isinstance(name, str) else "",
            raw=option,
        )
    return option


def _fix_config_options(options: Any) -> Any:
    return [_fix_config_option(option) for option in options] if isinstance(options, list) else options


def _fix_plan(plan: Any) -> Any:
    if isinstance(plan, dict) and "type" in plan and plan["type"] != "items":
        plan_id = plan.get("planId", "")
        return v2.UnknownPlan(type=_tag(plan), plan_id=plan_id if isinstance(plan_id, str) else "", raw=plan)
    return plan


def _fix_tool_call(tool_call: Any) -> Any:
    if isinstance(tool_call, dict) and "content" in tool_call:
        return {**tool_call, "content": _fix_tool_contents(tool_call["content"])}
    return tool_call


#: Per update kind: field -> repair function.
_UPDATE_FIXERS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "user_message_chunk": {"content": _fix_block},
    "agent_message_chunk": {"content": _fix_block},
    "agent_thought_chunk": {"content": _fix_block},
    "compaction_summary_chunk": {"content": _fix_block},
    "user_message": {"content": _fix_blocks},
    "agent_message": {"content": _fix_blocks},
    "agent_thought": {"content": _fix_blocks},
    "compaction_update": {"summary": _fix_blocks},
    "tool_call": {"content": _fix_tool_contents},
    "tool_call_update": {"content": _fix_tool_contents},
    "tool_call_content_chunk": {"content": _fix_tool_content},
    "plan_update": {"plan": _fix_plan},
    "config_option_update": {"configOptions": _fix_config_options},
}

# --- tolerant fields (fallback path) ---------------------------------------------------------------

#: Lists whose invalid items are dropped, not fatal (schema `x-deserialize-skip-invalid-items`, both versions).
_SKIP_INVALID_ITEMS = frozenset(
    {
        "content",
        "locations",
        "audience",
        "sizes",
        "icons",
        "changes",
        "options",
        "configOptions",
        "availableCommands",
        "entries",
        "summary",
        "authMethods",
        "sessions",
        "availableModes",
    }
)

#: Optional Struct fields that are *not* `x-deserialize-default-on-error`: a malformed value stays fatal.
#: Every other optional field is marked in the schemas (docs/protocol.md §1.2); the alternate keys
#: (`configId`/`id`, `groupId`/`group`, `currentModeId`/`modeId`) hold a required value.
_STRICT_FIELDS: frozenset[tuple[type, str]] = frozenset(
    {
        (v2.SessionConfigSelect, "configId"),
        (v2.SessionConfigSelect, "id"),
        (v2.SessionConfigBoolean, "configId"),
        (v2.SessionConfigBoolean, "id"),
        (v2.SessionConfigSelectGroup, "groupId"),
        (v2.SessionConfigSelectGroup, "group"),
        (v1.V1CurrentModeUpdate, "currentModeId"),
        (methods.RequestPermissionRequest, "subject"),
        # What to run is never guessed: a malformed value fails the request (docs/protocol.md §10.2).
        (terminal.CreateTerminalRequest, "args"),
        (terminal.CreateTerminalRequest, "env"),
        (terminal.CreateTerminalRequest, "cwd"),
        (terminal.CreateTerminalRequest, "outputByteLimit"),
    }
)


def _struct_fields(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    """(wire name, type, default-on-error) for each field of a Struct, computed once per class."""
    cached = _FIELD_PLANS.get(cls)
    if cached is None:
        cached = tuple(
            (
                field.encode_name,
                _FIELD_TYPES.get((cls, field.encode_name), field.type),
                not field.required and (cls, field.encode_name) not in _STRICT_FIELDS,
            )
            for field in msgspec.structs.fields(cls)
        )
        _FIELD_PLANS[cls] = cached
    return cached


def default_on_error_fields(cls: type) -> frozenset[str]:
    """The wire names of the fields of Struct `cls` that the fallback drops when malformed."""
    return frozenset(name for name, _, default_on_error in _struct_fields(cls) if default_on_error)


_FIELD_PLANS: dict[type, tuple[tuple[str, Any, bool], ...]] = {}
#: Fields typed `Any` on the Struct (told apart in `__post_init__`) but repaired as their real type.
_FIELD_TYPES: dict[tuple[type, str], Any] = {
    (v2.EmbeddedResource, "resource"): v2.TextResourceContents | v2.BlobResourceContents,
    (v2.SessionConfigSelect, "options"): list[v2.SessionConfigSelectGroup | v2.SessionConfigSelectOption],
}


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _pick_member(value: Any, members: list[Any]) -> Any:
    """The union member a builtins `value` is meant to be, or None when there is no telling."""
    structs = [tp for tp in members if _is_struct(tp)]
    if isinstance(value, list):
        lists = [tp for tp in members if get_origin(tp) is list]
        return lists[0] if lists else None
    if not isinstance(value, dict) or not structs:
        return None
    if set(structs) == {v2.TextResourceContents, v2.BlobResourceContents}:
        return v2.BlobResourceContents if "blob" in value else v2.TextResourceContents
    if set(structs) == {v2.SessionConfigSelectGroup, v2.SessionConfigSelectOption}:
        return v2.SessionConfigSelectGroup if not v2.GROUP_KEYS.isdisjoint(value) else v2.SessionConfigSelectOption
    for tp in structs:
        config = tp.__struct_config__
        if config.tag_field is not None and value.get(config.tag_field) == config.tag:
            return tp
    return structs[0] if len(structs) == 1 and structs[0].__struct_config__.tag_field is None else None


def _tolerate(value: Any, tp: Any) -> Any:
    """`value` (builtins) with every malformed default-on-error field dropped, at any depth.

    A dropped field is then absent (`UNSET`: for a patch, no change); invalid items of the
    skip-invalid-items lists are dropped. Required fields are left alone, so a malformed required
    field still fails the conversion that follows.
    """
    origin = get_origin(tp)
    if origin is Union or origin is UnionType:
        if value is None:
            return value
        member = _pick_member(value, [arg for arg in get_args(tp) if arg is not type(None)])
        return value if member is None else _tolerate(value, member)
    if origin is list:
        if not isinstance(value, list):
            return value
        (item_type,) = get_args(tp)
        return [_tolerate(item, item_type) for item in value]
    if not _is_struct(tp) or not isinstance(value, dict):
        return value
    fixed = dict(value)
    for name, field_type, default_on_error in _struct_fields(tp):
        if name not in fixed:
            continue
        item = _tolerate(fixed[name], field_type)
        list_type = _list_type(field_type)
        if name in _SKIP_INVALID_ITEMS and (tp, name) not in _FIELD_TYPES and isinstance(item, list) and list_type:
            (item_type,) = get_args(list_type)
            item = [entry for entry in item if _converts(entry, item_type)]
        fixed[name] = item
        if default_on_error and not _converts(item, field_type):
            del fixed[name]
    return fixed


def _list_type(tp: Any) -> Any:
    """The `list[X]` that `tp` is or holds (as in `Patch[list[X]]`), else None."""
    if get_origin(tp) is list:
        return tp
    if get_origin(tp) in (Union, UnionType):
        lists = [arg for arg in get_args(tp) if get_origin(arg) is list]
        return lists[0] if lists else None
    return None


def _converts(value: Any, target: Any) -> bool:
    try:
        msgspec.convert(value, target)
    except msgspec.ValidationError:
        return False
    return True


# --- session/update -------------------------------------------------------------------------------


class _V2UpdateParams(msgspec.Struct, rename="camel"):
    session_id: str
    update: v2.KnownSessionUpdate


class _V1UpdateParams(msgspec.Struct, rename="camel"):
    session_id: str
    update: v1.V1KnownSessionUpdate


def _members(union: Any) -> dict[str, type]:
    return {member.__struct_config__.tag: member for member in union.__args__}


_V2_MEMBERS = _members(v2.KnownSessionUpdate)
_V1_MEMBERS = _members(v1.V1KnownSessionUpdate)
_V2_KINDS = frozenset(_V2_MEMBERS)
_V1_KINDS = frozenset(_V1_MEMBERS)
_any_decoder = msgspec.json.Decoder()
#: the session/update decoders, built on first use (v2's alone took ~4 ms of start-up, and a session needs one)
_update_params: dict[bool, msgspec.json.Decoder[Any]] = {}


def _update_params_decoder(version_two: bool) -> msgspec.json.Decoder[Any]:
    decoder = _update_params[version_two] = msgspec.json.Decoder(_V2UpdateParams if version_two else _V1UpdateParams)
    return decoder


@overload
def decode_update(params: bytes, version: Literal[2]) -> tuple[str, v2.SessionUpdate]: ...
@overload
def decode_update(params: bytes, version: int) -> tuple[str, v2.SessionUpdate | v1.V1SessionUpdate]: ...
def decode_update(params: bytes, version: int) -> tuple[str, v2.SessionUpdate | v1.V1SessionUpdate]:
    """Decode `session/update` params into (session id, update) for the negotiated version (v2's own union
    when the version is known to be 2, so it goes to the reducer as it is).

    Unknown `sessionUpdate` kinds become `UnknownUpdate`; unknown nested variants become their
    `Unknown*` Struct; a malformed known variant raises `MalformedMessage`.
    """
    decoder = _update_params.get(version >= 2) or _update_params_decoder(version >= 2)
    try:
        try:
            decoded = decoder.decode(params)
        except msgspec.DecodeError:
            return _decode_update_slow(params, version)
    except RecursionError:
        raise MalformedMessage("nested too deeply to read", params) from None
    return decoded.session_id, decoded.update


def _decode_update_slow(params: bytes, version: int) -> tuple[str, Any]:
    obj = _parse(params)
    session_id = obj.get("sessionId")
    update = obj.get("update")
    if not isinstance(session_id, str):
        raise MalformedMessage("session/update without a string sessionId", params)
    if not isinstance(update, dict) or not isinstance(update.get("sessionUpdate"), str):
        raise MalformedMessage("session/update without an update object carrying sessionUpdate", params)
    kind: str = update["sessionUpdate"]
    known = _V2_KINDS if version >= 2 else _V1_KINDS
    if kind not in known:
        return session_id, v2.UnknownUpdate(kind=kind, raw=update)
    union: Any = v2.KnownSessionUpdate if version >= 2 else v1.V1KnownSessionUpdate
    fixed = dict(update)
    for field, fix in _UPDATE_FIXERS.get(kind, {}).items():
        if field in fixed:
            fixed[field] = fix(fixed[field])
    try:
        return session_id, msgspec.convert(fixed, union)
    except msgspec.ValidationError:
        pass
    member = (_V2_MEMBERS if version >= 2 else _V1_MEMBERS)[kind]
    try:
        return session_id, msgspec.convert(_tolerate(fixed, member), member)
    except msgspec.ValidationError as exc:
        raise MalformedMessage(f"malformed {kind}: {exc}", params) from exc


def _parse(data: bytes) -> dict[str, Any]:
    try:
        obj = _any_decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise MalformedMessage(f"invalid JSON: {exc}", data) from exc
    if not isinstance(obj, dict):
        raise MalformedMessage("expected a JSON object", data)
    return obj


# --- results and agent requests -------------------------------------------------------------------


def _make(target: type[T], fix: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> Callable[[bytes], T]:
    """A decoder for `target` with the fast path and, when `fix` is given, the repairing fallback; msgspec's own
    decoder is built on first use (the twenty of them took ~2 ms of start-up, most for messages rarely seen)."""
    decoders: list[msgspec.json.Decoder[T]] = []

    def decode(data: bytes) -> T:
        try:
            return _decode(data)
        except RecursionError:
            # Deeper than msgspec (or the repairs, which recurse in Python) can follow: one more malformed message.
            raise MalformedMessage(f"malformed {target.__name__}: nested too deeply to read", data) from None

    def _decode(data: bytes) -> T:
        if not decoders:
            decoders.append(msgspec.json.Decoder(target))
        try:
            return decoders[0].decode(data)
        except msgspec.DecodeError as exc:
            if fix is None:
                raise MalformedMessage(f"malformed {target.__name__}: {exc}", data) from exc
        obj = fix(_parse(data))
        try:
            return msgspec.convert(obj, target)
        except msgspec.ValidationError:
            pass
        try:
            return msgspec.convert(_tolerate(obj, target), target)
        except msgspec.ValidationError as exc:
            raise MalformedMessage(f"malformed {target.__name__}: {exc}", data) from exc

    decode.__name__ = f"decode_{target.__name__}"
    return decode


def _fix_session_result(obj: dict[str, Any]) -> dict[str, Any]:
    if "configOptions" in obj:
        obj["configOptions"] = _fix_config_options(obj["configOptions"])
    if isinstance(obj.get("configOptions"), list):
        obj["configOptions"] = [option for option in obj["configOptions"] if _converts(option, v2.SessionConfigOption)]
    if isinstance(obj.get("availableCommands"), list):
        obj["availableCommands"] = [
            command for command in obj["availableCommands"] if _converts(command, v2.AvailableCommand)
        ]
    return obj


def _fix_v2_permission(obj: dict[str, Any]) -> dict[str, Any]:
    subject = obj.get("subject")
    if isinstance(subject, dict) and "type" in subject:
        if _unknown(subject["type"], _SUBJECT_TYPES):
            obj["subject"] = methods.UnknownPermissionSubject(type=_tag(subject), raw=subject)
        elif subject["type"] == "tool_call":
            obj["subject"] = {**subject, "toolCall": _fix_tool_call(subject.get("toolCall"))}
    return obj


def _fix_v1_permission(obj: dict[str, Any]) -> dict[str, Any]:
    obj["toolCall"] = _fix_tool_call(obj.get("toolCall"))
    return obj


def _fix_list_sessions(obj: dict[str, Any]) -> dict[str, Any]:
    """Entries that are not session infos are skipped (schema: `x-deserialize-skip-invalid-items`)."""
    sessions = obj.get("sessions")
    obj["sessions"] = [s for s in sessions if _converts(s, methods.ListedSession)] if isinstance(sessions, list) else []
    if not isinstance(obj.get("nextCursor"), (str, type(None))):
        obj.pop("nextCursor", None)
    return obj


decode_initialize_result = _make(methods.InitializeResponse)
decode_new_session_result = _make(methods.NewSessionResponse, _fix_session_result)
decode_resume_session_result = _make(methods.ResumeSessionResponse, _fix_session_result)
decode_list_sessions_result = _make(methods.ListSessionsResponse, _fix_list_sessions)
decode_set_config_option_result = _make(methods.SetSessionConfigOptionResponse, _fix_session_result)
decode_empty_result = _make(methods.EmptyResponse)
_decode_v2_prompt_result = _make(methods.PromptResponse)
_decode_v1_prompt_result = _make(methods.V1PromptResponse)
_decode_v2_permission = _make(methods.RequestPermissionRequest, _fix_v2_permission)
_decode_v1_permission = _make(methods.V1RequestPermissionRequest, _fix_v1_permission)
decode_cancel_notification = _make(methods.CancelSessionNotification)
decode_prompt_request = _make(methods.PromptRequest)
decode_permission_response = _make(methods.RequestPermissionResponse)
decode_error = _make(ErrorObject)
decode_create_terminal_request = _make(terminal.CreateTerminalRequest, dict)
#: `terminal/output`, `terminal/wait_for_exit`, `terminal/kill` and `terminal/release` params (one shape)
decode_terminal_request = _make(terminal.TerminalRequest, dict)


@overload
def decode_prompt_result(result: bytes, version: Literal[1]) -> methods.V1PromptResponse: ...


@overload
def decode_prompt_result(result: bytes, version: int) -> methods.PromptResponse | methods.V1PromptResponse: ...


def decode_prompt_result(result: bytes, version: int) -> methods.PromptResponse | methods.V1PromptResponse:
    """The `session/prompt` result: `{messageId}` in v2, `{stopReason, usage?}` in v1.

    A v1-shaped answer in a v2 session is decoded as v1 (see `is_v1_prompt_result`), so an agent
    that claims v2 but speaks v1 still ends its turn.
    """
    if version >= 2 and not is_v1_prompt_result(result):
        return _decode_v2_prompt_result(result)
    return _decode_v1_prompt_result(result)


def decode_permission_request(
    params: bytes, version: int
) -> methods.RequestPermissionRequest | methods.V1RequestPermissionRequest:
    """`session/request_permission` params of the negotiated version."""
    return _decode_v2_permission(params) if version >= 2 else _decode_v1_permission(params)


# --- version negotiation --------------------------------------------------------------------------


class _PromptShape(msgspec.Struct, rename="camel"):
    message_id: Any = UNSET
    stop_reason: Any = UNSET


_prompt_shape = msgspec.json.Decoder(_PromptShape)


def is_v1_prompt_result(result: bytes) -> bool:
    """True for a v1-shaped prompt result: `stopReason` present, no `messageId`."""
    try:
        shape = _prompt_shape.decode(result)
    except msgspec.DecodeError:
        return False
    return shape.stop_reason is not UNSET and shape.message_id is UNSET


def is_v1_shaped(response: methods.InitializeResponse) -> bool:
    """True when an initialize result looks like v1 (`agentCapabilities`, no `info`/`capabilities`)."""
    return response.agent_capabilities is not UNSET and response.info is UNSET and response.capabilities is UNSET


def negotiated_version(result: bytes) -> tuple[int, methods.InitializeResponse]:
    """The version to speak, from the `initialize` result bytes, and the decoded result.

    v2 needs `protocolVersion: 2` and a v2-shaped answer (`info`, which v2 requires); an answer of
    1, or an answer that says 2 but is v1-shaped or lacks `info` (the Python SDK echo agent answers
    a bare `{"protocolVersion": 2}` and then speaks v1), means v1. Anything else raises
    `UnsupportedVersion` naming both versions and what the agent said.
    """
    try:
        response = decode_initialize_result(result)
    except MalformedMessage as exc:
        raise UnsupportedVersion(f"The agent's initialize answer is not valid ACP v2 or v1 ({exc.reason}).") from exc
    if isinstance(response.auth_methods, list):
        # Bounded once, here: nothing downstream sees 10,000 methods or a megabyte name (protocol/auth.py).
        response = msgspec.structs.replace(response, auth_methods=bound_auth_methods(response.auth_methods))
    version = response.protocol_version
    if version == 2 and response.info is not UNSET and not is_v1_shaped(response):
        return 2, response
    if version in (1, 2):
        return 1, response
    raise UnsupportedVersion(f"The agent answered protocolVersion {version}; acp-tui speaks ACP v2 and v1 only.")


#: at most this many versions are read from a `-32022` answer (the rest is noise, not a negotiation)
MAX_SUPPORTED_VERSIONS = 16


def supported_versions(data: Any) -> tuple[int, ...] | None:
    """The versions a `-32022` error's `data` says the agent speaks, or None when `data` is not that shape."""
    try:
        decoded = msgspec.convert(data, v2.UnsupportedProtocolVersionErrorData)
    except (msgspec.ValidationError, TypeError):
        return None
    versions = [v for v in decoded.supported[:MAX_SUPPORTED_VERSIONS] if 0 <= v <= 65535]
    return tuple(dict.fromkeys(versions))


# --- builders for what the client sends -----------------------------------------------------------

CLIENT_INFO = methods.Implementation(name="acp-tui", title="ACP TUI", version=acp_tui.__version__)


def build_initialize(
    v2_capabilities: Mapping[str, Any] | None = None, v1_capabilities: Mapping[str, Any] | None = None
) -> methods.InitializeRequest:
    """Hybrid `initialize` params: version 2 with v2 fields and their v1 twins, advertising nothing unimplemented.

    The capability fragments come from the installed client services (see `acp_tui.services.base`);
    v1's `fs` and `terminal` default to false, as that schema spells them out; v1 `session` names the
    v2-baseline updates we show (`v1.V1_SESSION_CAPABILITIES`).
    """
    v1: dict[str, Any] = {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False,
        "session": copy.deepcopy(V1_SESSION_CAPABILITIES),
    }
    for key, value in (v1_capabilities or {}).items():
        v1[key] = {**v1[key], **value} if isinstance(v1.get(key), dict) and isinstance(value, Mapping) else value
    return methods.InitializeRequest(
        protocol_version=2,
        info=CLIENT_INFO,
        capabilities=dict(v2_capabilities or {}),
        client_info=CLIENT_INFO,
        client_capabilities=v1,
    )


def build_new_session(
    cwd: str, mcp_servers: Sequence[McpServer] = (), additional_directories: Sequence[str] = (), version: int = 2
) -> methods.NewSessionRequest:
    """`session/new` params for an absolute `cwd`: the servers and folders the agent may take (see the dialect)."""
    return methods.NewSessionRequest(
        cwd=cwd,
        mcp_servers=[mcp_server_params(server, version) for server in mcp_servers],
        additional_directories=list(additional_directories) if additional_directories else UNSET,
    )


def build_resume_session(
    session_id: str,
    cwd: str,
    version: int,
    replay: bool = True,
    mcp_servers: Sequence[McpServer] = (),
    additional_directories: Sequence[str] = (),
) -> methods.ResumeSessionRequest:
    """`session/resume` params; in v2, `replay` asks for history from the start. Servers and folders are sent
    again in full: the agent does not restore them from earlier requests (schema `ResumeSessionRequest`)."""
    replay_from: Any = {"type": "start"} if replay and version >= 2 else UNSET
    return methods.ResumeSessionRequest(
        session_id=session_id,
        cwd=cwd,
        mcp_servers=[mcp_server_params(server, version) for server in mcp_servers],
        replay_from=replay_from,
        additional_directories=list(additional_directories) if additional_directories else UNSET,
    )


def build_load_session(
    session_id: str, cwd: str, mcp_servers: Sequence[McpServer] = (), additional_directories: Sequence[str] = ()
) -> methods.LoadSessionRequest:
    """v1 `session/load` params: the session's own absolute `cwd`, the servers and folders the agent may take."""
    return methods.LoadSessionRequest(
        session_id=session_id,
        cwd=cwd,
        mcp_servers=[mcp_server_params(server, 1) for server in mcp_servers],
        additional_directories=list(additional_directories) if additional_directories else UNSET,
    )


def mcp_server_params(server: McpServer, version: int) -> dict[str, Any]:
    """One schema `McpServer`: stdio `{name, command, args, env}` (v2 tags it `type: "stdio"`, v1 has no tag),
    http and sse `{type, name, url, headers}`; env and headers as `{name, value}` lists."""
    if server.transport == "stdio":
        stdio: dict[str, Any] = {
            "name": server.name,
            "command": server.command,
            "args": list(server.args),
            "env": [{"name": name, "value": value} for name, value in server.env],
        }
        return {"type": "stdio", **stdio} if version >= 2 else stdio
    headers = [{"name": name, "value": value} for name, value in server.headers]
    return {"type": server.transport, "name": server.name, "url": server.url, "headers": headers}


def build_list_sessions(cwd: str | None = None, cursor: str | None = None) -> methods.ListSessionsRequest:
    """`session/list` params: only this `cwd`'s sessions (None: every folder), from `cursor` (None: the first page)."""
    return methods.ListSessionsRequest(cwd=UNSET if cwd is None else cwd, cursor=UNSET if cursor is None else cursor)


def decode_load_session_result(result: bytes) -> methods.ResumeSessionResponse:
    """v1 `session/load` result: `{modes?, configOptions?}`, or `null` as the docs' example sends."""
    if result.strip() == b"null":
        return methods.ResumeSessionResponse()
    return decode_resume_session_result(result)


def text_block(text: str) -> v2.TextContent:
    """A text content block."""
    return v2.TextContent(text=text)


def resource_block(uri: str, text: str, mime_type: str | None = None) -> v2.EmbeddedResource:
    """An embedded text resource (e.g. a file the user attached)."""
    resource = v2.TextResourceContents(uri=uri, text=text, mime_type=mime_type if mime_type else UNSET)
    return v2.EmbeddedResource(resource=resource)


def build_prompt(
    session_id: str, text: str, resources: list[v2.EmbeddedResource] | None = None
) -> methods.PromptRequest:
    """`session/prompt` params: the text block, then any resource blocks."""
    blocks: list[v2.ContentBlock] = [text_block(text)]
    blocks.extend(resources or [])
    return methods.PromptRequest(session_id=session_id, prompt=blocks)


def build_cancel(session_id: str) -> methods.CancelSessionNotification:
    """`session/cancel` params."""
    return methods.CancelSessionNotification(session_id=session_id)


def build_set_config_option(
    session_id: str, config_id: str, value: str | bool, version: int
) -> methods.SetSessionConfigOptionRequest:
    """`session/set_config_option` params: a select value id or a boolean, tagged as each version wants."""
    if isinstance(value, bool):
        kind: Any = "boolean"
    else:
        kind = "id" if version >= 2 else UNSET
    return methods.SetSessionConfigOptionRequest(session_id=session_id, config_id=config_id, value=value, type=kind)


def build_cancel_tool_call(session_id: str, tool_call_id: str) -> methods.CancelToolCallRequest:
    """v2 `tool_call/cancel` params."""
    return methods.CancelToolCallRequest(session_id=session_id, tool_call_id=tool_call_id)


def build_permission_selected(option_id: str) -> methods.RequestPermissionResponse:
    """The answer to `session/request_permission` when the user chose `option_id`."""
    return methods.RequestPermissionResponse(outcome=methods.SelectedOutcome(option_id=option_id))


def build_permission_cancelled() -> methods.RequestPermissionResponse:
    """The answer to `session/request_permission` when it was cancelled or dismissed."""
    return methods.RequestPermissionResponse(outcome=methods.CancelledOutcome())


def build_error(code: int, message: str, data: Any = UNSET) -> ErrorObject:
    """A JSON-RPC error object for answering an agent request we cannot serve."""
    return ErrorObject(code=code, message=message, data=data)
