"""The agent started before the UI (acp_tui/agent/early_agent.py), adopted by `AgentProcess` as if it had spawned it.

Adoption is the one path after the spawn, so an adopted agent must behave exactly as a spawned one: its output,
its stderr, how it ended, a shutdown that leaves nothing of it. Its exit is learned as it happens, through a
pidfd or, where there is none, a waiting thread (every behaviour test runs both ways). A spawn that failed
early is raised where `start()` raises; an agent nobody claims is stopped and reaped.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import msgspec
import pytest

from acp_tui import lineage
from acp_tui.agent import child_exit
from acp_tui.agent.connection import Connection
from acp_tui.agent.early_agent import EarlyAgent
from acp_tui.agent.process import AgentProcess, ExitInfo, SpawnError
from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import Note
from acp_tui.launch import Launch, new_session
from tests.support.agents import AGENTS_DIR
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.launches import make_launch
from tests.support.processes import processes_with
from tests.support.wait import until, until_sync

AGENT = str(AGENTS_DIR / "rpc_agent.py")


@pytest.fixture(params=["pidfd", "thread"])
def watcher(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test twice: the exit learned through a pidfd, and by a thread (a system without pidfds)."""
    if request.param == "thread":
        monkeypatch.setattr(child_exit, "pidfd_of", lambda pid: None)
    elif child_exit.pidfd_of(os.getpid()) is None:
        pytest.skip("no pidfds here")
    yield str(request.param)


def state(pid: int) -> str | None:
    """The process state letter of `pid` (Z: exited, not yet reaped), None once it is gone (reaped)."""
    proc = lineage.read_proc(pid)
    return proc.state if proc is not None else None


def early(argv: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> tuple[EarlyAgent, dict[str, str]]:
    """An agent started early, and the whole environment a session asks for it with."""
    whole = {**os.environ, **(env or {})}
    return EarlyAgent.start(argv, cwd=cwd, env=whole), whole


async def test_an_adopted_agent_is_the_early_one_with_its_argv_folder_and_environment(
    tmp_path: Path, watcher: str
) -> None:
    code = (
        "import os,sys; print(os.getcwd(), os.environ['ACP_X'], os.environ['ACP_TUI_LINEAGE'], sys.argv[1],"
        " os.getsid(0) == os.getpid())"
    )
    argv = [sys.executable, "-c", code, "$HOME; echo hi"]
    started, _ = early(argv, tmp_path, {"ACP_X": "y"})
    pid = started.pid
    assert pid is not None
    proc = AgentProcess(argv, cwd=str(tmp_path), env={**os.environ, "ACP_X": "y"}, early=started)
    await proc.start()
    assert proc.pid == pid and started.pid is None  # adopted, not spawned again; claimed once
    chunks: list[bytes] = []
    closed: asyncio.Future[ExitInfo] = asyncio.get_running_loop().create_future()
    proc.start_reading(chunks.append, closed.set_result)
    info = await closed
    assert info == ExitInfo(code=0, signal=None, stderr_tail="")
    words = b"".join(chunks).decode().split()
    assert words == [str(tmp_path), "y", proc.lineage.token, "$HOME;", "echo", "hi", "True"]
    assert state(pid) is None  # reaped


async def test_an_exit_before_the_claim_is_learned_without_reading_anything(tmp_path: Path, watcher: str) -> None:
    argv = [sys.executable, "-c", "import sys; sys.stderr.write('boom\\nlast words'); sys.exit(3)"]
    started, env = early(argv, tmp_path)
    pid = started.pid
    assert pid is not None
    until_sync(lambda: state(pid) == "Z", "the early agent to exit (a zombie until adopted)")
    lines: list[str] = []
    proc = AgentProcess(argv, cwd=tmp_path, env=env, on_stderr=lines.append, early=started)
    await proc.start()
    info = await asyncio.wait_for(proc.wait(), 10)  # nobody reads its stdout
    assert info.code == 3 and info.signal is None and info.stderr_tail.endswith("boom\nlast words")
    assert lines == ["boom", "last words"]
    assert not proc.running and state(pid) is None


async def test_an_adopted_agent_speaks_and_is_killed_by_signal_as_a_spawned_one(tmp_path: Path, watcher: str) -> None:
    started, env = early([sys.executable, AGENT], tmp_path)
    proc = AgentProcess([sys.executable, AGENT], cwd=tmp_path, env=env, early=started)
    await proc.start()
    conn = Connection(proc)
    conn.start()
    pids = msgspec.json.decode(await conn.request("test/spawn_child", {}), type=dict[str, int])
    assert pids["agent"] == proc.pid
    os.kill(pids["agent"], signal.SIGKILL)
    info = await asyncio.wait_for(proc.wait(), 10)
    assert info.signal == signal.SIGKILL and info.describe() == "killed by SIGKILL"
    await until(lambda: state(pids["child"]) in (None, "Z"), "the child it left to be killed with it")


async def test_shutdown_of_an_adopted_stubborn_agent_kills_its_group_and_lineage(
    tmp_path: Path, watcher: str, marker: str
) -> None:
    sleeper = "import time; time.sleep(302)"
    script = (
        f"setsid {sys.executable} -c '{sleeper}' {marker} & exec {sys.executable} {AGENT} --ignore-eof --ignore-term"
    )
    argv = ["sh", "-c", script]
    started, env = early(argv, tmp_path)
    proc = AgentProcess(argv, cwd=tmp_path, env=env, early=started)
    await proc.start()
    conn = Connection(proc)
    conn.start()
    pids = msgspec.json.decode(await conn.request("test/spawn_child", {}), type=dict[str, int])
    await until(lambda: bool(processes_with(marker)), "the sleeper that left the agent's session")
    info = await asyncio.wait_for(proc.shutdown(stdin_grace=0.3, term_grace=0.3), 10)
    assert info is not None and info.signal == signal.SIGKILL
    assert state(pids["agent"]) is None and state(pids["child"]) in (None, "Z")
    assert not processes_with(marker)
    assert conn.closed and not proc.running


async def test_a_start_cancelled_while_adopting_still_shuts_down_and_reaps(tmp_path: Path, watcher: str) -> None:
    """... and leaves none of its pipes open (the ones not connected yet are closed, not left to the collector:
    the process object holding them is still alive here)."""
    fds_before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    started, env = early([sys.executable, AGENT], tmp_path)
    pid = started.pid
    assert pid is not None
    proc = AgentProcess([sys.executable, AGENT], cwd=tmp_path, env=env, early=started)
    starting = asyncio.ensure_future(proc.start())
    await asyncio.sleep(0)  # claimed, its exit watched, its pipes being connected
    assert proc.pid == pid and not starting.done()
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    info = await asyncio.wait_for(proc.shutdown(stdin_grace=0.3, term_grace=0.3), 10)
    assert info is not None and not proc.running and state(pid) is None
    if fds_before is not None:
        await until(lambda: set(os.listdir("/proc/self/fd")) <= fds_before, "every pipe of the agent closed")


async def test_an_early_spawn_error_is_raised_where_start_raises_it(tmp_path: Path) -> None:
    for argv, cwd, message in (
        ([str(tmp_path / "no-such-agent")], tmp_path, "cannot start agent: command not found: "),
        ([sys.executable, "-c", "pass"], tmp_path / "gone", "cannot start agent: working directory "),
    ):
        started, env = early(argv, cwd)
        assert started.pid is None
        with pytest.raises(SpawnError) as spawned_now:
            await AgentProcess(argv, cwd=cwd, env=env).start()
        with pytest.raises(SpawnError) as spawned_early:
            await AgentProcess(argv, cwd=cwd, env=env, early=started).start()
        assert str(spawned_early.value) == str(spawned_now.value) and str(spawned_now.value).startswith(message)


async def test_another_agent_is_spawned_and_the_early_one_stopped_when_they_differ(tmp_path: Path) -> None:
    argv = [sys.executable, AGENT]
    started, env = early(argv, tmp_path)
    pid = started.pid
    assert pid is not None
    proc = AgentProcess(argv, cwd=tmp_path, env={**env, "ACP_TUI_LOGIN": "1"}, early=started)  # a login's restart
    await proc.start()
    assert proc.pid != pid and state(pid) is None  # stopped and reaped; this session runs its own
    later = AgentProcess(argv, cwd=tmp_path, env=env, early=started)  # claimed once: nothing for anyone after
    await later.start()
    assert later.pid not in (pid, proc.pid)
    for each in (proc, later):
        await each.shutdown()


def test_an_agent_nobody_claims_is_stopped_with_all_it_started_and_reaped(tmp_path: Path, marker: str) -> None:
    sleeper = "import time; time.sleep(302)"
    # one sleeper in the agent's group, one in a session of its own; the agent ignores SIGTERM
    stray = f"{sys.executable} -c '{sleeper}' {marker}"
    script = f"trap '' TERM; setsid {stray} & {stray} & wait"
    started, _ = early(["sh", "-c", script], tmp_path)
    pid = started.pid
    assert pid is not None
    until_sync(lambda: len(set(processes_with(marker)) - {pid}) == 2, "both sleepers")
    started.discard()
    assert state(pid) is None  # neither running nor a zombie
    assert not processes_with(marker)
    assert not [proc for proc in lineage.snapshot().values() if proc.pgid == pid and proc.alive]
    started.discard()  # idempotent
    assert started.claim(["sh", "-c", script], tmp_path, {}) is None


# -- through the session controller: the first session's, once --------------------------------------


def rpc_launch(tmp_path: Path, argv: tuple[str, ...]) -> Launch:
    return make_launch(argv, tmp_path, name="rpc-v2", env={"ACP_X": "y"}, init_timeout=20)


async def test_the_first_session_claims_the_early_agent_and_a_restart_spawns_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    launch = rpc_launch(tmp_path, (sys.executable, str(AGENTS_DIR / "rpc_v2_agent.py")))
    started = EarlyAgent.start(launch.agent_argv, cwd=launch.cwd, env={**os.environ, **launch.env})  # as cli.py does
    pid = started.pid
    assert pid is not None
    launch = replace(launch, early_agent=started)
    assert new_session(launch).early_agent is None  # a new tab's session never sees it
    ctl = SessionController(launch, asker=ScriptedUser([]), listener=ControllerEvents())
    try:
        assert await ctl.start()
        first = ctl.session
        assert first is not None and first.transport.pid == pid and started.pid is None
        assert await ctl.restart(stop_first=True)
        second = ctl.session
        assert second is not first and second is not None and second.transport.pid not in (None, pid)
        assert state(pid) is None  # the first was shut down and reaped
    finally:
        await ctl.shutdown()
    started.discard()  # claimed: the command line's discard leaves it to the session (it is gone already)


async def test_an_early_spawn_error_is_the_same_line_the_user_saw_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    launch = rpc_launch(tmp_path, (str(tmp_path / "removed-agent"),))
    said: list[list[str]] = []
    for early_agent in (None, EarlyAgent.start(launch.agent_argv, cwd=launch.cwd, env={**os.environ, **launch.env})):
        events = ControllerEvents()
        ctl = SessionController(replace(launch, early_agent=early_agent), asker=ScriptedUser([]), listener=events)
        assert not await ctl.start()
        assert ctl.stopped
        said.append([event.text for event in events if isinstance(event, Note)])
        await ctl.shutdown()
    assert said[0] == said[1]
    assert any(
        f"could not start the agent: cannot start agent: command not found: {tmp_path}" in line for line in said[1]
    )


# -- the command line: the agent starts before the UI is imported, and never outlives a UI that fails --------

_CLI_WITHOUT_UI = """
import json, os, signal, sys
from pathlib import Path
from acp_tui import lineage

seen = {}

def children():
    return [proc for proc in lineage.snapshot().values() if proc.ppid == os.getpid()]

class NoUi:
    '''The first import of the UI: what runs then is recorded, and the import fails (a broken install).'''

    def find_spec(self, name, path=None, target=None):
        if name == "acp_tui.ui" and "at_ui_import" not in seen:
            seen["at_ui_import"] = [[proc.pid, proc.sid, proc.state] for proc in children()]
            seen["markers"] = [
                entry.split(b"=", 1)[1].decode()
                for proc in children()
                for entry in Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\\0")
                if entry.startswith(b"ACP_TUI_LINEAGE=")
            ]
            seen["our_marker"] = os.environ.get("ACP_TUI_LINEAGE")
            if sys.argv[2] == "SIGTERM":  # the terminal's window closed, or `kill`, while the UI is imported
                os.kill(os.getpid(), signal.SIGTERM)
            raise ImportError("no UI in this test")
        return None

sys.meta_path.insert(0, NoUi())
from acp_tui import cli

try:
    seen["returned"] = cli.main(["--", sys.executable, "-c", "import time; time.sleep(302)", sys.argv[1]])
except ImportError as exc:
    seen["raised"] = str(exc)
seen["after"] = [proc.pid for proc in children()]
print(json.dumps(seen))
"""


@pytest.mark.parametrize("ending", ["import fails", "SIGTERM"])
def test_the_command_line_starts_the_agent_before_the_ui_and_stops_it_when_the_ui_never_runs(
    tmp_path: Path, marker: str, ending: str
) -> None:
    env = {
        **os.environ,
        **{f"ACP_TUI_{name}_DIR": str(tmp_path / name.lower()) for name in ("DATA", "STATE", "CONFIG")},
    }
    env.pop("ACP_TUI_LINEAGE", None)
    result = subprocess.run(
        [sys.executable, "-c", _CLI_WITHOUT_UI, marker, ending],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    [[pid, sid, status]] = seen["at_ui_import"]  # the agent runs before the UI is imported, in a session of its own
    assert sid == pid and status != "Z"
    assert seen["markers"] and seen["markers"][0] not in (None, seen["our_marker"])  # a lineage of its own
    assert seen["our_marker"] is not None and seen["our_marker"].startswith("keep-")  # the subreaper came first
    if ending == "SIGTERM":
        assert seen["returned"] == 128 + signal.SIGTERM and "raised" not in seen  # as the app answers SIGTERM
    else:
        assert seen["raised"] == "no UI in this test"
    assert seen["after"] == []  # stopped and reaped: no process, no zombie
    assert not processes_with(marker)
