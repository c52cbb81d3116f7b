"""F1: the keys, from the one keys table (`acp_tui.ui.browsers.keys.KEYS`); Escape, q or F1 closes it."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.ui.browsers.keys import KEYS

#: The key column's widest: a long key ("Alt+1 … Alt+9, Ctrl+PageUp / Ctrl+PageDown") wraps in it rather than
#: squeezing every description into a narrow column (at 80 columns the keys took 48 and the words 20).
KEY_COLUMN = 22


def keys_table() -> Table:
    """The keys table as two columns, the keys narrow and the words wide (plain text: no markup is read)."""
    table = Table.grid(padding=(0, 2), expand=True)
    table.add_column(style="bold", max_width=KEY_COLUMN)
    table.add_column(ratio=1)
    for key, what in KEYS:
        table.add_row(key.replace("`", ""), what)
    return table


class HelpScreen(ModalScreen[None]):
    """The keys table over the conversation."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 100%; max-width: 110; height: auto; max-height: 100%;
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
