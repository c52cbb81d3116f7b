"""How a long install shows it is alive: one line on a terminal's stderr, redrawn, and nothing when piped.

A tool's output (npm, pip) is kept as its last lines, shown when it fails; the line shows the newest of them,
and a download shows a bar. The line is redrawn at most ten times a second.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from typing import Protocol, TextIO

from acp_tui.sanitize import plain
from acp_tui.sizes import human_size

__all__ = ["Progress", "TerminalProgress", "TAIL_LINES"]

#: lines of a tool's output kept for the message when it fails
TAIL_LINES = 25
_WIDTH = 30


class Progress(Protocol):
    """What an installer tells while it works."""

    def step(self, text: str) -> None:
        """A new step begins (`npm install @x/y@1.2.3`)."""

    def line(self, text: str) -> None:
        """A line of the running tool's output."""

    def transfer(self, done: int, total: int | None) -> None:
        """Bytes downloaded so far, of `total` when known."""

    def finish(self) -> None:
        """The install ended: clear the line."""


class TerminalProgress:
    """`Progress` on stderr: redrawn in place on a terminal; on a pipe, only the steps, one a line."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self.live = self.out.isatty()
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self._last_draw = 0.0
        self._step = ""
        self._drawn = False

    def step(self, text: str) -> None:
        self._step = plain(text)[:200]
        if self.live:
            self._draw(self._step, force=True)
        else:
            print(f"acp-tui: {self._step}", file=self.out, flush=True)

    def line(self, text: str) -> None:
        shown = plain(text)[:300]
        if shown.strip():
            self.tail.append(shown)
            self._draw(f"{self._step}: {shown}")

    def transfer(self, done: int, total: int | None) -> None:
        if total:
            filled = min(_WIDTH, done * _WIDTH // total)
            bar = "#" * filled + "-" * (_WIDTH - filled)
            self._draw(f"{self._step} [{bar}] {human_size(done)} of {human_size(total)}", force=done >= total)
        else:
            self._draw(f"{self._step} {human_size(done)}")

    def finish(self) -> None:
        if self.live and self._drawn:
            self.out.write("\r\x1b[2K")
            self.out.flush()
            self._drawn = False

    def _draw(self, text: str, force: bool = False) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < 0.1:
            return
        self._last_draw = now
        try:
            import shutil

            width = shutil.get_terminal_size().columns - 1
        except (OSError, ValueError):
            width = 79
        self.out.write("\r\x1b[2K" + text[: max(10, width)])
        self.out.flush()
        self._drawn = True
