"""An agent message: streamed Markdown text, plus chips for any non-text content blocks.

A message too long to render whole shows its first part and a note; the view then becomes
focusable, and `s` asks the screen (`MessageSaveRequested`) to write `full_text()` to a file.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import HorizontalGroup, Vertical

from acp_tui.protocol.v2 import ContentBlock, TextContent
from acp_tui.session.model import Message
from acp_tui.ui.timeline.save_request import MessageSaveRequested
from acp_tui.ui.widgets.content_blocks import block_widget
from acp_tui.ui.widgets.markdown_stream import MarkdownStream, sanitize


class AgentMessageView(Vertical):
    """Text goes to one `MarkdownStream` (cheap appends); images, links and resources become chips."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "Save message", show=False),
    ]

    DEFAULT_CSS = """
    AgentMessageView {
        height: auto;
        width: 1fr;
        margin: 1 0;  /* prose stands apart from the tool lines around it (margins collapse) */
    }
    AgentMessageView:focus {
        background: $boost;
        outline-left: thick $primary;  /* the focus bar: $boost alone is a 1.1:1 tint */
    }
    AgentMessageView > .agent--chips {
        height: auto;
        width: 1fr;
        padding: 0 1;
        display: none;
    }
    AgentMessageView > .agent--chips > * {
        margin-right: 1;
    }
    """

    def __init__(self, message: Message) -> None:
        super().__init__()
        self.message = message
        self.stream = MarkdownStream(message.text)
        # The chip row exists only once a message has a non-text block: most have none, and a long turn
        # builds hundreds of messages (each widget costs a mount, a restyle and a place in every layout).
        self._chips: HorizontalGroup | None = None
        self._initial_chips: list[Any] = [block_widget(b) for b in message.content.blocks if not _is_text(b)]
        self.can_focus = self.stream.hidden_chars > 0

    def compose(self) -> ComposeResult:
        yield self.stream
        if self._initial_chips:
            yield self._chip_row()

    def on_mount(self) -> None:
        if self._chips is not None and self._chips.parent is None:
            self.mount(self._chips)  # made after compose, before this mount
        if self._initial_chips and self._chips is not None:
            self._chips.display = True
            self._chips.mount(*self._initial_chips)
            self._initial_chips = []

    def _chip_row(self) -> HorizontalGroup:
        """The row of chips, made (and mounted, once this view is) at the first non-text block."""
        if self._chips is None:
            self._chips = HorizontalGroup(classes="agent--chips")
            if self.is_mounted:
                self.mount(self._chips)
        return self._chips

    @property
    def text(self) -> str:
        return self.stream.text

    def full_text(self) -> str:
        """The whole message text from the session model (sanitised), however much is shown."""
        return sanitize(self.message.text)

    def append_text(self, text: str) -> None:
        self.stream.append(text)
        self._check_truncated()

    def append_content(self, block: ContentBlock) -> None:
        if _is_text(block):
            self.append_text(block.text)  # type: ignore[union-attr]
            return
        chips = self._chip_row()
        chips.display = True
        chip = block_widget(block)
        if self.is_mounted:
            chips.mount(chip)
        else:
            self._initial_chips.append(chip)

    def replace_content(self) -> None:
        self.stream.set_text(self.message.text)
        self._check_truncated()
        chips = [block_widget(b) for b in self.message.content.blocks if not _is_text(b)]
        if not self.is_mounted:
            self._initial_chips = chips
            if chips:
                self._chip_row()
            elif self._chips is not None:
                self._chips.display = False
            return
        if self._chips is None and not chips:
            return
        row = self._chip_row()
        row.remove_children()
        row.display = bool(chips)
        if chips:
            row.mount(*chips)

    def finish(self) -> None:
        self.stream.finish()

    def _check_truncated(self) -> None:
        """A truncated message joins the focus chain, so `s` can reach it (others stay out of Tab's way)."""
        if self.can_focus != self.stream.hidden_chars > 0:
            self.can_focus = self.stream.hidden_chars > 0

    def action_save(self) -> None:
        self.post_message(MessageSaveRequested(self))


def _is_text(block: object) -> bool:
    return type(block) is TextContent
