#!/usr/bin/env python3
"""Tabs, black box in tmux: five streaming tabs against one, idle hidden tabs' CPU, twenty tabs' memory.

Every tab's agent is bench/flood_agent.py (Ctrl+T opens a tab with the same agent), run through this
file's `--as-agent` so that each agent process writes its own stamp file (its pid's) in a shared folder.
The client runs in a detached 160x50 tmux session with its own config, data and state folders.

- `speed`: one tab streaming `--chunks` (Enter -> marker on screen; a fresh client's first turn, then a
  second), then five tabs (Ctrl+T x4, a prompt typed in each): Alt+1 Enter, Alt+2 Enter, ... Alt+5 Enter,
  each Enter once its tab is seen shown, and again all typed ahead in one go. "All in
  model" is the first Enter -> every tab's glyph in the bar back to `●` (the turn's end reached its
  controller, after its last chunk), every agent's stamp written, and the shown tab 5's marker on screen.
  "All on screen" goes on to show tabs 1..4 (Alt+N) and waits for each one's marker: a hidden tab draws
  only when shown, so that is when its rendering is paid. The ratios are to the one-tab medians; the
  client's CPU (ticks from /proc) is printed beside.
- `idle`: the client's CPU time (utime + stime from /proc/PID/stat, in clock ticks) over `--idle` seconds
  with one idle tab, then with `--idle-tabs` (default three, two hidden), each tab after a finished turn
  of `--idle-chunks` (`--idle-mode mixed`: its oldest entries fold into an "earlier entries" line).
- `memory`: twenty tabs opened with Ctrl+T, each idle once its agent answered: the client's peak RSS
  (VmHWM) and RSS, and the agents' RSS summed apart (`--memory-chunks N`: each tab after an N-chunk turn).

Each figure is printed with the load average when it was taken (the machine is shared). Run by hand:

    .venv/bin/python bench/tabs_speed.py speed --repeat 5
    .venv/bin/python bench/tabs_speed.py idle --repeat 3
    .venv/bin/python bench/tabs_speed.py memory --repeat 3
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from flood_agent import turn_marker
from stream_speed import MARKER, PROMPT, REPO, SOCKET, capture, peak_rss_mb, tmux, wait_ready

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: A tab in the bar's first line: its number and its state glyph (`◐` working, `⚠`, `✗`, `●` idle).
TAB = re.compile(r"(?<!\S)(\d+) ([◐⚠✗●])")
#: The shown tab's number: the bar draws it bold (SGR 1; reversed, SGR 7, where the palette is unknown), seen in
#: `capture-pane -e`; the other tabs' numbers are plain.
SHOWN = re.compile(r"\x1b\[(?:\d+;)*[17](?:;\d+)*m(?:\x1b\[[\d;]*m)* (\d+) ")


def load() -> str:
    """The 1-minute load average, to print beside each figure."""
    return os.getloadavg()[0].__format__(".2f")


@dataclass
class Client:
    """acp-tui in a tmux session, its pid, and the folder its agents stamp into."""

    session: str
    pid: int
    stamps: Path

    def screen(self) -> str:
        return capture(self.session)

    def keys(self, *keys: str) -> None:
        tmux("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        tmux("send-keys", "-t", self.session, "-l", text)

    def shown(self) -> int | None:
        """The number of the tab on screen (None while there is no bar: one tab)."""
        match = SHOWN.search(tmux("capture-pane", "-p", "-e", "-t", self.session).split("\n", 1)[0])
        return int(match.group(1)) if match else None

    def tabs(self) -> dict[int, str]:
        """Tab number -> state glyph, as the bar shows them now."""
        return {int(number): glyph for number, glyph in TAB.findall(self.screen().split("\n", 1)[0])}

    def agents(self) -> list[int]:
        """The agents' pids (the client's children)."""
        children: list[int] = []
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                children += [int(pid) for pid in (task / "children").read_text().split()]
            except OSError:
                continue
        return children

    def cpu_ticks(self) -> int:
        """The client's user + system CPU time so far, in clock ticks (all its threads)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat(5)


def wait_for(what: str, done: Callable[[], bool], timeout: float, poll: float = 0.01) -> float:
    """Poll until `done()`; the time it became true."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not seen after {timeout}s: {what}")
        time.sleep(poll)
    return time.time()


def rss_mb(pid: int) -> float:
    """Resident memory now (VmRSS), in MB; 0 if the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) / 1024 if match else 0.0


@contextmanager
def client(chunks: int, args: argparse.Namespace, mode: str = "message") -> Iterator[Client]:
    """acp-tui with the flood agent, ready for a prompt; killed (with its agents) on the way out."""
    session = f"acp-tabs-{os.getpid()}-{time.monotonic_ns()}"
    with tempfile.TemporaryDirectory() as scratch:
        stamps = Path(scratch) / "stamps"
        stamps.mkdir()
        env = " ".join(
            f"{var}={shlex.quote(str(Path(scratch) / var))}"
            for var in ("ACP_TUI_DATA_DIR", "ACP_TUI_STATE_DIR", "ACP_TUI_CONFIG_DIR")
        )
        agent = [sys.executable, str(Path(__file__).resolve()), "--as-agent", str(stamps), str(chunks), mode]
        command = f"exec env {env} " + shlex.join([*shlex.split(args.client), *agent])
        tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(REPO), command)
        try:
            pid = int(tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])
            wait_ready(session, re.compile("● ready"), args.timeout)
            yield Client(session, pid, stamps)
        finally:
            subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)


def new_tab(app: Client, number: int, timeout: float) -> None:
    """Ctrl+T, and wait until tab `number` is shown with its agent's handshake done (`●` idle)."""
    app.keys("C-t")
    wait_for(f"tab {number} ready", lambda: app.tabs().get(number) == "●" and app.shown() == number, timeout)


def show(app: Client, number: int, timeout: float) -> None:
    app.keys(f"M-{number}")
    wait_for(f"tab {number} shown", lambda: app.shown() == number, timeout)


# -- (a) five streaming tabs against one -------------------------------------------------------------


@dataclass
class Five:
    all_in_model: float
    all_on_screen: float
    last_agent: float
    """First Enter -> the last agent's last chunk written."""
    enters: float
    """First Enter -> the last Enter sent (the switching the user does)."""
    shows: list[float]
    """Alt+N -> tab N's marker on screen, for each hidden tab shown at the end."""
    cpu: float
    """The client's CPU seconds, first Enter -> all in model."""


def one_tab(args: argparse.Namespace) -> tuple[float, float, float]:
    """Enter -> marker on screen for the app's first turn (cold: the Markdown and highlighting code runs for
    the first time) and for a second turn (warm; its own marker, `flood_agent.turn_marker`); and the client's
    CPU seconds in the first."""
    times: list[float] = []
    cpu = 0.0
    with client(args.chunks, args) as app:
        for turn in (1, 2):
            app.type(PROMPT)
            wait_for("prompt typed", lambda: PROMPT in app.screen(), args.timeout)
            ticks = app.cpu_ticks()
            enter = time.time()
            app.keys("Enter")

            def answered(marker: str = turn_marker(turn)) -> bool:  # turn 1's stays on screen under turn 2's
                return marker in app.screen()

            times.append(wait_for("marker", answered, args.timeout) - enter)
            if turn == 1:
                cpu = (app.cpu_ticks() - ticks) / CLOCK_TICKS
            wait_for("ready", lambda: "● ready" in app.screen(), args.timeout)
    return times[0], times[1], cpu


def five_tabs(args: argparse.Namespace, *, burst: bool, count: int = 5) -> Five:
    """`burst`: the Enters and Alt+Ns typed ahead in one go (the app's throughput); else each Enter once its
    tab is seen shown (a fast user)."""
    with client(args.chunks, args) as app:
        prompts = [f"{PROMPT} in tab {number}" for number in range(1, count + 1)]
        app.type(prompts[0])
        for number in range(2, count + 1):
            new_tab(app, number, args.timeout)
            app.type(prompts[number - 1])
        wait_for("last prompt typed", lambda: prompts[-1] in app.screen(), args.timeout)
        show(app, 1, args.timeout)
        wait_for("tab 1's prompt", lambda: prompts[0] in app.screen(), args.timeout)
        ticks = app.cpu_ticks()
        first = time.time()
        if burst:
            app.keys("Enter", *(key for number in range(2, count + 1) for key in (f"M-{number}", "Enter")))
        else:
            app.keys("Enter")
            for number in range(2, count + 1):
                show(app, number, args.timeout)

                def shows_prompt(prompt: str = prompts[number - 1]) -> bool:
                    return prompt in app.screen()

                wait_for(f"tab {number}'s prompt", shows_prompt, args.timeout)
                app.keys("Enter")
        enters = time.time() - first

        def all_done() -> bool:
            screen = app.screen()
            tabs = {int(n): glyph for n, glyph in TAB.findall(screen.split("\n", 1)[0])}
            stamped = len(list(app.stamps.iterdir())) == count  # each tab's own agent answered its prompt
            return stamped and MARKER in screen and all(tabs.get(n) == "●" for n in range(1, count + 1))

        in_model = wait_for("every tab idle, the shown one's marker", all_done, args.timeout)
        cpu = (app.cpu_ticks() - ticks) / CLOCK_TICKS
        shows: list[float] = []
        for number in range(1, count):
            pressed = time.time()
            show(app, number, args.timeout)
            shows.append(wait_for(f"tab {number}'s marker", lambda: MARKER in app.screen(), args.timeout) - pressed)
        on_screen = time.time()
        last_agent = max(float(stamp.read_text()) for stamp in app.stamps.iterdir())
    return Five(in_model - first, on_screen - first, last_agent - first, enters, shows, cpu)


def speed(args: argparse.Namespace) -> None:
    ones: list[tuple[float, float, float, str]] = []
    fives: dict[bool, list[tuple[Five, str]]] = {False: [], True: []}
    for _ in range(args.repeat):  # interleaved, so a change in the machine's load falls on all
        before = load()
        cold, warm, cpu = one_tab(args)
        ones.append((cold, warm, cpu, before))
        print(
            f"  one tab: first turn {cold:.3f}s (client CPU {cpu:.2f}s), second turn {warm:.3f}s (load {before})",
            flush=True,
        )
        for burst in (False, True):
            before = load()
            five = five_tabs(args, burst=burst)
            fives[burst].append((five, before))
            print(
                f"  five tabs ({'typed ahead' if burst else 'each Enter once shown'}): all in model "
                f"{five.all_in_model:.3f}s, all on screen {five.all_on_screen:.3f}s, last agent done "
                f"{five.last_agent:.3f}s, Enters sent in {five.enters:.3f}s, client CPU {five.cpu:.2f}s, hidden tabs shown in "
                f"{', '.join(f'{show:.3f}' for show in five.shows)}s (load {before})",
                flush=True,
            )
    cold = statistics.median(one[0] for one in ones)
    warm = statistics.median(one[1] for one in ones)
    loads = sorted(float(lo) for lo in [one[3] for one in ones] + [lo for runs in fives.values() for _, lo in runs])
    print(
        f"{args.chunks} chunks, medians of {args.repeat}, load {loads[0]:.2f}-{loads[-1]:.2f}: one tab Enter -> "
        f"marker {cold:.3f}s (first turn; client CPU {statistics.median(one[2] for one in ones):.2f}s), {warm:.3f}s "
        "(second turn)"
    )
    for burst, runs in fives.items():
        model = statistics.median(five.all_in_model for five, _ in runs)
        screen = statistics.median(five.all_on_screen for five, _ in runs)
        shown = statistics.median(show for five, _ in runs for show in five.shows)
        print(
            f"five tabs ({'typed ahead' if burst else 'each Enter once shown'}), first Enter -> all in model "
            f"{model:.3f}s ({model / cold:.2f}x first turn, {model / warm:.2f}x second), -> all on screen "
            f"{screen:.3f}s ({screen / cold:.2f}x, {screen / warm:.2f}x); a hidden tab shown in {shown:.3f}s; client "
            f"CPU to all in model {statistics.median(five.cpu for five, _ in runs):.2f}s (target <= 2x)"
        )


# -- (b) idle hidden tabs' CPU -----------------------------------------------------------------------


def idle_rate(app: Client, seconds: float) -> float:
    """The client's CPU over `seconds` of doing nothing, in clock ticks per second."""
    time.sleep(1.0)  # what the last frame scheduled runs out (not measured)
    start, ticks = time.monotonic(), app.cpu_ticks()
    time.sleep(seconds)
    return (app.cpu_ticks() - ticks) / (time.monotonic() - start)


def finish_turn(app: Client, timeout: float) -> None:
    app.type(PROMPT)
    wait_for("prompt typed", lambda: PROMPT in app.screen(), timeout)
    app.keys("Enter")
    wait_for("marker", lambda: MARKER in app.screen() and "● ready" in app.screen(), timeout)


def idle(args: argparse.Namespace) -> None:
    results: list[tuple[float, float, str, str]] = []
    for _ in range(args.repeat):
        with client(args.idle_chunks, args, args.idle_mode) as app:
            if args.idle_chunks:
                finish_turn(app, args.timeout)
            load_one = load()
            one = idle_rate(app, args.idle)
            for number in range(2, args.idle_tabs + 1):
                new_tab(app, number, args.timeout)
                if args.idle_chunks:
                    finish_turn(app, args.timeout)
            load_three = load()
            three = idle_rate(app, args.idle)
        results.append((one, three, load_one, load_three))
        print(
            f"  idle: one tab {one:.2f} ticks/s (load {load_one}); {args.idle_tabs} tabs {three:.2f} ticks/s "
            f"(load {load_three})",
            flush=True,
        )
    one = statistics.median(r[0] for r in results)
    three = statistics.median(r[1] for r in results)
    print(
        f"idle over {args.idle:.0f}s, medians of {args.repeat} ({CLOCK_TICKS} ticks = 1 CPU s): one tab {one:.2f} "
        f"ticks/s, {args.idle_tabs} tabs ({args.idle_tabs - 1} hidden) {three:.2f} ticks/s: "
        f"{(three - one) / (args.idle_tabs - 1):+.2f} ticks/s per hidden tab"
    )


# -- (c) twenty tabs' memory --------------------------------------------------------------------------


def memory(args: argparse.Namespace) -> None:
    results: list[tuple[float, float, float, float, str]] = []
    for _ in range(args.repeat):
        with client(args.memory_chunks, args) as app:
            if args.memory_chunks:
                finish_turn(app, args.timeout)
            one = rss_mb(app.pid)
            for number in range(2, args.tabs + 1):
                new_tab(app, number, args.timeout)
                if args.memory_chunks:
                    finish_turn(app, args.timeout)
            wait_for(f"{args.tabs} agents", lambda: len(app.agents()) == args.tabs, args.timeout)
            time.sleep(1.0)  # the last tab's first frames (not measured)
            peak, now = peak_rss_mb(app.pid), rss_mb(app.pid)
            agents = sum(rss_mb(pid) for pid in app.agents())
            results.append((one, peak, now, agents, load()))
        print(
            f"  {args.tabs} tabs ({args.memory_chunks} chunks each): client peak {peak:.0f} MB, now {now:.0f} MB (one tab {one:.0f} MB); "
            f"agents {agents:.0f} MB (load {results[-1][4]})"
        )
    peak = statistics.median(r[1] for r in results)
    print(
        f"{args.tabs} tabs, medians of {args.repeat}: client peak RSS {peak:.0f} MB "
        f"(one tab {statistics.median(r[0] for r in results):.0f} MB, "
        f"{(peak - statistics.median(r[0] for r in results)) / (args.tabs - 1):.1f} MB per tab), "
        f"agents' RSS {statistics.median(r[3] for r in results):.0f} MB (target: client <= 400 MB)"
    )


def as_agent(stamps: str, chunks: str, mode: str) -> None:
    """The flood agent, stamping into its own file of the shared folder (several run at once)."""
    from flood_agent import Agent

    Agent(max(1, int(chunks)), mode, str(Path(stamps) / str(os.getpid()))).run()


def main() -> None:
    if sys.argv[1:2] == ["--as-agent"]:
        as_agent(*sys.argv[2:5])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("speed", "idle", "memory"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measured")
    parser.add_argument(
        "--idle-chunks", type=int, default=100, help="each idle tab's finished turn, in --idle-mode units (0: none)"
    )
    parser.add_argument(
        "--idle-mode",
        choices=("message", "mixed"),
        default="mixed",
        help="mixed: 100 rounds are ~300 entries, so each tab folds its oldest into an 'earlier entries' line",
    )
    parser.add_argument("--idle-tabs", type=int, default=3, help="tabs open in the second idle measurement")
    parser.add_argument("--tabs", type=int, default=20)
    parser.add_argument(
        "--memory-chunks",
        type=int,
        default=0,
        help="each of the twenty tabs after a turn of this many chunks (0: none)",
    )
    parser.add_argument("--client", default=f"{sys.executable} -m acp_tui --")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; load now {load()}", flush=True)
    {"speed": speed, "idle": idle, "memory": memory}[args.what](args)


if __name__ == "__main__":
    main()
