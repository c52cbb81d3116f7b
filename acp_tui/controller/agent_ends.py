"""How an agent's life ended, said once: stopped by the user (to restart it, or for good), unable to start (with
its stderr's last lines, which are all there is to say why), or gone on its own (pointing at the stderr panel).

A composed part of the `SessionController` (`controller.ends`), beside `TurnEnds` (how a turn ended): the controller
tells it what it did to the agent (`stopping`, `failure_shown`), it says the agent's end and sets the phase.
"""

from __future__ import annotations

from typing import Protocol

from acp_tui.agent.session import AgentSession
from acp_tui.controller.controller_events import Lifecycle
from acp_tui.controller.part_host import PartHost
from acp_tui.controller.transcript_feed import TranscriptFeed


class AgentEndsHost(PartHost, Protocol):
    """What saying the agent's end needs of the controller besides a part's (`PartHost`)."""

    transcript: TranscriptFeed

    def set_phase(self, phase: Lifecycle) -> None: ...

    def set_cancel(self, sent_at: float | None) -> None: ...

    def waiting(self, what: str | None) -> None: ...

    def stderr_tail(self, lines: int = 8) -> str: ...


class AgentEnds:
    """The agent's end as one line in the conversation, and what its connection leaves for a restart."""

    def __init__(self, host: AgentEndsHost) -> None:
        self._host = host
        #: the user stopped this agent (Ctrl-R twice, quit, a login's restart): no crash to report
        self.stopped_by_user = False
        #: stopped to be restarted at once: its exit line does not offer Ctrl-R
        self.restarting = False
        #: the reason the agent is gone was already said (no second banner)
        self.failure_shown = False
        #: what this agent process wrote to stderr (the panel has the lines)
        self.stderr_lines = 0
        #: the session of the last connection that ended, resumed by a restart where the agent can
        self.previous_session_id: str | None = None

    def started(self) -> None:
        """A new agent process: nothing of the last one's end applies to it."""
        self.stopped_by_user = False
        self.stderr_lines = 0
        self.failure_shown = False

    def restart_hint(self) -> str:
        """What a stopped agent's line tells the user to press: nothing where there are no keys (print mode)."""
        return "" if self._host.launch.headless else " — press Ctrl-R to restart it"

    def unavailable(self, message: str) -> None:
        """The agent cannot be used (it did not start, or refused the handshake): said once, with its stderr."""
        host = self._host
        host.waiting(None)
        self.failure_shown = True
        host.set_phase("stopped")
        host.note(message, "error", detail=host.stderr_tail())

    def gone(self, session: AgentSession) -> None:
        """The agent's process ended (`AgentGone`): the phase is `stopped`, and why is said once."""
        host = self._host
        self.previous_session_id = session.session_id or self.previous_session_id
        host.set_cancel(None)
        was_starting = host.phase == "starting"
        host.set_phase("stopped")
        info = session.connection.exit_info
        how = (
            "you stopped the agent"
            if self.stopped_by_user
            else (f"the agent stopped ({info.describe()})" if info is not None else "the agent stopped")
        )
        if self.restarting:
            host.note("you stopped the agent to restart it")
        elif not self.failure_shown and was_starting and not self.stopped_by_user:
            # It never answered: its last stderr lines are all there is to say why (README, "Using it").
            tail = "\n".join(info.stderr_tail.splitlines()[-8:]) if info is not None else ""
            host.note(f"{how}{self.restart_hint()}", "error", detail=tail)
        elif not self.failure_shown:
            # A stack trace is the stderr panel's (F2), not the conversation's: one line points there.
            count = self.stderr_lines
            wrote = f"; it wrote {count} line{'s' if count != 1 else ''} to stderr (F2 shows them)" if count else ""
            host.note(f"{how}{self.restart_hint()}{'' if host.launch.headless else wrote}", "error")
        else:
            host.transcript.note(how)
        if was_starting:
            host.waiting(None)


__all__ = ["AgentEnds", "AgentEndsHost"]
