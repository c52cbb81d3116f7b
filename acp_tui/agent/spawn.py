"""Starting the agent's process (docs/protocol.md §1.1): exec without a shell, in a session of its own, as a lineage.

Synchronous and without asyncio, so the command line can start the agent before it imports the UI and the
event loop (`acp_tui.agent.early_agent`, docs/architecture.md "Start-up"); `AgentProcess` adopts what this
starts, early or not, the same way. What goes wrong is a `SpawnError` of one line fit for the user.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO, NamedTuple

from acp_tui.lineage import Lineage

PIPE_BYTES = 1 << 20
"""The capacity asked for the agent's stdout pipe (Linux's default is 64 KiB; 1 MiB is what an unprivileged
process may ask, /proc/sys/fs/pipe-max-size): an agent writes a turn's worth without waiting for us."""


class SpawnError(Exception):
    """The agent could not be started; the message is one line fit for the user."""


class Spawned(NamedTuple):
    """A started agent not yet connected to an event loop: its process (pipes on stdin, stdout and stderr, not
    yet waited for) and its lineage (rooted at its pid)."""

    process: subprocess.Popen[bytes]
    lineage: Lineage


def spawn(
    argv: Sequence[str], *, cwd: str | os.PathLike[str] | None, env: Mapping[str, str], lineage: Lineage
) -> Spawned:
    """Start `argv` (exec, never a shell) in a new session, `env` with `lineage`'s marker; raise `SpawnError`.

    `env` is the whole environment (ours with the agent's overrides). Nothing here waits for the process.
    """
    if not argv:
        raise SpawnError("no agent command given")
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            cwd=cwd,
            env=lineage.environment(env),
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        missing = exc.filename if exc.filename else argv[0]
        if cwd is not None and str(missing) == str(cwd):
            raise SpawnError(f"cannot start agent: working directory {cwd} does not exist") from None
        raise SpawnError(f"cannot start agent: command not found: {argv[0]}") from None
    except PermissionError:
        raise SpawnError(f"cannot start agent: permission denied: {argv[0]}") from None
    except NotADirectoryError:
        raise SpawnError(f"cannot start agent: not a directory: {cwd}") from None
    except OSError as exc:
        raise SpawnError(f"cannot start agent {argv[0]}: {exc.strerror or exc}") from None
    widen_pipe(process.stdout)
    lineage.root(process.pid)
    return Spawned(process, lineage)


def widen_pipe(pipe: IO[bytes] | None) -> None:
    """Ask for a larger pipe; a kernel that refuses (or has no such call) keeps its default."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None or pipe is None:
        return
    with contextlib.suppress(OSError, ValueError):
        fcntl.fcntl(pipe.fileno(), setsize, PIPE_BYTES)


__all__ = ["PIPE_BYTES", "SpawnError", "Spawned", "spawn", "widen_pipe"]
