"""The `--approve` policy: every question the agent asks answered at once, by rule, never by a person.

`never` (the default) rejects each permission once (or cancels it where no reject is offered), `reads`
allows read-only tool calls (kind `read` or `search`) and rejects the rest, `always` allows once. None of
them grants a standing permission: where the only allow option is `allow_always` (a rule the agent keeps,
such as Claude's "always allow"), the request is rejected and the reason said, unless the user named that
policy, `always-standing`. Nor is `reject_always` ever chosen. Forms and links are declined, logins are not
attempted (the run ends "auth required"). What the policy does not allow is also not offered: `launch_for`
turns client terminals off and refuses file access outside the folder unless the policy covers it, so the
files service never has to ask.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias

from acp_tui.launch import Launch
from acp_tui.protocol.methods import PermissionOption, ToolCallPermissionSubject
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

Approve: TypeAlias = Literal["never", "reads", "always", "always-standing"]
APPROVE_CHOICES: tuple[Approve, ...] = ("never", "reads", "always", "always-standing")
#: the policies that allow every request (terminals and writes outside the folder offered)
ALLOW_ALL: frozenset[Approve] = frozenset({"always", "always-standing"})
#: tool-call kinds (docs/protocol.md §6) that only look: what `--approve reads` allows
READ_KINDS = frozenset({"read", "search"})


def launch_for(launch: Launch, approve: Approve) -> Launch:
    """The launch with only what the policy allows offered: terminals under `always` only, reads outside the
    folder from `reads` on, writes outside it under `always` only (each then allowed without a question); and
    headless, so no line says to press a key."""
    return dataclasses.replace(
        launch,
        headless=True,
        client_terminals=launch.client_terminals and approve in ALLOW_ALL,
        outside_reads="refuse" if approve == "never" else "ask",
        outside_writes="ask" if approve in ALLOW_ALL else "refuse",
    )


class PolicyAsker:
    """The `UserAsker` of print mode: answers by the policy and reports each answer through `report` (`warn`
    for an answer the user may not expect: a standing permission refused)."""

    def __init__(
        self,
        approve: Approve,
        report: Callable[[str], None],
        state: Callable[[], SessionState] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.approve: Approve = approve
        self._report = report
        self._warn = warn or report
        self._state = state
        #: the agent asked for a login (the run ends "auth required")
        self.login_asked = False

    # -- permissions -----------------------------------------------------------------------------

    async def ask_permission(self, question: PermissionQuestion) -> str | None:
        request = question.request
        title = request.title
        allow = self.approve in ALLOW_ALL or (self.approve == "reads" and self._kind(question) in READ_KINDS)
        policy = f"--approve {self.approve}"
        if allow:
            once = _option(request.options, "allow_once")
            if once is not None:
                self._report(f"permission allowed ({policy}): {title} — chose {_named(once)}")
                return once.option_id
            standing = _option(request.options, "allow_always")
            if standing is not None and self.approve == "always-standing":
                self._report(f"permission allowed for good ({policy}): {title} — chose {_named(standing)}")
                return standing.option_id
            if standing is not None:
                self._warn(
                    f"permission rejected: {title} — the only allow option is {_named(standing)}, a standing "
                    f"permission the agent keeps, which {policy} does not grant (--approve always-standing does)"
                )
        reject = _option(request.options, "reject_once")
        if reject is not None:
            verb = "rejected" if not allow else "rejected instead"
            self._report(f"permission {verb} ({policy}): {title} — chose {_named(reject)}")
            return reject.option_id
        self._report(f"permission cancelled ({policy}, no option to answer with): {title}")
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
        allowed = self.approve in ALLOW_ALL
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


def _option(options: Sequence[PermissionOption], kind: str) -> PermissionOption | None:
    return next((option for option in options if option.kind == kind), None)


def _named(option: PermissionOption) -> str:
    """`"Allow once" (allow_once)`: the option's name as the agent gave it (cut, sanitised by the report)."""
    name = option.name if len(option.name) <= 80 else option.name[:79] + "…"
    return f"{json.dumps(name, ensure_ascii=False)} ({option.kind})"


__all__ = ["ALLOW_ALL", "APPROVE_CHOICES", "Approve", "PolicyAsker", "READ_KINDS", "launch_for"]
