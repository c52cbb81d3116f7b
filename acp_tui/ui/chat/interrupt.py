"""What Ctrl-C means right now: one pure decision, so the policy is tested without a terminal.

While the agent works, Ctrl-C cancels; if the agent still has not stopped a few seconds after the
cancel, a second Ctrl-C stops its process. While idle, Ctrl-C copies a selection, else clears the
prompt, else arms a quit that a second press within two seconds confirms.
"""

from __future__ import annotations

from enum import Enum

from acp_tui.controller.controller import FORCE_STOP_AFTER as FORCE_STOP_AFTER

#: Seconds within which a second Ctrl-C on an empty, idle prompt quits.
QUIT_WINDOW = 2.0


class Interrupt(Enum):
    CANCEL = "cancel"  # send session/cancel
    WAIT = "wait"  # a cancel is on its way; too early to force anything
    FORCE_STOP = "force_stop"  # kill the agent's process group, keep the transcript
    COPY = "copy"  # copy the prompt's selection
    CLEAR = "clear"  # clear the prompt
    ARM_QUIT = "arm_quit"  # say "press Ctrl-C again to quit"
    QUIT = "quit"


def decide_interrupt(
    *,
    now: float,
    busy: bool,
    cancel_sent_at: float | None,
    prompt_text: str,
    has_selection: bool,
    quit_armed_at: float | None,
    force_stop_after: float = FORCE_STOP_AFTER,
) -> Interrupt:
    """The action for one Ctrl-C press given the session and prompt state."""
    if busy:
        if cancel_sent_at is None:
            return Interrupt.CANCEL
        return Interrupt.FORCE_STOP if now - cancel_sent_at >= force_stop_after else Interrupt.WAIT
    if has_selection:
        return Interrupt.COPY
    if prompt_text:
        return Interrupt.CLEAR
    if quit_armed_at is not None and now - quit_armed_at <= QUIT_WINDOW:
        return Interrupt.QUIT
    return Interrupt.ARM_QUIT
