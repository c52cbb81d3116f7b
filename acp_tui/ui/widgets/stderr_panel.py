"""The agent's stderr: a live, bounded tail in a panel the user toggles, with an unseen-lines badge.

Until the agent writes anything the panel says so ("no stderr yet") rather than opening blank, which
reads as broken.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual.strip import Strip
from textual.widgets import Log

from acp_tui.sanitize import plain
from acp_tui.ui.widgets.prompt_return import ReturnsToPrompt

MAX_LINES = 2000
EMPTY_TEXT: Final = "no stderr yet"


class StderrPanel(ReturnsToPrompt, Log):
    """A `Log` (line API, cheap appends) that counts lines arriving while it is hidden; Escape or
    typing in it goes back to the prompt."""

    DEFAULT_CSS = """
    StderrPanel {
        dock: bottom;
        height: 12;
        margin-bottom: 1;  /* docked edges do not stack: keep the status bar's row free */
        border-top: solid $warning 50%;
        border-title-color: $warning;
        background: $surface;
        color: $text-muted;
        padding: 0 1;
        overflow: auto auto;
        scrollbar-size-vertical: 1;
        display: none;
    }
    StderrPanel.-open {
        display: block;
    }
    StderrPanel > .stderr-panel--empty {
        color: $text-muted;
        text-style: italic;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"stderr-panel--empty"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(max_lines=MAX_LINES, auto_scroll=True, id=id)
        self.border_title = "agent stderr"
        self.unseen = 0

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def render_line(self, y: int) -> Strip:
        """The log's lines; while there are none, the first row says so."""
        if self.line_count or y != 0:
            return super().render_line(y)
        style = self.get_visual_style("stderr-panel--empty").rich_style
        text = Text(EMPTY_TEXT, style=style, no_wrap=True)
        return Strip(text.render(self.app.console), text.cell_len).extend_cell_length(self.size.width, self.rich_style)

    def add_lines(self, lines: list[str]) -> None:
        """Append stderr lines (sanitized: no escape sequence from the agent reaches the terminal)."""
        if not lines:
            return
        self.write_lines([plain(line) for line in lines])
        if not self.is_open:
            self.unseen += len(lines)

    def toggle(self) -> None:
        self.toggle_class("-open")
        if self.is_open:
            self.unseen = 0
            self.scroll_end(animate=False)
