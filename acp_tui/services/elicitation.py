"""The elicitation service: the agent asks the user a structured question, or sends them to a URL.

docs/protocol.md §10.1 (public page "Elicitation"). Advertises `elicitation.form` and `.url` (the
same fragment in v2 `capabilities` and v1 `clientCapabilities`), answers `elicitation/create` and
follows `elicitation/complete`. The question itself goes to an `ElicitationAsker` (the chat screen's
dialogs, a headless policy, a test script), which never sees the wire.

Where the rest of it lives (docs/architecture.md, "Where a capability lives"): the wire types in
`protocol/elicitation.py`; the form and URL rules beside this module (`elicitation_form.py`,
`elicitation_url.py`, pure); the dialogs in `ui/dialogs/elicitation_{form,url,refused}.py`, opened by
`ui/chat/elicitation_asker.py`.

**Exactly one answer per request.** Each request is one handler task (the connection writes its
single answer when the task ends). The handler waits on one future that the first of these settles:
the asker's outcome, `turn_cancelled()` (`cancel`), `close()` (`cancel`), an `elicitation/complete`
for a URL nobody answered yet (`cancel`), or the handler's own cancellation by the agent's
`$/cancel_request` (`cancel`). Whatever settles it, the asker's task is then cancelled, which
withdraws its dialog. A form answer is checked against the schema again before it is sent
(`check_content`), so an asker bug becomes `cancel` plus a noted problem, never an invalid answer.

**Refusals.** An unadvertised or unknown mode, a malformed request and a schema this client cannot
render (unknown field types, nesting, no choices) get JSON-RPC `-32602` with the reasons. The first
two are the agent's fault and reported as protocol problems; a schema we cannot render is kept in
`refused` (with the raw request, for "show raw") and handed to `ElicitationAsker.elicitation_refused`,
so the user learns that a question went unanswered.

**Duplicate ids.** A URL request whose `elicitationId` is still open (asked, or accepted and waiting for its
completion) is refused with `-32602` and a noted problem; `elicitation/complete` ends exactly the one
flow it names.

**URL mode.** `accept` means "the user agreed to open it", not that the flow finished: the question
then waits in `waiting` until `elicitation/complete` names it, the turn is cancelled or the
connection ends; its `done` event is set then (and at once for any other answer). A completion for
an id we never saw is a noted protocol problem; one for an id already finished is ignored.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, NoReturn, Protocol, TypeAlias

import msgspec

from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.elicitation import (
    CreateElicitationResponse,
    ElicitationRequestScope,
    ElicitationScope,
    ElicitationSessionScope,
    FormElicitation,
    UnknownElicitation,
    UrlElicitation,
    accept,
    cancel,
    client_capabilities,
    decline,
    decode_complete,
    decode_create,
)
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, Request, RpcError
from acp_tui.sanitize import multiline
from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler, ServiceNotificationHandler
from acp_tui.services.elicitation_form import ContentValue, FormModel, Unrenderable, build_form, check_content
from acp_tui.services.elicitation_url import UrlView, describe_url

__all__ = [
    "Cancelled",
    "Declined",
    "ElicitationAsker",
    "ElicitationService",
    "FormAccepted",
    "FormOutcome",
    "FormQuestion",
    "RefusedElicitation",
    "UrlAccepted",
    "UrlOutcome",
    "UrlQuestion",
]

#: How many refused requests are kept for "show raw".
KEEP_REFUSED: Final = 20
#: How many finished URL elicitation ids are remembered, so a late `elicitation/complete` stays quiet.
KEEP_FINISHED: Final = 256


# --- what the asker gets and gives -----------------------------------------------------------------------


class FormAccepted(msgspec.Struct, frozen=True):
    """The user filled in the form; `content` maps property names to values (checked again before sending)."""

    content: Mapping[str, ContentValue]


class UrlAccepted(msgspec.Struct, frozen=True):
    """The user agreed to go to the URL: it was opened in the browser, or copied to open elsewhere."""

    how: Literal["open", "copy"] = "open"


class Declined(msgspec.Struct, frozen=True):
    """The user said no."""


class Cancelled(msgspec.Struct, frozen=True):
    """No answer from the user: dismissed, withdrawn by the agent, the turn was cancelled, the agent stopped."""

    reason: str = "dismissed"


FormOutcome: TypeAlias = FormAccepted | Declined | Cancelled
UrlOutcome: TypeAlias = UrlAccepted | Declined | Cancelled


class FormQuestion(msgspec.Struct, frozen=True):
    """A form to fill in. Every text in `form` and `message` is already sanitised; show it as plain text."""

    #: the JSON-RPC id of the request (unique while it is pending)
    request_id: int | str
    message: str
    form: FormModel
    scope: ElicitationScope
    #: the negotiated protocol version
    version: int
    #: the request's params exactly as received (for "show raw")
    raw: bytes

    @property
    def tool_call_id(self) -> str | None:
        """The tool call it belongs to (show it in or beside that card), if any."""
        return _tool_call_id(self.scope)

    @property
    def before_session(self) -> bool:
        """Tied to a pending request (e.g. a login) rather than a session."""
        return isinstance(self.scope, ElicitationRequestScope)


@dataclass(eq=False, slots=True)
class UrlQuestion:
    """A URL to send the user to. Show `view` (never `url` itself: it is the agent's raw text)."""

    request_id: int | str
    message: str
    #: exactly as the agent sent it: what "open" and "copy" use
    url: str
    view: UrlView
    elicitation_id: str
    scope: ElicitationScope
    version: int
    raw: bytes
    #: set once nothing more will happen: answered other than `accept`, completed, cancelled, closed
    done: asyncio.Event = field(default_factory=asyncio.Event)
    #: True once the agent said the flow finished (`elicitation/complete`)
    completed: bool = False

    @property
    def tool_call_id(self) -> str | None:
        return _tool_call_id(self.scope)

    @property
    def before_session(self) -> bool:
        return isinstance(self.scope, ElicitationRequestScope)


class RefusedElicitation(msgspec.Struct, frozen=True):
    """A form this client could not show, answered -32602; kept with the raw request for "show raw"."""

    request_id: int | str
    message: str
    #: why, one reason per problem (property names and types as the agent sent them: sanitise to show)
    reasons: tuple[str, ...]
    scope: ElicitationScope
    raw: bytes


class ElicitationAsker(Protocol):
    """Asks the user. Cancelling an `ask_*` call withdraws the question (close its dialog, return nothing)."""

    async def ask_form(self, question: FormQuestion) -> FormOutcome:
        """Show the form; return what the user did."""
        ...

    async def ask_url(self, question: UrlQuestion) -> UrlOutcome:
        """Show the URL; open or copy it only on the user's say-so; return what the user did."""
        ...

    def elicitation_refused(self, refusal: RefusedElicitation) -> None:
        """A question could not be shown (already answered); tell the user, offer the raw request."""
        ...


def _tool_call_id(scope: ElicitationScope) -> str | None:
    if isinstance(scope, ElicitationSessionScope) and isinstance(scope.tool_call_id, str):
        return scope.tool_call_id
    return None


# --- the service ------------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class _Open:
    """A question being asked: the future its answer settles, and the asker's task."""

    question: FormQuestion | UrlQuestion
    decided: asyncio.Future[FormOutcome | UrlOutcome]
    asking: asyncio.Task[None] | None = None


class ElicitationService:
    """Answers `elicitation/create` through an `ElicitationAsker`; follows `elicitation/complete`."""

    name = "elicitation"

    def __init__(self, asker: ElicitationAsker, *, form: bool = True, url: bool = True) -> None:
        self._asker = asker
        self._form = form
        self._url = url
        self._context: ServiceContext | None = None
        self._open: dict[int | str, _Open] = {}
        self._waiting: dict[str, UrlQuestion] = {}
        self._finished: collections.deque[str] = collections.deque(maxlen=KEEP_FINISHED)
        #: the most recent forms this client could not show (oldest first)
        self.refused: collections.deque[RefusedElicitation] = collections.deque(maxlen=KEEP_REFUSED)

    # -- ClientService ------------------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        fragment = client_capabilities(form=self._form, url=self._url)
        return Capabilities(v2=fragment, v1=fragment)

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {"elicitation/create": self._on_create}

    def notifications(self) -> Mapping[str, ServiceNotificationHandler]:
        return {"elicitation/complete": self._on_complete}

    def bind(self, context: ServiceContext) -> None:
        self._context = context
        self._finished.clear()

    def turn_cancelled(self) -> None:
        """Cancel the session's open questions and waiting URLs; questions before a session stay."""
        for entry in list(self._open.values()):
            if not entry.question.before_session:
                self._settle(entry, Cancelled("the turn was cancelled"))
        for elicitation_id, question in list(self._waiting.items()):
            if not question.before_session:
                self._finish_waiting(elicitation_id)

    async def close(self) -> None:
        entries = list(self._open.values())
        for entry in entries:
            self._settle(entry, Cancelled("the agent stopped"))
        for elicitation_id in list(self._waiting):
            self._finish_waiting(elicitation_id)
        asking = [entry.asking for entry in entries if entry.asking is not None and not entry.asking.done()]
        for task in asking:
            task.cancel()
        if asking:
            await asyncio.wait(asking, timeout=1.0)

    # -- state for the UI -------------------------------------------------------------------------------

    @property
    def waiting(self) -> Mapping[str, UrlQuestion]:
        """Accepted URLs whose flow has not completed yet, by elicitation id."""
        return dict(self._waiting)

    @property
    def asking(self) -> list[FormQuestion | UrlQuestion]:
        """The questions open right now, oldest first."""
        return [entry.question for entry in self._open.values()]

    # -- elicitation/create --------------------------------------------------------------------------

    async def _on_create(self, request: Request) -> CreateElicitationResponse:
        context = self._context
        raw = bytes(request.params)
        if context is None:
            raise RpcError(INVALID_REQUEST, "Invalid Request: elicitation before initialize")
        if request.id is None:  # ACP forbids a null id; nothing could name or cancel this one
            context.report("elicitation/create with a null id", raw)
            raise RpcError(INVALID_REQUEST, "Invalid Request: null id")
        try:
            decoded = decode_create(raw, context.version)
        except MalformedMessage as exc:
            context.report(f"malformed elicitation/create: {exc.reason}", raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc.reason}") from None
        match decoded:
            case UnknownElicitation(mode=mode):
                self._unadvertised(context, mode, raw)
            case FormElicitation():
                if not self._form:
                    self._unadvertised(context, "form", raw)
                self._check_session(context, decoded.scope, raw)
                return await self._ask_form(request.id, decoded, raw, context)
            case UrlElicitation():
                if not self._url:
                    self._unadvertised(context, "url", raw)
                self._check_session(context, decoded.scope, raw)
                self._check_unique(context, decoded.elicitation_id, raw)
                return await self._ask_url(request.id, decoded, raw, context)

    def _unadvertised(self, context: ServiceContext, mode: str, raw: bytes) -> NoReturn:
        """An unadvertised mode is answered -32602 (docs/protocol.md §1.3, §10.1)."""
        context.report(f"elicitation/create in mode {mode!r}, which this client does not advertise", raw)
        raise RpcError(INVALID_PARAMS, f"Invalid params: elicitation mode {mode!r} is not supported")

    def _check_session(self, context: ServiceContext, scope: ElicitationScope, raw: bytes) -> None:
        if not isinstance(scope, ElicitationSessionScope):
            return
        current = context.session_id()
        if current is not None and scope.session_id != current:  # None: session/new has not answered yet
            context.report(f"elicitation/create for unknown session {scope.session_id!r}", raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: unknown session {scope.session_id!r}")

    def _check_unique(self, context: ServiceContext, elicitation_id: str, raw: bytes) -> None:
        """An `elicitationId` already being asked or waiting for its `elicitation/complete` is refused: the
        completion could not say which of the two it ends (docs/protocol.md §10.1: the id names one flow)."""
        if elicitation_id in self._waiting or any(
            isinstance(entry.question, UrlQuestion) and entry.question.elicitation_id == elicitation_id
            for entry in self._open.values()
        ):
            context.report(f"elicitation/create with duplicate elicitation id {elicitation_id!r}", raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: elicitation id {elicitation_id!r} is already in use")

    async def _ask_form(
        self, request_id: int | str, request: FormElicitation, raw: bytes, context: ServiceContext
    ) -> CreateElicitationResponse:
        form = build_form(request.requested_schema)
        message = multiline(request.message)
        if isinstance(form, Unrenderable):
            self._refuse(RefusedElicitation(request_id, message, form.reasons, request.scope, raw), context)
            raise RpcError(
                INVALID_PARAMS,
                "Invalid params: this client cannot show that form: " + "; ".join(form.reasons),
                {"unsupported": list(form.reasons)},
            )
        question = FormQuestion(request_id, message, form, request.scope, context.version, raw)
        outcome = await self._ask(request_id, question, lambda: self._asker.ask_form(question))
        match outcome:
            case FormAccepted(content=content):
                problems = check_content(form, content)
                if problems:
                    context.report(f"the form answer does not match its schema: {'; '.join(problems)}", b"")
                    return cancel()
                return accept(dict(content))
            case Declined():
                return decline()
            case Cancelled():
                return cancel()
            case UrlAccepted():
                context.report("the asker answered a form with a URL outcome", b"")
                return cancel()

    async def _ask_url(
        self, request_id: int | str, request: UrlElicitation, raw: bytes, context: ServiceContext
    ) -> CreateElicitationResponse:
        question = UrlQuestion(
            request_id,
            multiline(request.message),
            request.url,
            describe_url(request.url),
            request.elicitation_id,
            request.scope,
            context.version,
            raw,
        )
        outcome = await self._ask(request_id, question, lambda: self._asker.ask_url(question))
        match outcome:
            case UrlAccepted():
                if question.completed:  # completed while the answer was on its way
                    self._finish(question)
                else:
                    self._waiting[question.elicitation_id] = question
                return accept()
            case Declined():
                self._finish(question)
                return decline()
            case Cancelled():
                self._finish(question)
                return cancel()
            case FormAccepted():
                context.report("the asker answered a URL with a form outcome", b"")
                self._finish(question)
                return cancel()

    async def _ask(
        self,
        key: int | str,
        question: FormQuestion | UrlQuestion,
        ask: Callable[[], Awaitable[FormOutcome | UrlOutcome]],
    ) -> FormOutcome | UrlOutcome:
        """The first outcome of: the asker, a turn cancel, close, the handler's own cancellation."""
        loop = asyncio.get_running_loop()
        entry = _Open(question, loop.create_future())
        self._open[key] = entry
        entry.asking = loop.create_task(self._run_asker(entry, ask), name=f"elicitation-{key}")
        try:
            return await entry.decided
        except asyncio.CancelledError:
            # The agent withdrew it ($/cancel_request) or went away: answer `cancel`, once.
            return Cancelled("withdrawn by the agent")
        finally:
            self._open.pop(key, None)
            if not entry.asking.done():
                entry.asking.cancel()

    async def _run_asker(self, entry: _Open, ask: Callable[[], Awaitable[FormOutcome | UrlOutcome]]) -> None:
        try:
            outcome = await ask()
        except asyncio.CancelledError:
            outcome = Cancelled("withdrawn")
        except Exception as exc:  # noqa: BLE001 - a broken dialog must still give the agent its one answer
            if self._context is not None:
                self._context.report(f"asking the user failed: {exc.__class__.__name__}: {exc}", b"")
            outcome = Cancelled("the question could not be shown")
        self._settle(entry, outcome)

    def _settle(self, entry: _Open, outcome: FormOutcome | UrlOutcome) -> None:
        if not entry.decided.done():
            entry.decided.set_result(outcome)

    def _refuse(self, refusal: RefusedElicitation, context: ServiceContext) -> None:
        self.refused.append(refusal)
        try:
            self._asker.elicitation_refused(refusal)
        except Exception as exc:  # noqa: BLE001 - telling the user is best effort; the answer stands
            context.report(f"showing a refused elicitation failed: {exc.__class__.__name__}: {exc}", refusal.raw)

    # -- URL flows ----------------------------------------------------------------------------------------

    def _finish(self, question: UrlQuestion) -> None:
        self._finished.append(question.elicitation_id)
        question.done.set()

    def _finish_waiting(self, elicitation_id: str) -> None:
        question = self._waiting.pop(elicitation_id, None)
        if question is not None:
            self._finish(question)

    def _on_complete(self, params: msgspec.Raw) -> None:
        """`elicitation/complete`: close the waiting URL state; an unknown id is only noted."""
        context = self._context
        if context is None:
            return
        raw = bytes(params)
        try:
            elicitation_id = decode_complete(raw).elicitation_id
        except MalformedMessage as exc:
            context.report(f"malformed elicitation/complete: {exc.reason}", raw)
            return
        question = self._waiting.get(elicitation_id)
        if question is not None:
            question.completed = True
            self._finish_waiting(elicitation_id)
            return
        for entry in self._open.values():
            if isinstance(entry.question, UrlQuestion) and entry.question.elicitation_id == elicitation_id:
                # Finished before the user answered: nothing left to consent to.
                entry.question.completed = True
                self._settle(entry, Cancelled("the agent completed it before you answered"))
                return
        if elicitation_id not in self._finished:
            context.report(f"elicitation/complete for unknown elicitation id {elicitation_id!r}", raw)
