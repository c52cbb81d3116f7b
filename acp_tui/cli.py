"""The `acp-tui` command: argv -> a `LaunchRequest`, resolved and checked before any UI starts
(`acp_tui.launch_resolve`, as a new tab's is), then the front end: `acp_tui.ui.app.run`, print mode, the check.

Options come first; the first non-option word (or everything after `--`) is the agent command, and the
rest is passed to the agent verbatim, so `acp-tui gemini --acp` gives `--acp` to gemini, not to us.
Problems the user can fix (missing command, bad directory) print one line on stderr and exit with the
shell's conventional code (127 not found, 126 not executable, 2 usage) instead of a traceback.
"""

from __future__ import annotations

import contextlib
import gc
import optparse
import os
import shlex
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from acp_tui import __version__, lineage, paths, typeahead
from acp_tui.catalogue import CATALOGUE, CHECKED, installed
from acp_tui.config import Settings, load_settings
from acp_tui.launch import Launch, Protocol
from acp_tui.launch_resolve import EXIT_USAGE, LaunchError, LaunchRequest, demo_argv, resolve_launch
from acp_tui.launch_resolve import tab_launch as resolve_tab_launch
from acp_tui.registry.launching import Missing, registry_agents

if TYPE_CHECKING:
    from acp_tui.agent.early_agent import EarlyAgent

__all__ = ["build_launch", "main", "parse_argv"]


EXIT_INTERRUPTED = 130


_EPILOG = """\
examples:
  acp-tui                                   the built-in demo agent (or default_agent from config)
  acp-tui claude-agent-acp                  Claude Code through its ACP adapter
  acp-tui npx @agentclientprotocol/claude-agent-acp
                                            the same adapter, fetched by npx
  acp-tui codex-acp                         OpenAI Codex through its ACP adapter
  acp-tui gemini --acp                      Gemini CLI (--acp goes to gemini)
  acp-tui opencode acp                      opencode
  acp-tui --cwd ~/src/app -- npx @agentclientprotocol/claude-agent-acp --foo
                                            everything after -- is the agent command
  acp-tui claude                            a named agent from config.toml, else the well-known one
                                            (see --list-agents)
  acp-tui --continue claude                 the last session of claude in this folder, its history shown
  acp-tui --resume claude                   pick one of claude's sessions from a list
  acp-tui --resume=ID claude                open session ID (its history shown)
  acp-tui add qwen-code                     install an agent of the ACP registry (pinned, into acp-tui's folder)
  acp-tui qwen-code                         ... then run it by its registry id
  acp-tui agents [WORD] [--update [ID]] [--remove ID]
                                            every agent acp-tui knows, the registry's too; update, remove
  acp-tui export TRANSCRIPT [-o FILE]       a transcript (file or session id) as Markdown
  acp-tui -p "fix the tests" claude         print mode: one turn, the answer on stdout (-p - reads stdin)
  acp-tui check [-- AGENT...]               a short scripted conversation, and where the agent broke a rule
  acp-tui replay LOG [--speed 0] [-p [PROMPT]]
                                            the agent side of a --log file played back to the TUI (or -p:
                                            print mode, the recorded prompt unless one is given)

Named agents, the default agent, theme and init_timeout live in config.toml (see --paths):
  default_agent = "claude"
  [agents.claude]
  command = ["npx", "@agentclientprotocol/claude-agent-acp"]
  env = { ANTHROPIC_LOG = "debug" }

environment: ACP_TUI_LOG (log file), ACP_TUI_REGISTRY (the registry's index), ACP_TUI_CONFIG_DIR, ACP_TUI_DATA_DIR, ACP_TUI_STATE_DIR
"""


def _positive_seconds(option: optparse.Option, opt: str, value: str) -> float:
    """The `seconds` option type: a positive, finite number."""
    try:
        seconds = float(value)
    except ValueError:
        raise optparse.OptionValueError(f"option {opt}: not a number: {value!r}") from None
    if not seconds > 0 or seconds == float("inf"):
        raise optparse.OptionValueError(f"option {opt}: must be a positive number of seconds: {value!r}")
    return seconds


def _theme(option: optparse.Option, opt: str, value: str) -> str:
    """The `theme` option type: a theme the app has (a typo is a usage error, not a silent default)."""
    from acp_tui.ui.themes import theme_names  # the UI's palettes, loaded only when a theme is named

    names = theme_names()
    if value not in names:
        raise optparse.OptionValueError(f"option {opt}: unknown theme {value!r} (choose from {', '.join(names)})")
    return value


class _Option(optparse.Option):
    """optparse's option with two more types, `seconds` and `theme` (optparse's documented way to add a type)."""

    TYPES = (*optparse.Option.TYPES, "seconds", "theme")
    TYPE_CHECKER = {**optparse.Option.TYPE_CHECKER, "seconds": _positive_seconds, "theme": _theme}


class _HelpFormatter(optparse.IndentedHelpFormatter):
    """argparse's lower-case headings, and the description and examples printed as written, not re-wrapped."""

    def format_usage(self, usage: str) -> str:
        return f"usage: {usage}\n"

    def format_heading(self, heading: str) -> str:
        return super().format_heading(heading.lower())

    def format_description(self, description: str | None) -> str:
        return f"{description}\n" if description else ""

    def format_epilog(self, epilog: str | None) -> str:
        return f"\n{epilog}" if epilog else ""


class _Parser(optparse.OptionParser):
    """optparse without abbreviations (`--the` is no `--theme`), so a new flag never changes an old command line.

    `_match_long_opt` is the one place optparse (frozen since Python 3.2) resolves a long option's name.
    """

    def _match_long_opt(self, opt: str) -> str:
        if opt in self._long_opt:
            return opt
        raise optparse.BadOptionError(opt)

    def _process_long_opt(self, rargs: list[str], values: optparse.Values) -> None:
        """`--resume=ID` names the session; a bare `--resume` is a flag (the session list), so the word after it
        stays the agent command (`acp-tui --resume claude`). optparse has no optional values of its own."""
        if rargs[0].startswith("--resume="):
            session_id = rargs.pop(0).partition("=")[2]
            if not session_id:
                self.error("--resume=ID needs an id (or use --resume alone to pick from the list)")
            values.resume, values.resume_id = True, session_id
            return
        super()._process_long_opt(rargs, values)


def _parser() -> optparse.OptionParser:
    """Our options; parsing stops at the first word that is not one of them, which starts the agent command.

    optparse rather than argparse: `disable_interspersed_args` is made for a command that runs another
    command with options of its own, and an option's value may begin with `-` (`--cwd -dir`), which argparse
    refuses (python/cpython#53580). argparse's way, a `nargs=REMAINDER` positional, is undocumented since
    Python 3.9 and keeps the `--` that ends our options. So the parser alone decides where the agent's argv
    starts, and a new flag is one `add(...)` line below. A subcommand (`acp-tui export ...`) would be the
    first word of that argv, dispatched on before the agent is resolved.
    """
    parser = _Parser(
        prog="acp-tui",
        usage="%prog [OPTIONS] [--] [AGENT [ARGS...]]",
        description="A terminal chat client for AI coding agents that speak the Agent Client Protocol.",
        epilog=_EPILOG,
        option_class=_Option,
        formatter=_HelpFormatter(),
    )
    parser.disable_interspersed_args()
    add = parser.add_option
    add("--cwd", metavar="DIR", help="working directory for the agent's session (default: here)")
    add(
        "--protocol",
        type="choice",
        choices=("auto", "1", "2"),
        default="auto",
        metavar="auto|1|2",
        help="ACP version to speak: auto negotiates (default), 1 or 2 forces one",
    )
    add(
        "--theme",
        type="theme",
        metavar="NAME",
        help="colour theme: acp-dark, acp-light, acp-ansi or a Textual theme (default: from config, else built-in)",
    )
    add("--log", metavar="FILE", help="write every JSON-RPC frame and stderr line as JSON lines (also env ACP_TUI_LOG)")
    add(
        "--init-timeout",
        type="seconds",
        metavar="SECONDS",
        help="how long to wait for the agent to answer initialize (default: 30)",
    )
    add(
        "--list-agents",
        action="store_true",
        default=False,
        help="list the named agents from config.toml, then the well-known ACP agents (installed or how to get them)",
    )
    add("--paths", action="store_true", default=False, help="print the config, data and state paths")
    add("--version", action="store_true", default=False, help="print the version and exit")
    add(
        "--no-client-terminals",
        dest="client_terminals",
        action="store_false",
        default=None,
        help="let a v1 agent run its own commands instead of acp-tui's terminals (config: client_terminals)",
    )
    add(
        "--resume",
        action="store_true",
        default=False,
        metavar="[=ID]",
        help="open session ID with its history (--resume=ID), or pick one from the list (--resume)",
    )
    add(
        "--continue",
        dest="continue_last",
        action="store_true",
        default=False,
        help="open the most recent session of this agent in this folder, with its history",
    )
    add(
        "--mcp",
        action="append",
        metavar="NAME",
        help="give the agent only this [mcp_servers] entry (repeatable; default: all, or the agent's mcp_servers)",
    )
    add("--no-mcp", action="store_true", default=False, help="give the agent no MCP servers this run")
    add(
        "--add-dir",
        dest="add_dir",
        action="append",
        metavar="DIR",
        help="an extra folder for the session (repeatable; ACP additionalDirectories, where the agent takes them)",
    )
    _print_options(add)
    parser.set_defaults(resume_id=None, sets=None)
    return parser


def _session_option(option: optparse.Option, opt: str, value: str, parser: optparse.OptionParser) -> None:
    """`--set OPTION=VALUE`, kept as (OPTION, VALUE) pairs in order; checked against the agent's options later."""
    name, equals, chosen = value.partition("=")
    if not equals or not name.strip():
        raise optparse.OptionValueError(f"option {opt}: expected OPTION=VALUE, not {value!r}")
    values = parser.values
    assert values is not None  # optparse calls back while it parses into them
    values.sets = [*(getattr(values, "sets", None) or []), (name.strip(), chosen)]


def _print_options(add: Callable[..., object]) -> None:
    """Print mode's options (acp_tui/headless, README "Print mode")."""
    add(
        "-p",
        "--print",
        dest="print_prompt",
        metavar="PROMPT",
        help="print mode: run one turn without the TUI (- reads stdin)",
    )
    add(
        "--output",
        type="choice",
        choices=("text", "markdown", "jsonl", "json"),
        metavar="text|markdown|jsonl|json",
        help="with -p: the answer as plain text (default), as markdown, one JSON object per model change, or one "
        "JSON result at the end",
    )
    add("--quiet", action="store_true", default=False, help="with -p: no thoughts, tool calls or notes on stderr")
    add(
        "--approve",
        type="choice",
        choices=("never", "reads", "always", "always-standing"),
        metavar="never|reads|always|always-standing",
        help="with -p: which permission requests are allowed (default: never; the rest are rejected); "
        "always-standing may grant a standing permission where the agent offers no other",
    )
    add("--timeout", type="seconds", metavar="SECONDS", help="with -p: cancel the turn after this long (exit 124)")
    add("--mode", metavar="ID", help="with -p: run the turn in this mode of the agent's (default: one that asks)")
    add("--model", metavar="ID", help="with -p: run the turn with this model of the agent's")
    add(
        "--set",
        dest="sets",
        action="callback",
        callback=_session_option,
        type="string",
        metavar="OPTION=VALUE",
        help="with -p: set one of the session's options for this run (repeatable)",
    )


def parse_argv(argv: Sequence[str]) -> tuple[optparse.Values, list[str]]:
    """Parse our options; returns (options, agent argv). Exits via SystemExit for -h and usage errors.

    The agent argv is everything from the first word that is not one of our options, or everything after
    a `--` that ends them, verbatim: its own `-h`, `--` and options included.
    """
    options, agent = _parser().parse_args(list(argv))
    return options, agent


def tab_launch(base: Launch, agent: str, folder: str) -> Launch:
    """A new tab's agent, resolved as the command line's (`acp_tui.launch_resolve.tab_launch`), installed registry
    agents known by their ids (acp_tui/registry) but never installed from here: a missing one is a LaunchError."""
    return resolve_tab_launch(base, agent, folder, with_agents=_with_registry_agents)


def _with_registry_agents(settings: Settings, words: Sequence[str]) -> Settings:
    registry = registry_agents(settings, list(words), ask=False)
    if isinstance(registry, Missing):
        raise LaunchError(registry.message, registry.code)
    return registry


def build_launch(
    options: optparse.Values,
    agent: Sequence[str],
    settings: Settings,
    warnings: Sequence[str],
    environ: Mapping[str, str] | None = None,
) -> Launch:
    """The command line's launch: its options and agent words as a `LaunchRequest`, resolved by
    `acp_tui.launch_resolve` (as a new tab's is); raises LaunchError."""
    protocol: Protocol = "auto" if options.protocol == "auto" else (1 if options.protocol == "1" else 2)
    request = LaunchRequest(
        agent=tuple(agent),
        cwd=options.cwd,
        protocol=protocol,
        theme=options.theme,
        log=options.log,
        init_timeout=options.init_timeout,
        client_terminals=options.client_terminals,
        resume=options.resume,
        resume_id=options.resume_id,
        continue_last=options.continue_last,
        mcp=tuple(getattr(options, "mcp", None) or ()),
        no_mcp=getattr(options, "no_mcp", False),
        add_dirs=tuple(getattr(options, "add_dir", None) or ()),
    )
    return resolve_launch(request, settings, warnings, environ)


def _print_paths(out: TextIO) -> None:
    rows = (
        ("config", paths.config_file()),
        ("data", paths.data_dir()),
        ("state", paths.state_dir()),
        ("logs", paths.log_dir()),
    )
    for label, path in rows:
        print(f"{label:<7} {path}", file=out)


def _print_agents(settings: Settings, out: TextIO, search_path: str | None = None) -> int:
    """The named agents, one a line, then the catalogue; a config that could not be read is said so (not "no
    named agents")."""
    if settings.broken is not None:
        print(f"acp-tui: cannot list the named agents: the config is broken: {settings.broken}", file=sys.stderr)
        return 1
    if not settings.agents:
        print(f"No named agents. Define them in {paths.config_file()}, for example:", file=out)
        print('  [agents.claude]\n  command = ["npx", "@agentclientprotocol/claude-agent-acp"]', file=out)
    else:
        _print_named(settings, out)
    if settings.mcp_servers:  # every agent's, named or not, unless it narrows them (README "MCP servers ...")
        print(f"MCP servers (every agent's, unless it names its own): {', '.join(settings.mcp_servers)}", file=out)
    _print_catalogue(settings, out, search_path)
    return 0


def _print_catalogue(settings: Settings, out: TextIO, search_path: str | None) -> None:
    """The well-known agents (`acp_tui.catalogue`): `acp-tui NAME` runs one unless a named agent has its name."""
    print(f"\nWell-known ACP agents (acp-tui NAME runs one; commands checked {CHECKED}):", file=out)
    width = max(len(agent.name) for agent in CATALOGUE)
    command_width = max(len(shlex.join(agent.command)) for agent in CATALOGUE)
    for agent in CATALOGUE:
        command = shlex.join(agent.command)
        state = "installed" if installed(agent, search_path) else f"install: {agent.install}"
        if agent.name in settings.agents:
            state = "(the named agent above wins)"
        print(f"  {agent.name:<{width}}  {command:<{command_width}}  {state}", file=out)


def _print_named(settings: Settings, out: TextIO) -> None:
    """The config's agents (`*` the default) and what each was told besides its command."""
    width = max(len(name) for name in settings.agents)
    for name, agent in settings.agents.items():
        details = shlex.join(agent.command)
        if agent.cwd is not None:
            details += f"  (cwd {agent.cwd})"
        if agent.env or agent.env_commands:
            details += f"  (env {', '.join(sorted([*agent.env, *agent.env_commands]))})"
        if agent.mcp_servers is not None:
            details += f"  (MCP servers {', '.join(agent.mcp_servers)})" if agent.mcp_servers else "  (no MCP servers)"
        if agent.add_dirs:
            details += f"  (extra folders {', '.join(agent.add_dirs)})"
        marker = "*" if name == settings.default_agent else " "
        print(f"{marker} {name:<{width}}  {details}", file=out)
    if settings.default_agent in settings.agents:
        print("(* = default_agent)", file=out)
    elif settings.default_agent is not None:
        print(f"default_agent: {settings.default_agent} (a registry agent, when installed: acp-tui agents)", file=out)


def _export(args: Sequence[str]) -> int:
    """`acp-tui export TRANSCRIPT [-o FILE]`: a transcript as Markdown, on stdout or into FILE."""
    from acp_tui.controller.sessions import SessionIndex
    from acp_tui.transcript import render_markdown

    parser = _Parser(
        prog="acp-tui export",
        usage="%prog TRANSCRIPT [-o FILE]",
        formatter=_HelpFormatter(),
        description="Write a transcript as Markdown: a file (.jsonl) or the id (or a unique start of the id) of a session "
        "we have one of.",
    )
    parser.add_option("-o", "--output", metavar="FILE", help="write the Markdown here (default: standard output)")
    try:
        options, rest = parser.parse_args(list(args))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if len(rest) != 1:
        print("acp-tui export: name one transcript (a .jsonl file or a session id)", file=sys.stderr)
        return EXIT_USAGE
    path = Path(rest[0]).expanduser()
    if not path.is_file():
        entries = SessionIndex().entries()
        known = [e for e in entries if e.session_id == rest[0]] or [
            e
            for e in entries
            if rest[0] and e.session_id.startswith(rest[0])  # a unique start of an id will do
        ]
        ids = sorted({e.session_id for e in known})
        if not known:
            print(f"acp-tui export: no transcript '{rest[0]}' (neither a file nor a session we have)", file=sys.stderr)
            return EXIT_USAGE
        if len(ids) > 1:
            shown = ", ".join(ids[:5]) + (", …" if len(ids) > 5 else "")
            print(f"acp-tui export: {len(ids)} sessions start with '{rest[0]}' ({shown}); say more", file=sys.stderr)
            return EXIT_USAGE
        path = max(known, key=lambda e: e.updated_at).transcript
    try:
        markdown = render_markdown(path)
        if options.output is None:
            sys.stdout.write(markdown)
        else:
            Path(options.output).expanduser().write_text(markdown, encoding="utf-8")
    except OSError as exc:
        print(f"acp-tui export: {exc.strerror or exc}: {exc.filename or path}", file=sys.stderr)
        return 1
    return 0


#: `acp-tui check` when the agent cannot be run (acp_tui/headless/check.py's EXIT_UNUSABLE; README)
EXIT_CHECK_UNUSABLE = 3

_CHECK_HELP = """\
usage: acp-tui [OPTIONS] check [-- AGENT...]

A short scripted conversation with an agent (no agent: the built-in demo): initialize, session/new, a
prompt, and a second prompt cancelled while it runs. Prints the negotiated version, the agent's capabilities,
how each turn ended, and every rule the agent broke, with the offending value and its frame (each frame
against the official JSON Schema of the negotiated version). Leaves no transcript behind; the session is
deleted where the agent offers that, and closed.

exit: 0 clean, 1 violations, 3 the agent could not be run.
"""

_REPLAY_HELP = """\
usage: acp-tui replay LOG [--speed N] [-p [PROMPT]] [OPTIONS]

Play the agent side of a --log recording back to a fresh client: the TUI, or with -p print mode. The
recorded setup (mode, model, options set before the first prompt) is applied by the replay where the client
leaves it out; where the client departs from the recording, a line in the conversation (print mode: stderr)
says where and how, and the replay goes on.

options:
  --speed N         1 at the recorded pace (default), 2 twice as fast, 0 without pauses
  -p, --print [PROMPT]
                    print mode: the recording's first prompt sent again, unless one is given
  OPTIONS           acp-tui's own (--cwd, --output, --approve, --theme, ...: see acp-tui --help)
"""


def _replay(options: optparse.Values, args: Sequence[str]) -> tuple[optparse.Values, list[str]] | int:
    """`replay LOG [--speed N]` and our options after it: the options, and the replay agent's argv (an exit
    code when the words are wrong). The agent is acp_tui/headless/replay.py, run with this interpreter."""
    ours = args[: list(args).index("--")] if "--" in args else args
    if "-h" in ours or "--help" in ours:
        print(_REPLAY_HELP, end="")
        return 0
    args = _recorded_prompt_flag(args)
    parser = _parser()
    parser.usage = "%prog replay LOG [--speed N] [-p [PROMPT]] [OPTIONS]"
    parser.enable_interspersed_args()
    parser.add_option(
        "--speed",
        type="float",
        default=1.0,
        metavar="N",
        help="replay: 1 at the recorded pace (default), 2 twice as fast, 0 without pauses",
    )
    try:
        options, rest = parser.parse_args(list(args), values=options)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    speed = getattr(options, "speed", 1.0)
    if len(rest) != 1 or not speed >= 0:
        print("acp-tui replay: name one --log file (and --speed 0 or more)", file=sys.stderr)
        return EXIT_USAGE
    log = Path(rest[0]).expanduser()
    if not log.is_file():
        print(f"acp-tui replay: no such file: {rest[0]}", file=sys.stderr)
        return EXIT_USAGE
    if options.print_prompt == _RECORDED_PROMPT:
        from acp_tui.headless.replay import ReplayError, read_recording, recorded_prompt

        try:
            prompt = recorded_prompt(read_recording(log))
        except (ReplayError, OSError) as exc:
            print(f"acp-tui replay: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if prompt is None:
            print("acp-tui replay: the recording holds no prompt to send again: give one (-p PROMPT)", file=sys.stderr)
            return EXIT_USAGE
        options.print_prompt = prompt
    argv = [sys.executable, "-m", "acp_tui.headless.replay", str(log.resolve()), "--speed", repr(float(speed))]
    return options, argv


GC_YOUNG_THRESHOLD = 20_000
"""Allocations between young collections while the UI runs (Python's default is 700)."""


def tune_gc() -> None:
    """The collector's settings for a long-lived UI (issue 27's profile: a 300-round turn spent a third of its
    time in the cyclic collector, mostly full collections walking every imported module and class).

    What is alive once the UI is imported lives as long as the process: `gc.freeze` moves it out of every
    later collection. It is frozen without a collection first: with the collector off through the imports,
    every one of their ~100,000 objects is young, and collecting them cost 40-50 ms of start-up (issue 27) to
    free ~160 KiB of import-time cycles (dataclass and class-building scraps), which now stay. Widgets and
    strips are allocated by the thousand a frame, so young collections are made rarer (each one is still
    small); full collections keep Python's default pace and heuristic, so cyclic garbage of a long session
    (folded views) is still freed.
    """
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)
    gc.enable()  # off while the UI was imported (`_default_runner`)


#: what `-p` without a prompt stands for after `replay LOG`: the recording's own first prompt
_RECORDED_PROMPT = "\0recorded prompt"


def _recorded_prompt_flag(args: Sequence[str]) -> list[str]:
    """`replay LOG -p` with no prompt after it (the last word, or an option next) sends the recorded prompt."""
    words = list(args)
    for at, word in enumerate(words):
        if word == "--":
            break
        following = words[at + 1] if at + 1 < len(words) else None
        if word in ("-p", "--print") and (following is None or (following.startswith("-") and following != "-")):
            words.insert(at + 1, _RECORDED_PROMPT)
            break
    return words


def import_asyncio_without_tls() -> None:
    """Import asyncio with `ssl` hidden from it, unless either is already imported.

    asyncio imports `ssl` for TLS streams, and `ssl` maps OpenSSL's two libraries: ~4.5 MB of the process's
    resident memory (issue 27's idle 53 MB; docs/performance.md, "Memory of a flood (fifth round)"). acp-tui
    opens no network connection; its agents do. asyncio documents `ssl` as optional and disables TLS without
    it. `ssl` is hidden only while asyncio is imported, so anything that imports it later gets the real one.
    """
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return
    sys.modules["ssl"] = None  # type: ignore[assignment]  # None in sys.modules makes `import ssl` fail
    try:
        import asyncio  # noqa: F401
    finally:
        del sys.modules["ssl"]


def _default_runner() -> Callable[[Launch], int]:
    """The UI entry point, imported only when a UI is actually started (keeps the CLI light)."""
    # Nothing the imports make is garbage, yet a third of a second of allocations runs Python's collector
    # over them again and again: it is off until `tune_gc` freezes what they made.
    gc.disable()
    try:
        import_asyncio_without_tls()  # after the agent's spawn (`_start_agent_early`): its start-up runs beside
        from acp_tui.ui.app import run
    except BaseException:
        gc.enable()
        raise

    runner = partial(run, launcher=tab_launch)  # a new tab's agent is resolved as the command line's

    def run_tuned(launch: Launch) -> int:
        tune_gc()  # after the imports: what they made is permanent
        return runner(launch)

    return run_tuned


def _start_agent_early(launch: Launch) -> EarlyAgent:
    """The first tab's agent, started now, before the UI is imported, so its own start-up runs beside ours
    (acp_tui/agent/early_agent.py; the first session claims it). acp-tui becomes a child subreaper first, so
    what the agent leaves behind from its first instant is ours to stop (acp_tui/lineage.py)."""
    from acp_tui.agent.early_agent import EarlyAgent

    lineage.install()  # before the environment is read: its "keep" marker is part of it, as when the app spawns
    return EarlyAgent.start(launch.agent_argv, cwd=launch.cwd, env={**os.environ, **launch.env})


class _QuitSignal(Exception):
    """SIGHUP or SIGTERM arrived while the UI was imported (`_quit_signals_raise`)."""

    def __init__(self, number: int) -> None:
        super().__init__(f"signal {number}")
        self.number = number


@contextlib.contextmanager
def _quit_signals_raise() -> Iterator[None]:
    """While the UI is imported, SIGHUP and SIGTERM (the terminal closed, `kill`) end acp-tui through its `finally`s,
    so the agent already started is stopped, instead of at once (which left it running); the app answers them
    itself once it runs (`ui/app.py`, `QUIT_SIGNALS`)."""

    def quit_now(number: int, _frame: object) -> None:
        raise _QuitSignal(number)

    previous = {number: signal.signal(number, quit_now) for number in (signal.SIGHUP, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def main(argv: Sequence[str] | None = None, *, runner: Callable[[Launch], int] | None = None) -> int:
    """Run acp-tui; returns the process exit status."""
    try:
        return _main(argv, runner)
    except BrokenPipeError:  # `acp-tui --list-agents | head -3`: the reader went away, which is no error of ours
        return _stdout_closed()


#: the shell's status for a writer whose reader went away (128 + SIGPIPE), as print mode exits
EXIT_CLOSED_PIPE = 141


def _stdout_closed() -> int:
    """stdout now points at /dev/null, so the interpreter's last flush at exit cannot fail a second time
    (Python's documented way: the signal module's "Note on SIGPIPE")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to flush later
        pass
    finally:
        os.close(devnull)
    return EXIT_CLOSED_PIPE


def _main(argv: Sequence[str] | None, runner: Callable[[Launch], int] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        options, agent = parse_argv(args)
    except SystemExit as exc:  # optparse: -h or a usage error, already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if options.version:
        print(f"acp-tui {__version__}")
        return 0
    if options.paths:
        _print_paths(sys.stdout)
        return 0
    if agent[:1] == ["export"]:
        return _export(agent[1:])
    usage = _print_usage(options)
    if usage is not None:
        print(f"acp-tui: {usage}", file=sys.stderr)
        return EXIT_USAGE
    settings, warnings = load_settings(paths.config_file())
    if options.list_agents:
        for warning in warnings if settings.broken is None else ():
            print(f"acp-tui: warning: {warning}", file=sys.stderr)
        return _print_agents(settings, sys.stdout)
    if agent[:1] in (["agents"], ["add"]):  # the ACP registry (acp_tui/registry/subcommands.py)
        from acp_tui.registry.subcommands import run_subcommand

        return run_subcommand(agent[0], agent[1:], settings)
    if agent[:1] == ["replay"]:  # `acp-tui replay LOG [--speed N] [-p [PROMPT]]`: the recording is the agent
        replay = _replay(options, agent[1:])
        if isinstance(replay, int):
            return replay
        options, agent = replay
        usage = _print_usage(options)
        if usage is not None:
            print(f"acp-tui: {usage}", file=sys.stderr)
            return EXIT_USAGE
    checking = agent[:1] == ["check"]  # `acp-tui check [-- AGENT...]` (acp_tui/headless/check.py)
    if checking:
        if agent[1:2] in (["-h"], ["--help"]):
            print(_CHECK_HELP, end="")
            return 0
        agent = agent[2:] if agent[1:2] == ["--"] else agent[1:]
        agent = agent or demo_argv()  # no agent: the built-in demo (which must pass), not default_agent
    ask = options.print_prompt is None and not checking and sys.stdin.isatty() and sys.stdout.isatty()
    # `acp-tui ID`, a registry agent (acp_tui/registry); with no AGENT, `default_agent` may name one
    default = settings.default_agent
    wanted = agent or ([default] if default is not None and default not in settings.agents else [])
    registry = registry_agents(settings, wanted, ask=ask)
    if isinstance(registry, Missing):
        print(f"acp-tui: {registry.message}", file=sys.stderr)
        return registry.code
    try:
        launch = build_launch(options, agent, registry, warnings)
    except LaunchError as exc:
        for warning in warnings:
            print(f"acp-tui: warning: {warning}", file=sys.stderr)
        print(f"acp-tui: {exc}", file=sys.stderr)
        return EXIT_CHECK_UNUSABLE if checking and exc.code != EXIT_USAGE else exc.code
    try:
        if options.print_prompt is not None:
            import_asyncio_without_tls()
            return _print_mode(options, launch)
        if checking:
            import_asyncio_without_tls()
            from acp_tui.headless.check import run_check

            return run_check(launch, sys.stdout)
        if runner is not None:
            return runner(launch)
        early = _start_agent_early(launch)
        typeahead.hold_enter()  # before the UI is imported: Enter typed meanwhile stays Enter
        try:
            with _quit_signals_raise():
                run_ui = _default_runner()
            return run_ui(replace(launch, early_agent=early))
        finally:
            early.discard()  # never claimed (the UI failed, or the user quit first): stopped and reaped, not orphaned
            typeahead.restore()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except _QuitSignal as exc:
        return 128 + exc.number


def _print_usage(options: optparse.Values) -> str | None:
    """Why these options cannot run (print mode's options without -p, or a choice -p cannot make)."""
    if options.print_prompt is None:
        used = [
            flag
            for flag, value in (
                ("--output", options.output),
                ("--approve", options.approve),
                ("--timeout", options.timeout),
                ("--mode", options.mode),
                ("--model", options.model),
                ("--set", options.sets),
            )
            if value is not None
        ] + (["--quiet"] if options.quiet else [])
        return f"{used[0]} needs -p (print mode)" if used else None
    if options.resume and options.resume_id is None:
        return "-p cannot pick a session from a list: use --resume=ID or --continue"
    return None


def _valid_text(text: str) -> str:
    """Bytes that were no UTF-8 (in argv or stdin, read as surrogates) become U+FFFD: JSON cannot carry them."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _stdin_prompt() -> str:
    """`-p -`: the prompt is stdin, less the one newline that ends it (`echo`, a here-document)."""
    text = _valid_text(sys.stdin.read())
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text


def _print_mode(options: optparse.Values, launch: Launch) -> int:
    """`acp-tui -p PROMPT`: one turn through the session controller, no Textual (acp_tui/headless)."""
    from acp_tui.headless.run import PrintOptions, run_print

    prompt = _stdin_prompt() if options.print_prompt == "-" else _valid_text(options.print_prompt)
    if not prompt.strip():
        print("acp-tui: -p needs a prompt (an argument, or - and the prompt on stdin)", file=sys.stderr)
        return EXIT_USAGE
    for warning in launch.warnings:
        print(f"acp-tui: warning: {warning}", file=sys.stderr)
    replaying = getattr(options, "speed", None) is not None
    print_options = PrintOptions(
        prompt,
        output=options.output or "text",
        quiet=options.quiet,
        approve=options.approve or "never",
        timeout=options.timeout,
        agent_stderr=replaying,  # a replay's notes (acp-tui replay -p)
        mode=options.mode,
        model=options.model,
        sets=tuple(options.sets or ()),
        keep_agent_mode=replaying,  # the recording decides what the replay agent does, not a mode
    )
    return run_print(launch, print_options)
