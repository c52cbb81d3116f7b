"""Enter typed while acp-tui starts is Enter, not a new line.

Until Textual puts the terminal in raw mode, the terminal's line discipline translates a typed Enter
(CR) into a line feed (`ICRNL`), and Textual then reads that line feed as Ctrl+J: a prompt typed ahead
and sent with Enter during start-up became a prompt with an empty second line, never sent. So before
the UI is imported, `hold_enter()` turns that one translation off on the controlling terminal, and
`restore()` puts the terminal's settings back exactly as they were when acp-tui is done. Textual
restores what it found at its own start, which is ours, whenever it leaves the terminal (also to run a
terminal login there, whose program must see Enter as it always does): so the app hands Textual's
driver the settings as `found()` them once it has the terminal.

Lines typed and ended with Enter even before that (in the first tenth of a second, while Python starts)
are already in the terminal's line buffer with their CR made a line feed: `hold_enter` takes those
complete lines out of the buffer (`typed_ahead()`), and the app types them into the prompt, each line
feed as the Enter it was. What follows them, a line not yet ended, stays for Textual to read.

Stdlib only; a no-op where stdin is not a terminal or there is no termios (Windows).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

__all__ = ["found", "hold_enter", "restore", "typed_ahead"]

#: (fd, the settings as acp-tui found them) while Enter is held
_saved: tuple[int, list[Any]] | None = None
#: complete lines typed before Enter was held (each ends with the line feed its Enter became)
_typed = b""
#: at most this much typed-ahead text is taken (a paste into a starting app is not a prompt to replay)
TYPED_AHEAD_MAX = 64 * 1024


def hold_enter(fd: int | None = None) -> bool:
    """Stop the terminal on `fd` (default stdin) translating CR to LF; True if it was changed."""
    global _saved
    try:
        import termios
    except ImportError:
        return False
    if fd is None:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):
            return False
    try:
        if not os.isatty(fd):
            return False
        before = termios.tcgetattr(fd)
    except (OSError, termios.error):
        return False
    if not before[0] & termios.ICRNL:
        return False
    changed = list(before)
    changed[0] = before[0] & ~termios.ICRNL
    try:
        termios.tcsetattr(fd, termios.TCSANOW, changed)
    except (OSError, termios.error):
        return False
    _saved = (fd, before)
    _take_typed_lines(fd)
    return True


def _take_typed_lines(fd: int) -> None:
    """Read the lines the line discipline has completed (in canonical mode a read returns one whole line,
    and `select` reports the terminal readable only once one is there), never blocking on a partial one."""
    global _typed
    import select

    taken = b""
    try:
        while len(taken) < TYPED_AHEAD_MAX:
            ready, _, _ = select.select([fd], [], [], 0)
            if not ready:
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            taken += chunk
    except (OSError, ValueError):
        pass
    _typed = taken


def typed_ahead() -> str:
    """The lines `hold_enter` took from the terminal, once (then empty): `\n` marks each Enter."""
    global _typed
    text, _typed = _typed.decode("utf-8", "replace"), b""
    return text


def found() -> list[Any] | None:
    """The terminal's settings as `hold_enter` found them (None if it changed nothing): what Textual must
    put back when it leaves the terminal, also for a while (a terminal login runs a program there)."""
    return None if _saved is None else list(_saved[1])


def restore() -> None:
    """The terminal's settings as `hold_enter` found them (nothing if it changed nothing). Idempotent."""
    global _saved
    if _saved is None:
        return
    fd, before = _saved
    _saved = None
    import termios

    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(fd, termios.TCSANOW, before)
