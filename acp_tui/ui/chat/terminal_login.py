"""Run a terminal login method in the real terminal: the TUI steps aside, the program runs, the TUI comes back.

Textual's `App.suspend()` gives the terminal back as it was before the app started (cooked mode, main
screen); the program inherits our stdin, stdout and stderr and our process group, so it is the terminal's
foreground job and can read the keyboard. It runs synchronously, as Textual documents for suspend: nothing
else of acp-tui draws while it owns the terminal. Ctrl-C there reaches our process too; a no-op handler
keeps it from ending acp-tui (the program, after exec, gets the default handler back). Exit status 0 is
success, anything else failure (docs/protocol.md §2.4); a failing program's last words stay readable
until the user presses Enter.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from textual.app import App, SuspendNotSupported

from acp_tui.sanitize import escape_controls, plain
from acp_tui.services.auth import TerminalCommand, TerminalOutcome

__all__ = ["run_in_terminal"]


def run_in_terminal(app: App[object], command: TerminalCommand) -> TerminalOutcome:
    """Suspend `app`, run `command` interactively, resume; how it ended."""
    try:
        with app.suspend():
            return run_foreground(command)
    except SuspendNotSupported:
        return TerminalOutcome(None, "this terminal cannot hand itself over to another program")


def run_foreground(command: TerminalCommand) -> TerminalOutcome:
    """Run `command` attached to our terminal and wait for it (the UI is suspended by the caller)."""
    say = sys.__stderr__
    if say is not None:
        say.write(
            f"\nacp-tui: logging in with {plain(command.method.name)}: {plain(escape_controls(shlex.join(command.argv)))}\n"
            "acp-tui comes back when this program exits.\n\n"
        )
        say.flush()
    with _interrupt_ignored():
        try:
            code = subprocess.run(
                list(command.argv), env=dict(command.env), cwd=os.fspath(command.cwd), check=False
            ).returncode
        except OSError as exc:
            outcome = TerminalOutcome(None, f"it could not be run ({exc.strerror or exc})")
        else:
            outcome = TerminalOutcome(code)
    if not outcome.ok:
        _pause(f"acp-tui: the login did not succeed: {outcome.describe()}. Press Enter to return to acp-tui.")
    return outcome


@contextmanager
def _interrupt_ignored() -> Iterator[None]:
    """Ctrl-C belongs to the program while it runs: our process only lets it pass."""

    def ignore(_signum: int, _frame: FrameType | None) -> None:
        return None

    try:
        previous = signal.signal(signal.SIGINT, ignore)
    except ValueError:  # not the main thread: nothing to protect
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _pause(message: str) -> None:
    """Let the user read what the program said before the TUI covers it (only with a real terminal)."""
    stdin, say = sys.__stdin__, sys.__stderr__
    if stdin is None or say is None or not stdin.isatty():
        return
    say.write(f"\n{message}\n")
    say.flush()
    try:
        stdin.readline()
    except (OSError, ValueError):
        pass
