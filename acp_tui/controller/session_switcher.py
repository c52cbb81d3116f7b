"""The controller's session switcher: list, open, start anew, delete and close (docs/protocol.md §3).

`SessionController` owns one (`controller.sessions`) and is its `SwitcherHost`; it lives here so the agent's
life (start, restart, turns, login) and the moves between sessions read apart. Every method is called only when the agent advertised it
(`SessionAbilities`); an unexpected answer (an unknown id, a bad cursor, a load that fails halfway)
becomes a clear `Note` or `ControllerError`, and the conversation on screen stays what it was.

Opening keeps the current session until the agent answered: its history goes into a fresh model
(`AgentSession.open_session`), then `SessionOpened` tells the UI to show that model whole. A session of
another folder is opened by a second agent process started in that folder, so the file and terminal
services guard the right directory; the first process goes once the second has the session.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Protocol

from acp_tui import transcript
from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.dialect import OpenMethod, SessionAbilities
from acp_tui.agent.process import SpawnError
from acp_tui.agent.session import AgentSession, SessionError
from acp_tui.agent.session_events import SessionSwitched
from acp_tui.controller.controller_events import ControllerListener, SessionOpened
from acp_tui.controller.errors import ControllerError
from acp_tui.controller.part_host import PartHost
from acp_tui.controller.sessions import (
    IndexEntry,
    SessionIndex,
    SessionListing,
    SessionPage,
    from_wire,
    has_prompt,
    merge,
    same_folder,
    state_title,
)
from acp_tui.controller.transcript_feed import TranscriptFeed
from acp_tui.launch import Launch
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.sanitize import plain
from acp_tui.session.changes import Change, EntityAdded, InfoChanged
from acp_tui.session.model import SessionState
from acp_tui.transcript import TranscriptWriter, transcript_path

#: Replay progress is reported at most this often (the status line, not one event per update).
PROGRESS_EVERY = 0.1
#: How long a `session/close` may take before we go on without its answer (quit, switch).
CLOSE_TIMEOUT = 2.0


class SwitcherHost(PartHost, Protocol):
    """What the switcher needs of its controller besides a part's (`PartHost`): its launch, its transcript, a
    way to start another agent, and the status line."""

    launch: Launch
    transcript: TranscriptFeed

    def waiting(self, what: str | None) -> None: ...

    def identify(self, session: AgentSession) -> None: ...

    def new_agent(self, launch: Launch) -> AgentSession:
        """A new connection for `launch` (not started), its events routed like every other's."""
        ...

    async def start(self, resume_id: str | None = None) -> bool: ...


class SessionSwitcher:
    """What the user can do with sessions besides talking in one; composed into `SessionController`."""

    def __init__(self, host: SwitcherHost, *, listener: ControllerListener, transcripts: bool) -> None:
        self._host = host
        self._listener = listener
        self._transcripts = transcripts
        #: a session is being opened (prompts typed meanwhile wait in the queue for it)
        self.opening = False
        #: a session was shown in this controller's life (a later one replaces it on screen)
        self.had_session = False
        #: the transcript was opened by a session switch (start() must not note a restart in it)
        self.fresh_transcript = False
        self._progress_at = 0.0
        self.index = SessionIndex()
        #: the transcripts indexed as prompted (a later prompt need not say so again)
        self._prompted: set[Path] = set()

    # -- what the UI reads ---------------------------------------------------------------------------

    @property
    def abilities(self) -> SessionAbilities:
        """The session methods the running agent advertised (none while it is stopped)."""
        if self._host.session is None or self._host.stopped:
            return SessionAbilities()
        return self._host.session.abilities()

    async def session_abilities(self) -> SessionAbilities:
        """The session methods the agent advertised, once it has started (none if it is not running)."""
        try:
            session = await self._ready_session()
        except ControllerError:
            return SessionAbilities()
        return session.abilities()

    @property
    def current_session_id(self) -> str | None:
        return self._host.session.session_id if self._host.session is not None else None

    def transcript_sessions(self, *, all_dirs: bool = False) -> list[SessionListing]:
        """The sessions of this agent we have transcripts of, in this folder (or every folder), newest first."""
        return self.index.sessions(self._host.launch.agent_name, None if all_dirs else self._host.launch.cwd)

    # -- intents ---------------------------------------------------------------------------------------

    async def list_sessions(self, cursor: str | None = None, *, all_dirs: bool = False) -> SessionPage:
        """One page of the agent's sessions for this folder (or all); raises `ControllerError` with the reason."""
        session = await self._ready_session()
        try:
            page = await session.others.list_sessions(cursor, None if all_dirs else str(session.cwd))
        except (RpcError, ConnectionClosed) as exc:
            raise ControllerError(f"the agent could not list its sessions: {exc}") from exc
        except SessionError as exc:
            raise ControllerError(str(exc)) from exc
        return from_wire(page)

    async def open_session(self, session_id: str, *, cwd: str | None = None, history: bool = True) -> bool:
        """Make `session_id` the conversation, its history shown (docs/protocol.md §3); False when it stays as it was.

        `cwd` is the session's own folder (from the list); another folder than the current one is opened by an
        agent started there. A stopped agent is started for it.
        """
        session = self._host.session
        if session is None or self._host.stopped:
            if self._host.phase == "starting":
                self._host.note("the agent is still starting; open the session once it is ready", "warning")
                return False
            if cwd is not None and not same_folder(cwd, self._host.launch.cwd):
                self._host.launch = replace(self._host.launch, cwd=Path(cwd))
            self._host.launch = replace(self._host.launch, resume_id=session_id)
            self.had_session = False  # the fresh agent's first session: nothing of it is shown yet
            return await self._host.start()
        if session.session_id == session_id:
            self._host.note("this session is already open")
            return True
        if not self._may_switch():
            return False
        if cwd is not None and not same_folder(cwd, session.cwd):
            return await self._open_elsewhere(session_id, Path(cwd), history)
        if not session.others.can_open(history):
            self._host.note("this agent cannot open past sessions; their transcripts can still be read", "warning")
            return False
        left = session.session_id
        self._begin_switch("opening the session")
        try:
            method = await session.others.open_session(session_id, history=history, progress=self.replay_progress)
        except (SessionError, RpcError, ConnectionClosed) as exc:
            self._host.note(f"could not open the session: {plain(str(exc))}; this conversation stays", "warning")
            return False
        finally:
            self._end_switch()
        self.opened_note(method, history)
        self._after_switch(session, left)
        return True

    async def new_session(self) -> bool:
        """A new session with the same agent, no restart; the one left is closed (`session/close`, if offered)."""
        session = self._host.session
        if session is None or self._host.stopped:
            if self._host.phase == "starting":
                return False
            self.had_session = False
            self._host.launch = replace(self._host.launch, resume_id=None, continue_last=False)
            return await self._host.start()
        if not self._may_switch():
            return False
        left = session.session_id
        self._begin_switch("opening a new session")
        try:
            await session.new_session()
        except (SessionError, RpcError, ConnectionClosed) as exc:
            self._host.note(f"could not start a new session: {plain(str(exc))}; this conversation stays", "warning")
            return False
        finally:
            self._end_switch()
        self._after_switch(session, left)
        return True

    async def delete_session(self, session_id: str) -> None:
        """`session/delete` (only when offered); our transcript of it stays. Raises `ControllerError` with the reason."""
        session = await self._ready_session()
        if session.session_id == session_id:
            raise ControllerError("this is the open session; start a new one (Ctrl-N) before deleting it")
        try:
            await session.others.delete_session(session_id)
        except (RpcError, ConnectionClosed) as exc:
            raise ControllerError(f"the agent did not delete the session: {exc}") from exc
        except SessionError as exc:
            raise ControllerError(str(exc)) from exc

    async def latest_session(self) -> SessionListing | None:
        """The most recent session of this agent in this folder: from its list (first page) or our transcripts."""
        rows: list[SessionListing] = []
        session = self._host.session
        if session is not None and session.abilities().list:
            try:
                page = await session.others.list_sessions(None, str(session.cwd))
                rows.extend(row for row in from_wire(page).sessions if same_folder(row.cwd, session.cwd))
            except (SessionError, RpcError, ConnectionClosed):
                pass  # the transcripts may still know one
        newest = merge(rows, self.transcript_sessions())  # as the list has them: none never prompted
        return newest[0] if newest else None

    def export_markdown(self) -> tuple[str, Path]:
        """The conversation so far as Markdown (a chat log, from our transcript) and the transcript it came from."""
        writer = self._host.transcript.writer
        if writer is None:
            raise ControllerError("there is no transcript of this conversation to export")
        self._host.transcript.flush()
        try:
            return transcript.render_markdown(writer.path), writer.path
        except OSError as exc:
            raise ControllerError(f"the transcript could not be read: {exc.strerror or exc}") from exc

    # -- hooks the controller calls ---------------------------------------------------------------------

    async def asked_for(self, session: AgentSession) -> tuple[str | None, bool]:
        """The session the command line asked for (`--resume ID`, `--continue`), to open with its history."""
        launch = self._host.launch
        if launch.resume_id is not None:
            return launch.resume_id, True
        if not launch.continue_last:
            return None, False
        latest = await self.latest_session()
        if latest is None:
            self._host.note("no earlier session of this agent here: a new one starts")
            return None, False
        if not latest.listed and not session.others.can_open(True):
            if launch.headless:  # print mode answers in the session asked for, or not at all
                raise SessionError("--continue: this agent cannot open its past sessions; not run")
            self._host.note(
                "this agent cannot open its past sessions; the last one's transcript can be read in the session list",
                "warning",
            )
            return None, False
        return latest.session_id, True

    def started(self, session: AgentSession) -> None:
        """The agent started with a session: its transcript (a restart goes on in the one open), unless a switch opened it."""
        fresh, self.fresh_transcript = self.fresh_transcript, False
        self.session_shown()
        if not self._transcripts or fresh:
            return  # a session switch opened it (with the history it replayed)
        if self._host.transcript.writer is not None:
            self._host.transcript.note(f"agent restarted; session {session.session_id}", kind="restart")
            return
        label = session.session_id or "session"
        self._host.transcript.writer = TranscriptWriter(transcript_path(label, datetime.now()), label=label)
        self._host.transcript.note(
            f"agent {self._host.launch.agent_name}; session {session.session_id}; cwd {self._host.launch.cwd}"
        )
        self.index_session(session)

    def switched(self, session: AgentSession, event: SessionSwitched) -> None:
        """The agent session now holds another session's model: a transcript of its own, then show it whole."""
        self._host.transcript.flush(event.previous)  # what was left of the session shown so far
        self._new_transcript(session)
        replaces = self.had_session
        self.session_shown()
        self._listener.controller_event(SessionOpened(event.session_id, session.cwd, replaces))

    def session_shown(self) -> None:
        """A session is on screen: what the command line asked for is done (a restart resumes this one)."""
        self.had_session = True
        if self._host.launch.resume_id is not None or self._host.launch.continue_last:
            self._host.launch = replace(self._host.launch, resume_id=None, continue_last=False)

    def index_session(self, session: AgentSession) -> None:
        """Keep the index entry of this session's transcript current (title, last activity, prompted yet).

        A session is indexed as it starts, so that one never prompted is known as such (`merge` leaves it out of
        the list, and the agent's row of it too when untitled), and again when its first prompt goes."""
        writer = self._host.transcript.writer
        if writer is None or session.session_id is None:
            return
        prompted = has_prompt(session.state)
        if prompted:
            self._prompted.add(writer.path)
        self.index.record(
            IndexEntry(
                writer.path,
                session.session_id,
                self._host.launch.agent_name,
                session.cwd,
                state_title(session.state),
                time.time(),
                prompted,
            )
        )

    def prompt_added(self, session: AgentSession) -> None:
        """A user message appeared: the first one of this transcript makes its session a listed one."""
        writer = self._host.transcript.writer
        if writer is not None and writer.path not in self._prompted:
            self.index_session(session)

    async def close_on_quit(self, session: AgentSession, timeout: float | None = None) -> None:
        """Quit: the agent frees the session (`session/close`, when offered) before its process is stopped;
        it has `timeout` seconds (default half of `CLOSE_TIMEOUT`) to answer."""
        if self._host.stopped or session.session_id is None or session.connection.exit_info is not None:
            return
        try:
            await asyncio.wait_for(session.close_session(), CLOSE_TIMEOUT / 2 if timeout is None else timeout)
        except (TimeoutError, SessionError, RpcError, ConnectionClosed):
            pass

    # -- internals --------------------------------------------------------------------------------------

    def _may_switch(self) -> bool:
        if self.opening:
            self._host.note("a session is being opened already", "warning")
            return False
        if self._host.busy:
            self._host.note("the agent is working; let it finish or cancel the turn (Ctrl-C) first", "warning")
            return False
        return True

    def _begin_switch(self, what: str) -> None:
        self.opening = True
        self._progress_at = 0.0
        self._host.waiting(what)

    def _end_switch(self) -> None:
        self.opening = False
        self._host.waiting(None)

    def _after_switch(self, session: AgentSession, left: str | None) -> None:
        """The new session is shown: close the one left behind, then send what was typed meanwhile."""
        if left is not None and left != session.session_id:
            self._host.spawn(self._close_left(session, left))
        self._host.prompts.send_queued()

    async def _close_left(self, session: AgentSession, session_id: str) -> None:
        try:
            await asyncio.wait_for(session.others.close_other(session_id), CLOSE_TIMEOUT)
        except (TimeoutError, SessionError, RpcError, ConnectionClosed) as exc:
            self._host.transcript.note(f"the session left behind was not closed: {plain(str(exc))}")

    def replay_progress(self, count: int) -> None:
        now = time.monotonic()
        if now - self._progress_at >= PROGRESS_EVERY:
            self._progress_at = now
            self._host.waiting(f"restoring the history: {count:,} updates")

    def opened_note(self, method: OpenMethod, history: bool) -> None:
        if self._host.launch.headless:  # print mode shows no history, and has no session list to point to
            self._host.note("session resumed: the agent remembers this conversation")
        elif method == "resume" and history:
            self._host.note(
                "session resumed; this agent does not replay its history (its transcript, if we have one, "
                "can be read in the session list)",
                "warning",
            )
        elif method == "resume":
            self._host.note("session resumed: the agent remembers this conversation")
        else:
            self._host.note("session opened: its history is above; the agent remembers it")

    def _new_transcript(self, session: AgentSession) -> None:
        """A transcript for the session now shown, starting with everything it holds (its replayed history)."""
        if not self._transcripts:
            return
        self._host.transcript.close()
        label = session.session_id or "session"
        writer = TranscriptWriter(transcript_path(label, datetime.now()), label=label)
        writer.note(f"agent {self._host.launch.agent_name}; session {session.session_id}; cwd {session.cwd}")
        writer.write_changes(session.state, _whole(session.state))
        self._host.transcript.writer = writer
        self.fresh_transcript = True
        self.index_session(session)

    async def _open_elsewhere(self, session_id: str, cwd: Path, history: bool) -> bool:
        """A session of another folder: an agent started there opens it; this one goes once it has."""
        old = self._host.session
        assert old is not None
        launch = replace(self._host.launch, cwd=cwd)
        fresh = self._host.new_agent(launch)
        self._begin_switch(f"starting the agent in {plain(str(cwd))}")
        try:
            await fresh.connect()
            await fresh.initialize()
            if not fresh.others.can_open(history):
                raise SessionError("this agent cannot open past sessions")
            self._host.waiting("opening the session")
            method = await fresh.others.open_session(session_id, history=history, progress=self.replay_progress)
        except (SpawnError, SessionError, RpcError, ConnectionClosed) as exc:
            await fresh.shutdown()
            self._host.note(
                f"could not open the session in {plain(str(cwd))}: {plain(str(exc))}; this conversation stays",
                "warning",
            )
            return False
        finally:
            self._end_switch()
        left = old.session_id
        self._host.transcript.flush()  # the old session's last changes, against its own model
        self._host.session, self._host.launch = fresh, launch
        self._host.identify(fresh)
        assert fresh.session_id is not None
        self.switched(fresh, SessionSwitched(fresh.session_id, old.state, method != "resume"))
        self.opened_note(method, history)
        self._host.spawn(self._retire(old, left))
        self._host.prompts.send_queued()
        return True

    async def _retire(self, session: AgentSession, left: str | None) -> None:
        """The connection of the folder we left: close its session, then stop its process."""
        if left is not None:
            try:
                await asyncio.wait_for(session.others.close_other(left), CLOSE_TIMEOUT)
            except (TimeoutError, SessionError, RpcError, ConnectionClosed):
                pass
        await session.shutdown()

    async def _ready_session(self) -> AgentSession:
        """The running agent, waiting while it starts; raises `ControllerError` when it is not running."""
        deadline = time.monotonic() + self._host.launch.init_timeout + 5
        while self._host.phase == "starting" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        session = self._host.session
        if session is None or self._host.stopped:
            raise ControllerError("the agent is not running; press Ctrl-R to restart it")
        return session


def _whole(state: SessionState) -> list[Change]:
    """A model as the changes that would have built it, for a transcript that starts with a replayed history."""
    changes: list[Change] = [EntityAdded(key, index) for index, key in enumerate(state.entities)]
    if state.info.title is not None or state.info.updated_at is not None:
        changes.append(InfoChanged(frozenset({"title", "updated_at"})))
    return changes


__all__ = ["CLOSE_TIMEOUT", "PROGRESS_EVERY", "SessionSwitcher", "SwitcherHost"]
