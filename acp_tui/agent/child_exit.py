"""A child process's exit, learned as it happens: what asyncio's child watchers do, for a process asyncio did not start.

The agent is started with `subprocess.Popen` (acp_tui/agent/spawn.py), possibly before there is an event
loop, so asyncio cannot wait for it. Linux's pidfd is readable once the child has exited: the loop watches
it and reaps the child (`PidfdChildWatcher`'s way). Without pidfds (another system, an old kernel, a sandbox
that refuses the call) a thread waits for the child (`ThreadedChildWatcher`'s way). Either way only this pid
is waited for, never `waitpid(-1)`, so no other child's status is taken (acp_tui/lineage.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading

#: The return code when the child's status was taken by someone else (asyncio's choice too).
UNKNOWN_STATUS = 255


def watch_exit(
    process: subprocess.Popen[bytes], exited: asyncio.Future[int], *, loop: asyncio.AbstractEventLoop
) -> None:
    """Reap `process` when it exits and resolve `exited` with its return code (negative: the signal that
    killed it). An exited but unreaped child (a zombie) resolves it at once."""
    fd = pidfd_of(process.pid)
    if fd is None:
        thread = threading.Thread(
            target=_wait_in_thread, args=(process, exited, loop), name=f"acp-tui waitpid {process.pid}", daemon=True
        )
        thread.start()
        return
    loop.add_reader(fd, _reap_readable, process, exited, loop, fd)


def pidfd_of(pid: int) -> int | None:
    """A pidfd for `pid`, or None where there are none (then a thread waits)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _reap_readable(
    process: subprocess.Popen[bytes], exited: asyncio.Future[int], loop: asyncio.AbstractEventLoop, fd: int
) -> None:
    loop.remove_reader(fd)
    os.close(fd)
    _settle(process, exited, _wait(process.pid))


def _wait_in_thread(
    process: subprocess.Popen[bytes], exited: asyncio.Future[int], loop: asyncio.AbstractEventLoop
) -> None:
    code = _wait(process.pid)
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is left to tell
        loop.call_soon_threadsafe(_settle, process, exited, code)


def _wait(pid: int) -> int:
    try:
        _, status = os.waitpid(pid, 0)  # at once when called for a readable pidfd: the child has exited
    except ChildProcessError:
        return UNKNOWN_STATUS
    return os.waitstatus_to_exitcode(status)


def _settle(process: subprocess.Popen[bytes], exited: asyncio.Future[int], code: int) -> None:
    process.returncode = code  # reaped: `Popen` must never wait for the pid again (it may be reused)
    if not exited.done():
        exited.set_result(code)


__all__ = ["UNKNOWN_STATUS", "pidfd_of", "watch_exit"]
