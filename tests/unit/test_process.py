"""AgentProcess: spawn errors, stderr draining, exit events, and a shutdown that leaves nothing behind."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from acp_tui.agent.connection import Connection
from acp_tui.agent.process import AgentNotRunning, AgentProcess, ExitInfo, SpawnError
from tests.support.agents import AGENTS_DIR
from tests.support.processes import processes_with
from tests.support.wait import until as wait_until

AGENT = str(AGENTS_DIR / "rpc_agent.py")


def alive(pid: int) -> bool:
    """True if `pid` runs and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


async def test_missing_executable_is_a_clear_spawn_error(tmp_path: Path) -> None:
    with pytest.raises(SpawnError) as info:
        await AgentProcess([str(tmp_path / "no-such-agent")]).start()
    assert "command not found" in str(info.value) and "\n" not in str(info.value)


async def test_not_executable_is_a_clear_spawn_error(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    with pytest.raises(SpawnError) as info:
        await AgentProcess([str(script)]).start()
    assert "permission denied" in str(info.value)


async def test_missing_cwd_is_a_clear_spawn_error(tmp_path: Path) -> None:
    with pytest.raises(SpawnError) as info:
        await AgentProcess([sys.executable, "-c", "pass"], cwd=tmp_path / "gone").start()
    assert "working directory" in str(info.value)


async def test_argv_cwd_and_env_are_passed_without_a_shell(tmp_path: Path) -> None:
    code = "import os,sys; print(os.getcwd(), os.environ['ACP_X'], sys.argv[1], os.getpgrp() == os.getpid())"
    proc = AgentProcess([sys.executable, "-c", code, "$HOME; echo hi"], cwd=tmp_path, env={"ACP_X": "y"})
    await proc.start()
    chunks: list[bytes] = []
    closed: asyncio.Future[ExitInfo] = asyncio.get_running_loop().create_future()
    proc.start_reading(chunks.append, closed.set_result)
    info = await closed
    assert info.code == 0 and info.signal is None
    assert b"".join(chunks).decode().split() == [str(tmp_path), "y", "$HOME;", "echo", "hi", "True"]


async def test_exit_event_carries_code_and_stderr_tail() -> None:
    lines: list[str] = []
    proc = AgentProcess(
        [sys.executable, "-c", "import sys; sys.stderr.write('boom\\nlast words'); sys.exit(3)"], on_stderr=lines.append
    )
    await proc.start()
    proc.start_reading(lambda data: None, lambda info: None)
    info = await proc.wait()
    assert info.code == 3 and info.describe() == "exited with code 3"
    assert info.stderr_tail.endswith("boom\nlast words")
    assert lines == ["boom", "last words"]
    with pytest.raises(AgentNotRunning):
        await proc.write(b"{}\n")


async def test_the_stderr_tail_survives_a_loop_that_stalls_while_the_pipes_linger(tmp_path: Path) -> None:
    # The agent exits at once; a child it left writes its last words 0.2 s later and closes the pipe.
    # The app's loop is busy (a long render) from before the write until after the linger ran out: the
    # bytes and the timeout arrive in the same pass, and the banner must still quote them.
    mark = tmp_path / "written"
    script = f"(sleep 0.2; echo 'last words' >&2; touch '{mark}') & exit 3"
    proc = AgentProcess(["sh", "-c", script])
    await proc.start()
    proc.start_reading(lambda data: None, lambda info: None)
    await asyncio.sleep(0.1)  # the exit is seen and the linger has begun
    stalled_until = time.monotonic() + 0.9
    while time.monotonic() < stalled_until or not mark.exists():  # a stalled loop, past the 0.5 s linger
        time.sleep(0.01)
        assert time.monotonic() < stalled_until + 30, "the child never wrote"
    info = await proc.wait()
    assert info.code == 3
    assert info.stderr_tail.endswith("last words\n")


async def test_killed_by_signal_is_reported() -> None:
    proc = AgentProcess([sys.executable, "-c", "import time; time.sleep(100)"])
    await proc.start()
    proc.start_reading(lambda data: None, lambda info: None)
    assert proc.pid is not None
    os.kill(proc.pid, signal.SIGKILL)
    info = await proc.wait()
    assert info.code is None and info.signal == signal.SIGKILL
    assert info.describe() == "killed by SIGKILL"


async def test_hundred_megabytes_of_stderr_do_not_stall_and_stay_bounded() -> None:
    seen = 0

    def count(line: str) -> None:
        nonlocal seen
        seen += 1

    proc = AgentProcess([sys.executable, AGENT], on_stderr=count, stderr_limit=1 << 20)
    await proc.start()
    conn = Connection(proc)
    conn.start()
    result = await asyncio.wait_for(conn.request("test/stderr", {"megabytes": 100}), 60)
    assert bytes(result) == b'{"done":true}'
    await proc.shutdown()
    assert proc.stderr_bytes_seen == 100 * 1024 * 1024
    assert seen == 100 * 1024
    tail = proc.stderr_tail()
    assert len(tail) <= 1 << 20 and tail.endswith("e" * 1023 + "\n")
    assert len(proc._stderr_ring) <= 2 << 20


async def test_shutdown_of_a_stubborn_agent_leaves_no_process_of_its_group() -> None:
    proc = AgentProcess([sys.executable, AGENT, "--ignore-eof", "--ignore-term"])
    await proc.start()
    conn = Connection(proc)
    conn.start()
    pids = msgspec_decode(await conn.request("test/spawn_child", {}))
    assert alive(pids["child"]) and alive(pids["agent"])
    info = await asyncio.wait_for(proc.shutdown(stdin_grace=0.3, term_grace=0.3), 10)
    assert info is not None and info.signal == signal.SIGKILL
    assert not alive(pids["agent"])
    assert not alive(pids["child"])
    assert conn.closed


async def test_shutdown_sweeps_children_of_a_polite_agent() -> None:
    proc = AgentProcess([sys.executable, AGENT])
    await proc.start()
    conn = Connection(proc)
    conn.start()
    pids = msgspec_decode(await conn.request("test/spawn_child", {}))
    info = await asyncio.wait_for(proc.shutdown(stdin_grace=2, term_grace=1), 10)
    assert info is not None and info.code == 0
    assert not alive(pids["child"])


def msgspec_decode(raw: msgspec.Raw) -> dict[str, int]:
    return msgspec.json.decode(raw, type=dict[str, int])


async def test_a_consumer_that_raises_does_not_end_the_reading() -> None:
    """Issue 21: an exception in the stdout consumer once killed the pump; the agent ran on unheard."""
    code = "import sys,time\nfor i in range(3):\n    print(i, flush=True); time.sleep(0.05)\n"
    lines: list[str] = []
    proc = AgentProcess([sys.executable, "-c", code], on_stderr=lines.append)
    await proc.start()
    chunks: list[bytes] = []

    def consume(data: bytes) -> None:
        chunks.append(data)
        if len(chunks) == 1:
            raise RecursionError("maximum recursion depth exceeded")

    closed: asyncio.Future[ExitInfo] = asyncio.get_running_loop().create_future()
    proc.start_reading(consume, closed.set_result)
    await asyncio.wait_for(closed, 20)
    assert b"".join(chunks).split() == [b"0", b"1", b"2"]
    assert any("handling the agent's output failed (RecursionError" in line for line in lines)


# -- what the agent started outside its group (issue 21, item 5) -----------------------------------

SLEEPER = "import time; time.sleep(302)"


async def test_what_an_agent_left_in_a_session_of_its_own_dies_when_it_crashes(tmp_path: Path, marker: str) -> None:
    # The agent exits (code 3) once the sleeper it started in a session of its own runs.
    ready = tmp_path / "ready"
    sleeper = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(302)"
    script = (
        f'setsid {sys.executable} -c "{sleeper}" {ready} {marker} & while [ ! -e {ready} ]; do sleep 0.01; done; exit 3'
    )
    proc = AgentProcess(["sh", "-c", script])
    await proc.start()
    proc.start_reading(lambda data: None, lambda info: None)
    info = await proc.wait()
    assert info.code == 3
    await until_gone(marker)


async def test_shutdown_kills_what_the_agent_left_in_a_session_of_its_own(marker: str) -> None:
    script = f"setsid {sys.executable} -c '{SLEEPER}' {marker} & exec {sys.executable} {AGENT}"
    proc = AgentProcess(["sh", "-c", script])
    await proc.start()
    conn = Connection(proc)
    conn.start()
    await until(lambda: bool(processes_with(marker)))
    info = await asyncio.wait_for(proc.shutdown(stdin_grace=2, term_grace=1), 10)
    assert info is not None and info.code == 0
    assert not processes_with(marker)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    await wait_until(condition, timeout=timeout)


async def until_gone(marker: str) -> None:
    await until(lambda: not processes_with(marker))
