"""acp-tui in a real terminal: a tmux session on a private socket, read off the screen."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.paths import REPO

#: How long any one screen condition may take (the app starts a Python agent; CI machines are slow).
TIMEOUT = 30.0


def acp_tui_command() -> list[str]:
    """The installed console script when the venv has one, else the module."""
    script = REPO / ".venv" / "bin" / "acp-tui"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "acp_tui"]


class Tmux:
    """One detached tmux session on a private server socket, running one command."""

    def __init__(self, socket: Path, name: str) -> None:
        self.socket = socket
        self.name = name

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, check=check, timeout=10
        )

    def screen(self) -> str:
        result = self.run("capture-pane", "-p", "-t", self.name, check=False)
        return result.stdout

    def alive(self) -> bool:
        return self.run("has-session", "-t", self.name, check=False).returncode == 0

    def wait_for(self, condition: Callable[[], bool], what: str) -> None:
        """Poll until `condition` holds; on time-out fail showing the screen."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.1)  # polling interval, not synchronisation: the condition decides
        pytest.fail(f"timed out waiting for {what}; the screen shows:\n{self.screen()}")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: the end-to-end test needs it (apt-get install tmux)", pytrace=False)
    # A short socket path: AF_UNIX paths are limited to ~100 bytes and tmp_path can be long.
    socket = Path("/tmp") / f"acp-tui-e2e-{uuid.uuid4().hex[:12]}.sock"
    session = Tmux(socket, f"acp-tui-e2e-{uuid.uuid4().hex[:8]}")
    yield session
    session.run("kill-server", check=False)
    socket.unlink(missing_ok=True)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
