"""The `--approve` policy: every question the agent asks answered at once, by rule, never by a person.

`never` (the default) rejects each permission once (or cancels it where no reject is offered), `reads`
allows read-only tool calls (kind `read` or `search`) and rejects the rest, `always` allows once. Forms and
links are declined, logins are not attempted (the run ends "auth required"). What the policy does not
allow is also not offered: `launch_for` turns client terminals off and refuses file access outside the
folder unless the policy covers it, so the files service never has to ask.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal, TypeAlias

from acp_tui.launch import Launch
from acp_tui.protocol.methods import ToolCallPermissionSubject
from acp_tui.services.auth import LoginChoice, LoginRequest, SecretRequest, TerminalCommand, TerminalOutcome
from acp_tui.services.elicitation import (
    Declined,
    FormOutcome,
    FormQuestion,
    RefusedElicitation,
    UrlOutcome,
    UrlQuestion,
)
from acp_tui.services.files import OutsideRead, OutsideWrite
from acp_tui.services.permission import PermissionQuestion
from acp_tui.session.model import SessionState, ToolCall

Approve: TypeAlias = Literal["never", "reads", "always"]
APPROVE_CHOICES: tuple[Approve, ...] = ("never", "reads", "always")
#: tool-call kinds (docs/protocol.md §6) that only look: what `--approve reads` allows
READ_KINDS = frozenset({"read", "search"})


def launch_for(launch: Launch, approve: Approve) -> Launch:
    """The launch with only what the policy allows offered: terminals under `always` only, reads outside the
    folder from `reads` on, writes outside it under `always` only (each then allowed without a question); and
    headless, so no line says to press a key."""
    return dataclasses.replace(
        launch,
        headless=True,
        client_terminals=launch.client_terminals and approve == "always",
        outside_reads="refuse" if approve == "never" else "ask",
        outside_writes="ask" if approve == "always" else "refuse",
    )


class PolicyAsker:
    """The `UserAsker` of print mode: answers by the policy and reports each answer through `report`."""

    def __init__(
        self, approve: Approve, report: Callable[[str], None], state: Callable[[], SessionState] | None = None
    ) -> None:
        self.approve: Approve = approve
        self._report = report
        self._state = state
        #: the agent asked for a login (the run ends "auth required")
        self.login_asked = False

    # -- permissions -----------------------------------------------------------------------------

    async def ask_permission(self, question: PermissionQuestion) -> str | None:
        request = question.request
        kind = self._kind(question)
        allow = self.approve == "always" or (self.approve == "reads" and kind in READ_KINDS)
        wanted = ("allow_once", "allow_always") if allow else ("reject_once",)
        for option_kind in wanted:
            option = next((o for o in request.options if o.kind == option_kind), None)
            if option is not None:
                verb = "allowed" if allow else "rejected"
                self._report(f"permission {verb} (--approve {self.approve}): {request.title}")
                return option.option_id
        self._report(f"permission cancelled (--approve {self.approve}, no option to answer with): {request.title}")
        return None

    def _kind(self, question: PermissionQuestion) -> str | None:
        """The kind of the tool call asked about: as the request gives it, else as its card has it."""
        subject = question.request.subject
        if not isinstance(subject, ToolCallPermissionSubject):
            return None
        kind = subject.tool_call.kind
        if isinstance(kind, str):
            return kind
        if self._state is not None:
            card = self._state().tool_call(subject.tool_call.tool_call_id)
            if isinstance(card, ToolCall):
                return card.kind
        return None

    def permissions_waiting(self, count: int) -> None:
        pass  # answered at once: nothing waits on a person

    # -- files outside the folder (only asked where `launch_for` set "ask", so the policy allows it) ---

    async def confirm_outside_write(self, write: OutsideWrite) -> bool:
        allowed = self.approve == "always"
        self._report(f"write outside the folder {'allowed' if allowed else 'refused'}: {write.path}")
        return allowed

    async def confirm_outside_read(self, read: OutsideRead) -> bool:
        allowed = self.approve != "never"
        self._report(f"read outside the folder {'allowed' if allowed else 'refused'}: {read.requested}")
        return allowed

    # -- forms and links -------------------------------------------------------------------------

    async def ask_form(self, question: FormQuestion) -> FormOutcome:
        self._report("the agent asked for a form: declined (print mode answers no forms)")
        return Declined()

    async def ask_url(self, question: UrlQuestion) -> UrlOutcome:
        self._report("the agent asked to open a link: declined (print mode opens no links)")
        return Declined()

    def elicitation_refused(self, refusal: RefusedElicitation) -> None:
        self._report(f"the agent sent a form that could not be shown: {refusal.message}")

    # -- logins ----------------------------------------------------------------------------------

    async def choose_login(self, request: LoginRequest) -> LoginChoice | None:
        self.login_asked = True
        return None  # log in once in the TUI (or with the agent's own command); print mode never does

    async def confirm_terminal_login(self, command: TerminalCommand) -> bool:
        return False

    async def ask_secrets(self, request: SecretRequest) -> dict[str, str] | None:
        self.login_asked = True
        return None

    async def run_terminal_login(self, command: TerminalCommand) -> TerminalOutcome:
        return TerminalOutcome(None, "print mode runs no logins")


__all__ = ["APPROVE_CHOICES", "Approve", "PolicyAsker", "READ_KINDS", "launch_for"]
