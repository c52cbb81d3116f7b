"""The README's quick start, exactly as written, on a fresh clone in a real terminal.

The first command under "## Quick start" is what a new user pastes: on a fresh checkout (a `git clone`
of this repository, so the committed HEAD is what is tested) it must install acp-tui and show the
demo agent's first message. It runs in tmux, is read off the screen with `capture-pane`, and quits
with Ctrl-Q. The pip install talks to the package index (CI has the network) and reuses the user's
pip cache. A second check keeps `.ci/run` and the README's test command from drifting apart. Nothing
here depends on the tmux version: the exit status is recorded by a wrapping shell, not read from tmux.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.paths import REPO

#: The install downloads setuptools and the dependencies when the pip cache is cold.
INSTALL_TIMEOUT = 240.0
#: Anything after the app is up.
SCREEN_TIMEOUT = 30.0
#: On screen once the demo agent has greeted (the welcome's markdown is rendered: no asterisks).
WELCOME = "Welcome to the acp-tui demo agent"

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def quick_start_commands(readme: str) -> list[str]:
    """The fenced code blocks of the README's "## Quick start" section, in order, stripped."""
    match = re.search(r"^## Quick start\s*$(.*?)(?=^## )", readme, re.MULTILINE | re.DOTALL)
    assert match is not None, "README.md has no '## Quick start' section"
    blocks = [block.strip() for block in _FENCE.findall(match.group(1))]
    assert len(blocks) >= 2, "the quick start needs a run command and a test command"
    return blocks


def ci_command(script: str) -> str:
    """The one command `.ci/run` runs: its last line that is not a comment, `set` or `cd`."""
    lines = [line.strip() for line in script.splitlines()]
    commands = [line for line in lines if line and not line.startswith(("#", "set ", "cd "))]
    assert commands, ".ci/run runs no command"
    return commands[-1]


def require(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is not installed: the README quick-start test needs it", pytrace=False)


class Tmux:
    """One detached tmux session on a private server socket."""

    def __init__(self, socket: Path, name: str, env: dict[str, str]) -> None:
        self.socket = socket
        self.name = name
        self.env = env

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=10,
            env=self.env,
        )

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name, check=False).stdout

    def pane(self, variable: str) -> str:
        """A format variable of the session's pane, e.g. `pane_dead` ("" once the session is gone)."""
        return self.run("display-message", "-p", "-t", self.name, f"#{{{variable}}}", check=False).stdout.strip()

    def exited(self) -> bool:
        """The command in the pane has ended (the pane is kept, so its last screen can be read)."""
        return self.pane("pane_dead") == "1"

    def start(self, script: str, status_file: Path) -> None:
        """Run `script` with `sh -c` in a 160×50 pane; its exit status is written to `status_file`.

        tmux's own `pane_dead_status` differs between versions (3.3a can leave it empty for exit 0 or for
        a signal, depending on when it is read), so the status comes from a wrapping shell instead:
        `$?` of the inner `sh -c`, 128+N for a signal.
        """
        wrapper = 'sh -c "$1"; echo $? > "$2"'
        # remain-on-exit keeps a failed install's output readable after the command ends.
        self.run(
            "new-session",
            "-d",
            "-x",
            "160",
            "-y",
            "50",
            "-s",
            self.name,
            "sh",
            "-c",
            wrapper,
            "sh",
            script,
            str(status_file),
            ";",
            "set-option",
            "-w",
            "-t",
            self.name,
            "remain-on-exit",
            "on",
        )

    def wait_for(self, condition: Callable[[], bool], what: str, timeout: float) -> None:
        """Poll until `condition` holds; on time-out fail showing the screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)  # polling interval, not synchronisation: the condition decides
        pytest.fail(f"timed out after {timeout:g} s waiting for {what}; the screen shows:\n{self.screen()}")


def exit_status(status_file: Path) -> str:
    """The exit status the wrapping shell recorded, or a note that there is none (yet)."""
    try:
        return status_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return "unknown (no status recorded)"


@pytest.fixture
def tmux_env(tmp_path: Path) -> dict[str, str]:
    """The user's environment (pip settings and cache included), with private acp-tui dirs."""
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE", "COLUMNS", "LINES")}
    for name in ("CONFIG", "DATA", "STATE"):
        folder = tmp_path / f"user-{name.lower()}"
        folder.mkdir()
        env[f"ACP_TUI_{name}_DIR"] = str(folder)
    env.update({"ACP_TUI_DEMO_SPEED": "0", "TERM": "xterm-256color", "LANG": "C.UTF-8"})
    env.pop("ACP_TUI_LOG", None)
    return env


@pytest.fixture
def tmux(tmux_env: dict[str, str]) -> Iterator[Tmux]:
    require("tmux")
    # A short socket path: AF_UNIX paths are limited to ~100 bytes and tmp_path can be long.
    socket = Path("/tmp") / f"acp-tui-readme-{uuid.uuid4().hex[:12]}.sock"
    session = Tmux(socket, f"readme-{uuid.uuid4().hex[:8]}", tmux_env)
    yield session
    session.run("kill-server", check=False)
    socket.unlink(missing_ok=True)


def test_quick_start_commands_are_what_ci_runs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    run_command, test_command = quick_start_commands(readme)[:2]
    assert run_command.endswith(".venv/bin/acp-tui"), "the first command starts acp-tui with no agent (the demo)"
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ci_command(script) == test_command
    assert "mktemp -d /tmp/" in script and "git clone" in script, ".ci/run tests a fresh clone in an empty folder"


@pytest.mark.timeout(INSTALL_TIMEOUT + 2 * SCREEN_TIMEOUT + 30)
def test_readme_first_command_on_a_fresh_clone_shows_the_demo(tmux: Tmux, tmp_path: Path) -> None:
    require("git")
    clone = tmp_path / "acp-tui"
    cloned = subprocess.run(
        ["git", "clone", "-q", "--no-hardlinks", str(REPO), str(clone)], capture_output=True, text=True, timeout=120
    )
    assert cloned.returncode == 0, f"git clone failed: {cloned.stderr}"
    (command, *_) = quick_start_commands((clone / "README.md").read_text(encoding="utf-8"))

    status_file = tmp_path / "exit-status"
    tmux.start(f"cd {shlex.quote(str(clone))} && {command}", status_file)

    def welcomed() -> bool:
        if tmux.exited():
            pytest.fail(
                f"the command exited with status {exit_status(status_file)} before the demo "
                f"greeted; the screen shows:\n{tmux.screen()}",
                pytrace=False,
            )
        return WELCOME in tmux.screen()

    tmux.wait_for(welcomed, "the demo agent's welcome message", INSTALL_TIMEOUT)
    tmux.wait_for(lambda: "ready" in tmux.screen(), "the session to be ready", SCREEN_TIMEOUT)
    assert (clone / ".venv" / "bin" / "acp-tui").exists()

    tmux.run("send-keys", "-t", tmux.name, "C-q")
    tmux.wait_for(tmux.exited, "acp-tui to quit", SCREEN_TIMEOUT)
    status = exit_status(status_file)
    assert status == "0", f"acp-tui exited with status {status}; the screen shows:\n{tmux.screen()}"
    tmux.run("kill-session", "-t", tmux.name)
    assert tmux.run("has-session", "-t", tmux.name, check=False).returncode != 0
