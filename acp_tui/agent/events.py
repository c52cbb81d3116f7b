"""What an `AgentSession` tells its one consumer (the session controller).

Model changes come straight from the reducer (the agent's exit and protocol problems are model events
too: `AgentGone`, `ProblemAdded`); stderr lines are the only thing the model does not hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from acp_tui.session.changes import Change


@dataclass(frozen=True, slots=True)
class ModelChanged:
    """The reducer applied one update or local event to `AgentSession.state`; `changes` say what."""

    changes: list[Change]


@dataclass(frozen=True, slots=True)
class StderrLine:
    """One line the agent wrote to stderr (its log, never protocol)."""

    text: str


SessionEvent: TypeAlias = ModelChanged | StderrLine

__all__ = ["ModelChanged", "StderrLine", "SessionEvent"]
