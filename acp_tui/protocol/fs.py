"""The two v1 file-system methods the client answers (docs/protocol.md §10.2; the v1 schema's
`ReadTextFileRequest`/`Response` and `WriteTextFileRequest`/`Response`).

v2 has no client file system: these exist only when a v1 client advertises
`clientCapabilities.fs.readTextFile` / `writeTextFile`. Decoding follows the codec's rule: the fast path
decodes straight into the Struct; when that fails, a malformed `_meta` (the only field the schema
marks `x-deserialize-default-on-error` here) is dropped and the params converted again. Anything still
wrong (no `path`, a negative `line`, a `content` that is not a string) raises `MalformedMessage`,
which the service answers with -32602.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final, TypeVar

import msgspec
from msgspec import UNSET

from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.common import Meta, Patch, WireStruct

T = TypeVar("T")

READ_TEXT_FILE: Final = "fs/read_text_file"
WRITE_TEXT_FILE: Final = "fs/write_text_file"

#: `line` and `limit` are `uint32` in the schema.
UInt32 = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]


def _meta() -> Any:
    """The `_meta` field of a Struct: kept as decoded, omitted when absent."""
    return msgspec.field(default=UNSET, name="_meta")


class ReadTextFileRequest(WireStruct):
    """`fs/read_text_file` params: an absolute `path`, optionally from 1-based `line` for `limit` lines."""

    session_id: str
    path: str
    line: Patch[UInt32] = UNSET
    limit: Patch[UInt32] = UNSET
    meta: Patch[Meta] = _meta()


class ReadTextFileResponse(WireStruct):
    """`fs/read_text_file` result: the text read."""

    content: str
    meta: Patch[Meta] = _meta()


class WriteTextFileRequest(WireStruct):
    """`fs/write_text_file` params: write `content` to the absolute `path` (created when missing)."""

    session_id: str
    path: str
    content: str
    meta: Patch[Meta] = _meta()


class WriteTextFileResponse(WireStruct):
    """`fs/write_text_file` result: an empty object."""

    meta: Patch[Meta] = _meta()


_any = msgspec.json.Decoder()


def _decoder(target: type[T]) -> Callable[[bytes], T]:
    """Fast path, then the same params with a malformed `_meta` dropped; else `MalformedMessage`."""
    fast = msgspec.json.Decoder(target)

    def decode(data: bytes) -> T:
        try:
            return fast.decode(data)
        except msgspec.DecodeError as exc:
            first = exc
        try:
            obj = _any.decode(data)
        except msgspec.DecodeError:
            raise MalformedMessage(f"invalid JSON: {first}", data) from None
        if not isinstance(obj, dict):
            raise MalformedMessage("params must be an object", data)
        if "_meta" in obj and obj["_meta"] is not None and not isinstance(obj["_meta"], dict):
            del obj["_meta"]
        try:
            return msgspec.convert(obj, target)
        except msgspec.ValidationError as exc:
            raise MalformedMessage(str(exc), data) from None

    decode.__name__ = f"decode_{target.__name__}"
    return decode


decode_read_text_file = _decoder(ReadTextFileRequest)
decode_write_text_file = _decoder(WriteTextFileRequest)


def meta_tool_call_id(meta: Patch[Meta]) -> str | None:
    """The tool call an fs request says it belongs to, when its `_meta` names one.

    ACP defines no such key; some agents attach `toolCallId` (or `tool_call_id`). Only a non-empty
    string counts.
    """
    if not isinstance(meta, dict):
        return None
    for key in ("toolCallId", "tool_call_id"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    return None


__all__ = [
    "READ_TEXT_FILE",
    "WRITE_TEXT_FILE",
    "ReadTextFileRequest",
    "ReadTextFileResponse",
    "WriteTextFileRequest",
    "WriteTextFileResponse",
    "decode_read_text_file",
    "decode_write_text_file",
    "meta_tool_call_id",
]
