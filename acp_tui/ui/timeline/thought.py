"""An agent thought: dimmed, streamed like a message, collapsed to one line once it is finished.

It shows the thought live while it streams (so the user sees the agent is working) and folds it
away when the stream ends; click it or press Enter while it has focus to toggle.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.ui.widgets.markdown_stream import MarkdownStream

SUMMARY_SCAN_LIMIT = 1024 * 1024
"""Above this many characters the summary's word count is a count of spaces and newlines (no per-word objects)."""


class Thought(Widget, can_focus=True):
    """A collapsible, dimmed agent thought with the streaming API of `MarkdownStream`."""

    DEFAULT_CSS = """
    Thought {
        height: auto;
        width: 1fr;
        color: $text-muted;
    }
    Thought > .thought--summary {
        height: 1;
        width: 1fr;
        padding: 0 1;
        color: $text-muted;
        text-style: italic;
    }
    Thought:focus { outline-left: thick $primary; }
    Thought:focus > .thought--summary {
        text-style: bold italic;
        background: $boost;
    }
    Thought > MarkdownStream {
        color: $text-muted;
        padding: 0 1 0 3;
    }
    Thought.-collapsed > MarkdownStream {
        display: none;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_open", "Toggle thought", show=False),
    ]

    collapsed: reactive[bool] = reactive(False)
    """Is only the one-line summary shown?"""

    def __init__(
        self,
        text: str = "",
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._body = MarkdownStream(text, muted=True, kind="thought")
        self._summary = Static("", markup=False, classes="thought--summary")

    def compose(self) -> ComposeResult:
        yield self._summary
        yield self._body

    def on_mount(self) -> None:
        self._update_summary()

    # -- streaming API (same as MarkdownStream) ----------------------------------------------

    @property
    def text(self) -> str:
        """The whole (sanitised) thought text received so far."""
        return self._body.text

    @property
    def finished(self) -> bool:
        return self._body.finished

    @property
    def body(self) -> MarkdownStream:
        """The streamed markdown body (for tests and for reading rendered lines)."""
        return self._body

    def append(self, text: str) -> None:
        """Add a chunk of the thought."""
        self._body.append(text)
        if self.collapsed:
            self._update_summary()

    def set_text(self, text: str) -> None:
        """Replace the whole thought (an upsert)."""
        self._body.set_text(text)
        if self.collapsed:
            self._update_summary()

    def finish(self) -> None:
        """The thought ended: fold it away (its body renders whole when it is opened, not now: a long
        turn's thoughts are mostly never opened)."""
        self.collapsed = True
        self._body.finish()

    # -- collapsing --------------------------------------------------------------------------

    @property
    def summary(self) -> str:
        """The text of the one-line header: how long the thought is, in words (a line count called one long
        paragraph "1 line")."""
        if self.collapsed:
            text = self.text
            if len(text) > SUMMARY_SCAN_LIMIT:
                # a huge thought: its gaps counted, no list of its words (runs of spaces count more, it is a glance)
                words = text.count(" ") + text.count("\n") + (0 if text[-1:].isspace() else 1)
            else:
                words = len(text.split())
            unit = "word" if words == 1 else "words"
            return f"▸ Thought ({words:,} {unit})"
        return "▾ Thought"

    def _update_summary(self) -> None:
        self._summary.update(self.summary)

    def watch_collapsed(self, collapsed: bool) -> None:
        # The class is what the CSS says (and what tests read); restyling the whole thought for it costs
        # about a millisecond, and a long turn folds hundreds of thoughts: only the body's display
        # changes, so it is set directly and the class without a restyle.
        self.set_class(collapsed, "-collapsed", update=False)
        self._body.display = not collapsed
        if self.is_mounted:
            self._update_summary()

    def toggle(self) -> None:
        """Show or hide the thought's body."""
        self.collapsed = not self.collapsed

    def action_toggle_open(self) -> None:
        self.toggle()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()
