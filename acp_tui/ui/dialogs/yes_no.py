"""A guarded yes-or-no question: one button to go ahead, one to refuse (the outside read and write dialogs).

`y`/`a` go ahead, `n`/`r`/Escape refuse, arrows move between the two buttons; until the dialog is armed
(guarded.py) keys and clicks decide nothing. Withdrawn (the turn was cancelled, the agent went away), it
closes as a refusal. A subclass composes the question around `self._buttons` and names its keys.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Button

from acp_tui.ui.dialogs.guarded import GuardedDialog, option_label

__all__ = ["YesNoDialog"]


class YesNoDialog(GuardedDialog[bool]):
    """True when the user goes ahead (`allow`, the first button), False when they refuse."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,a", "decide(True)", show=False),
        Binding("n,r,escape", "decide(False)", show=False),
        Binding("left,up,shift+tab", "move(-1)", show=False),
        Binding("right,down,tab", "move(1)", show=False),
    ]

    def __init__(
        self,
        allow: str,
        *,
        arm_delay: float,
        refuse: str = "Refuse",
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(arm_delay=arm_delay, name=name, id=id)
        # The permission dialog's option rows: the key in bold, the choice coloured by what it does.
        self._allow = Button(option_label("y", allow), variant="success", compact=True, disabled=True, id="allow")
        self._refuse = Button(option_label("n", refuse), variant="error", compact=True, disabled=True, id="refuse")
        self._buttons = [self._allow, self._refuse]

    def _controls(self) -> list[Widget]:
        return list(self._buttons)

    def action_decide(self, allow: bool) -> None:
        if self._armed:
            self._finish(allow)

    def action_move(self, step: int) -> None:
        self._move_among(self._buttons, step)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self._armed:
            self._finish(event.button is self._allow)

    def close_because(self, reason: str) -> None:
        """Withdrawn: close as a refusal."""
        self._finish(False)
