"""Mentions and pastes in the prompt: the `@` picker's keys, chip-like tokens, collapsed pastes.

`PromptInput` owns one `PromptContext` and calls it from a few hooks (keys, paste, edits, rendering,
Enter), so the mention logic stays here, apart from the prompt's other keys.

* Typing `@` opens the `FilePicker` for the word being typed; Up/Down move, Tab/Enter complete,
  Escape closes it until the word ends. Tab on a directory descends into it (`@src/`), Enter on a
  directory mentions the directory itself.
* A mention is a token (`@src/app.py`, or `@"..."` for awkward names, see `acp_tui.context.mentions`)
  drawn as a chip (the `prompt-input--mention` style) when its path exists. A token the picker
  completed (or a paste inserted) is a unit: Backspace at its end, or Delete at its start, removes
  it whole, and the picker does not reopen on it. A token typed by hand stays ordinary text to edit.
* A huge bracketed paste stays text but shows as one `[pasted 2,345 lines]` token (also a chip,
  removed whole), expanded on Enter; a paste that is only paths of image files becomes mentions.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from textual import events

from acp_tui.context.matcher import Match
from acp_tui.context.mentions import (
    MentionQuery,
    PromptSubmission,
    find_tokens,
    mention_query,
    mention_token,
    mentions_in_text,
    relative_display,
    resolve,
)
from acp_tui.context.mime import IMAGE_TYPES, sniff_media

if TYPE_CHECKING:
    from textual.widgets import TextArea

    from acp_tui.ui.widgets.file_picker import FilePicker

__all__ = ["PromptContext", "COLLAPSE_LINES", "COLLAPSE_CHARS", "MENTION_HIGHLIGHT", "paste_label"]

#: A paste of at least this many lines, or characters, is shown collapsed.
COLLAPSE_LINES = 50
COLLAPSE_CHARS = 10_000
#: The highlight name under which the prompt draws chips (its style comes from the component class).
MENTION_HIGHLIGHT = "acp-mention"
#: Paths in a paste longer than this are not looked at (it is text).
_MAX_PATH_PASTE = 8192
_EXISTS_CACHE = 512


def paste_label(text: str) -> str:
    """`[pasted 2,345 lines]`, or `[pasted 12,345 characters]` for a single line."""
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if lines > 1:
        return f"[pasted {lines:,} lines]"
    return f"[pasted {len(text):,} characters]"


class PromptContext:
    """The mention and paste state of one prompt."""

    def __init__(self, prompt: TextArea, picker: FilePicker | None) -> None:
        self.prompt = prompt
        self.picker = picker
        #: collapsed pastes: token shown in the prompt -> the text it stands for
        self.pastes: dict[str, str] = {}
        #: mention tokens inserted whole (completed or pasted): removed whole, never reopened
        self.units: set[str] = set()
        self._exists: dict[str, bool] = {}
        #: Escape closed the picker for the `@` word starting here (row, column)
        self._dismissed_at: tuple[int, int] | None = None
        #: the `@` word the picker shows: (row, query)
        self._active: tuple[int, MentionQuery] | None = None
        if picker is not None:
            picker.on_choose = self._chosen

    @property
    def root(self) -> str | None:
        """The working directory mentions are relative to (the picker's), or None."""
        return self.picker.root if self.picker is not None else None

    # -- the picker --------------------------------------------------------------------------

    def sync_picker(self) -> None:
        """The text or the cursor changed: open, refilter or close the picker for the `@` word at the cursor."""
        picker = self.picker
        if picker is None:
            return
        selection = self.prompt.selection
        if not selection.is_empty:
            self._close()
            return
        row, column = selection.end
        query = mention_query(self.prompt.document.get_line(row), column)
        if query is None:
            self._dismissed_at = None
            self._close()
            return
        line = self.prompt.document.get_line(row)
        if self._dismissed_at == (row, query.start) or line[query.start : column] in self.units:
            self._close()
            return
        self._dismissed_at = None
        self._active = (row, query)
        picker.show(query.query)

    def _close(self) -> None:
        self._active = None
        if self.picker is not None and self.picker.is_open:
            self.picker.close()

    def handle_key(self, event: events.Key) -> bool:
        """Keys for the open picker and whole-token deletion; True when the key was used."""
        picker = self.picker
        key = event.key
        if picker is not None and picker.is_open:
            if key in ("up", "down"):
                picker.move(-1 if key == "up" else 1)
                return True
            if key == "escape":
                if self._active is not None:
                    row, query = self._active
                    self._dismissed_at = (row, query.start)
                self._close()
                return True
            match = picker.highlighted_match
            if match is not None and key in ("tab", "enter"):
                if key == "enter" and self._typed_token() == mention_token(match.path):
                    self._close()
                    return False  # already complete: Enter sends
                self.complete(match, descend=key == "tab" and match.is_dir)
                return True
        if key == "backspace":
            return self._delete_token(at_end=True)
        if key == "delete":
            return self._delete_token(at_end=False)
        return False

    def _typed_token(self) -> str | None:
        if self._active is None:
            return None
        row, query = self._active
        column = self.prompt.selection.end[1]
        return self.prompt.document.get_line(row)[query.start : column]

    def _chosen(self, match: Match) -> None:
        """A row was clicked."""
        if self._active is not None:
            self.complete(match, descend=False)
            self.prompt.focus()

    def complete(self, match: Match, *, descend: bool = False) -> None:
        """Replace the `@` word being typed by the token for `match` (and a space), or, to descend
        into a directory, by the open `@dir/` word so the picker lists what is inside."""
        if self._active is None:
            return
        row, query = self._active
        end = self.prompt.selection.end
        start = (row, query.start)
        if descend:
            token = mention_token(match.path)
            text = token[:-1] if token.endswith('"') else token  # keep a quoted token open
        else:
            self.units.add(mention_token(match.path))
            text = mention_token(match.path) + " "
        result = self.prompt.replace(text, start, end, maintain_selection_offset=False)
        self.prompt.move_cursor(result.end_location)
        if not descend:
            self._close()

    # -- tokens as units ---------------------------------------------------------------------------

    def _exists_path(self, path: str) -> bool:
        root = self.root
        if root is None and not path.startswith(("/", "~")):
            return False
        cached = self._exists.get(path)
        if cached is None:
            cached = os.path.lexists(resolve(path, root or "/"))
            if len(self._exists) >= _EXISTS_CACHE:
                self._exists.clear()
            self._exists[path] = cached
        return cached

    def spans(self, line: str, *, units_only: bool = False) -> Iterator[tuple[int, int]]:
        """The chips of one line: (start, end) columns of existing mentions and collapsed pastes
        (with `units_only`, only the mentions that are units)."""
        if "@" in line:
            for start, end, path in find_tokens(line):
                if units_only and line[start:end] not in self.units:
                    continue
                if self._exists_path(path):
                    yield start, end
        if self.pastes and "[pasted " in line:
            for token in self.pastes:
                at = line.find(token)
                while at >= 0:
                    yield at, at + len(token)
                    at = line.find(token, at + len(token))

    def _delete_token(self, *, at_end: bool) -> bool:
        selection = self.prompt.selection
        if not selection.is_empty:
            return False
        row, column = selection.end
        for start, end in self.spans(self.prompt.document.get_line(row), units_only=True):
            if (end if at_end else start) != column:
                continue
            self.prompt.delete((row, start), (row, end), maintain_selection_offset=False)
            self.prompt.move_cursor((row, start))
            return True
        return False

    def highlights(self) -> dict[int, list[tuple[int, int | None, str]]]:
        """The chips as TextArea highlights: per line, (start byte, end byte, name)."""
        found: dict[int, list[tuple[int, int | None, str]]] = {}
        document = self.prompt.document
        for row in range(document.line_count):
            line = document.get_line(row)
            if "@" not in line and "[pasted " not in line:
                continue
            for start, end in self.spans(line):
                found.setdefault(row, []).append((_byte(line, start), _byte(line, end), MENTION_HIGHLIGHT))
        return found

    # -- paste -------------------------------------------------------------------------------------

    def paste(self, text: str) -> bool:
        """Handle a bracketed paste: image paths become mentions, huge text a collapsed token.
        False when it is ordinary text for the TextArea to insert."""
        tokens = self._image_tokens(text)
        if tokens:
            self.units.update(tokens)
            self._insert(" ".join(tokens) + " ")
            return True
        if text.count("\n") + 1 >= COLLAPSE_LINES or len(text) >= COLLAPSE_CHARS:
            label = paste_label(text)
            token, number = label, 1
            while token in self.pastes and self.pastes[token] != text:
                number += 1
                token = f"{label[:-1]} #{number}]"
            self.pastes[token] = text
            self._insert(token)
            return True
        return False

    def _insert(self, text: str) -> None:
        prompt = self.prompt
        start, end = prompt.selection
        result = prompt.replace(text, start, end, maintain_selection_offset=False)
        prompt.move_cursor(result.end_location)

    def _image_tokens(self, text: str) -> list[str]:
        """Tokens for a paste that is nothing but paths (or `file://` URIs) of image files; else []."""
        stripped = text.strip()
        if not stripped or len(stripped) > _MAX_PATH_PASTE:
            return []
        candidates = [[stripped], stripped.splitlines()]
        try:
            candidates.append([part for line in stripped.splitlines() for part in shlex.split(line)])
        except ValueError:
            pass
        for parts in candidates:
            paths = [self._image_path(part.strip()) for part in parts if part.strip()]
            if paths and all(path is not None for path in paths):
                return [mention_token(self._written(path)) for path in paths if path is not None]
        return []

    def _image_path(self, written: str) -> Path | None:
        if written.startswith("file://"):
            written = unquote(urlsplit(written).path)
        if len(written) >= 2 and written[0] == written[-1] and written[0] in "'\"":
            written = written[1:-1]
        if not written.startswith(("/", "~")) and self.root is None:
            return None
        path = resolve(written, self.root or "/")
        try:
            with open(path, "rb") as handle:
                head = handle.read(16)
        except (OSError, ValueError):
            return None
        return path if sniff_media(head) in IMAGE_TYPES else None

    def _written(self, path: Path) -> str:
        root = self.root
        return relative_display(path, root) if root is not None else str(path)

    # -- submission --------------------------------------------------------------------------------

    def prune(self) -> None:
        """Forget collapsed pastes and units whose token is gone from the text."""
        if self.pastes or self.units:
            text = self.prompt.text
            for token in [token for token in self.pastes if token not in text]:
                del self.pastes[token]
            self.units = {token for token in self.units if token in text}

    def submission(self) -> PromptSubmission:
        """The prompt as sent: pastes expanded, and the mentions of the typed text (not of pasted text)."""
        typed = self.prompt.text
        self._exists.clear()
        mentions = mentions_in_text(typed, self.root)
        if self.pastes:
            pattern = re.compile("|".join(re.escape(token) for token in sorted(self.pastes, key=len, reverse=True)))
            typed = pattern.sub(lambda match: self.pastes[match.group(0)], typed)
        return PromptSubmission(typed, mentions)


def _byte(line: str, column: int) -> int:
    """The UTF-8 byte offset of `column` in `line` (what TextArea highlights are measured in)."""
    return len(line[:column].encode("utf-8", "surrogatepass"))
