"""JSON-RPC 2.0 envelopes (docs/protocol.md §1.2): decode one line into a message, encode compact one-line frames.

`params` and `result` stay `msgspec.Raw` (zero-copy slices of the line) so the envelope is routed
before the payload is decoded into typed Structs by the version-specific codec. Decoding never
raises, whatever the line (invalid UTF-8, a lone surrogate, nesting deeper than the decoder recurses):
anything that is not JSON-RPC becomes a `FrameError` carrying the raw line and what can still be told
about it (`salvage`), so a request we cannot read is still answered and a response we cannot read still
ends the request it answers.
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias

import msgspec
from msgspec import UNSET, UnsetType

from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.salvage import Salvaged, salvage

# Error codes (docs/protocol.md §1.3; identical in v1 and v2).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
AUTH_REQUIRED = -32000
RESOURCE_NOT_FOUND = -32002
#: ACP: no version the agent supports is at or below the one asked for; `data` names them (schema `ErrorCode`)
UNSUPPORTED_PROTOCOL_VERSION = -32022

#: A JSON-RPC id: ours are ints; the agent's are echoed exactly as sent (0, strings, null).
RequestId: TypeAlias = int | str | None

CANCEL_REQUEST_METHOD = "$/cancel_request"

_EMPTY = msgspec.Raw()


class Request(msgspec.Struct, frozen=True):
    """A call that expects exactly one response carrying the same `id`."""

    id: RequestId
    method: str
    params: msgspec.Raw = _EMPTY


class Notification(msgspec.Struct, frozen=True):
    """A one-way message: never answered, not even inside a batch."""

    method: str
    params: msgspec.Raw = _EMPTY


class Response(msgspec.Struct, frozen=True):
    """A successful answer; `result` is the raw JSON (possibly `null`)."""

    id: RequestId
    result: msgspec.Raw


class ErrorResponse(msgspec.Struct, frozen=True):
    """A failed answer; `id` is `None` when the peer could not tell which request failed."""

    id: RequestId
    error: ErrorObject


class FrameError(msgspec.Struct, frozen=True):
    """A line (or batch entry) that is not a JSON-RPC message; kept raw for the problem log.

    `salvaged` holds the objects of the line as far as they can be told (their ids, methods), and
    `code` the JSON-RPC error that answers a request among them: -32700 (the line cannot be read),
    -32602 (only its `params` cannot) or -32600 (it is JSON but no JSON-RPC message).
    """

    reason: str
    raw: bytes
    salvaged: tuple[Salvaged, ...] = ()
    code: int = PARSE_ERROR


Message: TypeAlias = Request | Notification | Response | ErrorResponse
Decoded: TypeAlias = Message | FrameError | list[Message | FrameError]


class _Envelope(msgspec.Struct):
    """Every field a JSON-RPC object may carry; which are present decides the message kind."""

    jsonrpc: str | UnsetType = UNSET
    id: RequestId | UnsetType = UNSET
    method: str | UnsetType = UNSET
    params: msgspec.Raw = _EMPTY
    result: msgspec.Raw = _EMPTY
    error: ErrorObject | UnsetType = UNSET


_envelope_decoder = msgspec.json.Decoder(_Envelope)
_batch_decoder = msgspec.json.Decoder(list[msgspec.Raw])


def decode_frame(line: bytes) -> Decoded:
    """Decode one line: a message, a list for a v2 batch array, or a `FrameError`; never raises."""
    try:
        return _decode_frame(line)
    except Exception as exc:  # noqa: BLE001 - one line must never stop the reader (RecursionError, anything)
        return _refused(f"unreadable line: {_describe(exc)}", line)


def _decode_frame(line: bytes) -> Decoded:
    if not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return _refused(f"invalid UTF-8 at byte {exc.start}", line)
    first = line.lstrip()[:1]
    if first == b"[":
        try:
            entries = _batch_decoder.decode(line)
        except (msgspec.DecodeError, RecursionError, ValueError) as exc:
            return _refused(f"invalid JSON: {_describe(exc, line)}", line)
        if not entries:
            return FrameError("empty batch array", line)
        return [_decode_object(bytes(entry)) for entry in entries]
    return _decode_object(line)


def _decode_object(line: bytes) -> Message | FrameError:
    try:
        env = _envelope_decoder.decode(line)
    except msgspec.ValidationError as exc:
        return _refused(f"not JSON-RPC: {exc}", line, INVALID_REQUEST)
    except (msgspec.DecodeError, RecursionError, ValueError) as exc:
        return _refused(f"invalid JSON: {_describe(exc, line)}", line)
    if env.jsonrpc is not UNSET and env.jsonrpc != "2.0":
        return _refused(f"not JSON-RPC 2.0 (jsonrpc={env.jsonrpc!r})", line, INVALID_REQUEST)
    if env.method is not UNSET:
        if env.id is UNSET:
            return Notification(env.method, env.params)
        return Request(env.id, env.method, env.params)
    if env.id is UNSET:
        return FrameError("not JSON-RPC: no method and no id", line)
    if env.error is not UNSET:
        return ErrorResponse(env.id, env.error)
    if env.result:
        return Response(env.id, env.result)
    return _refused("not JSON-RPC: response without result or error", line, INVALID_REQUEST)


def oversized_frame(head: bytes, size: int, limit: int) -> FrameError:
    """A line dropped for its length, as a `FrameError`: what its first bytes tell (a request in it is
    answered -32600)."""
    return _refused(f"a line of {size:,} bytes is over the {limit:,}-byte limit; dropped", head, INVALID_REQUEST)


def _refused(reason: str, line: bytes, code: int = PARSE_ERROR) -> FrameError:
    """A `FrameError` with what can still be told about `line`; -32602 when only its params are at fault."""
    found = tuple(salvage(line))
    if code == PARSE_ERROR and len(found) == 1 and found[0].params_span is not None:
        start, end = found[0].params_span
        try:
            _envelope_decoder.decode(line[:start] + b"null" + line[end:])
        except Exception:  # noqa: BLE001 - the envelope itself is at fault too
            pass
        else:
            code = INVALID_PARAMS
    return FrameError(reason, line, found, code)


#: A UTF-16 surrogate escape with no partner: JSON's grammar allows it, but it is no Unicode text.
_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _describe(exc: BaseException, line: bytes = b"") -> str:
    """Why a line could not be decoded, in words (msgspec calls a lone surrogate "truncated")."""
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    message = str(exc)
    lone = _LONE_SURROGATE.search(line) if line and ("truncated" in message or "surrogate" in message) else None
    if lone is not None:
        return f"a string holds a lone UTF-16 surrogate ({lone.group().decode()}), which is no Unicode text"
    return message or exc.__class__.__name__


class _OutRequest(msgspec.Struct, omit_defaults=True):
    jsonrpc: str
    id: RequestId
    method: str
    params: Any = UNSET


class _OutNotification(msgspec.Struct, omit_defaults=True):
    jsonrpc: str
    method: str
    params: Any = UNSET


class _OutResponse(msgspec.Struct):
    jsonrpc: str
    id: RequestId
    result: Any


class _OutError(msgspec.Struct):
    jsonrpc: str
    id: RequestId
    error: ErrorObject


_encoder = msgspec.json.Encoder()


def _payload(value: Any) -> Any:
    """Pre-encoded bytes are embedded as-is; anything else is encoded by msgspec."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return msgspec.Raw(bytes(value))
    return value


def encode_request(id: RequestId, method: str, params: Any = UNSET) -> bytes:
    """One compact line (without the newline) for a request; `params` may be pre-encoded bytes."""
    return _encoder.encode(_OutRequest("2.0", id, method, _payload(params)))


def encode_notification(method: str, params: Any = UNSET) -> bytes:
    """One compact line for a notification."""
    return _encoder.encode(_OutNotification("2.0", method, _payload(params)))


def encode_response(id: RequestId, result: Any) -> bytes:
    """One compact line answering request `id` (echoed exactly) with `result`."""
    return _encoder.encode(_OutResponse("2.0", id, _payload(result)))


def encode_error(id: RequestId, code: int, message: str, data: Any = UNSET) -> bytes:
    """One compact line answering request `id` with an error object."""
    return _encoder.encode(_OutError("2.0", id, ErrorObject(code, message, data)))


def encode_batch(frames: list[bytes]) -> bytes:
    """Join already-encoded frames into one batch array line (never called with no frames)."""
    if not frames:
        raise ValueError("an empty batch array must never be sent")
    return b"[" + b",".join(frames) + b"]"


class RpcError(Exception):
    """The agent answered a request with a JSON-RPC error (or a handler wants to answer with one)."""

    def __init__(self, code: int, message: str, data: Any = UNSET) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.data = data

    @classmethod
    def from_object(cls, error: ErrorObject) -> RpcError:
        """The exception for an error object received on the wire."""
        return cls(error.code, error.message, error.data)

    def to_object(self) -> ErrorObject:
        """The error object to send or to keep in the model."""
        return ErrorObject(self.code, self.message, self.data)


__all__ = [
    "RpcError",
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "REQUEST_CANCELLED",
    "AUTH_REQUIRED",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "CANCEL_REQUEST_METHOD",
    "RequestId",
    "Request",
    "Notification",
    "Response",
    "ErrorResponse",
    "FrameError",
    "Message",
    "Decoded",
    "decode_frame",
    "oversized_frame",
    "encode_request",
    "encode_notification",
    "encode_response",
    "encode_error",
    "encode_batch",
]
