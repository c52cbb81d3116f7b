"""What the session controller tells the UI: one name for one fact.

Model changes (`ModelChanged`) carry everything the session model holds, including the agent's exit
(`AgentGone`) and protocol problems (`ProblemAdded`). The rest are facts about the controller itself:
what it is waiting for, lines it adds to the conversation, who the agent is, the prompt queue. Whoever hears
them is a `ControllerListener` (the chat screen's event pump, print mode), a named seam "go to definition" follows.
"""

from __future__ import annotations

from typing import Literal, Protocol, TypeAlias

from msgspec import Struct

from acp_tui.agent.session_events import ModelChanged, StderrLine

Severity = Literal["info", "warning", "error"]
Lifecycle = Literal["starting", "ready", "stopped"]


class Waiting(Struct, frozen=True):
    """The controller waits for the agent (`what`, e.g. "opening a session"); None when it no longer does."""

    what: str | None


class Note(Struct, frozen=True):
    """A line for the conversation from the client itself (not the agent); also written to the transcript."""

    text: str
    severity: Severity = "info"
    detail: str = ""


class LifecycleChanged(Struct, frozen=True):
    """The agent connection is starting, ready for prompts, or stopped (crashed, refused, or stopped by the user)."""

    phase: Lifecycle


class AgentIdentified(Struct, frozen=True):
    """`initialize` was answered: the agent's name and version as it reports them, and the protocol version."""

    name: str
    version: str | None
    protocol: int


class QueueChanged(Struct, frozen=True):
    """Prompts waiting to be sent; `paused` after a cancel (the user sends the next one explicitly)."""

    prompts: tuple[str, ...]
    paused: bool


class CancelStateChanged(Struct, frozen=True):
    """A cancel was sent (`cancelling`) or the turn it cancelled ended."""

    cancelling: bool


class SessionOpened(Struct, frozen=True):
    """Another session is now the conversation (a new one, or a past one opened with its history, docs/protocol.md
    §3): show `controller.state` whole in a fresh timeline; `replaces` when the previous conversation must go."""

    session_id: str
    cwd: str
    replaces: bool


ControllerEvent: TypeAlias = (
    ModelChanged
    | StderrLine
    | Waiting
    | Note
    | LifecycleChanged
    | AgentIdentified
    | QueueChanged
    | CancelStateChanged
    | SessionOpened
)


class ControllerListener(Protocol):
    """Who hears a `SessionController` (the chat screen's event pump, print mode): each event, in order,
    synchronously, as it happens; a listener that renders coalesces them itself (once per frame)."""

    def controller_event(self, event: ControllerEvent) -> None: ...


__all__ = [
    "AgentIdentified",
    "CancelStateChanged",
    "ControllerEvent",
    "ControllerListener",
    "LifecycleChanged",
    "ModelChanged",
    "Note",
    "QueueChanged",
    "SessionOpened",
    "Severity",
    "StderrLine",
    "Waiting",
]
