"""acp_tui/lineage.py on its own: a reused pid is never signalled, our own children's statuses are never taken,
and with the subreaper an orphan that cleared its environment and left its session is still killed and reaped.

The subreaper is tried in a child Python (`python -c PROBE`): installing it here would make the test runner
adopt every orphan of every later test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui import lineage
from tests.support.paths import REPO
from tests.support.processes import processes_with
from tests.support.wait import until_sync

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the subreaper are Linux's")


def wait_until(condition: object, timeout: float = 10.0) -> None:
    until_sync(condition, timeout=timeout)  # type: ignore[arg-type]


def test_a_pid_whose_start_time_changed_is_never_signalled() -> None:
    child = subprocess.Popen(["sleep", "302"])
    try:
        proc = lineage.read_proc(child.pid)
        assert proc is not None and proc.alive
        lineage._send(proc._replace(start=proc.start + 1), signal.SIGKILL)  # "the same pid, another process"
        assert child.poll() is None
        lineage._send(proc, signal.SIGTERM)
        assert child.wait(10) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait()


def test_reaping_adopted_orphans_never_takes_a_status_of_our_own_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(7)"])
    wait_until(lambda: (proc := lineage.read_proc(child.pid)) is not None and not proc.alive)  # a zombie of ours
    lineage.reap_adopted()
    assert child.wait(10) == 7  # still ours to wait for


PROBE = r"""
import asyncio, os, sys
from pathlib import Path
from acp_tui import lineage

marker, python = sys.argv[1], sys.executable

async def main() -> None:
    assert lineage.install(), "prctl(PR_SET_CHILD_SUBREAPER) failed"
    assert os.environ[lineage.MARKER].startswith("keep-")
    family = lineage.Lineage()
    # The command starts a sleeper with an empty environment in a session of its own, then exits.
    script = f"env -i setsid {python} -c 'import time; time.sleep(302)' {marker} >/dev/null 2>&1 & exit 0"
    proc = await asyncio.create_subprocess_exec("sh", "-c", script, env=family.environment(), start_new_session=True)
    family.root(proc.pid)
    await proc.wait()
    def sleeper(settled: bool = False) -> int | None:
        # Until `env -i` and `setsid` have exec'd into Python, the process still carries our marker in its
        # environment and its first argument is `env` or `setsid`: settled waits for the Python sleeper itself.
        for entry in Path("/proc").iterdir():
            try:
                mine = entry.name == str(os.getpid())  # our own command line names the marker too
                if not entry.name.isdigit() or mine:
                    continue
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                if marker.encode() in argv and (not settled or argv[0] == python.encode()):
                    return int(entry.name)
            except OSError:
                pass
        return None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while (pid := sleeper(settled=True)) is None or (lineage.read_proc(pid) or lineage.read_proc(1)).ppid != os.getpid():
        assert loop.time() < deadline, "the orphan never came to us"
        await asyncio.sleep(0.01)
    assert not family.members(), "an unmarked orphan in its own session is no member"
    await lineage.kill_all([family], 0.5, strangers=True)
    assert sleeper() is None, "the stranger survived"
    zombies = [p for p in lineage.snapshot().values() if p.ppid == os.getpid() and not p.alive]
    assert not zombies, f"not reaped: {zombies}"
    print("ok")

asyncio.run(main())
"""


def test_with_the_subreaper_an_orphan_that_cleared_its_environment_and_left_its_session_is_killed_and_reaped(
    marker: str,
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, marker], capture_output=True, text=True, timeout=60, env=env, cwd=Path(REPO)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert not processes_with(marker)
