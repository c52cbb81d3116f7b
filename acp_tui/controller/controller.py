"""The session controller: one agent's whole life, UI-free.

It spawns the agent, negotiates, opens (or resumes) a session, sends prompts (queueing those typed while
the agent works), cancels, restarts and stops, and installs one client service per capability
(permissions today; files, terminals, elicitation next), each asking the user through the asker the UI
gives it. It tells its one consumer what happened through `ControllerEvent`s, in order, synchronously
(the UI coalesces them per frame), and feeds the transcript itself, so a screen only renders and turns
keys into intents (docs/architecture.md).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Coroutine, Sequence
from datetime import datetime
from typing import Any, Protocol

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.events import ModelChanged, SessionEvent, StderrLine
from acp_tui.agent.process import SpawnError
from acp_tui.agent.session import AgentSession, AuthRequired, SessionError
from acp_tui.controller.events import (
    AgentIdentified,
    CancelStateChanged,
    ControllerEvent,
    LifecycleChanged,
    Note,
    QueueChanged,
    Lifecycle,
    Severity,
    Waiting,
)
from acp_tui.controller.prompt_queue import PromptQueue
from acp_tui.launch import Launch
from acp_tui.protocol import codec
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.v2 import ContentBlock
from acp_tui.sanitize import plain
from acp_tui.services.base import ClientService
from acp_tui.services.files import FileAsker, FileService
from acp_tui.services.permission import PermissionAsker, PermissionService
from acp_tui.session.changes import AgentGone, Change, StateChanged, TurnEnded
from acp_tui.session.coalesce import coalesce
from acp_tui.session.model import SessionState
from acp_tui.transcript import TranscriptWriter, transcript_path

#: how long after a cancel before a second Ctrl-C may stop the agent process (and the slow-cancel line shows)
FORCE_STOP_AFTER = 3.0
#: how often the transcript is flushed while updates stream (one write per frame, not per update)
TRANSCRIPT_FRAME = 1 / 30

#: Stop reasons of turns that did not simply end, as the line the conversation keeps (docs/protocol.md §9.2).
TURN_END_TEXT: dict[str, str] = {
    "max_tokens": "stopped: token limit",
    "max_turn_requests": "stopped: request limit",
}


class UserAsker(PermissionAsker, FileAsker, Protocol):
    """Everything the services may ask the user; the chat screen implements it with dialogs."""


#: Builds the services for one agent connection (fresh instances each time: a restart closes the old ones).
ServicesFactory = Callable[[Launch, UserAsker], Sequence[ClientService]]


def default_services(launch: Launch, asker: UserAsker) -> list[ClientService]:
    """The services every connection gets, as the user's settings allow."""
    return [
        PermissionService(asker),
        FileService(asker, offer=launch.client_files, outside_writes=launch.outside_writes),
    ]


class SessionController:
    """Owns one agent (across restarts) and its session; the UI renders what it reports."""

    def __init__(
        self,
        launch: Launch,
        *,
        asker: UserAsker,
        emit: Callable[[ControllerEvent], None],
        services: ServicesFactory = default_services,
        transcripts: bool = True,
        force_stop_after: float = FORCE_STOP_AFTER,
    ) -> None:
        self.launch = launch
        self.asker = asker
        self._emit = emit
        self._services_factory = services
        self._transcripts = transcripts
        self.force_stop_after = force_stop_after
        self.session: AgentSession | None = None
        self.queue = PromptQueue()
        self.transcript: TranscriptWriter | None = None
        self.phase: Lifecycle = "stopped"
        #: when the current cancel was sent (None when no cancel is in flight)
        self.cancel_sent_at: float | None = None
        self._sending = False
        self._stopped_by_user = False
        self._failure_shown = False  # the reason the agent is gone was already said (no second banner)
        self._previous_session_id: str | None = None
        self._pending_transcript: list[Change] = []
        self._transcript_flush: asyncio.TimerHandle | None = None
        self._slow_cancel: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[object]] = set()
        self._closed = False

    # -- what the UI reads -------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        """The model of the current session (an empty one before the agent starts)."""
        return self.session.state if self.session is not None else _EMPTY_STATE

    @property
    def stopped(self) -> bool:
        return self.phase == "stopped"

    @property
    def busy(self) -> bool:
        """Is the agent working (or about to), so that a new prompt must wait its turn?"""
        if self.session is None or self.stopped:
            return False
        state = self.session.state
        if state.foreground.busy or self._sending:
            return True
        return any(sub.status == "pending" for sub in state.submissions.values())

    @property
    def waiting_for_user(self) -> bool:
        return bool(self.session is not None and self.session.state.permissions)

    def stderr_tail(self, lines: int = 8) -> str:
        if self.session is None:
            return ""
        return "\n".join(self.session.process.stderr_tail(4000).splitlines()[-lines:])

    # -- the agent's life --------------------------------------------------------------------------

    async def start(self, resume_id: str | None = None) -> bool:
        """Spawn, initialize and open (or resume) a session; False when the agent is not usable.

        Failures become a `Note` and the `stopped` phase, never an exception.
        """
        launch = self.launch
        session = AgentSession(
            launch.agent_argv,
            cwd=launch.cwd,
            env={**os.environ, **launch.env},
            protocol=None if launch.protocol == "auto" else int(launch.protocol),
            handshake_timeout=launch.init_timeout,
            log_path=launch.log_path,
            emit=lambda event: self._on_session_event(session, event),
            services=self._services_factory(launch, self.asker),
        )
        self.session = session
        self._stopped_by_user = False
        self._failure_shown = False
        self._set_cancel(None)
        self._set_phase("starting")
        try:
            self._emit(Waiting("starting the agent"))
            await session.connect()
            self._emit(Waiting("waiting for the agent to initialize"))
            await session.initialize()
            self._identify(session)
            resumed = False
            if resume_id is not None and session.can_resume():
                self._emit(Waiting("resuming the session"))
                try:
                    await session.resume(resume_id)
                    resumed = True
                except (RpcError, SessionError) as exc:
                    self.note(f"the agent could not resume the session ({plain(str(exc))})", "warning")
            if not resumed:
                self._emit(Waiting("opening a session"))
                await session.new_session()
                if resume_id is not None:
                    self.note("a new session was started: the agent's memory of this conversation starts fresh",
                              "warning")
            else:
                self.note("session resumed: the agent remembers this conversation")
        except SpawnError as exc:
            self._unavailable(f"could not start the agent: {exc}")
            return False
        except AuthRequired as exc:
            names = ", ".join(plain(str(m.get("name", m.get("id", "?")))) for m in exc.auth_methods) or "none offered"
            self._unavailable(f"the agent requires authentication ({names}); log in with the agent's own "
                              "command first, then restart with Ctrl-R")
            return False
        except (SessionError, RpcError, ConnectionClosed) as exc:
            if session.connection.exit_info is not None:
                self._emit(Waiting(None))
                return False  # the agent exited: its exit (code, stderr tail) is reported by the model
            self._unavailable(f"{plain(str(exc)) or type(exc).__name__} — press Ctrl-R to restart it")
            # A hung or confused agent is stopped, so Ctrl-R starts a fresh one and none lingers.
            self._failure_shown = True
            await session.shutdown()
            return False
        self._emit(Waiting(None))
        self._open_transcript(session)
        self._set_phase("ready")
        self._send_next()
        return True

    async def restart(self) -> bool:
        """Start a fresh agent after it stopped, resuming the previous session where the agent can."""
        if not self.stopped:
            raise SessionError("the agent is running")
        self.note("restarting the agent…")
        return await self.start(self._previous_session_id)

    async def stop(self) -> None:
        """Stop the agent's whole process group at once (the conversation and transcript stay)."""
        session = self.session
        if session is None or self.stopped:
            return
        self._stopped_by_user = True
        await session.shutdown()

    async def shutdown(self) -> None:
        """Cancel running work, then stop the agent cleanly (quit); only the first call does anything."""
        if self._closed:
            return
        self._closed = True
        session = self.session
        if session is not None:
            if not self.stopped and (session.state.foreground.busy or session.state.permissions):
                try:
                    await asyncio.wait_for(session.cancel(), timeout=1.0)
                except (asyncio.TimeoutError, ConnectionClosed):
                    pass
            self._stopped_by_user = True
            await session.shutdown()
        for task in list(self._tasks):
            task.cancel()
        self._flush_transcript()
        if self.transcript is not None:
            self.transcript.close()

    # -- prompts -----------------------------------------------------------------------------------

    def submit(self, text: str) -> bool:
        """The user sent `text`: send it now, or queue it while the agent works; True when sent now."""
        if self.session is None or self.session.session_id is None or self.busy or self.stopped:
            self.queue.add(text)
            self._queue_changed()
            if self.stopped and self.phase != "starting":
                self.note("the agent is not running; press Ctrl-R to restart it. Your prompt is queued.", "warning")
            return False
        self._send(text)
        return True

    def send_next(self) -> bool:
        """Send the oldest queued prompt now (also when the queue is paused); True when one was sent."""
        self.queue.paused = False
        sent = self._send_next()
        self._queue_changed()
        return sent

    def unqueue(self, index: int) -> str | None:
        """Take a queued prompt out (the user removed it)."""
        text = self.queue.remove(index)
        if not len(self.queue):
            self.queue.paused = False
        self._queue_changed()
        return text

    def _send_next(self) -> bool:
        session = self.session
        if self.queue.paused or self.busy or self.stopped or session is None or session.session_id is None:
            return False
        if session.connection.exit_info is not None:
            return False  # exited; its exit is still being reported: keep the prompts for a restart
        text = self.queue.pop()
        self._queue_changed()
        if text is None:
            return False
        self._send(text)
        return True

    def _send(self, text: str) -> None:
        self._sending = True
        self._emit(Waiting("waiting for the agent to take the prompt"))
        self._spawn(self._prompt(text, [codec.text_block(text)]))

    async def _prompt(self, text: str, blocks: list[ContentBlock]) -> None:
        session = self.session
        assert session is not None
        try:
            await session.prompt(blocks)
        except RpcError:
            pass  # the model holds the failed submission; its widget shows the error
        except (ConnectionClosed, SessionError):
            pass  # the exit is reported by the model
        finally:
            self._sending = False
            if self.session is session:
                self._emit(Waiting(None))
                self._turn_progress()

    # -- cancel ------------------------------------------------------------------------------------

    def cancel(self) -> bool:
        """Cancel the turn (answers open questions `cancelled`); False when there is nothing to cancel."""
        session = self.session
        if session is None or self.stopped or self.cancel_sent_at is not None:
            return False
        self._set_cancel(time.monotonic())
        self._slow_cancel = asyncio.get_running_loop().call_later(self.force_stop_after, self._cancel_is_slow)
        self._spawn(session.cancel())
        return True

    async def cancel_tool_call(self, tool_call_id: str) -> None:
        """v2 `tool_call/cancel` for one tool call; raises `SessionError`/`RpcError` for the UI to show."""
        session = self.session
        if session is None or self.stopped:
            raise SessionError("the agent is not running")
        try:
            await session.cancel_tool_call(tool_call_id)
        except ConnectionClosed as exc:
            raise SessionError(str(exc)) from None

    async def set_config(self, config_id: str, value: str | bool) -> None:
        """Change one session config option; raises `SessionError`/`RpcError` for the UI to show."""
        session = self.session
        if session is None:
            raise SessionError("no session yet")
        await session.set_config_option(config_id, value)

    def _cancel_is_slow(self) -> None:
        self._slow_cancel = None
        if self.cancel_sent_at is not None and not self.stopped:
            self.note("the agent has not stopped yet; press Ctrl-C again to stop the agent process "
                      "(the conversation is kept)", "warning")

    def _set_cancel(self, sent_at: float | None) -> None:
        was = self.cancel_sent_at is not None
        self.cancel_sent_at = sent_at
        if sent_at is None and self._slow_cancel is not None:
            self._slow_cancel.cancel()
            self._slow_cancel = None
        if was != (sent_at is not None):
            self._emit(CancelStateChanged(sent_at is not None))

    # -- session events ------------------------------------------------------------------------------

    def _on_session_event(self, session: AgentSession, event: SessionEvent) -> None:
        if session is not self.session or self._closed:
            return  # a replaced connection's late news
        if isinstance(event, ModelChanged):
            self._pending_transcript.extend(event.changes)
            self._schedule_transcript()
            self._emit(event)
            moved = False
            for change in event.changes:
                if type(change) is TurnEnded:
                    self._turn_ended(change)
                elif type(change) is StateChanged:
                    moved = True
                elif type(change) is AgentGone:
                    self._agent_gone(session)
            if moved:
                self._turn_progress()  # after the turn's end is marked (and the queue maybe paused)
        else:
            self._emit(event)

    def _turn_ended(self, change: TurnEnded) -> None:
        """A turn's end (once per turn, after all its output): say how it ended; a cancel pauses the queue."""
        self._mark_turn_end(change.stop_reason, change.error.message if change.error is not None else None)
        if change.cancel_requested and len(self.queue):
            self.queue.paused = True  # what the user queued waits until they say so
            self._queue_changed()

    def _turn_progress(self) -> None:
        """The foreground state moved: when the agent is idle, the cancel is over and the next prompt goes."""
        session = self.session
        if session is None:
            return
        if session.state.foreground.busy:
            if self._sending:
                self._emit(Waiting(None))  # the agent works on it, whenever it answers the request
            return
        self._set_cancel(None)
        if not self.stopped:
            self._send_next()

    def _mark_turn_end(self, stop_reason: str | None, error_message: str | None) -> None:
        """A turn that did not simply end gets a line in the conversation, so the history says so."""
        if stop_reason is None or stop_reason == "end_turn":
            return
        if stop_reason == "error":
            self.note(f"✗ the turn failed: {plain(error_message or 'unknown error')}", "warning")
        elif stop_reason == "cancelled":
            self.note("⊘ cancelled")
        elif stop_reason == "refusal":
            self.note("the agent refused; this exchange is left out of its context", "warning")
        else:
            self.note(TURN_END_TEXT.get(stop_reason, f"stopped ({plain(stop_reason)})"), "warning")

    def _agent_gone(self, session: AgentSession) -> None:
        self._previous_session_id = session.session_id or self._previous_session_id
        self._set_cancel(None)
        was_starting = self.phase == "starting"
        self._set_phase("stopped")
        info = session.connection.exit_info
        how = "you stopped the agent" if self._stopped_by_user else (
            f"the agent stopped ({info.describe()})" if info is not None else "the agent stopped"
        )
        if not self._failure_shown:
            tail = "\n".join(info.stderr_tail.splitlines()[-8:]) if info is not None else ""
            self.note(f"{how} — press Ctrl-R to restart it", "error", detail=tail)
        elif self.transcript is not None:
            self.transcript.note(how)
        if was_starting:
            self._emit(Waiting(None))

    # -- helpers -------------------------------------------------------------------------------------

    def note(self, text: str, severity: Severity = "info", *, detail: str = "") -> None:
        """A client line in the conversation and the transcript."""
        self._flush_transcript()  # keep the transcript in conversation order
        if self.transcript is not None:
            self.transcript.note(text)
        self._emit(Note(text, severity, detail))

    def _unavailable(self, message: str) -> None:
        self._emit(Waiting(None))
        self._failure_shown = True
        self._set_phase("stopped")
        self.note(message, "error", detail=self.stderr_tail())

    def _identify(self, session: AgentSession) -> None:
        agent = session.init.agent if session.init is not None else None
        name = self.launch.agent_name
        version = None
        if agent is not None:
            name = agent.title or agent.name or name
            version = agent.version
        self._emit(AgentIdentified(name, version, session.version or 0))

    def _set_phase(self, phase: Lifecycle) -> None:
        if phase != self.phase:
            self.phase = phase
            self._emit(LifecycleChanged(phase))

    def _queue_changed(self) -> None:
        self._emit(QueueChanged(self.queue.items, self.queue.paused and bool(len(self.queue))))

    def _open_transcript(self, session: AgentSession) -> None:
        if not self._transcripts:
            return
        if self.transcript is not None:
            self.transcript.note(f"agent restarted; session {session.session_id}", kind="restart")
            return
        label = session.session_id or "session"
        self.transcript = TranscriptWriter(transcript_path(label, datetime.now()), label=label)
        self.transcript.note(f"agent {self.launch.agent_name}; session {session.session_id}; cwd {self.launch.cwd}")

    @property
    def transcript_error(self) -> str | None:
        return self.transcript.error if self.transcript is not None else None

    def _schedule_transcript(self) -> None:
        if self.transcript is not None and self._transcript_flush is None:
            self._transcript_flush = asyncio.get_running_loop().call_later(TRANSCRIPT_FRAME, self._flush_transcript)

    def _flush_transcript(self) -> None:
        if self._transcript_flush is not None:
            self._transcript_flush.cancel()
            self._transcript_flush = None
        changes, self._pending_transcript = self._pending_transcript, []
        if changes and self.transcript is not None and self.session is not None:
            self.transcript.write_changes(self.session.state, coalesce(changes))

    def _spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        task: asyncio.Task[object] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


_EMPTY_STATE = SessionState()

__all__ = ["FORCE_STOP_AFTER", "ServicesFactory", "SessionController", "UserAsker", "default_services"]
