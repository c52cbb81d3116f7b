"""A tool call's file changes as a unified diff: old/new line numbers, tinted added and removed lines,
syntax colour where the file's language is known, the path once.

v2 `Diff` (docs/protocol.md §6.3): `changes` is authoritative for the file list (moves and copies read
`oldPath → path`; added, deleted, binary, directory and symlink files say so; an unknown operation is
shown as sent); `patch` is optional. A `git_patch` is parsed into hunks: its `diff --git`, `index`,
`---` and `+++` headers are reduced to the file's path (relative to the session folder), each line gets
its old and new number, and a gap between hunks is one `⋯` row with the hunk's heading. Any other
format is shown as raw text. v1 whole-file diffs arrive already translated (the core computes their
patch).

Rendering is bounded (`max_lines` rows of the patch, then "… N more lines"); `full_text()` returns the
file list and the patch as sent, for saving. A folded diff unfolds in place when asked: it can be focused
(Tab) while it has a fold, and Enter or a click on the "… N more lines" row shows up to `UNFOLD_LINES`
more rows (beyond them the row points at `s`, which saves the whole diff). Nothing past the fold is
drawn, highlighted or even kept until then: the rows are parsed again on that request. The rows are built once per diff; each width draws them
(wrapped under their gutter, tinted to the full width) once and keeps the result. Colours come from the
theme's variables and the code theme of Markdown code blocks, never from the patch text, which is
never markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, Final

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.geometry import Size
from textual.widget import Widget

from acp_tui.path_text import NO_CONTEXT, ViewContext
from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch
from acp_tui.sanitize import multiline, plain
from acp_tui.ui.themes import theme_colour
from acp_tui.ui.widgets.markdown_stream import code_theme_for

__all__ = ["MAX_DIFF_LINES", "UNFOLD_LINES", "DiffView", "diff_source", "diff_line_kind", "diff_stats", "diff_rows"]

#: Patch rows rendered before "… N more lines".
MAX_DIFF_LINES: Final = 500
#: Patch rows an unfolded diff shows beyond its fold (the rest: "s saves the whole diff").
UNFOLD_LINES: Final = 5000

_FILE_TYPE_NOTES: Final[dict[str, str]] = {
    "binary": "binary file",
    "directory": "directory",
    "symlink": "symlink",
}
_OPERATION_NOTES: Final[dict[str, str]] = {"add": "new file", "delete": "deleted"}
_KNOWN_OPERATIONS: Final = frozenset({"add", "delete", "modify", "move", "copy"})
_HUNK: Final = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
#: Tint of added and removed rows: the diff colour at this opacity over the view's background.
TINT: Final = 0.14


def _change_line(change: DiffChange, has_patch: bool, context: ViewContext = NO_CONTEXT) -> tuple[str, str, str]:
    """(operation, path text, note) for one file change."""
    path = context.path(change.path)
    if isinstance(change.old_path, str) and change.old_path:
        path = f"{context.path(change.old_path)} → {path}"
    file_type = change.file_type if isinstance(change.file_type, str) else None
    notes: list[str] = []
    if change.operation in _OPERATION_NOTES:
        notes.append(_OPERATION_NOTES[change.operation])
    elif change.operation not in _KNOWN_OPERATIONS:
        notes.append(plain(change.operation))
    if file_type in _FILE_TYPE_NOTES:
        notes.append(_FILE_TYPE_NOTES[file_type])
    elif file_type not in (None, "text"):
        notes.append(plain(file_type))
    elif not has_patch and change.operation in ("add", "modify"):
        notes.append("no patch text")
    return plain(change.operation), path, ", ".join(notes)


def diff_source(item: Diff) -> tuple[list[tuple[str, str, str]], str | None, str]:
    """(file list, patch text or None, patch format) of a diff, sanitized (paths as `display_path`)."""
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


# -- parsing -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    """One displayed row of a diff.

    kind: "file" (a file's path and note), "gap" (between hunks, with the hunk heading), "context",
    "added", "removed", "note" (`\\ No newline at end of file`), or "raw" (a patch in another format).
    """

    kind: str
    text: str
    old: int | None = None
    new: int | None = None
    note: str = ""
    #: the file the row belongs to (for syntax colour), as the patch names it
    path: str = ""


def _patch_path(line: str) -> str:
    """The path of a `+++ b/x`, `--- a/x` or `diff --git a/x b/y` header (the new side)."""
    if line.startswith("diff --git "):
        rest = line[len("diff --git ") :]
        parts = rest.split(" ")
        candidate = parts[-1] if parts else rest
    else:
        candidate = line[4:].split("\t", 1)[0]
    if candidate.startswith(("a/", "b/")):
        candidate = candidate[2:]
    return "" if candidate == "/dev/null" else candidate


def _same_file(one: str, other: str) -> bool:
    """The same file, named absolute or relative (`/p/notes/a.txt` and `notes/a.txt`)."""
    return one == other or one.endswith("/" + other.lstrip("/")) or other.endswith("/" + one.lstrip("/"))


def _matches(change: DiffChange, patch_path: str) -> bool:
    path = change.path
    return bool(patch_path) and (path == patch_path or path.endswith("/" + patch_path.lstrip("/")))


def diff_rows(
    item: Diff, context: ViewContext = NO_CONTEXT, *, hide_path: str | None = None, said: bool = False
) -> list[Row]:
    """The rows of a diff: each file's path once, then its hunks (git patches), or the raw patch.

    `hide_path`: a one-file diff of that path starts with its lines, unless its file row has a note to
    add (a new or deleted file); `said`: the line above says what happened to it too (a file access)."""
    patch = item.patch if isinstance(item.patch, DiffPatch) else None
    changes = list(item.changes)
    lines = [_change_line(change, patch is not None, context) for change in changes]
    hidden = (
        hide_path is not None
        and len(changes) == 1
        and _same_file(changes[0].path, hide_path)
        and (said or not lines[0][2])
    )

    def file_row(index: int) -> Row:
        _, path, note = lines[index]
        return Row("file", path, note=note, path=changes[index].path)

    if patch is None or plain(patch.format) != "git_patch":
        rows = [] if hidden else [file_row(index) for index in range(len(changes))]
        if patch is not None:
            rows.append(Row("note", f"patch ({plain(patch.format)}):"))
            rows.extend(Row("raw", line) for line in multiline(patch.text).rstrip("\n").split("\n"))
        return rows
    rows = []
    used: set[int] = set()
    section: str | None = None  # the path of the file whose hunks follow
    remaining_old = remaining_new = 0
    in_hunk = hunks_in_section = 0
    old = new = 0

    def start_section(path: str) -> None:
        nonlocal section, hunks_in_section
        section = path
        hunks_in_section = 0
        index = next((i for i, change in enumerate(changes) if i not in used and _matches(change, path)), None)
        if index is not None:
            used.add(index)
            if not hidden:
                rows.append(file_row(index))
        elif path:
            rows.append(Row("file", context.path(path) if path.startswith("/") else plain(path), path=path))

    for line in multiline(patch.text).rstrip("\n").split("\n"):
        counted = in_hunk and (remaining_old > 0 or remaining_new > 0)
        if not counted and line.startswith("diff --git "):
            in_hunk = 0
            start_section(_patch_path(line))
            continue
        if not counted and (match := _HUNK.match(line)):
            if section is None:
                start_section("")
            old, new = int(match.group(1)), int(match.group(3))
            remaining_old = int(match.group(2)) if match.group(2) is not None else 1
            remaining_new = int(match.group(4)) if match.group(4) is not None else 1
            if hunks_in_section:
                rows.append(Row("gap", plain(match.group(5)), path=section or ""))
            hunks_in_section += 1
            in_hunk = 1
            continue
        if not in_hunk:
            if line.startswith("+++ "):
                path = _patch_path(line) or section or ""
                if section is None or (path and path != section and not rows):
                    start_section(path)
            elif line.startswith("Binary files "):
                if section is None:
                    start_section("")
            continue  # index, mode, rename, similarity, --- lines: the file row says it
        path = section or ""
        if line.startswith("+"):
            rows.append(Row("added", line[1:], new=new, path=path))
            new += 1
            remaining_new -= 1
        elif line.startswith("-"):
            rows.append(Row("removed", line[1:], old=old, path=path))
            old += 1
            remaining_old -= 1
        elif line.startswith("\\"):
            rows.append(Row("note", line))
        else:
            rows.append(Row("context", line[1:] if line.startswith(" ") else line, old=old, new=new, path=path))
            old += 1
            new += 1
            remaining_old -= 1
            remaining_new -= 1
    if not hidden:
        rows.extend(file_row(index) for index in range(len(changes)) if index not in used)
    return rows


def diff_stats(item: Diff) -> tuple[int, int] | None:
    """(added, removed) lines of a git patch; None when there is no patch to count."""
    patch = item.patch if isinstance(item.patch, DiffPatch) else None
    if patch is None or plain(patch.format) != "git_patch":
        return None
    added = removed = 0
    for row in diff_rows(item):
        if row.kind == "added":
            added += 1
        elif row.kind == "removed":
            removed += 1
    return added, removed


# -- syntax colour -----------------------------------------------------------------------------------


@lru_cache(maxsize=128)
def _lexer_for(name: str) -> Lexer | None:
    """The Pygments lexer for a file name (by its name or extension); None when unknown."""
    if not name:
        return None
    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _strip_background(text: Text) -> Text:
    """Token colours only: the row's tint is the background."""
    text.spans = [
        span._replace(
            style=Style(
                color=span.style.color, bold=span.style.bold, italic=span.style.italic, underline=span.style.underline
            )
        )
        if isinstance(span.style, Style) and span.style.bgcolor is not None
        else span
        for span in text.spans
    ]
    text.style = ""
    return text


def _highlight(rows: list[Row], code_theme: str) -> dict[int, Text]:
    """Syntax-coloured code per row index: each hunk's old side (context and removed rows) and new side
    (context and added rows) are highlighted as a whole, so strings and comments that span rows keep
    their colour."""
    out: dict[int, Text] = {}
    sides: dict[str, list[int]] = {"old": [], "new": []}
    path = ""

    def flush() -> None:
        lexer = _lexer_for(path.rsplit("/", 1)[-1])
        for side, indexes in sides.items():
            if lexer is None or not indexes:
                indexes.clear()
                continue
            code = "\n".join(rows[i].text for i in indexes)
            lines = _strip_background(Syntax(code, lexer, theme=code_theme).highlight(code)).split("\n")
            for position, index in enumerate(indexes):
                if position < len(lines) and (side == "new" or index not in out):
                    out[index] = lines[position]
            indexes.clear()

    for index, row in enumerate(rows):
        if row.kind in ("file", "gap") or row.path != path:
            flush()
            path = row.path
        if row.kind in ("context", "removed"):
            sides["old"].append(index)
        if row.kind in ("context", "added"):
            sides["new"].append(index)
    flush()
    return out


#: Code colours read at least this well on the row they are drawn on (WCAG 2, normal text), else the
#: row's own text colour is used for that token.
MIN_CONTRAST: Final = 4.5


def _luminance(colour: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


@lru_cache(maxsize=1024)
def _readable(colour: str, background: str) -> bool:
    """Does a token colour read on a row background (both `#rrggbb`)?"""
    lighter, darker = sorted((_luminance(Color.parse(colour)), _luminance(Color.parse(background))), reverse=True)
    return (lighter + 0.05) / (darker + 0.05) >= MIN_CONTRAST


def _readable_code(code: Text, row: Style) -> Text:
    """`code` with every token colour that would not read on the row's background replaced by the row's
    text colour (a code theme is made for its own background, not for our tinted rows)."""
    background, fallback = row.bgcolor, row.color
    if background is None or background.triplet is None or fallback is None:
        return code
    under = background.triplet.hex
    spans = []
    for span in code.spans:
        style = span.style
        if (
            isinstance(style, Style)
            and style.color is not None
            and style.color.triplet is not None
            and not _readable(style.color.triplet.hex, under)
        ):
            span = span._replace(style=style + Style(color=fallback))
        spans.append(span)
    code.spans = spans
    return code


# -- the widget --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Palette:
    """The Rich styles a diff is drawn with, from the theme (cached per theme and background)."""

    base: Style
    muted: Style
    path: Style
    added: Style
    removed: Style
    added_sign: Style
    removed_sign: Style
    added_number: Style
    removed_number: Style


def _palette(variables: dict[str, str], background: Color) -> _Palette:
    foreground = theme_colour(variables.get("foreground", "#c0caf5"), background)
    muted = theme_colour(variables.get("text-muted", "auto 60%"), background)
    # A palette may name its row tints; any other theme gets its diff colours at `TINT`.
    added = (
        theme_colour(variables["diff-added-background"], background)
        if "diff-added-background" in variables
        else theme_colour(variables.get("diff-added", "#9ece6a"), background, TINT)
    )
    removed = (
        theme_colour(variables["diff-removed-background"], background)
        if "diff-removed-background" in variables
        else theme_colour(variables.get("diff-removed", "#f7768e"), background, TINT)
    )
    added_fg = theme_colour(variables.get("diff-added", "#9ece6a"), added)
    removed_fg = theme_colour(variables.get("diff-removed", "#f7768e"), removed)
    return _Palette(
        base=Style(color=foreground.rich_color, bgcolor=background.rich_color),
        muted=Style(color=muted.rich_color),
        path=Style(color=foreground.rich_color, bold=True),
        added=Style(color=foreground.rich_color, bgcolor=added.rich_color),
        removed=Style(color=foreground.rich_color, bgcolor=removed.rich_color),
        added_sign=Style(color=added_fg.rich_color, bold=True),
        removed_sign=Style(color=removed_fg.rich_color, bold=True),
        added_number=Style(color=theme_colour(variables.get("text-muted", "auto 60%"), added).rich_color),
        removed_number=Style(color=theme_colour(variables.get("text-muted", "auto 60%"), removed).rich_color),
    )


class DiffView(Widget):
    """The file changes of one `Diff` tool-call content item, drawn as a numbered unified diff."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "unfold", "Show the folded lines", show=False)]

    DEFAULT_CSS = """
    DiffView {
        height: auto;
        width: 1fr;
    }
    """

    def __init__(
        self,
        item: Diff,
        *,
        max_lines: int = MAX_DIFF_LINES,
        context: ViewContext = NO_CONTEXT,
        hide_path: str | None = None,
        said: bool = False,
        unfold_lines: int = UNFOLD_LINES,
    ) -> None:
        """`hide_path`: the path its card already shows (a one-file diff then starts with its lines);
        `said`: what happened to that file is said above too (see `diff_rows`); `unfold_lines`: rows an
        unfold adds."""
        super().__init__()
        self.item = item
        self._files, self._patch, self._format = diff_source(item)
        self._max_lines = max_lines
        self._view_context = context
        self._hide_path = hide_path
        self._said = said
        self._unfold_lines = unfold_lines
        self._unfolded = False
        self._rows, self._hidden = self._bounded(max_lines)
        self.can_focus = bool(self._hidden)  # a fold is something to act on
        self._code: dict[int, Text] | None = None
        self._code_theme = ""
        self._cache: dict[tuple[int, str, str, bool], list[Text]] = {}

    def _bounded(self, limit: int) -> tuple[list[Row], int]:
        """The rows up to `limit` patch rows, and how many patch rows are left out."""
        all_rows = diff_rows(self.item, self._view_context, hide_path=self._hide_path, said=self._said)
        body = [index for index, row in enumerate(all_rows) if row.kind != "file"]
        cut = len(all_rows) if len(body) <= limit else body[limit]
        return all_rows[:cut], sum(1 for row in all_rows[cut:] if row.kind != "file")

    @property
    def unfolded(self) -> bool:
        """Was the fold opened?"""
        return self._unfolded

    def unfold(self) -> None:
        """Show the folded rows in place, up to `unfold_lines` more (once; nothing when there is no fold)."""
        if not self._hidden or self._unfolded:
            return
        self._unfolded = True
        self._rows, self._hidden = self._bounded(self._max_lines + self._unfold_lines)
        self._code = None
        self._cache = {}
        had_focus = self.has_focus
        self.can_focus = False
        if had_focus:  # the focus goes to what holds the diff (a card), else nowhere
            holder = next((node for node in self.ancestors if isinstance(node, Widget) and node.focusable), None)
            self.screen.set_focus(holder)
        self.refresh(layout=True)

    def action_unfold(self) -> None:
        self.unfold()

    def on_click(self, event: events.Click) -> None:
        """A click on the "… N more lines" row unfolds (a click elsewhere is the holder's)."""
        offset = event.get_content_offset(self)
        if self._hidden and not self._unfolded and offset is not None and offset.y == self.content_size.height - 1:
            event.stop()
            self.unfold()

    def on_focus(self, event: events.Focus) -> None:
        self.refresh()  # the fold row says what Enter does

    def on_blur(self, event: events.Blur) -> None:
        self.refresh()

    @property
    def hidden_lines(self) -> int:
        """Patch rows not rendered because of the bound."""
        return self._hidden

    def full_text(self) -> str:
        """The whole diff as plain text: file list, then the patch as sent (for saving)."""
        lines = [f"{path}" + (f"  ({note})" if note else "") for _, path, note in self._files]
        if self._patch is not None:
            lines.append(self._patch.rstrip("\n"))
        return "\n".join(lines)

    # -- drawing -----------------------------------------------------------------------------

    def _lines(self, width: int) -> list[Text]:
        width = max(width, 8)
        theme = self.app.theme
        code_theme = code_theme_for(self.app.current_theme.dark, self.app.current_theme.ansi)
        background = self.background_colors[1]
        key = (width, theme, background.hex, self.has_focus)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if self._code is None or code_theme != self._code_theme:
            self._code = _highlight(self._rows, code_theme)
            self._code_theme = code_theme
        lines = self._draw(width, _palette(self.app.theme_variables, background), self._code)
        self._cache = {key: lines}  # one width at a time (a resize draws again)
        return lines

    def _draw(self, width: int, palette: _Palette, code: dict[int, Text]) -> list[Text]:
        numbers = [n for row in self._rows for n in (row.old, row.new) if n is not None]
        digits = len(str(max(numbers))) if numbers else 1
        gutter = digits * 2 + 4  # "old new s "
        lines: list[Text] = []
        console = self.app.console
        for index, row in enumerate(self._rows):
            if row.kind == "file":
                line = Text(row.text, palette.path)
                if row.note:
                    line.append(f"  ({row.note})", palette.muted)
                lines.extend(line.wrap(console, width))
                continue
            if row.kind == "gap":
                line = Text(" " * (digits * 2 + 1) + " ⋯", palette.muted)
                if row.text:
                    line.append(f"  {row.text}", palette.muted)
                lines.extend(line.wrap(console, width))
                continue
            if row.kind in ("note", "raw"):
                lines.extend(Text(row.text, palette.muted if row.kind == "note" else palette.base).wrap(console, width))
                continue
            style, sign, sign_style, number_style = {
                "added": (palette.added, "+", palette.added_sign, palette.added_number),
                "removed": (palette.removed, "-", palette.removed_sign, palette.removed_number),
            }.get(row.kind, (palette.base, " ", palette.muted, palette.muted))
            head = Text()
            head.append(f"{row.old if row.old is not None else '':>{digits}} ", number_style)
            head.append(f"{row.new if row.new is not None else '':>{digits}} ", number_style)
            head.append(f"{sign} ", sign_style)
            body = Text(style=style)
            body.append_text(
                _readable_code(code[index].copy(), style) if index in code else Text(row.text.expandtabs(4))
            )
            pieces = body.wrap(console, max(width - gutter, 4), overflow="fold") if body.plain else [Text()]
            for position, piece in enumerate(pieces):
                line = Text(style=style)
                line.append_text(head if position == 0 else Text(" " * gutter))
                line.append_text(piece)
                if row.kind != "context":
                    line.pad_right(max(0, width - line.cell_len))
                lines.append(line)
        if self._hidden:
            lines.append(self._fold_text(palette))
        for line in lines:
            line.no_wrap = True
            line.end = ""
        return lines

    def _fold_text(self, palette: _Palette) -> Text:
        """The "… N more lines" row: what Enter does once the diff is focused; once unfolded, `s`."""
        more = f"… {self._hidden} more {'line' if self._hidden == 1 else 'lines'}"
        if self._unfolded:
            return Text(f"{more} — s saves the whole diff", palette.muted + Style(italic=True))
        if self.has_focus:
            return Text(f"{more} — ⏎ shows them, s saves the whole diff", palette.path + Style(italic=True))
        return Text(f"{more} (press s to save)", palette.muted + Style(italic=True))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Text:
        text = Text("\n", no_wrap=True, end="").join(self._lines(self.content_size.width))
        text.no_wrap = True
        return text

    def content_lines(self) -> list[str]:
        """The rendered rows as plain text, one string per line (for tests and copying)."""
        return [line.plain.rstrip() for line in self._lines(self.content_size.width or 120)]
