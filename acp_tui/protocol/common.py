"""Wire building blocks shared by v1 and v2: the three-state patch, the JSON-RPC error object.

A patch field on the wire has three states that mean different things (docs/protocol.md §5.1):
omitted = leave unchanged (`msgspec.UNSET`), `null` = clear (`None`), a value = replace.
"""

from __future__ import annotations

from typing import Any, TypeAlias, TypeVar, Union

import msgspec
from msgspec import UNSET, UnsetType

T = TypeVar("T")

#: A patch field: `UNSET` (omitted), `None` (null, clear) or a value (replace).
Patch = Union[T, None, UnsetType]

#: Free-form `_meta` object; kept as decoded, never interpreted.
Meta: TypeAlias = dict[str, Any]


class WireStruct(msgspec.Struct, rename="camel", omit_defaults=True, forbid_unknown_fields=False):
    """Base for every wire type: camelCase keys, omitted defaults are not sent, unknown keys ignored."""


class ErrorObject(WireStruct):
    """A JSON-RPC error object (`{code, message, data?}`), as in responses and idle `error` fields."""

    code: int
    message: str
    data: Any = UNSET


__all__ = ["UNSET", "UnsetType", "Patch", "Meta", "WireStruct", "ErrorObject"]
