"""One ACP connection to one agent process, UI-free: handshake, session, prompts, cancel (docs/protocol.md §2-§9).

`AgentSession` owns the `SessionState` and is the only caller of `reducer.apply` for it. Every
`session/update` is decoded for the negotiated version, translated by that version's `Dialect` (v1 goes
through the `V1Adapter`), applied, and the resulting changes are emitted to one consumer as
`ModelChanged`, in receive order, synchronously (no task per update). A v1 turn is the pending
`session/prompt`; its start and end become synthesised `running`/`idle` updates, so everything above
sees one v2-shaped model either way. Agent→client requests are answered by the installed client
services (`acp_tui.services`: permissions, files, terminals, ...); the agent's exit is one model event
(`AgentGone`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import msgspec

from acp_tui.agent.connection import Connection, ConnectionClosed, NotAnAgent, WireProblem
from acp_tui.agent.dialect import Dialect, SessionAbilities, SessionTools, V1Dialect, dialect_for
from acp_tui.agent.frames import FrameLog
from acp_tui.agent.host import AgentCommand, AgentHost, LocalHost
from acp_tui.agent.other_sessions import OtherSessions
from acp_tui.agent.process import ExitInfo
from acp_tui.agent.session_errors import AuthRequired, HandshakeTimeout, SessionError, SessionRefused
from acp_tui.agent.session_events import ModelChanged, SessionEvent, StderrLine
from acp_tui.agent.steering import Steering
from acp_tui.agent.trace import TraceSink, WireTrace
from acp_tui.agent.update_routing import Opening, UpdateRouter
from acp_tui.agent.v1_turns import V1Turns
from acp_tui.mcp_servers import McpServer
from acp_tui.protocol import codec, methods
from acp_tui.protocol.codec import MalformedMessage, UnsupportedVersion
from acp_tui.protocol.jsonrpc import AUTH_REQUIRED, REQUEST_CANCELLED, UNSUPPORTED_PROTOCOL_VERSION, RpcError
from acp_tui.protocol.terminal import CANCEL_TERMINAL_METHOD, CancelTerminalRequest
from acp_tui.protocol.v2 import ConfigOptionUpdate, ContentBlock, SessionConfigBoolean, SessionConfigSelect
from acp_tui.services.base import ClientService, ServiceContext, merge_capabilities, service_notifications
from acp_tui.services.terminals import TerminalService
from acp_tui.session import local_events as local
from acp_tui.session.changes import ProblemAdded
from acp_tui.session.model import SessionState, ToolCall
from acp_tui.session.reducer import ModelInput, apply
from acp_tui.session.subagents import subagent_name

#: how long `cancel` waits for the answers it settled to be handed to the writer
ANSWER_GRACE = 1.0


class _Unsupported(SessionError):
    """`initialize` answered `-32022`; `supported` is what the agent listed (None: not said or malformed)."""

    def __init__(self, supported: tuple[int, ...] | None) -> None:
        super().__init__("the agent does not support the protocol version asked for")
        self.supported = supported


class SessionListener(Protocol):
    """Who hears an `AgentSession` (the session controller): each event, in order, synchronously, with the
    session it came from (so a replaced connection's late news is told apart)."""

    def session_event(self, session: AgentSession, event: SessionEvent) -> None: ...


class AgentSession:
    """Starts an agent through its host, negotiates v2 or v1, and runs one session with it at a time.

    Where each update goes is its `UpdateRouter`'s (update_routing.py, with the session being opened beside
    the current one); a turn that lasts as long as its `session/prompt` is its `V1Turns`' (v1_turns.py).
    """

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
        listener: SessionListener | None = None,
        services: Sequence[ClientService] = (),
        mcp_servers: Sequence[McpServer] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
        host: AgentHost | None = None,
    ) -> None:
        """`host`: where the agent runs, which starts it (host.py; default: this machine)."""
        if protocol not in (None, 1, 2):
            raise SessionError(f"unsupported --protocol {protocol}; acp-tui speaks ACP v2 and v1")
        self.cwd = os.path.abspath(cwd if cwd is not None else os.getcwd())
        self.forced_protocol = protocol
        self.handshake_timeout = handshake_timeout
        self.state = SessionState()
        #: events for a consumer that prefers a queue to a listener (used when `listener` is None)
        self.events: asyncio.Queue[SessionEvent] = asyncio.Queue()
        #: tells the listener (or the queue) one event
        self.emit: Callable[[SessionEvent], None] = (
            partial(listener.session_event, self) if listener is not None else self.events.put_nowait
        )
        self._own_trace = trace is None
        self.trace: TraceSink | None = trace if trace is not None else WireTrace.from_env(log_path)
        #: every frame of this connection, the newest kept (the inspector's, the check's), passed on to the trace
        self.frames = FrameLog(self.trace)
        #: the agent's byte pipe, as its host starts it (a child process here; another machine's agent elsewhere)
        self.transport = (host or LocalHost()).transport(AgentCommand(argv, self.cwd, env or {}), self._on_stderr)
        self.connection = Connection(
            self.transport, on_problem=self._on_wire_problem, on_close=self._on_exit, trace=self.frames
        )
        self.init: methods.InitializeResponse | None = None
        self.dialect: Dialect | None = None
        self.session_id: str | None = None
        #: the client services installed for this connection (permissions, files, terminals, ...): their
        #: methods are answered and their capabilities advertised; nothing else is (docs/protocol.md §2.3)
        self.services: list[ClientService] = list(services)
        #: what the user configured for every session (config `[mcp_servers]`, `--add-dir`); `tools` is what of it
        #: the agent takes, settled once `initialize` is answered
        self.mcp_servers: tuple[McpServer, ...] = tuple(mcp_servers)
        self.additional_directories = tuple(os.path.abspath(folder) for folder in additional_directories)
        self.tools = SessionTools()
        self.turns = V1Turns(self)  # turns that last as long as their `session/prompt` (v1_turns.py)
        self._closing: asyncio.Task[None] | None = None
        self.routing = UpdateRouter(self)  # where each `session/update` goes (update_routing.py)
        #: the agent's sessions besides this one: open, new beside it, list, close, delete (other_sessions.py)
        self.others = OtherSessions(self)
        #: a prompt sent into the running turn, where the agent offers it (steering.py)
        self.steering = Steering(self.connection, lambda: self.init, lambda: self.session_id, self.apply)

    @property
    def version(self) -> int | None:
        """The negotiated protocol version (None before `initialize` is answered)."""
        return self.dialect.version if self.dialect is not None else None

    # -- setup -----------------------------------------------------------------------------------

    async def start(self) -> str:
        """Spawn the agent, `initialize`, `session/new`; return the session id."""
        await self.connect()
        await self.initialize()
        return await self.new_session()

    async def connect(self) -> None:
        """Start the agent through its host and start reading it (raises `SpawnError` when it cannot run)."""
        await self.transport.start()
        self.connection.on_notification("session/update", self.routing.on_update)
        for service in self.services:
            for method, handler in service.methods().items():
                self.connection.on_request(method, handler)
            for method, notification in service_notifications(service).items():
                self.connection.on_notification(method, notification)
        self.connection.start()

    async def initialize(self) -> int:
        """Send one `initialize` and settle the version for this connection (docs/protocol.md §2.2)."""
        caps = merge_capabilities(self.services)
        params = codec.build_initialize(caps.v2, caps.v1)
        if self.forced_protocol == 1:
            params = methods.InitializeRequest(
                protocol_version=1, client_info=params.client_info, client_capabilities=params.client_capabilities
            )
        try:
            raw = await self.handshake("initialize", params)
        except _Unsupported as exc:
            raw = await self._renegotiate(params, exc.supported)
        try:
            version, response = codec.negotiated_version(bytes(raw))
        except UnsupportedVersion as exc:
            raise SessionError(str(exc)) from None
        if self.forced_protocol == 2 and version != 2:
            raise SessionError(
                f"--protocol 2 was asked for, but the agent answered protocolVersion {response.protocol_version}"
                " (acp-tui speaks ACP v2 and v1)"
            )
        self.init = response
        self.dialect = dialect_for(version, response)
        self.tools = self.dialect.session_tools(self.mcp_servers, self.additional_directories)
        if version == 1 and response.protocol_version == 2:
            # e.g. the Python SDK's echo agent echoes the version it was offered, then speaks v1
            self.report(
                WireProblem(
                    "the agent answered protocolVersion 2 in a v1-shaped result (no `info`); speaking v1", bytes(raw)
                )
            )
        self._bind_services(response)
        return version

    async def _renegotiate(self, asked: methods.InitializeRequest, supported: tuple[int, ...] | None) -> msgspec.Raw:
        """The agent answered `-32022` (no version at or below ours): ask once more with the highest version it
        lists that we speak, or say plainly what it speaks (schema `ErrorCode`, "Version Negotiation")."""
        ours = [v for v in (2, 1) if v < asked.protocol_version and (self.forced_protocol in (None, v))]
        choice = next((v for v in ours if v in supported), None) if supported else None
        if choice is None:
            listed = ", ".join(str(v) for v in supported) if supported else "none it would name"
            raise SessionError(
                f"the agent does not support ACP v{asked.protocol_version}; it supports: {listed}"
                " (acp-tui speaks ACP v2 and v1)"
            )
        params = methods.InitializeRequest(
            protocol_version=choice, client_info=asked.client_info, client_capabilities=asked.client_capabilities
        )
        try:
            return await self.handshake("initialize", params)
        except _Unsupported as exc:
            raise SessionError(f"the agent refused ACP v{choice} too, which it had listed as supported") from exc

    def _bind_services(self, response: methods.InitializeResponse) -> None:
        assert self.dialect is not None
        agent_caps = response.capabilities if self.dialect.version == 2 else response.agent_capabilities
        context = ServiceContext(
            version=self.dialect.version,
            cwd=Path(self.cwd).resolve(),
            session_id=lambda: self.session_id,
            apply=self.apply,
            report=lambda reason, raw: self.report(WireProblem(reason, raw)),
            agent_capabilities=agent_caps if isinstance(agent_caps, dict) else {},
            dialect=_CurrentDialect(self),  # each session has its own dialect; services follow the current one
            connection_closed=lambda: self.connection.closed,
            roots=tuple(Path(folder).resolve() for folder in self.tools.additional_directories),
            owns_session=partial(_owns_session, self),
            subagent_name=lambda session_id: subagent_name(self.state, session_id),
            tool_call=partial(_tool_call_of, self),
            request=self.connection.request,
        )
        for service in self.services:
            service.bind(context)

    async def new_session(self) -> str:
        """`session/new` in the session directory with the MCP servers and folders the agent takes (`tools`).

        The connection's first session fills `state` as it comes; a later one is set up beside the current
        session and replaces it only once the agent answered (`SessionSwitched`).
        """
        params = self.current_dialect().new_params(self.cwd, self.tools)
        if self.session_id is None and self.routing.opening is None:
            try:
                raw = await self.handshake("session/new", params)
            except SessionRefused as exc:
                if not (self.tools.mcp_servers or self.tools.additional_directories):
                    raise
                # The agent refused the session with the tools we gave: start it without them, and say so
                # (the controller notes every `refused` line), rather than leave the user with no agent.
                line = f"the agent refused a session with its MCP servers and folders ({exc}); started without them"
                self.tools = SessionTools((), (), (*self.tools.refused, line))
                if self.init is not None:
                    self._bind_services(self.init)  # the folders dropped are outside again for the guards
                raw = await self.handshake("session/new", self.current_dialect().new_params(self.cwd, self.tools))
            result = self.decode(codec.decode_new_session_result, raw, "session/new result")
            self.session_id = result.session_id
            self.session_ready(result)
            return result.session_id
        return await self.others.new_beside(params)

    def abilities(self) -> SessionAbilities:
        """The session methods the agent advertised (none before `initialize` is answered)."""
        return self.dialect.abilities() if self.dialect is not None else SessionAbilities()

    async def close_session(self) -> bool:
        """`session/close` for the current session, when advertised: the agent stops its work and frees it.

        The model keeps what it shows; returns False when the agent does not offer it.
        """
        if self.session_id is None or not self.abilities().close:
            return False
        await self.handshake("session/close", methods.SessionIdRequest(session_id=self.session_id))
        return True

    def session_ready(self, result: methods.NewSessionResponse | methods.ResumeSessionResponse) -> None:
        for item in self.current_dialect().session_ready(result):
            self.apply(item)
        buffered, self.routing.buffered = self.routing.buffered, []
        for session_id, update in buffered:
            self.routing.route(session_id, update)

    async def handshake(self, method: str, params: Any, opening: Opening | None = None) -> msgspec.Raw:
        try:
            if opening is None:
                return await asyncio.wait_for(self.connection.request(method, params), self.handshake_timeout)
            return await opening.answer(self.connection.request(method, params), self.handshake_timeout)
        except TimeoutError:
            raise HandshakeTimeout(f"the agent did not answer {method} within {self.handshake_timeout:g} s") from None
        except NotAnAgent as exc:
            raise SessionError(exc.message) from None  # e.g. `cat`: say what happened, not "refused"
        except RpcError as exc:
            if exc.code == UNSUPPORTED_PROTOCOL_VERSION and method == "initialize":
                raise _Unsupported(codec.supported_versions(exc.data)) from None
            if exc.code == AUTH_REQUIRED:
                methods_offered = (
                    self.init.auth_methods if self.init and isinstance(self.init.auth_methods, list) else []
                )
                raise AuthRequired(f"the agent requires authentication: {exc.message}", methods_offered) from None
            raise SessionRefused(f"the agent refused {method}: {exc.message} ({exc.code})") from None
        except ConnectionClosed as exc:
            raise SessionError(f"the agent stopped during {method}: {exc}") from None

    def current_dialect(self) -> Dialect:
        if self.dialect is None:
            raise SessionError("the agent has not been initialized")
        return self.dialect

    # -- prompts ---------------------------------------------------------------------------------

    async def prompt(self, blocks: list[ContentBlock], *, resend_of: str | None = None) -> str:
        """Send a prompt; return the user message id once it is inserted (v1: at once, a local id).

        `resend_of`: the user message this prompt repeats (sent again after a login, docs/protocol.md §2.4),
        marked before anything shows it so the words show once. Raises `RpcError` when a v2 agent rejects
        the prompt before insertion.
        """
        if self.session_id is None:
            raise SessionError("no session yet")
        dialect = self.current_dialect()
        self.turns.cancelled = False
        request_id = self.connection.reserve_id()
        params = methods.PromptRequest(session_id=self.session_id, prompt=list(blocks))
        self.apply(local.PromptSubmitted(request_id, list(blocks)))
        if resend_of is not None:
            self.apply(local.PromptResent(request_id, resend_of))
        if isinstance(dialect, V1Dialect):
            message_id = self.turns.start(dialect, request_id)
            self.turns.run(dialect, request_id, params)
            return message_id
        try:
            raw = await self.connection.request("session/prompt", params, request_id=request_id)
        except RpcError as exc:
            self.apply(local.PromptRejected(request_id, exc.to_object(), cancelled=exc.code == REQUEST_CANCELLED))
            raise
        if codec.is_v1_prompt_result(bytes(raw)):
            # It said v2 but ended the turn the v1 way: carry on as v1.
            self.report(WireProblem("the agent negotiated v2 but answered session/prompt like v1", bytes(raw)))
            v1 = V1Dialect(self.init)
            self.dialect = v1
            message_id = self.turns.start(v1, request_id)
            self.turns.end(v1, raw)
            return message_id
        result = self.decode(codec.decode_prompt_result, raw, "session/prompt result", 2)
        self.apply(local.PromptAccepted(request_id, result.message_id))
        return result.message_id

    async def cancel(self) -> None:
        """`session/cancel`; every open question of every service is answered `cancelled` first (docs/protocol.md §9.3)."""
        if self.session_id is None:
            return
        self.turns.cancelled = True
        for service in self.services:
            service.turn_cancelled()
        self.apply(local.CancelRequested())
        try:
            await self.connection.notify("session/cancel", codec.build_cancel(self.session_id))
        except ConnectionClosed:
            pass
        # Return only once the settled answers are handed to the writer, so a shutdown that follows
        # (Ctrl-Q) cannot close the agent's stdin before they are written.
        await self.connection.settle_incoming(ANSWER_GRACE)

    def dismiss_submission(self, request_id: int | str) -> None:
        """Drop a failed or cancelled prompt's bubble (a prompt refused before a login, now sent again)."""
        self.apply(local.SubmissionDismissed(request_id))

    async def cancel_tool_call(self, tool_call_id: str) -> None:
        """v2 `tool_call/cancel`, only for a tool call that advertises `capabilities.cancel`."""
        dialect = self.dialect
        if dialect is None or tool_call_id not in getattr(dialect, "cancellable_tools", ()) or self.session_id is None:
            raise SessionError(f"tool call {tool_call_id} cannot be cancelled")
        call = self.state.tool_call(tool_call_id)
        if call is not None and call.cancelling:
            return  # asked already: the card's and the tray's guard, held here too
        params = methods.CancelToolCallRequest(session_id=self.session_id, tool_call_id=tool_call_id)
        self.apply(local.ToolCallCancelRequested(tool_call_id))
        try:
            await self.connection.request("tool_call/cancel", params)
        except (RpcError, ConnectionClosed):
            self.apply(local.ToolCallCancelFailed(tool_call_id))
            raise

    async def cancel_terminal(self, terminal_id: str) -> None:
        """Stop a running terminal from its card (docs/protocol.md §6.4, §10.2); it shows "stopping…" until it exits.

        v2: `terminal/cancel`, sent only while the terminal advertises `capabilities.cancel`. v1: a command
        the client runs for the agent is stopped by the service that runs it. Every failure (not stoppable,
        the agent's -32602, the agent gone) raises `SessionError` with a message fit for the user.
        """
        term = self.state.terminal(terminal_id)
        if term is None or not term.cancellable or self.session_id is None or self.dialect is None:
            raise SessionError(f"terminal {terminal_id} cannot be stopped")
        self.apply(local.TerminalCancelRequested(terminal_id))
        try:
            if self.dialect.agent_owns_terminals:
                params = CancelTerminalRequest(session_id=self.session_id, terminal_id=terminal_id)
                await self.connection.request(CANCEL_TERMINAL_METHOD, params)
                return
            for service in self.services:
                stop = getattr(service, "stop_terminal", None)  # the terminal service: the commands it runs
                if stop is not None and await stop(terminal_id):
                    return
            raise SessionError(f"terminal {terminal_id} cannot be stopped")
        except RpcError as exc:
            self.apply(local.TerminalCancelFailed(terminal_id))
            raise SessionError(f"the agent did not stop terminal {terminal_id}: {exc.message} ({exc.code})") from None
        except ConnectionClosed as exc:
            self.apply(local.TerminalCancelFailed(terminal_id))
            raise SessionError(f"terminal {terminal_id} was not stopped: {exc}") from None
        except SessionError:
            self.apply(local.TerminalCancelFailed(terminal_id))
            raise

    async def set_config_option(self, config_id: str, value: str | bool) -> None:
        """Change one session config option and adopt the agent's answer as the full new set (docs/protocol.md §10.4).

        v2 and v1 `configOptions` use `session/set_config_option` (whose result replaces every option);
        the select that stands for v1 `modes` uses `session/set_mode`, then shows the chosen mode. Only
        options the session has may be set, with a value they offer; a boolean true or false (v1 too: we advertise
        `session.configOptions.boolean`). Raises
        `SessionError` for those, `RpcError` when the agent refuses.
        """
        if self.session_id is None or self.dialect is None:
            raise SessionError("no session yet")
        dialect = self.dialect
        option = next((o for o in self.state.config_options if o.config_id == config_id), None)
        if isinstance(option, SessionConfigSelect):
            if not isinstance(value, str) or value not in {o.value for o in option.all_options()}:
                raise SessionError(f"{value!r} is not a value of the config option {config_id!r}")
        elif isinstance(option, SessionConfigBoolean):
            if not isinstance(value, bool):
                raise SessionError(f"the config option {config_id!r} takes true or false, not {value!r}")
        elif option is not None:
            raise SessionError(f"the config option {config_id!r} is of a kind this client cannot set")
        else:
            raise SessionError(f"the session has no config option {config_id!r}")
        if dialect.mode_request(config_id):
            await self._config_request("session/set_mode", {"sessionId": self.session_id, "modeId": value})
            for item in dialect.mode_changed(str(value)):
                self.apply(item)
            return
        params = codec.build_set_config_option(self.session_id, config_id, value, dialect.version)
        raw = await self._config_request("session/set_config_option", params)
        result = self.decode(codec.decode_set_config_option_result, raw, "session/set_config_option result")
        for item in dialect.config_result(ConfigOptionUpdate(config_options=result.config_options)):
            self.apply(item)

    async def _config_request(self, method: str, params: Any) -> msgspec.Raw:
        try:
            return await self.connection.request(method, params)
        except ConnectionClosed as exc:
            raise SessionError(f"the agent stopped during {method}: {exc}") from None

    async def shutdown(self, grace: float | None = None) -> None:
        """Stop the agent: release what the services started, then its host stops it for sure (a local one: close
        stdin, then SIGTERM, then SIGKILL its group).

        With `grace` (a quit) all of that is over within about `grace` seconds, whatever the agent does: the
        commands it ran get half of it, the agent the rest (half after its stdin closes, half after SIGTERM)."""
        self.turns.cancel_all()
        if grace is None:
            await self._close_services()
            await self.transport.shutdown()
        else:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + grace
            for service in self.services:
                if isinstance(service, TerminalService):
                    service.kill_grace = min(service.kill_grace, grace / 2)
            await self._close_services()
            rest = max(deadline - loop.time(), grace / 4)
            await self.transport.shutdown(stdin_grace=rest / 2, term_grace=rest / 2, sweep_grace=0.0)
        if self._own_trace and isinstance(self.trace, WireTrace):
            self.trace.close()

    async def _close_services(self) -> None:
        """Release what every service started for this agent (processes, dialogs); each close is idempotent."""
        for service in self.services:
            try:
                await service.close()
            except Exception as exc:  # noqa: BLE001 - one failing service must not keep the others' processes alive
                self.report(WireProblem(f"closing the {service.name} service failed: {exc}", b""))

    # -- incoming --------------------------------------------------------------------------------

    def _on_stderr(self, line: str) -> None:
        if self.trace is not None:
            self.trace.record("stderr", line)
        self.emit(StderrLine(line))

    def _on_wire_problem(self, problem: WireProblem) -> None:
        self.report(problem)

    def _on_exit(self, info: ExitInfo) -> None:
        if self.services:
            # kept referenced until done; shutdown() closes again, which each service makes idempotent
            self._closing = asyncio.get_running_loop().create_task(self._close_services())
        self.apply(local.AgentExited(returncode=info.code, reason=info.describe()))

    # -- helpers ---------------------------------------------------------------------------------

    def apply(self, item: ModelInput) -> None:
        """Apply one input to the model and tell the listener what changed (the model's only writer)."""
        changes = apply(self.state, item)
        if changes:
            for change in changes:
                if isinstance(change, ProblemAdded):
                    self.frames.mark_last_received(change.reason)
            self.emit(ModelChanged(changes))

    def report(self, problem: WireProblem) -> None:
        """A problem with what the agent sent: marked on its frame and shown in the conversation."""
        self.apply(local.ProtocolProblem(problem.reason, problem.raw[:2000].decode("utf-8", "replace")))

    def decode(self, decoder: Callable[..., Any], raw: msgspec.Raw, what: str, *args: Any) -> Any:
        try:
            return decoder(bytes(raw), *args)
        except MalformedMessage as exc:
            raise SessionError(f"the agent sent an invalid {what}: {exc.reason}") from None


def _tool_call_of(session: AgentSession, session_id: str, tool_call_id: str) -> ToolCall | None:
    """The tool call `tool_call_id` names in `session_id`'s model: a subagent's own, else the session's."""
    child = session.state.subagents.get(session_id)
    if child is not None and (call := child.model.tool_call(tool_call_id)) is not None:
        return call
    return session.state.tool_call(tool_call_id)


def _owns_session(session: AgentSession, session_id: str) -> bool:
    """A request naming `session_id` is this connection's to answer: the session's, a subagent's, or the one
    being opened (a plain function, not a method: `AgentSession` keeps to its size)."""
    opening = session.routing.opening.session_id if session.routing.opening is not None else None
    return (
        session.session_id is None
        or session_id in (session.session_id, opening)
        or session_id in session.state.subagents
    )


class _CurrentDialect:
    """What the services see as the dialect: always the current session's (each session has its own).

    An explicit delegate of exactly `SessionDialect`'s members: mypy checks it against the Protocol where
    `_bind_services` puts it in the `ServiceContext`, and a service cannot reach past it into the dialect.
    """

    def __init__(self, session: AgentSession) -> None:
        self._session = session
        #: open permission requests a subagent asked, by request id: their model events go to its lane
        self._children: dict[int | str, str] = {}

    @property
    def version(self) -> int:
        return self._session.current_dialect().version

    def permission_request(self, params: bytes) -> methods.RequestPermissionRequest:
        return self._session.current_dialect().permission_request(params)

    def permission_opened(self, request_id: int | str, request: methods.RequestPermissionRequest) -> list[ModelInput]:
        items = self._session.current_dialect().permission_opened(request_id, request)
        child = request.session_id
        if child == self._session.session_id or child not in self._session.state.subagents:
            return items
        self._children[request_id] = child
        return [local.ChildUpdate(child, item) for item in items]

    def permission_closed(self, request_id: int | str, outcome: str) -> list[ModelInput]:
        items = self._session.current_dialect().permission_closed(request_id, outcome)
        child = self._children.pop(request_id, None)
        return items if child is None else [local.ChildUpdate(child, item) for item in items]


__all__ = ["AgentSession", "AuthRequired", "HandshakeTimeout", "SessionError", "SessionListener"]
