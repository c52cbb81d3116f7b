"""How a turn ended, for the conversation and the queue (docs/protocol.md §9.2).

Once per turn, after all its output, the reducer's `TurnEnded` comes here: a turn that did not simply end
gets a line in the conversation (so the history says so), a turn the agent failed with "authentication
required" goes to the login turns (log in, then send the prompt again), and a cancelled turn pauses what
the user queued. `SessionController` owns one (`controller.turn_ends`) and is its `TurnEndsHost`.
"""

from __future__ import annotations

from typing import Protocol

from acp_tui.controller.login_turns import LoginTurns
from acp_tui.controller.part_host import PartHost
from acp_tui.controller.prompt_queue import PromptQueue
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED
from acp_tui.sanitize import plain
from acp_tui.session.changes import TurnEnded
from acp_tui.session.model import USER_MESSAGE, Message, SessionState

#: Stop reasons of turns that did not simply end, as the line the conversation keeps (docs/protocol.md §9.2).
TURN_END_TEXT: dict[str, str] = {
    "max_tokens": "stopped: token limit",
    "max_turn_requests": "stopped: request limit",
}


class TurnEndsHost(PartHost, Protocol):
    """What the turn ends need of their controller besides a part's (`PartHost`): its queue and login turns."""

    queue: PromptQueue
    logins: LoginTurns


class TurnEnds:
    """Says how each turn ended and what that means for the prompt sent again and the queue."""

    def __init__(self, host: TurnEndsHost) -> None:
        self._host = host

    def ended(self, change: TurnEnded) -> None:
        """A turn's end (once per turn, after all its output): say how it ended; a cancel pauses the queue."""
        self._mark_turn_end(change.stop_reason, change.error.message if change.error is not None else None)
        if change.stop_reason == "error" and change.error is not None and change.error.code == AUTH_REQUIRED:
            if self._host.session is not None:  # e.g. Claude's adapter (docs/protocol.md §2.4)
                self._host.logins.auth_failed(
                    self._host.session, change.error.message, inserted=_turn_message(self._host.session.state)
                )
        else:
            self._host.logins.last_prompt = None  # answered: nothing to send again
        if change.cancel_requested and len(self._host.queue):
            self._host.queue.paused = True  # what the user queued waits until they say so
            self._host.prompts.queue_changed()

    def _mark_turn_end(self, stop_reason: str | None, error_message: str | None) -> None:
        """A turn that did not simply end gets a line in the conversation, so the history says so."""
        if stop_reason is None or stop_reason == "end_turn":
            return
        if stop_reason == "error":
            self._host.note(f"✗ the turn failed: {plain(error_message or 'unknown error')}", "error")
        elif stop_reason == "cancelled":
            self._host.note("the turn was cancelled" if self._host.launch.headless else "⊘ cancelled")
        elif stop_reason == "refusal":
            self._host.note("the agent refused; this exchange is left out of its context", "warning")
        else:
            self._host.note(TURN_END_TEXT.get(stop_reason, f"stopped ({plain(stop_reason)})"), "warning")


def _turn_message(state: SessionState) -> str | None:
    """The user message the last turn began with, or the one it repeats (a prompt sent again after a login)."""
    for key, entity in reversed(state.entities.items()):
        if key[0] == USER_MESSAGE and type(entity) is Message:
            return entity.resend_of or entity.id
    return None


__all__ = ["TURN_END_TEXT", "TurnEnds", "TurnEndsHost"]
