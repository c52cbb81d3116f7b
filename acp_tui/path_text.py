"""Paths from the agent as the user reads them: sanitized, relative to the session folder, else with
the home directory shown as `~`.

`ViewContext` is what a timeline view needs to know about the session it shows (its folder); the
conversation holds one and the timeline hands it to the views that show paths, so nothing reads it
from a global.
"""

from __future__ import annotations

import os
import re

import msgspec

from acp_tui.sanitize import plain


def display_path(path: str) -> str:
    """`/home/me/src/app.py` → `~/src/app.py`; anything else unchanged (after `plain`)."""
    text = plain(path)
    home = os.path.expanduser("~").rstrip("/")
    if home and home != "/" and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home) :]
    return text


class ViewContext(msgspec.Struct, frozen=True):
    """The session a view belongs to: its folder (absolute), when known."""

    cwd: str | None = None

    @property
    def _folder(self) -> str | None:
        folder = plain(self.cwd).rstrip("/") if self.cwd else ""
        return folder or None

    def path(self, path: str) -> str:
        """A path as shown: relative to the session folder when inside it (`.` for the folder itself),
        else `display_path` (`~/…` under the home directory, anything else as sent)."""
        text = plain(path)
        folder = self._folder
        if folder is not None:
            if text == folder:
                return "."
            if text.startswith(folder + "/"):
                return text[len(folder) + 1 :]
        return display_path(text)

    def text(self, text: str) -> str:
        """Free text that may name paths (a tool call's title, a command): the session folder's own
        prefix is dropped wherever it appears (`Read /home/me/app/src/x.py` → `Read src/x.py`)."""
        text = plain(text)
        folder = self._folder
        if folder is None or folder == "/" or folder + "/" not in text:
            return text
        # Only where a path starts (not inside a longer one) and something follows the slash.
        return re.sub(rf"(?<![\w./~-]){re.escape(folder)}/(?=\S)", "", text)


#: The context of a view shown outside any session folder (paths keep `~`).
NO_CONTEXT = ViewContext()
