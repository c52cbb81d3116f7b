"""A terminal login on a real terminal (docs/protocol.md §2.4): acp-tui steps aside, the agent's login program
owns the terminal (it reads what the user types; Ctrl-C stops it, not acp-tui), and acp-tui comes back to a
restarted, logged-in agent. Runs the `acp-tui` console script inside tmux.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from tests.support.agents import AGENTS_DIR
from tests.support.tmux import Tmux, acp_tui_command, process_alive

AGENT = AGENTS_DIR / "auth_agent.py"


def dialog_text(screen: str) -> str:
    """The words inside the dialog's border, its rows joined by spaces: Textual's wrapping undone, since the
    command line wraps where the length of the clone's folder (in the agent's path) decides."""
    rows = [line.split("│")[1] for line in screen.splitlines() if line.count("│") >= 2]
    return " ".join(" ".join(rows).split())


def test_terminal_login_on_a_real_terminal(tmux: Tmux, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = tmp_path / "script.json"
    method = {"type": "terminal", "methodId": "tui", "name": "Log in here", "args": ["--cli", "login"]}
    script.write_text(
        json.dumps(
            {"version": 2, "auth_methods": [method], "state": str(tmp_path / "state.json"), "terminal_code": "1234"}
        )
    )
    pid_file = tmp_path / "pid"
    env = {
        "ACP_TUI_DATA_DIR": str(tmp_path / "data"),
        "ACP_TUI_STATE_DIR": str(tmp_path / "state"),
        "ACP_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    command = shlex.join([*acp_tui_command(), "--cwd", str(project), "--", sys.executable, str(AGENT), str(script)])
    shell = f"echo $$ > {shlex.quote(str(pid_file))}; exec env -i {exports} {command}"
    tmux.run("new-session", "-d", "-x", "120", "-y", "40", "-s", tmux.name, "sh", "-c", shell)

    def choose_and_run() -> None:
        tmux.wait_for(
            lambda: "needs you to log in" in tmux.screen() and "esc not now" in tmux.screen(), "the armed login dialog"
        )
        tmux.run("send-keys", "-t", tmux.name, "1")
        tmux.wait_for(lambda: "esc back" in tmux.screen(), "the armed confirmation")
        assert "--cli login" in dialog_text(tmux.screen())
        tmux.run("send-keys", "-t", tmux.name, "y")
        tmux.wait_for(lambda: "enter the code shown in your browser" in tmux.screen(), "the login program")

    # Ctrl-C stops the login program; acp-tui survives, says so, and offers the list again.
    choose_and_run()
    pid = int(pid_file.read_text().strip())
    tmux.run("send-keys", "-t", tmux.name, "C-c")
    tmux.wait_for(lambda: "Press Enter to return to acp-tui" in tmux.screen(), "the failure message")
    assert process_alive(pid)
    tmux.run("send-keys", "-t", tmux.name, "Enter")
    tmux.wait_for(
        lambda: "needs you to log in" in tmux.screen() and "Log in here:" in tmux.screen(),
        "the dialog again, with the failure",
    )

    # The right code: logged in, the agent restarts, the session opens.
    choose_and_run()
    tmux.run("send-keys", "-t", tmux.name, "-l", "1234")
    tmux.run("send-keys", "-t", tmux.name, "Enter")
    tmux.wait_for(lambda: "logged in: Log in here" in tmux.screen(), "acp-tui back, logged in")
    tmux.run("send-keys", "-t", tmux.name, "-l", "hello")
    tmux.run("send-keys", "-t", tmux.name, "Enter")
    tmux.wait_for(lambda: "echo: hello" in tmux.screen(), "the answer")

    tmux.run("send-keys", "-t", tmux.name, "C-q")
    tmux.wait_for(lambda: not tmux.alive(), "the tmux session to end")
    tmux.wait_for(lambda: not process_alive(pid), "the acp-tui process to exit")
