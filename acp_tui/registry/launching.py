"""`acp-tui ID` for a registry agent: the installed ones join config.toml's named agents (config.toml's own
entry of the same name wins), with the command their manifest holds, so nothing is resolved at chat time.

A word that names no named agent, no well-known agent and no program on PATH, but an agent of the registry,
is an agent not installed yet: on a terminal (the TUI about to start) one question installs it; in print mode,
a check, a new tab or without a terminal, a clear error names the `add` command. Only this path reads the
index, and only the copy at hand (the one `acp-tui agents` last fetched, else the shipped one): a word that
would otherwise fail as "command not found" never waits for the network. Once the user says yes, the install
reads the index as `acp-tui add` does. This module imports no HTTP or schema code until then: it runs on every
start.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TextIO

from acp_tui.catalogue import catalogue_agent
from acp_tui.config import NamedAgent, Settings
from acp_tui.registry.manifest import installed_agents

__all__ = ["Missing", "registry_agents", "with_installed"]

EXIT_NOT_FOUND = 127
_ID = re.compile(r"^[a-z][a-z0-9-]{0,127}$")


@dataclass(frozen=True)
class Missing:
    """A registry agent asked for and not installed (or its install failed): the line to show, the exit status."""

    message: str
    code: int = EXIT_NOT_FOUND


def with_installed(settings: Settings) -> Settings:
    """`settings` with every installed registry agent as a named agent, unless config.toml names one so."""
    found = {
        agent.id: NamedAgent(command=list(agent.argv), env=dict(agent.env))
        for agent in installed_agents()
        if agent.id not in settings.agents
    }
    if not found:
        return settings
    from msgspec import structs

    return structs.replace(settings, agents=MappingProxyType({**settings.agents, **found}))


def _candidate(agent: Sequence[str], settings: Settings) -> str | None:
    """The word that may be a registry id not installed yet."""
    if len(agent) != 1 or not _ID.match(agent[0]) or agent[0] in settings.agents or catalogue_agent(agent[0]):
        return None
    return None if shutil.which(agent[0]) is not None else agent[0]


def registry_agents(
    settings: Settings,
    agent: Sequence[str],
    *,
    ask: bool,
    out: TextIO | None = None,
) -> Settings | Missing:
    """`settings` with the installed registry agents; a `Missing` when `agent` is a registry agent not installed
    and it is not installed now (`ask`: one y/N question on the terminal first)."""
    settings = with_installed(settings)
    word = _candidate(agent, settings)
    if word is None:
        return settings
    from acp_tui.registry.source import IndexError_, load_index, location

    try:
        index = load_index(location(settings.registry), offline=True)
    except IndexError_:
        return settings
    entry = index.find(word)
    if entry is None:
        return settings
    hint = f"{word} is an agent of the ACP registry ({entry.name[:80]!r} {entry.version}), not installed: install it with  acp-tui add {word}"
    if not ask:
        return Missing(hint)
    return _ask_and_install(settings, word, hint, out or sys.stdout)


def _ask_and_install(settings: Settings, word: str, hint: str, out: TextIO) -> Settings | Missing:
    from acp_tui.registry.installs import InstallError, Interrupted, make_plan
    from acp_tui.registry.source import IndexError_, load_index, location
    from acp_tui.registry.subcommands import install_plan

    try:
        index = load_index(location(settings.registry))
    except IndexError_ as exc:
        return Missing(str(exc), 1)
    entry = index.find(word)
    if entry is None:
        return Missing(hint)
    try:
        plan = make_plan(entry, preview=False, kind=None, trust_unverified=False)
    except InstallError as exc:
        return Missing(f"{word}: {exc}", 1)
    source = {"npx": "npm", "uvx": "PyPI", "binary": "its archive"}[plan.kind]
    print(f"install {word} {plan.release.version} from {source}? [y/N] ", end="", file=out, flush=True)
    try:
        answer = sys.stdin.readline().strip().lower()
    except (OSError, KeyboardInterrupt):
        answer = ""
    if answer not in ("y", "yes"):
        return Missing(hint)
    try:
        installed = install_plan(plan, index, out)
    except (KeyboardInterrupt, Interrupted):
        return Missing(f"interrupted: {word} was not installed, and nothing was left half-installed", 130)
    if installed != 0:
        return Missing(f"{word} was not installed", 1)
    return with_installed(settings)
