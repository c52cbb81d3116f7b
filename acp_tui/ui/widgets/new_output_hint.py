"""The small "new output below" hint shown when the user scrolled up while output keeps coming."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static


class NewOutputHint(Horizontal):
    """A one-line hint docked at the bottom of the conversation; clicking it resumes following.

    It takes the whole row, in the screen's background, so nothing of the conversation beneath shows beside
    the label (the label alone would leave the rest of the row to whatever line is under it)."""

    DEFAULT_CSS = """
    NewOutputHint {
        dock: bottom;
        width: 100%;
        height: 1;
        background: $background;
        display: none;
    }
    NewOutputHint.-visible {
        display: block;
    }
    NewOutputHint > Static {
        width: auto;
        height: 1;
        margin: 0 2;
        padding: 0 1;
        background: $primary;
        color: $text;
    }
    """

    LABEL = "new output below ↓  (End)"

    class Pressed(Message):
        """The user clicked the hint: jump to the newest output and follow it again."""

    def compose(self) -> ComposeResult:
        yield Static(self.LABEL, markup=False)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())
