"""The permission service: `session/request_permission`, asked one at a time, answered exactly once.

Requests are shown in arrival order, one dialog at a time; the rest wait in this service's queue (the
asker is told how many). Every request is answered exactly once (docs/protocol.md §8): with the option
the user chose, or `cancelled` when the user dismisses it, cancels the turn (docs/protocol.md §9.3),
the agent withdraws it (`$/cancel_request`) or the connection ends. An answer that names an option
not shown is a protocol problem of ours and is sent as `cancelled`.

What is asked is bounded here, before anything shows it (`bound_request`): at most `MAX_OPTIONS` options
(the rest are counted, "… N more options", and can never be chosen: the options shown are exactly the
ones that may be answered), names cut at `MAX_OPTION_NAME` characters, the title at `MAX_TITLE`.

A request may name an announced tool call by its id alone (v1 `toolCall` with just `toolCallId`, a v2
`tool_call` subject, a v2 `command` subject's `toolCallId`): the question carries that call as the model
knows it once the request's own fields are applied (`PermissionQuestion.call`: title, kind, locations,
diff), so the dialog always shows what it approves; an id never announced, with nothing in the request to
describe it, is `unknown_call`, which the dialog says plainly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import msgspec
from msgspec import UNSET

from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, Request, RpcError
from acp_tui.protocol.methods import (
    CommandPermissionSubject,
    RequestPermissionRequest,
    ToolCallPermissionSubject,
)
from acp_tui.protocol.v2 import ToolCallUpdate
from acp_tui.sanitize import cut
from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler
from acp_tui.session.model import ToolCall

CANCELLED = "cancelled"

#: why a question was taken back from the user before they answered
TURN_CANCELLED = "the turn was cancelled"
AGENT_STOPPED = "the agent stopped"
AGENT_WITHDREW = "the agent withdrew its request"

#: Options a request shows (and may be answered with; as many as the dialog's number keys, 1-9); the rest
#: are counted as "… N more options".
MAX_OPTIONS: Final = 9
#: An option's name is cut here (as a login method's is).
MAX_OPTION_NAME: Final = 200
#: A request's title is cut here.
MAX_TITLE: Final = 1_000


def bound_request(request: RequestPermissionRequest) -> tuple[RequestPermissionRequest, int]:
    """`request` as it is asked: at most `MAX_OPTIONS` options with names cut, the title cut; with how many
    options were left out. Option ids are kept as sent, so an answer names exactly an option the agent gave."""
    options = request.options
    more = max(0, len(options) - MAX_OPTIONS)
    kept = [
        option
        if len(option.name) <= MAX_OPTION_NAME
        else msgspec.structs.replace(option, name=cut(option.name, MAX_OPTION_NAME, "name"))
        for option in options[:MAX_OPTIONS]
    ]
    return msgspec.structs.replace(request, options=kept, title=cut(request.title, MAX_TITLE, "title")), more


def named_call_id(request: RequestPermissionRequest) -> str | None:
    """The tool call a request is about, by its id (a `tool_call` subject, or a `command` subject's)."""
    subject = request.subject
    if isinstance(subject, ToolCallPermissionSubject):
        return subject.tool_call.tool_call_id
    if isinstance(subject, CommandPermissionSubject) and isinstance(subject.tool_call_id, str):
        return subject.tool_call_id
    return None


def _describes(request: RequestPermissionRequest) -> bool:
    """Does the request itself say what its tool call does (anything beyond the id)?"""
    subject = request.subject
    if isinstance(subject, CommandPermissionSubject):
        return True  # the command is what runs
    if not isinstance(subject, ToolCallPermissionSubject):
        return False
    call = subject.tool_call
    return any(
        value not in (UNSET, None, "", []) for value in (call.title, call.content, call.locations, call.raw_input)
    )


def shown_call(call: ToolCall) -> ToolCallUpdate:
    """The model's tool call as the full patch a dialog draws (title, kind, content, locations, input)."""
    return ToolCallUpdate(
        tool_call_id=call.tool_call_id,
        title=call.title if call.title is not None else UNSET,
        kind=call.kind,
        status=call.status,
        content=list(call.content),
        locations=list(call.locations),
        raw_input=call.raw_input if call.raw_input is not None else UNSET,
    )


@dataclass(eq=False, slots=True)
class PermissionQuestion:
    """One permission request put to the user (always v2-shaped; v1 is translated in the core)."""

    request_id: int | str
    request: RequestPermissionRequest
    #: set before the ask is cancelled: why the question went away unanswered
    closed_because: str | None = field(default=None)
    #: the subagent that asks (a child session of this one, session/subagents.py); None: the agent itself
    subagent: str | None = field(default=None)
    #: the tool call it approves as the model knows it (announced fields and the request's own); None: none
    call: ToolCallUpdate | None = field(default=None)
    #: the id of the tool call it names when that call was never announced and the request describes nothing
    unknown_call: str | None = field(default=None)
    #: options the agent offered beyond those asked (`MAX_OPTIONS`): counted, never chosen
    more_options: int = field(default=0)


class PermissionAsker(Protocol):
    """How the user is asked; the screen implements it with a dialog, tests with a script."""

    async def ask_permission(self, question: PermissionQuestion) -> str | None:
        """The chosen option id, or None for "cancelled". Cancelled when the question is withdrawn."""
        ...

    def permissions_waiting(self, count: int) -> None:
        """How many further requests wait behind the one being asked (0 when none)."""
        ...


class PermissionService:
    """Answers `session/request_permission` through a `PermissionAsker`."""

    name = "permission"

    def __init__(self, asker: PermissionAsker) -> None:
        self.asker = asker
        self._context: ServiceContext | None = None
        self._open: dict[int | str, tuple[PermissionQuestion, asyncio.Future[str]]] = {}
        self._turn = asyncio.Lock()
        self._waiting = 0

    # -- ClientService -------------------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        return Capabilities()  # every client must answer permission requests: nothing to advertise

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {"session/request_permission": self._handle}

    def bind(self, context: ServiceContext) -> None:
        self._context = context

    def turn_cancelled(self) -> None:
        self._settle_all(TURN_CANCELLED)

    async def close(self) -> None:
        self._settle_all(AGENT_STOPPED)

    # -- answering -----------------------------------------------------------------------------------

    @property
    def open_count(self) -> int:
        """Requests not answered yet (the one asked and those waiting)."""
        return len(self._open)

    def _settle_all(self, reason: str) -> None:
        for question, future in list(self._open.values()):
            if not future.done():
                question.closed_because = reason
                future.set_result(CANCELLED)

    async def _handle(self, request: Request) -> dict[str, Any]:
        context = self._context
        assert context is not None and context.dialect is not None, "bound before the first request"
        dialect = context.dialect
        request_id = request.id
        if request_id is None:  # JSON-RPC allows a null id; ACP forbids it, and nothing could name this one
            context.report("permission request with a null id", bytes(request.params))
            raise RpcError(INVALID_REQUEST, "Invalid Request: null id")
        try:
            decoded = dialect.permission_request(bytes(request.params))
        except MalformedMessage as exc:
            context.report(f"malformed permission request: {exc.reason}", exc.raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc.reason}") from None
        if not context.owns_session(decoded.session_id):  # never answered for a session it is not
            context.report(f"permission request for unknown session {decoded.session_id[:200]!r}", b"")
            raise RpcError(INVALID_PARAMS, "Invalid params: unknown sessionId")
        decoded, more_options = bound_request(decoded)
        call_id = named_call_id(decoded)
        announced = call_id is not None and context.tool_call(decoded.session_id, call_id) is not None
        for item in dialect.permission_opened(request_id, decoded):
            context.apply(item)
        known = context.tool_call(decoded.session_id, call_id) if call_id is not None else None
        unknown = call_id is not None and not announced and not _describes(decoded)
        question = PermissionQuestion(
            request_id,
            decoded,
            subagent=context.subagent_name(decoded.session_id),
            call=shown_call(known) if known is not None and not unknown else None,
            unknown_call=call_id if unknown else None,
            more_options=more_options,
        )
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._open[request_id] = (question, future)
        asking = asyncio.get_running_loop().create_task(self._ask_in_turn(question, future))
        try:
            outcome = await future
        except asyncio.CancelledError:
            # The agent withdrew it ($/cancel_request) or the connection went away: answer cancelled, once.
            question.closed_because = question.closed_because or (
                AGENT_STOPPED if context.connection_closed() else AGENT_WITHDREW
            )
            outcome = CANCELLED
        finally:
            self._open.pop(request_id, None)
            if not asking.done():
                asking.cancel()
        offered = {option.option_id for option in decoded.options}
        if outcome != CANCELLED and outcome not in offered:
            context.report(f"permission answer {outcome!r} is not an offered option", b"")
            outcome = CANCELLED
        for item in dialect.permission_closed(request_id, outcome):
            context.apply(item)
        if outcome == CANCELLED:
            return {"outcome": {"outcome": "cancelled"}}
        return {"outcome": {"outcome": "selected", "optionId": outcome}}

    async def _ask_in_turn(self, question: PermissionQuestion, future: asyncio.Future[str]) -> None:
        """Wait for the dialog to be free, then ask; the answer resolves `future` unless it is settled."""
        self._set_waiting(self._waiting + 1)
        try:
            await self._turn.acquire()
        finally:
            self._set_waiting(self._waiting - 1)
        try:
            if future.done():
                return
            answer = await self.asker.ask_permission(question)
        finally:
            self._turn.release()
        if not future.done():
            future.set_result(answer if answer is not None else CANCELLED)

    def _set_waiting(self, count: int) -> None:
        self._waiting = max(count, 0)
        self.asker.permissions_waiting(self._waiting)


__all__ = [
    "MAX_OPTIONS",
    "MAX_OPTION_NAME",
    "MAX_TITLE",
    "bound_request",
    "named_call_id",
    "shown_call",
    "AGENT_STOPPED",
    "AGENT_WITHDREW",
    "CANCELLED",
    "PermissionAsker",
    "PermissionQuestion",
    "PermissionService",
    "TURN_CANCELLED",
]
