"""The session controller: one agent's whole life, UI-free.

It spawns the agent, negotiates, opens (or resumes) a session, sends prompts (queueing those typed while
the agent works), cancels, restarts and stops, and installs one client service per capability
(permissions today; files, terminals, elicitation next), each asking the user through the asker the UI
gives it. It tells its one `ControllerListener` what happened through `ControllerEvent`s, in order,
synchronously (the UI coalesces them per frame), and feeds the transcript itself, so a screen only renders and turns
keys into intents (docs/architecture.md).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, assert_never

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.host import AgentHost, host_for
from acp_tui.agent.process import SpawnError
from acp_tui.agent.session import AgentSession, AuthRequired, HandshakeTimeout, SessionError
from acp_tui.agent.session_events import ModelChanged, SessionEvent, SessionSwitched
from acp_tui.context import (
    PromptSubmission,
    mentions_in_text,
)
from acp_tui.controller.agent_ends import AgentEnds
from acp_tui.controller.controller_events import (
    AgentIdentified,
    CancelStateChanged,
    ControllerListener,
    Lifecycle,
    LifecycleChanged,
    Note,
    Severity,
    Waiting,
)
from acp_tui.controller.errors import BELOW, ControllerError, as_controller_error
from acp_tui.controller.login import LoginFlow
from acp_tui.controller.login_turns import LoginTurns
from acp_tui.controller.mode_watch import ModeWatch
from acp_tui.controller.prompt_queue import PromptQueue
from acp_tui.controller.prompting import PromptFlow
from acp_tui.controller.session_switcher import SessionSwitcher
from acp_tui.controller.steering import SteerFlow
from acp_tui.controller.transcript_feed import TranscriptFeed
from acp_tui.controller.turn_ends import TurnEnds
from acp_tui.controller.wiring import ServicesFactory, UserAsker, default_services
from acp_tui.launch import REPLAY_PREFIX, Launch, replayed_log
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.sanitize import plain
from acp_tui.session import changes as ch
from acp_tui.session.model import USER_MESSAGE, SessionState

#: a replay's line in the conversation is cut here (its own lines are short; a recording's text is not)
REPLAY_LINE = 1_000
#: how long after a cancel before a second Ctrl-C may stop the agent process (and the slow-cancel line shows)
FORCE_STOP_AFTER = 3.0
#: On quit, how long the agent has to wind down (the cancel, `session/close`, its stdin closed, SIGTERM) before
#: its whole process group is killed: a user who quits wants the app gone, whatever the agent does.
QUIT_GRACE = 1.0


class SessionController:
    """Owns one agent (across restarts) and its session; the UI renders what it reports.

    Listing, opening, starting anew and deleting sessions are its `SessionSwitcher`'s (session_switcher.py),
    asked of `controller.sessions` directly (the session browser's `SessionSource`); logging in and out its
    `LoginFlow`'s (login.py).
    """

    def __init__(
        self,
        launch: Launch,
        *,
        asker: UserAsker,
        listener: ControllerListener,
        services: ServicesFactory = default_services,
        transcripts: bool = True,
        force_stop_after: float = FORCE_STOP_AFTER,
        host: AgentHost | None = None,
    ) -> None:
        """`host`: where the agent runs (acp_tui/agent/host.py); default: the one the launch names (`host_for`)."""
        self.launch = launch
        #: where the agent runs, chosen once at launch: it starts each connection's agent, and what the
        #: connection offers the agent follows from it (wiring.py)
        self.host: AgentHost = host if host is not None else host_for(launch)
        self.asker = asker
        #: who hears what happened (the chat screen's event pump, print mode)
        self.listener: ControllerListener = listener
        self._emit = self.listener.controller_event
        self._services_factory = services
        self.force_stop_after = force_stop_after
        self.session: AgentSession | None = None
        #: who the user talks to: the agent's own name from `initialize` once it gave one (its title, else its
        #: name), until then the launch's (a named agent's, else the program's)
        self.agent_name = launch.agent_name
        self.queue = PromptQueue()
        self.prompts = PromptFlow(self)  # the queue's prompts sent when the agent can take them (prompting.py)
        self._modes = ModeWatch()  # a mode change is a line in the conversation (mode_watch.py)
        self.transcript = TranscriptFeed(self)  # the model's changes, written once per frame (transcript_feed.py)
        self.phase: Lifecycle = "stopped"
        #: when the current cancel was sent (None when no cancel is in flight)
        self.cancel_sent_at: float | None = None
        #: the recording the agent plays back (`acp-tui replay`), None for a live agent
        self._replay = replayed_log(launch.agent_argv)
        self._slow_cancel: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[object]] = set()
        self.closed = False
        # Logging in (docs/protocol.md §2.4): the login itself (login.py) and what it means for the prompt the
        # agent refused and the queue (login_turns.py)
        self.login_flow = LoginFlow(self)
        self.logins = LoginTurns(self)
        self.turn_ends = TurnEnds(self)  # how a turn ended, said in the conversation (turn_ends.py)
        self.ends = AgentEnds(self)  # how the agent's life ended, said once (agent_ends.py)
        self.sessions = SessionSwitcher(self, listener=self.listener, transcripts=transcripts)
        self.steering = SteerFlow(
            self, listener=self.listener
        )  # steer now: a prompt into the running turn (steering.py)

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
        if (
            state.foreground.busy
            or self.prompts.sending
            or self.login_flow.active
            or self.sessions.opening
            or self.login_pending
        ):
            return True
        return any(sub.status == "pending" for sub in state.submissions.values())

    @property
    def login_pending(self) -> bool:
        """Is a login step in flight (a login dialog, or `authenticate` / `auth/login` awaiting its answer)? Ctrl-C withdraws it."""
        return self.login_flow.pending(self.session)

    @property
    def waiting_for_user(self) -> bool:
        return bool(self.session is not None and self.session.state.permissions)

    def stderr_tail(self, lines: int = 8) -> str:
        if self.session is None:
            return ""
        return "\n".join(self.session.transport.stderr_tail(4000).splitlines()[-lines:])

    # -- the agent's life --------------------------------------------------------------------------

    async def start(self, resume_id: str | None = None) -> bool:
        """Spawn, initialize and open (or resume) a session; False when the agent is not usable.

        Failures become a `Note` and the `stopped` phase, never an exception.
        """
        session = self.new_agent(self.launch)
        self.session = session
        self.ends.started()
        self.set_cancel(None)
        self.set_phase("starting")
        if self._replay is not None:
            self.note(
                f"replay of {plain(Path(self._replay).name)}: the agent's side comes from the recording; "
                "where this conversation departs from it, a line says so"
            )
        restart_for_login = False
        try:
            self._emit(Waiting("starting the agent"))
            await session.connect()
            self._emit(Waiting("waiting for the agent to initialize"))
            await session.initialize()
            self.identify(session)
            restart_for_login = not await self.logins.open_or_log_in(session, resume_id)
        except SpawnError as exc:
            self.ends.unavailable(f"could not start the agent: {exc}")
            return False
        except AuthRequired as exc:
            names = ", ".join(plain(str(m.get("name", m.get("id", "?")))) for m in exc.auth_methods) or "none offered"
            how = (
                "log in once in acp-tui's TUI, or with the agent's own command, then run again"
                if self.launch.headless
                else "press Ctrl-R to be asked again, or log in from the command palette"
                if exc.auth_methods
                else "log in with the agent's own command first, then restart with Ctrl-R"
            )
            self.ends.unavailable(f"not logged in: the agent requires authentication ({names}); {how}")
            await session.shutdown()  # no agent lingers; Ctrl-R starts a fresh one
            return False
        except (SessionError, RpcError, ConnectionClosed) as exc:
            if session.connection.exit_info is not None:
                self._emit(Waiting(None))
                return False  # the agent exited: its exit (code, stderr tail) is reported by the model
            slow = (
                "; a slow agent may need longer: --init-timeout SECONDS, or init_timeout in config.toml"
                if isinstance(exc, HandshakeTimeout)
                else ""
            )
            self.ends.unavailable(f"{plain(str(exc)) or type(exc).__name__}{slow}{self.ends.restart_hint()}")
            # A hung or confused agent is stopped, so Ctrl-R starts a fresh one and none lingers.
            self.ends.failure_shown = True
            await session.shutdown()
            return False
        if restart_for_login:
            return await self.restart_for_login(session, resume_id)
        self._emit(Waiting(None))
        self.sessions.started(session)
        if given := session.tools.given():
            self.note(given)
        for line in session.tools.refused:  # what the agent cannot take is said, never dropped silently
            self.note(line, "warning")
        self.set_phase("ready")
        if not self.logins.resend_after_login():
            self.prompts.send_queued()
        return True

    def new_agent(self, launch: Launch) -> AgentSession:
        """A new connection for `launch` (not started), its events routed like every other's."""
        session = AgentSession(
            launch.agent_argv,
            cwd=launch.cwd,
            env={**os.environ, **launch.env, **self.login_flow.env},
            protocol=None if launch.protocol == "auto" else int(launch.protocol),
            handshake_timeout=launch.init_timeout,
            log_path=launch.log_path,
            listener=self,
            services=self._services_factory(launch, self.host, self.asker),
            mcp_servers=launch.mcp_servers,
            additional_directories=launch.add_dirs,
            host=self.host,  # a local host hands its first agent the one the command line started (cli.py)
        )
        return session

    async def open_or_resume(self, session: AgentSession, resume_id: str | None) -> None:
        """Resume `resume_id` where the agent can, else open a new session; `AuthRequired` goes to the caller.

        The first session may be one the command line asked for (`--resume ID`, `--continue`): opened with its
        history (docs/protocol.md §3). Print mode (`launch.headless`) never answers in another session than the
        one named: a session that cannot be opened raises `SessionError` instead of starting a new one.
        """
        resumed = False
        history = False
        if resume_id is None and not self.sessions.had_session:
            resume_id, history = await self.sessions.asked_for(session)
        if resume_id is not None and session.others.can_open(history):
            self._emit(Waiting("opening the session" if history else "resuming the session"))
            try:
                method = await session.others.open_session(
                    resume_id, history=history, progress=self.sessions.replay_progress
                )
                resumed = True
            except AuthRequired:
                raise  # log in, then resume (docs/protocol.md §2.4)
            except (RpcError, SessionError) as exc:
                if self.launch.headless:
                    raise SessionError(
                        f"could not resume session {plain(resume_id)!r}: {plain(str(exc))}; not run"
                    ) from None
                self.note(f"the agent could not resume the session ({plain(str(exc))})", "warning")
        elif resume_id is not None and self.launch.headless:
            raise SessionError(f"could not resume session {plain(resume_id)!r}: this agent cannot open past sessions")
        if not resumed:
            self._emit(Waiting("opening a session"))
            await session.new_session()
            if resume_id is not None:
                self.note("a new session was started: the agent's memory of this conversation starts fresh", "warning")
        else:
            self.sessions.opened_note(method, history)

    async def restart(self, *, stop_first: bool = False) -> bool:
        """Start a fresh agent after it stopped, resuming the previous session where the agent can;
        `stop_first` stops a running one first (the user confirmed it: Ctrl+R twice)."""
        if not self.stopped:
            session = self.session
            if not stop_first or session is None:
                raise ControllerError("the agent is running")
            self.ends.restarting = True
            try:
                await self.stop()
                await session.connection.wait_closed()  # its exit is in the model: the phase is "stopped"
            finally:
                self.ends.restarting = False
        self.note("restarting the agent…")
        return await self.start(self.ends.previous_session_id)

    async def stop(self) -> None:
        """Stop the agent's whole process group at once (the conversation and transcript stay)."""
        session = self.session
        if session is None or self.stopped:
            return
        self.ends.stopped_by_user = True
        await session.shutdown()

    async def shutdown(self, grace: float | None = None) -> None:
        """Cancel running work, then stop the agent cleanly (quit); only the first call does anything.

        With `grace` (the user quits: `QUIT_GRACE`) the cancel, `session/close` and the agent's own exit
        share that many seconds and then its whole process group is killed; without it (print mode, the
        check) the agent gets its usual, longer, time to exit by itself."""
        if self.closed:
            return
        self.closed = True
        session = self.session
        if session is not None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + (grace if grace is not None else 0.0)
            share = 1.0 if grace is None else grace / 4  # the cancel's and session/close's each
            if not self.stopped and (session.state.foreground.busy or session.state.permissions):
                try:
                    await asyncio.wait_for(session.cancel(), timeout=share)
                except (TimeoutError, ConnectionClosed):
                    pass
            await self.sessions.close_on_quit(session, None if grace is None else share)
            self.ends.stopped_by_user = True
            if grace is None:
                await session.shutdown()
            else:
                await session.shutdown(grace=max(deadline - loop.time(), grace / 2))
        for task in list(self._tasks):
            task.cancel()
        self.transcript.flush()
        self.transcript.close()

    async def restart_for_login(self, session: AgentSession, resume_id: str | None) -> bool:
        """Stop this agent quietly and start a fresh one: it reads the new login or variables when it starts."""
        self.ends.failure_shown = True  # our own stop: no "the agent stopped" banner
        self.ends.stopped_by_user = True
        await session.shutdown()
        return await self.start(resume_id)

    # -- prompts -----------------------------------------------------------------------------------

    def submit(self, prompt: PromptSubmission | str) -> bool:
        """The user sent a prompt: send it now, or queue it while the agent works; True when sent now.

        A plain string is read for `@` mentions of files that exist (history, scripts, tests).
        """
        submission = (
            prompt
            if isinstance(prompt, PromptSubmission)
            else PromptSubmission(prompt, mentions_in_text(prompt, self.launch.cwd))
        )
        if self.session is None or self.session.session_id is None or self.busy or self.stopped:
            self.queue.add(submission)
            self.prompts.queue_changed()
            return False
        self.prompts.send(submission)
        return True

    # -- cancel ------------------------------------------------------------------------------------

    def cancel(self) -> bool:
        """Cancel the turn (answers open questions `cancelled`), or withdraw the agent's login request while one
        awaits its answer (the login ends "cancelled"); False when there is nothing to cancel."""
        session = self.session
        if self.login_flow.withdraw(session):
            return True  # not a turn: no `session/cancel`, the queue keeps what it holds
        if session is None or self.stopped or self.cancel_sent_at is not None:
            return False
        self.set_cancel(time.monotonic())
        self._slow_cancel = asyncio.get_running_loop().call_later(self.force_stop_after, self._cancel_is_slow)
        self.spawn(session.cancel())
        return True

    async def cancel_tool_call(self, tool_call_id: str) -> None:
        """v2 `tool_call/cancel` for one tool call; raises `ControllerError` for the UI to show."""
        session = self.session
        if session is None or self.stopped:
            raise ControllerError("the agent is not running")
        with as_controller_error():
            await session.cancel_tool_call(tool_call_id)

    async def cancel_terminal(self, terminal_id: str) -> None:
        """Stop one terminal from its card; raises `ControllerError` (fit for the user) when it cannot be."""
        session = self.session
        if session is None or self.stopped:
            raise ControllerError("the agent is not running")
        with as_controller_error():
            await session.cancel_terminal(terminal_id)

    async def set_config(self, config_id: str, value: str | bool) -> None:
        """Change one session config option; raises `ControllerError` (the agent's reason) for the UI to show."""
        session = self.session
        if session is None:
            raise ControllerError("no session yet")
        self._modes.asked(config_id, value)
        try:
            await session.set_config_option(config_id, value)
        except RpcError as exc:
            self._modes.refused()
            raise ControllerError(exc.message) from exc  # the agent's words; the code is for the log
        except BELOW as exc:
            self._modes.refused()
            raise ControllerError(str(exc)) from exc
        except BaseException:
            self._modes.refused()
            raise

    def _cancel_is_slow(self) -> None:
        self._slow_cancel = None
        if self.launch.headless:
            return  # no second Ctrl-C to press: print mode stops the agent after its own grace (headless/run.py)
        if self.cancel_sent_at is not None and not self.stopped:
            self.note(
                "the agent has not stopped yet; press Ctrl-C again to stop the agent process "
                "(the conversation is kept)",
                "warning",
            )

    def set_cancel(self, sent_at: float | None) -> None:
        """A cancel sent at `sent_at` (its slow-cancel line armed by `cancel`), or (None) over: told once."""
        was = self.cancel_sent_at is not None
        self.cancel_sent_at = sent_at
        if sent_at is None and self._slow_cancel is not None:
            self._slow_cancel.cancel()
            self._slow_cancel = None
        if was != (sent_at is not None):
            self._emit(CancelStateChanged(sent_at is not None))

    # -- session events ------------------------------------------------------------------------------

    def session_event(self, session: AgentSession, event: SessionEvent) -> None:
        """What the agent session reports (`SessionListener`): fed to the transcript, the UI and the turn."""
        if session is not self.session or self.closed:
            return  # a replaced connection's late news
        if isinstance(event, ModelChanged):
            self.transcript.changed(event.changes)
            self._emit(event)
            moved = indexed = prompted = False
            for change in event.changes:
                match change:
                    case ch.TextAppended() | ch.ContentAppended() | ch.BytesAppended() | ch.EntityChanged():
                        pass  # the stream itself, first: most changes are these
                    case ch.EntityAdded(key=key):
                        prompted = prompted or key[0] == USER_MESSAGE
                    case ch.TurnEnded():
                        self.turn_ends.ended(change)
                        indexed = True
                    case ch.StateChanged():
                        moved = True
                    case ch.AgentGone():
                        self.ends.gone(session)
                    case ch.InfoChanged():
                        indexed = True
                    case ch.ConfigChanged():
                        line = self._modes.seen((session, session.session_id), session.state.config_options)
                        if line is not None:
                            self.note(line.text, "warning" if line.warning else "info")
                    case (
                        ch.EntityRemoved()
                        | ch.ContentReplaced()
                        | ch.UsageChanged()
                        | ch.AccountChanged()
                        | ch.NoticeRaised()
                        | ch.CommandsChanged()
                        | ch.PermissionsChanged()
                        | ch.SubmissionChanged()
                        | ch.ProblemAdded()
                    ):
                        pass  # the UI's and the transcript's alone
                    case _:
                        assert_never(change)
            if indexed:
                self.sessions.index_session(session)  # the session list shows its title and last activity
            elif prompted:
                self.sessions.prompt_added(session)  # a session is listed from its first prompt on
            if moved:
                self.turn_progress()  # after the turn's end is marked (and the queue maybe paused)
        elif isinstance(event, SessionSwitched):
            self._modes.seen((session, session.session_id), session.state.config_options)  # the new one's start
            self.sessions.switched(session, event)
        elif self._replay is not None and event.text.startswith(REPLAY_PREFIX):
            # The replay's departures from its recording are the conversation's, where they happen (README, "Replay")
            self.note(plain(event.text)[:REPLAY_LINE], "warning")
        else:
            self.ends.stderr_lines += 1
            self._emit(event)

    def turn_progress(self) -> None:
        """The foreground state moved: when the agent is idle, the cancel is over and the next prompt goes."""
        session = self.session
        if session is None:
            return
        if session.state.foreground.busy:
            if self.prompts.sending:
                self._emit(Waiting(None))  # the agent works on it, whenever it answers the request
            return
        self.set_cancel(None)
        if not self.stopped:
            self.prompts.send_queued()

    # -- helpers -------------------------------------------------------------------------------------

    def note(self, text: str, severity: Severity = "info", *, detail: str = "") -> None:
        """A client line in the conversation and the transcript."""
        self.transcript.flush()  # keep the transcript in conversation order
        self.transcript.note(text)
        self._emit(Note(text, severity, detail))

    def identify(self, session: AgentSession) -> None:
        agent = session.init.agent if session.init is not None else None
        name = self.launch.agent_name
        version = None
        if agent is not None:
            name = agent.title or agent.name or name
            version = agent.version
        self.agent_name = name
        self.login_flow.identified(session, name)
        self._emit(AgentIdentified(name, version, session.version or 0))

    def set_phase(self, phase: Lifecycle) -> None:
        """The agent's phase (`LifecycleChanged` when it changes)."""
        if phase != self.phase:
            self.phase = phase
            self._emit(LifecycleChanged(phase))

    def waiting(self, what: str | None) -> None:
        """Show (or, None, clear) what the client waits for in the status line."""
        self._emit(Waiting(what))

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        task: asyncio.Task[object] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


_EMPTY_STATE = SessionState()


__all__ = ["FORCE_STOP_AFTER", "SessionController"]
