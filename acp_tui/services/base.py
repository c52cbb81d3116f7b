"""What a client service is: one capability the client offers the agent, and the requests it answers.

The session controller installs a set of services. Each declares the capability fragments it adds to
`initialize` (v2 `capabilities`, v1 `clientCapabilities`) and the agent→client methods it handles
(optionally also the notifications it follows: `NotifiedService`); a capability is advertised only
when its service is installed, and a method of a service that is not installed gets JSON-RPC -32601.
A service asks the user through a small UI-agnostic protocol of its own (an awaitable "ask" that the
chat screen implements with a dialog, a headless run with a policy, and the tests with a script);
cancelling the awaiting task withdraws the question.

Lifecycle: `bind(context)` once per agent connection (start and every restart), `turn_cancelled()`
when the user cancels the turn (`session/cancel`: pending questions are answered `cancelled`), and
`close()` when that connection ends (the agent exited, was restarted or the app quits): everything the
service started for the agent (processes, files, dialogs) is released there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import msgspec

from acp_tui.protocol.jsonrpc import Request
from acp_tui.protocol.methods import RequestPermissionRequest
from acp_tui.session.model import ToolCall
from acp_tui.session.reducer import ModelInput

#: Answers one agent→client request: returns the result (a msgspec Struct, a dict, or pre-encoded
#: bytes) or raises `acp_tui.agent.connection.RpcError`. Runs in its own task; if that task is
#: cancelled (the agent sent `$/cancel_request`, or the connection closed) the handler may still
#: return an answer (a question answers "cancelled"); if it lets the cancellation through, -32800 is sent.
ServiceHandler = Callable[[Request], Awaitable[Any]]
#: Handles one agent→client notification's raw params, synchronously, in receive order (never answered).
ServiceNotificationHandler = Callable[[msgspec.Raw], None]


class Capabilities(msgspec.Struct, frozen=True):
    """The fragments a service adds to `initialize`; deep-merged with every other service's.

    `v2` goes into `params.capabilities`, `v1` into `params.clientCapabilities` (the one hybrid
    `initialize` carries both; docs/protocol.md §2.1–§2.3).
    """

    v2: Mapping[str, Any] = msgspec.field(default_factory=dict)
    v1: Mapping[str, Any] = msgspec.field(default_factory=dict)


class SessionDialect(Protocol):
    """The negotiated version's translations a service needs (the agent layer's dialect object)."""

    @property
    def version(self) -> int:
        """The negotiated protocol version (1 or 2); read-only."""
        ...

    def permission_request(self, params: bytes) -> RequestPermissionRequest:
        """Decode `session/request_permission` params into the v2 shape (raises `MalformedMessage`)."""
        ...

    def permission_opened(self, request_id: int | str, request: RequestPermissionRequest) -> list[ModelInput]:
        """The model events for a permission request that arrived."""
        ...

    def permission_closed(self, request_id: int | str, outcome: str) -> list[ModelInput]:
        """The model events for its answer."""
        ...


class ServiceContext(msgspec.Struct, frozen=True):
    """What a service may use of the connection it serves (one per agent connection)."""

    #: the negotiated protocol version (1 or 2)
    version: int
    #: the session's working directory: absolute, symlinks resolved
    cwd: Path
    #: the current session id (None before `session/new` answers)
    session_id: Callable[[], str | None]
    #: feed a v2 session update or a local event (`acp_tui.session.local_events`) to the reducer; the UI
    #: renders the model changes it produces. Synchronous, same event loop.
    apply: Callable[[ModelInput], None]
    #: record a protocol problem: what the agent sent that could not be used, and the raw bytes
    report: Callable[[str, bytes], None]
    #: the negotiated `initialize` result's agent capabilities, as sent (for gating)
    agent_capabilities: Mapping[str, Any] = msgspec.field(default_factory=dict)
    #: the negotiated version's translations (v1 onto the v2 model)
    dialect: SessionDialect | None = None
    #: True once the agent's side of the connection has ended (its requests are then cancelled)
    connection_closed: Callable[[], bool] = lambda: False
    #: the session's extra folders the agent was given (ACP `additionalDirectories`): absolute, symlinks
    #: resolved; inside them is inside the session, as in `cwd`
    roots: tuple[Path, ...] = ()
    #: whether a request naming this session id is this connection's to answer (the session, a subagent)
    owns_session: Callable[[str], bool] = lambda _session_id: True
    #: the subagent's name when the session id is a subagent's (its questions are labelled with it), else None
    subagent_name: Callable[[str], str | None] = lambda _session_id: None
    #: the model's tool call a wire id names now in a session (the session's or a subagent's), else None
    tool_call: Callable[[str, str], ToolCall | None] = lambda _session_id, _tool_call_id: None
    #: send a request to the agent and wait for its raw result (raises as `Connection.request` does); None
    #: where there is no connection (tests that bind a service alone)
    request: Callable[[str, Any], Awaitable[msgspec.Raw]] | None = None


class ClientService(Protocol):
    """One capability the client offers the agent."""

    #: a short name for logs and settings ("permission", "fs", "terminal", "elicitation", "auth")
    name: str

    def capabilities(self) -> Capabilities:
        """What this service advertises in `initialize`."""
        ...

    def methods(self) -> Mapping[str, ServiceHandler]:
        """The agent→client request methods this service answers, by method name."""
        ...

    def bind(self, context: ServiceContext) -> None:
        """A new connection is negotiated: serve it (called again after every restart)."""
        ...

    def turn_cancelled(self) -> None:
        """The user cancelled the turn: answer every open question of this service `cancelled`."""
        ...

    async def close(self) -> None:
        """The connection ended: release everything started for the agent (idempotent)."""
        ...


class NotifiedService(ClientService, Protocol):
    """A service that also follows agent→client notifications (e.g. `elicitation/complete`).

    Optional: a service without `notifications()` has none; see `service_notifications`.
    """

    def notifications(self) -> Mapping[str, ServiceNotificationHandler]:
        """The notification methods this service follows, by method name."""
        ...


def service_notifications(service: ClientService) -> Mapping[str, ServiceNotificationHandler]:
    """The notification handlers of `service` (none unless it has `notifications()`)."""
    notifications = getattr(service, "notifications", None)
    return notifications() if callable(notifications) else {}


def merge_capabilities(services: list[ClientService]) -> Capabilities:
    """Deep-merge every service's fragments (later services win on conflicting leaves)."""
    v2: dict[str, Any] = {}
    v1: dict[str, Any] = {}
    for service in services:
        caps = service.capabilities()
        _deep_merge(v2, caps.v2)
        _deep_merge(v1, caps.v1)
    return Capabilities(v2=v2, v1=v1)


def _deep_merge(into: dict[str, Any], fragment: Mapping[str, Any]) -> None:
    for key, value in fragment.items():
        current = into.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            _deep_merge(current, value)
        elif isinstance(value, Mapping):
            into[key] = {}
            _deep_merge(into[key], value)
        else:
            into[key] = value


__all__ = ["Capabilities", "ClientService", "ServiceContext", "ServiceHandler", "SessionDialect", "merge_capabilities"]
__all__ += ["NotifiedService", "ServiceNotificationHandler", "service_notifications"]
