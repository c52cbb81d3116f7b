"""How a terminal ended, in words: "exit 0", "killed by SIGINT", "running…", and how long it ran.

Shared by the terminal view (its footer) and the tool card that shows the terminal (its one-line
result), so both say the same thing.
"""

from __future__ import annotations

import time

from acp_tui.sanitize import plain
from acp_tui.session.model import Terminal

__all__ = ["elapsed_text", "exit_text", "span_text"]


def exit_text(terminal: Terminal) -> tuple[str, str]:
    """The footer text and its variant ("running", "success", "error", "unknown")."""
    status = terminal.exit_status
    if status is None:
        return ("stopping…" if terminal.cancelling else "running…"), "running"
    code = status.exit_code if isinstance(status.exit_code, int) else None
    signal = status.signal if isinstance(status.signal, str) else None
    if signal:
        return f"killed by {plain(signal)}", "error"
    if code is None:
        return "exited", "unknown"
    return f"exit {code}", "success" if code == 0 else "error"


def elapsed_text(terminal: Terminal, now: float | None = None) -> str:
    """How long the command ran (or has been running): "0.4 s", "12 s", "3 min 05 s"; "" when unknown."""
    if terminal.started_at is None:
        return ""
    end = terminal.ended_at if terminal.ended_at is not None else (time.monotonic() if now is None else now)
    seconds = max(0.0, end - terminal.started_at)
    if terminal.ended_at is None and seconds < 1:
        return ""  # just started: nothing worth a number yet
    return span_text(seconds)


def span_text(seconds: float) -> str:
    """A measured span: tenths under 10 s ("0.4 s", "1.2 s"), whole seconds above ("12 s", "3 min 05 s")."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    return duration_text(seconds)


def duration_text(seconds: float) -> str:
    """A whole-second duration: "12 s", "3 min 05 s", "2 h 07 min" (one format for cards and the jobs tray)."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"
