"""Steer now from the keyboard: Ctrl+Enter / Alt+Enter in the prompt, `s` on a queued prompt.

The controller's `SteerFlow` (controller/steering.py) decides and sends; this says, in a toast, what
happened when it is not what the key names: the agent offers no steering (the prompt is queued as Enter
would queue it), or it was idle (the prompt simply went out).
"""

from __future__ import annotations

from textual.app import App

from acp_tui.context import PromptSubmission
from acp_tui.controller.controller import SessionController

NOT_OFFERED = "This agent does not offer steering: your prompt is queued and goes out when the turn ends."
NOT_RUNNING = "The agent is not running; press Ctrl-R to restart it. Your prompt is queued."


class SteerControl:
    """Turns the steer keys into `controller.steering` intents."""

    def __init__(self, app: App[object], controller: SessionController) -> None:
        self.app = app
        self.controller = controller

    def now(self, submission: PromptSubmission) -> None:
        """Ctrl+Enter / Alt+Enter in the prompt."""
        started = self.controller.steering.steer_now(submission)
        if started == "queued" or (started == "held" and self.controller.stopped):
            text = NOT_OFFERED if started == "queued" else NOT_RUNNING
            self.app.notify(text, severity="warning", markup=False, timeout=4)

    def promote(self, index: int) -> None:
        """`s` on the queued prompt at `index`."""
        if self.controller.steering.promote(index) == "queued":
            self.app.notify(NOT_OFFERED.replace("is queued", "stays queued"), severity="warning", markup=False)
