"""What a login means for the agent's life: logging in when asked or required, and the prompt it interrupted.

The login itself (the auth service's dialogue, its variables and restart flag) is the `LoginFlow`'s
(login.py); this part decides, by a `match` on how the login ended, what happens to the session being
opened, the prompt the agent refused with "authentication required" (sent again once logged in, shown
once) and the queue (it waits, paused, when the user did not log in) (docs/protocol.md §2.4). A prompt the agent
inserted into its session before failing it stays in the agent's history: when it is the session's only one,
the restart a login needs opens a new session for it instead of resuming, so the model gets it once.
`SessionController` owns one (`controller.logins`) and is its `LoginTurnsHost`.
"""

from __future__ import annotations

from typing import Protocol

from acp_tui.agent.session import AgentSession, AuthRequired
from acp_tui.context import PromptSubmission
from acp_tui.controller.login import LoginFlow, Resend
from acp_tui.controller.part_host import PartHost
from acp_tui.controller.prompt_queue import PromptQueue
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED
from acp_tui.services.auth import LoggedIn, LoginCancelled, RestartNeeded
from acp_tui.session.model import USER_MESSAGE, SessionState


class LoginTurnsHost(PartHost, Protocol):
    """What the login turns need of their controller besides a part's (`PartHost`): its queue and its login,
    and its life (open, start, restart)."""

    queue: PromptQueue
    login_flow: LoginFlow
    #: the controller shut down: nothing more is started
    closed: bool

    async def open_or_resume(self, session: AgentSession, resume_id: str | None) -> None:
        """Resume `resume_id` where the agent can, else open a new session; `AuthRequired` goes to the caller."""
        ...

    async def start(self, resume_id: str | None = None) -> bool: ...

    async def restart(self, *, stop_first: bool = False) -> bool: ...

    async def restart_for_login(self, session: AgentSession, resume_id: str | None) -> bool:
        """Stop this agent quietly and start a fresh one: it reads the new login or variables when it starts."""
        ...


class LoginTurns:
    """Logs in when the user asks or the agent requires it, and sends again what the login interrupted."""

    def __init__(self, host: LoginTurnsHost) -> None:
        self._host = host
        #: the prompt in flight: sent again if the agent wants a login first
        self.last_prompt: PromptSubmission | None = None
        #: the prompt a login interrupted, to send once logged in
        self._resend: Resend | None = None

    async def login(self) -> bool:
        """The user asked to log in (command palette): offer the agent's methods now; True once logged in.

        A stopped agent is started again (it asks when it needs a login); a working one is left to finish.
        """
        session = self._host.session
        if session is None or self._host.stopped:
            return await (self._host.restart() if session is not None else self._host.start())
        if self._host.login_flow.active or self._host.phase == "starting":
            return False  # a login is already being asked (start-up asks by itself when the agent needs one)
        if self._host.busy:
            self._host.note("the agent is working; log in once it is done (or cancel the turn first)", "warning")
            return False
        match await self._host.login_flow.log_in(session, None, asked=True, hold=True):
            case None:
                self._host.note("this agent lists no login methods; log in with its own command", "warning")
                return False
            case LoggedIn(how=how):
                self._host.note(how)
                return True
            case RestartNeeded(how=how):
                self._host.note(how)
                return await self._host.restart_for_login(session, session.session_id)
            case LoginCancelled(stopped=stopped):
                if stopped:
                    self._host.note("log in again from the command palette (Log in) when you are ready", "warning")
                return False

    async def logout(self) -> bool:
        """Log out (command palette): the agent's own logout when it allows it; the login's variables are forgotten."""
        return await self._host.login_flow.log_out(None if self._host.stopped else self._host.session)

    async def open_or_log_in(self, session: AgentSession, resume_id: str | None) -> bool:
        """Open (or resume) the session, logging in and retrying while the agent requires it.

        False: a fresh agent must start first (a terminal login, new variables). Raises `AuthRequired` when
        the user does not log in, or nothing can be offered.
        """
        while True:
            try:
                await self._host.open_or_resume(session, resume_id)
                return True
            except AuthRequired as exc:
                match await self._host.login_flow.log_in(session, str(exc)):
                    case LoggedIn(how=how):
                        self._host.note(how)
                    case RestartNeeded(how=how):
                        self._host.note(how)
                        return False
                    case LoginCancelled() | None:
                        raise

    def auth_failed(self, session: AgentSession, reason: str, *, inserted: str | None = None) -> None:
        """A prompt (or its turn) failed with -32000: log in, then send the prompt again; the queue waits.

        `inserted`: the user message the failed turn began with (the agent inserted the prompt); without it the
        prompt was refused before insertion and its failed submission is the first try.
        """
        if self._host.login_flow.active or self._host.closed or session is not self._host.session:
            return
        self._host.login_flow.active = True  # before anything queued can go out
        prompt, self.last_prompt = self.last_prompt, None
        refused = None if inserted is not None else _refused_submission(session.state)
        resend = Resend(prompt, inserted, refused) if prompt is not None else None
        self._host.spawn(self._log_in_and_resend(session, resend, reason))

    async def _log_in_and_resend(self, session: AgentSession, resend: Resend | None, reason: str) -> None:
        match await self._host.login_flow.log_in(session, reason, hold=True):
            case LoggedIn(how=how):
                self._host.note(how)
                self._resend = resend
                if not self.resend_after_login():
                    self._host.prompts.send_queued()
            case RestartNeeded(how=how):
                self._host.note(how)
                resume_id = session.session_id
                if resend is not None and resend.of is not None and _only_prompt(session.state, resend.of):
                    # The agent kept the prompt it failed in its session (Claude's adapter does): resumed, the model
                    # would get it twice ("hello hello"). Nothing else is in that session: a new one takes it once
                    # (its bubble, still on screen, stays the one shown).
                    resume_id = None
                    self._host.note("the agent kept the prompt it could not answer: a new session takes it")
                self._resend = resend
                if not await self._host.restart_for_login(session, resume_id) and self._resend is not None:
                    self._requeue(self._resend.prompt)
                    self._resend = None
            case LoginCancelled() | None:
                if resend is not None:
                    self._requeue(resend.prompt)
                    self._host.note(
                        "not logged in: the agent requires a login; log in once in acp-tui's TUI, or with the "
                        "agent's own command, then run again"
                        if self._host.launch.headless
                        else "not logged in: your prompt waits in the queue; log in from the command palette, "
                        "then send it with Enter",
                        "warning",
                    )
                self._host.prompts.send_queued()

    def resend_after_login(self) -> bool:
        """Send the prompt a login interrupted (nothing the user typed is lost); True when one was sent."""
        resend, self._resend = self._resend, None
        if resend is None:
            return False
        session = self._host.session
        if session is None or session.session_id is None or self._host.stopped or self._host.busy:
            self._requeue(resend.prompt)
            return False
        self._host.note("sending your prompt again")
        if resend.refused is not None:
            session.dismiss_submission(resend.refused)  # the refused try goes; the words show once, as sent now
        self._host.prompts.send(resend.prompt, resend_of=resend.of)
        return True

    def _requeue(self, submission: PromptSubmission) -> None:
        """Put a prompt back in the queue, paused: it waits for the user's Enter."""
        self._host.queue.add(submission)
        self._host.queue.paused = True
        self._host.prompts.queue_changed()


def _only_prompt(state: SessionState, message_id: str) -> bool:
    """Is `message_id` the session's only user message (nothing before it is worth resuming)?"""
    users = [key for key in state.entities if key[0] == USER_MESSAGE]
    return users == [(USER_MESSAGE, message_id)]


def _refused_submission(state: SessionState) -> int | str | None:
    """The prompt the agent refused with "authentication required" before inserting it, if one is shown."""
    for request_id, submission in reversed(state.submissions.items()):
        if submission.status == "failed" and submission.error is not None and submission.error.code == AUTH_REQUIRED:
            return request_id
    return None


__all__ = ["LoginTurns", "LoginTurnsHost"]
