"""The controller's login flow: log in, log out, and what a login leaves for the agent's next start.

Logging in (docs/protocol.md §2.4) is the auth service's dialogue with the user; this flow runs it for the
controller against the current agent, keeps the variables the user gave for the agent's process only (kept
across restarts, never written anywhere) and the agent method to log in with after the restart they need,
and says how it ended (`LoginOutcome`). What then happens to the prompt queue and the turn (send again,
restart, requeue) is the controller's decision, a `match` on that outcome.
"""

from __future__ import annotations

import os
from typing import Protocol

import msgspec

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.session import AgentSession
from acp_tui.context import PromptSubmission
from acp_tui.controller.controller_events import Severity
from acp_tui.launch import Launch
from acp_tui.protocol.auth import AgentLogin, EnvVarLogin
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.sanitize import plain
from acp_tui.services.auth import (
    AgentRequest,
    AuthService,
    LoggedIn,
    LoginAttempt,
    LoginCancelled,
    LoginInterrupted,
    LoginOutcome,
    LoginStopped,
    RestartNeeded,
)


class LoginHost(Protocol):
    """What the login flow needs of its controller: the launch and the conversation's lines."""

    @property
    def launch(self) -> Launch: ...

    def note(self, text: str, severity: Severity = "info", *, detail: str = "") -> None: ...

    def waiting(self, what: str | None) -> None:
        """Show (or, None, clear) what the client waits for in the status line."""
        ...


class Resend(msgspec.Struct, frozen=True):
    """A prompt a login interrupted, to send again once logged in; its first try is shown once.

    `of`: the user message the agent inserted (the resend is marked as its repeat); `refused`: the
    submission the agent refused before inserting it (dismissed when the prompt goes again).
    """

    prompt: PromptSubmission
    of: str | None = None
    refused: int | str | None = None


class LoginFlow:
    """Logs the user in to (and out of) the controller's agent; owns the login's env and restart flag."""

    def __init__(self, host: LoginHost) -> None:
        self._host = host
        #: variables the user gave for the agent's process only (the next start sets them)
        self.env: dict[str, str] = {}
        #: the agent method to log in with, without asking, once the restart a login needed is done
        self._after_restart: str | None = None
        #: a login holds the queue (asked, or about to be)
        self.active = False

    @staticmethod
    def service(session: AgentSession) -> AuthService | None:
        return next((s for s in session.services if isinstance(s, AuthService)), None)

    def pending(self, session: AgentSession | None) -> bool:
        """Is a login step in flight (a login dialog, or `authenticate` / `auth/login` awaiting its answer)?"""
        auth = self.service(session) if session is not None else None
        return auth is not None and auth.request_pending

    def withdraw(self, session: AgentSession | None) -> bool:
        """Ctrl-C: withdraw the agent's login request while one awaits its answer; False when none does."""
        auth = self.service(session) if session is not None else None
        return auth is not None and auth.stop_login()

    def identified(self, session: AgentSession, name: str) -> None:
        """The login dialogs name the agent as it calls itself."""
        auth = self.service(session)
        if auth is not None:
            auth.agent_name = name

    async def log_in(
        self, session: AgentSession, reason: str | None, *, asked: bool = False, hold: bool = False
    ) -> LoginOutcome | None:
        """Resolve "authentication required" with the user; None when there is nothing to offer.

        After a restart for an `env_var` method, its id is tried first without asking (the fresh agent may
        still want `authenticate`/`auth/login`). `asked`: the user opened the dialog themselves. `hold`: the
        login holds the queue (`active`) until it ends (start-up needs no hold: nothing is sent before it).
        """
        if not hold:
            return await self._log_in(session, reason, asked=asked)
        self.active = True
        try:
            return await self._log_in(session, reason, asked=asked)
        finally:
            self.active = False

    async def _log_in(self, session: AgentSession, reason: str | None, *, asked: bool) -> LoginOutcome | None:
        host = self._host
        auth = self.service(session)
        if auth is None or session.init is None:
            return None
        methods = auth.decode(session.init.auth_methods)
        if not (asked or auth.can_help(methods, reason)):
            return None
        attempt = LoginAttempt(
            reason,
            methods,
            _agent_request(session),
            {**os.environ, **host.launch.env, **self.env},
            progress=host.waiting,
            note=host.note,
        )
        pending, self._after_restart = self._after_restart, None
        outcome: LoginOutcome
        try:
            known = next(
                (m for m in methods if isinstance(m, (AgentLogin, EnvVarLogin)) and m.method_id == pending), None
            )
            if known is not None:
                try:
                    failure = await auth.authenticate(attempt, known.method_id, known.name)
                except LoginStopped:
                    return self._cancelled()
                if failure is None:
                    return LoggedIn(f"logged in: {plain(known.name)}")
                host.note(f"login failed — {failure}", "warning")
            host.waiting("waiting for you to log in")
            outcome = await auth.log_in(attempt)
        except LoginInterrupted as exc:
            outcome = LoginCancelled(str(exc))
        finally:
            host.waiting(None)
        match outcome:
            case RestartNeeded(env=env, then_login=then_login):
                self.env.update(env)
                self._after_restart = then_login
            case LoginCancelled(stopped=True):
                return self._cancelled()
            case LoginCancelled(why=why) if why:
                host.note(f"not logged in: {plain(why)}", "warning")
            case LoggedIn() | LoginCancelled():
                pass
        return outcome

    def _cancelled(self) -> LoginCancelled:
        """The user withdrew the login (Ctrl-C at its dialog or its request): say so; the caller says how to try again."""
        self._host.note("⊘ login cancelled", "warning")
        return LoginCancelled(stopped=True)

    async def log_out(self, session: AgentSession | None) -> bool:
        """v2 `auth/logout` / v1 `logout` when the running agent (`session`, None when stopped) allows it; never
        without listed methods. Variables the user gave are forgotten either way (not set for the next start)."""
        note = self._host.note
        forgotten = ", ".join(sorted(self.env))
        self.env.clear()
        self._after_restart = None
        also = f"; {forgotten} will not be set when the agent restarts" if forgotten else ""
        auth = self.service(session) if session is not None else None
        if session is None or session.init is None or auth is None:
            note(f"the agent is not running: nothing to log out of{also}", "warning")
            return False
        raw_methods = session.init.auth_methods
        if auth.logout_method(raw_methods) is None:
            note(f"this agent offers no way to log out{also}", "warning")
            return False
        try:
            await auth.log_out(_agent_request(session), raw_methods)
        except RpcError as exc:
            note(f"the agent did not log out: {plain(exc.message)} ({exc.code}){also}", "warning")
            return False
        except LoginInterrupted as exc:
            note(f"not logged out: {plain(str(exc))}{also}", "warning")
            return False
        note(f"logged out; the agent will ask you to log in again{also}")
        return True


def _agent_request(session: AgentSession) -> AgentRequest:
    """The login requests' way to the agent: its exit becomes `LoginInterrupted`."""

    async def request(method: str, params: object) -> object:
        try:
            return await session.connection.request(method, params)
        except ConnectionClosed as exc:
            raise LoginInterrupted(str(exc)) from None

    return request


__all__ = ["LoginFlow", "LoginHost", "Resend"]
