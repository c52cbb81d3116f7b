"""One print-mode run: start the agent, send the prompt, stream the turn, stop everything, say how it ended.

The exit code says how the turn ended (README, "Print mode"); Ctrl-C and SIGTERM cancel the turn as the
spec says (`session/cancel`, docs/protocol.md §9.3), give the agent `CANCEL_GRACE` seconds to end it, then
stop its process and everything it started (its lineage, acp_tui/lineage.py) and exit 130/143.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from acp_tui import lineage
from acp_tui.agent.session_events import ModelChanged, StderrLine
from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import ControllerEvent, Note
from acp_tui.headless.output import AnswerWriter, Commentary, JsonLinesWriter, OutputFormat, Sink, colour_allowed
from acp_tui.headless.policy import Approve, PolicyAsker, launch_for
from acp_tui.launch import Launch
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED
from acp_tui.session.changes import AgentGone, Change, SubmissionChanged, TurnEnded

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_REFUSAL = 3
EXIT_MAX_TOKENS = 4
EXIT_MAX_TURN_REQUESTS = 5
EXIT_CANCELLED = 6
EXIT_AGENT_CRASHED = 7
EXIT_AUTH_REQUIRED = 8
EXIT_TIMEOUT = 124
EXIT_SIGHUP = 129
EXIT_SIGINT = 130
EXIT_CLOSED_PIPE = 141
EXIT_SIGTERM = 143

#: how the agent's stop reasons (docs/protocol.md §9.2) end the run
STOP_REASON_EXIT: dict[str, int] = {
    "end_turn": EXIT_OK,
    "refusal": EXIT_REFUSAL,
    "max_tokens": EXIT_MAX_TOKENS,
    "max_turn_requests": EXIT_MAX_TURN_REQUESTS,
    "cancelled": EXIT_CANCELLED,
}
#: how long a cancelled turn may take to end before the agent process is stopped
CANCEL_GRACE = 3.0
_SIGNAL_EXIT = {signal.SIGINT: EXIT_SIGINT, signal.SIGTERM: EXIT_SIGTERM, signal.SIGHUP: EXIT_SIGHUP}


@dataclass(frozen=True, slots=True)
class PrintOptions:
    """What `-p` was given besides the agent."""

    prompt: str
    output: OutputFormat = "text"
    quiet: bool = False
    approve: Approve = "never"
    #: seconds for the whole run (None: no limit)
    timeout: float | None = None
    #: the agent's stderr lines on our stderr as they come (the replay agent's notes, `acp-tui replay -p`)
    agent_stderr: bool = False


class PrintRun:
    """The controller's one consumer in print mode: writes what it reports and decides the exit code."""

    def __init__(
        self,
        launch: Launch,
        options: PrintOptions,
        *,
        stdout: TextIO,
        stderr: TextIO,
        environ: Mapping[str, str] | None = None,
        cancel_grace: float = CANCEL_GRACE,
    ) -> None:
        self.options = options
        self.cancel_grace = cancel_grace
        self.out = Sink(stdout)
        err = Sink(stderr)
        self.commentary = Commentary(
            err, quiet=options.quiet, colour=colour_allowed(err, os.environ if environ is None else environ)
        )
        self.answer = AnswerWriter(self.out, options.output) if options.output != "jsonl" else None
        self.jsonl = JsonLinesWriter(self.out) if options.output == "jsonl" else None
        self.asker = PolicyAsker(options.approve, self.commentary.line, state=lambda: self.controller.state)
        self.controller = SessionController(launch_for(launch, options.approve), asker=self.asker, listener=self)
        self._live = False  # after start: what a resumed session replays is history, not this turn's answer
        self._done = asyncio.Event()
        self._code: int | None = None
        self._interrupted: int | None = None  # the exit code of the signal or timeout that ended the run
        self._notes: list[Note] = []
        self._unusable = False  # an error said while the agent started and still ran: it answered wrongly or never
        self._stopping: asyncio.Task[None] | None = None

    # -- the controller's events -----------------------------------------------------------------

    def controller_event(self, event: ControllerEvent) -> None:
        """Print mode hears its controller (`ControllerListener`): the answer and commentary as they come."""
        if isinstance(event, ModelChanged):
            state = self.controller.state
            if self._live:
                self.commentary.changes(event.changes, state)  # first: a thought is said before the answer after it
                if self.answer is not None:
                    self.answer.changes(event.changes, state)
                if self.jsonl is not None:
                    self.jsonl.changes(event.changes, state)
            for change in event.changes:
                self._ended_by(change)
        elif isinstance(event, StderrLine):
            if self.options.agent_stderr:
                self.commentary.line(f"agent stderr: {event.text}")
        elif isinstance(event, Note):
            self._notes.append(event)
            session = self.controller.session
            if not self._live and event.severity == "error" and session is not None:
                self._unusable = self._unusable or session.connection.exit_info is None
            if self.jsonl is not None:
                self.jsonl.event("note", text=event.text, severity=event.severity)
            if event.severity == "error":
                self.commentary.error(event.text)
            else:
                self.commentary.line(event.text)
        if self.out.closed and self._interrupted is None:
            self._interrupt(EXIT_CLOSED_PIPE)

    def _ended_by(self, change: Change) -> None:
        """Does this change end the run? Then its exit code (the first one counts)."""
        if not self._live:
            return
        if isinstance(change, TurnEnded):
            if change.error is not None and change.error.code == AUTH_REQUIRED:
                self._finish(EXIT_AUTH_REQUIRED)
            elif change.stop_reason is None:
                self._finish(EXIT_OK)
            else:
                self._finish(STOP_REASON_EXIT.get(change.stop_reason, EXIT_ERROR))
        elif isinstance(change, AgentGone):
            self._finish(EXIT_AGENT_CRASHED)
        elif isinstance(change, SubmissionChanged):
            submission = self.controller.state.submissions.get(change.request_id)
            if submission is None or submission.status == "pending":
                return
            if submission.status == "failed" and submission.error is not None:
                self._finish(EXIT_AUTH_REQUIRED if submission.error.code == AUTH_REQUIRED else EXIT_ERROR)
            elif submission.status == "cancelled":
                self._finish(EXIT_CANCELLED)
            else:
                self._finish(EXIT_ERROR)

    def _finish(self, code: int) -> None:
        if self._code is None:
            self._code = code
        self._done.set()

    # -- signals and the timeout -----------------------------------------------------------------

    def _interrupt(self, code: int) -> None:
        """Ctrl-C, SIGTERM, the timeout or a closed stdout: cancel the turn; a second one stops the agent."""
        if self._interrupted is not None:
            self._stopping = asyncio.get_running_loop().create_task(self.controller.stop())  # held: not collected
            return
        self._interrupted = code
        if code == EXIT_TIMEOUT:
            self.commentary.error(f"timed out after {self.options.timeout:g} s: cancelling the turn")
        if not self._live:
            self._done.set()  # nothing was sent yet: stop at once
            return
        if not self.controller.cancel():
            self._done.set()
            return
        asyncio.get_running_loop().call_later(self.cancel_grace, self._done.set)

    # -- the run ---------------------------------------------------------------------------------

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        installed: list[signal.Signals] = []
        for sig, code in _SIGNAL_EXIT.items():
            try:
                loop.add_signal_handler(sig, self._interrupt, code)
                installed.append(sig)
            except (ValueError, RuntimeError, NotImplementedError):
                pass  # not the main thread (tests): no handlers
        timer = loop.call_later(self.options.timeout, self._interrupt, EXIT_TIMEOUT) if self.options.timeout else None
        session_id: str | None = None
        try:
            code = await self._turn()
        finally:
            if timer is not None:
                timer.cancel()
            session_id = self.controller.sessions.current_session_id  # for `--resume=ID` next time (jsonl's end)
            await self.controller.shutdown()
            for sig in installed:
                loop.remove_signal_handler(sig)
        if self.answer is not None:
            self.answer.close()
        self.commentary.close()
        if self.jsonl is not None:
            stop_reason = self.controller.state.foreground.stop_reason
            self.jsonl.event("end", exitCode=code, stopReason=stop_reason, sessionId=session_id)
        return code

    async def _turn(self) -> int:
        start = asyncio.ensure_future(self.controller.start())
        stop = asyncio.ensure_future(self._done.wait())
        await asyncio.wait({start, stop}, return_when=asyncio.FIRST_COMPLETED)
        if not start.done():  # interrupted while the agent started
            start.cancel()
            return self._interrupted or EXIT_ERROR
        stop.cancel()
        if not start.result():
            return self._interrupted or self._start_failure()
        self._live = True
        if self._interrupted is not None:
            return self._interrupted
        self.controller.submit(self.options.prompt)
        await self._done.wait()
        interrupted = self._stopped_by()  # read again: a signal may have come while the turn ran
        if interrupted is not None:
            return interrupted
        if self._code == EXIT_AGENT_CRASHED:
            for line in self.controller.stderr_tail().splitlines():
                self.commentary.error(f"agent stderr: {line}")
        return EXIT_ERROR if self._code is None else self._code

    def _stopped_by(self) -> int | None:
        return self._interrupted

    def _start_failure(self) -> int:
        if self.asker.login_asked or any(note.text.startswith("not logged in") for note in self._notes):
            return EXIT_AUTH_REQUIRED
        if self._unusable:  # it never answered initialize, or not in ACP: stopped by us, not crashed
            return EXIT_ERROR
        session = self.controller.session
        if session is not None and session.connection.exit_info is not None:
            return EXIT_AGENT_CRASHED
        return EXIT_ERROR


def run_print(launch: Launch, options: PrintOptions) -> int:
    """The `acp-tui -p` entry point: a child subreaper as the app is (acp_tui/lineage.py), and whatever the
    agent left behind killed on the way out, however the run ended."""
    lineage.install()
    try:
        return asyncio.run(PrintRun(launch, options, stdout=sys.stdout, stderr=sys.stderr).run())
    finally:
        lineage.kill_everything()


__all__ = ["CANCEL_GRACE", "PrintOptions", "PrintRun", "STOP_REASON_EXIT", "run_print"]
