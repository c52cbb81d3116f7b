"""Ctrl-C and Ctrl-R on the chat screen: what each press means now, and the second press some of them need.

`decide_interrupt` (interrupt.py) is the pure policy for Ctrl-C; this part applies it to one screen and keeps
the two arming times (a quit, a restart of a running agent) that make a second press mean more.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, assert_never

from textual.screen import Screen

from acp_tui.controller.controller import SessionController
from acp_tui.ui.chat.asker import ScreenAsker
from acp_tui.ui.chat.interrupt import Interrupt, decide_interrupt
from acp_tui.ui.widgets.prompt_input import PromptInput

#: Seconds within which a second Ctrl+R restarts a running agent.
RESTART_CONFIRM: Final = 5.0


class StopKeys:
    """Ctrl-C (`interrupt`) and Ctrl-R (`restart`) for one chat screen."""

    def __init__(
        self,
        screen: Screen[None],
        controller: SessionController,
        asker: ScreenAsker,
        prompt: Callable[[], PromptInput],
    ) -> None:
        self.screen = screen
        self.app = screen.app
        self.controller = controller
        self.asker = asker
        self._prompt = prompt
        self.quit_armed_at: float | None = None
        self._restart_armed_at: float | None = None  # Ctrl+R on a running agent asks for a second one

    def interrupt(self, elsewhere: str = "") -> None:
        """Ctrl-C, wherever the focus is (the app binds it with priority); `elsewhere` says what quitting would
        also end (`tab 2 is working`: a double Ctrl-C quits every tab)."""
        prompt = self._prompt()
        controller = self.controller
        busy = not controller.stopped and (controller.busy or controller.waiting_for_user or self.asker.dialog_open)
        action = decide_interrupt(
            now=time.monotonic(),
            busy=busy,
            cancel_sent_at=controller.cancel_sent_at,
            prompt_text=prompt.text,
            has_selection=not prompt.selection.is_empty,
            quit_armed_at=self.quit_armed_at,
            force_stop_after=controller.force_stop_after,
        )
        match action:
            case Interrupt.CANCEL:
                controller.cancel()
            case Interrupt.WAIT:
                self.app.notify("Cancelling… the agent is finishing up.", markup=False, timeout=2)
            case Interrupt.FORCE_STOP:
                self.screen.run_worker(controller.stop(), group="stop")
            case Interrupt.COPY:
                prompt.action_copy()
            case Interrupt.CLEAR:
                prompt.load_text("")
            case Interrupt.ARM_QUIT:
                self.quit_armed_at = time.monotonic()
                also = f" ({elsewhere})" if elsewhere else ""
                self.app.notify(f"Press Ctrl-C again to quit{also}.", markup=False, timeout=2 if not also else 4)
            case Interrupt.QUIT:
                self.app.call_later(self.app.run_action, "quit_app")
            case _:
                assert_never(action)

    def restart(self) -> None:
        """Ctrl+R: restart a stopped agent; a running one only when asked twice (it would lose its work)."""
        running, armed, self._restart_armed_at = not self.controller.stopped, self._restart_armed_at, None
        if running and (armed is None or time.monotonic() - armed > RESTART_CONFIRM):
            self._restart_armed_at = time.monotonic()
            self.controller.note(
                "the agent is running: press Ctrl-R again to stop it and start it afresh "
                "(the session is resumed where the agent can)",
                "warning",
            )
            return
        self.screen.run_worker(self.controller.restart(stop_first=True), group="agent-start", exclusive=True)


__all__ = ["RESTART_CONFIRM", "StopKeys"]
