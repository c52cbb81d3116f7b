"""The JSON-RPC peer (docs/protocol.md §1.2): our requests and their futures, the agent's requests and their answers.

Lines are framed and routed synchronously as stdout chunks arrive. Notifications go to their
handler in receive order with no task per message (the hot path: thousands of updates a
second). Each agent→client request runs in its own task, so a permission dialog left open never
blocks the update stream, and is answered exactly once: the answer is written when its task ends,
whatever way it ends. A line that cannot be decoded is a protocol problem, never the end of reading:
a request in it is answered with an error (its id recovered by `salvage`, else null, as JSON-RPC says),
and an answer in it fails the request it answers. When the agent exits every pending request fails at
once with `ConnectionClosed`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec
from msgspec import UNSET

from acp_tui.agent.process import AgentNotRunning, ExitInfo
from acp_tui.agent.trace import TraceSink
from acp_tui.protocol.framing import MAX_LINE_BYTES, LineFramer
from acp_tui.protocol.jsonrpc import (
    CANCEL_REQUEST_METHOD,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    ErrorResponse,
    FrameError,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    decode_frame,
    encode_batch,
    encode_error,
    encode_notification,
    encode_request,
    encode_response,
    oversized_frame,
)
from acp_tui.protocol.jsonrpc import RpcError as RpcError  # re-exported: the agent layer's callers catch it here


class Transport(Protocol):
    """A byte pipe to the agent: `AgentProcess`, or an in-memory pair in tests."""

    def start_reading(self, on_data: Callable[[bytes], None], on_close: Callable[[ExitInfo], None]) -> None: ...

    async def write(self, data: bytes) -> None: ...


class ConnectionClosed(Exception):
    """The agent exited (or its output ended) while a request was pending, or before it was sent."""

    def __init__(self, info: ExitInfo | None) -> None:
        super().__init__(f"the agent {info.describe()}" if info else "the agent is not running")
        self.info = info


class WireProblem(msgspec.Struct, frozen=True):
    """Something the agent sent that breaks the protocol; logged and shown, never fatal."""

    reason: str
    raw: bytes


class NotAnAgent(RpcError):
    """The peer is no ACP agent: our own request came back to us, or it sent us `initialize` as a client.

    An `RpcError` (-32600: what came back is no answer) so every caller that handles a failed request
    handles this one; `message` says what happened, in words for the user.
    """

    def __init__(self, message: str) -> None:
        super().__init__(INVALID_REQUEST, message)


#: Answers one agent→client request; returns the result (a Struct, dict or pre-encoded bytes)
#: or raises `RpcError`. If cancelled by `$/cancel_request` it may still return a result (a
#: permission handler answers `cancelled`); if it lets the cancellation through, -32800 is sent.
RequestHandler = Callable[[Request], Awaitable[Any]]
#: Applies one notification's raw params, synchronously.
NotificationHandler = Callable[[msgspec.Raw], None]


class _Batch:
    """Collects the answers to one received batch and sends them as one array when all are in."""

    __slots__ = ("frames", "waiting")

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.waiting = 0


class Connection:
    """A JSON-RPC 2.0 peer over a `Transport`."""

    def __init__(
        self,
        transport: Transport,
        *,
        on_problem: Callable[[WireProblem], None] | None = None,
        on_close: Callable[[ExitInfo], None] | None = None,
        trace: TraceSink | None = None,
        max_line: int = MAX_LINE_BYTES,
    ) -> None:
        self._transport = transport
        self._max_line = max_line
        self._on_problem = on_problem
        self._on_close = on_close
        self.trace = trace
        self._framer = LineFramer(max_line, self._on_oversized)
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[msgspec.Raw]] = {}
        #: the method of each pending request, to tell our own request coming back (an echo)
        self._pending_methods: dict[int, str] = {}
        self._answered: set[RequestId] = set()
        self._abandoned: set[RequestId] = set()
        self._incoming: dict[RequestId, asyncio.Task[Any]] = {}
        self._request_handlers: dict[str, RequestHandler] = {}
        self._notification_handlers: dict[str, NotificationHandler] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._exit: ExitInfo | None = None
        self._closed = False
        self._closed_event = asyncio.Event()
        self._started = False

    # -- setup -------------------------------------------------------------------------

    def on_request(self, method: str, handler: RequestHandler) -> None:
        """Answer agent requests for `method` with `handler` (unregistered methods get -32601)."""
        self._request_handlers[method] = handler

    def on_notification(self, method: str, handler: NotificationHandler) -> None:
        """Deliver notifications for `method` to `handler`, in receive order."""
        self._notification_handlers[method] = handler

    def start(self) -> None:
        """Begin reading the agent's output; call once, after registering handlers."""
        if self._started:
            raise RuntimeError("connection already started")
        self._started = True
        self._transport.start_reading(self._on_data, self._on_transport_closed)

    @property
    def closed(self) -> bool:
        """True once the agent's side has ended."""
        return self._closed

    @property
    def exit_info(self) -> ExitInfo | None:
        """How the agent ended, once it has."""
        return self._exit

    async def settle_incoming(self, timeout: float) -> None:
        """Wait (at most `timeout` s) for the agent's requests being answered now to have their answers sent."""
        tasks = [task for task in self._incoming.values() if not task.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def wait_closed(self) -> ExitInfo | None:
        """Wait until the agent's side has ended."""
        await self._closed_event.wait()
        return self._exit

    # -- outgoing ----------------------------------------------------------------------

    def reserve_id(self) -> int:
        """A fresh request id, for callers that must name a request before sending it."""
        return next(self._ids)

    async def request(self, method: str, params: Any = UNSET, *, request_id: int | None = None) -> msgspec.Raw:
        """Send a request and wait for its result (raw JSON); raises `RpcError` or `ConnectionClosed`.

        `request_id` is one from `reserve_id()`, else a fresh one is used. Cancelling the awaiting
        task sends `$/cancel_request` for it; its late answer is dropped.
        """
        if self._closed:
            raise ConnectionClosed(self._exit)
        if request_id is None:
            request_id = next(self._ids)
        try:
            frame = encode_request(request_id, method, params)
        except UnicodeEncodeError as exc:
            # text that is no Unicode (a lone surrogate: bytes that were no UTF-8, e.g. in a file name) cannot be
            # JSON: the request fails here like one the agent refused, instead of an exception nobody awaits
            raise RpcError(
                INVALID_PARAMS, f"not sent: the {method} request holds text that is no valid UTF-8 ({exc.reason})"
            ) from None
        future: asyncio.Future[msgspec.Raw] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._pending_methods[request_id] = method
        try:
            await self._send(frame)
            return await future
        except asyncio.CancelledError:
            self._pending_methods.pop(request_id, None)
            if self._pending.pop(request_id, None) is not None and not self._closed:
                self._abandoned.add(request_id)
                # quietly: the agent may be gone by the time it is sent (a stop after a cancel the agent
                # ignored), and a task's exception nobody retrieves is a traceback on stderr at exit
                self._spawn(self._send_quietly(encode_notification(CANCEL_REQUEST_METHOD, {"requestId": request_id})))
            raise
        except AgentNotRunning:
            self._pending.pop(request_id, None)
            await self._closed_event.wait()
            raise ConnectionClosed(self._exit) from None

    async def notify(self, method: str, params: Any = UNSET) -> None:
        """Send a notification; raises `ConnectionClosed` if the agent is gone."""
        if self._closed:
            raise ConnectionClosed(self._exit)
        try:
            await self._send(encode_notification(method, params))
        except AgentNotRunning:
            raise ConnectionClosed(self._exit) from None

    async def _send(self, frame: bytes) -> None:
        if self.trace is not None:
            self.trace.record("->", frame)
        await self._transport.write(frame + b"\n")

    # -- incoming ----------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        for line in self._framer.feed(data):
            try:
                self._on_line(line)
            except Exception as exc:  # noqa: BLE001 - one line must never stop the reader
                self._problem(f"could not handle a line from the agent: {exc.__class__.__name__}: {exc}", line)

    def _on_line(self, line: bytes) -> None:
        if self.trace is not None:
            try:
                self.trace.record("<-", line)
            except Exception as exc:  # noqa: BLE001 - a line the trace cannot write is still answered
                self._problem(f"could not trace a line: {exc.__class__.__name__}: {exc}", line)
        decoded = decode_frame(line)
        if isinstance(decoded, list):
            self._on_batch(decoded, line)
        elif isinstance(decoded, FrameError):
            self._on_frame_error(decoded)
        else:
            self._dispatch(decoded, line, None)

    def _on_frame_error(self, error: FrameError) -> None:
        self._problem(error.reason, error.raw)
        if error.reason == "empty batch array":
            self._spawn(self._send_quietly(encode_error(None, INVALID_REQUEST, "Invalid Request: empty batch")))
            return
        frames = self._refuse(error)
        if frames:
            batch = error.raw.lstrip()[:1] == b"["
            self._answer(encode_batch(frames) if batch else frames[0], None)

    def _on_oversized(self, head: bytes, size: int) -> None:
        """A line dropped for its length (the framer kept its first bytes): a problem, and an answer to a request."""
        try:
            if self.trace is not None:
                self.trace.record("event", {"oversized_line": size})
            self._on_frame_error(oversized_frame(head, size, self._max_line))
        except Exception as exc:  # noqa: BLE001 - one line must never stop the reader
            self._problem(f"could not handle an oversized line: {exc.__class__.__name__}: {exc}", head)

    def _on_batch(self, entries: list[Message | FrameError], line: bytes) -> None:
        batch = _Batch()
        for entry in entries:
            if isinstance(entry, FrameError):
                self._problem(f"batch entry: {entry.reason}", entry.raw)
                batch.frames.extend(self._refuse(entry) or [encode_error(None, INVALID_REQUEST, "Invalid Request")])
            else:
                self._dispatch(entry, line, batch)
        if batch.waiting == 0 and batch.frames:
            self._spawn(self._send_quietly(encode_batch(batch.frames)))

    def _dispatch(self, message: Message, line: bytes, batch: _Batch | None) -> None:
        if isinstance(message, Notification):
            self._on_notification(message, line)
        elif isinstance(message, Request):
            self._on_request(message, line, batch)
        elif isinstance(message, Response):
            future = self._take_pending(message.id, line)
            if future is not None:
                future.set_result(message.result)
        elif isinstance(message, ErrorResponse):
            if message.id is None:
                self._problem(f"error from agent: {message.error.message} ({message.error.code})", line)
                return
            future = self._take_pending(message.id, line)
            if future is not None:
                future.set_exception(RpcError.from_object(message.error))

    def _refuse(self, error: FrameError) -> list[bytes]:
        """The error answers to the requests of a line we could not use; its answers fail their requests."""
        frames: list[bytes] = []
        reason = error.reason if len(error.reason) <= _REASON_MAX else error.reason[:_REASON_MAX] + "…"
        for found in error.salvaged:
            if found.is_request:
                request_id = found.request_id if found.has_id else None
                frames.append(encode_error(request_id, error.code, f"{_ERROR_NAMES[error.code]}: {reason}"))
            elif found.is_response and isinstance(found.request_id, int):
                future = self._pending.pop(found.request_id, None)
                self._pending_methods.pop(found.request_id, None)
                if future is not None:
                    self._answered.add(found.request_id)
                    if not future.done():
                        future.set_exception(RpcError(error.code, f"the agent's answer could not be read: {reason}"))
        return frames

    def _take_pending(self, request_id: RequestId, line: bytes) -> asyncio.Future[msgspec.Raw] | None:
        future = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if isinstance(request_id, int):
            self._pending_methods.pop(request_id, None)
        if future is None:
            if request_id in self._abandoned:
                self._abandoned.discard(request_id)
            elif request_id in self._answered:
                self._problem(f"second response to request {request_id!r}", line)
            else:
                self._problem(f"response to unknown request id {request_id!r}", line)
            return None
        self._answered.add(request_id)
        if future.done():
            return None
        return future

    def _on_notification(self, message: Notification, line: bytes) -> None:
        handler = self._notification_handlers.get(message.method)
        if handler is not None:
            try:
                handler(message.params)
            except Exception as exc:  # noqa: BLE001 - a bad handler must not stop the reader
                self._problem(f"{message.method}: {exc.__class__.__name__}: {exc}", line)
            return
        if message.method == CANCEL_REQUEST_METHOD:
            self._on_cancel_request(message.params, line)
        elif message.method.startswith("_"):
            if self.trace is not None:
                self.trace.record("event", {"ignored": message.method})
        else:
            self._problem(f"unknown notification {message.method!r} ignored", line)

    def _on_cancel_request(self, params: msgspec.Raw, line: bytes) -> None:
        try:
            request_id = msgspec.json.decode(params, type=_CancelParams).request_id
        except msgspec.DecodeError as exc:
            self._problem(f"malformed $/cancel_request: {exc}", line)
            return
        task = self._incoming.get(request_id)
        if task is not None and not task.done():
            # Queued behind the task's first step, so the handler has started (and can answer
            # with a result of its choosing) even when the cancel arrives in the same read.
            asyncio.get_running_loop().call_soon(task.cancel)

    def _on_request(self, message: Request, line: bytes, batch: _Batch | None) -> None:
        if self._not_an_agent(message, line):
            return
        handler = self._request_handlers.get(message.method)
        if handler is None:
            if not message.method.startswith("_"):  # `_` methods are extensions, legitimately unknown
                self._problem(f"unknown request {message.method!r} answered Method not found", line)
            frame = encode_error(message.id, METHOD_NOT_FOUND, f"Method not found: {message.method}")
            self._answer(frame, batch)
            return
        if message.id in self._incoming:
            self._problem(f"duplicate request id {message.id!r} while the first is pending", line)
            self._answer(encode_error(message.id, INVALID_REQUEST, "Duplicate request id"), batch)
            return
        task = asyncio.get_running_loop().create_task(self._run_handler(handler, message))
        self._incoming[message.id] = task
        if batch is not None:
            batch.waiting += 1

        def finished(done: asyncio.Task[bytes | None]) -> None:
            if self._incoming.get(message.id) is task:
                del self._incoming[message.id]
            frame = None if done.cancelled() else done.result()
            if frame is None:
                return
            if batch is None:
                self._answer(frame, None)
                return
            batch.frames.append(frame)
            batch.waiting -= 1
            if batch.waiting == 0:
                self._answer(encode_batch(batch.frames), None)

        task.add_done_callback(finished)

    def _not_an_agent(self, message: Request, line: bytes) -> bool:
        """Is this request one of ours coming back (`cat` echoes its input), or `initialize` (a client's
        first request; no agent sends it)? Then no agent is there: say so, fail every request we wait
        for with that explanation, and answer nothing (an echoing peer would echo the answer back as
        the reply to our own request: "Method not found" for `initialize`)."""
        request_id = message.id
        echoed = isinstance(request_id, int) and self._pending_methods.get(request_id) == message.method
        if not echoed and message.method != "initialize":
            return False
        if echoed:
            reason = f"the agent echoed our {message.method} request back, as cat does — is this an ACP agent?"
        else:
            reason = "the agent sent us an initialize request, as a client does — is this an ACP agent?"
        self._problem(reason, line)
        pending, self._pending = self._pending, {}
        self._pending_methods.clear()
        for pending_id, future in pending.items():
            self._abandoned.add(pending_id)  # a late answer is dropped quietly
            if not future.done():
                future.set_exception(NotAnAgent(reason))
        return True

    async def _run_handler(self, handler: RequestHandler, message: Request) -> bytes | None:
        """Run one handler to its single answer frame (`None` once the agent is gone)."""
        try:
            result = await handler(message)
        except RpcError as exc:
            frame = encode_error(message.id, exc.code, exc.message, exc.data)
        except asyncio.CancelledError:
            if self._closed:
                return None
            frame = encode_error(message.id, REQUEST_CANCELLED, "Request cancelled")
        except Exception as exc:  # noqa: BLE001 - every request gets exactly one answer, even from a broken handler
            self._problem(f"{message.method} handler failed: {exc.__class__.__name__}: {exc}", b"")
            frame = encode_error(message.id, INTERNAL_ERROR, f"Internal error: {exc.__class__.__name__}")
        else:
            try:
                frame = encode_response(message.id, result)
            except (TypeError, msgspec.EncodeError) as exc:
                self._problem(f"{message.method} result could not be encoded: {exc}", b"")
                frame = encode_error(message.id, INTERNAL_ERROR, "Internal error: unencodable result")
        return None if self._closed else frame

    def _answer(self, frame: bytes, batch: _Batch | None) -> None:
        if batch is not None:
            batch.frames.append(frame)
        else:
            self._spawn(self._send_quietly(frame))

    async def _send_quietly(self, frame: bytes) -> None:
        """Send an answer; if the agent is gone the exit event already says so."""
        if self._closed:
            return
        try:
            await self._send(frame)
        except AgentNotRunning:
            pass

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _problem(self, reason: str, raw: bytes) -> None:
        if self.trace is not None:
            self.trace.record("event", {"problem": reason})
        if self._on_problem is not None:
            try:
                self._on_problem(WireProblem(reason, raw))
            except Exception as exc:  # noqa: BLE001 - reporting a problem must not stop the reader either
                if self.trace is not None:
                    self.trace.record("event", {"problem_report_failed": f"{exc.__class__.__name__}: {exc}"})

    # -- end ---------------------------------------------------------------------------

    def _on_transport_closed(self, info: ExitInfo) -> None:
        for line in self._framer.finish():
            self._on_line(line)
        self._closed = True
        self._exit = info
        if self.trace is not None:
            self.trace.record("event", {"exit": info.describe(), "code": info.code, "signal": info.signal})
        pending, self._pending = self._pending, {}
        self._pending_methods.clear()
        for future in pending.values():
            if not future.done():
                future.set_exception(ConnectionClosed(info))
        for task in list(self._incoming.values()):
            task.cancel()
        self._closed_event.set()
        if self._on_close is not None:
            self._on_close(info)


#: How much of a decode failure's reason goes into the error answer.
_REASON_MAX = 300
_ERROR_NAMES = {PARSE_ERROR: "Parse error", INVALID_PARAMS: "Invalid params", INVALID_REQUEST: "Invalid Request"}


class _CancelParams(msgspec.Struct, rename="camel"):
    request_id: int | str | None


__all__ = [
    "ConnectionClosed",
    "Connection",
    "NotAnAgent",
    "NotificationHandler",
    "WireProblem",
    "RequestHandler",
    "RpcError",
    "Transport",
]
