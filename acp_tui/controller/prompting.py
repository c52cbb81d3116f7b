"""The prompts on their way to the agent: the queue's next one sent when the agent can take it, each built as
late as possible (files read fresh, as the agent's capabilities allow), and one cancelled before it went out put
back at the queue's head, paused, never lost.

A composed part of the `SessionController` (`controller.prompts`); its host protocol says what it uses of it.
The queue itself is the controller's (`controller.queue`, shown by the UI); what the user types goes through
`controller.submit`.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.session import AgentSession, SessionError
from acp_tui.context import PromptSubmission
from acp_tui.controller.controller_events import ControllerListener, QueueChanged, Severity
from acp_tui.controller.mention_guard import prompt_blocks
from acp_tui.controller.prompt_queue import PromptQueue
from acp_tui.controller.wiring import UserAsker
from acp_tui.launch import Launch
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, RpcError


class PromptLogins(Protocol):
    """What a prompt means for logging in: it is the one sent again after a login, and a refusal starts one."""

    last_prompt: PromptSubmission | None

    def auth_failed(self, session: AgentSession, reason: str, *, inserted: str | None = None) -> None: ...


class PromptHost(Protocol):
    """What sending prompts needs of the controller (every other part reaches this one through `PartHost`)."""

    session: AgentSession | None
    launch: Launch
    queue: PromptQueue
    asker: UserAsker
    listener: ControllerListener
    logins: PromptLogins
    #: when the current cancel was sent (None when no cancel is in flight)
    cancel_sent_at: float | None

    @property
    def busy(self) -> bool: ...

    @property
    def stopped(self) -> bool: ...

    def note(self, text: str, severity: Severity = "info", *, detail: str = "") -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...

    def waiting(self, what: str | None) -> None: ...

    def set_cancel(self, sent_at: float | None) -> None:
        """A cancel sent at `sent_at`, or (None) over."""
        ...

    def turn_progress(self) -> None:
        """The foreground state moved (or a prompt's request ended): the next prompt may go."""
        ...


class PromptFlow:
    """Sends the user's prompts: the next queued one when the agent can take it, or one given now."""

    def __init__(self, host: PromptHost) -> None:
        self._host = host
        #: a prompt's blocks are being built or its request is out: the agent is as good as busy
        self.sending = False

    def send_next(self) -> bool:
        """Send the oldest queued prompt now (also when the queue is paused); True when one was sent."""
        self._host.queue.paused = False
        sent = self.send_queued()
        self.queue_changed()
        return sent

    def unqueue(self, index: int) -> PromptSubmission | None:
        """Take a queued prompt out (the user removed it)."""
        queue = self._host.queue
        submission = queue.remove(index)
        if not len(queue):
            queue.paused = False
        self.queue_changed()
        return submission

    def send_queued(self) -> bool:
        """Send the next queued prompt if the agent can take it now; True when one was sent."""
        host = self._host
        session = host.session
        if host.queue.paused or host.busy or host.stopped or session is None or session.session_id is None:
            return False
        if session.connection.exit_info is not None:
            return False  # exited; its exit is still being reported: keep the prompts for a restart
        submission = host.queue.pop()
        self.queue_changed()
        if submission is None:
            return False
        self.send(submission)
        return True

    def send(self, submission: PromptSubmission, *, resend_of: str | None = None) -> None:
        """Send `submission` now; `resend_of`: the user message it repeats (sent again after a login)."""
        self.sending = True
        self._host.waiting("waiting for the agent to take the prompt")
        self._host.spawn(self._prompt(submission, resend_of))

    def queue_changed(self) -> None:
        queue = self._host.queue
        self._host.listener.controller_event(QueueChanged(queue.items, queue.paused and bool(len(queue))))

    async def _prompt(self, submission: PromptSubmission, resend_of: str | None = None) -> None:
        """Build the blocks now (files are read fresh, as the agent's capabilities allow), then send."""
        host = self._host
        session = host.session
        assert session is not None
        host.logins.last_prompt = submission  # sent again after a login (docs/protocol.md §2.4)
        try:
            blocks = await prompt_blocks(session, submission, host.launch, host.asker, host.note)
            if blocks is None:
                return  # said in the conversation: nothing the agent may not take goes out
            if submission.mentions and host.cancel_sent_at is not None:
                self._unsent(submission)  # Ctrl-C while the files were read: nothing went out
                return
            await session.prompt(blocks, resend_of=resend_of)
        except RpcError as exc:
            # the model holds the failed submission; its widget shows the error
            if exc.code == AUTH_REQUIRED:
                host.logins.auth_failed(session, exc.message)
        except (ConnectionClosed, SessionError):
            pass  # the exit is reported by the model
        finally:
            self.sending = False
            if host.session is session:
                host.waiting(None)
                host.turn_progress()

    def _unsent(self, submission: PromptSubmission) -> None:
        """A prompt cancelled before it reached the agent waits at the queue's head, paused, not lost."""
        queue = self._host.queue
        queue.put_back(submission)
        queue.paused = True
        self.queue_changed()
        self._host.set_cancel(None)
        self._host.note("not sent: cancelled before it reached the agent; it waits in the queue", "warning")


__all__ = ["PromptFlow", "PromptHost", "PromptLogins"]
