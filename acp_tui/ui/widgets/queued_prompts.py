"""Prompts typed while the agent works: shown above the input, removable, sent in order when idle."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static


class QueuedPrompt(Static, can_focus=True):
    """One queued prompt; Delete/Backspace or a click on ✕ removes it."""

    BINDINGS = [("delete,backspace", "remove", "Remove")]

    class Removed(Message):
        def __init__(self, item: QueuedPrompt) -> None:
            super().__init__()
            self.item = item

    def __init__(self, text: str) -> None:
        first_line = text.strip().splitlines()[0] if text.strip() else ""
        more = " …" if "\n" in text.strip() else ""
        label = Text.assemble(("⏳ queued: ", "italic"), first_line[:200] + more, ("  ✕", "bold"))
        super().__init__(label)
        self.prompt_text = text

    def action_remove(self) -> None:
        self.post_message(self.Removed(self))

    def on_click(self) -> None:
        self.action_remove()


class QueuedPrompts(Vertical):
    """The queue, oldest first; hidden while empty."""

    DEFAULT_CSS = """
    QueuedPrompts {
        height: auto;
        max-height: 6;
        display: none;
        padding: 0 1;
    }
    QueuedPrompts.-has-items {
        display: block;
    }
    QueuedPrompt {
        color: $text-muted;
        height: 1;
    }
    QueuedPrompt:focus {
        background: $boost;
        color: $foreground;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[QueuedPrompt] = []  # the source of truth; widget removal is asynchronous

    def add(self, text: str) -> None:
        item = QueuedPrompt(text)
        self._items.append(item)
        self.mount(item)
        self.add_class("-has-items")

    def pop_first(self) -> str | None:
        """Take the oldest queued prompt, if any."""
        if not self._items:
            return None
        first = self._items.pop(0)
        first.remove()
        self.set_class(bool(self._items), "-has-items")
        return first.prompt_text

    @property
    def count(self) -> int:
        return len(self._items)

    @property
    def texts(self) -> list[str]:
        return [item.prompt_text for item in self._items]

    class Changed(Message):
        """The number of queued prompts changed (so the status bar can say so).

        `focus_released` is True when the removed prompt had the focus and no queued prompt is
        left to take it: the screen gives it back to the prompt input.
        """

        def __init__(self, focus_released: bool = False) -> None:
            super().__init__()
            self.focus_released = focus_released

    def on_queued_prompt_removed(self, event: QueuedPrompt.Removed) -> None:
        event.stop()
        item = event.item
        if item not in self._items:
            return
        index = self._items.index(item)
        had_focus = item.has_focus
        self._items.remove(item)
        if had_focus and self._items:
            # The next prompt (or the new last one) takes the focus, so Delete can be pressed again.
            self._items[min(index, len(self._items) - 1)].focus(scroll_visible=False)
        item.remove()
        self.set_class(bool(self._items), "-has-items")
        self.post_message(self.Changed(focus_released=had_focus and not self._items))
