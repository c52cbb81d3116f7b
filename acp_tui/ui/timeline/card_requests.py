"""What a tool call's card asks of the screen (save its whole output, cancel its call), and its cancel key.

They live apart from the card (acp_tui/ui/timeline/tool_call.py) so the chat screen can handle them, and a
terminal view share the key, without importing the card and what it draws with (the diff view, Markdown,
Pygments) before the first tool call is shown: start-up imports only what the first screen needs (issue 27).
The handler names are the card's own (`on_tool_call_card_save_requested`, `…_cancel_requested`).
"""

from __future__ import annotations

from typing import Final, Protocol

from textual.message import Message

from acp_tui.session.model import ToolCall

__all__ = ["CANCEL_CALL_KEY", "CancelRequested", "Card", "SaveRequested"]

#: Cancels one tool call on its card, and stops a terminal on its view. A modifier: cancelling is sent to the
#: agent, and a plain `x` is typed into the prompt instead.
CANCEL_CALL_KEY: Final = "ctrl+x"


class Card(Protocol):
    """The card that asks: the tool call it shows, and all of its output."""

    call: ToolCall

    def full_text(self) -> str: ...


class SaveRequested(Message, namespace="tool_call_card"):
    """The user asked to save the card's full output (`card.full_text()`)."""

    def __init__(self, card: Card) -> None:
        super().__init__()
        self.card = card


class CancelRequested(Message, namespace="tool_call_card"):
    """The user asked to cancel just this tool call (v2 `tool_call/cancel`, where advertised)."""

    def __init__(self, card: Card) -> None:
        super().__init__()
        self.card = card
