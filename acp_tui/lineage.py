"""Everything a spawned program started, found and killed however it tried to leave (docs/architecture.md).

A process group is not enough: `setsid`, a double fork or `nohup` take a program out of the group of the
command that started it, and the agent or its command may exit and leave them running. So on Linux each
program we spawn (the agent, every client-terminal command) is a `Lineage`:

- its environment carries a marker, `ACP_TUI_LINEAGE=<random token>` (set last, so neither the agent nor
  a `terminal/create` `env` can replace it), which every descendant inherits through fork, exec, `setsid`
  and `nohup`;
- its members are its root (checked by start time, so a reused pid is never taken for it), everything in
  the root's process group or session, every process whose environment carries the marker, everything
  seen as a member before (by pid and start time), and the descendants of all of these (the PPid chain);
- `kill()` sends SIGTERM to all members, waits a short grace, then in bounded rounds stops (SIGSTOP: a
  stopped process cannot fork, so a spawning loop cannot outrun us) and SIGKILLs what is left, rescanning
  until nothing remains. Signals go through a pidfd opened before the start time is checked, so a pid
  that was reused in between is never signalled.

`install()`, called by the app (never by a library user or a test process), makes acp-tui a child
subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`): an orphaned descendant is re-parented to us instead of init.
Adopted orphans that carry none of our markers (a program that cleared its environment *and* left its
session) are then still ours to kill when an agent shuts down and when the app exits. Everything else
acp-tui spawns itself (a browser for a login URL, a login command) inherits a "keep" marker from our own
environment and is left alone. Adopted orphans are reaped one pid at a time (`waitpid(pid, WNOHANG)` on a
pid known to be adopted, never `waitpid(-1)`), so the status of a child asyncio or `subprocess` waits for
is never taken from it.

Elsewhere (macOS, the BSDs) there is no /proc and no subreaper: a lineage is its root and the root's process
group, signalled with `killpg`; a program that leaves the group escapes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

__all__ = ["MARKER", "Lineage", "install", "kill_everything", "kill_now", "reap_adopted", "live_lineages"]

#: The environment variable that names a process's lineage.
MARKER = "ACP_TUI_LINEAGE"
#: Rounds of stop-and-kill before giving up on a lineage that keeps spawning.
KILL_ROUNDS = 20
#: How long one round waits for what it killed to be gone.
_ROUND_WAIT = 1.0
_POLL = 0.02
_PR_SET_CHILD_SUBREAPER = 36

_LINUX = sys.platform.startswith("linux") and Path("/proc/self/stat").exists()
_lineages: set[Lineage] = set()
#: (pid, start) of every root we spawned: its spawner waits for these (asyncio, or `AgentProcess`), we never do
_roots: set[tuple[int, int]] = set()
#: the value of MARKER in our own environment once installed: what we spawn ourselves, kept
_keep: str | None = None
#: (pid, start) of unmarked orphans we adopted and found: ours to reap
_strangers: set[tuple[int, int]] = set()
_subreaper = False


class Proc(NamedTuple):
    """One line of /proc/PID/stat, the fields we use."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start: int  # clock ticks after boot: with the pid, the identity of a process

    @property
    def alive(self) -> bool:
        return self.state not in ("Z", "X")


def read_proc(pid: int) -> Proc | None:
    """The process `pid` now, or None if there is none (or no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes().decode("ascii", "replace")
    except OSError:
        return None
    # The command is in parentheses and may itself contain ") ": the fields start after the last one.
    fields = stat[stat.rfind(")") + 2 :].split()
    try:
        return Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0], int(fields[19]))
    except (IndexError, ValueError):
        return None


def snapshot() -> dict[int, Proc]:
    """Every process /proc shows now."""
    table: dict[int, Proc] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if name.isdigit() and (proc := read_proc(int(name))) is not None:
                table[proc.pid] = proc
    return table


def _marker(pid: int) -> str | None:
    """The value of MARKER in `pid`'s environment (as it was exec'd); None if absent or unreadable."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    key = MARKER.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(key):
            return entry[len(key) :].decode("ascii", "replace")
    return None


def install() -> bool:
    """Make this process a child subreaper and mark what it spawns itself as kept; True if the subreaper is on.

    Idempotent. Only the app calls it: a test runner or a library user must not adopt strangers' orphans.
    """
    global _keep, _subreaper
    if _keep is None:
        _keep = f"keep-{os.urandom(8).hex()}"
        os.environ[MARKER] = _keep
    if _LINUX and not _subreaper:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def live_lineages() -> frozenset[Lineage]:
    """The lineages that were spawned and not yet found empty."""
    return frozenset(_lineages)


def _send(proc: Proc, sig: signal.Signals) -> None:
    """Signal `proc` if it is still that process (same pid *and* start time)."""
    fd: int | None = None
    with contextlib.suppress(AttributeError, OSError):
        fd = os.pidfd_open(proc.pid)
    try:
        now = read_proc(proc.pid)
        if now is None or now.start != proc.start:
            return  # gone, or the pid now names another process
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if fd is not None:
                signal.pidfd_send_signal(fd, sig)
            else:
                os.kill(proc.pid, sig)
    finally:
        if fd is not None:
            os.close(fd)


def _closure(seeds: Iterable[Proc], table: Mapping[int, Proc]) -> list[Proc]:
    """`seeds` and all their descendants (by PPid; a child never starts before its parent)."""
    me = os.getpid()
    chosen = {proc.pid: proc for proc in seeds}
    children: dict[int, list[Proc]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc)
    stack = list(chosen.values())
    while stack:
        parent = stack.pop()
        for child in children.get(parent.pid, ()):
            if child.pid not in chosen and child.pid != me and child.start >= parent.start:
                chosen[child.pid] = child
                stack.append(child)
    return list(chosen.values())


def _adopted_strangers(table: Mapping[int, Proc]) -> list[Proc]:
    """Orphans re-parented to us that carry no marker at all (they cleared their environment), and their
    descendants."""
    if not _subreaper:
        return []
    me = os.getpid()
    found = []
    for proc in table.values():
        if proc.ppid == me and proc.alive and (proc.pid, proc.start) not in _roots and _marker(proc.pid) is None:
            found.append(proc)
    _strangers.update((proc.pid, proc.start) for proc in found)
    return [proc for proc in _closure(found, table) if proc.alive]


class Lineage:
    """One spawned program and everything it started; `environment()` before the spawn, `root()` after."""

    def __init__(self) -> None:
        self.token = os.urandom(12).hex()
        self.root_proc: Proc | None = None
        self._root_pid: int | None = None
        #: (pid, start) of every process ever found a member: still a member after its parent dies
        self._seen: set[tuple[int, int]] = set()

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """`base` (default: ours) with the marker, which wins over anything `base` says."""
        env = dict(os.environ if base is None else base)
        env[MARKER] = self.token
        return env

    def root(self, pid: int) -> None:
        """The program was spawned as `pid` (still unreaped, so its pid is its own)."""
        self._root_pid = pid
        self.root_proc = read_proc(pid)
        if self.root_proc is not None:
            _roots.add((pid, self.root_proc.start))
        _lineages.add(self)

    def members(self, table: Mapping[int, Proc] | None = None) -> list[Proc]:
        """The live processes of this lineage now (Linux; nothing elsewhere)."""
        if not _LINUX:
            return []
        table = snapshot() if table is None else table
        me = os.getpid()
        root = self.root_proc
        # The root's group and session count while its pid was not reused (Linux hands out no pid that
        # is still some group's or session's id, so a group outliving its leader keeps the number).
        by_root = root is not None and (table.get(root.pid) is None or table[root.pid].start == root.start)
        seeds = [
            proc
            for proc in table.values()
            if proc.pid != me
            and (
                (proc.pid, proc.start) in self._seen
                or (
                    by_root
                    and root is not None
                    and proc.start >= root.start
                    and root.pid in (proc.pid, proc.pgid, proc.sid)
                )
                or _marker(proc.pid) == self.token
            )
        ]
        chosen = _closure(seeds, table)
        self._seen.update((proc.pid, proc.start) for proc in chosen)
        return [proc for proc in chosen if proc.alive]

    def alive(self) -> bool:
        """Does anything of this lineage still run?"""
        if _LINUX:
            return bool(self.members())
        return self._group_alive()

    async def kill(self, grace: float) -> None:
        """SIGTERM every member, then after `grace` stop and SIGKILL what is left, until nothing is."""
        await kill_all([self], grace)

    # -- without /proc -----------------------------------------------------------------------------

    def _group_alive(self) -> bool:
        if self._root_pid is None:
            return False
        try:
            os.killpg(self._root_pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def _signal_group(self, sig: signal.Signals) -> None:
        if self._root_pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._root_pid, sig)

    def _forget(self) -> None:
        _lineages.discard(self)


def _targets(lineages: Iterable[Lineage], strangers: bool) -> list[Proc]:
    table = snapshot()
    found: dict[int, Proc] = {}
    for lineage in lineages:
        for proc in lineage.members(table):
            found[proc.pid] = proc
    if strangers:
        for proc in _adopted_strangers(table):
            found[proc.pid] = proc
    return list(found.values())


def _gone(procs: Iterable[Proc]) -> bool:
    for proc in procs:
        now = read_proc(proc.pid)
        if now is not None and now.start == proc.start and now.alive:
            return False
    return True


async def kill_all(lineages: Iterable[Lineage], grace: float, *, strangers: bool = False) -> None:
    """Kill every member of `lineages` (and, with `strangers`, unmarked adopted orphans); see `Lineage.kill`."""
    import asyncio  # here, not at the top: the command line spawns an agent before it imports asyncio (cli.py)

    chosen = list(lineages)
    loop = asyncio.get_running_loop()
    if not _LINUX:
        for lineage in chosen:
            lineage._signal_group(signal.SIGTERM)
        deadline = loop.time() + grace
        while any(lineage._group_alive() for lineage in chosen) and loop.time() < deadline:
            await asyncio.sleep(_POLL)
        for lineage in chosen:
            lineage._signal_group(signal.SIGKILL)
        return
    targets = _targets(chosen, strangers)
    for proc in targets:
        _send(proc, signal.SIGTERM)
    deadline = loop.time() + grace
    while targets and loop.time() < deadline:
        await asyncio.sleep(_POLL)
        targets = _targets(chosen, strangers)
    for _round in range(KILL_ROUNDS):
        targets = _stop_everything(chosen, strangers)
        if not targets:
            break
        for proc in targets:
            _send(proc, signal.SIGKILL)
        deadline = loop.time() + _ROUND_WAIT
        while not _gone(targets) and loop.time() < deadline:
            await asyncio.sleep(_POLL)
    _finish(chosen)


def _stop_everything(lineages: list[Lineage], strangers: bool) -> list[Proc]:
    """SIGSTOP every member, rescanning until a scan finds none not yet stopped (bounded); all of them."""
    stopped: dict[int, Proc] = {}
    for _ in range(KILL_ROUNDS):
        fresh = [proc for proc in _targets(lineages, strangers) if proc.pid not in stopped]
        if not fresh:
            break
        for proc in fresh:
            _send(proc, signal.SIGSTOP)
            stopped[proc.pid] = proc
    return list(stopped.values())


def _finish(lineages: Iterable[Lineage]) -> None:
    reap_adopted()
    for lineage in lineages:
        if not lineage.members():
            lineage._forget()


def kill_everything(grace: float = 0.5) -> None:
    """Synchronous last sweep (the app's exit, a forced stop): every live lineage and unmarked adopted orphan."""
    kill_now(list(_lineages), grace, strangers=True)


def kill_now(lineages: Iterable[Lineage], grace: float, *, strangers: bool = False) -> None:
    """`kill_all` without an event loop, blocking until it is done (an agent started before the app, never used)."""
    chosen = list(lineages)
    if not _LINUX:
        for lineage in chosen:
            lineage._signal_group(signal.SIGKILL)
        return
    targets = _targets(chosen, strangers)
    for proc in targets:
        _send(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while targets and time.monotonic() < deadline:
        time.sleep(_POLL)
        targets = _targets(chosen, strangers)
    for _round in range(KILL_ROUNDS):
        targets = _stop_everything(chosen, strangers)
        if not targets:
            break
        for proc in targets:
            _send(proc, signal.SIGKILL)
        deadline = time.monotonic() + _ROUND_WAIT
        while not _gone(targets) and time.monotonic() < deadline:
            time.sleep(_POLL)
    _finish(chosen)


def reap_adopted() -> int:
    """Reap our zombie children that we adopted (never a root its spawner waits for); how many were reaped.

    A zombie's environment is gone, so only zombies known to be adopted are reaped: a member some lineage
    saw alive, or one in a root's session (we never fork into a root's session ourselves).
    """
    if not _LINUX or not (_lineages or _strangers):
        return 0  # nothing known to be adopted: no scan of /proc (the app asks every few seconds)
    me = os.getpid()
    seen = set(_strangers)
    sessions: set[int] = set()
    for lineage in _lineages:
        seen |= lineage._seen
        if lineage.root_proc is not None:
            sessions.add(lineage.root_proc.sid)
    reaped = 0
    for proc in snapshot().values():
        if proc.ppid != me or proc.alive or (proc.pid, proc.start) in _roots:
            continue
        if (proc.pid, proc.start) in seen or proc.sid in sessions:
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(proc.pid, os.WNOHANG)[0] == proc.pid:
                    reaped += 1
                    _strangers.discard((proc.pid, proc.start))
    return reaped
