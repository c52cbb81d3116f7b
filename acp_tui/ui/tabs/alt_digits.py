"""Alt+1…Alt+9 as terminals send them: Esc then the digit.

Most terminals (xterm, VTE, Konsole, tmux, kitty without its keyboard protocol) send Alt+1 as `ESC 1`.
Textual reads those sequences as the characters macOS's Option key types on the digit row (`¡ ™ £ ¢ ∞ § ¶
• ª º`, as WezTerm on macOS sends them), so Alt+1 would never be Alt+1 and the tab keys could only be bound
to `£` — which a British keyboard types with Shift+3. `read_alt_digits` makes `ESC digit` the key
`alt+digit` (what a terminal with the kitty keyboard protocol reports for Alt+1 anyway), and leaves the
characters themselves, typed as characters, what they are. Textual has no public hook for its key table;
the table is its module-level `ANSI_SEQUENCES_KEYS`, and the change is made once, before any input is read.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ALT_DIGIT_KEYS", "AltDigit", "read_alt_digits"]


class AltDigit(StrEnum):
    """The keys `ESC 0`…`ESC 9` become (Textual takes a key's name from its value)."""

    ALT_0 = "alt+0"
    ALT_1 = "alt+1"
    ALT_2 = "alt+2"
    ALT_3 = "alt+3"
    ALT_4 = "alt+4"
    ALT_5 = "alt+5"
    ALT_6 = "alt+6"
    ALT_7 = "alt+7"
    ALT_8 = "alt+8"
    ALT_9 = "alt+9"


#: the key names, as `events.Key.key` carries them
ALT_DIGIT_KEYS = frozenset(key.value for key in AltDigit)


def read_alt_digits() -> None:
    """Make `ESC digit` the key `alt+digit` in Textual's key table (idempotent)."""
    from textual import _ansi_sequences

    table = _ansi_sequences.ANSI_SEQUENCES_KEYS
    for key in AltDigit:
        sequence = "\x1b" + key.value[-1]
        table[sequence] = (key,)  # type: ignore[index]  # a Mapping in its annotation, a dict in fact
