"""An agent thought from the session model: the collapsible `Thought` fed from a `Message` entity."""

from __future__ import annotations

from acp_tui.protocol.v2 import ContentBlock, TextContent
from acp_tui.session.model import Message
from acp_tui.ui.widgets.thought import Thought


class ThoughtView(Thought):
    """Streams the thought's text; non-text blocks in a thought are not shown (they carry no reasoning)."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.text)
        self.message = message

    def append_text(self, text: str) -> None:
        self.append(text)

    def append_content(self, block: ContentBlock) -> None:
        if type(block) is TextContent:
            self.append(block.text)

    def replace_content(self) -> None:
        self.set_text(self.message.text)
