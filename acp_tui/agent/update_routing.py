"""Where each `session/update` goes: the current session's model, the one being opened beside it, or a wait.

An update is decoded for the negotiated version (hot path: synchronous, in receive order, no task per
update). Before `session/new` answers, the new session's updates wait (`buffered`); while a past session
is being opened beside the current one (`opening`, docs/protocol.md §3) its replayed history goes into its
own model, counted, not shown; an update for a session nobody asked about is a problem, said, not applied.
`AgentSession` owns one (`session.routing`) and is its `RoutingHost`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import msgspec

from acp_tui.agent.connection import WireProblem
from acp_tui.agent.dialect import Dialect
from acp_tui.protocol import codec
from acp_tui.protocol.codec import MalformedMessage
from acp_tui.session import local_events as local
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import ModelInput, apply


class Opening:
    """A session being set up beside the current one (docs/protocol.md §3): its own model and dialect.

    Its updates (a replayed history) are applied here, not shown; the current conversation stays as it
    is until the agent answers, and stays for good if it refuses or fails halfway.
    """

    __slots__ = ("session_id", "state", "dialect", "buffered", "updates", "progress")

    def __init__(self, session_id: str | None, dialect: Dialect, progress: Callable[[int], None] | None) -> None:
        self.session_id = session_id  # None until `session/new` answers
        self.state = SessionState()
        self.dialect = dialect
        self.buffered: list[tuple[str, Any]] = []
        self.updates = 0
        self.progress = progress

    async def answer(self, request: Coroutine[Any, Any, msgspec.Raw], timeout: float) -> msgspec.Raw:
        """Await a setup request that may replay a long history: it times out only when nothing arrives."""
        task = asyncio.ensure_future(request)
        seen = -1
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=timeout)
                if done:
                    return task.result()
                if self.updates == seen:
                    raise TimeoutError
                seen = self.updates
        finally:
            task.cancel()


class RoutingHost(Protocol):
    """What the routing needs of its session: the negotiated dialect, the current session and the model's writer."""

    @property
    def dialect(self) -> Dialect | None: ...

    @property
    def session_id(self) -> str | None: ...

    @property
    def state(self) -> SessionState: ...

    def apply(self, item: ModelInput) -> None: ...

    def report(self, problem: WireProblem) -> None: ...


class UpdateRouter:
    """Routes the agent's `session/update`s; holds the session being opened and the updates that came early."""

    def __init__(self, host: RoutingHost) -> None:
        self._host = host
        #: updates that came before `session/new` answered (applied once it has)
        self.buffered: list[tuple[str, Any]] = []
        #: the session being set up beside the current one, if any
        self.opening: Opening | None = None

    def end(self, opening: Opening) -> None:
        """The opening is over: answered (already current) or refused or failed."""
        if self.opening is opening:
            self.opening = None  # refused or failed: its model is dropped, the current session untouched

    def on_update(self, params: msgspec.Raw) -> None:
        """`session/update`: decode for the version, then apply (hot path, synchronous)."""
        dialect = self._host.dialect
        if dialect is None:
            self._host.report(WireProblem("session/update before initialize was answered", bytes(params)))
            return
        try:
            session_id, update = codec.decode_update(bytes(params), dialect.version)
        except MalformedMessage as exc:
            self._host.report(WireProblem(f"malformed session/update: {exc.reason}", exc.raw))
            return
        opening = self.opening
        if opening is not None and session_id != self._host.session_id:
            self._opening_update(opening, session_id, update)
            return
        if self._host.session_id is None:
            self.buffered.append((session_id, update))  # session/new has not answered yet
            return
        self.route(session_id, update)

    def _opening_update(self, opening: Opening, session_id: str, update: Any) -> None:
        """An update for the session being opened: into its own model, counted, not shown yet."""
        if opening.session_id is None:
            opening.buffered.append((session_id, update))  # `session/new` has not answered yet
            return
        if session_id != opening.session_id:
            if session_id in opening.state.subagents:  # a subagent's history replayed with its parent's
                for item in opening.dialect.child_update(session_id, update):
                    apply(opening.state, local.ChildUpdate(session_id, item))
                return
            self._host.report(WireProblem(f"session/update for unknown session {session_id!r}", b""))
            return
        for item in opening.dialect.update(update):
            apply(opening.state, item)
        opening.updates += 1
        if opening.progress is not None:
            opening.progress(opening.updates)

    def route(self, session_id: str, update: Any) -> None:
        dialect = self._host.dialect
        assert dialect is not None  # routed only once `initialize` was answered
        if session_id != self._host.session_id:
            if session_id in self._host.state.subagents:  # session/subagents.py
                for item in dialect.child_update(session_id, update):
                    self._host.apply(local.ChildUpdate(session_id, item))
                return
            self._host.report(WireProblem(f"session/update for unknown session {session_id!r}", b""))
            return
        for item in dialect.update(update):
            self._host.apply(item)


__all__ = ["Opening", "RoutingHost", "UpdateRouter"]
