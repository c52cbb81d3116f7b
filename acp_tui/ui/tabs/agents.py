"""The agents *New tab with agent…* offers: config.toml's named agents, then the catalogue's installed ones."""

from __future__ import annotations

from acp_tui.launch_resolve import agent_names
from acp_tui.ui.dialogs.new_tab import AgentChoice

__all__ = ["agent_choices"]


def agent_choices(search_path: str | None = None) -> list[AgentChoice]:
    """Read now, as the launch will be resolved (`acp_tui.launch_resolve`): a named agent first, a catalogue agent
    by that name only when no named one has it."""
    return [AgentChoice(name, what) for name, what in agent_names(search_path)]
