"""Prompts typed while the agent works: shown above the input, removable, sent in order when idle.

The queue itself is the session controller's; this widget shows it and reports removals by position.
After a cancel the queue is paused and says so: Enter on an empty prompt sends the next one.
`s` (or Ctrl+Enter / Alt+Enter) on a queued prompt promotes it to a steer: into the running turn where the
agent offers steering (controller/steering.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from acp_tui.ui.widgets.prompt_return import ReturnsToPrompt

PAUSED_TEXT = "paused — Enter sends the next"


class QueuedPrompt(Static, can_focus=True):
    """One queued prompt; Delete/Backspace or a click on ✕ removes it, `s` steers it into the running turn."""

    BINDINGS = [("delete,backspace", "remove", "Remove"), ("s,ctrl+enter,alt+enter", "steer", "Steer now")]

    class Removed(Message):
        def __init__(self, item: QueuedPrompt, *, steer: bool = False) -> None:
            super().__init__()
            self.item = item
            self.steer = steer

    def __init__(self, text: str) -> None:
        first_line = text.strip().splitlines()[0] if text.strip() else ""
        more = " …" if "\n" in text.strip() else ""
        label = Text.assemble(("○ queued: ", "italic"), first_line[:200] + more, ("  ✕", "bold"))
        super().__init__(label)
        self.prompt_text = text

    def action_remove(self) -> None:
        self.post_message(self.Removed(self))

    def action_steer(self) -> None:
        self.post_message(self.Removed(self, steer=True))

    def on_click(self) -> None:
        self.action_remove()


class QueuedPrompts(ReturnsToPrompt, Vertical):
    """The queue, oldest first; hidden while empty. Escape or typing on a queued prompt goes back to the prompt."""

    DEFAULT_CSS = """
    QueuedPrompts {
        height: auto;
        max-height: 7;
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
    QueuedPrompts #paused {
        color: $warning;
        height: 1;
        display: none;
    }
    QueuedPrompts.-paused #paused {
        display: block;
    }
    """

    class Removed(Message):
        """The user removed the queued prompt at `index` (`steer`: to steer it into the running turn);
        `focus_released` when no queued prompt keeps focus."""

        def __init__(self, index: int, focus_released: bool, *, steer: bool = False) -> None:
            super().__init__()
            self.index = index
            self.focus_released = focus_released
            self.steer = steer

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[QueuedPrompt] = []  # the shown items; widget removal is asynchronous
        self.paused = False

    def compose(self) -> ComposeResult:
        yield Static(Text(PAUSED_TEXT), id="paused")

    def show(self, prompts: Sequence[str], *, paused: bool) -> None:
        """Show exactly `prompts` (the controller's queue), keeping the items that are still queued."""
        self.paused = paused
        self.set_class(paused, "-paused")
        kept: list[QueuedPrompt] = []
        wanted = list(prompts)
        focus_index: int | None = None
        for item in self._items:
            if len(kept) < len(wanted) and item.prompt_text == wanted[len(kept)]:
                kept.append(item)
            else:
                if item.has_focus:
                    focus_index = len(kept)
                item.remove()
        added = [QueuedPrompt(text) for text in wanted[len(kept) :]]
        self._items = kept + added
        if added:
            self.mount_all(added)
        if focus_index is not None and self._items:
            self._items[min(focus_index, len(self._items) - 1)].focus(scroll_visible=False)
        self.set_class(bool(self._items), "-has-items")

    @property
    def count(self) -> int:
        return len(self._items)

    @property
    def texts(self) -> list[str]:
        return [item.prompt_text for item in self._items]

    def on_queued_prompt_removed(self, event: QueuedPrompt.Removed) -> None:
        event.stop()
        if event.item not in self._items:
            return
        index = self._items.index(event.item)
        had_focus = event.item.has_focus
        released = had_focus and len(self._items) == 1
        self.post_message(self.Removed(index, focus_released=released, steer=event.steer))
