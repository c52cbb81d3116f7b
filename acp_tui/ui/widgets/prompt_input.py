"""The multi-line prompt: Enter sends, Shift+Enter / Ctrl+J add a line, Up/Down recall history."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from acp_tui.history import PromptHistory


class PromptInput(TextArea):
    """A TextArea that turns Enter into a `Submitted` message instead of a newline."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 40%;
        background: $surface;
        padding: 0 1;
    }
    PromptInput:focus {
        border: round $primary;
    }
    """

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, prompt: PromptInput, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

    def __init__(self, history: PromptHistory, *, id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder="Message the agent…  (Enter sends, Ctrl+J adds a line)",
        )
        self.prompt_history = history

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.text
            if text.strip():
                self.post_message(self.Submitted(self, text))
            return
        if event.key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            start, end = self.selection
            self._replace_via_keyboard("\n", start, end)
            return
        if event.key == "up" and self.cursor_location[0] == 0:
            recalled = self.prompt_history.previous(self.text)
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._show(recalled, at_end=False)
                return
        if event.key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            recalled = self.prompt_history.next()
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._show(recalled, at_end=True)
                return
        await super()._on_key(event)

    def _show(self, text: str, *, at_end: bool) -> None:
        """Replace the content with a recalled prompt; the cursor goes where the next key expects it."""
        self.load_text(text)
        if at_end:
            self.move_cursor(self.document.end)
        else:
            last_line = self.document.line_count - 1
            self.move_cursor((0, len(self.document.get_line(0))) if last_line == 0 else (0, 0))
