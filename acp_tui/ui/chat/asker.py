"""How the chat screen asks the user what a client service needs to know: one dialog per question.

`ScreenAsker` implements the controller's `UserAsker` with modal screens. Each ask pushes its dialog
and awaits the user's choice; when the service withdraws the question (the turn was cancelled, the
agent withdrew it or stopped) the awaiting task is cancelled and the dialog closes saying why. A dialog
opens only while its chat screen is the tab on screen (`Presence`): a hidden tab's question waits for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual.app import App
from textual.screen import ModalScreen

from acp_tui.services.auth import LoginChoice, LoginRequest, SecretRequest, TerminalCommand, TerminalOutcome
from acp_tui.services.elicitation import FormOutcome, FormQuestion, RefusedElicitation, UrlOutcome, UrlQuestion
from acp_tui.services.files import OutsideRead, OutsideWrite
from acp_tui.services.permission import AGENT_WITHDREW, PermissionQuestion
from acp_tui.session.model import SessionState
from acp_tui.ui.chat.attention import Attention
from acp_tui.ui.chat.elicitation_asker import ElicitationDialogs
from acp_tui.ui.chat.presence import Presence

if TYPE_CHECKING:
    from acp_tui.ui.dialogs.guarded import GuardedDialog
    from acp_tui.ui.dialogs.permission import PermissionScreen

# The dialogs are imported where they are first shown: none of them is on the first screen (start-up time).

T = TypeVar("T")


class ScreenAsker:
    """The UI side of every service question."""

    def __init__(
        self,
        app: App[object],
        *,
        arm_delay: float,
        cancel_turn: Callable[[], bool],
        closed: Callable[[str], None],
        attention: Attention | None = None,
        agent_name: str = "the agent",
        tool_title: Callable[[str], str | None] = lambda tool_call_id: None,
        presence: Presence | None = None,
    ) -> None:
        self.app = app
        #: whether the screen is the tab on screen; its dialogs wait for it (a screen with no tabs: always)
        self.presence = presence if presence is not None else Presence()
        self.arm_delay = arm_delay
        self._cancel_turn = cancel_turn
        self._closed = closed
        self._attention = attention
        self._permission: PermissionScreen | None = None
        self._waiting = 0
        #: the elicitation dialogs (forms, links, refusals) keep their own ways of asking
        self.elicitation = ElicitationDialogs(
            app,
            arm_delay=arm_delay,
            agent_name=agent_name,
            tool_title=tool_title,
            attention=attention,
            presence=self.presence,
        )

    @property
    def agent_name(self) -> str:
        """Who asks, as the dialogs name it."""
        return self.elicitation.agent_name

    def name_agent(self, name: str) -> None:
        """The agent said who it is (`initialize`): the dialogs name it so from now on, not by its program."""
        self.elicitation.agent_name = name

    @property
    def dialog_open(self) -> bool:
        return self._permission is not None

    async def ask_form(self, question: FormQuestion) -> FormOutcome:
        return await self.elicitation.ask_form(question)

    async def ask_url(self, question: UrlQuestion) -> UrlOutcome:
        return await self.elicitation.ask_url(question)

    def elicitation_refused(self, refusal: RefusedElicitation) -> None:
        self.elicitation.elicitation_refused(refusal)

    async def ask_permission(self, question: PermissionQuestion) -> str | None:
        from acp_tui.ui.dialogs.permission import PermissionScreen

        screen = PermissionScreen(
            question.request,
            arm_delay=self.arm_delay,
            subagent=question.subagent,
            call=question.call,
            unknown_call=question.unknown_call,
            more_options=question.more_options,
        )
        if self._attention is not None:
            self._attention.waiting("the agent asks for permission")
        self._permission = screen
        self._show_queue()
        try:
            choice = await self._ask(screen)
        except asyncio.CancelledError:
            reason = question.closed_because or AGENT_WITHDREW
            if screen.on_a_stack():
                screen.close_because(reason)
                self._closed(f"permission request closed: {reason}")
            raise
        finally:
            self._permission = None
        if choice is None or choice.option_id is None:
            if choice is not None and choice.cancel_turn:
                self._cancel_turn()
            return None
        return choice.option_id

    async def confirm_outside_write(self, write: OutsideWrite) -> bool:
        from acp_tui.ui.dialogs.outside_write import OutsideWriteScreen

        allowed: bool | None = await self._ask_closing(OutsideWriteScreen(write, arm_delay=self.arm_delay))
        return bool(allowed)

    async def confirm_outside_read(self, read: OutsideRead) -> bool:
        from acp_tui.ui.dialogs.outside_read import OutsideReadScreen

        allowed: bool | None = await self._ask_closing(OutsideReadScreen(read, arm_delay=self.arm_delay))
        return bool(allowed)

    # -- logging in (acp_tui.services.auth.LoginAsker; docs/protocol.md §2.4) -------------------------

    async def choose_login(self, request: LoginRequest) -> LoginChoice | None:
        from acp_tui.ui.dialogs.login import LoginScreen

        return await self._ask_closing(LoginScreen(request, arm_delay=self.arm_delay))

    async def confirm_terminal_login(self, command: TerminalCommand) -> bool:
        from acp_tui.ui.dialogs.login import TerminalLoginScreen

        run: bool | None = await self._ask_closing(TerminalLoginScreen(command, arm_delay=self.arm_delay))
        return bool(run)

    async def ask_secrets(self, request: SecretRequest) -> dict[str, str] | None:
        from acp_tui.ui.dialogs.login import SecretScreen

        return await self._ask_closing(SecretScreen(request, arm_delay=self.arm_delay))

    async def run_terminal_login(self, command: TerminalCommand) -> TerminalOutcome:
        from acp_tui.ui.chat.terminal_login import run_in_terminal

        return run_in_terminal(self.app, command)

    async def _ask_closing(self, screen: GuardedDialog[T]) -> T | None:
        """`_ask`, closing the dialog when the asking task is cancelled (the app quits, the agent went away)."""
        if self._attention is not None:
            self._attention.waiting(f"{self.agent_name} waits for you")  # a login, or a file outside the folder
        try:
            return await self._ask(screen)
        except asyncio.CancelledError:
            if screen.on_a_stack():
                screen.close_because("the question was withdrawn")
            raise

    def permissions_waiting(self, count: int) -> None:
        self._waiting = count
        self._show_queue()

    def _show_queue(self) -> None:
        if self._permission is not None:
            self._permission.set_queue(1, 1 + self._waiting)

    async def _ask(self, screen: ModalScreen[T]) -> T | None:
        """Push `screen` once its tab is on screen and wait for its result (None when it is dismissed without one)."""
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def done(result: T | None) -> None:
            if not future.done():
                future.set_result(result)

        ticket = self.presence.when_shown(lambda: self.app.push_screen(screen, callback=done))
        try:
            return await future
        finally:
            ticket.done()


__all__ = ["ScreenAsker", "tool_title"]


def tool_title(state: SessionState, tool_call_id: str) -> str | None:
    """The title of a tool call, for a question the agent asks about it."""
    call = state.tool_call(tool_call_id)
    return call.title if call is not None and call.title else None
