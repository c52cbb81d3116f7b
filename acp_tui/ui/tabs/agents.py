"""The agents *New tab with agent…* offers: config.toml's named agents, then the catalogue's installed ones."""

from __future__ import annotations

import os

from acp_tui.catalogue import CATALOGUE, installed
from acp_tui.config import load_settings
from acp_tui.paths import config_file
from acp_tui.ui.dialogs.new_tab import AgentChoice

__all__ = ["agent_choices"]


def agent_choices(search_path: str | None = None) -> list[AgentChoice]:
    """Read now (config.toml as it is, `PATH` as it is): a named agent first, a catalogue agent by that name
    only when no named one has it (the command line resolves names the same way)."""
    try:
        settings, _warnings = load_settings(config_file())
    except OSError:
        named: list[str] = []
    else:
        named = list(settings.agents)
    choices = [AgentChoice(name, "config.toml") for name in named]
    path = os.environ.get("PATH", os.defpath) if search_path is None else search_path
    choices += [
        AgentChoice(agent.name, agent.title)
        for agent in CATALOGUE
        if agent.name not in named and installed(agent, path)
    ]
    return choices
