"""Paths from the agent as the user reads them: sanitized, with the home directory shown as `~`."""

from __future__ import annotations

import os

from acp_tui.sanitize import plain


def display_path(path: str) -> str:
    """`/home/me/src/app.py` → `~/src/app.py`; anything else unchanged (after `plain`)."""
    text = plain(path)
    home = os.path.expanduser("~").rstrip("/")
    if home and home != "/" and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home):]
    return text
