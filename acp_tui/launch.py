"""What starting one agent takes: built and validated by the CLI, used by the session controller and the UI."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from typing import Protocol as TypingProtocol

from acp_tui.mcp_servers import McpServer

if TYPE_CHECKING:
    import subprocess

    from acp_tui.lineage import Lineage

Protocol = Literal["auto", 1, 2]


class PreSpawned(TypingProtocol):
    """An agent the command line started before it imported the UI (acp_tui/agent/early_agent.py), so the agent's
    own start-up runs beside ours: the first session of the first tab claims it instead of spawning one.

    It is claimed once, by the first `AgentProcess` given it; whoever started it discards it when the app is
    done, which stops and reaps it unless it was claimed (docs/architecture.md "Start-up").
    """

    def claim(
        self, argv: Sequence[str], cwd: str | os.PathLike[str] | None, env: Mapping[str, str]
    ) -> tuple[subprocess.Popen[bytes], Lineage] | None:
        """The started process and its lineage if it is the one asked for (`argv` in `cwd` with exactly the
        environment `env`), None otherwise (it is then stopped); raises the `SpawnError` its spawn raised."""
        ...

    def discard(self) -> None:
        """Stop its whole lineage and reap it, unless it was claimed; idempotent."""
        ...


@dataclass(frozen=True, slots=True)
class Launch:
    """Everything the UI needs to start one agent; built and validated by the CLI."""

    agent_argv: tuple[str, ...]
    agent_name: str
    env: Mapping[str, str]  # overrides on top of os.environ
    cwd: Path  # absolute
    protocol: Protocol
    theme: str | None
    log_path: Path | None
    init_timeout: float
    warnings: tuple[str, ...]
    is_demo: bool = False
    #: offer v1 agents file reads and writes through acp-tui (ACP `fs`; the `client_files` setting)
    client_files: bool = True
    #: run v1 agents' commands in acp-tui (ACP `terminal`; the `client_terminals` setting)
    client_terminals: bool = True
    #: a write outside the session folder: "ask" (a dialog) or "refuse" (the `outside_writes` setting)
    outside_writes: Literal["ask", "refuse"] = "ask"
    #: a read outside it: "allow" (marked), "ask" or "refuse" (the `outside_reads` setting)
    outside_reads: Literal["allow", "ask", "refuse"] = "allow"
    #: ring and notify when the agent waits while the window is unfocused (the `attention` setting)
    attention: bool = True
    #: open this past session (with its history) instead of a new one (`--resume ID`)
    resume_id: str | None = None
    #: open the most recent session of this agent in this folder (`--continue`)
    continue_last: bool = False
    #: show the session list at start (`--resume` without an id)
    pick_session: bool = False
    #: MCP servers for the agent's sessions (config `[mcp_servers]`, narrowed per agent, `--mcp`/`--no-mcp`)
    mcp_servers: tuple[McpServer, ...] = ()
    #: extra folders for its sessions, absolute (`--add-dir`, an agent's `add_dirs`): ACP `additionalDirectories`
    add_dirs: tuple[Path, ...] = ()
    #: no screen and no keys (print mode, `acp-tui check`): lines never tell the user to press one
    headless: bool = False
    #: the agent already started by the command line, for the first session (a new session's launch has none)
    early_agent: PreSpawned | None = field(default=None, compare=False, repr=False)


#: the replay agent's module (`acp-tui replay`, acp_tui/headless/replay.py)
REPLAY_MODULE = "acp_tui.headless.replay"
#: how each of the replay agent's stderr lines begins: a departure from the recording, or what it skipped
REPLAY_PREFIX = "replay: "


def replayed_log(argv: Sequence[str]) -> str | None:
    """The recording an agent command line plays back (`python -m acp_tui.headless.replay LOG ...`), None for
    any other agent: the client knows its own replay by what it started, not by anything the agent says."""
    if len(argv) >= 4 and argv[1] == "-m" and argv[2] == REPLAY_MODULE:
        return argv[3]
    return None


class LaunchProblem(Exception):
    """An agent that cannot be started as asked; `str()` is the one line to show the user."""


def new_session(base: Launch, folder: str = "") -> Launch:
    """`base`'s agent for a new session (nothing to resume, its warnings already said), in `folder` when one
    is given (`~` and paths relative to `base`'s folder allowed); raises `LaunchProblem` for no folder."""
    cwd = base.cwd
    if folder.strip():
        path = Path(folder).expanduser()
        cwd = Path(os.path.normpath(path if path.is_absolute() else base.cwd / path))
        if not cwd.is_dir():
            raise LaunchProblem(f"folder '{folder}': not a directory")
    return replace(
        base, cwd=cwd, resume_id=None, continue_last=False, pick_session=False, warnings=(), early_agent=None
    )


class TabLauncher(TypingProtocol):
    """Builds the launch of a new tab (acp_tui/ui/tabs): `agent` is a name from config.toml or the catalogue,
    or a command line (empty: `base`'s agent); `folder` its working directory. Raises `LaunchProblem`."""

    def __call__(self, base: Launch, agent: str, folder: str) -> Launch: ...


__all__ = [
    "REPLAY_MODULE",
    "REPLAY_PREFIX",
    "Launch",
    "LaunchProblem",
    "PreSpawned",
    "Protocol",
    "TabLauncher",
    "new_session",
    "replayed_log",
]
