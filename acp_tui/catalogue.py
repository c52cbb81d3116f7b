"""Well-known ACP agents and the command that starts each: data in the package, never fetched at start.

`acp-tui --list-agents` shows them after the config's named agents, each marked *installed* when its
program is on `PATH`, else with how to install it; `acp-tui NAME` runs one by its short name when no
`[agents.NAME]` entry has that name. The commands are the ones the agents' own documentation and acpx's
agent table gave on `CHECKED`; an agent changes its flags now and then, so a config entry always wins.
"""

from __future__ import annotations

import shutil

import msgspec

__all__ = ["CATALOGUE", "CHECKED", "DEMO_AGENTS_ENV", "CatalogueAgent", "catalogue_agent", "installed"]

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


CATALOGUE: tuple[CatalogueAgent, ...] = (
    CatalogueAgent(
        "claude",
        "Claude Code (ACP adapter)",
        ("claude-agent-acp",),
        "npm install -g @agentclientprotocol/claude-agent-acp",
    ),
    CatalogueAgent("codex", "OpenAI Codex (ACP adapter)", ("codex-acp",), "npm install -g @zed-industries/codex-acp"),
    CatalogueAgent("gemini", "Gemini CLI", ("gemini", "--acp"), "npm install -g @google/gemini-cli"),
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
