"""What can still be told about a line the envelope decoder refused: its top-level `id`, `method` and `params`.

Every request gets exactly one answer (docs/protocol.md §1.2), even one we cannot decode: a lone
surrogate (`"\\ud800"`, what Python's `json` writes), nesting deeper than the decoder recurses, or
any other fault. This scan finds the top-level keys of the object (or of each object in a batch
array) without decoding the values: one regular expression over the line's strings and brackets,
no recursion, linear in the line, so it survives exactly the lines the decoder does not. It reads at
most `MAX_SCAN_TOKENS` strings and brackets (a 50 MB line of `[` must not stall the client), and says
when it stopped short.
"""

from __future__ import annotations

import re
from typing import TypeAlias, TypeVar

import msgspec

#: A complete string (escapes skipped), a bracket or separator, or a lone quote (an unterminated string).
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|"')
#: The top-level keys worth finding; the scan of an object stops once it has them all.
_KEYS = frozenset({b'"id"', b'"method"', b'"params"'})

RequestId: TypeAlias = int | str | None

#: Strings and brackets read before the scan gives up on finding more (about a tenth of a second).
MAX_SCAN_TOKENS = 100_000


class Salvaged(msgspec.Struct, frozen=True):
    """One object of a refused line, as far as it can be told.

    `has_id` with `request_id` None means the id is there but unreadable (answer with id null, as
    JSON-RPC says for an id that cannot be known). `params_span` is the byte range of the `params`
    value, to tell a fault inside the params from one in the envelope.
    """

    has_id: bool
    request_id: RequestId
    method: str | None
    has_method: bool
    params_span: tuple[int, int] | None
    complete: bool = True

    @property
    def is_request(self) -> bool:
        """A call that may wait for an answer: it names a method and carries an id (or may, past the scan)."""
        return self.has_method and (self.has_id or not self.complete)

    @property
    def is_response(self) -> bool:
        """An answer to one of our requests: an id and no method."""
        return self.has_id and not self.has_method


T = TypeVar("T")

_id_decoder = msgspec.json.Decoder(int | str | None)
_str_decoder = msgspec.json.Decoder(str)


def salvage(line: bytes) -> list[Salvaged]:
    """The objects of `line` (one for an object, one per object entry for a batch array); [] if neither."""
    tokens = _TOKEN.finditer(line)
    first = next(tokens, None)
    if first is None or first.group() not in (b"{", b"["):
        return []
    target = 1 if first.group() == b"{" else 2
    found: list[Salvaged] = []
    spans: dict[bytes, tuple[int, int]] = {}
    depth = 1
    in_entry = target == 1
    expect_key = in_entry
    key: bytes | None = None
    value_start = -1
    complete = False
    for count, match in enumerate(tokens):
        if count >= MAX_SCAN_TOKENS:
            break
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
            if depth == target and token == b"{" and not in_entry:
                in_entry, expect_key, spans = True, True, {}
            continue
        if token in (b"}", b"]"):
            if depth == target and in_entry:
                if key is not None:
                    spans[key] = (value_start, match.start())
                found.append(_entry(line, spans))
                in_entry, key = False, None
                if target == 1:
                    return found
            depth -= 1
            if depth == 0:
                complete = True
                break
            continue
        if depth != target or not in_entry:
            continue
        if token == b",":
            if key is not None:
                spans[key] = (value_start, match.start())
                key = None
                if target == 1 and len(spans) == len(_KEYS):
                    complete = True  # every key we want is known; the rest of the object does not matter
                    break
            expect_key = True
        elif token == b":":
            value_start = match.end()
        elif token == b'"':
            break  # an unterminated string: nothing after it can be told
        elif expect_key:
            key = token if token in _KEYS else None
            expect_key = False
    if in_entry:  # the scan stopped inside an object: what it found so far
        if key is not None and value_start >= 0:
            spans[key] = (value_start, len(line))
        found.append(_entry(line, spans, complete))
    return found


def _decode_span(decoder: msgspec.json.Decoder[T], line: bytes, span: tuple[int, int] | None) -> T | None:
    """The value at `span` of `line`, or None when there is none or it does not decode."""
    if span is None:
        return None
    try:
        return decoder.decode(line[span[0] : span[1]])
    except (msgspec.DecodeError, RecursionError, ValueError):
        return None


def _entry(line: bytes, spans: dict[bytes, tuple[int, int]], complete: bool = True) -> Salvaged:
    id_span = spans.get(b'"id"')
    request_id: RequestId = _decode_span(_id_decoder, line, id_span)
    method: str | None = _decode_span(_str_decoder, line, spans.get(b'"method"'))
    return Salvaged(
        has_id=id_span is not None,
        request_id=request_id,
        method=method,
        has_method=b'"method"' in spans,
        params_span=spans.get(b'"params"'),
        complete=complete,
    )


__all__ = ["Salvaged", "salvage"]
