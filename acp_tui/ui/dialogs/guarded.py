"""The typing guard every question dialog shares: nothing counts until the dialog has been armed.

Keys and clicks are ignored until the dialog has been on screen for `arm_delay` seconds with no key
pressed (each key while arming restarts the countdown; scrolling does not), and the controls are
disabled until then, so someone still typing a prompt when a question arrives cannot answer it by
accident. Subclasses name their controls and their armed key hints; the result is dismissed once, and a
dialog closed while another is above it (the agent withdrew it) leaves without disturbing that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Generic, TypeVar

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

#: Seconds a question dialog must have been visible, with no key pressed, before keys and clicks count (here, not
#: in a dialog, so what only passes the delay on does not import a dialog).
ARM_DELAY: Final = 0.5
ARMING_HINT: Final = "keys are ignored for a moment…"
#: Keys that scroll; they decide nothing and do not delay arming.
SCROLL_KEYS: Final = frozenset({"pageup", "pagedown", "ctrl+up", "ctrl+down", "shift+up", "shift+down"})

#: Tab and Shift+Tab for a dialog of several fields, as priority bindings: the app moves the focus as it reads the
#: key, so what is typed after a Tab in one burst (fast typing, a paste) lands in the next field. Textual's own Tab
#: is only seen when the focused field takes its turn, after the burst's later keys were already given to it.
FIELD_FOCUS_KEYS: Final = (
    Binding("tab", "app.focus_next", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", show=False, priority=True),
)

R = TypeVar("R")


def key_hints(pairs: list[tuple[str, str]]) -> Text:
    """`y write  n/esc refuse …`: each key bold, then what it does."""
    text = Text()
    for key, label in pairs:
        if text:
            text.append("  ")
        text.append(key, "bold")
        text.append(f" {label}")
    return text


def option_label(key: str, name: str) -> Content:
    """An option's label as the permission dialog writes it: the key in bold, then the choice."""
    return Content.assemble((f"{key} ", "bold"), name)


class GuardedDialog(ModalScreen[R], Generic[R]):
    """A modal question with the typing guard (see the module docstring)."""

    # What every question dialog shares: its hint line (arming, then the keys) and, in a `#buttons` row,
    # the permission dialog's quiet options (not saturated buttons): the variant colours the words (each
    # dialog says which), focus marks the row.
    DEFAULT_CSS = """
    #hint { height: 1; color: $text-muted; }
    #hint.-arming { color: $warning; text-style: italic; }
    #buttons > Button {
        width: auto; min-width: 0; padding: 0 1; margin-right: 1;
        background: transparent; border: none; color: $foreground; text-style: none;
    }
    #buttons > Button:hover { background: $boost; }
    #buttons > Button:focus { text-style: bold; outline-left: thick $foreground; background: $boost; }
    """

    def __init__(self, *, arm_delay: float, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.arm_delay = arm_delay
        self._armed = False
        self._arm_timer: Timer | None = None
        self._decided = False
        #: keys pressed while arming (each ignored); a dialog that takes typing says so once armed
        self.dropped_keys = 0
        self._hint = Static(Text(ARMING_HINT), id="hint", classes="-arming")

    @property
    def armed(self) -> bool:
        """Do keys and clicks count yet?"""
        return self._armed

    def _controls(self) -> list[Widget]:
        """Widgets disabled while arming."""
        return []

    def _armed_hints(self) -> Text:
        return Text()

    def on_screen_resume(self) -> None:
        self._disarm()
        self.call_after_refresh(self._start_arming)

    def on_screen_suspend(self) -> None:
        self._disarm()

    def on_key(self, event: events.Key) -> None:
        """While arming, every key but scrolling restarts the countdown (the controls are disabled)."""
        if not self._armed and self._arm_timer is not None and event.key not in SCROLL_KEYS:
            self.dropped_keys += 1
            self._start_arming()

    def _start_arming(self) -> None:
        if self._decided or not self.is_current:
            return
        if self._arm_timer is not None:
            self._arm_timer.stop()
        self._arm_timer = self.set_timer(self.arm_delay, self._arm, name="arm")

    def _disarm(self) -> None:
        if self._arm_timer is not None:
            self._arm_timer.stop()
            self._arm_timer = None
        self._armed = False
        for widget in self._controls():
            widget.disabled = True
        self._hint.update(Text(ARMING_HINT))
        self._hint.add_class("-arming")

    def _arm(self) -> None:
        self._arm_timer = None
        if self._decided:
            return
        self._armed = True
        for widget in self._controls():
            widget.disabled = False
        self._hint.remove_class("-arming")
        self._hint.update(self._armed_hints())
        self._on_armed()

    def _on_armed(self) -> None:
        """Hook: the dialog just became armed."""

    def _move_among(self, buttons: Sequence[Widget], step: int) -> None:
        """Arrows between a dialog's buttons, wrapping; from none focused, the first (or, going back, the last)."""
        if not self._armed or not buttons:
            return
        focused = self.focused
        index = list(buttons).index(focused) if focused is not None and focused in buttons else (-1 if step > 0 else 0)
        buttons[(index + step) % len(buttons)].focus()

    def _finish(self, result: R | None) -> None:
        if self._decided:
            return
        self._decided = True
        if self._arm_timer is not None:
            self._arm_timer.stop()
        stack = self._own_stack()
        if stack is None:
            return
        if stack is self.app._screen_stack and stack[-1] is self:
            self.dismiss(result)
        else:
            self._close_buried(result, stack)

    def _own_stack(self) -> list[Screen[Any]] | None:
        """The screen stack this dialog is on: the shown tab's, or a hidden tab's (one Textual mode each)."""
        for stack in self.app._screen_stacks.values():
            if self in stack:
                return stack
        return None

    def on_a_stack(self) -> bool:
        """Pushed and not yet closed, in the tab on screen or in a hidden one."""
        return self._own_stack() is not None

    def _close_buried(self, result: R | None, stack: list[Screen[Any]]) -> None:
        """Close this dialog while another screen is above it (a second question came on top), or while its
        tab is hidden (its stack is not the one on screen).

        Textual's `dismiss` pops the *top* screen of the shown stack whoever calls it: the dialog above, or
        another tab's screen, would vanish unanswered and this one would stay, decided, holding the keys for
        good. So this one leaves its stack itself (Textual has no public call for a screen below the top or in
        another mode; `_screen_stacks` is the app's own lists) and every other screen stays exactly as it is.
        """
        app = self.app
        if self._result_callbacks:
            self._result_callbacks[-1](result)
            self._pop_result_callback()
        stack.remove(self)
        app.screen.refresh()  # this dialog no longer shows through the translucent one above

        async def remove() -> None:
            if self.is_attached:
                await self.remove()

        app.call_later(remove)

    def close_because(self, reason: str) -> None:
        """Close without an answer (the question went away)."""
        self._finish(None)

    def on_click(self, event: events.Click) -> None:
        event.stop()


__all__ = ["ARMING_HINT", "FIELD_FOCUS_KEYS", "GuardedDialog", "SCROLL_KEYS", "key_hints"]
