"""User settings from `config.toml`: a broken file never stops the app, it yields warnings and defaults.

Example::

    theme = "nord"
    default_agent = "claude"     # a name under [agents], or the id of an installed registry agent
    init_timeout = 30
    client_files = true          # offer v1 agents file reads and writes through acp-tui (ACP `fs`)
    client_terminals = true      # run v1 agents' commands in acp-tui (ACP `terminal`); false: they run their own
    outside_writes = "ask"       # a write outside the session folder: "ask" (a dialog) or "refuse"
    outside_reads = "allow"      # a read outside it: "allow" (marked ⚠ in the conversation), "ask" or "refuse"
    attention = true             # bell + desktop notification when the agent waits and the window is unfocused
    registry = "https://…/registry.json"   # the ACP agent registry's index: a mirror's URL or a file (acp-tui agents)

    [agents.claude]
    command = ["npx", "@agentclientprotocol/claude-agent-acp"]
    env = { ANTHROPIC_LOG = "debug" }
    cwd = "~/src"

    [agents.codex]
    command = "codex-acp"
    env = { OPENAI_API_KEY = { command = ["pass", "openai"] } }   # the first line of its output is the key

    [agents.gemini]
    command = "gemini --acp"     # a string is split like a shell would (no shell is run)
    mcp_servers = ["files"]      # only these of the [mcp_servers] below ([] for none; absent: all)
    add_dirs = ["~/src/lib"]     # extra folders for the session (ACP `additionalDirectories`)

    [mcp_servers.files]          # given to every agent in session/new, load and resume (acp_tui.mcp_servers)
    command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "~/src"]

A TOML syntax error discards the whole file (the message names the file, line and column). A value of
the wrong type discards only that key (the message names the file and the key). Unknown keys are
reported and ignored, so typos do not pass silently. A relative agent `cwd` is taken from the
directory acp-tui is started in.

An `env` value may name a command instead of holding the value (a key kept in a password manager stays
out of the file and the shell history); `resolve_env` runs it when the agent is launched, before the
UI starts, and registers its output as a secret (acp_tui.secrets: redacted wherever acp-tui writes or
shows text), as it does for literal values of variables whose name says they hold a key.

The app writes one key back: the theme picked in the command palette (`save_theme`). It changes that
one line and nothing else, so the user's comments, order and formatting survive.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import msgspec

from acp_tui import secrets
from acp_tui.mcp_servers import McpServer, McpServerConfig, command_argv, parse_mcp_servers

__all__ = ["NamedAgent", "Settings", "load_settings", "parse_settings", "save_theme", "with_theme"]
__all__ += ["ENV_COMMAND_TIMEOUT", "resolve_env", "resolve_mcp_servers"]

#: How long an `env` command may take (it may ask for a passphrase on the terminal).
ENV_COMMAND_TIMEOUT = 120.0
#: Variable (and header) names whose literal values are treated as secrets.
#: what an ACP registry id looks like (the registry's schema): `default_agent` may name an installed one
_REGISTRY_ID = re.compile(r"^[a-z][a-z0-9-]{0,127}$")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTHORIZATION|COOKIE", re.IGNORECASE)


class NamedAgent(msgspec.Struct, frozen=True):
    """An agent defined in the config: `acp-tui NAME [ARGS...]` runs `command + ARGS`."""

    command: list[str]
    env: dict[str, str] = msgspec.field(default_factory=dict)
    cwd: str | None = None
    #: variables whose value is the first line a command prints (`env = { K = { command = [...] } }`)
    env_commands: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    #: the `[mcp_servers]` this agent gets, by name (None: all of them; empty: none)
    mcp_servers: tuple[str, ...] | None = None
    #: extra folders for its sessions (ACP `additionalDirectories`), as written (`~` and relative allowed)
    add_dirs: tuple[str, ...] = ()


class Settings(msgspec.Struct, frozen=True):
    """Everything `config.toml` can set; the defaults are what an absent file means."""

    theme: str | None = None
    default_agent: str | None = None
    agents: Mapping[str, NamedAgent] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    init_timeout: float = 30.0
    #: offer v1 agents `fs/read_text_file` / `fs/write_text_file` (answered either way, docs/protocol.md §10.2)
    client_files: bool = True
    #: offer v1 agents `terminal/*` (commands run by acp-tui, docs/protocol.md §10.2); off, agents run their own
    client_terminals: bool = True
    #: what a write outside the session's folder gets: a dialog ("ask") or an error ("refuse")
    outside_writes: Literal["ask", "refuse"] = "ask"
    #: what a read outside the session's folder gets: served and marked ("allow"), a dialog ("ask"), an error
    outside_reads: Literal["allow", "ask", "refuse"] = "allow"
    #: ring the bell and post a desktop notification when the agent waits for the user in an unfocused window
    attention: bool = True
    #: MCP servers handed to agents in their session setup (`[mcp_servers.NAME]`), in file order
    mcp_servers: Mapping[str, McpServerConfig] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    #: where the ACP agent registry's index comes from (a URL or a file; acp_tui/registry), None: the published one
    registry: str | None = None
    #: why the file could not be used at all (where and what, e.g. its TOML error), so everything above is a
    #: default; None when it was read (or there is none)
    broken: str | None = None


_TOP_KEYS = (
    "theme",
    "default_agent",
    "init_timeout",
    "agents",
    "client_files",
    "client_terminals",
    "outside_writes",
    "outside_reads",
    "attention",
    "mcp_servers",
    "registry",
)
_AGENT_KEYS = ("command", "env", "cwd", "mcp_servers", "add_dirs")
_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_AT_END = "(at end of document)"


def load_settings(path: Path) -> tuple[Settings, list[str]]:
    """Read settings from `path`; a missing file is not an error. Never raises."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings(), []
    except OSError as exc:
        broken = f"{path}: cannot read settings ({exc.strerror or exc})"
        return Settings(broken=broken), [f"{broken}; using defaults"]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        broken = f"{path}:{line}: settings file is not valid UTF-8"
        return Settings(broken=broken), [f"{broken}; using defaults"]
    return parse_settings(text, str(path))


def parse_settings(text: str, source: str) -> tuple[Settings, list[str]]:
    """Parse TOML settings text; `source` names the file in warnings. Never raises."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        position = _POSITION.search(message)
        if position is not None:
            where = f"{source}:{position.group(1)}:{position.group(2)}"
            message = message[: position.start()]
        elif message.endswith(_AT_END):
            where = f"{source}:{text.count(chr(10)) + 1}:{len(text) - text.rfind(chr(10))}"
            message = message.removesuffix(_AT_END).rstrip()
        else:
            where = source
        broken = f"{where}: invalid TOML: {message}"
        return Settings(broken=broken), [f"{broken}; using default settings"]
    warnings: list[str] = []

    def bad(key: str, expected: str, value: object) -> None:
        line = _line_of(text, key)
        where = f"{source}:{line}" if line else source
        warnings.append(f"{where}: '{key}' must be {expected}, not {_type_name(value)}; ignoring it")

    for key in data:
        if key not in _TOP_KEYS:
            warnings.append(f"{source}: unknown setting '{key}' ignored")

    theme = data.get("theme")
    if theme is not None and not isinstance(theme, str):
        bad("theme", "a string", theme)
        theme = None

    default_agent = data.get("default_agent")
    if default_agent is not None and not isinstance(default_agent, str):
        bad("default_agent", "a string", default_agent)
        default_agent = None

    registry = data.get("registry")
    if registry is not None and (not isinstance(registry, str) or not registry.strip()):
        bad("registry", "a URL or a file path", registry)
        registry = None

    init_timeout = 30.0
    value = data.get("init_timeout")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            bad("init_timeout", "a positive number of seconds", value)
        else:
            init_timeout = float(value)

    client_files = True
    value = data.get("client_files")
    if value is not None:
        if isinstance(value, bool):
            client_files = value
        else:
            bad("client_files", "true or false", value)

    client_terminals = True
    value = data.get("client_terminals")
    if value is not None:
        if isinstance(value, bool):
            client_terminals = value
        else:
            bad("client_terminals", "true or false", value)

    outside_writes: Literal["ask", "refuse"] = "ask"
    value = data.get("outside_writes")
    if value == "refuse":
        outside_writes = "refuse"
    elif isinstance(value, str) and value != "ask":
        line = _line_of(text, "outside_writes")
        where = f"{source}:{line}" if line else source
        warnings.append(f'{where}: \'outside_writes\' must be "ask" or "refuse", not {value!r}; asking')
    elif value is not None and value != "ask":
        bad("outside_writes", '"ask" or "refuse"', value)

    outside_reads: Literal["allow", "ask", "refuse"] = "allow"
    value = data.get("outside_reads")
    if value in ("ask", "refuse"):
        outside_reads = "ask" if value == "ask" else "refuse"
    elif isinstance(value, str) and value != "allow":
        line = _line_of(text, "outside_reads")
        where = f"{source}:{line}" if line else source
        warnings.append(f'{where}: \'outside_reads\' must be "allow", "ask" or "refuse", not {value!r}; allowing')
    elif value is not None and value != "allow":
        bad("outside_reads", '"allow", "ask" or "refuse"', value)

    attention = True
    value = data.get("attention")
    if value is not None:
        if isinstance(value, bool):
            attention = value
        else:
            bad("attention", "true or false", value)

    agents: dict[str, NamedAgent] = {}
    table = data.get("agents", {})
    if not isinstance(table, dict):
        bad("agents", "a table", table)
        table = {}
    for name, entry in table.items():
        agent = _parse_agent(f"agents.{name}", entry, bad, warnings, source)
        if agent is not None:
            agents[name] = agent

    mcp_servers = parse_mcp_servers(data.get("mcp_servers", {}), bad, warnings, source)
    for name, agent in list(agents.items()):
        unknown = [server for server in agent.mcp_servers or () if server not in mcp_servers]
        if unknown:
            warnings.append(f"{source}: 'agents.{name}.mcp_servers' names no [mcp_servers] {', '.join(unknown)}")
            kept = tuple(server for server in agent.mcp_servers or () if server in mcp_servers)
            agents[name] = NamedAgent(agent.command, agent.env, agent.cwd, agent.env_commands, kept, agent.add_dirs)

    # a name not under [agents] may be a registry agent's id: whether one is installed is the launch's to say
    # (acp_tui/registry/launching.py; the config layer does not look into the data folder)
    if default_agent is not None and default_agent not in agents and not _REGISTRY_ID.match(default_agent):
        warnings.append(
            f"{source}: default_agent '{default_agent}' is not defined under [agents] (nor a registry agent's id)"
        )
        default_agent = None

    settings = Settings(
        theme=theme,
        default_agent=default_agent,
        agents=MappingProxyType(agents),
        init_timeout=init_timeout,
        client_files=client_files,
        client_terminals=client_terminals,
        outside_writes=outside_writes,
        outside_reads=outside_reads,
        attention=attention,
        mcp_servers=MappingProxyType(mcp_servers),
        registry=registry,
    )
    return settings, warnings


def _parse_agent(
    key: str,
    entry: object,
    bad: Callable[[str, str, object], None],
    warnings: list[str],
    source: str,
) -> NamedAgent | None:
    """One `[agents.NAME]` table, or None (with a warning) if it cannot be used."""
    if not isinstance(entry, dict):
        bad(key, "a table", entry)
        return None
    for sub in entry:
        if sub not in _AGENT_KEYS:
            warnings.append(f"{source}: unknown setting '{key}.{sub}' ignored")
    command = entry.get("command")
    argv: list[str] | None = None
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            warnings.append(f"{source}: '{key}.command' cannot be split ({exc}); agent ignored")
            return None
    elif isinstance(command, list) and all(isinstance(part, str) for part in command):
        argv = list(command)
    elif command is None:
        warnings.append(f"{source}: '{key}' has no 'command'; agent ignored")
        return None
    else:
        bad(f"{key}.command", "a string or a list of strings", command)
        return None
    if not argv or not argv[0]:
        warnings.append(f"{source}: '{key}.command' is empty; agent ignored")
        return None

    env: dict[str, str] = {}
    env_commands: dict[str, tuple[str, ...]] = {}
    raw_env = entry.get("env", {})
    if not isinstance(raw_env, dict):
        bad(f"{key}.env", "a table of strings", raw_env)
    else:
        for name, value in raw_env.items():
            if isinstance(value, str):
                env[name] = value
            elif (
                isinstance(value, dict)
                and set(value) == {"command"}
                and (found := _env_command(value["command"])) is not None
            ):
                env_commands[name] = found
            else:
                bad(f"{key}.env.{name}", 'a string or { command = ["program", "arg", ...] }', value)

    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        bad(f"{key}.cwd", "a string", cwd)
        cwd = None
    servers: tuple[str, ...] | None = None
    value = entry.get("mcp_servers")
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        servers = tuple(value)
    elif value is not None:
        bad(f"{key}.mcp_servers", "a list of server names", value)
    add_dirs: tuple[str, ...] = ()
    value = entry.get("add_dirs")
    if isinstance(value, list) and all(isinstance(item, str) and item for item in value):
        add_dirs = tuple(value)
    elif value is not None:
        bad(f"{key}.add_dirs", "a list of folders", value)
    return NamedAgent(command=argv, env=env, cwd=cwd, env_commands=env_commands, mcp_servers=servers, add_dirs=add_dirs)


def _env_command(value: object) -> tuple[str, ...] | None:
    """The argv of an `env` command: a non-empty list of strings, or a string split like a shell would."""
    return command_argv(value)


def resolve_env(agent: NamedAgent, *, name: str = "agent") -> tuple[dict[str, str], list[str]]:
    """The agent's environment: literal values, and each command's first output line; plus warnings.

    Runs each command with the terminal still ours (stdin and stderr inherited: a password manager may
    ask for a passphrase), at most `ENV_COMMAND_TIMEOUT` seconds. A command that fails leaves its
    variable unset with a warning; the rest of the launch goes on. Values are registered as secrets.
    """
    env = dict(agent.env)
    warnings: list[str] = []
    for variable, value in env.items():
        if _SECRET_NAME.search(variable):
            secrets.register(value)
    for variable, argv in agent.env_commands.items():
        fetched = _command_value(argv, f"agents.{name}.env.{variable}", warnings)
        if fetched is not None:
            env[variable] = fetched
    return env, warnings


def _command_value(argv: tuple[str, ...], where: str, warnings: list[str]) -> str | None:
    """The first line `argv` prints, registered as a secret; None (and a warning) when it gives none."""
    try:
        done = subprocess.run(list(argv), stdout=subprocess.PIPE, timeout=ENV_COMMAND_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        warnings.append(f"{where}: “{shlex.join(argv)}” took longer than {ENV_COMMAND_TIMEOUT:g} s; not set")
        return None
    except OSError as exc:
        warnings.append(f"{where}: “{shlex.join(argv)}” could not run ({exc.strerror or exc}); not set")
        return None
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    value = lines[0].strip() if lines else ""
    if done.returncode != 0 or not value:
        why = f"exited with status {done.returncode}" if done.returncode != 0 else "printed nothing"
        warnings.append(f"{where}: “{shlex.join(argv)}” {why}; not set")
        return None
    secrets.register(value)
    return value


def resolve_mcp_servers(
    servers: Mapping[str, McpServerConfig], *, search_path: str | None = None
) -> tuple[list[McpServer], list[str]]:
    """The servers ready for the wire, plus warnings: each command run now (its output a secret, as for agent
    `env`), a stdio program found on `search_path` (the wire wants an absolute path), `~` in its arguments
    expanded. A server whose program is not found is left out with a warning; a value that could not be
    fetched is left unset (the server still goes)."""
    resolved: list[McpServer] = []
    warnings: list[str] = []
    for name, config in servers.items():
        where = f"mcp_servers.{name}"
        if config.transport == "stdio":
            program = os.path.expanduser(config.command[0])
            found = shutil.which(program, path=search_path) if not os.path.isabs(program) else program
            if found is None or not os.access(found, os.X_OK):
                warnings.append(f"{where}: cannot run '{config.command[0]}' (not found or not executable); not given")
                continue
            env = _resolved_values(config.env, config.env_commands, f"{where}.env", warnings)
            args = tuple(os.path.expanduser(arg) if arg.startswith("~") else arg for arg in config.command[1:])
            resolved.append(McpServer(name, "stdio", command=os.path.abspath(found), args=args, env=env))
        else:
            headers = _resolved_values(config.headers, config.header_commands, f"{where}.headers", warnings)
            resolved.append(McpServer(name, config.transport, url=config.url, headers=headers))
    return resolved, warnings


def _resolved_values(
    literal: Mapping[str, str], commands: Mapping[str, tuple[str, ...]], where: str, warnings: list[str]
) -> tuple[tuple[str, str], ...]:
    """Env or header pairs: literals (secret when the name says so) and each command's output (a secret)."""
    out = dict(literal)
    for key, value in literal.items():
        if _SECRET_NAME.search(key):
            secrets.register(value)
    for key, argv in commands.items():
        fetched = _command_value(argv, f"{where}.{key}", warnings)
        if fetched is not None:
            out[key] = fetched
    return tuple(out.items())


_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")


def _line_of(text: str, key: str) -> int | None:
    """Best-effort line of `key` (dotted path) for warnings: its `name =` line inside its table.

    A key inside an inline table (`env = { B = 2 }`) is reported at its parent's line.
    """
    line = _assignment_line(text, key)
    if line is None and "." in key:
        return _line_of(text, key.rsplit(".", 1)[0])
    return line


def _assignment_line(text: str, key: str) -> int | None:
    *table_parts, name = key.split(".")
    table = ".".join(table_parts)
    assignment = re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*=")
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header is not None:
            current = re.sub(r"\s*\.\s*", ".", header.group(1)).replace('"', "").replace("'", "")
            if current == key:
                return number
            continue
        if current == table and assignment.match(line):
            return number
    return None


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array" if all(isinstance(v, str) for v in value) else "an array with non-string items"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


_THEME_LINE = re.compile(
    r"""^(?P<key>[ \t]*(?:theme|"theme"|'theme')[ \t]*=[ \t]*)"""
    r"""(?P<value>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^#\r\n]*?)"""
    r"""(?P<rest>[ \t]*(?:#[^\r\n]*)?)(?P<eol>\r?\n?)$"""
)
_TABLE_LINE = re.compile(r"^[ \t]*\[")
_ASSIGNMENT_LINE = re.compile(r"^[ \t]*[A-Za-z0-9_\-\"'.]+[ \t]*=")


def with_theme(text: str, theme: str) -> str:
    """`text` (a config file) with its top-level `theme` set to `theme`, every other line untouched.

    The value on an existing `theme = ...` line is replaced (its comment kept); without one, the key is
    added after the last top-level setting (or first, when there is none). Raises ValueError when the
    edit cannot be made safely: the file is not valid TOML, or the result would change anything else.
    """
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"it is not valid TOML ({exc})") from exc
    value = json.dumps(theme, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    top_level = next((i for i, line in enumerate(lines) if _TABLE_LINE.match(line)), len(lines))
    for index in range(top_level):
        match = _THEME_LINE.match(lines[index])
        if match is not None:
            rest = match["rest"] if match["rest"].strip() else ""
            lines[index] = f"{match['key']}{value}{rest}{match['eol'] or ''}"
            break
    else:
        last = max((i for i in range(top_level) if _ASSIGNMENT_LINE.match(lines[i])), default=-1)
        if last >= 0 and not lines[last].endswith("\n"):
            lines[last] += newline
        lines.insert(last + 1, f"theme = {value}{newline}")
    result = "".join(lines)
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"the edit would break it ({exc})") from exc
    if after.get("theme") != theme or {**after, "theme": None} != {**before, "theme": None}:
        raise ValueError("the theme line could not be changed on its own")
    return result


def save_theme(path: Path, theme: str) -> str | None:
    """Set `theme = "<theme>"` in the settings file at `path` (created if missing); never raises.

    Returns None on success, else a message for the user: the file is left as it was.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        return f"{path}: cannot read settings ({exc}); the theme was not saved"
    try:
        updated = with_theme(text, theme)
    except ValueError as exc:
        return f"{path}: {exc}; the theme was not saved"
    if updated == text:
        return None
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, prefix=".config-", suffix=".toml", delete=False, newline=""
        ) as file:
            temporary = file.name
            file.write(updated)
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)  # atomic: a crash leaves the old file or the new one, never half
    except OSError as exc:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
        return f"{path}: cannot write settings ({exc.strerror or exc}); the theme was not saved"
    return None
