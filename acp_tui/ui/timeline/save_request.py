"""The request a message or thought view posts when the user asks to save its whole text (`s`)."""

from __future__ import annotations

from typing import Protocol

from textual.message import Message

from acp_tui.session.model import Message as MessageEntity


class SavesText(Protocol):
    """A view that shows only part of a long text and can give all of it."""

    message: MessageEntity

    def full_text(self) -> str: ...


class MessageSaveRequested(Message):
    """Save `view.full_text()` (the view shows it truncated); the screen writes the file."""

    def __init__(self, view: SavesText) -> None:
        super().__init__()
        self.view = view


__all__ = ["MessageSaveRequested", "SavesText"]
