"""Saving what the screen shows only in part (huge messages, long tool output) to a file the user can open."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from acp_tui.paths import data_dir, ensure_dir
from acp_tui.sanitize import plain


def save_full_text(text: str, entity_id: str, suffix: str) -> Path:
    """Write `text` to `<data dir>/outputs/` under a name made from the time and `entity_id`; raises `OSError`."""
    folder = ensure_dir(data_dir() / "outputs")
    path = folder / f"{datetime.now():%Y%m%d-%H%M%S}-{file_slug(entity_id)}{suffix}"
    path.write_text(text, encoding="utf-8")
    return path


def file_slug(text: str) -> str:
    """A file-name-safe piece of agent-supplied text."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in plain(text))[:40] or "output"


__all__ = ["file_slug", "save_full_text"]
