"""The small "new output below" hint shown when the user scrolled up while output keeps coming."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Static


class NewOutputHint(Static):
    """A one-line hint docked at the bottom of the conversation; clicking it resumes following."""

    DEFAULT_CSS = """
    NewOutputHint {
        dock: bottom;
        width: auto;
        height: 1;
        margin: 0 2;
        padding: 0 1;
        background: $primary;
        color: $text;
        display: none;
    }
    NewOutputHint.-visible {
        display: block;
    }
    """

    class Pressed(Message):
        """The user clicked the hint: jump to the newest output and follow it again."""

    def __init__(self) -> None:
        super().__init__("new output below ↓  (End)", markup=False)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())
