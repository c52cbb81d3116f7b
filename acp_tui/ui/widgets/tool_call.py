"""A tool call card (ACP §6): kind icon, title, status pill, and an expandable body.

The card is built once from the model's `ToolCall` and then patched part by part: `apply_fields`
re-renders only the header, pill, locations or raw view named by an `EntityChanged`;
`append_content` mounts one content item (consecutive text items stream into one Markdown widget);
`replace_content` rebuilds only the content list. Nothing ever recomposes the whole card.

The title is agent data: it is sanitized and rendered as plain `Text` inside the card's own frame
after the kind icon, so "[ Allow always ]" or "[bold]x[/]" shows literally and never looks like a
button of ours. Rendering is bounded (lines per text run, content items, raw JSON lines); the
"… N more" rows point at `s` (save), and `full_text()` returns everything.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import HorizontalGroup, Vertical
from textual.message import Message
from textual.widget import Widget

from acp_tui.protocol.v1 import V1Diff
from acp_tui.protocol.v2 import Diff, TerminalRef, TextContent, ToolContent, UnknownToolContent
from acp_tui.sanitize import multiline, plain
from acp_tui.session.model import ToolCall
from acp_tui.ui.widgets.content_blocks import (
    MAX_JSON_LINES,
    TextStatic,
    block_chip,
    block_widget,
    head_lines,
    more_lines_text,
    pretty_json,
)
from acp_tui.ui.widgets.diff_view import DiffView
from acp_tui.ui.widgets.icons import kind_icon, status_pill
from acp_tui.ui.widgets.markdown_stream import MarkdownStream

__all__ = ["MAX_TEXT_LINES", "MAX_ITEMS", "ToolCallCard", "TerminalFactory", "tool_content_text"]

#: Lines of one text run (consecutive text items) rendered before "… N more lines".
MAX_TEXT_LINES: Final = 500
#: Content items mounted before "… N more items".
MAX_ITEMS: Final = 200

#: Given a terminal id, returns a widget showing that terminal (or `None` if it is not known yet).
TerminalFactory = Callable[[str], Widget | None]

_SAVE_HINT: Final = " (press s to save)"


def tool_content_text(item: Any) -> str:
    """One tool-call content item as plain text (for saving and copying)."""
    if isinstance(item, ToolContent):
        block = item.content
        if isinstance(block, TextContent):
            return multiline(block.text)
        return block_chip(block).plain
    if isinstance(item, (Diff, V1Diff)):
        return DiffView(item).full_text()
    if isinstance(item, TerminalRef):
        return f"[terminal {plain(item.terminal_id)}]"
    if isinstance(item, UnknownToolContent):
        return f"[unsupported tool content: {plain(item.type)}]"
    return "[unsupported tool content]"


class _TextRun(Vertical):
    """Consecutive text items streamed into one Markdown widget, bounded to `max_lines` lines."""

    DEFAULT_CSS = """
    _TextRun { height: auto; width: 1fr; }
    _TextRun > MarkdownStream { padding: 0; }
    _TextRun > .card--more { display: none; color: $text-muted; }
    _TextRun.-truncated > .card--more { display: block; }
    """

    def __init__(self, max_lines: int) -> None:
        super().__init__()
        self.stream = MarkdownStream()
        self._more = TextStatic(classes="card--more")
        self._max_lines = max_lines
        self._newlines = 0
        self._ends_with_newline = False
        self._full = False

    def compose(self) -> ComposeResult:
        yield self.stream
        yield self._more

    @property
    def hidden_lines(self) -> int:
        if not self._full:
            return 0
        total = self._newlines + (0 if self._ends_with_newline else 1)
        return max(0, total - self._max_lines)

    def append(self, text: str) -> None:
        if not text:
            return
        text = multiline(text)
        count = text.count("\n")
        before = self._newlines
        self._newlines += count
        if text:
            self._ends_with_newline = text.endswith("\n")
        if self._full:
            self._more.update(more_lines_text(self.hidden_lines, _SAVE_HINT))
            return
        if self._newlines < self._max_lines:
            self.stream.append(text)
            return
        head, _ = head_lines(text, self._max_lines - before)
        self.stream.append(head)
        self._full = True
        self.add_class("-truncated")
        self._more.update(more_lines_text(self.hidden_lines, _SAVE_HINT))

    def finish(self) -> None:
        self.stream.finish()


class _TerminalSlot(Vertical):
    """Where a `TerminalRef` sits in the card: a "terminal <id>" line until a view is attached."""

    DEFAULT_CSS = """
    _TerminalSlot { height: auto; width: 1fr; }
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


class _CardHeader(HorizontalGroup):
    """The card's first row; clicking it toggles the body."""

    DEFAULT_CSS = """
    _CardHeader { height: auto; width: 1fr; }
    _CardHeader > .card--title { width: 1fr; height: auto; }
    _CardHeader > .card--pill { width: auto; height: 1; padding: 0 1; margin-left: 1; }
    """

    def on_click(self, event: events.Click) -> None:
        event.stop()
        card = self.parent
        if isinstance(card, ToolCallCard):
            card.focus()
            card.toggle()


class ToolCallCard(Vertical, can_focus=True):
    """One tool call, rendered from `call` and patched by the update methods."""

    class SaveRequested(Message):
        """The user asked to save the card's full output (`card.full_text()`)."""

        def __init__(self, card: ToolCallCard) -> None:
            super().__init__()
            self.card = card

    class CancelRequested(Message):
        """The user asked to cancel just this tool call (v2 `tool_call/cancel`, where advertised)."""

        def __init__(self, card: ToolCallCard) -> None:
            super().__init__()
            self.card = card

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle", "Expand", show=False),
        Binding("i", "toggle_raw", "Raw input/output", show=False),
        Binding("s", "save", "Save output", show=False),
        Binding("x", "cancel_call", "Cancel this tool call", show=False),
    ]

    DEFAULT_CSS = """
    ToolCallCard {
        height: auto;
        width: 1fr;
        border: round $panel;
        padding: 0 1;
    }
    ToolCallCard:focus { border: round $primary; }
    ToolCallCard.-error { border: round $error 60%; }
    ToolCallCard.-error:focus { border: round $error; }
    ToolCallCard > .card--body { height: auto; width: 1fr; display: none; }
    ToolCallCard.-expanded > .card--body { display: block; }
    ToolCallCard .card--content { height: auto; width: 1fr; }
    ToolCallCard .card--content > * { margin-top: 1; }
    ToolCallCard .card--locations { color: $text-muted; display: none; }
    ToolCallCard .card--locations.-shown { display: block; }
    ToolCallCard .card--raw { display: none; color: $text-muted; background: $boost; margin-top: 1; }
    ToolCallCard.-raw .card--raw { display: block; }
    ToolCallCard .card--more { color: $text-muted; }
    .card--pill { background: $boost; color: $text-muted; }
    .card--pill.-running { background: $warning 25%; color: $warning; }
    .card--pill.-success { background: $success 20%; color: $success; }
    .card--pill.-error { background: $error 25%; color: $error; }
    .card--pill.-cancelled { color: $text-muted; }
    .card--pill.-cancelling { background: $warning 15%; color: $warning; }
    .card--pill.-unknown { color: $secondary; }
    """

    def __init__(
        self,
        call: ToolCall,
        *,
        terminal_factory: TerminalFactory | None = None,
        max_text_lines: int = MAX_TEXT_LINES,
        max_items: int = MAX_ITEMS,
    ) -> None:
        super().__init__()
        self.call = call
        self._terminal_factory = terminal_factory
        self._max_text_lines = max_text_lines
        self._max_items = max_items
        self._title = TextStatic(self._title_text(), classes="card--title")
        self._pill = TextStatic(classes="card--pill")
        self._content = Vertical(classes="card--content")
        self._locations = TextStatic(classes="card--locations")
        self._raw = TextStatic(classes="card--raw")
        self._more_items = TextStatic(classes="card--more")
        self._more_items.display = False
        self._items_shown = 0
        self._items_hidden = 0
        self._last_run: _TextRun | None = None
        self._user_expanded: bool | None = None
        self._raw_dirty = True
        self._deferring_terminals = False
        self._initial: list[Widget] = self._build_items(call.content)
        self._update_pill()
        self._update_locations()
        self._sync_expanded()

    # -- composition -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with _CardHeader():
            yield self._title
            yield self._pill
        with Vertical(classes="card--body"):
            with self._content:
                yield from self._initial
            yield self._more_items
            yield self._locations
            yield self._raw
        self._initial = []

    def _title_text(self) -> Text:
        call = self.call
        arrow = "▾ " if self.has_class("-expanded") else "▸ "
        text = Text(arrow, style="dim")
        text.append(kind_icon(call.kind))
        text.append(" ")
        title = plain(call.title) if call.title else ""
        if title:
            text.append(title, style="bold")
        else:
            text.append(f"tool call {plain(call.id)}", style="italic")
        if call.name:
            text.append(f"  {plain(call.name)}", style="dim")
        return text

    def _update_pill(self) -> None:
        pill = status_pill(self.call.status, self.call.cancelling)
        self._pill.update(Text(pill.text))
        self._pill.set_classes(f"card--pill -{pill.variant}")
        self.set_class(pill.variant == "error", "-error")

    def _update_locations(self) -> None:
        locations = self.call.locations
        text = Text()
        for index, location in enumerate(locations):
            if index:
                text.append("\n")
            text.append("↳ ")
            text.append(plain(location.path))
            if isinstance(location.line, int):
                text.append(f":{location.line}")
        self._locations.update(text)
        self._locations.set_class(bool(locations), "-shown")

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

    def _update_raw(self) -> None:
        if self.has_class("-raw"):
            self._raw.update(self._raw_text())
            self._raw_dirty = False
        else:
            self._raw_dirty = True

    # -- content items -----------------------------------------------------------------------

    def _item_widget(self, item: Any) -> Widget | None:
        """The widget for one item, or `None` when it was streamed into the previous text run."""
        if isinstance(item, ToolContent) and isinstance(item.content, TextContent):
            if self._last_run is not None:
                self._last_run.append(item.content.text)
                return None
            run = _TextRun(self._max_text_lines)
            run.append(item.content.text)
            self._last_run = run
            return run
        self._last_run = None
        if isinstance(item, ToolContent):
            return block_widget(item.content)
        if isinstance(item, (Diff, V1Diff)):
            return DiffView(item)
        if isinstance(item, TerminalRef):
            factory = self._terminal_factory if not self._deferring_terminals else None
            view = factory(item.terminal_id) if factory is not None else None
            return _TerminalSlot(item.terminal_id, view)
        return TextStatic(Text(tool_content_text(item), style="dim"))

    def _build_items(self, items: list[Any]) -> list[Widget]:
        widgets: list[Widget] = []
        for item in items:
            if self._items_shown >= self._max_items:
                self._items_hidden += 1
                continue
            widget = self._item_widget(item)
            if widget is not None:
                widgets.append(widget)
                self._items_shown += 1
        self._update_more_items()
        return widgets

    def _update_more_items(self) -> None:
        hidden = self._items_hidden
        self._more_items.display = hidden > 0
        if hidden:
            noun = "item" if hidden == 1 else "items"
            self._more_items.update(Text(f"… {hidden} more {noun}{_SAVE_HINT}", style="dim italic"))

    # -- updates from the model --------------------------------------------------------------

    def apply_fields(self, fields: frozenset[str]) -> None:
        """Re-render what shows the changed fields (an `EntityChanged`)."""
        if fields & {"title", "kind", "name"}:
            self._title.update(self._title_text())
        if fields & {"status", "cancelling"}:
            self._update_pill()
            if self.call.finished and self._last_run is not None:
                self._last_run.finish()
        if "locations" in fields:
            self._update_locations()
        if fields & {"raw_input", "raw_output"}:
            self._update_raw()
        if fields & {"status", "kind"}:
            self._sync_expanded()

    def append_content(self, item: Any) -> None:
        """One content item was appended (a `ContentAppended`)."""
        widgets = self._build_items([item])
        if widgets:
            self._mount_items(widgets)
        self._sync_expanded()

    def replace_content(self) -> None:
        """The whole content was replaced or cleared (a `ContentReplaced`): rebuild the item list only."""
        self._last_run = None
        self._items_shown = 0
        self._items_hidden = 0
        if not self.is_mounted:
            self._initial = self._build_items(self.call.content)
            self._sync_expanded()
            return
        # Terminal views in the old slots are only detached once the removal completes, so the
        # factory is asked for the new slots' views after that (it may move those same terminals).
        self._deferring_terminals = True
        try:
            widgets = self._build_items(self.call.content)
        finally:
            self._deferring_terminals = False
        removed = self._content.remove_children()
        if widgets:
            self._content.mount(*widgets)
        if self._terminal_factory is not None and any(isinstance(w, _TerminalSlot) for w in widgets):
            self.call_later(self._fill_terminal_slots, removed)
        self._sync_expanded()

    async def _fill_terminal_slots(self, removed: Awaitable[None]) -> None:
        """Ask the factory for views of the terminal slots still empty (after a content replace)."""
        await removed
        if self._terminal_factory is None:
            return
        for slot in self._content.query(_TerminalSlot):
            if slot.view is None:
                view = self._terminal_factory(slot.terminal_id)
                if view is not None:
                    slot.attach(view)

    def _mount_items(self, widgets: list[Widget]) -> None:
        if self._content.is_mounted:
            self._content.mount(*widgets)
        else:
            self._initial.extend(widgets)

    def attach_terminal(self, view: Widget) -> bool:
        """Show `view` (which has a `terminal_id`) in the first slot for that terminal still empty."""
        terminal_id = getattr(view, "terminal_id", None)
        for slot in self._content.query(_TerminalSlot):
            if slot.terminal_id == terminal_id and slot.view is None:
                slot.attach(view)
                return True
        return False

    @property
    def terminal_ids(self) -> list[str]:
        """Ids of the terminals this card refers to, in order."""
        return [item.terminal_id for item in self.call.content if isinstance(item, TerminalRef)]

    # -- expansion ---------------------------------------------------------------------------

    def default_expanded(self) -> bool:
        """Open for failures, edits and diffs; closed for finished reads and searches."""
        call = self.call
        if call.status == "failed" or any(isinstance(item, (Diff, V1Diff)) for item in call.content):
            return True
        return not (call.status == "completed" and call.kind in ("read", "search"))

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def _sync_expanded(self) -> None:
        wanted = self.default_expanded() if self._user_expanded is None else self._user_expanded
        if wanted != self.expanded:
            self.set_class(wanted, "-expanded")
            self._title.update(self._title_text())

    def toggle(self) -> None:
        """Open or close the body; the user's choice then wins over the defaults."""
        self._user_expanded = not self.expanded
        self._sync_expanded()

    def action_toggle(self) -> None:
        self.toggle()

    def action_cancel_call(self) -> None:
        if not self.call.finished:
            self.post_message(self.CancelRequested(self))

    def action_toggle_raw(self) -> None:
        """Show or hide the raw input/output JSON (opening the body if needed)."""
        self.toggle_class("-raw")
        if self.has_class("-raw"):
            if self._raw_dirty:
                self._update_raw()
            if not self.expanded:
                self.toggle()

    def action_save(self) -> None:
        self.post_message(self.SaveRequested(self))

    # -- reading -----------------------------------------------------------------------------

    @property
    def pill_text(self) -> str:
        return status_pill(self.call.status, self.call.cancelling).text

    def header_text(self) -> str:
        return f"{self._title_text().plain}  {self.pill_text}"

    def full_text(self) -> str:
        """Everything the card shows, unbounded, as plain text (for "press s to save")."""
        parts = [self.header_text()]
        previous_text = False
        for item in self.call.content:
            is_text = isinstance(item, ToolContent) and isinstance(item.content, TextContent)
            if is_text and previous_text:
                parts[-1] += tool_content_text(item)  # chunks of one text run
            else:
                parts.append(tool_content_text(item))
            previous_text = is_text
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
