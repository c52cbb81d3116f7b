"""An update variant this client does not understand: one line that opens to the raw JSON.

Never dropped (docs/protocol.md §5.1): the row names the variant, and click or Enter shows the
payload pretty-printed, sanitized and bounded. The kind and payload are agent data, drawn as `Text`.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from acp_tui.sanitize import plain
from acp_tui.session.model import UnknownEntry
from acp_tui.ui.widgets.content_blocks import (
    MAX_JSON_LINES,
    TextStatic,
    head_lines,
    more_lines_text,
    pretty_json,
)

__all__ = ["UnknownUpdateView", "unknown_label"]


def unknown_label(kind: str) -> Text:
    """ "the agent sent KIND, which this client does not understand", the kind in bold (never in backticks:
    they would show as they are)."""
    text = Text("the agent sent ")
    text.append(plain(kind), style="bold")
    text.append(", which this client does not understand")
    return text


class UnknownUpdateView(Vertical, can_focus=True):
    """One unknown update; the raw JSON is rendered only when first opened."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Expand", show=False)]

    DEFAULT_CSS = """
    UnknownUpdateView { height: auto; width: 1fr; padding: 0 1; }
    UnknownUpdateView > .unknown--row { color: $text-muted; }
    UnknownUpdateView:focus { outline-left: thick $primary; }
    UnknownUpdateView:focus > .unknown--row { color: $text; }
    UnknownUpdateView > .unknown--raw { display: none; color: $text-muted; background: $boost; }
    UnknownUpdateView.-expanded > .unknown--raw { display: block; }
    """

    def __init__(self, entry: UnknownEntry) -> None:
        super().__init__()
        self.entry = entry
        self._row = TextStatic(classes="unknown--row")
        self._raw = TextStatic(classes="unknown--raw")
        self._raw_rendered = False
        self._update_row()

    def compose(self) -> ComposeResult:
        yield self._row
        yield self._raw

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def _update_row(self) -> None:
        self._row.update(Text.assemble("▾ " if self.expanded else "▸ ", unknown_label(self.entry.kind)))

    def raw_text(self) -> Text:
        """The payload as bounded, pretty JSON."""
        head, more = head_lines(pretty_json(self.entry.raw), MAX_JSON_LINES)
        text = Text(head)
        if more:
            text.append("\n").append_text(more_lines_text(more))
        return text

    def action_toggle_open(self) -> None:
        if not self._raw_rendered:
            self._raw.update(self.raw_text())
            self._raw_rendered = True
        self.toggle_class("-expanded")
        self._update_row()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_open()
