"""The agent's sessions besides the one running on a connection (docs/protocol.md §3): a past one opened (loaded or
resumed, its history replayed into a model of its own) or a new one set up beside the current session, which it
replaces only once the agent answered (`SessionSwitched`); and the agent's list, close and delete.

A composed part of `AgentSession` (`session.others`), beside its `UpdateRouter` (which routes the opened
session's updates, `Opening`) and `V1Turns`; `OthersHost` says what it uses of the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from acp_tui.agent.dialect import Dialect, OpenMethod, SessionAbilities, SessionTools, dialect_for
from acp_tui.agent.session_errors import SessionError
from acp_tui.agent.session_events import SessionEvent, SessionSwitched
from acp_tui.agent.update_routing import Opening, UpdateRouter
from acp_tui.protocol import codec, methods
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply


class OthersHost(Protocol):
    """What the other sessions need of their connection: its folder and tools, the current session (replaced on a
    switch), its routing, and its handshake (a setup request with its timeout and the `SessionError`s it becomes)."""

    cwd: str
    tools: SessionTools
    session_id: str | None
    state: SessionState
    dialect: Dialect | None
    routing: UpdateRouter
    #: tells the session's listener (a switch is `SessionSwitched`)
    emit: Callable[[SessionEvent], None]

    def abilities(self) -> SessionAbilities: ...

    def current_dialect(self) -> Dialect: ...

    async def handshake(self, method: str, params: Any, opening: Opening | None = None) -> msgspec.Raw: ...

    def decode(self, decoder: Callable[..., Any], raw: msgspec.Raw, what: str, *args: Any) -> Any: ...

    def session_ready(self, result: methods.NewSessionResponse | methods.ResumeSessionResponse) -> None: ...


class OtherSessions:
    """Opens, lists, closes and deletes the agent's sessions other than the current one."""

    def __init__(self, host: OthersHost) -> None:
        self._host = host

    def can_open(self, history: bool) -> bool:
        """Can a past session be opened, with its history shown (`history`) or not (docs/protocol.md §3)?"""
        dialect = self._host.dialect
        return dialect is not None and dialect.open_method(history) is not None

    async def open_session(
        self, session_id: str, *, history: bool = True, progress: Callable[[int], None] | None = None
    ) -> OpenMethod:
        """Open a past session in this connection's directory; returns how it was opened.

        With `history`, v2 resumes with `replayFrom: start` and v1 uses `session/load` (else v1 `session/resume`,
        which shows no history). The history goes into a fresh model; the current session stays current until
        the agent answers, and stays so if it refuses, or fails halfway through the replay (`SessionError`).
        `progress` is told the number of replayed updates as they arrive.
        """
        host = self._host
        method = host.current_dialect().open_method(history)
        if method is None:
            raise SessionError(
                "this agent cannot open past sessions (it offers neither session/load nor session/resume)"
            )
        if method == "resume" and host.session_id is None and host.routing.opening is None:
            await self.resume(session_id)  # nothing shown yet, no history asked: the restart path
            return method
        opening = self._begin(session_id, progress)
        try:
            if method == "load":
                load = codec.build_load_session(
                    session_id, host.cwd, host.tools.mcp_servers, host.tools.additional_directories
                )
                raw = await host.handshake("session/load", load, opening)
                result = host.decode(codec.decode_load_session_result, raw, "session/load result")
            else:
                params = opening.dialect.resume_params(session_id, host.cwd, method == "resume_replay", host.tools)
                raw = await host.handshake("session/resume", params, opening)
                result = host.decode(codec.decode_resume_session_result, raw, "session/resume result")
            self._switch(opening, result, replayed=method != "resume")
        finally:
            host.routing.end(opening)
        return method

    async def new_beside(self, params: Any) -> str:
        """`session/new` beside the current session (`params` built for it), switched to once the agent answers."""
        host = self._host
        opening = self._begin(None, None)
        try:
            raw = await host.handshake("session/new", params, opening)
            result = host.decode(codec.decode_new_session_result, raw, "session/new result")
            opening.session_id = result.session_id
            self._switch(opening, result, replayed=False)
        finally:
            host.routing.end(opening)
        return result.session_id

    async def resume(self, session_id: str, *, replay: bool = False) -> None:
        """`session/resume` as the connection's session (v2 baseline; v1 only when `sessionCapabilities.resume`
        is advertised)."""
        host = self._host
        dialect = host.current_dialect()
        if not dialect.can_resume():
            raise SessionError("this agent does not support resuming sessions")
        previous, host.session_id = host.session_id, session_id
        try:
            raw = await host.handshake(
                "session/resume", dialect.resume_params(session_id, host.cwd, replay, host.tools)
            )
            result = host.decode(codec.decode_resume_session_result, raw, "session/resume result")
        except BaseException:
            host.session_id = previous  # refused: a new session may follow on this connection
            raise
        host.session_ready(result)

    async def list_sessions(self, cursor: str | None = None, cwd: str | None = None) -> methods.ListSessionsResponse:
        """One page of `session/list` (only when advertised): `cwd` filters (None: every folder)."""
        host = self._host
        if not host.abilities().list:
            raise SessionError("this agent cannot list its sessions")
        raw = await host.handshake("session/list", codec.build_list_sessions(cwd, cursor))
        result: methods.ListSessionsResponse = host.decode(
            codec.decode_list_sessions_result, raw, "session/list result"
        )
        return result

    async def close_other(self, session_id: str) -> bool:
        """`session/close` for a session this connection left (after a switch), when advertised."""
        if not self._host.abilities().close:
            return False
        await self._host.handshake("session/close", methods.SessionIdRequest(session_id=session_id))
        return True

    async def delete_session(self, session_id: str) -> None:
        """`session/delete` (only when advertised; idempotent on the agent's side)."""
        host = self._host
        if not host.abilities().delete:
            raise SessionError("this agent cannot delete sessions")
        await host.handshake("session/delete", methods.SessionIdRequest(session_id=session_id))

    def _begin(self, session_id: str | None, progress: Callable[[int], None] | None) -> Opening:
        host = self._host
        if host.routing.opening is not None:
            raise SessionError("another session is being opened")
        current = host.current_dialect()
        host.routing.opening = Opening(session_id, dialect_for(current.version, current.init), progress)
        return host.routing.opening

    def _switch(
        self, opening: Opening, result: methods.NewSessionResponse | methods.ResumeSessionResponse, *, replayed: bool
    ) -> None:
        """The agent answered: the opened session becomes the current one (`SessionSwitched`)."""
        host = self._host
        assert opening.session_id is not None
        for item in opening.dialect.session_ready(result):
            apply(opening.state, item)
        previous = host.state
        opening.state.account = previous.account  # the account is the connection's, not the session's
        host.state, host.dialect, host.session_id = opening.state, opening.dialect, opening.session_id
        host.routing.opening = None
        host.emit(SessionSwitched(opening.session_id, previous, replayed))
        for session_id, update in opening.buffered:  # a new session's updates sent before its id was known
            host.routing.route(session_id, update)


__all__ = ["OtherSessions", "OthersHost"]
