"""Elicitation wire types (docs/protocol.md §10.1; public page "Elicitation"): v2-shaped, for v1 and v2.

`elicitation/create` asks the user for structured input, as a **form** (a restricted JSON Schema of
primitive fields) or by sending them to a **URL**; `elicitation/complete` says a URL flow finished.
Both are agent→client. The two versions share the shapes; what differs is mapped here, once:

* v1 lets a request-scoped `requestId` be `null`; v2 forbids it (we keep `None` for v1 only);
* v1 `requestedSchema.type` defaults to `"object"` and `properties` to `{}`; v2 requires both;
* v1 string `format` is a closed set, v2 an open one (unknown formats are annotations in both);
* v1 scopes are `anyOf` (session *or* request, both allowed), v2 `oneOf`: a request naming both is
  read as session-scoped in either version.

Decoding is by hand from builtins, not through msgspec unions: titled multi-select items carry no
`type`, and an unknown property type or mode must survive as data (`Unknown*`, raw kept) instead of
failing the whole request. Fields the schemas mark `x-deserialize-default-on-error` (titles,
descriptions, defaults, `_meta`, `toolCallId`) are dropped when malformed; anything else malformed
in a known variant makes the request `MalformedMessage` (answered -32602 by the service).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, TypeAlias, TypeVar

import msgspec
from msgspec import UNSET

from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.common import Meta, Patch, WireStruct

__all__ = [
    "BooleanPropertySchema",
    "CompleteElicitationNotification",
    "CreateElicitation",
    "CreateElicitationResponse",
    "ElicitationRequestScope",
    "ElicitationSchema",
    "ElicitationScope",
    "ElicitationSessionScope",
    "EnumOption",
    "FormElicitation",
    "IntegerPropertySchema",
    "MultiSelectItems",
    "MultiSelectPropertySchema",
    "NumberPropertySchema",
    "PropertySchema",
    "StringMultiSelectItems",
    "StringPropertySchema",
    "TitledMultiSelectItems",
    "UnknownElicitation",
    "UnknownMultiSelectItems",
    "UnknownPropertySchema",
    "UrlElicitation",
    "accept",
    "cancel",
    "client_capabilities",
    "decline",
    "decode_complete",
    "decode_create",
    "encode_create",
]

#: Tag of the `Unknown*` members; never sent by an agent (same convention as `acp_tui.protocol.v2`).
UNKNOWN_TAG: Final = "\x00unknown"
#: The string formats the schemas name; any other is an annotation (v2 "other" StringFormat).
KNOWN_FORMATS: Final = frozenset({"email", "uri", "date", "date-time"})

_Count = Annotated[int, msgspec.Meta(ge=0)]
S = TypeVar("S", bound=msgspec.Struct)


def _meta() -> Any:
    return msgspec.field(default=UNSET, name="_meta")


# --- form schema -----------------------------------------------------------------------------------


class EnumOption(WireStruct):
    """A titled choice: the value sent back (`const`) and what the user reads (`title`)."""

    const: str
    title: str
    description: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class StringPropertySchema(WireStruct, tag_field="type", tag="string"):
    """A text field; a single-select when `enum` (plain values) or `oneOf` (titled) is set."""

    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    min_length: Patch[_Count] = UNSET
    max_length: Patch[_Count] = UNSET
    #: ECMA-262 syntax (v2 says so; v1 does not say)
    pattern: Patch[str] = UNSET
    format: Patch[str] = UNSET
    default: Patch[str] = UNSET
    enum: Patch[list[str]] = UNSET
    one_of: Patch[list[EnumOption]] = UNSET
    meta: Patch[Meta] = _meta()


class NumberPropertySchema(WireStruct, tag_field="type", tag="number"):
    """A floating-point field with inclusive bounds."""

    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    minimum: Patch[float] = UNSET
    maximum: Patch[float] = UNSET
    default: Patch[float] = UNSET
    meta: Patch[Meta] = _meta()


class IntegerPropertySchema(WireStruct, tag_field="type", tag="integer"):
    """An integer field with inclusive bounds."""

    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    minimum: Patch[int] = UNSET
    maximum: Patch[int] = UNSET
    default: Patch[int] = UNSET
    meta: Patch[Meta] = _meta()


class BooleanPropertySchema(WireStruct, tag_field="type", tag="boolean"):
    """A yes/no field."""

    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    default: Patch[bool] = UNSET
    meta: Patch[Meta] = _meta()


class StringMultiSelectItems(WireStruct, tag_field="type", tag="string"):
    """Multi-select choices as plain values."""

    enum: list[str]
    meta: Patch[Meta] = _meta()


class TitledMultiSelectItems(WireStruct):
    """Multi-select choices with titles; as in MCP these items carry no `type`, only `anyOf`."""

    any_of: list[EnumOption]
    meta: Patch[Meta] = _meta()


class UnknownMultiSelectItems(WireStruct, tag_field="type", tag=UNKNOWN_TAG):
    """Items of a type this client does not know (built only by `decode_create`); `raw` as received."""

    type: str = msgspec.field(name="unknownType")
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


MultiSelectItems: TypeAlias = StringMultiSelectItems | TitledMultiSelectItems | UnknownMultiSelectItems


class MultiSelectPropertySchema(WireStruct, tag_field="type", tag="array"):
    """A multi-select: an array of strings chosen from `items`."""

    items: MultiSelectItems
    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    min_items: Patch[_Count] = UNSET
    max_items: Patch[_Count] = UNSET
    default: Patch[list[str]] = UNSET
    meta: Patch[Meta] = _meta()


class _MultiSelectFields(WireStruct):
    """Everything of a multi-select but its `items` (decoded by hand)."""

    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    min_items: Patch[_Count] = UNSET
    max_items: Patch[_Count] = UNSET
    default: Patch[list[str]] = UNSET
    meta: Patch[Meta] = _meta()


class UnknownPropertySchema(WireStruct, tag_field="type", tag=UNKNOWN_TAG):
    """A property type this client does not know (e.g. `object`: nesting); it must not be rendered."""

    type: str = msgspec.field(name="unknownType")
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


PropertySchema: TypeAlias = (
    StringPropertySchema
    | NumberPropertySchema
    | IntegerPropertySchema
    | BooleanPropertySchema
    | MultiSelectPropertySchema
    | UnknownPropertySchema
)


class ElicitationSchema(WireStruct):
    """`requestedSchema`: an object of primitive properties, in the order the agent sent them."""

    properties: dict[str, PropertySchema]
    type: str = "object"
    required: Patch[list[str]] = UNSET
    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


# --- requests ------------------------------------------------------------------------------------------


class ElicitationSessionScope(WireStruct):
    """Tied to a session, and maybe to one of its tool calls (an MCP server asking mid-tool)."""

    session_id: str
    tool_call_id: Patch[str] = UNSET


class ElicitationRequestScope(WireStruct):
    """Tied to a pending client→agent request, before any session (e.g. during login)."""

    #: v2: integer or string; v1 also allows null
    request_id: int | str | None


ElicitationScope: TypeAlias = ElicitationSessionScope | ElicitationRequestScope


class FormElicitation(msgspec.Struct, frozen=True):
    """`elicitation/create` in form mode."""

    message: str
    scope: ElicitationScope
    requested_schema: ElicitationSchema
    meta: Patch[Meta] = UNSET


class UrlElicitation(msgspec.Struct, frozen=True):
    """`elicitation/create` in URL mode: send the user to `url` (exactly as sent)."""

    message: str
    scope: ElicitationScope
    elicitation_id: str
    url: str
    meta: Patch[Meta] = UNSET


class UnknownElicitation(msgspec.Struct, frozen=True):
    """A mode this client does not know (`_vendor` or future); it must not be rendered as a known one."""

    mode: str
    message: str
    scope: ElicitationScope | None
    raw: dict[str, Any]


CreateElicitation: TypeAlias = FormElicitation | UrlElicitation | UnknownElicitation


# --- answers and the completion notification -------------------------------------------------------------


class CreateElicitationResponse(WireStruct):
    """The answer: `accept` (with `content` for a form), `decline` or `cancel`."""

    action: str
    content: Patch[dict[str, Any]] = UNSET
    meta: Patch[Meta] = _meta()


class CompleteElicitationNotification(WireStruct):
    """`elicitation/complete`: the URL flow `elicitation_id` finished (a notification)."""

    elicitation_id: str
    meta: Patch[Meta] = _meta()


def accept(content: dict[str, Any] | None = None) -> CreateElicitationResponse:
    """`accept`: for a form with its content; for a URL, consent to open it (not completion)."""
    return CreateElicitationResponse(action="accept", content=UNSET if content is None else content)


def decline() -> CreateElicitationResponse:
    """`decline`: the user said no."""
    return CreateElicitationResponse(action="decline")


def cancel() -> CreateElicitationResponse:
    """`cancel`: dismissed, withdrawn by the agent, or the turn was cancelled."""
    return CreateElicitationResponse(action="cancel")


def client_capabilities(*, form: bool, url: bool) -> dict[str, Any]:
    """The `elicitation` capability fragment; the same object in v2 `capabilities` and v1 `clientCapabilities`.

    `{}` marks a mode supported; an omitted mode is not (docs/protocol.md §2.3). With neither mode
    the fragment is empty: `elicitation: {}` would advertise nothing anyway.
    """
    modes: dict[str, Any] = {}
    if form:
        modes["form"] = {}
    if url:
        modes["url"] = {}
    return {"elicitation": modes} if modes else {}


# --- decoding ---------------------------------------------------------------------------------------------

_decode_any = msgspec.json.Decoder()
#: Wire names the schemas mark `x-deserialize-default-on-error`: dropped when malformed.
_DEFAULT_ON_ERROR = frozenset({"title", "description", "default", "_meta", "toolCallId"})
_KNOWN_MODES = frozenset({"form", "url"})


def decode_create(params: bytes, version: int) -> CreateElicitation:
    """`elicitation/create` params of the negotiated version; raises `MalformedMessage`."""
    obj = _object(params)
    message = obj.get("message")
    if not isinstance(message, str):
        raise MalformedMessage("elicitation/create: `message` must be a string", params)
    meta = obj["_meta"] if isinstance(obj.get("_meta"), dict) else UNSET
    mode = obj.get("mode")
    if mode is None and "requestedSchema" in obj:
        mode = "form"  # MCP-style forms that predate `mode`: the schema says what it is
    if not isinstance(mode, str):
        raise MalformedMessage("elicitation/create: `mode` must be a string", params)
    if mode not in _KNOWN_MODES:
        try:
            scope: ElicitationScope | None = _scope(obj, version, params)
        except MalformedMessage:
            scope = None
        return UnknownElicitation(mode=mode, message=message, scope=scope, raw=obj)
    scope = _scope(obj, version, params)
    if mode == "form":
        schema = _schema(obj.get("requestedSchema"), version, params)
        return FormElicitation(message=message, scope=scope, requested_schema=schema, meta=meta)
    elicitation_id, url = obj.get("elicitationId"), obj.get("url")
    if not isinstance(elicitation_id, str) or not isinstance(url, str):
        raise MalformedMessage("elicitation/create: URL mode needs string `elicitationId` and `url`", params)
    return UrlElicitation(message=message, scope=scope, elicitation_id=elicitation_id, url=url, meta=meta)


def decode_complete(params: bytes) -> CompleteElicitationNotification:
    """`elicitation/complete` params (the same in v1 and v2); raises `MalformedMessage`."""
    return _lenient(CompleteElicitationNotification, _object(params), "elicitation/complete", params)


def _object(data: bytes) -> dict[str, Any]:
    try:
        obj = _decode_any.decode(data or b"null")
    except msgspec.DecodeError as exc:
        raise MalformedMessage(f"invalid JSON: {exc}", data) from exc
    if not isinstance(obj, dict):
        raise MalformedMessage("params must be a JSON object", data)
    return obj


def _scope(obj: dict[str, Any], version: int, raw: bytes) -> ElicitationScope:
    session_id = obj.get("sessionId")
    if isinstance(session_id, str):
        tool_call_id = obj.get("toolCallId")
        return ElicitationSessionScope(
            session_id=session_id, tool_call_id=tool_call_id if isinstance(tool_call_id, str) else UNSET
        )
    if "sessionId" in obj:
        raise MalformedMessage("elicitation/create: `sessionId` must be a string", raw)
    if "requestId" in obj:
        request_id = obj["requestId"]
        if request_id is None and version == 1:
            return ElicitationRequestScope(request_id=None)
        if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
            return ElicitationRequestScope(request_id=request_id)
        raise MalformedMessage(f"elicitation/create: invalid `requestId` {request_id!r}", raw)
    raise MalformedMessage("elicitation/create: neither `sessionId` nor `requestId` says what it is for", raw)


def _schema(value: Any, version: int, raw: bytes) -> ElicitationSchema:
    if not isinstance(value, dict):
        raise MalformedMessage("elicitation/create: `requestedSchema` must be an object", raw)
    kind = value.get("type", "object")
    if kind != "object":
        if version >= 2:
            raise MalformedMessage(f'requestedSchema: `type` must be "object", not {kind!r}', raw)
        kind = "object"  # v1: default on error
    properties = value.get("properties", {} if version == 1 else None)
    if not isinstance(properties, dict):
        raise MalformedMessage("requestedSchema: `properties` must be an object", raw)
    required = value.get("required")
    if required is not None and not (isinstance(required, list) and all(isinstance(n, str) for n in required)):
        raise MalformedMessage("requestedSchema: `required` must be a list of strings", raw)
    title, description = value.get("title"), value.get("description")
    return ElicitationSchema(
        properties={name: _property(name, prop, raw) for name, prop in properties.items()},
        type=kind,
        required=UNSET if required is None else list(required),
        title=title if isinstance(title, str) else UNSET,
        description=description if isinstance(description, str) else UNSET,
        meta=value["_meta"] if isinstance(value.get("_meta"), dict) else UNSET,
    )


def _property(name: str, value: Any, raw: bytes) -> PropertySchema:
    where = f"requestedSchema.properties.{name}"
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise MalformedMessage(f"{where}: a property must be an object with a string `type`", raw)
    match value["type"]:
        case "string":
            return _lenient(StringPropertySchema, value, where, raw)
        case "number":
            return _lenient(NumberPropertySchema, value, where, raw)
        case "integer":
            return _lenient(IntegerPropertySchema, value, where, raw)
        case "boolean":
            return _lenient(BooleanPropertySchema, value, where, raw)
        case "array":
            rest = {key: item for key, item in value.items() if key not in ("type", "items")}
            if isinstance(rest.get("default"), list):  # x-deserialize-skip-invalid-items
                rest["default"] = [item for item in rest["default"] if isinstance(item, str)]
            fields = _lenient(_MultiSelectFields, rest, where, raw)
            return MultiSelectPropertySchema(
                items=_items(value.get("items"), where, raw),
                **{f: getattr(fields, f) for f in fields.__struct_fields__},
            )
        case other:
            return UnknownPropertySchema(type=other, raw=value)


def _items(value: Any, where: str, raw: bytes) -> MultiSelectItems:
    if not isinstance(value, dict):
        raise MalformedMessage(f"{where}.items must be an object", raw)
    kind = value.get("type")
    if kind == "string":
        return _lenient(StringMultiSelectItems, value, f"{where}.items", raw)
    if kind is None and "anyOf" in value:
        return _lenient(TitledMultiSelectItems, value, f"{where}.items", raw)
    if isinstance(kind, str):
        return UnknownMultiSelectItems(type=kind, raw=value)
    raise MalformedMessage(f"{where}.items: neither a `type` nor titled `anyOf` choices", raw)


def _lenient(cls: type[S], value: dict[str, Any], where: str, raw: bytes) -> S:
    """`value` as `cls`, dropping malformed default-on-error fields first if it does not convert."""
    try:
        return msgspec.convert(value, cls)
    except msgspec.ValidationError:
        pass
    types = {field.encode_name: field.type for field in msgspec.structs.fields(cls)}
    fixed = {
        key: item
        for key, item in value.items()
        if key not in _DEFAULT_ON_ERROR or key not in types or _converts(item, types[key])
    }
    try:
        return msgspec.convert(fixed, cls)
    except msgspec.ValidationError as exc:
        raise MalformedMessage(f"{where}: {exc}", raw) from None


def _converts(value: Any, target: Any) -> bool:
    try:
        msgspec.convert(value, target)
    except msgspec.ValidationError:
        return False
    return True


# --- encoding (the demo agent and tests send requests too) -------------------------------------------------


def encode_create(request: FormElicitation | UrlElicitation) -> dict[str, Any]:
    """The wire params of a request (the scope flattened into it, unknown parts as they came)."""
    params: dict[str, Any] = {"message": request.message}
    match request.scope:
        case ElicitationSessionScope():
            params.update(msgspec.to_builtins(request.scope))
        case ElicitationRequestScope(request_id=request_id):
            params["requestId"] = request_id
    match request:
        case FormElicitation():
            params["mode"] = "form"
            # `type` is required in v2 (and omitted-as-default by the Struct): always sent
            params["requestedSchema"] = {"type": "object", **_restore(msgspec.to_builtins(request.requested_schema))}
        case UrlElicitation():
            params["mode"] = "url"
            params["elicitationId"] = request.elicitation_id
            params["url"] = request.url
    if request.meta not in (UNSET, None):
        params["_meta"] = request.meta
    return params


def _restore(value: Any) -> Any:
    """Builtins with every `Unknown*` put back as the raw object it was decoded from."""
    if isinstance(value, dict):
        if value.get("type") == UNKNOWN_TAG and "raw" in value:
            return value["raw"]
        return {key: _restore(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_restore(item) for item in value]
    return value
