"""For tests of the controller: a scripted user answering every question as told, and a listener keeping
every event the controller tells."""

from __future__ import annotations

from acp_tui.controller.controller_events import ControllerEvent
from acp_tui.services.auth import LoginChoice, LoginRequest, SecretRequest, TerminalCommand, TerminalOutcome
from acp_tui.services.files import OutsideRead, OutsideWrite
from acp_tui.services.permission import PermissionQuestion
from tests.support.askers import NoElicitation


class ScriptedUser(NoElicitation):
    """Answers permission questions from a script: the kinds of option to choose, in order."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.asked: list[PermissionQuestion] = []
        self.waiting: list[int] = []

    async def ask_permission(self, question: PermissionQuestion) -> str | None:
        self.asked.append(question)
        kind = self.answers.pop(0) if self.answers else "cancel"
        return next((o.option_id for o in question.request.options if o.kind == kind), None)

    def permissions_waiting(self, count: int) -> None:
        self.waiting.append(count)

    async def confirm_outside_write(self, write: OutsideWrite) -> bool:
        """The demo writes inside its folder; a write outside is refused."""
        return False

    async def confirm_outside_read(self, read: OutsideRead) -> bool:
        return False

    async def choose_login(self, request: LoginRequest) -> LoginChoice | None:
        """The demo needs no login; asked anyway, the user declines."""
        return None

    async def confirm_terminal_login(self, command: TerminalCommand) -> bool:
        raise AssertionError("no login was chosen, so none runs")

    async def ask_secrets(self, request: SecretRequest) -> dict[str, str] | None:
        raise AssertionError("no login was chosen, so no key is asked for")

    async def run_terminal_login(self, command: TerminalCommand) -> TerminalOutcome:
        raise AssertionError("no login was chosen, so none runs")


class ControllerEvents(list[ControllerEvent]):
    """A `ControllerListener` that keeps every event in order: the list is what the test reads."""

    def controller_event(self, event: ControllerEvent) -> None:
        self.append(event)
