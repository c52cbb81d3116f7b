"""A tool call's file changes: the file list with operation badges and a coloured unified diff.

v2 `Diff` (docs/protocol.md §6.3): `changes` is authoritative for the file list (badge A/D/M/R/C or the raw
operation, `oldPath → path` for moves/copies, binary/directory/symlink noted); `patch` is optional,
and a `git_patch` is coloured line by line while any other format is shown as raw text. v1 whole-file
diffs arrive already translated (the core computes their patch).

Rendering is bounded (`MAX_DIFF_LINES`); `full_text()` returns everything for saving. Colours come
from component classes styled with theme variables, so the patch text is never markup. (Component
styles become Rich styles, which cannot express Textual's `auto`/alpha colours such as `$text-muted`:
dim text uses `text-style: dim` instead.)
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch
from acp_tui.sanitize import multiline, plain
from acp_tui.ui.path_text import display_path
from acp_tui.ui.widgets.content_blocks import head_lines, more_lines_text
from acp_tui.ui.widgets.icons import operation_badge

__all__ = ["MAX_DIFF_LINES", "DiffView", "v1_unified_diff", "diff_source", "diff_line_kind"]

#: Patch lines rendered before "… N more lines".
MAX_DIFF_LINES: Final = 500

_FILE_TYPE_NOTES: Final[dict[str, str]] = {
    "binary": "binary file",
    "directory": "directory",
    "symlink": "symlink",
}


def _change_line(change: DiffChange, has_patch: bool) -> tuple[str, str, str]:
    """(badge, path text, note) for one file change."""
    path = display_path(change.path)
    if isinstance(change.old_path, str) and change.old_path:
        path = f"{display_path(change.old_path)} → {path}"
    file_type = change.file_type if isinstance(change.file_type, str) else None
    note = ""
    if file_type in _FILE_TYPE_NOTES:
        note = _FILE_TYPE_NOTES[file_type]
    elif file_type not in (None, "text"):
        note = plain(file_type)
    elif not has_patch and change.operation in ("add", "modify"):
        note = "no patch text"
    return operation_badge(change.operation), path, note


def diff_source(item: Diff) -> tuple[list[tuple[str, str, str]], str | None, str]:
    """(file list, patch text or None, patch format) of a diff, sanitized."""
    patch = item.patch if isinstance(item.patch, DiffPatch) else None
    files = [_change_line(change, patch is not None) for change in item.changes]
    if patch is None:
        return files, None, ""
    return files, multiline(patch.text), plain(patch.format)


def diff_line_kind(line: str, in_hunk: bool) -> str:
    """Classify one line of a git patch: "added", "removed", "hunk", "header", "context"."""
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("diff --git"):
        return "header"
    if in_hunk:
        if line.startswith("+"):
            return "added"
        if line.startswith("-"):
            return "removed"
        if line.startswith("\\"):
            return "hunk"
        return "context"
    return "header"


class DiffView(Widget):
    """The file changes of one `Diff` tool-call content item."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--added", "diff--removed", "diff--hunk", "diff--header", "diff--badge", "diff--note",
    }

    DEFAULT_CSS = """
    DiffView {
        height: auto;
        width: 1fr;
    }
    DiffView > .diff--added { color: $diff-added; }
    DiffView > .diff--removed { color: $diff-removed; }
    DiffView > .diff--hunk { text-style: dim; }
    DiffView > .diff--header { text-style: bold; }
    DiffView > .diff--badge { color: $accent; text-style: bold; }
    DiffView > .diff--note { text-style: dim italic; }
    """

    def __init__(self, item: Diff, *, max_lines: int = MAX_DIFF_LINES) -> None:
        super().__init__()
        self.item = item
        self._files, self._patch, self._format = diff_source(item)
        self._max_lines = max_lines
        self._cache: tuple[tuple[Style, ...], Text] | None = None

    @property
    def hidden_lines(self) -> int:
        """Patch lines not rendered because of the bound."""
        if self._patch is None:
            return 0
        return head_lines(self._patch, self._max_lines)[1]

    def full_text(self) -> str:
        """The whole diff as plain text: file list, then the patch (for saving)."""
        lines = [f"{badge} {path}" + (f"  ({note})" if note else "") for badge, path, note in self._files]
        if self._patch is not None:
            lines.append(self._patch.rstrip("\n"))
        return "\n".join(lines)

    def _styles(self) -> tuple[Style, ...]:
        return tuple(
            self.get_component_rich_style(name, partial=True)
            for name in ("diff--added", "diff--removed", "diff--hunk", "diff--header", "diff--badge", "diff--note")
        )

    def render(self) -> Text:
        styles = self._styles()
        if self._cache is None or self._cache[0] != styles:
            self._cache = (styles, self._build(*styles))
        return self._cache[1]

    def _build(
        self, added: Style, removed: Style, hunk: Style, header: Style, badge: Style, note: Style
    ) -> Text:
        text = Text(no_wrap=False, overflow="fold", end="")
        for badge_text, path, note_text in self._files:
            if text:
                text.append("\n")
            text.append(f" {badge_text} ", badge)
            text.append(" ")
            text.append(path)
            if note_text:
                text.append(f"  ({note_text})", note)
        if self._patch is None:
            return text
        head, more = head_lines(self._patch.rstrip("\n"), self._max_lines)
        if self._format != "git_patch":
            if text:
                text.append("\n")
            text.append(f"patch ({self._format}):", note)
            text.append("\n")
            text.append(head)
        else:
            line_styles = {"added": added, "removed": removed, "hunk": hunk, "header": header}
            in_hunk = False
            for line in head.split("\n"):
                kind = diff_line_kind(line, in_hunk)
                if kind == "hunk":
                    in_hunk = True
                elif kind == "header" and line.startswith("diff --git"):
                    in_hunk = False
                if text:
                    text.append("\n")
                style = line_styles.get(kind)
                if style is None:
                    text.append(line)
                else:
                    text.append(line, style)
        if more:
            text.append("\n")
            text.append_text(more_lines_text(more, " (press s to save)"))
        return text

    def content_lines(self) -> list[str]:
        """The rendered text, one string per line (for tests and copying)."""
        return self.render().plain.split("\n")

