"""One ACP session with one agent process, UI-free: handshake, prompts, cancel, permissions (ACP §2-§9).

`AgentSession` owns the `SessionState` and is the only caller of `reducer.apply` for it. Every
`session/update` is decoded for the negotiated version (v1 goes through the `V1Adapter` first),
applied, and the resulting changes are emitted to one consumer as `ModelChanged`, in receive order,
synchronously (no task per update). A v1 turn is the pending `session/prompt`; its start and end
become synthesised `running`/`idle` updates, so the UI sees one v2-shaped model either way.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
from msgspec import UNSET

from acp_tui.agent.connection import AgentExited, Connection, ProtocolProblem, RpcError
from acp_tui.agent.connection import NotAnAgent
from acp_tui.agent.events import (
    AgentStopped,
    ModelChanged,
    PermissionAsked,
    ProblemReported,
    SessionEvent,
    StderrLine,
)
from acp_tui.agent.process import AgentProcess, ExitInfo
from acp_tui.agent.trace import TraceSink, WireTrace
from acp_tui.protocol import codec, methods
from acp_tui.protocol.codec import MalformedMessage, UnsupportedVersion
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, INVALID_PARAMS, INVALID_REQUEST, REQUEST_CANCELLED, Request
from acp_tui.protocol.v1 import V1CurrentModeUpdate
from acp_tui.protocol.v2 import (
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    ContentBlock,
    SessionConfigBoolean,
    SessionConfigSelect,
    ToolCallUpdate,
)
from acp_tui.session import events as local
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply
from acp_tui.session.v1_adapter import V1_MODE_CONFIG_ID, V1Adapter
from acp_tui.services.base import ClientService, ServiceContext, merge_capabilities, service_notifications


class SessionError(Exception):
    """The session could not be set up or used; the message is fit for the user."""


class HandshakeTimeout(SessionError):
    """`initialize` or `session/new` got no answer in time."""


class AuthRequired(SessionError):
    """The agent requires authentication (-32000); `auth_methods` are those it offered."""

    def __init__(self, message: str, auth_methods: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.auth_methods = auth_methods


class AgentSession:
    """Starts an agent, negotiates v2 or v1, and runs one session with it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        protocol: int | None = None,
        handshake_timeout: float = 30.0,
        log_path: str | os.PathLike[str] | None = None,
        trace: TraceSink | None = None,
        emit: Callable[[SessionEvent], None] | None = None,
        services: Sequence[ClientService] = (),
    ) -> None:
        if protocol not in (None, 1, 2):
            raise SessionError(f"unsupported --protocol {protocol}; acp-tui speaks ACP v2 and v1")
        self.cwd = os.path.abspath(cwd if cwd is not None else os.getcwd())
        self.forced_protocol = protocol
        self.handshake_timeout = handshake_timeout
        self.state = SessionState()
        #: events for a consumer that prefers a queue to a callback (used when `emit` is None)
        self.events: asyncio.Queue[SessionEvent] = asyncio.Queue()
        self._emit = emit if emit is not None else self.events.put_nowait
        self._own_trace = trace is None
        self.trace: TraceSink | None = trace if trace is not None else WireTrace.from_env(log_path)
        self.process = AgentProcess(argv, cwd=self.cwd, env=env, on_stderr=self._on_stderr)
        self.connection = Connection(
            self.process, on_problem=self._on_wire_problem, on_close=self._on_exit, trace=self.trace
        )
        self.version: int | None = None
        self.init: methods.InitializeResponse | None = None
        self.session_id: str | None = None
        self._adapter: V1Adapter | None = None
        self._buffered: list[tuple[str, Any]] = []
        self._permissions: dict[int | str, asyncio.Future[str]] = {}
        #: the connection's tasks answering permission requests (awaited by `cancel`)
        self._answering: set[asyncio.Task[Any]] = set()
        self._cancellable_tools: set[str] = set()
        self._cancelled = False
        self._turns: set[asyncio.Task[None]] = set()
        #: the client services installed for this connection (files, terminals, ...): their methods are
        #: answered and their capabilities advertised; nothing else is
        self.services: list[ClientService] = list(services)
        self._closing: asyncio.Task[None] | None = None

    # -- setup -----------------------------------------------------------------------------------

    async def start(self) -> str:
        """Spawn the agent, `initialize`, `session/new`; return the session id."""
        await self.connect()
        await self.initialize()
        return await self.new_session()

    async def connect(self) -> None:
        """Spawn the agent and start reading it (raises `SpawnError` when it cannot run)."""
        await self.process.start()
        self.connection.on_notification("session/update", self._on_update)
        self.connection.on_request("session/request_permission", self._on_permission)
        for service in self.services:
            for method, handler in service.methods().items():
                self.connection.on_request(method, handler)
            for method, notification in service_notifications(service).items():
                self.connection.on_notification(method, notification)
        self.connection.start()

    def can_resume(self) -> bool:
        """May `resume` be tried? v2: always (baseline); v1: only when the agent advertises it."""
        return self.version == 2 or self._v1_capability("sessionCapabilities", "resume")

    async def initialize(self) -> int:
        """Send one `initialize` and settle the version for this connection (ACP §2.2)."""
        caps = merge_capabilities(self.services)
        params = codec.build_initialize(caps.v2, caps.v1)
        if self.forced_protocol == 1:
            params = methods.InitializeRequest(
                protocol_version=1, client_info=params.client_info, client_capabilities=params.client_capabilities
            )
        raw = await self._handshake("initialize", params)
        try:
            version, response = codec.negotiated_version(bytes(raw))
        except UnsupportedVersion as exc:
            raise SessionError(str(exc)) from None
        if self.forced_protocol == 2 and version != 2:
            raise SessionError(
                f"--protocol 2 was asked for, but the agent answered protocolVersion {response.protocol_version}"
                " (acp-tui speaks ACP v2 and v1)"
            )
        self.version = version
        self.init = response
        self._bind_services(version, response)
        if version == 1 and response.protocol_version == 2:
            # e.g. the Python SDK's echo agent echoes the version it was offered, then speaks v1
            self._report(ProtocolProblem(
                "the agent answered protocolVersion 2 in a v1-shaped result (no `info`); speaking v1", bytes(raw)
            ))
        return version

    def _bind_services(self, version: int, response: methods.InitializeResponse) -> None:
        agent_caps = response.capabilities if version == 2 else response.agent_capabilities
        context = ServiceContext(
            version=version,
            cwd=Path(self.cwd).resolve(),
            session_id=lambda: self.session_id,
            apply=self._apply,
            report=lambda reason, raw: self._report(ProtocolProblem(reason, raw)),
            agent_capabilities=agent_caps if isinstance(agent_caps, dict) else {},
        )
        for service in self.services:
            service.bind(context)

    async def new_session(self) -> str:
        """`session/new` in the launch directory with no MCP servers."""
        raw = await self._handshake("session/new", codec.build_new_session(self.cwd))
        result = self._decode(codec.decode_new_session_result, raw, "session/new result")
        self.session_id = result.session_id
        self._session_ready(result)
        return result.session_id

    async def resume(self, session_id: str, *, replay: bool = False) -> None:
        """`session/resume` (v2 baseline; v1 only when `sessionCapabilities.resume` is advertised)."""
        if self.version == 1 and not self._v1_capability("sessionCapabilities", "resume"):
            raise SessionError("this agent does not support resuming sessions")
        self.session_id = session_id
        params = codec.build_resume_session(session_id, self.cwd, self.version or 2, replay)
        raw = await self._handshake("session/resume", params)
        self._session_ready(self._decode(codec.decode_resume_session_result, raw, "session/resume result"))

    def _session_ready(self, result: methods.NewSessionResponse | methods.ResumeSessionResponse) -> None:
        if self.version == 1:
            options = result.config_options if isinstance(result.config_options, list) else None
            modes = result.modes if result.modes not in (UNSET, None) else None
            self._adapter = V1Adapter(modes=modes, config_options=options)
            for item in self._adapter.initial_updates():
                self._apply(item)
        else:
            if isinstance(result.config_options, list):
                self._apply(ConfigOptionUpdate(config_options=result.config_options))
            if isinstance(result.available_commands, list):
                self._apply(AvailableCommandsUpdate(available_commands=result.available_commands))
        buffered, self._buffered = self._buffered, []
        for session_id, update in buffered:
            self._route_update(session_id, update)

    async def _handshake(self, method: str, params: Any) -> msgspec.Raw:
        try:
            return await asyncio.wait_for(self.connection.request(method, params), self.handshake_timeout)
        except asyncio.TimeoutError:
            raise HandshakeTimeout(
                f"the agent did not answer {method} within {self.handshake_timeout:g} s"
            ) from None
        except NotAnAgent as exc:
            raise SessionError(exc.message) from None  # e.g. `cat`: say what happened, not "refused"
        except RpcError as exc:
            if exc.code == AUTH_REQUIRED:
                methods_offered = self.init.auth_methods if self.init and isinstance(self.init.auth_methods, list) else []
                raise AuthRequired(f"the agent requires authentication: {exc.message}", methods_offered) from None
            raise SessionError(f"the agent refused {method}: {exc.message} ({exc.code})") from None
        except AgentExited as exc:
            raise SessionError(f"the agent stopped during {method}: {exc}") from None

    def _v1_capability(self, *path: str) -> bool:
        node: Any = self.init.agent_capabilities if self.init else None
        for key in path:
            if not isinstance(node, dict):
                return False
            node = node.get(key)
        return node not in (None, False, UNSET)

    # -- prompts ---------------------------------------------------------------------------------

    async def prompt(self, blocks: list[ContentBlock]) -> str:
        """Send a prompt; return the user message id once it is inserted (v1: at once, a local id).

        Raises `RpcError` when a v2 agent rejects the prompt before insertion.
        """
        if self.session_id is None:
            raise SessionError("no session yet")
        self._cancelled = False
        request_id = self.connection.reserve_id()
        params = methods.PromptRequest(session_id=self.session_id, prompt=list(blocks))
        self._apply(local.PromptSubmitted(request_id, list(blocks)))
        if self.version == 1:
            return self._start_v1_turn(request_id, params)
        try:
            raw = await self.connection.request("session/prompt", params, request_id=request_id)
        except RpcError as exc:
            self._apply(local.PromptRejected(request_id, exc.to_object(), cancelled=exc.code == REQUEST_CANCELLED))
            raise
        except AgentExited:
            raise
        if codec.is_v1_prompt_result(bytes(raw)):
            # It said v2 but ended the turn the v1 way: carry on as v1.
            self._report(ProtocolProblem("the agent negotiated v2 but answered session/prompt like v1", bytes(raw)))
            self.version = 1
            self._adapter = V1Adapter()
            message_id = self._accept_v1(request_id)
            self._end_v1_turn(raw)
            return message_id
        result = self._decode(codec.decode_prompt_result, raw, "session/prompt result", 2)
        self._apply(local.PromptAccepted(request_id, result.message_id))
        return result.message_id

    def _start_v1_turn(self, request_id: int, params: methods.PromptRequest) -> str:
        message_id = self._accept_v1(request_id)
        task = asyncio.get_running_loop().create_task(self._v1_turn(request_id, params))
        self._turns.add(task)
        task.add_done_callback(self._turns.discard)
        return message_id

    def _accept_v1(self, request_id: int) -> str:
        assert self._adapter is not None
        message_id = ""
        for item in self._adapter.turn_started(request_id):
            if isinstance(item, local.PromptAccepted):
                message_id = item.message_id
            self._apply(item)
        return message_id

    async def _v1_turn(self, request_id: int, params: methods.PromptRequest) -> None:
        """A v1 turn lasts as long as its `session/prompt` request (ACP §4.2)."""
        assert self._adapter is not None
        try:
            raw = await self.connection.request("session/prompt", params, request_id=request_id)
        except RpcError as exc:
            for item in self._adapter.turn_failed(exc.to_object(), after_cancel=self._cancelled):
                self._apply(item)
            return
        except AgentExited:
            return
        self._end_v1_turn(raw)

    def _end_v1_turn(self, raw: msgspec.Raw) -> None:
        assert self._adapter is not None
        try:
            stop_reason: Any = codec.decode_prompt_result(bytes(raw), 1).stop_reason
        except MalformedMessage as exc:
            self._report(ProtocolProblem(f"session/prompt result: {exc.reason}", bytes(raw)))
            stop_reason = None
        for item in self._adapter.turn_ended(stop_reason):
            self._apply(item)

    async def cancel(self) -> None:
        """`session/cancel`, and at once answer every pending permission request `cancelled` (§9.3)."""
        if self.session_id is None:
            return
        self._cancelled = True
        answering = [task for task in self._answering if not task.done()]
        for future in list(self._permissions.values()):
            if not future.done():
                future.set_result("cancelled")
        self._apply(local.CancelRequested())
        for service in self.services:
            service.turn_cancelled()
        try:
            await self.connection.notify("session/cancel", codec.build_cancel(self.session_id))
        except AgentExited:
            pass
        if answering:
            # Return only once those answers are handed to the writer, so a shutdown that
            # follows (Ctrl-Q) cannot close the agent's stdin before they are written.
            await asyncio.wait(answering, timeout=1.0)

    async def cancel_tool_call(self, tool_call_id: str) -> None:
        """v2 `tool_call/cancel`, only for a tool call that advertises `capabilities.cancel`."""
        if self.version != 2 or tool_call_id not in self._cancellable_tools or self.session_id is None:
            raise SessionError(f"tool call {tool_call_id} cannot be cancelled")
        params = methods.CancelToolCallRequest(session_id=self.session_id, tool_call_id=tool_call_id)
        await self.connection.request("tool_call/cancel", params)

    async def set_config_option(self, config_id: str, value: str | bool) -> None:
        """Change one session config option and adopt the agent's answer as the full new set (ACP §10.4).

        v2 and v1 `configOptions` use `session/set_config_option` (whose result replaces every option);
        the select that stands for v1 `modes` uses `session/set_mode`, then shows the chosen mode. Only
        options the session has may be set, with a value they offer; a boolean only in v2 (v1 agents
        accept one only from clients advertising a capability this client does not). Raises
        `SessionError` for those, `RpcError` when the agent refuses.
        """
        if self.session_id is None or self.version is None:
            raise SessionError("no session yet")
        option = next((o for o in self.state.config_options if o.config_id == config_id), None)
        if isinstance(option, SessionConfigSelect):
            if not isinstance(value, str) or value not in {o.value for o in option.all_options()}:
                raise SessionError(f"{value!r} is not a value of the config option {config_id!r}")
        elif isinstance(option, SessionConfigBoolean):
            if not isinstance(value, bool):
                raise SessionError(f"the config option {config_id!r} takes true or false, not {value!r}")
            if self.version == 1:
                raise SessionError(f"the config option {config_id!r} cannot be changed with this v1 agent")
        elif option is not None:
            raise SessionError(f"the config option {config_id!r} is of a kind this client cannot set")
        else:
            raise SessionError(f"the session has no config option {config_id!r}")
        adapter = self._adapter if self.version == 1 else None
        if adapter is not None and adapter.synthetic_modes and config_id == V1_MODE_CONFIG_ID:
            await self._config_request("session/set_mode", {"sessionId": self.session_id, "modeId": value})
            for item in adapter.update(V1CurrentModeUpdate(current_mode_id=str(value))):
                self._apply(item)
            return
        params = codec.build_set_config_option(self.session_id, config_id, value, self.version)
        raw = await self._config_request("session/set_config_option", params)
        result = self._decode(codec.decode_set_config_option_result, raw, "session/set_config_option result")
        update = ConfigOptionUpdate(config_options=result.config_options)
        for item in adapter.update(update) if adapter is not None else [update]:
            self._apply(item)

    async def _config_request(self, method: str, params: Any) -> msgspec.Raw:
        try:
            return await self.connection.request(method, params)
        except AgentExited as exc:
            raise SessionError(f"the agent stopped during {method}: {exc}") from None

    def resolve_permission(self, request_id: int | str, option_id: str | None) -> None:
        """Answer a pending permission request: an offered option id, or `None` for cancelled."""
        future = self._permissions.get(request_id)
        if future is not None and not future.done():
            future.set_result(option_id if option_id is not None else "cancelled")

    async def shutdown(self) -> None:
        """Stop the agent: close stdin, then SIGTERM, then SIGKILL its process group."""
        for task in list(self._turns):
            task.cancel()
        await self.process.shutdown()
        await self._close_services()
        if self._own_trace and isinstance(self.trace, WireTrace):
            self.trace.close()

    # -- incoming --------------------------------------------------------------------------------

    def _on_update(self, params: msgspec.Raw) -> None:
        """`session/update`: decode for the version, then apply (hot path, synchronous)."""
        if self.version is None:
            self._report(ProtocolProblem("session/update before initialize was answered", bytes(params)))
            return
        try:
            session_id, update = codec.decode_update(bytes(params), self.version)
        except MalformedMessage as exc:
            self._report(ProtocolProblem(f"malformed session/update: {exc.reason}", exc.raw))
            return
        if self.session_id is None:
            self._buffered.append((session_id, update))  # session/new has not answered yet
            return
        self._route_update(session_id, update)

    def _route_update(self, session_id: str, update: Any) -> None:
        if session_id != self.session_id:
            self._report(ProtocolProblem(f"session/update for unknown session {session_id!r}", b""))
            return
        if self._adapter is not None and self.version == 1:
            for item in self._adapter.update(update):
                self._apply(item)
            return
        if type(update) is ToolCallUpdate and update.capabilities not in (UNSET, None):
            if update.capabilities.cancel not in (UNSET, None):
                self._cancellable_tools.add(update.tool_call_id)
            else:
                self._cancellable_tools.discard(update.tool_call_id)
        self._apply(update)

    async def _on_permission(self, request: Request) -> dict[str, Any]:
        """`session/request_permission`: queue it for the user; answer exactly once (ACP §8)."""
        assert self.version is not None
        request_id: int | str | None = request.id
        if request_id is None:  # JSON-RPC allows a null id; ACP forbids it, and nothing could name this one
            self._report(ProtocolProblem("permission request with a null id", bytes(request.params)))
            raise RpcError(INVALID_REQUEST, "Invalid Request: null id")
        try:
            decoded = codec.decode_permission_request(bytes(request.params), self.version)
        except MalformedMessage as exc:
            self._report(ProtocolProblem(f"malformed permission request: {exc.reason}", exc.raw))
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc.reason}") from None
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._permissions[request_id] = future
        task = asyncio.current_task()
        if task is not None:
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
        self._apply(local.PermissionRequested(request_id, decoded))
        if self._adapter is not None and self.version == 1:
            for item in self._adapter.permission_requested(decoded):
                self._apply(item)
        self._emit(PermissionAsked(request_id, decoded, future))
        try:
            outcome = await future
        except asyncio.CancelledError:
            # The agent withdrew it ($/cancel_request) or went away: answer cancelled, once.
            outcome = "cancelled"
            if not future.done():
                future.set_result(outcome)
        finally:
            self._permissions.pop(request_id, None)
        offered = {option.option_id for option in decoded.options}
        if outcome != "cancelled" and outcome not in offered:
            self._report(ProtocolProblem(f"permission answer {outcome!r} is not an offered option", b""))
            outcome = "cancelled"
        self._apply(local.PermissionResolved(request_id, outcome))
        if self._adapter is not None and self.version == 1:
            for item in self._adapter.permission_resolved():
                self._apply(item)
        if outcome == "cancelled":
            return {"outcome": {"outcome": "cancelled"}}
        return {"outcome": {"outcome": "selected", "optionId": outcome}}

    def _on_stderr(self, line: str) -> None:
        if self.trace is not None:
            self.trace.record("stderr", line)
        self._emit(StderrLine(line))

    def _on_wire_problem(self, problem: ProtocolProblem) -> None:
        self._report(problem)

    def _on_exit(self, info: ExitInfo) -> None:
        for future in list(self._permissions.values()):
            if not future.done():
                future.set_result("cancelled")
        self._apply(local.AgentExited(returncode=info.code, reason=info.describe()))
        self._emit(AgentStopped(info))
        if self.services:
            # kept referenced until done; shutdown() closes again, which each service makes idempotent
            self._closing = asyncio.get_running_loop().create_task(self._close_services())

    async def _close_services(self) -> None:
        """Release what every service started for this agent (processes, dialogs); each close is idempotent."""
        for service in self.services:
            try:
                await service.close()
            except Exception as exc:  # noqa: BLE001 - one failing service must not keep the others' processes alive
                self._report(ProtocolProblem(f"closing the {service.name} service failed: {exc}", b""))

    # -- helpers ---------------------------------------------------------------------------------

    def _apply(self, item: object) -> None:
        changes = apply(self.state, item)
        if changes:
            self._emit(ModelChanged(changes))

    def _report(self, problem: ProtocolProblem) -> None:
        self._apply(local.ProtocolProblem(problem.reason, problem.raw[:2000].decode("utf-8", "replace")))
        self._emit(ProblemReported(problem.reason, problem.raw))

    def _decode(self, decoder: Callable[..., Any], raw: msgspec.Raw, what: str, *args: Any) -> Any:
        try:
            return decoder(bytes(raw), *args)
        except MalformedMessage as exc:
            raise SessionError(f"the agent sent an invalid {what}: {exc.reason}") from None


__all__ = ["AgentSession", "AuthRequired", "HandshakeTimeout", "SessionError"]
