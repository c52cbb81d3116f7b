"""Make agent-supplied text safe to show: no terminal controls, no invisible spoofing characters.

Everything an agent sends (titles, paths, plan entries, option labels, notices, message text, stderr)
is data. Two things could go wrong when it reaches the screen:

* **Terminal control.** ESC sequences (CSI cursor movement, OSC 0/2 window titles, OSC 52 clipboard
  writes, OSC 8 links, DCS/SOS/PM/APC strings) and other C0/C1 controls must never reach the real
  terminal. Whole sequences are removed, payload included, so `"\\x1b]52;c;aGk=\\x07"` leaves nothing.
  An unterminated string sequence (OSC, DCS, ...) swallows the rest of the input, as a terminal would.
* **Spoofing.** Bidirectional overrides/embeddings/isolates (U+202A-U+202E, U+2066-U+2069), the
  directional marks (U+200E, U+200F, U+061C) and invisible format characters (zero-width space,
  word joiner, invisible operators, BOM, Unicode tag characters, Hangul fillers, ...) can make text
  read differently from what it is. They are removed. ZWJ and ZWNJ (U+200D, U+200C) stay: emoji
  sequences and several scripts need them and they cannot reorder text. Removing tag characters turns
  subdivision flags (e.g. Scotland) into a plain black flag; that is the accepted price.

Design notes on markup: this module does not escape Rich or Textual markup and must not be asked to.
The UI never interprets agent text as markup: it builds `rich.text.Text(...)` objects (or Textual
`Content`) from plain strings and attaches styles separately, so `[bold]` in agent text is shown
literally. Escaping is therefore unnecessary and would corrupt text that is later copied or logged.

Secrets (acp_tui.secrets: keys we set for the agent, anything typed into a masked field) are redacted
here too, because everything shown or saved passes through these two functions (docs/protocol.md §2.4).

Names (file names, command arguments) are different: a control character in one is part of what it
names, so `escape_controls` shows it as an escape (`\\x1b`, `\\n`, `\\u202e`) instead of removing it, and
two names that differ only there still look different.

Per-chunk use is safe: sanitizing each streamed chunk separately can at worst show the printable tail
of a sequence that was split across chunks (e.g. `]0;title` without its ESC), never a live control.
"""

from __future__ import annotations

import re

from acp_tui.secrets import redact

__all__ = ["plain", "multiline", "strip_sequences", "escape_controls", "cut"]

# Characters removed wherever they appear (after escape sequences have been removed whole).
_INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x061C, 0x061C),  # arabic letter mark
    (0x115F, 0x1160),  # hangul choseong/jungseong fillers
    (0x180E, 0x180E),  # mongolian vowel separator
    (0x200B, 0x200B),  # zero-width space
    (0x200E, 0x200F),  # left-to-right / right-to-left mark
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x206F),  # bidi isolates, deprecated format characters
    (0x3164, 0x3164),  # hangul filler
    (0xFEFF, 0xFEFF),  # zero-width no-break space (BOM)
    (0xFFA0, 0xFFA0),  # halfwidth hangul filler
    (0xFFF9, 0xFFFB),  # interlinear annotation controls
    (0xE0000, 0xE007F),  # tag characters
)
_INVISIBLE = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _INVISIBLE_RANGES)
_LINE_BREAKS = "\u2028\u2029"

# Anything that needs work at all: the fast path is one search with this.
_NEEDS_WORK_PLAIN = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}{_LINE_BREAKS}]")
_NEEDS_WORK_MULTILINE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}{_LINE_BREAKS}]")

# Whole escape sequences, 7-bit and 8-bit introducers alike.
_SEQUENCES = re.compile(
    # OSC, DCS, SOS, PM, APC strings: up to BEL or ST, or CAN/SUB (abort), or the end of the input.
    # An ESC that is not part of ST ends the string and starts the next sequence.
    "(?:\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x18\x1a\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"
    # CSI: parameters, intermediates, final byte (a truncated sequence goes too).
    "|(?:\x1b\\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    # Other ESC sequences (charset selection, save cursor, RIS, ...) and a lone ESC.
    "|\x1b[\x20-\x2f]*[\x30-\x7e]?"
)

_DELETE: dict[int, str | None] = {cp: None for cp in [*range(0x00, 0x20), *range(0x7F, 0xA0)]}
for _lo, _hi in _INVISIBLE_RANGES:
    _DELETE.update({cp: None for cp in range(_lo, _hi + 1)})
del _lo, _hi

_PLAIN_TABLE = {**_DELETE, ord("\n"): " ", ord("\t"): " ", 0x2028: " ", 0x2029: " "}
_MULTILINE_TABLE = {**_DELETE, ord("\n"): "\n", ord("\t"): "\t", 0x2028: "\n", 0x2029: "\n"}


def plain(s: str) -> str:
    """One-line UI text: controls and spoofing characters removed, line breaks and tabs -> spaces, secrets redacted."""
    if _NEEDS_WORK_PLAIN.search(s) is None:
        return redact(s)
    s = redact(s)  # first as given: a secret holding a character the cleaning changes is still whole here
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    return redact(_SEQUENCES.sub("", s).translate(_PLAIN_TABLE))


_INTRODUCERS = re.compile("[\x1b\x90\x98\x9b\x9d\x9e\x9f]")


def strip_sequences(s: str) -> str:
    """Whole escape sequences removed, payload and all (an OSC 52 clipboard write leaves no `]52;...`)."""
    return s if _INTRODUCERS.search(s) is None else _SEQUENCES.sub("", s)


def multiline(s: str) -> str:
    """Message/stderr text: like `plain` but keeps `\\n` and `\\t`; `\\r\\n` and a bare `\\r` -> `\\n`."""
    if _NEEDS_WORK_MULTILINE.search(s) is None:
        return redact(s)
    s = redact(s)  # first as given (see `plain`), then again once cleaning may have joined one
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    return redact(_SEQUENCES.sub("", s).translate(_MULTILINE_TABLE))


_ESCAPED = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}{_LINE_BREAKS}\ud800-\udfff]")
_SHORT_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape_controls(text: str) -> str:
    """A name as it can be shown: every character `plain` would remove (C0/C1 controls, DEL, bidi and
    invisible format characters, line separators) and lone surrogates written as an escape instead
    (`"a\\x1bb"` → `a\\x1bb`, newline → `\\n`, U+202E → `\\u202e`); everything else unchanged. Pure:
    no redaction (pass the result through `plain` for that). A backslash is left as it is."""
    return text if _ESCAPED.search(text) is None else _ESCAPED.sub(_escape, text)


def cut(text: str, limit: int, what: str) -> str:
    """`text`, or its first `limit` characters and a note saying it was cut (cutting again changes nothing).

    For agent labels that reach the screen or the disk (login method names, permission option names, plan
    entries): a label is a label, and a megabyte of one would push everything else off the screen."""
    note = f"… ({what} cut at {limit:,} characters)"
    if len(text) <= limit or (len(text) == limit + len(note) and text.endswith(note)):
        return text
    return text[:limit] + note
