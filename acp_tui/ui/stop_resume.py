"""A process stopped and continued from outside keeps one reader of the terminal.

Textual's Linux driver answers every SIGCONT by starting application mode again: a new thread reading the
terminal and a new writer thread, whether or not the driver had stopped its own on a SIGTSTP before. A
process stopped with SIGSTOP (a debugger, `kill -STOP`, a job-control script, a machine under memory
pressure) and continued then has two threads reading stdin, each with its own decoder and escape parser:
the keys typed meanwhile are split between them, out of order, and an escape sequence cut in two becomes
stray keys (after a 0.7 s stop, `seven` Enter `eight` lost `eight`; thread count 4 → 7 → 9 over two stops).

`resume_only_after_suspend` wraps the driver's two handlers so that SIGCONT restarts application mode
only after the driver's own SIGTSTP handler has suspended it (Ctrl+Z where a terminal delivers it, or
`App.suspend`). A plain stop leaves the terminal in application mode, so there is nothing to restart.
The upstream report is in docs/keys.md.
"""

from __future__ import annotations

import signal
from types import FrameType
from typing import Any

__all__ = ["resume_only_after_suspend"]


def resume_only_after_suspend() -> bool:
    """Wrap the installed SIGTSTP/SIGCONT handlers (Textual's driver puts them in place as the app starts); True
    if they were wrapped. Call it on the main thread once the app runs."""
    on_stop = signal.getsignal(signal.SIGTSTP)
    on_continue = signal.getsignal(signal.SIGCONT)
    if not callable(on_stop) or not callable(on_continue) or getattr(on_continue, "_acp_tui_wrapped", False):
        return False
    suspended = False

    def stopping(number: int, frame: FrameType | None) -> None:
        nonlocal suspended
        suspended = True  # the driver's handler suspends application mode (when it restarts by itself), then stops
        on_stop(number, frame)

    def continuing(number: int, frame: FrameType | None) -> None:
        nonlocal suspended
        if suspended:
            suspended = False
            on_continue(number, frame)

    marked: Any = continuing
    marked._acp_tui_wrapped = True
    signal.signal(signal.SIGTSTP, stopping)
    signal.signal(signal.SIGCONT, continuing)
    return True
