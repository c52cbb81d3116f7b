"""Decode display-only terminal output (docs/protocol.md §6.4) into styled text segments, keeping nothing else.

Agent terminal bytes arrive in chunks that can split UTF-8 code points and escape sequences, so the
decoder keeps an incremental UTF-8 decoder and the parser state between `feed` calls. Feeding a stream
in any split gives the same text and styles as feeding it whole.

Only SGR (colours and text attributes) survives. Every other control sequence (cursor movement, erase,
OSC titles/clipboard/links, DCS, SOS/PM/APC, charset selection, ...) and every control character except
`\\n` and `\\t` is dropped: agent bytes never reach the real terminal. `\\r\\n` becomes `\\n` and a bare
`\\r` is dropped (no line overwrite: a transcript, not an emulator).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, replace
from typing import NamedTuple, TypedDict

from acp_tui.secrets import redact

__all__ = ["Color", "SgrStyle", "Segment", "TerminalDecoder", "PLAIN"]

# A palette index 0-255 (0-7 standard, 8-15 bright) or a truecolor (r, g, b).
Color = int | tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class SgrStyle:
    """The SGR state that applies to a run of text; the default instance means "no styling"."""

    fg: Color | None = None
    bg: Color | None = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False
    strike: bool = False


PLAIN = SgrStyle()


class Segment(NamedTuple):
    """Text that shares one style. The text never contains control characters other than \\n, \\t."""

    text: str
    style: SgrStyle


# Characters that interrupt a plain text run (everything else, including \n and \t, is text).
_SPECIAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_RUN = re.compile("[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x8f\x91-\x97\x99\x9a\x9c]+")
_CSI = re.compile("(?:\x1b\\[|\x9b)([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])?")
_ESC_OTHER = re.compile("\x1b([\x20-\x2f]*)([\x30-\x7e])?")
_STRING_END = re.compile("[\x07\x18\x1a\x1b\x9c]")
_STRING_INTRODUCERS = frozenset("]PX^_")
_STRING_INTRODUCERS_8BIT = frozenset("\x90\x98\x9d\x9e\x9f")
# A CSI that never ends is dropped once its carried prefix reaches this length.
_MAX_CARRY = 1024
# SGR results keyed by (style before, parameter string): output repeats a handful of sequences.
_SGR_CACHE: dict[tuple[SgrStyle, str], SgrStyle] = {}
_SGR_CACHE_SIZE = 4096


class TerminalDecoder:
    """Incremental bytes -> `Segment`s decoder for one terminal; `reset()` before a new snapshot."""

    __slots__ = ("_utf8", "_style", "_carry", "_in_string")

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._style = PLAIN
        self._carry = ""
        self._in_string = False

    @property
    def style(self) -> SgrStyle:
        """The SGR state that the next text will get."""
        return self._style

    def reset(self) -> None:
        """Forget everything: a snapshot replaces all bytes, so it starts from a clean state."""
        self._utf8.reset()
        self._style = PLAIN
        self._carry = ""
        self._in_string = False

    def feed(self, data: bytes) -> list[Segment]:
        """Decode the next chunk; adjacent text with the same style comes back as one segment."""
        text = self._utf8.decode(data)
        if self._carry:
            text = self._carry + text
            self._carry = ""
        out: list[Segment] = []
        if not text:
            return out
        if not self._in_string and _SPECIAL.search(text) is None:
            out.append(Segment(redact(text), self._style))
            return out
        self._parse(text, out)
        return _merge(out) if len(out) > 1 else out

    def _emit(self, out: list[Segment], text: str) -> None:
        if text:
            out.append(Segment(redact(text), self._style))  # keys we set stay hidden (docs/protocol.md §2.4)

    def _parse(self, text: str, out: list[Segment]) -> None:
        i = 0
        end = len(text)
        while i < end:
            if self._in_string:
                m = _STRING_END.search(text, i)
                if m is None:
                    return
                c = m.group()
                if c != "\x1b":
                    self._in_string = False
                    i = m.end()
                    continue
                if m.end() == end:
                    self._carry = "\x1b"
                    return
                self._in_string = False
                # ESC \ is ST; any other ESC aborts the string and starts a new sequence.
                i = m.end() + 1 if text[m.end()] == "\\" else m.start()
                continue
            m = _SPECIAL.search(text, i)
            if m is None:
                self._emit(out, text[i:])
                return
            start = m.start()
            self._emit(out, text[i:start])
            c = text[start]
            if c == "\x1b" or c == "\x9b":
                if c == "\x1b" and start + 1 == end:
                    self._carry = "\x1b"
                    return
                nxt = text[start + 1] if c == "\x1b" else ""
                if c == "\x9b" or nxt == "[":
                    i = self._csi(text, start)
                    if i < 0:
                        return
                elif nxt in _STRING_INTRODUCERS:
                    self._in_string = True
                    i = start + 2
                else:
                    esc = _ESC_OTHER.match(text, start)
                    assert esc is not None  # the pattern matches any ESC
                    if esc.group(2) is None and esc.end() == end and end - start < _MAX_CARRY:
                        self._carry = text[start:]
                        return
                    i = esc.end()
            elif c in _STRING_INTRODUCERS_8BIT:
                self._in_string = True
                i = start + 1
            else:
                run = _CONTROL_RUN.match(text, start)
                i = run.end() if run is not None else start + 1

    def _csi(self, text: str, start: int) -> int:
        """Handle the CSI at `start`; return where parsing continues, or -1 if it was carried over."""
        m = _CSI.match(text, start)
        assert m is not None  # the introducer alone matches
        if m.group(3) is None:
            if m.end() == len(text) and m.end() - start < _MAX_CARRY:
                self._carry = text[start:]
                return -1
            return m.end()  # malformed or overlong: drop what was read
        if m.group(3) == "m" and not m.group(2):
            self._sgr(m.group(1))
        return m.end()

    def _sgr(self, params: str) -> None:
        key = (self._style, params)
        cached = _SGR_CACHE.get(key)
        if cached is None:
            cached = _apply_sgr(self._style, params)
            if len(_SGR_CACHE) >= _SGR_CACHE_SIZE:
                _SGR_CACHE.clear()
            _SGR_CACHE[key] = cached
        self._style = cached


def _merge(segments: list[Segment]) -> list[Segment]:
    """Join adjacent segments that share a style (one join per run, never repeated concatenation)."""
    merged: list[Segment] = []
    run: list[str] = []
    style = segments[0].style
    for segment in segments:
        if segment.style is not style and segment.style != style:
            merged.append(Segment("".join(run), style))
            run = []
            style = segment.style
        run.append(segment.text)
    merged.append(Segment("".join(run), style))
    return merged


def _apply_sgr(style: SgrStyle, params: str) -> SgrStyle:
    """The style after one SGR sequence with parameter string `params`."""
    if params and params[0] in "<=>?":
        return style  # private sequences (e.g. xterm modifyOtherKeys) are not SGR
    original = style
    fields = params.split(";") if params else ["0"]
    n = len(fields)
    k = 0
    while k < n:
        field = fields[k]
        k += 1
        sub = field.split(":")
        try:
            code = int(sub[0]) if sub[0] else 0
        except ValueError:
            return original  # malformed: the whole sequence is ignored
        if code == 38 or code == 48:
            if len(sub) > 1:
                color = _colon_color(sub[1:])
            else:
                color, used = _semicolon_color(fields, k)
                k += used
            if color is not None:
                style = replace(style, fg=color) if code == 38 else replace(style, bg=color)
            continue
        if code == 4 and len(sub) > 1:
            style = replace(style, underline=sub[1] not in ("", "0"))
            continue
        style = _apply_simple(style, code)
    return style


def _apply_simple(style: SgrStyle, code: int) -> SgrStyle:
    if code == 0:
        return PLAIN
    if 30 <= code <= 37:
        return replace(style, fg=code - 30)
    if 40 <= code <= 47:
        return replace(style, bg=code - 40)
    if 90 <= code <= 97:
        return replace(style, fg=code - 90 + 8)
    if 100 <= code <= 107:
        return replace(style, bg=code - 100 + 8)
    change = _SIMPLE.get(code)
    return replace(style, **change) if change is not None else style


class _StyleChange(TypedDict, total=False):
    """The `SgrStyle` fields one simple SGR code sets, typed so `replace(style, **change)` is checked."""

    fg: Color | None
    bg: Color | None
    bold: bool
    dim: bool
    italic: bool
    underline: bool
    reverse: bool
    strike: bool


_SIMPLE: dict[int, _StyleChange] = {
    1: {"bold": True},
    2: {"dim": True},
    3: {"italic": True},
    4: {"underline": True},
    7: {"reverse": True},
    9: {"strike": True},
    21: {"underline": True},
    22: {"bold": False, "dim": False},
    23: {"italic": False},
    24: {"underline": False},
    27: {"reverse": False},
    29: {"strike": False},
    39: {"fg": None},
    49: {"bg": None},
}


def _byte(value: str) -> int | None:
    try:
        number = int(value)
    except ValueError:
        return None
    return number if 0 <= number <= 255 else None


def _semicolon_color(fields: list[str], k: int) -> tuple[Color | None, int]:
    """`38;5;N` / `38;2;R;G;B` starting after the 38/48 at index k; returns (colour, fields used)."""
    if k >= len(fields):
        return None, 0
    mode = fields[k]
    if mode == "5":
        index = _byte(fields[k + 1]) if k + 1 < len(fields) else None
        return index, 2
    if mode == "2":
        rgb = [_byte(v) for v in fields[k + 1 : k + 4]]
        if len(rgb) == 3 and None not in rgb:
            return (rgb[0], rgb[1], rgb[2]), 4  # type: ignore[return-value]
        return None, 4
    return None, 1


def _colon_color(sub: list[str]) -> Color | None:
    """`38:5:N`, `38:2:R:G:B` or `38:2:CS:R:G:B` (ITU T.416 with a colour-space id)."""
    mode = sub[0]
    if mode == "5" and len(sub) >= 2:
        return _byte(sub[1])
    if mode == "2":
        values = sub[1:]
        if len(values) >= 4:
            values = values[1:4]
        rgb = [_byte(v) for v in values[:3]]
        if len(rgb) == 3 and None not in rgb:
            return (rgb[0], rgb[1], rgb[2])  # type: ignore[return-value]
    return None
