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

Two parts are composed into the card so it stays readable: `CardLine` (tool_call_line.py) draws the line and
the output tail under it, and `CardTrailers` (card_trailers.py) owns the rows after the items (more items,
files, locations, the raw view).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Final, TypeAlias

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Size
from textual.widget import Widget

from acp_tui.path_text import NO_CONTEXT, ViewContext
from acp_tui.protocol.v2 import Diff, TerminalRef, TextContent, ToolContent, UnknownToolContent
from acp_tui.sanitize import multiline, plain
from acp_tui.session.model import EntityKey, ToolCall
from acp_tui.ui.timeline.card_requests import CANCEL_CALL_KEY, CancelRequested, SaveRequested
from acp_tui.ui.timeline.card_trailers import SAVE_HINT, CardTrailers, lists_locations, locations_plain
from acp_tui.ui.timeline.diff_view import DiffView
from acp_tui.ui.timeline.file_access import access_text
from acp_tui.ui.timeline.output_tail import Tail
from acp_tui.ui.timeline.tool_call_line import CardLine, pill_of
from acp_tui.ui.widgets.content_blocks import (
    TextStatic,
    block_chip,
    block_widget,
    head_lines,
    more_lines_text,
    pretty_json,
)
from acp_tui.ui.widgets.markdown_stream import MarkdownStream

__all__ = ["MAX_TEXT_LINES", "MAX_ITEMS", "ToolCallCard", "TerminalFactory", "tool_content_text"]

#: Lines of one text run (consecutive text items) rendered before "… N more lines".
MAX_TEXT_LINES: Final = 500
#: Content items mounted before "… N more items".
MAX_ITEMS: Final = 200

#: Given a terminal id, returns a widget showing that terminal (or `None` if it is not known yet).
TerminalFactory = Callable[[str], Widget | None]

#: Diff rows shown in an open card before "… N more lines" (the saved output has them all).
MAX_CARD_DIFF_LINES: Final = 60


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
            self.more.update(more_lines_text(self.hidden_lines, SAVE_HINT))
            return None
        if self._newlines < self._max_lines:
            self.stream.append(text)
            return None
        head, _ = head_lines(text, self._max_lines - before)
        self.stream.append(head)
        self._full = True
        self.more = TextStatic(more_lines_text(self.hidden_lines, SAVE_HINT), classes="card--more")
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


class _CardHeader(Widget):
    """The header row(s) as a widget of their own, used once the card has a body below them."""

    DEFAULT_CSS = """
    _CardHeader { height: auto; width: 1fr; }
    """

    def __init__(self, card: ToolCallCard) -> None:
        super().__init__(classes="card--title")
        self._card = card

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._card.line.height(width)

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
        self.slots: list[_TerminalSlot] = []
        self._items_shown = 0
        self._items_hidden = 0
        self._last_run: _TextRun | None = None
        self.trailers = CardTrailers(self)
        self._header: _CardHeader | None = None  # drawn by the card itself until there is a body
        self.line = CardLine(self)
        self.set_class(pill_of(call).variant == "error", "-error")
        self.set_class(self.default_expanded(), "-expanded")

    # -- composition -------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._ready = True
        self._ensure_body()

    # -- the line: status glyph, kind icon, title, path, result, and an arrow when it opens ------

    def _header_render(self, width: int) -> Text:
        """The line with the status glyph coloured from the theme."""
        return self.line.render(width, self.app.theme_variables, self.background_colors[1])

    def _header_changed(self) -> None:
        """The title, arrow or pill changed: draw the header again (its height may change too)."""
        self.line.forget()
        if self._header is not None:
            self._header.refresh(layout=True)
        else:
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not self._built:
            return self.line.height(width)
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

    def took(self) -> float | None:
        """How long the call ran, as the timeline measured it (None: not measured)."""
        return self._took(self.call.key) if self._took is not None else None

    def result_text(self) -> str:
        """The short result after the title (`+12 −3`, `exit 0 · 1.2 s`, `12 lines`, or the status in words)."""
        return self.line.result_text()

    def output_tail(self) -> Tail | None:
        """The last lines of a finished command's output, shown under its closed card's line."""
        return self.line.output_tail()

    def _updatepill_of(self) -> None:
        self._header_changed()
        self.set_class(pill_of(self.call).variant == "error", "-error")

    # -- the body, built on first need -------------------------------------------------------

    def has_details(self) -> bool:
        """Is there anything for the body to show (the raw view aside)?"""
        return bool(self.call.content or lists_locations(self.call) or self.call.files)

    def _details_changed(self) -> None:
        """Content or locations changed: the arrow appears or goes when there is something to open."""
        if self.has_details() != self.line.details_drawn:
            self._header_changed()

    def _needs_body(self) -> bool:
        """Must the body exist now? When it is to be shown, or holds terminal slots to fill."""
        call = self.call
        if self.has_class("-raw"):
            return True
        if self.expanded and self.has_details():
            return True
        return any(isinstance(item, TerminalRef) for item in call.content)

    def _ensure_body(self) -> None:
        """Build the body from the model the first time it is needed (only once mounted)."""
        if self._built or not self._ready or not self._needs_body():
            return
        widgets = self._build_items(self.call.content)
        trailers = self.trailers.build(raw=self.has_class("-raw"))
        self._items = [*widgets]
        self._header = _CardHeader(self)
        self._built = True
        self.mount(self._header, *widgets, *trailers)
        self.refresh()

    def _mount_items(self, widgets: list[Widget]) -> None:
        """Mount item widgets after the existing items (before the trailer rows)."""
        self._items.extend(widgets)
        trailers = [w for w in self.trailers.widgets() if w.parent is self]
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
            self.slots.append(slot)
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
        self.trailers.count_hidden(self._items_hidden, built=self._built)
        return widgets

    # -- updates from the model --------------------------------------------------------------

    def apply_fields(self, fields: frozenset[str]) -> None:
        """Re-render what shows the changed fields (an `EntityChanged`)."""
        if fields & {"title", "kind", "name"}:
            self._header_changed()
        if fields & {"status", "cancelling", "interrupted", "rejected"}:
            self._updatepill_of()
            if self.call.finished and self._last_run is not None:
                self._last_run.finish()
        if "locations" in fields and self._built:
            self.trailers.sync_locations()
        if fields & {"raw_input", "raw_output"} and self.trailers.raw is not None:
            self.trailers.show_raw()
        if "files" in fields and self._built:
            self.trailers.sync_files()
        if fields & {"status", "kind", "locations", "files"}:
            self._sync_expanded()
        if "locations" in fields:
            self._header_changed()  # the line names the first location
        elif "files" in fields:
            self._details_changed()

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
        self.line.recount()
        self._result_changed()
        if not self._built:
            self._sync_expanded()
            self._ensure_body()
            return
        self._last_run = None
        self._items_shown = 0
        self._items_hidden = 0
        self.slots = []
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
        if self._terminal_factory is not None and self.slots:
            self.call_later(self._fill_terminal_slots, removed)
        self._sync_expanded()

    async def _fill_terminal_slots(self, removed: Awaitable[None]) -> None:
        """Ask the factory for views of the terminal slots still empty (after a content replace)."""
        await removed
        factory = self._terminal_factory
        if factory is None:
            return
        for slot in self.slots:
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
        for slot in self.slots:
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
        if not self.has_details():
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
        for slot in self.slots:
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
        else:
            self.trailers.show_raw()
        if not self.expanded:
            self.toggle()

    def action_save(self) -> None:
        self.post_message(self.SaveRequested(self))

    # -- reading -----------------------------------------------------------------------------

    @property
    def pill_text(self) -> str:
        return pill_of(self.call).text

    def header_text(self) -> str:
        """The line as plain text (status glyph first)."""
        return f"{self.pill_text.split(' ', 1)[0]} {self.line.title_text().plain}"

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
            parts.append(locations_plain(self.call))
        if self.call.raw_input is not None or self.call.raw_output is not None:
            parts.append(f"raw input:\n{pretty_json(self.call.raw_input)}")
            parts.append(f"raw output:\n{pretty_json(self.call.raw_output)}")
        return "\n\n".join(parts)
