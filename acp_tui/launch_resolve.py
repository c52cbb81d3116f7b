"""Which agent a launch names, and how it starts: a `LaunchRequest` (the words a person gave) -> a checked `Launch`.

The command line (`acp_tui.cli`) turns argv into a request; *New tab with agent…* (`tab_launch`, the UI's
`TabLauncher`) builds one from the dialog's words without an argv. Both resolve it here the same way: a named
agent from config.toml, else a well-known one from the catalogue, else the words as a command line, else the
default agent, else the demo; its folder, variables, MCP servers and extra folders; and a program that can run.
A problem the user can fix is a `LaunchError`: one line, and the shell's conventional exit status.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from acp_tui import paths
from acp_tui.catalogue import CATALOGUE, DEMO_AGENTS_ENV, catalogue_agent, installed
from acp_tui.config import NamedAgent, Settings, load_settings, resolve_env, resolve_mcp_servers
from acp_tui.launch import Launch, LaunchProblem, Protocol, new_session
from acp_tui.mcp_servers import McpServer

EXIT_USAGE = 2
EXIT_NOT_EXECUTABLE = 126
EXIT_NOT_FOUND = 127


class LaunchError(LaunchProblem):
    """A problem the user must fix; `str()` is the one line to print, `code` the exit status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    """What a person asked to start, before it is resolved: the command line's options, or a new tab's words.

    The error lines name the command line's flags (`--cwd`, `--mcp`): a tab's request sets only `agent`, `cwd`
    (a folder already checked) and `protocol`, which cannot fail that way.
    """

    #: a named or well-known agent and its extra words, or a command line; empty: the default agent, else the demo
    agent: tuple[str, ...] = ()
    cwd: str | None = None  # `--cwd`: relative to here
    protocol: Protocol = "auto"
    theme: str | None = None
    log: str | None = None  # `--log` (else `ACP_TUI_LOG`)
    init_timeout: float | None = None
    client_terminals: bool | None = None  # `--no-client-terminals` (None: the setting)
    resume: bool = False  # `--resume`, with `resume_id` or to pick from the list
    resume_id: str | None = None
    continue_last: bool = False
    mcp: tuple[str, ...] = ()  # `--mcp NAME...`
    no_mcp: bool = False
    add_dirs: tuple[str, ...] = ()  # `--add-dir`


def agent_names(search_path: str | None = None) -> list[tuple[str, str]]:
    """The agents a name starts, as `resolve_launch` takes them, read now (config.toml as it is, `PATH` as it is):
    each named agent (`config.toml`), then each installed well-known one no named agent shadows (its title)."""
    try:
        settings, _warnings = load_settings(paths.config_file())
    except OSError:
        named: list[str] = []
    else:
        named = list(settings.agents)
    path = os.environ.get("PATH", os.defpath) if search_path is None else search_path
    return [(name, "config.toml") for name in named] + [
        (agent.name, agent.title) for agent in CATALOGUE if agent.name not in named and installed(agent, path)
    ]


def demo_argv() -> list[str]:
    """The built-in demo agent, run with this interpreter."""
    return [sys.executable, "-m", "acp_tui.demo"]


_LAUNCHERS = frozenset(
    {"npx", "bunx", "pnpx", "uvx", "pipx", "yarn", "pnpm", "bun", "deno", "node", "python", "python3"}
)
_LAUNCHER_VERBS = frozenset({"run", "exec", "dlx", "x"})


def _display_name(argv: Sequence[str]) -> str:
    """A short label for the agent: the program name, or the package a launcher such as npx runs."""
    program = Path(argv[0]).name.removesuffix(".exe") or argv[0]
    if program not in _LAUNCHERS:
        return program
    for word in argv[1:]:
        if word.startswith("-") or word in _LAUNCHER_VERBS:
            continue
        package = word.rsplit("/", 1)[-1]  # "@scope/name@1.2" -> "name@1.2", "dir/a.js" -> "a.js"
        if not package.startswith("@"):
            package = package.split("@", 1)[0]
        return package or program
    return program


def _check_executable(program: str, env: Mapping[str, str]) -> None:
    """Raise LaunchError (127/126) unless `program` can be executed as the agent's argv[0]."""
    quoted = f"'{program}'"
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        path = Path(program)
        if not path.exists():
            raise LaunchError(f"cannot run {quoted}: no such file", EXIT_NOT_FOUND)
        if path.is_dir():
            raise LaunchError(f"cannot run {quoted}: is a directory", EXIT_NOT_EXECUTABLE)
        if not os.access(path, os.X_OK):
            raise LaunchError(f"cannot run {quoted}: permission denied", EXIT_NOT_EXECUTABLE)
        return
    search_path = env.get("PATH", os.environ.get("PATH", os.defpath))
    if shutil.which(program, path=search_path) is not None:
        return
    for directory in search_path.split(os.pathsep):
        candidate = Path(directory or ".") / program
        if candidate.is_file():
            raise LaunchError(f"cannot run {quoted}: permission denied", EXIT_NOT_EXECUTABLE)
    raise LaunchError(f"cannot run {quoted}: command not found", EXIT_NOT_FOUND)


def _directory(value: str, what: str, base: Path) -> Path:
    path = Path(value).expanduser()
    if not path.is_absolute():
        path = base / path
    path = Path(os.path.normpath(path))
    if not path.is_dir():
        raise LaunchError(f"{what} '{value}': not a directory", EXIT_USAGE)
    return path


def resolve_launch(
    request: LaunchRequest, settings: Settings, warnings: Sequence[str], environ: Mapping[str, str] | None = None
) -> Launch:
    """Resolve the agent (named, default, demo or literal argv) and validate it; raises LaunchError."""
    environ = os.environ if environ is None else environ
    agent = request.agent
    here = Path.cwd()
    named: NamedAgent | None = None
    name: str | None = None
    is_demo = False
    if agent:
        known = catalogue_agent(agent[0])
        if agent[0] in settings.agents:
            name = agent[0]
            named = settings.agents[name]
            argv = [*named.command, *agent[1:]]
        elif known is not None and (len(agent) == 1 or known.command[0] != agent[0]):
            # a catalogue agent by its short name; `gemini --acp` spelled out stays the user's own command
            name = known.name
            argv = [*known.command, *agent[1:]]
        else:
            argv = list(agent)
    elif settings.default_agent is not None and settings.default_agent in settings.agents:
        name = settings.default_agent  # under [agents], or an installed registry agent (`registry_agents`)
        named = settings.agents[name]
        argv = list(named.command)
    else:
        if settings.default_agent is not None:
            warnings = [
                *warnings,
                f"default_agent '{settings.default_agent}' is neither under [agents] in config.toml nor an installed "
                "registry agent (acp-tui agents); running the demo",
            ]
        argv = demo_argv()
        name = "demo"
        is_demo = True

    env: dict[str, str] = dict(named.env) if named is not None else {}
    if is_demo:
        # the demo's welcome names the well-known agents installed here (acp_tui.demo.content.welcome)
        search_path = environ.get("PATH", os.defpath)
        found = [agent.name for agent in CATALOGUE if installed(agent, search_path)]
        if found:
            env[DEMO_AGENTS_ENV] = ",".join(found)
    if request.cwd is not None:
        cwd = _directory(request.cwd, "--cwd", here)
    elif named is not None and named.cwd is not None:
        cwd = _directory(named.cwd, f"cwd of agent '{name}'", here)
    else:
        cwd = here

    program = argv[0]
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        program = str(Path(os.path.normpath(here / Path(program).expanduser())))
        argv[0] = program
    try:
        _check_executable(program, {**environ, **env})
    except LaunchError as exc:
        known = catalogue_agent(name) if named is None and name is not None else None
        if known is None or exc.code != EXIT_NOT_FOUND:
            raise
        raise LaunchError(f"{exc} ({known.title}; install it with: {known.install})", exc.code) from None
    if named is not None:
        # `env` values that name a command are resolved now, before the UI, and kept as secrets (docs/protocol.md §2.4)
        env, env_warnings = resolve_env(named, name=name or "agent")
        warnings = [*warnings, *env_warnings]

    servers, folders, tool_warnings = _session_tools(request, settings, named, name, here, {**environ, **env})
    warnings = [*warnings, *tool_warnings]

    if request.resume and request.continue_last:
        raise LaunchError("--resume and --continue cannot be used together", EXIT_USAGE)
    log_value = request.log or environ.get("ACP_TUI_LOG") or None
    log_path = Path(os.path.normpath(here / Path(log_value).expanduser())) if log_value else None
    return Launch(
        agent_argv=tuple(argv),
        agent_name=name or _display_name(argv),
        env=MappingProxyType(env),
        cwd=cwd,
        protocol=request.protocol,
        theme=request.theme or settings.theme,
        log_path=log_path,
        init_timeout=request.init_timeout if request.init_timeout is not None else settings.init_timeout,
        warnings=tuple(warnings),
        is_demo=is_demo,
        client_files=settings.client_files,
        client_terminals=settings.client_terminals if request.client_terminals is None else request.client_terminals,
        outside_writes=settings.outside_writes,
        outside_reads=settings.outside_reads,
        attention=settings.attention,
        resume_id=request.resume_id,
        continue_last=request.continue_last,
        pick_session=request.resume and request.resume_id is None,
        mcp_servers=servers,
        add_dirs=folders,
    )


def _session_tools(
    request: LaunchRequest,
    settings: Settings,
    named: NamedAgent | None,
    name: str | None,
    here: Path,
    env: Mapping[str, str],
) -> tuple[tuple[McpServer, ...], tuple[Path, ...], list[str]]:
    """The MCP servers (resolved: their commands run now, values kept as secrets) and extra folders for the
    agent's sessions: `--no-mcp`, else `--mcp NAME...`, else the agent's `mcp_servers`, else every server."""
    chosen: list[str]
    mcp = request.mcp
    if request.no_mcp:
        if mcp:
            raise LaunchError("--mcp and --no-mcp cannot be used together", EXIT_USAGE)
        chosen = []
    elif mcp:
        unknown = [server for server in mcp if server not in settings.mcp_servers]
        if unknown:
            known = ", ".join(settings.mcp_servers) or "none are configured"
            raise LaunchError(f"--mcp {unknown[0]}: no such [mcp_servers] entry ({known})", EXIT_USAGE)
        chosen = list(dict.fromkeys(mcp))
    elif named is not None and named.mcp_servers is not None:
        chosen = list(named.mcp_servers)
    else:
        chosen = list(settings.mcp_servers)
    configs = {server: settings.mcp_servers[server] for server in chosen if server in settings.mcp_servers}
    servers, warnings = resolve_mcp_servers(configs, search_path=env.get("PATH", os.defpath))
    folders: list[Path] = []
    for value in [*(named.add_dirs if named is not None else ()), *request.add_dirs]:
        what = "--add-dir" if value in request.add_dirs else f"add_dirs of agent '{name}'"
        folder = _directory(value, what, here)
        if folder not in folders:
            folders.append(folder)
    return tuple(servers), tuple(folders), warnings


def tab_launch(
    base: Launch,
    agent: str,
    folder: str,
    *,
    with_agents: Callable[[Settings, Sequence[str]], Settings] | None = None,
) -> Launch:
    """A new tab's agent (`acp_tui.launch.TabLauncher`): resolved as the command line's, from config.toml as it is
    now, in `base`'s protocol, theme and log. `agent` empty keeps `base`'s agent; `folder` empty keeps its folder.
    `with_agents` adds agents known elsewhere (the command line adds the installed registry agents) to the
    settings for the agent's words. Raises LaunchProblem."""
    try:
        words = shlex.split(agent)
    except ValueError as exc:
        raise LaunchError(f"the agent command does not parse: {exc}", EXIT_USAGE) from None
    fresh = new_session(base, folder)
    if not words:
        return fresh
    settings, warnings = load_settings(paths.config_file())
    if with_agents is not None:
        settings = with_agents(settings, words)
    request = LaunchRequest(agent=tuple(words), cwd=str(fresh.cwd), protocol=base.protocol)
    return replace(resolve_launch(request, settings, warnings), theme=base.theme, log_path=base.log_path)


__all__ = [
    "EXIT_NOT_EXECUTABLE",
    "EXIT_NOT_FOUND",
    "EXIT_USAGE",
    "LaunchError",
    "LaunchRequest",
    "agent_names",
    "demo_argv",
    "resolve_launch",
    "tab_launch",
]
