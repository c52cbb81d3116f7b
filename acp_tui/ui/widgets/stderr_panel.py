"""The agent's stderr: a live, bounded tail in a panel the user toggles, with an unseen-lines badge.

Until the agent writes anything the panel says so ("no stderr yet") in one line rather than opening
blank over half the screen, which reads as broken. Opened (F2) it takes the focus, so its keys scroll
it; Escape or F2 closes it and the focus goes back to the prompt.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.strip import Strip
from textual.widgets import Log

from acp_tui.sanitize import plain
from acp_tui.ui.key_order import hold_keys
from acp_tui.ui.widgets.prompt_return import FocusPrompt, ReturnsToPrompt

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
    StderrPanel.-empty {
        height: 2;  /* the border and "no stderr yet" */
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
        self.add_class("-empty")

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
        self.remove_class("-empty")
        if not self.is_open:
            self.unseen += len(lines)

    def toggle(self) -> None:
        """Open it (and focus it) or close it (the focus, if it had it, back to the prompt)."""
        if self.is_open and self.has_focus:
            hold_keys(self.app)  # the keys typed behind this one are the prompt's
            self.post_message(FocusPrompt())
        self.toggle_class("-open")
        if self.is_open:
            self.unseen = 0
            self.scroll_end(animate=False)
            self.focus()

    def on_key(self, event: events.Key) -> None:
        """Escape closes the panel (and goes back to the prompt); other keys as `ReturnsToPrompt` says."""
        if event.key == "escape" and self.is_open:
            event.stop()
            event.prevent_default()
            self.toggle()
            return
        super().on_key(event)
