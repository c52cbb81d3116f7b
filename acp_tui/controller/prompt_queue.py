"""Prompts typed while the agent works: kept in order, sent one per idle, paused after a cancel."""

from __future__ import annotations

from collections import deque


class PromptQueue:
    """FIFO of prompt texts; `paused` holds them until the user asks for the next one."""

    def __init__(self) -> None:
        self._items: deque[str] = deque()
        self.paused = False

    def __len__(self) -> int:
        return len(self._items)

    @property
    def items(self) -> tuple[str, ...]:
        return tuple(self._items)

    def add(self, text: str) -> None:
        self._items.append(text)

    def pop(self) -> str | None:
        """The oldest prompt (None when empty)."""
        return self._items.popleft() if self._items else None

    def remove(self, index: int) -> str | None:
        """Take out the prompt at `index` (the user edits or drops it)."""
        if 0 <= index < len(self._items):
            item = self._items[index]
            del self._items[index]
            return item
        return None

    def clear(self) -> None:
        self._items.clear()


__all__ = ["PromptQueue"]
