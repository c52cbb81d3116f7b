"""What an `AgentSession` tells its one consumer (the session controller).

Model changes come straight from the reducer (the agent's exit and protocol problems are model events
too: `AgentGone`, `ProblemAdded`); stderr lines are the only thing the model does not hold.
"""

from __future__ import annotations

from typing import TypeAlias

from msgspec import Struct

from acp_tui.session.changes import Change
from acp_tui.session.model import SessionState


class ModelChanged(Struct, frozen=True):
    """The reducer applied one update or local event to `AgentSession.state`; `changes` say what."""

    changes: list[Change]


class StderrLine(Struct, frozen=True):
    """One line the agent wrote to stderr (its log, never protocol)."""

    text: str


class SessionSwitched(Struct, frozen=True):
    """`AgentSession.state` is now another session's model (a new one, or a past one opened, its history
    already applied); `previous` is the model it replaced, for whoever still holds changes of it.

    Nothing of the new model was emitted as `ModelChanged`: show it whole (docs/protocol.md §3).
    """

    session_id: str
    previous: SessionState
    replayed: bool


SessionEvent: TypeAlias = ModelChanged | StderrLine | SessionSwitched

__all__ = ["ModelChanged", "SessionEvent", "SessionSwitched", "StderrLine"]
