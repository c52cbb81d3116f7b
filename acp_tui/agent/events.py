"""What an `AgentSession` tells its one consumer (the UI posts each as a message).

Model changes come straight from the reducer; the rest are things the model does not hold: a
permission round trip (a future the consumer resolves), raw protocol problems, the agent's exit
and its stderr lines.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from acp_tui.agent.process import ExitInfo
from acp_tui.session.changes import Change


@dataclass(frozen=True, slots=True)
class ModelChanged:
    """The reducer applied one update or local event to `AgentSession.state`; `changes` say what."""

    changes: list[Change]


@dataclass(frozen=True, slots=True)
class PermissionAsked:
    """The agent asks permission (ACP §8). Resolve `outcome` with an offered option id or "cancelled".

    The future is resolved by the session itself on `cancel()`, on the agent's `$/cancel_request`
    and on agent exit; the consumer must then close its dialog (check `outcome.done()`).
    """

    request_id: int | str
    #: decoded params: `methods.RequestPermissionRequest` (v2) or `V1RequestPermissionRequest` (v1)
    request: Any
    outcome: asyncio.Future[str] = field(compare=False)


@dataclass(frozen=True, slots=True)
class ProblemReported:
    """The agent sent something unusable; logged and shown, the session continues."""

    reason: str
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class AgentStopped:
    """The agent process ended (code or signal, and its last stderr)."""

    info: ExitInfo


@dataclass(frozen=True, slots=True)
class StderrLine:
    """One line the agent wrote to stderr (its log, never protocol)."""

    text: str


SessionEvent: TypeAlias = ModelChanged | PermissionAsked | ProblemReported | AgentStopped | StderrLine

__all__ = ["ModelChanged", "PermissionAsked", "ProblemReported", "AgentStopped", "StderrLine", "SessionEvent"]
