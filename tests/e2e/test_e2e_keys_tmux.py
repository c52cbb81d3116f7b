"""Every key lands, in the order typed, on a real terminal (issue 37, item 1; the report of 2026-12-07, N1).

Each burst is ONE `send-keys` call, as a fast typist, a paste of keys or a remote terminal delivers it; then the
same keys while the app is stopped for 0.7 s (SIGSTOP, then SIGCONT: a long frame, a busy machine), so they
pile up and are read together. In the prompt, in a form with every field type (the demo's `ask`), in the
new-tab dialog and in the session filter.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path

import pytest

from tests.e2e.test_e2e_tabs_tmux import agent_cwds, agents, bar
from tests.e2e.test_e2e_tmux import private_exports
from tests.support.tmux import Tmux, acp_tui_command, process_alive

#: how long the app is stopped while the keys pile up: the length of a long frame, as the report measured it
STALL = 0.7

STOPPED = pytest.mark.parametrize("stopped", [False, True], ids=["one read", "after a stop"])


def start(tmux: Tmux, tmp_path: Path, *, config: str | None = None) -> int:
    """acp-tui with the demo in a 100×30 pane; its pid once the session is ready."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    if config is not None:
        (tmp_path / "config").mkdir(exist_ok=True)
        (tmp_path / "config" / "config.toml").write_text(config)
    pid_file = tmp_path / "pid"
    command = " ".join(shlex.quote(part) for part in [*acp_tui_command(), "--cwd", str(project)])
    shell = f"echo $$ > {shlex.quote(str(pid_file))}; exec env -i {private_exports(tmp_path)} {command}"
    tmux.run("new-session", "-d", "-x", "100", "-y", "30", "-s", tmux.name, "sh", "-c", shell)
    tmux.wait_for(lambda: "● ready" in tmux.screen(), "the session to be ready")
    return int(pid_file.read_text().strip())


@contextmanager
def stopped_while(pid: int, stop: bool) -> Iterator[None]:
    """Keys sent inside pile up in the terminal while the app is stopped (when `stop`), then are read at once."""
    if not stop:
        yield
        return
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
        time.sleep(STALL)  # the stall being simulated, not a wait for anything
    finally:
        os.kill(pid, signal.SIGCONT)


def send(tmux: Tmux, *keys: str) -> None:
    """One `send-keys` call: one write to the terminal."""
    tmux.run("send-keys", "-t", tmux.name, *keys)


def prompt_text(screen: str) -> str:
    """The prompt's text: the non-blank rows between the conversation and the settings line under the prompt."""
    lines = screen.splitlines()
    chips = max(index for index, line in enumerate(lines) if line.startswith(" Mode:"))
    rows = [line.strip() for line in lines[max(0, chips - 3) : chips] if line.strip()]
    return " / ".join(row for row in rows if not row.startswith("Message the agent"))


def reads(tmux: Tmux, expected: str) -> Callable[[], bool]:
    return lambda: prompt_text(tmux.screen()) == expected


def quit_app(tmux: Tmux, pid: int) -> None:
    send(tmux, "C-q")
    tmux.wait_for(lambda: not process_alive(pid), "the acp-tui process to exit")


# -- the prompt ------------------------------------------------------------------------------------------

BURSTS: list[tuple[tuple[str, ...], str]] = [
    (("abc", "BSpace", "Z"), "abZ"),
    (("teh", "BSpace", "BSpace", "he cat"), "the cat"),
    (("hello world", "C-w", "there"), "hello there"),
    (("ab", "Home", "X"), "Xab"),
    (("ab", "Left", "X"), "aXb"),
]


@STOPPED
def test_bursts_of_edits_in_the_prompt(tmux: Tmux, tmp_path: Path, stopped: bool) -> None:
    pid = start(tmux, tmp_path)
    for keys, expected in BURSTS:
        with stopped_while(pid, stopped):
            send(tmux, *keys)
        tmux.wait_for(reads(tmux, expected), f"the prompt to read {expected!r}")
        send(tmux, "End", "C-u")  # Ctrl+U deletes to the line's start from the cursor
        tmux.wait_for(lambda: prompt_text(tmux.screen()) == "", "the prompt emptied")
    quit_app(tmux, pid)


@STOPPED
def test_text_typed_after_enter_stays_for_the_next_message(tmux: Tmux, tmp_path: Path, stopped: bool) -> None:
    pid = start(tmux, tmp_path)
    with stopped_while(pid, stopped):
        send(tmux, "seven", "Enter", "eight")
    tmux.wait_for(lambda: "You said: seven" in tmux.screen(), "the demo's echo of the first message")
    tmux.wait_for(lambda: prompt_text(tmux.screen()) == "eight", "the second word, in the prompt")
    assert "You said: seveneight" not in tmux.screen() and "You said: eight" not in tmux.screen()
    quit_app(tmux, pid)


# -- a form with every field type ------------------------------------------------------------------------


@STOPPED
def test_a_form_filled_in_one_burst(tmux: Tmux, tmp_path: Path, stopped: bool) -> None:
    pid = start(tmux, tmp_path)
    send(tmux, "-l", "ask")
    send(tmux, "Enter")
    tmux.wait_for(lambda: "^S submit" in tmux.screen(), "the demo's form, armed")
    # name (a default to clear), email, language (a select), licence (a select), features (a list), width (a
    # default), coverage, release (a date), branch (a default), private (a checkbox, on by default), submit
    keys = ["C-u", "myproj", "Tab", "ada@example.com", "Tab", "Tab", "Tab", "Tab", "C-u", "120", "Tab", "85"]
    keys += ["Tab", "Tab", "C-u", "dev", "Tab", "Space", "C-s"]
    with stopped_while(pid, stopped):
        send(tmux, *keys)
    tmux.wait_for(lambda: "You answered:" in tmux.screen() and "private:" in tmux.screen(), "the demo's summary")
    screen = tmux.screen()
    for line in ('name: "myproj"', 'email: "ada@example.com"', "width: 120", "coverage: 85", 'branch: "dev"'):
        assert line in screen, f"{line!r} answered; the screen shows:\n{screen}"
    assert "private: false" in screen, "the Space reached the checkbox the Tabs had moved to"
    quit_app(tmux, pid)


# -- the new-tab dialog and the session filter -----------------------------------------------------------


@STOPPED
def test_the_new_tab_dialog_in_one_burst(tmux: Tmux, tmp_path: Path, marker: str, stopped: bool) -> None:
    second = [sys.executable, "-c", "import sys; from acp_tui.demo.cli import main; sys.exit(main([]))", marker]
    pid = start(tmux, tmp_path, config=f"[agents.second]\ncommand = {json.dumps(second)}\n")
    extra = tmp_path / "extra-lib"
    extra.mkdir()
    send(tmux, "C-p")
    tmux.wait_for(lambda: "Search for commands" in tmux.screen(), "the palette")
    send(tmux, "-l", "New tab with agent")
    tmux.wait_for(lambda: "Another agent (config.toml" in tmux.screen(), "the palette's entry")
    send(tmux, "Enter")
    tmux.wait_for(lambda: "Agent — a name from config.toml" in tmux.screen(), "the new tab dialog")
    with stopped_while(pid, stopped):
        send(tmux, "second", "Tab", str(extra), "Enter")
    tmux.wait_for(lambda: extra in agent_cwds(marker), "`second` started in the folder typed")
    tmux.wait_for(lambda: "2 ●" in bar(tmux), "the second tab, ready")
    quit_app(tmux, pid)
    tmux.wait_for(lambda: not agents(marker), "the tabs' agents to stop")


@STOPPED
def test_the_session_filter_in_one_burst(tmux: Tmux, tmp_path: Path, stopped: bool) -> None:
    pid = start(tmux, tmp_path)
    for word in ("markdown", "think"):
        send(tmux, "-l", word)
        send(tmux, "Enter")
        tmux.wait_for(lambda: "● ready" in tmux.screen() and prompt_text(tmux.screen()) == "", f"the {word} turn")
    send(tmux, "C-n")  # a new session: the first is listed now, titled by its prompt
    tmux.wait_for(lambda: "● ready" in tmux.screen(), "the new session")
    send(tmux, "C-o")
    filter_row: Callable[[], str] = lambda: next(  # noqa: E731  (the filter field: the row under the list's title)
        (below for line, below in pairwise(tmux.screen().splitlines()) if "Sessions —" in line), ""
    )
    tmux.wait_for(lambda: "type to filter" in filter_row(), "the session list and its filter")
    with stopped_while(pid, stopped):
        send(tmux, "mark", "BSpace", "BSpace", "rkdown", "C-w", "mark")
    tmux.wait_for(lambda: "mark" in filter_row() and "markdown" not in filter_row(), "the filter reading `mark`")
    send(tmux, "Escape")
    quit_app(tmux, pid)
