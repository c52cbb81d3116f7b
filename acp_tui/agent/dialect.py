"""The client-side differences between ACP v2 and v1, in one object per negotiated version.

Everything above the agent layer sees one v2-shaped model. `AgentSession` asks its dialect how to read
a session's setup result, how to route an update, how to present a permission request, whether a
session can be resumed, and how a prompt turn starts and ends; nothing else in the agent layer
branches on the version. v1 details (the implicit turn, synthetic modes, whole-file diffs) live in the
`V1Adapter`, which only this module's `V1Dialect` drives (docs/protocol.md §4.2, §5.6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec
from msgspec import UNSET

from acp_tui.mcp_servers import McpServer, Transport
from acp_tui.protocol import codec, methods
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.methods import RequestPermissionRequest, V1RequestPermissionRequest
from acp_tui.protocol.v1 import V1CurrentModeUpdate
from acp_tui.protocol.v2 import AvailableCommandsUpdate, ConfigOptionUpdate, ToolCallUpdate
from acp_tui.session import local_events as local
from acp_tui.session.reducer import ModelInput
from acp_tui.session.subagents import MAX_SUBAGENTS
from acp_tui.session.v1_adapter import V1_MODE_CONFIG_ID, V1Adapter, v2_permission_request

SessionSetup = methods.NewSessionResponse | methods.ResumeSessionResponse
#: How a past session is opened: v2 `session/resume` (with `replayFrom` when the history is wanted), v1
#: `session/load` (always replays) or v1 `session/resume` (never replays) (docs/protocol.md §3).
OpenMethod = Literal["resume", "resume_replay", "load"]


class SessionAbilities(msgspec.Struct, frozen=True):
    """Which session methods the agent advertised in `initialize` (docs/protocol.md §3); nothing else is called."""

    list: bool = False
    load: bool = False
    resume: bool = False
    close: bool = False
    delete: bool = False

    @property
    def can_open(self) -> bool:
        """Can a past session be opened at all (with or without its history)?"""
        return self.load or self.resume


class SessionTools(msgspec.Struct, frozen=True):
    """What a session's setup hands the agent: the MCP servers and extra folders it advertised it takes, and a
    line for each one it cannot (said in the conversation, never dropped silently)."""

    mcp_servers: tuple[McpServer, ...] = ()
    additional_directories: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

    def given(self) -> str:
        """A line naming what the agent is given ("" for nothing): server names and folders, never a value.
        Each group is counted and bracketed, so a folder is never read as one more server."""
        parts = []
        if self.mcp_servers:
            parts.append(_counted(len(self.mcp_servers), "MCP server", [server.name for server in self.mcp_servers]))
        if self.additional_directories:
            parts.append(_counted(len(self.additional_directories), "extra folder", self.additional_directories))
        return f"the agent is given {' and '.join(parts)}" if parts else ""

    def lines(self) -> tuple[str, ...]:
        """One line per server and folder the agent was given, then the ones it was not and why (the F4
        panel). Names, transports and folders only: a command's argv, env, url or header never appears."""
        given = [f"MCP server {server.name} ({server.transport})" for server in self.mcp_servers]
        given += [f"extra folder {folder}" for folder in self.additional_directories]
        return (*given, *self.refused)


def _counted(count: int, noun: str, names: Sequence[str]) -> str:
    """ "2 MCP servers (files, web)", "1 extra folder (~/src/lib)"."""
    return f"{count} {noun}{'' if count == 1 else 's'} ({', '.join(names)})"


def _servers_not_given(servers: Sequence[McpServer], accepted: frozenset[Transport]) -> str:
    """One line for every server the agent cannot take (one per server filled a small screen with warnings)."""
    if len(servers) == 1:
        (server,) = servers
        return f"MCP server '{server.name}' not given to the agent: it does not accept {server.transport} servers"
    if not accepted:
        names = ", ".join(f"'{server.name}'" for server in servers)
        return f"MCP servers {names} not given to the agent: it takes no MCP servers"
    names = ", ".join(f"'{server.name}' ({server.transport})" for server in servers)
    takes = " and ".join(sorted(accepted))
    return f"MCP servers {names} not given to the agent: it accepts only {takes} servers"


class Dialect:
    """One protocol version's client rules; subclasses fill in what differs."""

    version: int = 2
    #: v2 moved terminals to the agent (`terminal/cancel` stops one); in v1 the client runs them
    agent_owns_terminals: bool = True

    def __init__(self, init: methods.InitializeResponse | None) -> None:
        self.init = init

    # -- session setup ---------------------------------------------------------------------------

    def can_resume(self) -> bool:
        """May `session/resume` be tried?"""
        return self.abilities().resume

    def abilities(self) -> SessionAbilities:
        """The session methods the agent advertised."""
        raise NotImplementedError

    def open_method(self, history: bool) -> OpenMethod | None:
        """How to open a past session: with its history replayed when `history` (and the agent can), else
        without (the screen already shows it); None when the agent offers neither."""
        abilities = self.abilities()
        if history and abilities.load:
            return "load"
        return "resume" if abilities.resume else None

    def resume_params(
        self, session_id: str, cwd: str, replay: bool, tools: SessionTools | None = None
    ) -> methods.ResumeSessionRequest:
        tools = tools or SessionTools()
        return codec.build_resume_session(
            session_id, cwd, self.version, replay, tools.mcp_servers, tools.additional_directories
        )

    def new_params(self, cwd: str, tools: SessionTools) -> methods.NewSessionRequest:
        return codec.build_new_session(cwd, tools.mcp_servers, tools.additional_directories, self.version)

    def mcp_transports(self) -> frozenset[Transport]:
        """The MCP server transports the agent advertised (docs/protocol.md §3)."""
        raise NotImplementedError

    def takes_additional_directories(self) -> bool:
        """Did the agent advertise `additionalDirectories` on session setup requests?"""
        raise NotImplementedError

    def session_tools(self, servers: Sequence[McpServer], folders: Sequence[str]) -> SessionTools:
        """The servers and folders this agent may be given, and why the others are not (schema `McpServer`:
        a transport is sent only where the agent advertises it; `additionalDirectories` likewise)."""
        transports = self.mcp_transports()
        given = tuple(server for server in servers if server.transport in transports)
        left_out = [server for server in servers if server.transport not in transports]
        refused = [_servers_not_given(left_out, transports)] if left_out else []
        dirs = tuple(folders) if self.takes_additional_directories() else ()
        if folders and not dirs:
            refused.append(
                f"extra folders not given to the agent: it does not accept additional directories ({', '.join(folders)})"
            )
        return SessionTools(given, dirs, tuple(refused))

    def session_ready(self, result: SessionSetup) -> list[ModelInput]:
        """The updates a setup result implies (config options, commands), to apply before anything else."""
        raise NotImplementedError

    # -- updates and requests --------------------------------------------------------------------

    def update(self, update: Any) -> list[ModelInput]:
        """One decoded update as the v2 updates the reducer applies."""
        raise NotImplementedError

    def child_update(self, session_id: str, update: Any) -> list[ModelInput]:
        """One decoded update of the subagent session `session_id` (session/subagents.py), as v2 updates."""
        return self.update(update)

    def permission_request(self, params: bytes) -> RequestPermissionRequest:
        """Decode `session/request_permission` params into the v2 shape (raises `MalformedMessage`)."""
        decoded = codec.decode_permission_request(params, self.version)
        if isinstance(decoded, V1RequestPermissionRequest):
            return v2_permission_request(decoded)
        return decoded

    def permission_opened(self, request_id: int | str, request: RequestPermissionRequest) -> list[ModelInput]:
        """What to apply when a permission request arrives."""
        return [local.PermissionRequested(request_id, request)]

    def permission_closed(self, request_id: int | str, outcome: str) -> list[ModelInput]:
        """What to apply once it is answered."""
        return [local.PermissionResolved(request_id, outcome)]

    # -- turns -----------------------------------------------------------------------------------

    def turn_started(self, request_id: int) -> list[ModelInput]:
        """A prompt was sent (v1: the turn starts now; v2: the agent says when)."""
        return []

    def turn_ended(self, stop_reason: Any) -> list[ModelInput]:
        """The prompt request was answered (v1: the turn is over)."""
        return []

    def turn_failed(self, error: ErrorObject | None, after_cancel: bool) -> list[ModelInput]:
        """The prompt request failed (v1: the turn is over)."""
        return []

    def message_accepted(self, items: list[ModelInput]) -> str:
        """The local user-message id among `turn_started`'s items ("" when the agent names it)."""
        return next((item.message_id for item in items if isinstance(item, local.PromptAccepted)), "")

    # -- config ----------------------------------------------------------------------------------

    def mode_request(self, config_id: str) -> bool:
        """True when `config_id` stands for v1 modes and is changed with `session/set_mode`."""
        return False

    def mode_changed(self, value: str) -> list[ModelInput]:
        return []

    def config_result(self, update: ConfigOptionUpdate) -> list[ModelInput]:
        return [update]


class V2Dialect(Dialect):
    """ACP v2: the agent reports its own states and user messages; ids name everything."""

    version = 2

    def __init__(self, init: methods.InitializeResponse | None) -> None:
        super().__init__(init)
        #: tool calls whose latest patch advertised `capabilities.cancel` (docs/protocol.md §6.1)
        self.cancellable_tools: set[str] = set()

    def abilities(self) -> SessionAbilities:
        # `session: {}` makes list, resume and close baseline; delete has its own marker (docs/protocol.md §2.3).
        caps = self.init.capabilities if self.init is not None else None
        session = caps.get("session") if isinstance(caps, dict) else None
        if not isinstance(session, dict):
            return SessionAbilities()
        return SessionAbilities(list=True, resume=True, close=True, delete=isinstance(session.get("delete"), dict))

    def _session_caps(self) -> dict[str, Any]:
        caps = self.init.capabilities if self.init is not None else None
        session = caps.get("session") if isinstance(caps, dict) else None
        return session if isinstance(session, dict) else {}

    def mcp_transports(self) -> frozenset[Transport]:
        # v2 `session.mcp.stdio` / `.http`: `{}` advertises one; v2 has no SSE (schema `McpCapabilities`)
        mcp = self._session_caps().get("mcp")
        if not isinstance(mcp, dict):
            return frozenset()
        found: set[Transport] = set()
        if isinstance(mcp.get("stdio"), dict):
            found.add("stdio")
        if isinstance(mcp.get("http"), dict):
            found.add("http")
        return frozenset(found)

    def takes_additional_directories(self) -> bool:
        return isinstance(self._session_caps().get("additionalDirectories"), dict)

    def open_method(self, history: bool) -> OpenMethod | None:
        if not self.abilities().resume:
            return None
        return "resume_replay" if history else "resume"

    def session_ready(self, result: SessionSetup) -> list[ModelInput]:
        out: list[ModelInput] = []
        if isinstance(result.config_options, list):
            out.append(ConfigOptionUpdate(config_options=result.config_options))
        if isinstance(result.available_commands, list):
            out.append(AvailableCommandsUpdate(available_commands=result.available_commands))
        return out

    def update(self, update: Any) -> list[ModelInput]:
        if type(update) is ToolCallUpdate and update.capabilities not in (UNSET, None):
            if update.capabilities.cancel not in (UNSET, None):
                self.cancellable_tools.add(update.tool_call_id)
            else:
                self.cancellable_tools.discard(update.tool_call_id)
        return [update]


class V1Dialect(Dialect):
    """ACP v1: a turn is the pending `session/prompt`; modes are a config option; whole-file diffs."""

    version = 1
    agent_owns_terminals = False

    def __init__(self, init: methods.InitializeResponse | None, adapter: V1Adapter | None = None) -> None:
        super().__init__(init)
        self.adapter = adapter if adapter is not None else V1Adapter()
        #: each subagent session's own adapter (its implicit turns and message ids are not the parent's)
        self._children: dict[str, V1Adapter] = {}
        #: the adapter of each open permission request a subagent asked
        self._asking: dict[int | str, V1Adapter] = {}

    def abilities(self) -> SessionAbilities:
        node: Any = self.init.agent_capabilities if self.init else None
        return SessionAbilities(
            list=self._capability("sessionCapabilities", "list"),
            load=isinstance(node, dict) and node.get("loadSession") is True,
            resume=self._capability("sessionCapabilities", "resume"),
            close=self._capability("sessionCapabilities", "close"),
            delete=self._capability("sessionCapabilities", "delete"),
        )

    def session_ready(self, result: SessionSetup) -> list[ModelInput]:
        options = result.config_options if isinstance(result.config_options, list) else None
        modes = result.modes if result.modes not in (UNSET, None) else None
        self.adapter.configure(modes=modes, config_options=options)  # a load's replay went through it already
        return self.adapter.initial_updates()

    def update(self, update: Any) -> list[ModelInput]:
        return self.adapter.update(update)

    def child_update(self, session_id: str, update: Any) -> list[ModelInput]:
        adapter = self._children.get(session_id)
        if adapter is None:
            adapter = V1Adapter()
            if len(self._children) < MAX_SUBAGENTS:  # past the cap the reducer shows none of it anyway
                self._children[session_id] = adapter
        return adapter.update(update)

    def permission_opened(self, request_id: int | str, request: RequestPermissionRequest) -> list[ModelInput]:
        # The v2-shaped subject patches the tool call; v1 has no states, so the adapter synthesises one.
        adapter = self._children.get(request.session_id, self.adapter)
        if adapter is not self.adapter:
            self._asking[request_id] = adapter
        return [local.PermissionRequested(request_id, request), *adapter.permission_requested(None)]

    def permission_closed(self, request_id: int | str, outcome: str) -> list[ModelInput]:
        adapter = self._asking.pop(request_id, self.adapter)
        return [local.PermissionResolved(request_id, outcome), *adapter.permission_resolved()]

    def turn_started(self, request_id: int) -> list[ModelInput]:
        return self.adapter.turn_started(request_id)

    def turn_ended(self, stop_reason: Any) -> list[ModelInput]:
        return self.adapter.turn_ended(stop_reason)

    def turn_failed(self, error: ErrorObject | None, after_cancel: bool) -> list[ModelInput]:
        return self.adapter.turn_failed(error, after_cancel=after_cancel)

    def mode_request(self, config_id: str) -> bool:
        return self.adapter.synthetic_modes and config_id == V1_MODE_CONFIG_ID

    def mode_changed(self, value: str) -> list[ModelInput]:
        return self.adapter.update(V1CurrentModeUpdate(current_mode_id=value))

    def config_result(self, update: ConfigOptionUpdate) -> list[ModelInput]:
        return self.adapter.update(update)

    def mcp_transports(self) -> frozenset[Transport]:
        # v1: every agent takes stdio; `mcpCapabilities.http` / `.sse` are booleans (schema `McpCapabilities`)
        node: Any = self.init.agent_capabilities if self.init else None
        mcp = node.get("mcpCapabilities") if isinstance(node, dict) else None
        found: set[Transport] = {"stdio"}
        if isinstance(mcp, dict):
            found.update(transport for transport in ("http", "sse") if mcp.get(transport) is True)
        return frozenset(found)

    def takes_additional_directories(self) -> bool:
        return self._capability("sessionCapabilities", "additionalDirectories")

    def _capability(self, *path: str) -> bool:
        node: Any = self.init.agent_capabilities if self.init else None
        for key in path:
            if not isinstance(node, dict):
                return False
            node = node.get(key)
        return node not in (None, False, UNSET)


def dialect_for(version: int, init: methods.InitializeResponse | None) -> Dialect:
    """The dialect of a negotiated version."""
    return V1Dialect(init) if version == 1 else V2Dialect(init)


__all__ = ["Dialect", "OpenMethod", "SessionAbilities", "V1Dialect", "V2Dialect", "dialect_for"]
