"""Prompt history: what the user sent in one working directory, recalled with Up and Down.

Stored as JSON lines (one prompt per line) so a crash loses at most the line being written and
multi-line prompts survive intact. Navigation keeps the unsent draft, like a shell does.
"""

from __future__ import annotations

import json
from pathlib import Path

from acp_tui.paths import history_file
from acp_tui.secrets import redact

MAX_ENTRIES = 1000


class PromptHistory:
    """A bounded list of earlier prompts plus a cursor for Up/Down recall."""

    def __init__(self, path: Path | None, entries: list[str] | None = None) -> None:
        self._path = path
        self._entries: list[str] = list(entries or [])[-MAX_ENTRIES:]
        self._cursor: int | None = None  # index into entries while browsing, None when editing a draft
        self._draft = ""

    @classmethod
    def for_folder(cls, cwd: Path) -> PromptHistory:
        """The history of prompts typed in `cwd` (none kept when its file cannot be found)."""
        try:
            path: Path | None = history_file(cwd)
        except OSError:
            path = None
        return cls.load(path)

    @classmethod
    def load(cls, path: Path | None) -> PromptHistory:
        """Read the file, skipping lines that are not JSON strings; a missing file is an empty history."""
        entries: list[str] = []
        if path is not None:
            try:
                with path.open(encoding="utf-8", errors="replace") as handle:
                    for line in handle:
                        try:
                            value = json.loads(line)
                        except ValueError:
                            continue
                        if isinstance(value, str) and value:
                            entries.append(value)
            except OSError:
                pass
        return cls(path, entries)

    @property
    def entries(self) -> list[str]:
        return list(self._entries)

    def add(self, prompt: str) -> None:
        """Remember a sent prompt (not twice in a row) and persist it; browsing starts over."""
        self._cursor = None
        self._draft = ""
        prompt = redact(prompt)  # a key pasted into a prompt is not kept on disk (docs/protocol.md §2.4)
        if not prompt.strip() or (self._entries and self._entries[-1] == prompt):
            return
        self._entries.append(prompt)
        if len(self._entries) > MAX_ENTRIES:
            del self._entries[: len(self._entries) - MAX_ENTRIES]
            self._rewrite()
        else:
            self._append(prompt)

    def previous(self, current: str) -> str | None:
        """The prompt before the one shown (saving `current` as the draft first); None at the oldest."""
        if not self._entries:
            return None
        if self._cursor is None:
            self._draft = current
            self._cursor = len(self._entries) - 1
        elif self._cursor == 0:
            return None
        else:
            self._cursor -= 1
        return self._entries[self._cursor]

    def next(self) -> str | None:
        """The prompt after the one shown, then the saved draft; None when not browsing."""
        if self._cursor is None:
            return None
        if self._cursor >= len(self._entries) - 1:
            self._cursor = None
            return self._draft
        self._cursor += 1
        return self._entries[self._cursor]

    def _append(self, prompt: str) -> None:
        if self._path is None:
            return
        try:
            self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(prompt) + "\n")
        except OSError:
            pass

    def _rewrite(self) -> None:
        if self._path is None:
            return
        try:
            self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            tmp = self._path.with_suffix(".tmp")
            tmp.write_text("".join(json.dumps(e) + "\n" for e in self._entries), encoding="utf-8")
            tmp.replace(self._path)
        except OSError:
            pass
