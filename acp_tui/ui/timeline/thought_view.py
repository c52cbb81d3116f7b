"""An agent thought from the session model: the collapsible `Thought` fed from a `Message` entity."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from acp_tui.protocol.v2 import ContentBlock, TextContent
from acp_tui.session.model import Message
from acp_tui.ui.timeline.save_request import MessageSaveRequested
from acp_tui.ui.timeline.thought import Thought
from acp_tui.ui.widgets.markdown_stream import sanitize


class ThoughtView(Thought):
    """Streams the thought's text; non-text blocks in a thought are not shown (they carry no reasoning).

    A thought too long to render whole can be saved with `s` (the same request a message posts).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "Save thought", show=False),
    ]

    def __init__(self, message: Message) -> None:
        super().__init__(message.text)
        self.message = message

    def full_text(self) -> str:
        """The whole thought text from the session model (sanitised), however much is shown."""
        return sanitize(self.message.text)

    def append_text(self, text: str) -> None:
        self.append(text)

    def append_content(self, block: ContentBlock) -> None:
        if type(block) is TextContent:
            self.append(block.text)

    def replace_content(self) -> None:
        self.set_text(self.message.text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`s` only does something when part of the thought is not shown."""
        if action == "save":
            return self.body.hidden_chars > 0
        return True

    def action_save(self) -> None:
        self.post_message(MessageSaveRequested(self))
