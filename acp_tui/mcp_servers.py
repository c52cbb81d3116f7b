"""MCP servers from `config.toml`, declared once and handed to every agent in its session setup.

ACP lets the client give the agent MCP servers in `session/new`, `session/load` and `session/resume`
(docs/protocol.md §3): stdio servers (a program the agent starts) and, where the agent advertises them,
`http` and `sse` servers (a URL). Here they are read from the config (`McpServerConfig`, values that
name a command not yet run) and, once resolved at launch (`acp_tui.config.resolve_mcp_servers`), held as
`McpServer`: what goes on the wire, whatever the version. Which of them an agent may take is the
dialect's business (`acp_tui.agent.dialect`); their wire shape the codec's.

    [mcp_servers.files]
    command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "~/src"]
    env = { LOG_LEVEL = "info" }

    [mcp_servers.web]
    url = "https://mcp.example.com/mcp"          # http; transport = "sse" for SSE
    headers = { Authorization = { command = ["pass", "web-token"] } }
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Literal
from urllib.parse import urlsplit

import msgspec

__all__ = ["McpServer", "McpServerConfig", "Transport", "parse_mcp_servers"]

Transport = Literal["stdio", "http", "sse"]
_KEYS = ("command", "env", "url", "transport", "headers")


class McpServerConfig(msgspec.Struct, frozen=True):
    """One `[mcp_servers.NAME]` table as written: stdio (`command`) or remote (`url`)."""

    name: str
    transport: Transport
    command: tuple[str, ...] = ()
    env: dict[str, str] = msgspec.field(default_factory=dict)
    #: variables whose value is the first line a command prints (fetched at launch; a secret)
    env_commands: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    header_commands: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)


class McpServer(msgspec.Struct, frozen=True):
    """A resolved server, ready for the wire: `command` is an absolute path (stdio), `url` set (http, sse)."""

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        """A line naming it (never a value of its env or headers: they may be secrets)."""
        where = shlex.join([self.command, *self.args]) if self.transport == "stdio" else self.url
        return f"{self.name} ({self.transport}: {where})"


def command_argv(value: object) -> tuple[str, ...] | None:
    """The argv of a command: a non-empty list of strings, or a string split like a shell would."""
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError:
            return None
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value) and value[0]:
        return tuple(value)
    return None


def _values(
    key: str, raw: object, bad: Callable[[str, str, object], None]
) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """A table of literal strings or `{ command = [...] }` values (env, headers)."""
    literal: dict[str, str] = {}
    commands: dict[str, tuple[str, ...]] = {}
    if not isinstance(raw, dict):
        bad(key, "a table of strings", raw)
        return literal, commands
    for name, value in raw.items():
        if isinstance(value, str):
            literal[name] = value
        elif isinstance(value, dict) and set(value) == {"command"} and (argv := command_argv(value["command"])):
            commands[name] = argv
        else:
            bad(f"{key}.{name}", 'a string or { command = ["program", "arg", ...] }', value)
    return literal, commands


def parse_mcp_servers(
    table: object, bad: Callable[[str, str, object], None], warnings: list[str], source: str
) -> dict[str, McpServerConfig]:
    """The `[mcp_servers]` tables; one that cannot be used is left out with a warning."""
    servers: dict[str, McpServerConfig] = {}
    if not isinstance(table, dict):
        bad("mcp_servers", "a table", table)
        return servers
    for name, entry in table.items():
        key = f"mcp_servers.{name}"
        if not isinstance(entry, dict):
            bad(key, "a table", entry)
            continue
        for sub in entry:
            if sub not in _KEYS:
                warnings.append(f"{source}: unknown setting '{key}.{sub}' ignored")
        has_command, has_url = "command" in entry, "url" in entry
        if has_command == has_url:
            warnings.append(f"{source}: '{key}' needs either 'command' (stdio) or 'url' (http, sse); server ignored")
            continue
        if has_command:
            argv = command_argv(entry["command"])
            if argv is None:
                bad(f"{key}.command", "a non-empty string or list of strings", entry["command"])
                continue
            env, env_commands = _values(f"{key}.env", entry.get("env", {}), bad)
            servers[name] = McpServerConfig(name, "stdio", command=argv, env=env, env_commands=env_commands)
            continue
        url, transport = entry["url"], entry.get("transport", "http")
        if not isinstance(url, str) or not url:
            bad(f"{key}.url", "a non-empty string", url)
            continue
        parsed = urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            warnings.append(f"{source}: '{key}.url' must be an http:// or https:// URL, not {url!r}; server ignored")
            continue
        if transport not in ("http", "sse"):
            bad(f"{key}.transport", '"http" or "sse"', transport)
            continue
        headers, header_commands = _values(f"{key}.headers", entry.get("headers", {}), bad)
        servers[name] = McpServerConfig(
            name, "http" if transport == "http" else "sse", url=url, headers=headers, header_commands=header_commands
        )
    return servers
