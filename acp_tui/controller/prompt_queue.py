"""Prompts typed while the agent works: kept in order, sent one per idle, paused after a cancel."""

from __future__ import annotations

from collections import deque

from acp_tui.context import PromptSubmission


class PromptQueue:
    """FIFO of submissions (text and mentions); `paused` holds them until the user asks for the next one."""

    def __init__(self) -> None:
        self._items: deque[PromptSubmission] = deque()
        self.paused = False

    def __len__(self) -> int:
        return len(self._items)

    @property
    def items(self) -> tuple[str, ...]:
        """The queued prompts' texts, oldest first (what the queue shows)."""
        return tuple(item.text for item in self._items)

    def add(self, submission: PromptSubmission) -> None:
        self._items.append(submission)

    def put_back(self, submission: PromptSubmission) -> None:
        """Return a prompt that never went out to the front, to be sent first."""
        self._items.appendleft(submission)

    def pop(self) -> PromptSubmission | None:
        """The oldest prompt (None when empty)."""
        return self._items.popleft() if self._items else None

    def remove(self, index: int) -> PromptSubmission | None:
        """Take out the prompt at `index` (the user drops it)."""
        if 0 <= index < len(self._items):
            item = self._items[index]
            del self._items[index]
            return item
        return None

    def clear(self) -> None:
        self._items.clear()


__all__ = ["PromptQueue"]
