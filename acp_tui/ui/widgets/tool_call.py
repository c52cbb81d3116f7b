"""A tool call (docs/protocol.md §6): one line, and a body below it while it runs, when it failed, or
when the user opens it.

The line reads `✓ ✎ Edit src/greet.py · +3 −2 ▸`: the status glyph (`GLYPHS`, coloured from the
theme), the kind icon, the title (paths in it relative to the session folder), the path the call works
on when the title does not already name it, a short result once it is done (`+12 −3` for diffs,
`exit 0 · 1.2 s` for a terminal, `12 lines` or the one line of a text result; how long it ran, as the
timeline measured it), all separated by ` · `, and `▸`/`▾` when there
is a body to open. There are no borders: the body's blocks are indented under the title and tinted.
A finished command keeps the last lines of its output under its line while closed (`output_tail`).

A timeline can hold hundreds of cards, so a card is cheap: while it is collapsed (or has nothing to
show) it is one widget drawing that line with `render()`. The body (content items, locations, raw JSON,
terminal slots) is built from the model the first time it has to be shown, and from then on is
patched part by part: `apply_fields` re-renders only what an `EntityChanged` names, `append_content`
mounts one item (consecutive text items stream into one `MarkdownStream`, a diff is one widget), and
`replace_content` rebuilds only the item list. Nothing ever recomposes the card.

The title is agent data: it is sanitized and drawn as plain `Text` inside the card's own frame after
the kind icon, so "[ Allow always ]" or "[bold]x[/]" shows literally and never looks like a button of
ours. Rendering is bounded (lines per text run, content items, raw JSON lines); the "… N more" rows
point at `s` (save), and `full_text()` returns everything.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Final, TypeAlias

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.containers import Vertical
from textual.geometry import Size
from textual.widget import Widget

from acp_tui.path_text import NO_CONTEXT, ViewContext
from acp_tui.protocol.v2 import Diff, TerminalRef, TextContent, ToolContent, UnknownToolContent
from acp_tui.sanitize import escape_controls, multiline, plain
from acp_tui.session.model import EntityKey, ToolCall
from acp_tui.ui.themes import theme_colour
from acp_tui.ui.widgets.card_requests import CANCEL_CALL_KEY, CancelRequested, SaveRequested
from acp_tui.ui.widgets.content_blocks import (
    MAX_JSON_LINES,
    TextStatic,
    block_chip,
    block_widget,
    head_lines,
    more_lines_text,
    pretty_json,
)
from acp_tui.ui.widgets.diff_view import DiffView, diff_stats
from acp_tui.ui.widgets.exit_status import elapsed_text, exit_text, span_text
from acp_tui.ui.widgets.file_access import FileAccessList, access_text
from acp_tui.ui.widgets.icons import GLYPHS, Pill, kind_icon, status_pill
from acp_tui.ui.widgets.markdown_stream import MarkdownStream
from acp_tui.ui.widgets.output_tail import CommandReport, Tail, command_report, tail_of_text

__all__ = ["MAX_TEXT_LINES", "MAX_ITEMS", "ToolCallCard", "TerminalFactory", "tool_content_text"]

#: Lines of one text run (consecutive text items) rendered before "… N more lines".
MAX_TEXT_LINES: Final = 500
#: Content items mounted before "… N more items".
MAX_ITEMS: Final = 200

#: Given a terminal id, returns a widget showing that terminal (or `None` if it is not known yet).
TerminalFactory = Callable[[str], Widget | None]

_SAVE_HINT: Final = " (press s to save)"
#: Diff rows shown in an open card before "… N more lines" (the saved output has them all).
MAX_CARD_DIFF_LINES: Final = 60
#: A text result this short (one line) is the card's result itself; longer ones are counted.
_SHORT_RESULT: Final = 48
#: A call other than a command shows how long it ran from this many seconds (a slow fetch, a long search).
_WORTH_TIMING: Final = 1.0


def _pill(call: ToolCall) -> Pill:
    """The status pill, with the display-only flags (cancelling, interrupted, rejected) taken into account."""
    return status_pill(call.status, call.cancelling, call.interrupted, call.rejected)


def tool_content_text(item: Any) -> str:
    """One tool-call content item as plain text (for saving and copying)."""
    if isinstance(item, ToolContent):
        block = item.content
        if isinstance(block, TextContent):
            return multiline(block.text)
        return block_chip(block).plain
    if isinstance(item, Diff):
        return DiffView(item).full_text()
    if isinstance(item, TerminalRef):
        return f"[terminal {plain(item.terminal_id)}]"
    if isinstance(item, UnknownToolContent):
        return f"[unsupported tool content: {plain(item.type)}]"
    return "[unsupported tool content]"


def _is_text(item: Any) -> bool:
    return isinstance(item, ToolContent) and isinstance(item.content, TextContent)


class _TextRun:
    """Consecutive text items streamed into one `MarkdownStream`, bounded to `max_lines` lines.

    Not a widget itself: the stream is a body item, and a "… N more lines" row is created (once)
    only when the bound is hit.
    """

    def __init__(self, max_lines: int) -> None:
        self.stream = MarkdownStream()
        self.more: TextStatic | None = None
        self._max_lines = max_lines
        self._newlines = 0
        self._ends_with_newline = False
        self._full = False

    @property
    def hidden_lines(self) -> int:
        if not self._full:
            return 0
        total = self._newlines + (0 if self._ends_with_newline else 1)
        return max(0, total - self._max_lines)

    def append(self, text: str) -> TextStatic | None:
        """Stream `text`; returns the "more lines" row when this append created it (to be placed)."""
        if not text:
            return None
        text = multiline(text)
        before = self._newlines
        self._newlines += text.count("\n")
        if text:
            self._ends_with_newline = text.endswith("\n")
        if self._full:
            assert self.more is not None
            self.more.update(more_lines_text(self.hidden_lines, _SAVE_HINT))
            return None
        if self._newlines < self._max_lines:
            self.stream.append(text)
            return None
        head, _ = head_lines(text, self._max_lines - before)
        self.stream.append(head)
        self._full = True
        self.more = TextStatic(more_lines_text(self.hidden_lines, _SAVE_HINT), classes="card--more")
        return self.more

    def finish(self) -> None:
        self.stream.finish()


class _TerminalSlot(Vertical):
    """Where a `TerminalRef` sits in the card: a "terminal <id>" line until a view is attached."""

    DEFAULT_CSS = """
    _TerminalSlot { height: auto; width: 1fr; }
    _TerminalSlot > TerminalView { padding: 0; }  /* the slot is the card's indented block already */
    _TerminalSlot > .card--terminal-ref { color: $text-muted; }
    """

    def __init__(self, terminal_id: str, view: Widget | None) -> None:
        super().__init__()
        self.terminal_id = terminal_id
        self.view = view

    def compose(self) -> ComposeResult:
        if self.view is not None:
            yield self.view
        else:
            yield TextStatic(Text(f"▶ terminal {plain(self.terminal_id)}"), classes="card--terminal-ref")

    def attach(self, view: Widget) -> None:
        self.view = view
        self.remove_children()
        self.mount(view)


#: Status glyph colours per variant (theme variables). They are read from the theme's variables (not
#: CSS) so a card needs no styled node for its glyph.
_STATUS_COLOURS: Final[dict[str, str]] = {
    "pending": "text-muted",
    "running": "warning",
    "success": "success",
    "error": "error",
    "cancelled": "text-muted",
    "cancelling": "warning",
    "unknown": "secondary",
}
_status_styles: dict[tuple[str, str, str], Style] = {}


def status_style(variables: dict[str, str], background: Color, variant: str) -> Style:
    """The Rich style of a status glyph of `variant` drawn over `background` (cached per theme)."""
    value = variables.get(_STATUS_COLOURS.get(variant, "secondary"), "auto 60%")
    key = (value, background.hex, variant)
    style = _status_styles.get(key)
    if style is None:
        style = Style(color=theme_colour(value, background).rich_color, bold=variant == "error")
        _status_styles[key] = style
    return style


def _names_word(title: str, word: str) -> bool:
    """Does the title already say `word` (the tool's name), as a word of its own, in any case?"""
    return bool(word) and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", title, re.IGNORECASE) is not None


def _names_path(title: str, path: str) -> bool:
    """Does the title already name this path (whole, or by a word that is its end: `notes/a.txt`)?"""
    if not path:
        return False
    if path in title:
        return True
    for word in title.split():
        word = word.strip("`'\"()[]{},:;")
        if ("/" in word or "." in word) and path.endswith("/" + word.removeprefix("./")):
            return True
    return False


def _strip_fence(text: str) -> str:
    """A text result without the Markdown fence around it (a read tool's "```python … ```")."""
    lines = text.strip("\n").split("\n")
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        lines = lines[1:-1]
    return "\n".join(lines)


class _CardHeader(Widget):
    """The header row(s) as a widget of their own, used once the card has a body below them."""

    DEFAULT_CSS = """
    _CardHeader { height: auto; width: 1fr; }
    """

    def __init__(self, card: ToolCallCard) -> None:
        super().__init__(classes="card--title")
        self._card = card

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._card._header_height(width)

    def render(self) -> Text:
        return self._card._header_render(self.size.width)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self._card.focus()
        self._card.toggle()


class ToolCallCard(Widget, can_focus=True):
    """One tool call, rendered from `call` and patched by the update methods."""

    # defined apart (card_requests.py), so the screen handles them without importing this module
    SaveRequested: TypeAlias = SaveRequested
    CancelRequested: TypeAlias = CancelRequested

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_open", "Expand", show=False),
        Binding("i", "toggle_raw", "Raw input/output", show=False),
        Binding("s", "save", "Save output", show=False),
        Binding(CANCEL_CALL_KEY, "cancel_call", "Cancel this tool call", show=False),
    ]

    DEFAULT_CSS = """
    ToolCallCard {
        layout: vertical;
        height: auto;
        width: 1fr;
        padding: 0 1;
    }
    ToolCallCard:focus { background: $boost; outline-left: thick $primary; }  /* a bar, ≥ 3:1 in both themes */
    ToolCallCard > * { display: none; margin: 0 0 0 2; padding: 0 1 0 2; background: $surface; }
    ToolCallCard > _CardHeader { display: block; margin: 0; padding: 0; background: transparent; }
    ToolCallCard.-expanded > * { display: block; }
    ToolCallCard.-error > * { background: $error 10%; }
    ToolCallCard.-error > _CardHeader { background: transparent; }
    ToolCallCard.-error:ansi > * { background: transparent; }  /* an ANSI colour cannot be a tint */
    ToolCallCard > MarkdownStream { padding: 0 1 0 2; }
    ToolCallCard > .card--more { color: $text-muted; }
    ToolCallCard > .card--locations { color: $text-muted; }
    ToolCallCard > .card--raw { color: $text-muted; }
    ToolCallCard.-expanded > .card--raw { display: none; }
    ToolCallCard.-expanded.-raw > .card--raw { display: block; }
    """

    def __init__(
        self,
        call: ToolCall,
        *,
        terminal_factory: TerminalFactory | None = None,
        max_text_lines: int = MAX_TEXT_LINES,
        max_items: int = MAX_ITEMS,
        context: ViewContext = NO_CONTEXT,
        took: Callable[[EntityKey], float | None] | None = None,
    ) -> None:
        super().__init__()
        self.call = call
        self.context = context
        self._took = took  # how long the call ran, as the timeline measured it
        self._terminal_factory = terminal_factory
        self._max_text_lines = max_text_lines
        self._max_items = max_items
        self._user_expanded: bool | None = None
        self._ready = False  # mounted: the body may be built and patched from now on
        self._deferring_terminals = False
        # The body (the children below the header) exists only once it has to be shown; see
        # `_ensure_body`. Its widgets are the card's own children, so an open card with one text
        # run is three widgets: the card, the header and the stream.
        self._built = False
        self._items: list[Widget] = []  # body item widgets, in order (text-run "more" rows included)
        self._slots: list[_TerminalSlot] = []
        self._items_shown = 0
        self._items_hidden = 0
        self._last_run: _TextRun | None = None
        self._more_items: TextStatic | None = None
        self._locations: TextStatic | None = None
        self._files: FileAccessList | None = None  # files the client read or wrote for this call
        self._raw: TextStatic | None = None
        self._header: _CardHeader | None = None  # drawn by the card itself until there is a body
        self._header_cache: tuple[int, list[Text]] | None = None
        self._details_drawn = False  # whether the header's arrow was drawn (there is a body to open)
        self._tail_rows: tuple[int, int, bool] = (0, 0, False)  # output tail rows in the layout: first, count, failed
        self._stats: dict[int, tuple[Diff, tuple[int, int] | None]] = {}  # by diff, kept with it
        self.set_class(_pill(call).variant == "error", "-error")
        self.set_class(self.default_expanded(), "-expanded")

    # -- composition -------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._ready = True
        self._ensure_body()

    # -- the line: status glyph, kind icon, title, path, result, and an arrow when it opens ------

    def _header_layout(self, width: int) -> list[Text]:
        """The line at `width` cells, wrapped under the title when it does not fit (unstyled glyph,
        so measuring needs no styles)."""
        cached = self._header_cache
        if cached is not None and cached[0] == width:
            return cached[1]
        self._details_drawn = self._has_details()
        glyph = self.pill_text.split(" ", 1)[0]
        lines = []
        for index, line in enumerate(self._title_text().wrap(self.app.console, max(1, width - 2))):
            row = Text(f"{glyph} " if index == 0 else "  ")
            row.append_text(line)
            lines.append(row)
        tail = self.output_tail()
        if tail is not None:
            self._tail_rows = (len(lines) + (1 if tail.hidden else 0), len(tail.lines), tail.failed)  # the gutter rows
            lines.extend(tail.rows(width))
        else:
            self._tail_rows = (0, 0, False)
        self._header_cache = (width, lines)
        return lines

    def _header_height(self, width: int) -> int:
        return len(self._header_layout(width)) if width > 0 else 1

    def _header_render(self, width: int) -> Text:
        """The line with the status glyph coloured from the theme."""
        rows = self._header_layout(width)
        text = Text("\n").join(rows)
        variant = _pill(self.call).variant
        background = self.background_colors[1]
        text.stylize(status_style(self.app.theme_variables, background, variant), 0, 1)
        first, count, failed = self._tail_rows
        if failed:  # a failed command's output is marked by its gutter, in the error colour
            error = status_style(self.app.theme_variables, background, "error")
            offset = sum(len(row) + 1 for row in rows[:first])
            for row in rows[first : first + count]:
                text.stylize(error, offset + 2, offset + 3)
                offset += len(row) + 1
        return text

    def _header_changed(self) -> None:
        """The title, arrow or pill changed: draw the header again (its height may change too)."""
        self._header_cache = None
        if self._header is not None:
            self._header.refresh(layout=True)
        else:
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not self._built:
            return self._header_height(width)
        return super().get_content_height(container, viewport, width)

    def render(self) -> Text:
        if self._header is not None:
            return Text()
        return self._header_render(self.content_size.width)

    def on_click(self, event: events.Click) -> None:
        if self._header is None:  # the card is just its header
            event.stop()
            self.focus()
            self.toggle()

    def _title_text(self) -> Text:
        """Kind icon, title, path, result and arrow (everything after the status glyph)."""
        call = self.call
        text = Text()
        text.append(kind_icon(call.kind), style="dim")
        text.append(" ")
        title = self._shown_title()
        if title:
            text.append(title)
        else:
            text.append(f"tool call {plain(call.id)}", style="italic")
        if call.name and not _names_word(title, plain(call.name)):
            text.append(f" · {plain(call.name)}", style="dim")  # `echo hi · Bash`, not `Write a.txt · Write`
        path = self._path_text(title)
        if path:
            text.append(f" · {path}", style="dim")
        result = self.result_text()
        if result:
            text.append(f" · {result}", style="dim")
        if self._has_details():
            text.append(f" {GLYPHS['open'] if self.expanded else GLYPHS['closed']}", style="dim")
        return text

    def _diff_stats(self, diff: Diff) -> tuple[int, int] | None:
        """(added, removed) of one of this call's diffs, counted once (a patch can be long)."""
        cached = self._stats.get(id(diff))
        if cached is None or cached[0] is not diff:
            cached = (diff, diff_stats(diff))
            self._stats[id(diff)] = cached
        return cached[1]

    def _shown_title(self) -> str:
        """The title as shown: an `execute` call's title is its command line, so a control character in it is
        written out (`\x1b`, `\t`) rather than dropped, and what is shown is what runs."""
        call = self.call
        if not call.title:
            return ""
        return self.context.text(escape_controls(call.title) if call.kind == "execute" else call.title)

    def _path_text(self, title: str) -> str:
        """The path the call works on, once: nothing when the title already names it."""
        locations = self.call.locations
        if not locations:
            return ""
        first = locations[0]
        path = self.context.path(first.path)
        more = f" +{len(locations) - 1}" if len(locations) > 1 else ""
        if _names_path(title, path) or _names_path(title, plain(first.path)):
            return more.strip()
        line = f":{first.line}" if isinstance(first.line, int) else ""
        return f"{path}{line}{more}"

    def result_text(self) -> str:
        """The short result after the title: the status in words unless the call completed or runs,
        else what it did (`+12 −3`, `exit 0 · 1.2 s`, `12 lines`, or its one short line of text)."""
        call = self.call
        pill = _pill(call)
        if pill.variant == "running":
            return ""
        if pill.variant != "success":
            word = pill.text.split(" ", 1)[1]
            took = self._duration() if pill.variant == "error" and call.status == "failed" else ""
            return f"{word} · {took}" if took else word
        parts: list[str] = []
        diffs = [item for item in call.content if isinstance(item, Diff)]
        if diffs:
            added = removed = files = 0
            for diff in diffs:
                files += len(diff.changes)
                stats = self._diff_stats(diff)
                if stats is not None:
                    added, removed = added + stats[0], removed + stats[1]
            if files > 1:
                parts.append(f"{files} files")
            if added or removed:
                parts.append(f"+{added} −{removed}")
        timed = False
        for slot in self._slots:
            terminal = getattr(slot.view, "terminal", None)
            if terminal is not None:
                status = exit_text(terminal)[0]
                elapsed = elapsed_text(terminal)
                parts.append(f"{status} · {elapsed}" if elapsed else status)
                timed = timed or bool(elapsed)
        report = self.command_report()
        if report is not None and report.status_text():
            parts.append(report.status_text())  # the tail shows the output; how it ended goes here
        if not parts and not self._shows_text_tail():
            texts = self._content_text()
            if texts.strip():
                body = _strip_fence(multiline(texts))
                lines = body.split("\n")
                first = plain(lines[0]).strip()
                if len(lines) == 1 and len(first) <= _SHORT_RESULT:
                    parts.append(first)
                else:
                    parts.append(f"{len(lines)} lines")
        if not timed and (took := self._duration()):
            parts.append(took)
        return " · ".join(parts)

    def _duration(self) -> str:
        """How long the call ran, as the timeline measured it: always for a command (`exit 0 · 1.2 s`), for
        other calls only when they were slow enough to wonder about (a read's 0.0 s is noise)."""
        took = self._took(self.call.key) if self._took is not None else None
        if took is None:
            return ""
        command = self.call.kind == "execute" or bool(self._slots)
        return span_text(took) if command or took >= _WORTH_TIMING else ""

    def _content_text(self) -> str:
        """The call's text content items, joined (a command's output, a read tool's file)."""
        return "".join(
            item.content.text
            for item in self.call.content
            if isinstance(item, ToolContent) and isinstance(item.content, TextContent)
        )

    def command_report(self) -> CommandReport | None:
        """A command's text content as a shell tool's labelled report (Gemini CLI, Qwen Code), if it is one."""
        if self.call.kind != "execute" or self._slots or not self.call.finished:
            return None
        text = self._content_text()
        if "\n" not in text:  # a report has a trailer line at least
            return None
        return command_report(_strip_fence(multiline(text)))

    def _shows_tail(self) -> bool:
        """A finished call, closed: its command output (if any) shows under the line."""
        return self.call.finished and not self.expanded

    def _shows_text_tail(self) -> bool:
        """Does the tail come from the text content (a command without a terminal)?"""
        return self._shows_tail() and self.call.kind == "execute" and not self._slots

    def output_tail(self) -> Tail | None:
        """The last lines of a finished command's output, shown under its closed card's line: those of
        the terminal it shows, else (an `execute` call) of its text content."""
        if not self._shows_tail():
            return None
        failed = self.call.status == "failed"
        for slot in reversed(self._slots):
            tail_of = getattr(slot.view, "output_tail", None)
            tail: Tail | None = tail_of(failed) if callable(tail_of) else None
            if tail is not None:
                return tail
        if not self._shows_text_tail():
            return None
        report = self.command_report()
        if report is not None:  # what the command printed, not the agent's lines around it
            return tail_of_text(report.output, failed or report.failed)
        return tail_of_text(_strip_fence(self._content_text()), failed)

    def _update_pill(self) -> None:
        self._header_changed()
        self.set_class(_pill(self.call).variant == "error", "-error")

    def _locations_text(self) -> Text:
        text = Text()
        for index, location in enumerate(self.call.locations):
            if index:
                text.append("\n")
            text.append("↳ ")
            text.append(self.context.path(location.path))
            if isinstance(location.line, int):
                text.append(f":{location.line}")
        return text

    def _raw_text(self) -> Text:
        text = Text()
        for label, value in (("input", self.call.raw_input), ("output", self.call.raw_output)):
            if text:
                text.append("\n")
            text.append(f"raw {label}:", style="bold")
            if value is None:
                text.append(" none")
                continue
            head, more = head_lines(pretty_json(value), MAX_JSON_LINES)
            text.append("\n")
            text.append(head)
            if more:
                text.append("\n").append_text(more_lines_text(more, _SAVE_HINT))
        return text

    # -- the body, built on first need -------------------------------------------------------

    def _has_details(self) -> bool:
        """Is there anything for the body to show (the raw view aside)?"""
        return bool(self.call.content or self._lists_locations() or self.call.files)

    def _details_changed(self) -> None:
        """Content or locations changed: the arrow appears or goes when there is something to open."""
        if self._has_details() != self._details_drawn:
            self._header_changed()

    def _needs_body(self) -> bool:
        """Must the body exist now? When it is to be shown, or holds terminal slots to fill."""
        call = self.call
        if self.has_class("-raw"):
            return True
        if self.expanded and self._has_details():
            return True
        return any(isinstance(item, TerminalRef) for item in call.content)

    def _ensure_body(self) -> None:
        """Build the body from the model the first time it is needed (only once mounted)."""
        if self._built or not self._ready or not self._needs_body():
            return
        widgets = self._build_items(self.call.content)
        trailers: list[Widget] = []
        if self._more_items is not None:
            trailers.append(self._more_items)
        if self.call.files:
            self._files = FileAccessList(self.call.files, self._diff_paths(), classes="card--files")
            trailers.append(self._files)
        if self._lists_locations():
            self._locations = TextStatic(self._locations_text(), classes="card--locations")
            trailers.append(self._locations)
        if self.has_class("-raw"):
            self._raw = TextStatic(self._raw_text(), classes="card--raw")
            trailers.append(self._raw)
        self._items = [*widgets]
        self._header = _CardHeader(self)
        self._built = True
        self.mount(self._header, *widgets, *trailers)
        self.refresh()

    def _trailers(self) -> list[Widget]:
        """The rows after the items, in display order (only those that exist)."""
        return [w for w in (self._more_items, self._files, self._locations, self._raw) if w is not None]

    def _mount_trailer(self, widget: Widget) -> None:
        """Mount a new trailer row in its place among the others."""
        order: list[Widget | None] = [self._more_items, self._files, self._locations, self._raw]
        later = [w for w in order[order.index(widget) + 1 :] if w is not None and w.parent is self]
        if later:
            self.mount(widget, before=later[0])
        else:
            self.mount(widget)

    def _mount_items(self, widgets: list[Widget]) -> None:
        """Mount item widgets after the existing items (before the trailer rows)."""
        self._items.extend(widgets)
        trailers = [w for w in self._trailers() if w.parent is self]
        if trailers:
            self.mount(*widgets, before=trailers[0])
        else:
            self.mount(*widgets)

    # -- content items -----------------------------------------------------------------------

    def _item_widgets(self, item: Any) -> list[Widget]:
        """New widgets for one item (none when it streamed into the previous text run)."""
        if _is_text(item):
            text = item.content.text
            if self._last_run is not None:
                more = self._last_run.append(text)
                return [more] if more is not None else []
            run = _TextRun(self._max_text_lines)
            more = run.append(text)
            self._last_run = run
            self._items_shown += 1
            return [run.stream] if more is None else [run.stream, more]
        self._last_run = None
        self._items_shown += 1
        if isinstance(item, ToolContent):
            return [block_widget(item.content)]
        if isinstance(item, Diff):
            shown = self.call.locations[0].path if self.call.locations else None
            return [DiffView(item, max_lines=MAX_CARD_DIFF_LINES, context=self.context, hide_path=shown)]
        if isinstance(item, TerminalRef):
            factory = self._terminal_factory if not self._deferring_terminals else None
            view = factory(item.terminal_id) if factory is not None else None
            slot = _TerminalSlot(item.terminal_id, view)
            self._slots.append(slot)
            return [slot]
        return [TextStatic(Text(tool_content_text(item), style="dim"))]

    def _build_items(self, items: list[Any]) -> list[Widget]:
        widgets: list[Widget] = []
        for item in items:
            joins_run = self._last_run is not None and _is_text(item)
            if self._items_shown >= self._max_items and not joins_run:
                self._items_hidden += 1
                self._last_run = None
                continue
            widgets.extend(self._item_widgets(item))
        self._update_more_items()
        return widgets

    def _update_more_items(self) -> None:
        hidden = self._items_hidden
        if not hidden:
            if self._more_items is not None:
                self._more_items.remove()
                self._more_items = None
            return
        noun = "item" if hidden == 1 else "items"
        text = Text(f"… {hidden} more {noun}{_SAVE_HINT}", style="dim italic")
        if self._more_items is None:
            self._more_items = TextStatic(text, classes="card--more")
            if self._built:
                self._mount_trailer(self._more_items)
            return
        self._more_items.update(text)

    # -- updates from the model --------------------------------------------------------------

    def apply_fields(self, fields: frozenset[str]) -> None:
        """Re-render what shows the changed fields (an `EntityChanged`)."""
        if fields & {"title", "kind", "name"}:
            self._header_changed()
        if fields & {"status", "cancelling", "interrupted", "rejected"}:
            self._update_pill()
            if self.call.finished and self._last_run is not None:
                self._last_run.finish()
        if "locations" in fields:
            self._update_locations()
        if fields & {"raw_input", "raw_output"} and self._raw is not None:
            self._raw.update(self._raw_text())
        if "files" in fields:
            self._update_files()
        if fields & {"status", "kind", "locations", "files"}:
            self._sync_expanded()
        if "locations" in fields:
            self._header_changed()  # the line names the first location
        elif "files" in fields:
            self._details_changed()

    def _diff_paths(self) -> set[str]:
        """The files this call's own diffs show (a file access then needs no second diff)."""
        return {change.path for item in self.call.content if isinstance(item, Diff) for change in item.changes}

    def _update_files(self) -> None:
        """The client read or wrote a file for this call (docs/protocol.md §10.2): list it."""
        if not self._built:
            return
        if self._files is None:
            self._files = FileAccessList(self.call.files, self._diff_paths(), classes="card--files")
            self._mount_trailer(self._files)
        else:
            self._files.sync(self.call.files, self._diff_paths())

    def _lists_locations(self) -> bool:
        """The body lists the locations when there are several (the line names the first)."""
        return len(self.call.locations) > 1

    def _update_locations(self) -> None:
        if not self._built:
            return
        if self._locations is None:
            if not self._lists_locations():
                return
            self._locations = TextStatic(self._locations_text(), classes="card--locations")
            self._mount_trailer(self._locations)
            return
        if self._lists_locations():
            self._locations.update(self._locations_text())
        else:
            self._locations.remove()
            self._locations = None

    def append_content(self, item: Any) -> None:
        """One content item was appended (a `ContentAppended`)."""
        if self._built:
            widgets = self._build_items([item])
            if widgets:
                self._mount_items(widgets)
        self._sync_expanded()
        self._ensure_body()
        self._result_changed()

    def replace_content(self) -> None:
        """The whole content was replaced or cleared (a `ContentReplaced`): rebuild the item list only."""
        self._stats.clear()
        self._result_changed()
        if not self._built:
            self._sync_expanded()
            self._ensure_body()
            return
        self._last_run = None
        self._items_shown = 0
        self._items_hidden = 0
        self._slots = []
        old = self._items
        self._items = []
        # Terminal views in the old slots are only detached once the removal completes, so the
        # factory is asked for the new slots' views after that (it may move those same terminals).
        self._deferring_terminals = True
        try:
            widgets = self._build_items(self.call.content)
        finally:
            self._deferring_terminals = False
        removed = self.remove_children(old)
        if widgets:
            self._mount_items(widgets)
        if self._terminal_factory is not None and self._slots:
            self.call_later(self._fill_terminal_slots, removed)
        self._sync_expanded()

    async def _fill_terminal_slots(self, removed: Awaitable[None]) -> None:
        """Ask the factory for views of the terminal slots still empty (after a content replace)."""
        await removed
        factory = self._terminal_factory
        if factory is None:
            return
        for slot in self._slots:
            if slot.view is None:
                view = factory(slot.terminal_id)
                if view is not None:
                    slot.attach(view)
        self.terminal_changed()

    def _result_changed(self) -> None:
        """Content changed: the line's result (shown once the call is done) or its arrow may differ."""
        if self.call.finished:
            self._header_changed()
        else:
            self._details_changed()

    def terminal_changed(self) -> None:
        """A terminal shown in this card changed (its exit status and output tail are part of the line)."""
        if self.call.finished:
            self._header_changed()

    def attach_terminal(self, view: Widget) -> bool:
        """Show `view` (which has a `terminal_id`) in the first slot for that terminal still empty."""
        terminal_id = getattr(view, "terminal_id", None)
        for slot in self._slots:
            if slot.terminal_id == terminal_id and slot.view is None:
                slot.attach(view)
                self.terminal_changed()
                return True
        return False

    @property
    def terminal_ids(self) -> list[str]:
        """Ids of the terminals this card refers to, in order."""
        return [item.terminal_id for item in self.call.content if isinstance(item, TerminalRef)]

    # -- expansion ---------------------------------------------------------------------------

    def default_expanded(self) -> bool:
        """Open while it runs and when it failed (if there is anything to show); a pending, paused or
        finished call is its one line until the user opens it."""
        call = self.call
        if call.status == "failed":
            return True
        if not self._has_details():
            return False
        return not (call.finished or call.interrupted or call.status in ("pending", "paused"))

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def _sync_expanded(self) -> None:
        wanted = self.default_expanded() if self._user_expanded is None else self._user_expanded
        if wanted != self.expanded:
            self.set_class(wanted, "-expanded")
            self._header_changed()
            self._ensure_body()

    def toggle(self) -> None:
        """Open or close the body; the user's choice then wins over the defaults."""
        self._user_expanded = not self.expanded
        self._sync_expanded()

    def action_toggle_open(self) -> None:
        self.toggle()

    def action_cancel_call(self) -> None:
        # A running terminal in the card that can be stopped is what the key stops first (its view posts
        # `TerminalView.CancelRequested`, docs/protocol.md §6.4); else the tool call is cancelled.
        for slot in self._slots:
            request_cancel = getattr(slot.view, "request_cancel", None)
            if request_cancel is not None and request_cancel():
                return
        if not self.call.finished and not self.call.cancelling:  # asked already: "stopping…" until it ends
            self.post_message(self.CancelRequested(self))

    def action_toggle_raw(self) -> None:
        """Show or hide the raw input/output JSON (opening the body if needed)."""
        self.toggle_class("-raw")
        if not self.has_class("-raw"):
            return
        if not self._built:
            self._ensure_body()
        elif self._raw is None:
            self._raw = TextStatic(self._raw_text(), classes="card--raw")
            self._mount_trailer(self._raw)
        else:
            self._raw.update(self._raw_text())
        if not self.expanded:
            self.toggle()

    def action_save(self) -> None:
        self.post_message(self.SaveRequested(self))

    # -- reading -----------------------------------------------------------------------------

    @property
    def pill_text(self) -> str:
        return _pill(self.call).text

    def header_text(self) -> str:
        """The line as plain text (status glyph first)."""
        return f"{self.pill_text.split(' ', 1)[0]} {self._title_text().plain}"

    def full_text(self) -> str:
        """Everything the card shows, unbounded, as plain text (for "press s to save")."""
        parts = [self.header_text()]
        previous_text = False
        for item in self.call.content:
            is_text = _is_text(item)
            if is_text and previous_text:
                parts[-1] += tool_content_text(item)  # chunks of one text run
            else:
                parts.append(tool_content_text(item))
            previous_text = is_text
        if self.call.files:
            parts.append("\n".join(access_text(access) for access in self.call.files))
        if self.call.locations:
            parts.append(self._locations_plain())
        if self.call.raw_input is not None or self.call.raw_output is not None:
            parts.append(f"raw input:\n{pretty_json(self.call.raw_input)}")
            parts.append(f"raw output:\n{pretty_json(self.call.raw_output)}")
        return "\n\n".join(parts)

    def _locations_plain(self) -> str:
        return "\n".join(
            plain(loc.path) + (f":{loc.line}" if isinstance(loc.line, int) else "") for loc in self.call.locations
        )
