"""`acp-tui check [-- AGENT...]`: a short scripted conversation with an agent and a report of where it broke a rule.

initialize (with our capabilities), session/new, one prompt, then a second prompt cancelled while it runs
(docs/protocol.md §9.3: a cancelled turn ends with the stop reason `cancelled`). What the codec and reducer
recorded as protocol problems (the rules they already enforce) is reported with the offending value, and so
is a cancelled turn that ended any other way. Every frame the agent sent is validated against the official JSON
Schema of the negotiated version (acp_tui/headless/schema.py), each violation quoted with its value and its frame.
Exit 0 when clean, 1 on violations, 3 when the agent could not be run. The check leaves nothing behind: no
transcript, and its session deleted (`session/delete`) where the agent offers that, and closed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TextIO

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.frames import Frame
from acp_tui.agent.session import SessionError
from acp_tui.agent.session_events import ModelChanged
from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import AgentIdentified, ControllerEvent, Note
from acp_tui.headless.policy import PolicyAsker, launch_for
from acp_tui.headless.schema import agent_frame_violations
from acp_tui.launch import Launch
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.sanitize import plain
from acp_tui.session.changes import AgentGone, ProblemAdded, StateChanged, SubmissionChanged, TurnEnded

EXIT_CLEAN = 0
EXIT_VIOLATIONS = 1
EXIT_UNUSABLE = 3
#: how long one step may take
STEP_TIMEOUT = 30.0
FIRST_PROMPT = "Hello! This is acp-tui check: please answer briefly."
#: the demo counts slowly when a prompt names "slow"; any agent gets a turn to cancel
CANCEL_PROMPT = "slow: count to sixty, one number a second (acp-tui check will cancel this turn)"


class _Ended(Exception):
    """The agent stopped, or a step timed out: the check reports what it has."""


class AgentCheck:
    """Runs the conversation and collects the report's lines and violations."""

    def __init__(self, launch: Launch, out: TextIO, *, step_timeout: float = STEP_TIMEOUT) -> None:
        self.out = out
        self.step_timeout = step_timeout
        self.asker = PolicyAsker("never", lambda text: None)
        # no transcript: a check is no conversation of the user's (nothing of it is left in the data folder)
        self.controller = SessionController(
            launch_for(launch, "never"), asker=self.asker, listener=self, transcripts=False
        )
        self.violations: list[str] = []
        self.identity: AgentIdentified | None = None
        self._turn_end: asyncio.Future[TurnEnded] | None = None
        self._busy: asyncio.Event = asyncio.Event()
        self._errors: list[str] = []
        #: what the codec and reducer found, with the seq of the frame it came with (0: none)
        self._problems: list[tuple[int, str]] = []

    def controller_event(self, event: ControllerEvent) -> None:
        """The check hears its controller (`ControllerListener`): who the agent is, errors, the turn's end."""
        if isinstance(event, AgentIdentified):
            self.identity = event
        elif isinstance(event, Note) and event.severity == "error":
            self._errors.append(event.text)
        elif isinstance(event, ModelChanged):
            for change in event.changes:
                self._change(change)

    def _change(self, change: object) -> None:
        if isinstance(change, ProblemAdded):
            # marked on the frame received last (agent/session.py): said with that frame (`_report`)
            session = self.controller.session
            seq = session.frames.last_received if session is not None else 0
            self._problems.append((seq, f"{plain(change.reason)}: {plain(change.detail)[:300]}"))
        elif isinstance(change, StateChanged) and change.busy:
            self._busy.set()
        elif isinstance(change, TurnEnded):
            self._settle(change)
        elif isinstance(change, AgentGone):
            self._settle(_Ended(f"the agent stopped: {plain(change.detail)}"))
        elif isinstance(change, SubmissionChanged):
            submission = self.controller.state.submissions.get(change.request_id)
            if submission is not None and submission.status != "pending":
                error = submission.error.message if submission.error is not None else submission.status
                self._settle(_Ended(f"the prompt failed: {plain(error)}"))

    def _settle(self, outcome: TurnEnded | _Ended) -> None:
        future = self._turn_end
        if future is None or future.done():
            return
        if isinstance(outcome, TurnEnded):
            future.set_result(outcome)
        else:
            future.set_exception(outcome)

    async def _turn(self, prompt: str, *, then: Callable[[], object] | None = None) -> TurnEnded:
        self._turn_end = asyncio.get_running_loop().create_future()
        self._busy.clear()
        self.controller.submit(prompt)
        if then is not None:
            try:
                await asyncio.wait_for(self._busy.wait(), self.step_timeout)
            except TimeoutError:
                raise _Ended("the agent never started working on the prompt") from None
            then()
        try:
            return await asyncio.wait_for(asyncio.shield(self._turn_end), self.step_timeout)
        except TimeoutError:
            raise _Ended(f"the turn did not end within {self.step_timeout:g} s") from None

    async def run(self) -> int:
        try:
            return await self._run()
        finally:
            await self._forget_session()
            await self.controller.shutdown()  # closes the session (`session/close`, where offered)

    async def _forget_session(self) -> None:
        """The check's session is no conversation of the user's: deleted (`session/delete`) where the agent offers
        it, so it is not left in the agent's own session list; closed by the shutdown after it either way."""
        session = self.controller.session
        if session is None or session.session_id is None or session.connection.exit_info is not None:
            return
        if not session.abilities().delete:
            return
        try:
            await asyncio.wait_for(session.others.delete_session(session.session_id), self.step_timeout)
        except (TimeoutError, SessionError, RpcError, ConnectionClosed) as exc:
            self._say(f"note: the check's session could not be deleted: {plain(str(exc)) or type(exc).__name__}")

    async def _run(self) -> int:
        if not await self.controller.start():
            self._say("could not run the agent: " + ("; ".join(self._errors) or "it did not start"))
            return EXIT_UNUSABLE
        self._report_identity()
        try:
            first = await self._turn(FIRST_PROMPT)
            self._say(f"prompt: ended {plain(str(first.stop_reason))}")
            cancelled = await self._turn(CANCEL_PROMPT, then=self.controller.cancel)
            self._say(f"cancel: ended {plain(str(cancelled.stop_reason))}")
            if cancelled.stop_reason != "cancelled":
                self.violations.append(
                    f'a cancelled turn ended with stop reason {json.dumps(cancelled.stop_reason)}, not "cancelled" '
                    "(docs/protocol.md §9.3)"
                )
        except _Ended as exc:
            self.violations.append(str(exc))
        self._report()
        for violation in self.violations:
            self._say(f"violation: {violation}")
        self._say(f"{len(self.violations)} violation{'s' if len(self.violations) != 1 else ''}")
        return EXIT_VIOLATIONS if self.violations else EXIT_CLEAN

    def _report(self) -> None:
        """The violations, each problem once: a frame the schema faults is reported by its schema violations (the
        codec's and reducer's problems with it restate them); the others' problems are quoted with their frame."""
        session = self.controller.session
        schema = self._validate_frames()
        faulted = {seq for seq, _ in schema}
        problems: list[str] = []
        for seq, text in self._problems:
            if seq in faulted:
                continue
            frame = session.frames.find(seq) if session is not None and seq else None
            problems.append(text if frame is None else _quoted(frame, text))
        self.violations[:0] = problems
        self.violations.extend(line for _, line in schema)

    def _validate_frames(self) -> list[tuple[int, str]]:
        """Each frame the agent sent, against the negotiated version's schema (docs: README, "Checking an agent"):
        the violations, each with its frame's seq."""
        session = self.controller.session
        version = self.identity.protocol if self.identity is not None else None
        if session is None or version not in (1, 2):
            return []
        reported = {seq for seq, _ in self._problems}
        checked = 0
        found: list[tuple[int, str]] = []
        for frame in session.frames:
            if frame.direction != "<-":
                continue
            checked += 1
            try:
                message = json.loads(frame.raw)
            except (ValueError, RecursionError):
                # a line that is no JSON: the codec's problem says so already, with what it read
                faults = [] if frame.seq in reported else ["not JSON"]
            else:
                faults = agent_frame_violations(message, version, frame.answers)
            found.extend((frame.seq, _quoted(frame, fault)) for fault in faults)
        self._say(f"schema: {checked} frame{'s' if checked != 1 else ''} from the agent checked against ACP v{version}")
        return found

    def _report_identity(self) -> None:
        session = self.controller.session
        identity = self.identity
        name = f"{identity.name} {identity.version or ''}".strip() if identity is not None else "?"
        self._say(f"agent: {plain(name)}")
        self._say(f"protocol: v{identity.protocol if identity is not None else '?'}")
        init = session.init if session is not None else None
        if init is not None:
            caps = init.capabilities if isinstance(init.capabilities, dict) else init.agent_capabilities
            if isinstance(caps, dict):
                self._say(f"capabilities: {plain(json.dumps(caps, sort_keys=True))}")

    def _say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()


def _quoted(frame: Frame, violation: str) -> str:
    return f"frame {frame.seq} ({plain(frame.label)}): {violation}; frame {_frame_text(frame.raw)}"


def _frame_text(raw: bytes, limit: int = 600) -> str:
    """A frame as printable ASCII (control characters and non-ASCII escaped), cut at `limit`."""
    text = raw.decode("utf-8", "replace").encode("ascii", "backslashreplace").decode()
    text = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = ["AgentCheck", "EXIT_CLEAN", "EXIT_UNUSABLE", "EXIT_VIOLATIONS", "run_check"]


def run_check(launch: Launch, out: TextIO) -> int:
    """The `acp-tui check` entry point: a subreaper, and everything the agent started killed at the end."""
    from acp_tui import lineage

    lineage.install()
    try:
        return asyncio.run(AgentCheck(launch, out).run())
    finally:
        lineage.kill_everything()
