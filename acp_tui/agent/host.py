"""Where an agent runs: the one seam between a connection and the machine its agent is on.

An `AgentHost` is chosen once per launch (`host_for`), the way Textual chooses its driver: it starts the agent
(the `AgentTransport` a session's `Connection` reads and writes; `Connection` takes any transport) and says
whether the session folder, this machine's files and its terminals are the agent's own (`shares_machine`).
What a connection offers the agent follows from that (`acp_tui.controller.wiring.default_services`): client
files and terminals answered on this machine's disk are offered only to an agent that runs on it, never to one
elsewhere, which would then read and write the wrong machine (issue 42).

`LocalHost` is the one host today: the agent is a child process (process.py), the first one perhaps started
by the command line before the UI was imported (early_agent.py). A host for `ssh` or a URL is another class
here, picked by `host_for` from what the launch names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from acp_tui.agent.connection import Transport
from acp_tui.agent.process import AgentProcess
from acp_tui.launch import Launch, PreSpawned


class AgentTransport(Transport, Protocol):
    """The agent's byte pipe as its host made it: what a session needs of it besides reading and writing."""

    @property
    def pid(self) -> int | None:
        """The process on this machine that carries the agent (the agent itself, or a client that reaches it),
        once started; None where no process does."""
        ...

    @property
    def running(self) -> bool:
        """True between a successful `start()` and the agent's end."""
        ...

    async def start(self) -> None:
        """Start the agent and connect to it; raises `SpawnError` (a line fit for the user) when it cannot."""
        ...

    async def shutdown(
        self, *, stdin_grace: float = 2.0, term_grace: float = 2.0, sweep_grace: float | None = None
    ) -> object:
        """Stop the agent for sure, and all it started that this host can reach; idempotent. The graces bound
        each step (a quit gives short ones: the user wants it gone)."""
        ...

    def stderr_tail(self, max_bytes: int | None = None) -> str:
        """The newest of what the agent wrote besides the protocol (its stderr), for a line that says why it
        stopped."""
        ...


@dataclass(frozen=True, slots=True)
class AgentCommand:
    """What to start: the agent's command line, in its session folder, with these variables over the host's own."""

    argv: Sequence[str]
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)


class AgentHost(Protocol):
    """Where the agent runs; chosen at launch (`host_for`), asked for one transport per connection."""

    @property
    def shares_machine(self) -> bool:
        """Are the session folder, this machine's files and its terminals the agent's own? Only then may the
        client answer the agent's file and terminal requests here (`default_services`)."""
        ...

    def transport(self, command: AgentCommand, on_stderr: Callable[[str], None]) -> AgentTransport:
        """The transport for one connection to a new agent started as `command` (not started yet: the session
        starts it); `on_stderr` hears each line the agent writes besides the protocol."""
        ...


class LocalHost:
    """This machine: the agent is a child process, spawned without a shell in a session of its own."""

    def __init__(self, early: PreSpawned | None = None) -> None:
        """`early`: the agent the command line started before the UI (early_agent.py), offered to the first
        transport only, which claims it if it is the one asked for."""
        self._early = early

    @property
    def shares_machine(self) -> bool:
        return True

    def transport(self, command: AgentCommand, on_stderr: Callable[[str], None]) -> AgentProcess:
        early, self._early = self._early, None
        return AgentProcess(command.argv, cwd=command.cwd, env=command.env, on_stderr=on_stderr, early=early)


def host_for(launch: Launch) -> AgentHost:
    """The host `launch` names: today every agent runs on this machine (with the agent the command line may
    have started already)."""
    return LocalHost(early=launch.early_agent)


__all__ = ["AgentCommand", "AgentHost", "AgentTransport", "LocalHost", "host_for"]
