"""What the conversation's cards ask of the screen: stop one tool call or terminal (from its card or the jobs
tray), or save what a card or a message shows only in part.

The cards post their requests (timeline/card_requests.py, timeline/save_request.py, `TerminalView.
CancelRequested`, `JobsTray.StopRequested`); the screen hands each to `CardActions.handle`, which asks the
controller or writes the file and says in a toast what came of it.
"""

from __future__ import annotations

from typing import TypeAlias, assert_never

from textual.screen import Screen

from acp_tui.controller.controller import SessionController
from acp_tui.controller.errors import ControllerError
from acp_tui.sanitize import plain
from acp_tui.ui.chat.saving import save_full_text
from acp_tui.ui.timeline.card_requests import CancelRequested as CardCancelRequested
from acp_tui.ui.timeline.card_requests import SaveRequested as CardSaveRequested
from acp_tui.ui.timeline.save_request import MessageSaveRequested
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.widgets.jobs_tray import JobsTray

#: Every request a card, a terminal, a message or the jobs tray posts to the screen.
CardRequest: TypeAlias = (
    CardCancelRequested
    | TerminalView.CancelRequested
    | JobsTray.StopRequested
    | CardSaveRequested
    | MessageSaveRequested
)


class CardActions:
    """Carries out the cards' requests for one chat screen."""

    def __init__(self, screen: Screen[None], controller: SessionController) -> None:
        self.screen = screen
        self.controller = controller

    def handle(self, event: CardRequest) -> None:
        match event:
            case CardCancelRequested() | TerminalView.CancelRequested() | JobsTray.StopRequested():
                self.screen.run_worker(self._cancel(event), group="tool-cancel")
            case CardSaveRequested() | MessageSaveRequested():
                self._save(event)
            case _:
                assert_never(event)

    async def _cancel(self, event: CardCancelRequested | TerminalView.CancelRequested | JobsTray.StopRequested) -> None:
        """Stop one tool call (v2 `tool_call/cancel`) or the command in one terminal; a refusal is a toast."""
        try:
            if isinstance(event, TerminalView.CancelRequested):
                await self.controller.cancel_terminal(event.view.terminal_id)
            elif isinstance(event, JobsTray.StopRequested):
                stop = self.controller.cancel_terminal if event.kind == "terminal" else self.controller.cancel_tool_call
                await stop(event.job_id)
            else:
                await self.controller.cancel_tool_call(event.card.call.id)
        except ControllerError as exc:
            self.screen.app.notify(plain(str(exc)), severity="warning", markup=False)

    def _save(self, event: CardSaveRequested | MessageSaveRequested) -> None:
        """Write what the screen shows only in part (a long tool output, a huge message) and say where."""
        if isinstance(event, MessageSaveRequested):
            text, entity_id, suffix, what = event.view.full_text(), event.view.message.id, ".md", "message"
        else:
            text, entity_id, suffix, what = event.card.full_text(), event.card.call.id, ".txt", "tool output"
        try:
            path = save_full_text(text, entity_id, suffix)
        except OSError as exc:
            self.screen.app.notify(f"could not save the {what}: {exc}", severity="error", markup=False)
            return
        self.screen.app.notify(f"saved to {path}", title=what, markup=False)


__all__ = ["CardActions", "CardRequest"]
