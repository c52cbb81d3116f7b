"""Keys as a terminal delivers them: a burst of one read, posted to the app before it handles the first."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.keys import _character_to_key

#: the burst spellings the tests use for keys that are not characters
NAMED = {
    "⌫": ("backspace", "\x7f"),
    "⏎": ("enter", "\r"),
    "⇥": ("tab", "\t"),
    "⇤": ("shift+tab", None),
    "⎋": ("escape", "\x1b"),
    "⇱": ("home", None),
    "⇲": ("end", None),
    "←": ("left", None),
    "→": ("right", None),
    "↓": ("down", None),
    "↑": ("up", None),
    "␣": ("space", " "),
}


def key_event(token: str) -> events.Key:
    """One key: a character, a glyph of `NAMED`, or `ctrl+x` style names."""
    if token in NAMED:
        key, character = NAMED[token]
        return events.Key(key, character)
    if len(token) == 1:
        return events.Key(_character_to_key(token) if not token.isalnum() else token, token)
    if token.startswith("ctrl+") and len(token) == 6:
        return events.Key(token, chr(ord(token[-1]) & 0x1F))
    return events.Key(token, None)


def tokens(burst: str) -> list[str]:
    """`"ab⌫{ctrl+w}c"` → `["a", "b", "⌫", "ctrl+w", "c"]`."""
    out: list[str] = []
    index = 0
    while index < len(burst):
        if burst[index] == "{":
            end = burst.index("}", index)
            out.append(burst[index + 1 : end])
            index = end + 1
        else:
            out.append(burst[index])
            index += 1
    return out


def burst(app: App[Any], keys: str) -> None:
    """`keys` as one read of the terminal: all posted to the app before it handles the first."""
    for token in tokens(keys):
        app.post_message(key_event(token))
