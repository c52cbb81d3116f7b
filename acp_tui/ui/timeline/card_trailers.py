"""The rows under a tool call card's content items: "… N more items", the files the client read or wrote for
the call, its locations (when there are several), and the raw input/output view (`i`).

A part composed into `ToolCallCard` (tool_call.py): it owns those four rows, creates each the first time it
has something to show, and mounts it in its place among the others; the card only says what changed.
"""

from __future__ import annotations

from typing import Final, Protocol

from rich.text import Text
from textual.widget import AwaitMount, Widget

from acp_tui.path_text import ViewContext
from acp_tui.protocol.v2 import Diff
from acp_tui.sanitize import plain
from acp_tui.session.model import ToolCall
from acp_tui.ui.timeline.file_access import FileAccessList
from acp_tui.ui.widgets.content_blocks import MAX_JSON_LINES, TextStatic, head_lines, more_lines_text, pretty_json

__all__ = ["SAVE_HINT", "CardTrailers", "TrailerHost", "lists_locations", "locations_plain"]

SAVE_HINT: Final = " (press s to save)"


class TrailerHost(Protocol):
    """The card the rows belong to: what they show, and where they are mounted."""

    @property
    def call(self) -> ToolCall: ...
    @property
    def context(self) -> ViewContext: ...
    def mount(
        self,
        *widgets: Widget,
        before: int | str | Widget | None = None,
        after: int | str | Widget | None = None,
    ) -> AwaitMount: ...


def lists_locations(call: ToolCall) -> bool:
    """The body lists the locations when there are several (the line names the first)."""
    return len(call.locations) > 1


def locations_plain(call: ToolCall) -> str:
    """The locations as plain text, one a line (for saving)."""
    return "\n".join(plain(loc.path) + (f":{loc.line}" if isinstance(loc.line, int) else "") for loc in call.locations)


def _locations_text(call: ToolCall, context: ViewContext) -> Text:
    text = Text()
    for index, location in enumerate(call.locations):
        if index:
            text.append("\n")
        text.append("↳ ")
        text.append(context.path(location.path))
        if isinstance(location.line, int):
            text.append(f":{location.line}")
    return text


def _raw_text(call: ToolCall) -> Text:
    text = Text()
    for label, value in (("input", call.raw_input), ("output", call.raw_output)):
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
            text.append("\n").append_text(more_lines_text(more, SAVE_HINT))
    return text


def _diff_paths(call: ToolCall) -> set[str]:
    """The files this call's own diffs show (a file access then needs no second diff)."""
    return {change.path for item in call.content if isinstance(item, Diff) for change in item.changes}


class CardTrailers:
    """The rows after the card's items, in display order: more items, files, locations, raw."""

    def __init__(self, card: TrailerHost) -> None:
        self._card = card
        self.more_items: TextStatic | None = None
        self.files: FileAccessList | None = None  # files the client read or wrote for this call
        self.locations: TextStatic | None = None
        self.raw: TextStatic | None = None

    def widgets(self) -> list[Widget]:
        """The rows that exist, in display order."""
        return [w for w in (self.more_items, self.files, self.locations, self.raw) if w is not None]

    def build(self, *, raw: bool) -> list[Widget]:
        """The rows of a body built now from the model (the more-items row is counted while the items are)."""
        call = self._card.call
        if call.files:
            self.files = FileAccessList(call.files, _diff_paths(call), classes="card--files")
        if lists_locations(call):
            self.locations = TextStatic(_locations_text(call, self._card.context), classes="card--locations")
        if raw:
            self.raw = TextStatic(_raw_text(call), classes="card--raw")
        return self.widgets()

    def _mount(self, widget: Widget) -> None:
        """Mount a new row in its place among the others."""
        order: list[Widget | None] = [self.more_items, self.files, self.locations, self.raw]
        card: object = self._card
        later = [w for w in order[order.index(widget) + 1 :] if w is not None and w.parent is card]
        if later:
            self._card.mount(widget, before=later[0])
        else:
            self._card.mount(widget)

    def count_hidden(self, hidden: int, *, built: bool) -> None:
        """`hidden` content items are not shown: say so in the more-items row (or drop it at 0)."""
        if not hidden:
            if self.more_items is not None:
                self.more_items.remove()
                self.more_items = None
            return
        noun = "item" if hidden == 1 else "items"
        text = Text(f"… {hidden} more {noun}{SAVE_HINT}", style="dim italic")
        if self.more_items is None:
            self.more_items = TextStatic(text, classes="card--more")
            if built:
                self._mount(self.more_items)
            return
        self.more_items.update(text)

    def sync_files(self) -> None:
        """The client read or wrote a file for this call (docs/protocol.md §10.2): list it."""
        call = self._card.call
        if self.files is None:
            self.files = FileAccessList(call.files, _diff_paths(call), classes="card--files")
            self._mount(self.files)
        else:
            self.files.sync(call.files, _diff_paths(call))

    def sync_locations(self) -> None:
        call = self._card.call
        if self.locations is None:
            if not lists_locations(call):
                return
            self.locations = TextStatic(_locations_text(call, self._card.context), classes="card--locations")
            self._mount(self.locations)
            return
        if lists_locations(call):
            self.locations.update(_locations_text(call, self._card.context))
        else:
            self.locations.remove()
            self.locations = None

    def show_raw(self) -> None:
        """Show the raw input/output as the call has them now (creating the row the first time)."""
        if self.raw is None:
            self.raw = TextStatic(_raw_text(self._card.call), classes="card--raw")
            self._mount(self.raw)
        else:
            self.raw.update(_raw_text(self._card.call))
