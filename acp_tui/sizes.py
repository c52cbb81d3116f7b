"""Byte counts as people read them, one way everywhere (the prompt's chips, the Markdown export)."""

from __future__ import annotations

__all__ = ["human_size"]


def human_size(size: int) -> str:
    """A byte count as "512 B", "34 KB", "1.2 MB"."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"
