"""Tabs end to end in a real terminal (issue 24): the `acp-tui` console script with the demo agent, in tmux.

Two tabs, each its own demo agent: `slow` counts in tab 1 while tab 2 answers `markdown`, and the count is
further along when tab 1 is shown again; `edit` in tab 2 asks its permission while tab 1 is shown, so the
bar marks tab 2 `⚠` and nothing is drawn over tab 1; Ctrl+C cancels tab 1's count only; Ctrl+PageDown
shows tab 2 with its question; Ctrl+Q leaves no agent behind. The tab keys are sent as a terminal sends
them (Alt+1 is `ESC 1`), and every wait is a condition on the screen.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

from tests.e2e.test_e2e_tmux import private_exports
from tests.support.processes import processes_with
from tests.support.tmux import Tmux, acp_tui_command, process_alive

#: The demo's speed: `slow` counts for 30 s (one number every 0.5 s), far longer than the steps that need it
#: counting; `markdown` takes about 2 s. The test never waits for the count to end.
SPEED = "1"
#: The permission dialog's question (the demo's `edit`).
QUESTION = "Allow editing src/greet.py?"
#: Tab 1's count: `1… 2… 3…`.
COUNT = re.compile(r"(\d+)…")


def demo_agent(marker: str) -> list[str]:
    """The demo agent with `marker` on its command line: after `--`, so Ctrl+T starts the same command."""
    return [sys.executable, "-c", "import sys; from acp_tui.demo.cli import main; sys.exit(main([]))", marker]


def agents(marker: str) -> list[int]:
    """The demo agents carrying `marker` (not acp-tui, nor the tmux server, whose command lines hold it too)."""
    found = []
    for pid in processes_with(marker):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile
        if argv[1:2] == [b"-c"] and b"acp_tui.demo.cli" in argv[2]:
            found.append(pid)
    return found


def bar(tmux: Tmux) -> str:
    """The top line: the tab bar once there are two tabs."""
    lines = tmux.screen().splitlines()
    return lines[0] if lines else ""


def tab_label(tmux: Tmux, number: int) -> str:
    """Tab `number`'s part of the bar (` 1 ◐ acp-tui demo agent • `)."""
    parts = re.split(r"\s(?=\d [◐⚠✗●])", bar(tmux))
    return next((part for part in parts if part.strip().startswith(f"{number} ")), "")


def counted(tmux: Tmux) -> int:
    """The highest number of tab 1's count on the screen (0 before the first)."""
    return max((int(number) for number in COUNT.findall(tmux.screen())), default=0)


def typed(tmux: Tmux, text: str) -> None:
    """Type `text` into the prompt and wait until the prompt shows it (nothing sent yet)."""
    tmux.run("send-keys", "-t", tmux.name, "-l", text)
    tmux.wait_for(lambda: any(line.strip() == text for line in tmux.screen().splitlines()[-8:]), f"{text!r} typed")


def test_two_tabs_side_by_side_on_a_real_terminal(tmux: Tmux, tmp_path: Path, marker: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pid_file = tmp_path / "pid"
    exports = private_exports(tmp_path).replace("ACP_TUI_DEMO_SPEED=0", f"ACP_TUI_DEMO_SPEED={SPEED}")
    command = " ".join(
        shlex.quote(part) for part in [*acp_tui_command(), "--cwd", str(project), "--", *demo_agent(marker)]
    )
    shell = f"echo $$ > {shlex.quote(str(pid_file))}; exec env -i {exports} {command}"
    tmux.run("new-session", "-d", "-x", "160", "-y", "50", "-s", tmux.name, "sh", "-c", shell)
    tmux.wait_for(lambda: "ready" in tmux.screen(), "tab 1's session to be ready")
    pid = int(pid_file.read_text().strip())
    assert len(agents(marker)) == 1, "one agent for one tab"

    # Tab 1 counts.
    typed(tmux, "slow")
    tmux.run("send-keys", "-t", tmux.name, "Enter")
    tmux.wait_for(lambda: counted(tmux) >= 2, "tab 1 to start counting")

    # Ctrl+T: tab 2, the same agent command (a second process), a new session; the bar appears.
    tmux.run("send-keys", "-t", tmux.name, "C-t")
    tmux.wait_for(lambda: "1 ◐" in bar(tmux) and "2 ●" in bar(tmux), "the bar: tab 1 working, tab 2 idle")
    tmux.wait_for(lambda: "ready" in tmux.screen(), "tab 2's session to be ready")
    assert counted(tmux) == 0, "tab 2 shows its own conversation, not tab 1's count"
    assert len(agents(marker)) == 2, "one agent per tab"
    tmux.wait_for(lambda: "•" in tab_label(tmux, 1), "tab 1's output marked unseen")

    # Tab 2 answers `markdown` while tab 1 goes on counting, hidden.
    typed(tmux, "markdown")
    tmux.run("send-keys", "-t", tmux.name, "Enter")
    tmux.wait_for(lambda: 'return f"Hello, {name}!"' in tmux.screen(), "tab 2's markdown answer")
    tmux.wait_for(lambda: "ready" in tmux.screen(), "tab 2's turn to end")
    assert "1 ◐" in bar(tmux), "tab 1 still works while hidden"

    # Alt+1 as a terminal sends it: tab 1, its count further along than when it was hidden.
    tmux.run("send-keys", "-t", tmux.name, "M-1")
    tmux.wait_for(lambda: "Counting slowly" in tmux.screen(), "tab 1 shown again")
    assert "Greeting people, politely" not in tmux.screen()
    seen = counted(tmux)
    assert seen >= 4, f"tab 1's count grew while tab 2 answered (it shows {seen})"
    tmux.wait_for(lambda: counted(tmux) > seen, "tab 1's count to go on on screen")
    assert "•" not in tab_label(tmux, 1), "tab 1's output is seen now"

    # `edit` in tab 2, then straight to tab 1 (one write: the prompt is sent, then Alt+1 before the agent
    # can ask): the permission is asked while tab 1 is shown. Tab 2 says `⚠`; nothing opens over tab 1.
    tmux.run("send-keys", "-t", tmux.name, "M-2")
    tmux.wait_for(lambda: "Greeting people, politely" in tmux.screen(), "tab 2 shown")
    typed(tmux, "edit")
    tmux.run("send-keys", "-t", tmux.name, "Enter", "M-1")
    tmux.wait_for(lambda: "2 ⚠" in bar(tmux), "tab 2 marked as needing you")
    screen = tmux.screen()
    assert "Counting slowly" in screen and QUESTION not in screen and "Permission" not in screen, screen
    assert "1 ◐" in bar(tmux), "tab 1 still counting"

    # Ctrl+C cancels the shown tab's turn: tab 1's count; tab 2's question still waits.
    tmux.run("send-keys", "-t", tmux.name, "C-c")
    tmux.wait_for(lambda: "cancelled" in tmux.screen(), "tab 1's turn cancelled")
    tmux.wait_for(lambda: re.search(r"1 ●", bar(tmux)) is not None, "tab 1 idle in the bar")
    assert "2 ⚠" in bar(tmux), "tab 2's question is untouched by tab 1's Ctrl+C"
    assert QUESTION not in tmux.screen()

    # Ctrl+PageDown: tab 2, with its question open on it.
    tmux.run("send-keys", "-t", tmux.name, "C-NPage")
    tmux.wait_for(lambda: QUESTION in tmux.screen(), "tab 2's permission dialog")
    assert "Counting slowly" not in tmux.screen()
    assert "2 ⚠" in bar(tmux), "the question still waits for an answer"

    # Ctrl+Q: both sessions closed, both agents gone, acp-tui gone.
    tmux.run("send-keys", "-t", tmux.name, "C-q")
    tmux.wait_for(lambda: not tmux.alive(), "the tmux session to end")
    tmux.wait_for(lambda: not process_alive(pid), "the acp-tui process to exit")
    assert not agents(marker), "an agent outlived Ctrl+Q"
    tmux.wait_for(lambda: not processes_with(marker), "nothing carrying the marker (the tmux server ends too)")


def agent_cwds(marker: str) -> set[Path]:
    """The working folders of the demo agents carrying `marker` (each tab's agent runs in its tab's folder)."""
    found = set()
    for pid in agents(marker):
        try:
            found.add(Path(os.readlink(f"/proc/{pid}/cwd")))
        except OSError:
            continue  # gone meanwhile
    return found


def test_the_new_tab_dialog_takes_agent_tab_folder_enter_as_one_burst(tmux: Tmux, tmp_path: Path, marker: str) -> None:
    """N3 of the first-use report, as a terminal types it: *New tab with agent…*, then `second`, Tab, a folder and
    Enter in ONE `send-keys` (one write to the terminal): the new tab runs config.toml's `second` in that folder.
    Then the list: `sec` filters it, Down marks `second`, and Enter (take it), Tab, a folder, Enter in one burst."""
    project, extra, other = tmp_path / "project", tmp_path / "extra-lib", tmp_path / "other-lib"
    for folder in (project, extra, other):
        folder.mkdir()
    config = tmp_path / "config"
    config.mkdir()
    second = [sys.executable, "-c", "import sys; from acp_tui.demo.cli import main; sys.exit(main([]))", marker]
    (config / "config.toml").write_text(f"[agents.second]\ncommand = {json.dumps(second)}\n")
    pid_file = tmp_path / "pid"
    command = " ".join(shlex.quote(part) for part in [*acp_tui_command(), "--cwd", str(project)])
    shell = f"echo $$ > {shlex.quote(str(pid_file))}; exec env -i {private_exports(tmp_path)} {command}"
    tmux.run("new-session", "-d", "-x", "120", "-y", "40", "-s", tmux.name, "sh", "-c", shell)
    tmux.wait_for(lambda: "ready" in tmux.screen(), "the first tab's session to be ready")
    pid = int(pid_file.read_text().strip())
    assert not agents(marker), "the first tab runs the built-in demo, not `second`"

    def open_dialog() -> None:
        tmux.run("send-keys", "-t", tmux.name, "C-p")
        tmux.wait_for(lambda: "Search for commands" in tmux.screen(), "the palette")
        tmux.run("send-keys", "-t", tmux.name, "-l", "New tab with agent")
        tmux.wait_for(lambda: "Another agent (config.toml" in tmux.screen(), "the palette's entry")
        tmux.run("send-keys", "-t", tmux.name, "Enter")
        tmux.wait_for(lambda: "Agent — a name from config.toml" in tmux.screen(), "the new tab dialog")

    open_dialog()
    assert "second  config.toml" in tmux.screen(), "config.toml's agent is offered"
    tmux.run("send-keys", "-t", tmux.name, "second", "Tab", str(extra), "Enter")  # one burst
    tmux.wait_for(lambda: extra in agent_cwds(marker), "`second` started in the folder typed")
    tmux.wait_for(lambda: "2 ●" in bar(tmux), "the second tab, ready")
    assert "Agent — a name from config.toml" not in tmux.screen(), "the dialog closed"

    open_dialog()
    tmux.run("send-keys", "-t", tmux.name, "-l", "sec")  # typed slowly this time: the list follows the typing
    tmux.wait_for(lambda: "second  config.toml" in tmux.screen() and "claude" not in tmux.screen(), "the list filtered")
    tmux.run("send-keys", "-t", tmux.name, "Down")
    tmux.wait_for(lambda: "▌ second" in tmux.screen(), "the row marked")
    tmux.run("send-keys", "-t", tmux.name, "Enter", "Tab", str(other), "Enter")  # take it, Folder, open: one burst
    tmux.wait_for(lambda: other in agent_cwds(marker), "`second` started in the other folder")
    tmux.wait_for(lambda: "3 ●" in bar(tmux), "the third tab, ready")
    assert agent_cwds(marker) == {extra, other}

    tmux.run("send-keys", "-t", tmux.name, "C-q")
    tmux.wait_for(lambda: not process_alive(pid), "the acp-tui process to exit")
    tmux.wait_for(lambda: not agents(marker), "the tabs' agents to stop")
