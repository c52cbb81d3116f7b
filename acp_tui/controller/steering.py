"""The controller's steering: *steer now* for a prompt typed (or queued) while the agent works.

Where the agent offers steering (agent/steering.py), a prompt can go into the running turn instead of
waiting in the queue. What becomes of it is one `match` on the agent's outcome: `injected` shows it in the
turn, marked steered; `startedNewTurn` shows it as a new turn's prompt; `promptRequired` (the turn ended
meanwhile) sends it the ordinary way, so it gets a turn of its own. Anything else (an error, no answer in
time, the agent gone) puts it back at the head of the queue with a line saying so: a prompt is never lost,
never sent twice. Without the capability, nothing changes: the prompt is queued as Enter would.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Literal, Protocol, TypeAlias, assert_never

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.session import AgentSession, SessionError
from acp_tui.agent.steering import SteerFailed
from acp_tui.context import PromptSubmission
from acp_tui.controller.controller_events import ControllerListener, QueueChanged, Severity
from acp_tui.controller.mention_guard import prompt_blocks
from acp_tui.controller.prompt_queue import PromptQueue
from acp_tui.controller.prompting import PromptFlow
from acp_tui.launch import Launch
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.v2 import ContentBlock
from acp_tui.sanitize import plain
from acp_tui.services.files import FileAsker

#: What `steer_now` did with the prompt at once: sent into the turn (its answer follows), sent as a plain
#: prompt (the agent was idle), queued because the agent offers no steering, or held in the queue as Enter
#: would (the agent is starting, or not running).
SteerStart: TypeAlias = Literal["steering", "sent", "queued", "held"]


class SteerHost(Protocol):
    """What steering needs of its controller: the agent, whether it works, the queue and the conversation."""

    @property
    def session(self) -> AgentSession | None: ...

    @property
    def busy(self) -> bool: ...

    @property
    def queue(self) -> PromptQueue: ...

    def submit(self, prompt: PromptSubmission | str) -> bool: ...

    @property
    def prompts(self) -> PromptFlow: ...

    def note(self, text: str, severity: Severity = "info", *, detail: str = "") -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...

    @property
    def launch(self) -> Launch: ...

    @property
    def asker(self) -> FileAsker: ...


class SteerFlow:
    """Steers prompts into the running turn of the host's agent (`controller.steering`)."""

    def __init__(self, host: SteerHost, *, listener: ControllerListener) -> None:
        self._host = host
        self._listener = listener
        #: steers sent and not answered yet
        self.in_flight = 0

    @property
    def offered(self) -> bool:
        """Does the current agent offer steering?"""
        session = self._host.session
        return session is not None and session.steering.offered

    def steer_now(self, submission: PromptSubmission) -> SteerStart:
        """Steer `submission` into the running turn; sent plainly when idle, queued when not offered."""
        host = self._host
        session = host.session
        if not host.busy or session is None or session.session_id is None:
            return "sent" if host.submit(submission) else "held"
        if not self.offered:
            host.submit(submission)
            return "queued"
        self.in_flight += 1
        host.spawn(self._steer(session, submission))
        return "steering"

    def promote(self, index: int) -> SteerStart | None:
        """Take the queued prompt at `index` out of the queue and steer it; None when there is none."""
        if not self.offered and self._host.busy:
            return "queued"  # it stays where it is
        submission = self._host.prompts.unqueue(index)
        return None if submission is None else self.steer_now(submission)

    async def _steer(self, session: AgentSession, submission: PromptSubmission) -> None:
        try:
            blocks = await self._blocks(session, submission)
            if blocks is None:
                return
            outcome = await session.steering.steer(blocks)
        except (SteerFailed, RpcError, SessionError, ConnectionClosed) as exc:
            self._requeue(submission, _reason(exc))
            return
        finally:
            self.in_flight -= 1
        match outcome:
            case "injected":
                pass  # the model shows it in the turn, marked steered
            case "startedNewTurn":
                self._host.note("the agent had finished: it started a new turn with your steered prompt")
            case "promptRequired":
                self._host.submit(submission)  # the turn ended meanwhile: an ordinary prompt, its own turn
            case _:
                assert_never(outcome)

    async def _blocks(self, session: AgentSession, submission: PromptSubmission) -> list[ContentBlock] | None:
        """The prompt's blocks, files read now, as the agent's capabilities allow (as a queued prompt's)."""
        return await prompt_blocks(session, submission, self._host.launch, self._host.asker, self._host.note)

    def _requeue(self, submission: PromptSubmission, reason: str) -> None:
        """The agent did not take it: back to the queue's head, to go out when the turn ends."""
        queue = self._host.queue
        queue.put_back(submission)
        self._listener.controller_event(QueueChanged(queue.items, queue.paused and bool(len(queue))))
        self._host.note(f"not steered: {reason}; your prompt waits in the queue", "warning")
        self._host.prompts.send_queued()  # the turn may have ended while the steer was out: then it goes now


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RpcError):
        return f"the agent refused it ({exc.code}: {plain(exc.message)[:200]})"
    if isinstance(exc, ConnectionClosed):
        return "the agent is gone"
    return plain(str(exc))[:200] or type(exc).__name__


__all__ = ["SteerFlow", "SteerHost", "SteerStart"]
