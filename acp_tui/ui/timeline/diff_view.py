"""A tool call's file changes as a unified diff: old/new line numbers, tinted added and removed lines,
syntax colour where the file's language is known, the path once.

v2 `Diff` (docs/protocol.md §6.3): `changes` is authoritative for the file list (moves and copies read
`oldPath → path`; added, deleted, binary, directory and symlink files say so; an unknown operation is
shown as sent); `patch` is optional. A `git_patch` is parsed by the hunk model below the UI
(`acp_tui/session/diffs.py`, the same files, hunks and rows hunk review works on): each file's headers
are reduced to its path (relative to the session folder), each line gets its old and new number, a line
without a final line break is followed by git's note, and a gap between hunks is one `⋯` row with the
hunk's heading. Any other format is shown as raw text. v1 whole-file diffs arrive already translated
(the core computes their patch with the same model). This module only lays the rows out and draws them.

Rendering is bounded (`max_lines` rows of the patch, then "… N more lines"); `full_text()` returns the
file list and the patch as sent, for saving. A folded diff unfolds in place when asked: it can be focused
(Tab) while it has a fold, and Enter or a click on the "… N more lines" row shows up to `UNFOLD_LINES`
more rows (beyond them the row points at `s`, which saves the whole diff). Nothing past the fold is
drawn, highlighted or even kept until then (the model keeps that many rows and counts the rest): the rows
are parsed again on that request. The rows are built once per diff; each width draws them
(wrapped under their gutter, tinted to the full width) once and keeps the result. Colours come from the
theme's variables and the code theme of Markdown code blocks, never from the patch text, which is
never markup.
"""

from __future__ import annotations

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
from acp_tui.session.diffs import DEFAULT_LIMITS, NO_NEWLINE, Limits, Patch, parse_patch
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


# -- rows --------------------------------------------------------------------------------------------


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


def _same_file(one: str, other: str) -> bool:
    """The same file, named absolute or relative (`/p/notes/a.txt` and `notes/a.txt`)."""
    return one == other or one.endswith("/" + other.lstrip("/")) or other.endswith("/" + one.lstrip("/"))


def _matches(change: DiffChange, patch_path: str) -> bool:
    path = change.path
    return bool(patch_path) and (path == patch_path or path.endswith("/" + patch_path.lstrip("/")))


def _parsed(item: Diff, limits: Limits) -> Patch | None:
    """The hunks of a diff's `git_patch` (sanitized first: what is drawn is what was parsed); None when
    there is none."""
    patch = item.patch if isinstance(item.patch, DiffPatch) else None
    if patch is None or plain(patch.format) != "git_patch":
        return None
    return parse_patch(multiline(patch.text), limits)


def _display(
    item: Diff, context: ViewContext, *, hide_path: str | None, said: bool, limits: Limits
) -> tuple[list[Row], int]:
    """The rows of a diff within `limits`, and how many rows the limits left out (rows, `\\ No newline`
    notes and gaps between hunks; file rows are not counted)."""
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

    parsed = _parsed(item, limits)
    if patch is None or parsed is None:
        rows = [] if hidden else [file_row(index) for index in range(len(changes))]
        if patch is None:
            return rows, 0
        rows.append(Row("note", f"patch ({plain(patch.format)}):"))
        raw = multiline(patch.text).rstrip("\n")
        pieces = raw.split("\n", limits.rows)  # the rows kept, and the rest in one piece
        rows.extend(Row("raw", line) for line in pieces[: limits.rows])
        return rows, (raw.count("\n") + 1 - limits.rows if len(pieces) > limits.rows else 0)
    rows = []
    used: set[int] = set()
    for file in parsed.files:
        path = file.path
        index = next((i for i, change in enumerate(changes) if i not in used and _matches(change, path)), None)
        if index is not None:
            used.add(index)
            if not hidden:
                rows.append(file_row(index))
        elif path:
            rows.append(Row("file", context.path(path) if path.startswith("/") else plain(path), path=path))
        for number, hunk in enumerate(file.hunks):
            if number:
                rows.append(Row("gap", plain(hunk.heading), path=path))
            for row in hunk.rows:
                rows.append(Row(row.kind, row.text, old=row.old, new=row.new, path=path))
                if not row.ending:
                    rows.append(Row("note", NO_NEWLINE))
    if not hidden:
        rows.extend(file_row(index) for index in range(len(changes)) if index not in used)
    omitted = parsed.omitted
    return rows, omitted.rows + omitted.markers + omitted.later_hunks


def diff_rows(
    item: Diff, context: ViewContext = NO_CONTEXT, *, hide_path: str | None = None, said: bool = False
) -> list[Row]:
    """The rows of a diff: each file's path once, then its hunks (git patches), or the raw patch; an
    agent's huge patch is cut at `DEFAULT_LIMITS`.

    `hide_path`: a one-file diff of that path starts with its lines, unless its file row has a note to
    add (a new or deleted file); `said`: the line above says what happened to it too (a file access)."""
    return _display(item, context, hide_path=hide_path, said=said, limits=DEFAULT_LIMITS)[0]


def diff_stats(item: Diff) -> tuple[int, int] | None:
    """(added, removed) lines of a git patch, all of it counted; None when there is no patch to count."""
    parsed = _parsed(item, Limits(files=0, hunks=0, rows=0))  # counts only: no row is built
    return None if parsed is None else (parsed.added, parsed.removed)


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
        """The rows up to `limit` patch rows, and how many patch rows are left out (the hunk model keeps
        `limit` rows and counts the rest: an agent's 100 MB patch builds no more)."""
        all_rows, omitted = _display(
            self.item,
            self._view_context,
            hide_path=self._hide_path,
            said=self._said,
            limits=Limits(files=DEFAULT_LIMITS.files, hunks=limit, rows=limit),
        )
        body = [index for index, row in enumerate(all_rows) if row.kind != "file"]
        if len(body) > limit:
            cut = body[limit]
        else:  # what the model left out comes after the last row it kept, file rows and all
            cut = body[-1] + 1 if omitted and body else len(all_rows)
        return all_rows[:cut], sum(1 for row in all_rows[cut:] if row.kind != "file") + omitted

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
