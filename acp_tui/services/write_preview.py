"""What a write or an edit the agent asks permission for would change, when its request shows no diff.

Claude Code's adapter sends no diff for a `Write` whose text the file already holds (the exact patch is
empty), so the permission dialog had only the call's raw input to show: `{"file_path": …, "content": …}`,
the whole file as JSON. From the raw input alone (a `file_path` or `path`, and a Write's `content`, or an
Edit's `old_string` and `new_string`) the dialog can say more: the change against the file on disk, or that
there is none.

The file is read the careful way: a regular file only (a FIFO is opened without blocking and refused, as is
a device), at most `MAX_PREVIEW_BYTES`, UTF-8 text without NUL bytes. Nothing is ever written, and what is
read is only shown to the user; when the file cannot be compared the preview says why, with the path and
the size of the new text.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from acp_tui.protocol.v2 import Diff, DiffPatch
from acp_tui.session.v1_adapter import whole_file_diff

__all__ = ["MAX_PREVIEW_BYTES", "WritePreview", "empty_diff", "planned_write"]

#: A file larger than this is not read for a preview (nor is a new text larger than this diffed).
MAX_PREVIEW_BYTES: Final = 1024 * 1024
#: Raw input keys that name the file (Claude Code's `file_path`; its CLI accepts `path` too).
PATH_KEYS: Final = ("file_path", "path", "filePath")
#: Raw input keys of a whole new text (Claude Code's Write: `content`, `file_text` or `file_content`).
TEXT_KEYS: Final = ("content", "file_text", "file_content", "new_text", "newText")

_READ_FLAGS: Final = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True, slots=True)
class WritePreview:
    """A planned write: `diff` is the change (None: no change, or not compared); `note` says why it was not
    compared ("" when it was); `size` is the new text's length in bytes."""

    path: str
    diff: Diff | None
    note: str
    size: int

    @property
    def unchanged(self) -> bool:
        return self.diff is None and not self.note


class _Unreadable(Exception):
    """The file cannot be compared; the message says why."""


def planned_write(raw_input: Any, cwd: str | None) -> WritePreview | None:
    """The change a tool call's raw input describes, or None when it describes no write or edit."""
    if not isinstance(raw_input, dict):
        return None
    path = next((value for key in PATH_KEYS if isinstance(value := raw_input.get(key), str) and value), None)
    if path is None:
        return None
    new_text = next((value for key in TEXT_KEYS if isinstance(value := raw_input.get(key), str)), None)
    old_string, new_string = raw_input.get("old_string"), raw_input.get("new_string")
    if new_text is None and not (isinstance(old_string, str) and isinstance(new_string, str)):
        return None
    if new_text is None:  # an edit: one string replaced by another
        assert isinstance(old_string, str) and isinstance(new_string, str)
        return _edit(path, old_string, new_string, cwd, bool(raw_input.get("replace_all")))
    size = len(new_text.encode("utf-8", errors="replace"))
    if size > MAX_PREVIEW_BYTES:
        return WritePreview(path, None, "too large to compare here", size)
    try:
        old_text = _read(path, cwd)
    except _Unreadable as why:
        return WritePreview(path, None, str(why), size)
    if old_text == new_text:
        return WritePreview(path, None, "", size)
    return WritePreview(path, whole_file_diff(path, old_text, new_text), "", size)


def _edit(path: str, old: str, new: str, cwd: str | None, every: bool) -> WritePreview:
    size = len(new.encode("utf-8", errors="replace"))
    if old == new:
        return WritePreview(path, None, "", size)
    if len(old) + len(new) > MAX_PREVIEW_BYTES:
        return WritePreview(path, None, "too large to compare here", size)
    try:
        text = _read(path, cwd)
    except _Unreadable:
        text = None
    found = text.count(old) if text is not None and old else 0
    if text is None or found == 0 or (found > 1 and not every):
        # not predictable from the file: the strings themselves, as the change asked for
        return WritePreview(path, whole_file_diff(path, old, new), "", size)
    return WritePreview(path, whole_file_diff(path, text, text.replace(old, new, -1 if every else 1)), "", size)


def _read(path: str, cwd: str | None) -> str | None:
    """The file's text (None: it does not exist), bounded; `_Unreadable` says why it cannot be compared."""
    target = Path(path)
    if not target.is_absolute():
        if not cwd:
            raise _Unreadable("a relative path, and no session folder to find it in")
        target = Path(cwd) / target
    try:
        fd = os.open(target, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _Unreadable(f"the file could not be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Unreadable("not a regular file")
        if info.st_size > MAX_PREVIEW_BYTES:
            raise _Unreadable("the file is too large to compare here")
        chunks: list[bytes] = []
        left = MAX_PREVIEW_BYTES + 1
        while left > 0 and (chunk := os.read(fd, left)):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise _Unreadable(f"the file could not be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_PREVIEW_BYTES:
        raise _Unreadable("the file is too large to compare here")
    if b"\0" in data:
        raise _Unreadable("a binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unreadable("not UTF-8 text") from None


def empty_diff(item: Diff) -> bool:
    """Does this diff change nothing: files modified in place, with a git patch that has no hunk?"""
    patch = item.patch
    if not item.changes or any(change.operation != "modify" for change in item.changes):
        return False
    if not isinstance(patch, DiffPatch) or patch.format != "git_patch":
        return False
    text = patch.text
    return not any(line.startswith(("@@", "Binary files", "GIT binary patch")) for line in text.splitlines())
