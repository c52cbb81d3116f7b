"""F1: the keys, from the one keys table (`acp_tui.ui.browsers.keys.KEYS`); Escape, q or F1 closes it."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.ui.browsers.keys import KEYS


def keys_table() -> Table:
    """The keys table as two columns (plain text: no markup is read from it)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, what in KEYS:
        table.add_row(key.replace("`", ""), what)
    return table


class HelpScreen(ModalScreen[None]):
    """The keys table over the conversation."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; border-title-color: $primary; background: $surface; padding: 0 1;
    }
    HelpScreen Static { height: auto; }
    """

    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        box = VerticalScroll()
        box.border_title = "Keys"
        box.border_subtitle = "Esc closes"
        with box:
            yield Static(keys_table())

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
