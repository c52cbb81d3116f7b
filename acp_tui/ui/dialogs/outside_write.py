"""The outside-the-folder dialog: the agent wants to write a file acp-tui would not write on its own.

A `ModalScreen[bool]` (True = write it) for one `acp_tui.services.files.OutsideWrite`: a write outside
the session's working directory, or any write from an agent that was not offered file access
(docs/protocol.md §10.2). It names the resolved path (symlinks and `..` already followed; shown
relative to the session folder or with `~`, sanitized) and shows the change as a diff, so the user
decides about the file that would really change. The chat screen implements `FileAsker` with it.

It looks like the permission dialog (outside_write.tcss): the same calm frame and quiet option rows,
the path on its own row, and one warning-coloured word, `⚠ outside`, saying where the file is.

The typing guard is the permission dialog's: keys and clicks are ignored until the dialog has been
on screen for `arm_delay` seconds with no key pressed (every key while arming restarts the count), and
nothing is focused on arrival, so a stray Enter decides nothing. `y`/`a` write, `n`/`r`/Escape refuse,
arrows move between the two buttons; Shift+Up/Down and PageUp/PageDown scroll the diff.
"""

from __future__ import annotations

import os
from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from acp_tui.path_text import display_path
from acp_tui.sanitize import escape_controls, plain
from acp_tui.services.files import OutsideRead, OutsideWrite
from acp_tui.ui.dialogs.guarded import ARM_DELAY, key_hints
from acp_tui.ui.dialogs.yes_no import YesNoDialog
from acp_tui.ui.timeline.diff_view import DiffView
from acp_tui.ui.widgets.icons import GLYPHS

__all__ = ["OutsideWriteScreen", "shown_path"]

#: Lines of the diff shown inside the dialog.
MAX_DIFF_LINES: Final = 300
#: The dialog takes at most this fraction of the screen's height; the conversation shows above it.
MAX_HEIGHT_FRACTION: Final = 0.8
#: The diff keeps at least this many rows however small the screen.
MIN_BODY_HEIGHT: Final = 3


def shown_path(write: OutsideWrite | OutsideRead) -> str:
    """The resolved path as the user reads it: relative to the session folder when inside, else `~/…`;
    control characters shown as escapes (`\\x1b`, `\\n`), never dropped."""
    path, cwd = write.path, write.cwd
    if path != cwd and path.is_relative_to(cwd):
        return plain(escape_controls(str(path.relative_to(cwd))))
    return display_path(escape_controls(os.fspath(path)))


def _size(text: str) -> str:
    lines = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
    return f"{lines} line{'s' if lines != 1 else ''}, {len(text.encode('utf-8', 'replace')):,} bytes"


class OutsideWriteScreen(YesNoDialog):
    """Ask whether to write one file outside the folder (see the module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("shift+up,pageup", "scroll_body(-1)", show=False),
        Binding("shift+down,pagedown", "scroll_body(1)", show=False),
    ]

    CSS_PATH = "outside_write.tcss"

    def __init__(
        self, write: OutsideWrite, *, arm_delay: float = ARM_DELAY, name: str | None = None, id: str | None = None
    ) -> None:
        super().__init__("Write the file", arm_delay=arm_delay, name=name, id=id)
        self.write = write
        self._body = VerticalScroll(id="body", can_focus=False)
        self._dialog = Vertical(id="dialog")
        self._head = [
            Static(Text(f"The agent wants to {'create' if write.created else 'overwrite'} this file:"), id="title"),
            Static(Text(shown_path(write)), id="path"),
            Horizontal(Static(Text(self._marker()), id="marker"), Static(Text(self._why()), id="why"), id="where"),
        ]
        self._buttons_row = Horizontal(id="buttons")

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        write = self.write
        self._dialog.border_title = (
            "Write outside the session folder" if write.reason == "outside" else "Unoffered write"
        )
        with self._dialog:
            yield from self._head
            with self._body:
                if write.diff is not None:
                    # the path is named above: the diff starts with its lines
                    yield DiffView(write.diff, max_lines=MAX_DIFF_LINES, hide_path=os.fspath(write.path), said=True)
                else:
                    note = f"The change is too large to show here ({_size(write.new_text)})."
                    yield Static(Text(note), classes="note")
            with self._buttons_row:
                yield from self._buttons
            yield self._hint

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit_body)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_body)

    def _fit_body(self) -> None:
        """Cap the diff so the path, the buttons and the hint always fit in `MAX_HEIGHT_FRACTION` of the
        screen (CSS cannot say "the rest, but no more than it needs")."""
        cap = int(self.size.height * MAX_HEIGHT_FRACTION)
        chrome = self._dialog.styles.gutter.height + self._body.styles.margin.height
        for widget in (*self._head, self._buttons_row, self._hint):
            chrome += widget.outer_size.height
        self._body.styles.max_height = max(MIN_BODY_HEIGHT, cap - chrome)

    def _marker(self) -> str:
        """The one warning-coloured word: where the file is, or why acp-tui asks at all."""
        return f"{GLYPHS['attention']} {'outside' if self.write.reason == 'outside' else 'unoffered'}"

    def _why(self) -> str:
        folder = display_path(os.fspath(self.write.cwd))
        if self.write.reason == "outside":
            return f"the session folder {folder} (symlinks and `..` followed)"
        return "acp-tui did not offer this agent file access, so it never writes for it without asking."

    # -- the typing guard (guarded.py) -----------------------------------------------------

    def _armed_hints(self) -> Text:
        # y and n are on the options themselves
        return key_hints([("esc", "refuse"), ("←→ ⏎", "choose"), ("PgUp/PgDn", "scroll diff")])

    # -- deciding ----------------------------------------------------------------------------

    def action_scroll_body(self, step: int) -> None:
        if step < 0:
            self._body.scroll_page_up()
        else:
            self._body.scroll_page_down()
