"""Ask before switching to a mode that bypasses or auto-approves permissions (`acp_tui.session.modes`).

Shift+Tab or the picker could otherwise put the agent straight into Claude's "Bypass Permissions":
one key, no trace. The question names the mode as the agent names it (sanitized) and says why it asks.
`y` switches, `n`/Escape keep the current mode; when the switch came from Shift+Tab, Shift+Tab again
skips this mode for the one after it. It has the typing guard of every question dialog (guarded.py),
so a key meant for the prompt cannot answer it.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Static

from acp_tui.sanitize import plain
from acp_tui.ui.dialogs.guarded import GuardedDialog, key_hints, option_label
from acp_tui.ui.widgets.icons import GLYPHS

__all__ = ["ModeAnswer", "ModeConfirmScreen"]

#: switch to the mode, keep the current one, or (from Shift+Tab) go on to the mode after it
ModeAnswer = Literal["switch", "keep", "skip"]


class ModeConfirmScreen(GuardedDialog[ModeAnswer]):
    """Switch to a permission-bypassing mode? (see the module docstring)"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('switch')", show=False),
        Binding("n,escape", "answer('keep')", show=False),
        Binding("shift+tab", "answer('skip')", show=False),
        Binding("left,up", "move(-1)", show=False),
        Binding("right,down,tab", "move(1)", show=False),
    ]

    CSS_PATH = "mode_confirm.tcss"

    def __init__(self, mode: str, current: str, *, cycling: bool, arm_delay: float) -> None:
        super().__init__(arm_delay=arm_delay)
        self.mode, self.current, self.cycling = plain(mode), plain(current), cycling
        self._switch = Button(
            option_label("y", f"Switch to {self.mode}"), variant="error", compact=True, disabled=True, id="switch"
        )
        self._keep = Button(
            option_label("n", f"Keep {self.current}"), variant="success", compact=True, disabled=True, id="keep"
        )
        self._buttons = [self._switch, self._keep]

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="dialog")
        dialog.border_title = "Switch mode"
        with dialog:
            yield Static(Text(f"Switch the agent to {self.mode}?"), id="title")
            with Horizontal(id="where"):
                yield Static(Text(f"{GLYPHS['attention']} bypasses permissions"), id="marker")
                yield Static(
                    Text("This mode's name says the agent will act without asking you first (edits, commands…)."),
                    id="why",
                )
            with Horizontal(id="buttons"):
                yield from self._buttons
            yield self._hint

    def _controls(self) -> list[Widget]:
        return list(self._buttons)

    def _armed_hints(self) -> Text:
        pairs = [("esc", "keep"), ("←→ ⏎", "choose")]  # y and n are on the options themselves
        if self.cycling:
            pairs.append(("⇧Tab", "skip to the next mode"))
        return key_hints(pairs)

    def action_answer(self, answer: ModeAnswer) -> None:
        if not self._armed:
            return
        self._finish("keep" if answer == "skip" and not self.cycling else answer)

    def action_move(self, step: int) -> None:
        self._move_among(self._buttons, step)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self._armed:
            self._finish("switch" if event.button is self._switch else "keep")
