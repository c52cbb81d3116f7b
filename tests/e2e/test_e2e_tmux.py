"""End to end in a real terminal: the `acp-tui` console script with the demo agent, inside tmux.

It types a prompt the way a user does (`send-keys`), reads the answer off the screen
(`capture-pane`), quits with Ctrl-Q and checks the process is gone. tmux is required (CI has it):
without it the test fails with a clear message instead of skipping silently.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import time
from pathlib import Path

from tests.support.processes import processes_with
from tests.support.tmux import TIMEOUT, Tmux, acp_tui_command, process_alive


def private_exports(tmp_path: Path) -> str:
    """`NAME=value …` for `env -i`: private folders under `tmp_path`, the demo at full speed, a known terminal."""
    env = {
        "ACP_TUI_DEMO_SPEED": "0",
        "ACP_TUI_DATA_DIR": str(tmp_path / "data"),
        "ACP_TUI_STATE_DIR": str(tmp_path / "state"),
        "ACP_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    return " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())


def test_demo_markdown_answer_on_a_real_terminal(tmux: Tmux, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pid_file = tmp_path / "pid"
    exports = private_exports(tmp_path)
    command = " ".join(shlex.quote(part) for part in [*acp_tui_command(), "--cwd", str(project)])
    # `exec` keeps the pid (recorded first) so the test can check the process really exits; `env -i`
    # keeps the test runner's COLUMNS/LINES (which Textual honours) from overriding the pane size.
    shell = f"echo $$ > {shlex.quote(str(pid_file))}; exec env -i {exports} {command}"
    tmux.run("new-session", "-d", "-x", "160", "-y", "50", "-s", tmux.name, "sh", "-c", shell)

    tmux.wait_for(lambda: "Welcome to the" in tmux.screen(), "the demo's welcome message")
    tmux.wait_for(lambda: "ready" in tmux.screen(), "the session to be ready")
    pid = int(pid_file.read_text().strip())
    assert any(len(line.rstrip()) > 150 for line in tmux.screen().splitlines()), "the app uses the whole pane"

    tmux.run("send-keys", "-t", tmux.name, "-l", "markdown")
    tmux.wait_for(
        lambda: any(line.strip() == "markdown" for line in tmux.screen().splitlines()[-6:]), "the typed prompt"
    )
    tmux.run("send-keys", "-t", tmux.name, "Enter")
    tmux.wait_for(lambda: "Greeting people, politely" in tmux.screen(), "the markdown answer's heading")
    tmux.wait_for(lambda: 'return f"Hello, {name}!"' in tmux.screen(), "the code block")

    tmux.run("send-keys", "-t", tmux.name, "C-q")
    tmux.wait_for(lambda: not tmux.alive(), "the tmux session to end")
    tmux.wait_for(lambda: not process_alive(pid), "the acp-tui process to exit")


# -- the terminal closes, or someone sends SIGTERM: nothing acp-tui started lives on (issue 21, item 5) ----


def leaves_a_sleeper(marker: str) -> list[str]:
    """An agent (the demo) that first starts a sleeper in a session of its own, as `setsid cmd &` does.

    The marker is put together by the shell, so only the sleeper's command line holds it whole.
    """
    half = len(marker) // 2
    sleeper = (
        f"m={marker[:half]}; setsid {shlex.quote(sys.executable)} -c 'import time; time.sleep(302)' "
        f'"${{m}}{marker[half:]}" </dev/null >/dev/null 2>&1 &'
    )
    return ["sh", "-c", f"{sleeper} exec {shlex.quote(sys.executable)} -m acp_tui.demo"]


def start_with_sleeper(tmux: Tmux, tmp_path: Path, marker: str) -> tuple[int, Path]:
    project = tmp_path / "project"
    project.mkdir()
    pid_file, rc_file = tmp_path / "pid", tmp_path / "rc"
    exports = private_exports(tmp_path)
    command = " ".join(
        shlex.quote(part) for part in [*acp_tui_command(), "--cwd", str(project), "--", *leaves_a_sleeper(marker)]
    )
    inner = f"echo $$ > {shlex.quote(str(pid_file))}; exec env -i {exports} {command}"
    # The outer shell outlives acp-tui to record its exit status (and keeps the pane open to read it).
    shell = f"sh -c {shlex.quote(inner)}; echo $? > {shlex.quote(str(rc_file))}; sleep 30"
    tmux.run("new-session", "-d", "-x", "160", "-y", "50", "-s", tmux.name, "sh", "-c", shell)
    tmux.wait_for(lambda: "ready" in tmux.screen(), "the session to be ready")
    tmux.wait_for(lambda: bool(processes_with(marker)), "the sleeper the agent left")
    return int(pid_file.read_text().strip()), rc_file


def test_sigterm_quits_as_ctrl_q_does_and_kills_what_the_agent_left(tmux: Tmux, tmp_path: Path, marker: str) -> None:
    pid, rc_file = start_with_sleeper(tmux, tmp_path, marker)
    os.kill(pid, signal.SIGTERM)
    tmux.wait_for(lambda: rc_file.exists() and rc_file.read_text().strip() != "", "acp-tui's exit status")
    assert rc_file.read_text().strip() == str(128 + signal.SIGTERM)
    assert not process_alive(pid) and not processes_with(marker)
    tmux.wait_for(lambda: "\x1b" not in tmux.screen() and "ready" not in tmux.screen(), "the terminal restored")


_SIGNAL_AS_THE_APP_STARTS = """
import os, signal, sys
from acp_tui.ui.app import AcpApp

real_run = AcpApp.run

def run_after_a_signal(self, *args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)  # `kill`, or the window closing, as the app starts: not yet mounted
    return real_run(self, *args, **kwargs)

AcpApp.run = run_after_a_signal
from acp_tui import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def test_sigterm_before_the_app_is_mounted_is_answered_once_it_is(tmux: Tmux, tmp_path: Path, marker: str) -> None:
    """The agent starts before the UI is imported, so a SIGTERM between the import and the app's mount (when the
    app's own handler is not there yet) must not kill acp-tui outright: it quits as a later one does, and what the
    agent left is stopped with it."""
    project = tmp_path / "project"
    project.mkdir()
    wrapper = tmp_path / "signal_as_the_app_starts.py"
    wrapper.write_text(_SIGNAL_AS_THE_APP_STARTS)
    rc_file = tmp_path / "rc"
    command = " ".join(
        shlex.quote(part)
        for part in [sys.executable, str(wrapper), "--cwd", str(project), "--", *leaves_a_sleeper(marker)]
    )
    inner = f"exec env -i {private_exports(tmp_path)} {command}"
    shell = f"sh -c {shlex.quote(inner)}; echo $? > {shlex.quote(str(rc_file))}; sleep 30"
    tmux.run("new-session", "-d", "-x", "160", "-y", "50", "-s", tmux.name, "sh", "-c", shell)
    tmux.wait_for(lambda: rc_file.exists() and rc_file.read_text().strip() != "", "acp-tui's exit status")
    assert rc_file.read_text().strip() == str(128 + signal.SIGTERM)
    assert not processes_with(marker), "the agent's sleeper outlived acp-tui"  # killed outright, it would live on
    tmux.wait_for(lambda: "\x1b" not in tmux.screen() and "ready" not in tmux.screen(), "the terminal restored")


def test_a_closed_terminal_ends_acp_tui_and_what_the_agent_left(tmux: Tmux, tmp_path: Path, marker: str) -> None:
    pid, _ = start_with_sleeper(tmux, tmp_path, marker)
    tmux.run("kill-server")  # the terminal goes away: SIGHUP
    deadline = time.monotonic() + TIMEOUT
    while (process_alive(pid) or processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)  # polling interval, not synchronisation: the condition decides
    assert not process_alive(pid), "acp-tui outlived its terminal"
    assert not processes_with(marker), "the agent's sleeper outlived the terminal"
