"""The demo agent's side of ACP over stdio: read requests, run turns, write answers and updates.

One `DemoAgent` serves one client. Requests are answered in the reader loop; prompts go to a
per-session queue served one turn at a time, each turn in its own task so `session/cancel`
can interrupt it anywhere (mid-stream, or while waiting for a permission answer). The version
the client asked for in `initialize` (>= 2 → v2, else v1) picks the dialect for everything after.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import stat
import sys
import threading
import traceback
import uuid
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import IO, Any

import msgspec
from msgspec import UNSET

from acp_tui.catalogue import DEMO_AGENTS_ENV
from acp_tui.demo import content, scripts, wire
from acp_tui.demo.dialect import MODELS, MODES, Dialect, V1Dialect, V2Dialect
from acp_tui.demo.store import BREAK_REPLAY_ENV, BadCursor, SessionStore, StoredSession
from acp_tui.demo.turn import Pace, SessionData, Turn, TurnCancelled, TurnFailed
from acp_tui.protocol import jsonrpc, methods, v2
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.framing import LineFramer

AGENT_INFO = methods.Implementation(name="acp-tui-demo", version="1.0.0", title="acp-tui demo agent")
CONTEXT_SIZE = 200_000
READ_SIZE = 1 << 16
TOKENS_PER_TURN = 3100
COST_PER_TURN = 0.0123  # USD, imaginary


def _welcome() -> str:
    """The welcome, naming the real agents installed here when acp-tui fell back to the demo (`DEMO_AGENTS_ENV`)."""
    return content.welcome(os.environ.get(DEMO_AGENTS_ENV, ""))


class BadParams(Exception):
    """A request whose params the demo cannot use: answered with -32602."""


class SessionNotFound(Exception):
    """A request naming a session the demo does not have: answered with -32002."""


class UnknownMethod(Exception):
    """A method the negotiated version does not have: answered with -32601."""


class ReplayBroken(Exception):
    """A replay that fails halfway (`ACP_TUI_DEMO_BREAK_REPLAY`): answered with -32603."""


class Output:
    """The only writer of stdout: whole lines, in the order they are sent.

    `send` is synchronous, so a group of lines sent without an `await` between them cannot be
    interleaved or split by a cancellation; `flush` waits for the pipe to drain. Once the client
    has gone, writes are dropped instead of raising.
    """

    def __init__(self, writer: asyncio.StreamWriter | None, stream: IO[bytes] | None = None) -> None:
        self._writer = writer
        self._stream = stream
        self.closed = False

    def send(self, *lines: bytes) -> None:
        """Write `lines` (framed) in one write: a reader gets them together (below the pipe's atomic size)."""
        if self.closed:
            return
        data = b"".join(line + b"\n" for line in lines)
        try:
            if self._writer is not None:
                self._writer.write(data)
            elif self._stream is not None:
                self._stream.write(data)
                self._stream.flush()
        except (BrokenPipeError, ConnectionError, ValueError):
            self.closed = True

    async def flush(self) -> None:
        if self.closed or self._writer is None:
            return
        try:
            await self._writer.drain()
        except (BrokenPipeError, ConnectionError):
            self.closed = True


@dataclass
class QueuedPrompt:
    """A `session/prompt` waiting for its turn (not inserted yet)."""

    request_id: jsonrpc.RequestId
    blocks: list[dict[str, Any]]


@dataclass
class ActiveTurn:
    """The turn being played; `finishing` once its ending is being reported (no more cancels)."""

    prompt: QueuedPrompt
    task: asyncio.Task[None] | None = None
    turn: Turn | None = None
    finishing: bool = False


@dataclass
class DemoSession:
    """A session: what the scripts remember plus the prompt queue."""

    data: SessionData
    queue: deque[QueuedPrompt] = field(default_factory=deque)
    worker: asyncio.Task[None] | None = None
    active: ActiveTurn | None = None


Handler = Callable[[jsonrpc.RequestId, bytes], Awaitable[Any]]


class DemoAgent:
    """An ACP agent that plays scripted behaviours; `serve` runs it over a byte stream."""

    def __init__(self, out: Output, pace: Pace) -> None:
        self.out = out
        self.pace = pace
        self.version: int | None = None
        self.dialect: Dialect = V2Dialect()
        self.sessions: dict[str, DemoSession] = {}
        #: every session's history, title and last activity (on disk with ACP_TUI_DEMO_STORE)
        self.store = SessionStore.from_env()
        #: the elicitation modes the client advertised in `initialize`
        self.elicitation_modes: frozenset[str] = frozenset()
        self._request_ids = itertools.count(1)
        self._waiting: dict[jsonrpc.RequestId, asyncio.Future[bytes | None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._handlers: dict[str, Handler] = {
            "initialize": self._initialize,
            "session/new": self._new_session,
            "session/resume": self._resume_session,
            "session/list": self._list_sessions,
            "session/load": self._load_session,
            "session/close": self._close_session,
            "session/delete": self._delete_session,
            "session/set_config_option": self._set_config_option,
            "session/prompt": self._prompt,
            "tool_call/cancel": self._cancel_tool_call,
        }

    # --- the loop ----------------------------------------------------------------------------------

    async def serve(self, chunks: AsyncIterator[bytes]) -> None:
        """Handle every line until the input ends, then stop all turns."""
        framer = LineFramer()
        async for data in chunks:
            for line in framer.feed(data):
                await self.handle_line(line)
        for line in framer.finish():
            await self.handle_line(line)
        await self.shutdown()

    async def shutdown(self) -> None:
        """Cancel every turn and worker (the client has gone) and wait for them to stop."""
        tasks: list[asyncio.Task[None]] = []
        for session in self.sessions.values():
            session.queue.clear()
            active = session.active
            if active is not None and active.task is not None and not active.finishing:
                active.task.cancel()
            if session.worker is not None:
                tasks.append(session.worker)
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)

    async def handle_line(self, line: bytes) -> None:
        decoded = jsonrpc.decode_frame(line)
        for message in decoded if isinstance(decoded, list) else [decoded]:
            await self._dispatch(message)

    async def _dispatch(self, message: jsonrpc.Message | jsonrpc.FrameError) -> None:
        if isinstance(message, jsonrpc.FrameError):
            code = jsonrpc.PARSE_ERROR if message.reason.startswith("invalid") else jsonrpc.INVALID_REQUEST
            await self._error(None, code, message.reason)
        elif isinstance(message, jsonrpc.Request):
            await self._on_request(message)
        elif isinstance(message, jsonrpc.Notification):
            self._on_notification(message)
        else:
            waiter = self._waiting.pop(message.id, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(bytes(message.result) if isinstance(message, jsonrpc.Response) else None)

    async def _on_request(self, request: jsonrpc.Request) -> None:
        handler = self._handlers.get(request.method)
        if handler is None:
            await self._error(request.id, jsonrpc.METHOD_NOT_FOUND, f"Method not found: {request.method}")
            return
        if self.version is None and request.method != "initialize":
            await self._error(request.id, jsonrpc.INVALID_REQUEST, "Call initialize first")
            return
        params = bytes(request.params) or b"{}"
        try:
            result = await handler(request.id, params)
        except (BadParams, msgspec.ValidationError, msgspec.DecodeError) as exc:
            await self._error(request.id, jsonrpc.INVALID_PARAMS, f"Invalid params: {exc}")
        except UnknownMethod:
            await self._error(request.id, jsonrpc.METHOD_NOT_FOUND, f"Method not found: {request.method}")
        except SessionNotFound as exc:
            await self._error(request.id, jsonrpc.RESOURCE_NOT_FOUND, f"Session not found: {exc}")
        except ReplayBroken as exc:
            await self._error(request.id, jsonrpc.INTERNAL_ERROR, str(exc))
        except Exception as exc:  # noqa: BLE001 - a demo bug must not kill the connection
            traceback.print_exc(file=sys.stderr)
            await self._error(request.id, jsonrpc.INTERNAL_ERROR, f"Internal error: {exc}")
        else:
            if result is not None:
                await self._respond(request.id, result)

    def _on_notification(self, notification: jsonrpc.Notification) -> None:
        params = bytes(notification.params) or b"{}"
        try:
            if notification.method == "session/cancel":
                session = self.sessions.get(msgspec.json.decode(params, type=wire.SessionParams).session_id)
                if session is not None:
                    self._cancel(session)
            elif notification.method == jsonrpc.CANCEL_REQUEST_METHOD:
                target = msgspec.json.decode(params, type=wire.CancelRequestParams).request_id
                self._cancel_request(target)
        except (msgspec.ValidationError, msgspec.DecodeError):
            pass  # a malformed notification cannot be answered; ignore it

    # --- writing --------------------------------------------------------------------------------------

    async def _respond(self, request_id: jsonrpc.RequestId, result: Any) -> None:
        self.out.send(jsonrpc.encode_response(request_id, result))
        await self.out.flush()

    async def _error(self, request_id: jsonrpc.RequestId, code: int, message: str) -> None:
        self.out.send(jsonrpc.encode_error(request_id, code, message))
        await self.out.flush()

    def _send_update(self, session_id: str, update: Any) -> None:
        self.out.send(jsonrpc.encode_notification("session/update", wire.SessionNotification(session_id, update)))
        self.store.remember(session_id, update)  # for `session/load` and `replayFrom` later

    async def update(self, session_id: str, update: Any) -> None:
        """Send one `session/update` (the `Link` the turns use)."""
        self._send_update(session_id, update)
        await self.out.flush()

    async def notify(self, method: str, params: Any) -> None:
        self.out.send(jsonrpc.encode_notification(method, params))
        await self.out.flush()

    async def request_permission(self, params: Any) -> wire.PermissionAnswer:
        """Ask the client; an error answer or an unreadable result is not approval."""
        request_id = next(self._request_ids)
        waiter: asyncio.Future[bytes | None] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        try:
            self.out.send(jsonrpc.encode_request(request_id, "session/request_permission", params))
            await self.out.flush()
            raw = await waiter
        finally:
            self._waiting.pop(request_id, None)
        if raw is None:
            return wire.PermissionAnswer(wire.PermissionOutcome("_error"))
        try:
            return msgspec.json.decode(raw, type=wire.PermissionAnswer)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return wire.PermissionAnswer(wire.PermissionOutcome("_malformed"))

    async def elicit(self, params: Any) -> dict[str, Any] | None:
        """Ask the client (`elicitation/create`); its result, or None for an error answer.

        If the asking turn is cancelled the question is withdrawn with `$/cancel_request`
        (agents should cancel elicitations that cancelled work no longer needs, docs/protocol.md §1.4).
        """
        request_id = next(self._request_ids)
        waiter: asyncio.Future[bytes | None] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        try:
            self.out.send(jsonrpc.encode_request(request_id, "elicitation/create", params))
            await self.out.flush()
            raw = await waiter
        except asyncio.CancelledError:
            self.out.send(jsonrpc.encode_notification(jsonrpc.CANCEL_REQUEST_METHOD, {"requestId": request_id}))
            raise
        finally:
            self._waiting.pop(request_id, None)
        if raw is None:
            return None
        try:
            answer = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            return None
        return answer if isinstance(answer, dict) else None

    # --- setup methods ----------------------------------------------------------------------------------

    async def _initialize(self, request_id: jsonrpc.RequestId, params: bytes) -> Any:
        init = msgspec.json.decode(params, type=wire.InitializeParams)
        requested = init.protocol_version
        if isinstance(requested, bool) or not isinstance(requested, int) or requested < 0:
            raise BadParams(f"protocolVersion must be a non-negative integer, got {requested!r}")
        self.elicitation_modes = _elicitation_modes(init.capabilities if requested >= 2 else init.client_capabilities)
        if requested >= 2:
            self.version, self.dialect = 2, V2Dialect()
            return methods.InitializeResponse(
                protocol_version=2,
                info=AGENT_INFO,
                capabilities={"session": {"prompt": {"embeddedContext": {}, "image": {}}, "delete": {}}},
            )
        self.version, self.dialect = 1, V1Dialect()
        return methods.InitializeResponse(
            protocol_version=1,
            agent_info=AGENT_INFO,
            agent_capabilities={
                "loadSession": True,
                "promptCapabilities": {"embeddedContext": True, "image": True},
                "sessionCapabilities": {"resume": {}, "list": {}, "close": {}, "delete": {}},
            },
        )

    async def _new_session(self, request_id: jsonrpc.RequestId, params: bytes) -> None:
        cwd = msgspec.json.decode(params, type=wire.NewSessionParams).cwd
        session = DemoSession(SessionData(f"demo-{uuid.uuid4().hex[:12]}", cwd))
        self.sessions[session.data.session_id] = session
        self.store.add(session.data.session_id, cwd, self.version or 2)
        response = methods.NewSessionResponse(
            session_id=session.data.session_id,
            config_options=self.dialect.config_options(session.data.config),
        )
        data = session.data
        greeting = [
            self.dialect.commands(content.BEHAVIOURS),
            self.dialect.message(data.new_id("msg-agent"), _welcome()),
        ]
        for update in greeting:
            self.store.remember(data.session_id, update)
        # One write with the answer: the client has the greeting before it can send a prompt, so a v1
        # client (whose turns have no start) never takes the greeting for the start of its answer.
        self.out.send(
            jsonrpc.encode_response(request_id, response),
            *(
                jsonrpc.encode_notification("session/update", wire.SessionNotification(data.session_id, update))
                for update in greeting
            ),
        )
        await self.out.flush()

    async def _resume_session(self, request_id: jsonrpc.RequestId, params: bytes) -> None:
        request = msgspec.json.decode(params, type=wire.SessionParams)
        replay = request.replay_from
        if replay is not None and not (isinstance(replay, dict) and replay.get("type") == "start"):
            raise BadParams(f"unsupported replayFrom {replay!r}")
        replaying = self.version == 2 and replay is not None
        stored = self._stored(request.session_id, request.cwd)
        if replaying and stored is None and request.session_id not in self.sessions:
            raise SessionNotFound(request.session_id)  # no history to replay
        # Without replay a session this process never had is re-created (a client resuming after a restart).
        session = self._revive(request.session_id, request.cwd)
        if replaying:
            await self._replay(session.data)
        if isinstance(self.dialect, V2Dialect):
            self._send_update(session.data.session_id, self.dialect.state("idle"))  # the current state, then the answer
        await self._respond(
            request_id, methods.ResumeSessionResponse(config_options=self.dialect.config_options(session.data.config))
        )
        await self.update(session.data.session_id, self.dialect.commands(content.BEHAVIOURS))

    async def _load_session(self, request_id: jsonrpc.RequestId, params: bytes) -> None:
        """v1 `session/load`: replay the whole history as updates, then answer (docs/protocol.md §3)."""
        if self.version != 1:
            raise UnknownMethod()
        request = msgspec.json.decode(params, type=wire.SessionParams)
        if self._stored(request.session_id, request.cwd) is None:
            raise SessionNotFound(request.session_id)
        session = self._revive(request.session_id, request.cwd)
        await self._replay(session.data)
        await self._respond(
            request_id, methods.ResumeSessionResponse(config_options=self.dialect.config_options(session.data.config))
        )
        await self.update(session.data.session_id, self.dialect.commands(content.BEHAVIOURS))

    def _stored(self, session_id: str, cwd: str) -> StoredSession | None:
        """The stored session of this id in this protocol version; another folder's is refused (-32602)."""
        stored = self.store.get(session_id, self.version or 2)
        if stored is not None and stored.cwd != cwd:
            raise BadParams(f"session {session_id} belongs to {stored.cwd}")
        return stored

    def _revive(self, session_id: str, cwd: str) -> DemoSession:
        session = self.sessions.get(session_id)
        if session is None:
            session = DemoSession(SessionData(session_id, cwd, resumed=True))
            self.sessions[session_id] = session
            self.store.add(session_id, cwd, self.version or 2)
        return session

    async def _replay(self, data: SessionData) -> None:
        """Send the stored history (not stored again), then its title; fails halfway when asked to."""
        stored = self.store.get(data.session_id, self.version or 2)
        history = self.store.history(stored) if stored is not None else []
        broken = bool(os.environ.get(BREAK_REPLAY_ENV))
        for index, update in enumerate(history[: len(history) // 2] if broken else history):
            self.out.send(
                jsonrpc.encode_notification("session/update", wire.SessionNotification(data.session_id, update))
            )
            if index % 256 == 255:
                await self.out.flush()
        if broken:
            await self.out.flush()
            raise ReplayBroken("the demo could not read the rest of this session's history")
        if stored is not None and stored.title is not None:
            self.out.send(
                jsonrpc.encode_notification(
                    "session/update",
                    wire.SessionNotification(
                        data.session_id, v2.SessionInfoUpdate(title=stored.title, updated_at=stored.updated_at)
                    ),
                )
            )
        await self.out.flush()

    async def _list_sessions(self, request_id: jsonrpc.RequestId, params: bytes) -> Any:
        request = msgspec.json.decode(params, type=wire.ListParams)
        try:
            rows, next_cursor = self.store.page(self.version or 2, request.cwd, request.cursor)
        except BadCursor:
            raise BadParams(f"invalid cursor {request.cursor!r}") from None
        return wire.ListSessionsResult(
            [
                wire.SessionInfo(
                    s.session_id, s.cwd, title=s.title if s.title is not None else UNSET, updated_at=s.updated_at
                )
                for s in rows
            ],
            next_cursor=next_cursor if next_cursor is not None else UNSET,
        )

    async def _close_session(self, request_id: jsonrpc.RequestId, params: bytes) -> Any:
        """`session/close`: its work is cancelled and it is no longer active; its history stays (load, resume)."""
        session_id = msgspec.json.decode(params, type=wire.SessionParams).session_id
        session = self.sessions.pop(session_id, None)
        if session is not None:
            self._cancel(session)
        return methods.EmptyResponse()

    async def _delete_session(self, request_id: jsonrpc.RequestId, params: bytes) -> Any:
        """`session/delete`: gone from the list and the store (idempotent)."""
        session_id = msgspec.json.decode(params, type=wire.SessionParams).session_id
        session = self.sessions.pop(session_id, None)
        if session is not None:
            self._cancel(session)
        self.store.delete(session_id)
        return methods.EmptyResponse()

    async def _set_config_option(self, request_id: jsonrpc.RequestId, params: bytes) -> Any:
        request = msgspec.json.decode(params, type=wire.SetConfigParams)
        config = self._session(request.session_id).data.config
        choices = {"mode": MODES, "model": MODELS}.get(request.config_id)
        if choices is None:
            raise BadParams(f"unknown config option {request.config_id!r}")
        if request.value not in {value for value, _, _ in choices}:
            raise BadParams(f"{request.value!r} is not a value of {request.config_id!r}")
        setattr(config, request.config_id, request.value)
        return methods.SetSessionConfigOptionResponse(config_options=self.dialect.config_options(config))

    async def _cancel_tool_call(self, request_id: jsonrpc.RequestId, params: bytes) -> Any:
        """v2 `tool_call/cancel`: accepted now, confirmed later by the tool call's final status."""
        if self.version != 2:
            raise UnknownMethod()
        request = msgspec.json.decode(params, type=wire.ToolCallParams)
        active = self._session(request.session_id).active
        turn = active.turn if active is not None else None
        if turn is None or not turn.request_tool_cancel(request.tool_call_id):
            raise BadParams(f"tool call {request.tool_call_id!r} is unknown, final or not cancellable")
        return methods.EmptyResponse()

    def _session(self, session_id: str) -> DemoSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise SessionNotFound(session_id)
        return session

    # --- prompts ------------------------------------------------------------------------------------

    async def _prompt(self, request_id: jsonrpc.RequestId, params: bytes) -> None:
        request = msgspec.json.decode(params, type=wire.PromptParams)
        session = self._session(request.session_id)
        session.queue.append(QueuedPrompt(request_id, request.prompt))
        if session.worker is None or session.worker.done():
            session.worker = asyncio.create_task(self._work(session))
        return None

    async def _work(self, session: DemoSession) -> None:
        """Play queued prompts one at a time."""
        while session.queue:
            prompt = session.queue.popleft()
            active = ActiveTurn(prompt)
            session.active = active
            active.task = asyncio.create_task(self._turn(session, active))
            await asyncio.wait([active.task])
            session.active = None
            if active.task.cancelled():
                # Cancelled before the turn began: the message was never inserted.
                await self._answer_uninserted(prompt)

    async def _answer_uninserted(self, prompt: QueuedPrompt) -> None:
        if self.version == 2:
            await self._error(prompt.request_id, jsonrpc.REQUEST_CANCELLED, "Request cancelled")
        else:
            await self._respond(prompt.request_id, methods.V1PromptResponse(stop_reason="cancelled"))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a short write in the background, holding a reference until it is done."""
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _cancel(self, session: DemoSession) -> None:
        """`session/cancel`: drop queued prompts, interrupt the running turn."""
        queued = list(session.queue)
        session.queue.clear()
        for prompt in queued:
            self._spawn(self._answer_uninserted(prompt))
        active = session.active
        if active is not None and active.task is not None and not active.finishing:
            active.task.cancel()

    def _cancel_request(self, request_id: jsonrpc.RequestId) -> None:
        """`$/cancel_request`: a queued (not yet inserted) prompt is withdrawn with -32800."""
        for session in self.sessions.values():
            for prompt in list(session.queue):
                if prompt.request_id == request_id:
                    session.queue.remove(prompt)
                    self._spawn(self._answer_uninserted(prompt))
                    return

    async def _turn(self, session: DemoSession, active: ActiveTurn) -> None:
        turn = active.turn = Turn(session.data, self.dialect, self.pace, self)
        stop_reason = "end_turn"
        failure: TurnFailed | None = None
        try:
            self._insert(session.data, active.prompt)
            await self.out.flush()
            await scripts.run(turn, active.prompt.blocks)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            stop_reason = "cancelled"
        except TurnCancelled:
            stop_reason = "cancelled"
        except TurnFailed as exc:
            stop_reason, failure = "error", exc
        except Exception as exc:  # noqa: BLE001 - a demo bug still ends the turn properly
            traceback.print_exc(file=sys.stderr)
            stop_reason, failure = "error", TurnFailed(jsonrpc.INTERNAL_ERROR, f"Demo agent bug: {exc}")
        active.finishing = True
        await self._finish(session.data, turn, active.prompt, stop_reason, failure)

    def _insert(self, data: SessionData, prompt: QueuedPrompt) -> None:
        """v2 insertion (docs/protocol.md §4.1): answer with the id, report the message, go running.

        All three lines are sent without an await, so a cancel cannot fall between them.
        """
        dialect = self.dialect
        if not isinstance(dialect, V2Dialect):
            for block in prompt.blocks:  # v1 never echoes the prompt; a load replays it (docs/protocol.md §3)
                self.store.remember(data.session_id, {"sessionUpdate": "user_message_chunk", "content": block})
            return
        message_id = data.new_id("msg-user")
        self.out.send(jsonrpc.encode_response(prompt.request_id, methods.PromptResponse(message_id=message_id)))
        self._send_update(data.session_id, dialect.user_message(message_id, prompt.blocks))
        self._send_update(data.session_id, dialect.state("running"))

    async def _finish(
        self, data: SessionData, turn: Turn, prompt: QueuedPrompt, stop_reason: str, failure: TurnFailed | None
    ) -> None:
        """Close what the turn left open, report usage, then how the turn ended."""
        if stop_reason != "end_turn":
            await turn.close_unfinished("cancelled" if stop_reason == "cancelled" else "failed")
        data.used_tokens = min(CONTEXT_SIZE, data.used_tokens + TOKENS_PER_TURN)
        data.cost += COST_PER_TURN
        stored = self.store.get(data.session_id, self.version or 2)
        if stored is not None:  # the first prompt names the session; every turn is activity
            self.store.touched(stored, _title(prompt.blocks))
            self._send_update(
                data.session_id, v2.SessionInfoUpdate(title=stored.title or UNSET, updated_at=stored.updated_at)
            )
        self._send_update(data.session_id, self.dialect.usage(data.used_tokens, CONTEXT_SIZE, data.cost))
        dialect = self.dialect
        if isinstance(dialect, V2Dialect):
            error = ErrorObject(failure.code, failure.message) if failure is not None else None
            self._send_update(data.session_id, dialect.state("idle", stop_reason, error))
        elif failure is not None:
            self.out.send(jsonrpc.encode_error(prompt.request_id, failure.code, failure.message))
        else:
            self.out.send(jsonrpc.encode_response(prompt.request_id, methods.V1PromptResponse(stop_reason=stop_reason)))
        await self.out.flush()


def _title(blocks: list[dict[str, Any]]) -> str | None:
    """A session title from its first prompt: the start of its text, as typed (a hostile title stays hostile)."""
    text = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text").strip()
    if not text:
        return None
    line = text.splitlines()[0]
    return line if len(line) <= 60 else line[:59] + "…"


def _elicitation_modes(capabilities: Any) -> frozenset[str]:
    """The modes under `elicitation` that are present and not null (an object marks support)."""
    elicitation = capabilities.get("elicitation") if isinstance(capabilities, dict) else None
    if not isinstance(elicitation, dict):
        return frozenset()
    return frozenset(mode for mode in ("form", "url") if isinstance(elicitation.get(mode), dict))


# --- stdio -------------------------------------------------------------------------------------------


def _is_pipe(fd: int) -> bool:
    """Whether `fd` is a pipe or socket, which the event loop can watch (a file or /dev/null is not)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _stdin_chunks(loop: asyncio.AbstractEventLoop) -> AsyncIterator[bytes]:
    """Chunks of stdin until EOF: non-blocking for a pipe, else read by a thread (files, ttys)."""
    fd = sys.stdin.fileno()
    if not _is_pipe(fd):
        queue: asyncio.Queue[bytes] = asyncio.Queue()

        def pump() -> None:
            # A daemon thread, so a blocked read never holds the process open at exit.
            while True:
                try:
                    data = os.read(fd, READ_SIZE)
                except OSError:
                    data = b""
                try:
                    loop.call_soon_threadsafe(queue.put_nowait, data)
                except RuntimeError:  # the loop has closed (interrupted): nobody is listening
                    return
                if not data:
                    return

        threading.Thread(target=pump, name="demo-stdin", daemon=True).start()
        while data := await queue.get():
            yield data
        return
    reader = asyncio.StreamReader(limit=READ_SIZE)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while data := await reader.read(READ_SIZE):
        yield data


async def _stdout(loop: asyncio.AbstractEventLoop) -> Output:
    """A non-blocking writer for a pipe; plain blocking writes for files and ttys."""
    if not _is_pipe(sys.stdout.fileno()):
        return Output(None, sys.stdout.buffer)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout)
    return Output(asyncio.StreamWriter(transport, protocol, None, loop))


async def run_stdio(pace: Pace | None = None) -> None:
    """Serve one client on stdin/stdout until stdin closes."""
    loop = asyncio.get_running_loop()
    agent = DemoAgent(await _stdout(loop), pace or Pace.from_env())
    await agent.serve(_stdin_chunks(loop))
