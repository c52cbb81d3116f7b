"""The outside-the-folder read dialog: with `outside_reads = "ask"`, the agent wants to read a file
outside the session's working directory (docs/protocol.md §10.2).

A `GuardedDialog[bool]` (True = read it) for one `acp_tui.services.files.OutsideRead`, laid out as the
outside-write dialog (outside_read.tcss): the resolved path on its own row (symlinks and `..` followed,
control characters shown as escapes), what the agent asked for when that differs, and the one
warning-coloured word `⚠ outside`. The typing guard is the permission dialog's (guarded.py): `y`/`a`
read, `n`/`r`/Escape refuse, arrows move between the two buttons.

The same dialog asks about an @-mention that leads outside the folder through a symbolic link
(`OutsideRead.mention`): "Your @pw leads outside the session folder", the real path, and whether to send it.

This is visibility, not a sandbox: the agent runs as the user and can read the file itself.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from acp_tui.path_text import display_path
from acp_tui.sanitize import escape_controls
from acp_tui.services.files import OutsideRead
from acp_tui.ui.dialogs.guarded import ARM_DELAY, key_hints
from acp_tui.ui.dialogs.outside_write import shown_path
from acp_tui.ui.dialogs.yes_no import YesNoDialog
from acp_tui.ui.widgets.icons import GLYPHS

__all__ = ["OutsideReadScreen"]


class OutsideReadScreen(YesNoDialog):
    """Ask whether to read one file outside the folder (see the module docstring)."""

    CSS_PATH = "outside_read.tcss"

    def __init__(
        self, read: OutsideRead, *, arm_delay: float = ARM_DELAY, name: str | None = None, id: str | None = None
    ) -> None:
        super().__init__("Send the file" if read.mention else "Read the file", arm_delay=arm_delay, name=name, id=id)
        self.read = read

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="dialog")
        dialog.border_title = "Read outside the session folder"
        with dialog:
            if self.read.mention:
                mentioned = display_path(escape_controls(self.read.requested))
                title = f"Your @{mentioned} leads outside the session folder, through a link, to this file:"
                yield Static(Text(title), id="title")
            else:
                yield Static(Text("The agent wants to read this file:"), id="title")
            yield Static(Text(shown_path(self.read)), id="path")
            if self.read.requested != os.fspath(self.read.path) and not self.read.mention:
                yield Static(Text(f"asked for {display_path(escape_controls(self.read.requested))}"), id="asked")
            with Horizontal(id="where"):
                yield Static(Text(f"{GLYPHS['attention']} outside"), id="marker")
                folder = display_path(escape_controls(os.fspath(self.read.cwd)))
                yield Static(Text(f"the session folder {folder} (symlinks and `..` followed)"), id="why")
            with Horizontal(id="buttons"):
                yield from self._buttons
            yield self._hint

    def _armed_hints(self) -> Text:
        return key_hints([("esc", "refuse"), ("←→ ⏎", "choose")])  # y and n are on the options themselves
