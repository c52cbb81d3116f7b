"""The agent started by the command line before it imports the UI, for the first tab's first session.

Importing Textual and our screens takes ~250 ms; an agent's own start-up (a Python agent ~50 ms, a Node one
200-400 ms) used to begin only after it. `acp_tui.cli` now starts the agent right after the launch is
resolved, so the two run side by side, and hands it on in `Launch.early_agent` (the `acp_tui.launch.EarlyAgent`
seam); the first `AgentProcess.start()` claims it instead of spawning. Nothing here imports asyncio: it runs
before the event loop exists.

- Started exactly as `AgentProcess.start` would start it (`spawn`: argv, folder, our environment with the
  launch's overrides and the lineage marker, a session of its own). A claim for anything else (another
  argv, folder or environment) gets nothing, and the early agent is stopped: that session spawns its own.
- A spawn that failed is carried and raised by the claim, where `start()` would have raised it, so the
  user sees the same line as before.
- Whatever happens to the app (its import fails, it never starts the session, the user quits first), the
  command line discards it: an agent nobody claimed is stopped with all it started and reaped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence

from acp_tui.agent.spawn import Spawned, SpawnError, spawn
from acp_tui.lineage import Lineage, kill_now

#: How long an unclaimed agent gets between SIGTERM and SIGKILL (it was never sent a word).
DISCARD_GRACE = 0.5


class EarlyAgent:
    """One agent process started before the event loop; `claim` hands it over once, `discard` stops it."""

    def __init__(self, argv: Sequence[str], cwd: str, env: Mapping[str, str], outcome: Spawned | SpawnError) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = dict(env)
        self._outcome: Spawned | SpawnError | None = outcome

    @classmethod
    def start(cls, argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str]) -> EarlyAgent:
        """Spawn `argv` in `cwd` with the whole environment `env` now; a failure is kept for the claim."""
        folder = os.path.abspath(cwd)
        try:
            outcome: Spawned | SpawnError = spawn(argv, cwd=folder, env=env, lineage=Lineage())
        except SpawnError as exc:
            outcome = exc
        return cls(argv, folder, env, outcome)

    @property
    def pid(self) -> int | None:
        """The process's pid while it is unclaimed and running (or not yet reaped); None otherwise."""
        outcome = self._outcome
        return outcome.process.pid if isinstance(outcome, Spawned) else None

    def claim(self, argv: Sequence[str], cwd: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Spawned | None:
        """The process, if it is what is asked for (and not claimed before); see `acp_tui.launch.EarlyAgent`."""
        outcome, self._outcome = self._outcome, None
        if outcome is None:
            return None
        asked = (list(argv), os.path.abspath(cwd) if cwd is not None else None, dict(env))
        if asked != (self.argv, self.cwd, self.env):
            if isinstance(outcome, Spawned):
                _stop(outcome)
            return None
        if isinstance(outcome, SpawnError):
            raise outcome
        return outcome

    def discard(self) -> None:
        """Stop and reap the process and all it started, unless it was claimed; idempotent."""
        outcome, self._outcome = self._outcome, None
        if isinstance(outcome, Spawned):
            _stop(outcome)


def _stop(spawned: Spawned) -> None:
    """SIGTERM its group, SIGKILL it after `DISCARD_GRACE`, reap it, then kill what left the group (lineage)."""
    process = spawned.process
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    _signal_group(process.pid, signal.SIGTERM)
    try:
        process.wait(DISCARD_GRACE)
    except subprocess.TimeoutExpired:
        _signal_group(process.pid, signal.SIGKILL)
        process.wait()
    kill_now([spawned.lineage], DISCARD_GRACE)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


__all__ = ["DISCARD_GRACE", "EarlyAgent"]
