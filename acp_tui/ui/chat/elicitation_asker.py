"""The elicitation questions asked with this package's dialogs (`ElicitationAsker`, acp_tui.services.elicitation).

`ElicitationDialogs` pushes the form or URL dialog for each question and returns what the user did;
when the service withdraws the question (the agent cancelled it, the turn was cancelled, the agent
stopped) the awaiting task is cancelled and the dialog closes at once. A question the client could not
show opens `ElicitationRefusedScreen` (nothing to answer: the agent already has its refusal).

The chat screen's asker delegates its three elicitation methods here; `Attention` (optional) is told
whenever a question waits, so the user hears about it in another window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from acp_tui.sanitize import plain
from acp_tui.services.elicitation import (
    Cancelled,
    FormOutcome,
    FormQuestion,
    RefusedElicitation,
    UrlOutcome,
    UrlQuestion,
)
from acp_tui.ui.chat.presence import Presence

if TYPE_CHECKING:
    from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen
    from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlScreen

# The dialogs are imported where they are first shown: none of them is on the first screen (start-up time).

__all__ = ["ElicitationDialogs", "WITHDRAWN"]

#: Why a dialog closed without the user: the service withdrew the question.
WITHDRAWN = "the question was withdrawn"


class WaitingAlert(Protocol):
    """Told when a question starts waiting for the user (`acp_tui.ui.chat.attention.Attention`)."""

    def waiting(self, what: str) -> bool: ...


class ElicitationDialogs:
    """Implements `ElicitationAsker` with modal dialogs over `app`."""

    def __init__(
        self,
        app: App[Any],
        *,
        arm_delay: float,
        agent_name: str = "the agent",
        tool_title: Callable[[str], str | None] = lambda tool_call_id: None,
        attention: WaitingAlert | None = None,
        presence: Presence | None = None,
    ) -> None:
        """`tool_title` looks up the title of a tool call by id (for "For the tool call: …"); a dialog opens
        only while `presence` says the screen is the tab on screen."""
        self.app = app
        self.presence = presence if presence is not None else Presence()
        self.arm_delay = arm_delay
        self.agent_name = agent_name
        self._tool_title = tool_title
        self._attention = attention

    def _tool_call(self, tool_call_id: str | None) -> str | None:
        return self._tool_title(tool_call_id) if tool_call_id else None

    async def ask_form(self, question: FormQuestion) -> FormOutcome:
        from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen

        screen = ElicitationFormScreen(
            question,
            agent=self.agent_name,
            tool_call=self._tool_call(question.tool_call_id),
            arm_delay=self.arm_delay,
        )
        self._waiting(f"{plain(self.agent_name)} asks you a question")
        outcome = await self._ask(screen)
        return outcome if outcome is not None else Cancelled("dismissed")

    async def ask_url(self, question: UrlQuestion) -> UrlOutcome:
        from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlScreen

        screen = ElicitationUrlScreen(
            question,
            agent=self.agent_name,
            tool_call=self._tool_call(question.tool_call_id),
            arm_delay=self.arm_delay,
        )
        self._waiting(f"{plain(self.agent_name)} wants you to open a link on {question.view.host or 'another site'}")
        outcome = await self._ask(screen)
        return outcome if outcome is not None else Cancelled("dismissed")

    def elicitation_refused(self, refusal: RefusedElicitation) -> None:
        from acp_tui.ui.dialogs.elicitation_refused import ElicitationRefusedScreen

        screen = ElicitationRefusedScreen(refusal, agent=self.agent_name)

        def read(_: object) -> None:
            ticket.done()  # the tab says ⚠ until the refusal is read

        ticket = self.presence.when_shown(lambda: self.app.push_screen(screen, callback=read))

    def _waiting(self, what: str) -> None:
        if self._attention is not None:
            self._attention.waiting(what)

    async def _ask(self, screen: ElicitationFormScreen | ElicitationUrlScreen) -> Any:
        """Push `screen`, wait for its result; when cancelled, close it and let the cancellation through."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        ticket = self.presence.when_shown(lambda: self.app.push_screen(screen, callback=done))
        try:
            return await future
        except asyncio.CancelledError:
            if screen.on_a_stack():
                screen.close_because(WITHDRAWN)
            raise
        finally:
            ticket.done()
