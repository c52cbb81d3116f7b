"""Well-known ACP agents and the command that starts each: data in the package, never fetched at start.

`acp-tui --list-agents` shows them after the config's named agents, each marked *installed* when its
program is on `PATH`, else with how to install it; `acp-tui NAME` runs one by its short name when no
`[agents.NAME]` entry has that name. The commands are the ones the agents' own documentation and acpx's
agent table gave on `CHECKED`; an agent changes its flags now and then, so a config entry always wins.
An agent whose login lists no key variable of its own (Claude's adapter offers terminal logins only) is still
recognised by its program or package in the command line, so the login dialog suggests the key it reads
(`key_variable`) rather than a guess.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence

import msgspec

__all__ = [
    "CATALOGUE",
    "CHECKED",
    "DEMO_AGENTS_ENV",
    "CatalogueAgent",
    "catalogue_agent",
    "installed",
    "key_variable",
]

#: When the commands below were last checked.
CHECKED = "2026-12-03"
#: Set for the demo agent when acp-tui falls back to it: the installed agents' short names, comma-separated.
DEMO_AGENTS_ENV = "ACP_TUI_DEMO_AGENTS"


class CatalogueAgent(msgspec.Struct, frozen=True):
    """One known agent: its short name, what it is, the argv that starts it speaking ACP, how to get it."""

    name: str
    title: str
    command: tuple[str, ...]
    install: str
    #: the API key variable the agent reads (its documentation), if it takes one
    key: str | None = None
    #: words in a command line (a program name, a package folder) that say it is this agent
    markers: tuple[str, ...] = ()


CATALOGUE: tuple[CatalogueAgent, ...] = (
    CatalogueAgent(
        "claude",
        "Claude Code (ACP adapter)",
        ("claude-agent-acp",),
        "npm install -g @agentclientprotocol/claude-agent-acp",
        "ANTHROPIC_API_KEY",
        ("claude-agent-acp", "claude-code-acp"),
    ),
    CatalogueAgent(
        "codex",
        "OpenAI Codex (ACP adapter)",
        ("codex-acp",),
        "npm install -g @zed-industries/codex-acp",
        "OPENAI_API_KEY",
        ("codex-acp",),
    ),
    CatalogueAgent(
        "gemini",
        "Gemini CLI",
        ("gemini", "--acp"),
        "npm install -g @google/gemini-cli",
        "GEMINI_API_KEY",
        ("gemini-cli",),
    ),
    CatalogueAgent("opencode", "opencode", ("opencode", "acp"), "npm install -g opencode-ai"),
    CatalogueAgent("goose", "Goose", ("goose", "acp"), "see https://block.github.io/goose/ (its install script)"),
    CatalogueAgent("qwen", "Qwen Code", ("qwen", "--acp"), "npm install -g @qwen-code/qwen-code"),
    CatalogueAgent("kimi", "Kimi CLI", ("kimi", "acp"), "uv tool install kimi-cli (PyPI: kimi-cli)"),
    CatalogueAgent("cursor", "Cursor CLI", ("cursor-agent", "acp"), "curl https://cursor.com/install -fsS | bash"),
    CatalogueAgent("copilot", "GitHub Copilot CLI", ("copilot", "--acp", "--stdio"), "npm install -g @github/copilot"),
    CatalogueAgent("pi", "pi (ACP adapter)", ("pi-acp",), "npm install -g pi-acp"),
)


def catalogue_agent(name: str) -> CatalogueAgent | None:
    """The known agent of that short name, if any."""
    return next((agent for agent in CATALOGUE if agent.name == name), None)


def installed(agent: CatalogueAgent, path: str | None = None) -> bool:
    """Is its program on `path` (default: `PATH`)?"""
    return shutil.which(agent.command[0], path=path) is not None


_WORDS = re.compile(r"[^/\\\s=@]+")


def key_variable(name: str, argv: Sequence[str]) -> str | None:
    """The key variable of the known agent this is, by its short name or a marker word in its command line
    (`node …/@agentclientprotocol/claude-agent-acp/dist/index.js` is Claude's adapter); None when unknown."""
    agent = catalogue_agent(name)
    if agent is not None and agent.key is not None:
        return agent.key
    words = {word.removesuffix(".js").lower() for part in argv for word in _WORDS.findall(part)}
    return next((agent.key for agent in CATALOGUE if agent.key and words.intersection(agent.markers)), None)
