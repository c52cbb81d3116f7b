"""One print-mode run: start the agent, set the session up, send the prompt, stream the turn, stop everything,
say how it ended.

Before the prompt, the session gets the options asked for and a mode in which the `--approve` policy holds
(headless/run_setup.py), and one stderr line names the agent, mode and model the turn runs in. The exit code
says how the turn ended (README, "Print mode"); Ctrl-C and SIGTERM cancel the turn as the spec says
(`session/cancel`, docs/protocol.md §9.3), give the agent `CANCEL_GRACE` seconds to end it, then stop its
process and everything it started (its lineage, acp_tui/lineage.py) and exit 130/143.
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
import sys
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

from acp_tui import lineage
from acp_tui.agent.session import SessionError
from acp_tui.agent.session_events import ModelChanged, StderrLine
from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import AgentIdentified, ControllerEvent, Note
from acp_tui.headless.output import (
    AnswerWriter,
    Commentary,
    JsonLinesWriter,
    OutputFormat,
    Sink,
    colour_allowed,
    cost_record,
    json_line,
    tokens_record,
    usage_record,
)
from acp_tui.headless.policy import ALLOW_ALL, Approve, PolicyAsker, launch_for
from acp_tui.headless.run_setup import (
    EXIT_NO_ASKING_MODE,
    SetupError,
    SetupRequest,
    Step,
    acts_unasked,
    current_label,
    current_value,
    holds,
    mode_step,
    requested_steps,
)
from acp_tui.launch import Launch
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, RpcError
from acp_tui.sanitize import plain
from acp_tui.session.changes import AgentGone, Change, ConfigChanged, SubmissionChanged, TurnEnded

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_REFUSAL = 3
EXIT_MAX_TOKENS = 4
EXIT_MAX_TURN_REQUESTS = 5
EXIT_CANCELLED = 6
EXIT_AGENT_CRASHED = 7
EXIT_AUTH_REQUIRED = 8
# EXIT_NO_ASKING_MODE = 9 (headless/run_setup.py): every mode acts without asking, or the agent switched to one
EXIT_TIMEOUT = 124
EXIT_SIGHUP = 129
EXIT_SIGINT = 130
EXIT_CLOSED_PIPE = 141
EXIT_SIGTERM = 143

_T = TypeVar("_T")

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
    #: `--mode`, `--model`, `--set OPTION=VALUE` (as typed)
    mode: str | None = None
    model: str | None = None
    sets: tuple[tuple[str, str], ...] = ()
    #: leave the agent's mode as it is (`acp-tui replay -p`: the recording decides what the agent does)
    keep_agent_mode: bool = False

    @property
    def setup(self) -> SetupRequest:
        """What the session is to be set to; a mode that asks unless every request is allowed anyway."""
        needs_asking = self.approve not in ALLOW_ALL and not self.keep_agent_mode
        return SetupRequest(self.mode, self.model, self.sets, needs_asking=needs_asking)


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
        self.answer = AnswerWriter(self.out, options.output) if options.output in ("text", "markdown") else None
        self.jsonl = JsonLinesWriter(self.out) if options.output == "jsonl" else None
        self._answer_text = io.StringIO()
        self.captured = AnswerWriter(Sink(self._answer_text), "markdown")  # the answer as sent, for the result
        self.asker = PolicyAsker(
            options.approve, self.commentary.line, state=lambda: self.controller.state, warn=self.commentary.error
        )
        self.controller = SessionController(launch_for(launch, options.approve), asker=self.asker, listener=self)
        self._setup = options.setup
        self._setting_up = False  # the policy's own option changes: the controller's "you switched" lines are ours
        self._errors: list[str] = []  # what was said on stderr about why the run failed (the JSON result's)
        self._version: str | None = None
        self._started_at = time.monotonic()
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
                self.captured.changes(event.changes, state)
                if self.answer is not None:
                    self.answer.changes(event.changes, state)
                if self.jsonl is not None:
                    self.jsonl.changes(event.changes, state)
            for change in event.changes:
                self._ended_by(change)
        elif isinstance(event, StderrLine):
            if self.options.agent_stderr:
                self.commentary.line(f"agent stderr: {event.text}")
        elif isinstance(event, AgentIdentified):
            self._version = event.version
        elif isinstance(event, Note):
            self._note(event)
        if self.out.closed and self._interrupted is None:
            self._interrupt(EXIT_CLOSED_PIPE)

    def _note(self, event: Note) -> None:
        self._notes.append(event)
        session = self.controller.session
        if not self._live and event.severity == "error" and session is not None:
            self._unusable = self._unusable or session.connection.exit_info is None
        if self.jsonl is not None:
            self.jsonl.event("note", text=event.text, severity=event.severity)
        if event.severity == "error":
            self._error(event.text)
        elif self._setting_up or self._interrupted == EXIT_CLOSED_PIPE:
            return  # our own mode switch is said by `_set_up`; after the reader left, how the turn ended is noise
        else:
            self.commentary.line(event.text)

    def _error(self, text: str) -> None:
        self._errors.append(plain(text))
        self.commentary.error(text)

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
        elif isinstance(change, ConfigChanged) and self._setup.needs_asking and self._setup.mode is None:
            unasked = acts_unasked(self.controller.state.config_options)
            if unasked is not None and self._interrupted is None:  # the agent switched its own mode mid-turn
                self._error(f"the agent switched itself to mode {unasked}, which acts without asking: cancelling")
                self._interrupt(EXIT_NO_ASKING_MODE)
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
            self._error(f"timed out after {self.options.timeout:g} s: cancelling the turn")
        if not self._live:
            self._done.set()  # nothing was sent yet: stop at once
            return
        if not self.controller.cancel():
            self._done.set()
            return
        asyncio.get_running_loop().call_later(self.cancel_grace, self._grace_over)

    def _grace_over(self) -> None:
        if not self._done.is_set():
            if self._interrupted != EXIT_CLOSED_PIPE:
                self.commentary.error(f"the agent did not end the turn within {self.cancel_grace:g} s: stopping it")
            self._done.set()

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
        result = self.result(code, session_id)
        if self.jsonl is not None:
            self.jsonl.event("end", **result)
        elif self.options.output == "json":
            self.out.write(json_line({"type": "result", **result}))
        return code

    def result(self, code: int, session_id: str | None) -> dict[str, Any]:
        """How the run ended, for a script: the `--output json` object and jsonl's last `end` event."""
        state = self.controller.state
        options = state.config_options
        return {
            "exitCode": code,
            "stopReason": state.foreground.stop_reason if self._live else None,
            "sessionId": session_id,
            "text": self._answer_text.getvalue(),
            "agent": {"name": plain(self.controller.agent_name), "version": self._version},
            "mode": current_value(options, "mode"),
            "model": current_value(options, "model"),
            "usage": usage_record(state),
            "cost": cost_record(state),
            "tokens": tokens_record(state),
            "durationMs": round((time.monotonic() - self._started_at) * 1000),
            "errors": self._errors,
        }

    async def _unless_stopped(self, work: Coroutine[Any, Any, _T]) -> tuple[bool, _T | None]:
        """Run `work` until it ends or the run is stopped (a signal, the timeout): (ended, its result)."""
        task = asyncio.ensure_future(work)
        stop = asyncio.ensure_future(self._done.wait())
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not task.done():
            task.cancel()
            return False, None
        return True, task.result()

    async def _turn(self) -> int:
        ended, started = await self._unless_stopped(self.controller.start())
        if not ended:  # interrupted while the agent started
            return self._interrupted or EXIT_ERROR
        if not started:
            return self._interrupted or self._start_failure()
        ended, failed = await self._unless_stopped(self._set_up())
        if not ended or failed is not None or self._interrupted is not None:
            return self._interrupted or failed or EXIT_ERROR
        self._live = True
        self.controller.submit(self.options.prompt)
        await self._done.wait()
        interrupted = self._stopped_by()  # read again: a signal may have come while the turn ran
        if interrupted is not None:
            return interrupted
        if self._code == EXIT_AGENT_CRASHED:
            for line in self.controller.stderr_tail().splitlines():
                self.commentary.error(f"agent stderr: {line}")
        return EXIT_ERROR if self._code is None else self._code

    async def _set_up(self) -> int | None:
        """The options asked for, then the mode (headless/run_setup.py), then the line naming what the turn
        runs in; the exit code when the run cannot go on (None: it can)."""
        self._setting_up = True
        try:
            for step in requested_steps(self.controller.state.config_options, self._setup):
                await self._apply(step)
            choice = mode_step(self.controller.state.config_options, self._setup)
            if choice.line is not None:
                self.commentary.line(choice.line)
            if choice.step is not None:
                await self._apply(choice.step)
        except SetupError as exc:
            self._error(str(exc))
            return exc.code
        except (SessionError, RpcError) as exc:
            session = self.controller.session
            if session is not None and session.connection.exit_info is not None:
                return EXIT_AGENT_CRASHED  # its exit was said as it happened
            self._error(f"the agent refused a session option: {exc}")
            return EXIT_ERROR
        finally:
            self._setting_up = False
        options = self.controller.state.config_options
        version = f" {self._version}" if self._version else ""
        said = [f"agent {self.controller.agent_name}{version}"]
        said += [f"{what} {label}" for what in ("mode", "model") if (label := current_label(options, what))]
        self.commentary.line(" · ".join(said))
        return None

    async def _apply(self, step: Step) -> None:
        """Set one option; an agent that answers without making the change fails the run (`SetupError`)."""
        await self.controller.set_config(step.config_id, step.value)
        if not holds(self.controller.state.config_options, step):
            what = step.flag or "the mode that asks"
            raise SetupError(f"the agent did not take {what}: its session option {step.config_id!r} is unchanged", 1)

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


__all__ = ["CANCEL_GRACE", "EXIT_NO_ASKING_MODE", "PrintOptions", "PrintRun", "STOP_REASON_EXIT", "run_print"]
