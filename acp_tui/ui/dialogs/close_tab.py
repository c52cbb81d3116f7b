"""Ask before closing a tab whose agent is working (Ctrl+W, acp_tui/ui/tabs).

Closing ends the tab's session (`session/close` where the agent offers it) and stops its agent, so a turn
still running, or a question still waiting, would be lost. The question names the tab as its bar does
(the agent's text, sanitised) and says what would be lost. `y` closes, `n`/Escape keep it; it has the
typing guard of every question dialog (guarded.py), so a key meant for the prompt cannot answer it.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from acp_tui.ui.dialogs.yes_no import YesNoDialog
from acp_tui.ui.widgets.icons import GLYPHS
from acp_tui.ui.widgets.tab_bar import tab_title

__all__ = ["CloseTabScreen"]


class CloseTabScreen(YesNoDialog):
    """True: close the tab (its work is lost); False: keep it."""

    CSS_PATH = "close_tab.tcss"

    def __init__(self, number: int, title: str, what: str, *, arm_delay: float) -> None:
        super().__init__("Close the tab", refuse="Keep it", arm_delay=arm_delay)
        self.number, self.title_text, self.what = number, tab_title(title), what

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="dialog")
        dialog.border_title = "Close tab"
        with dialog:
            yield Static(Text(f"Close tab {self.number}, {self.title_text}?"), id="title")
            with Horizontal(id="where"):
                yield Static(Text(f"{GLYPHS['attention']} {self.what}"), id="marker")
                yield Static(Text("Closing ends its session and stops its agent."), id="why")
            with Horizontal(id="buttons"):
                yield from self._buttons
            yield self._hint
