#!/usr/bin/env python3
"""Black-box streaming speed of the whole client, measured in tmux like a user would see it.

For each chunk count it starts `<client> <flood agent argv>` in a detached 160x50 tmux session,
waits for the client to be ready, types a prompt and Enter, and polls the pane until the marker
word of the agent's last chunk is on screen. It reports Enter -> marker and last chunk -> marker
(the agent writes the time of its last chunk to a stamp file), the 8000/2000 ratio of the medians,
and the peak RSS of the client process (VmHWM from /proc) when the marker shows and again once the client
has used no CPU for 0.3 s (the turn's work done: the older blocks rendered above the screen). The parse-only
floor (bench/floor_reader.py) runs beside each client run, at the same moment and load, and the 1-minute
load average is printed (the machine is shared). Run by hand:

    .venv/bin/python bench/stream_speed.py --chunks 2000 8000 --repeat 5
    .venv/bin/python bench/stream_speed.py --mode mixed --chunks 300 --repeat 5
    .venv/bin/python bench/stream_speed.py --client "python my_client.py --" --ready "ready>"
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
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from floor_reader import Floor
from floor_reader import run_once as floor_once

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
MARKER = "ZZMARKERZZ"
PROMPT = "Please write the long answer"
SOCKET = f"acp-bench-{os.getpid()}"
"""A private tmux server, so other tmux users on the machine neither disturb nor see the runs."""


@dataclass
class Run:
    enter_to_marker: float
    last_chunk_to_marker: float
    peak_rss_mb: float
    agent_last_line: float
    settled_rss_mb: float
    """Peak resident memory once the client has finished the turn's work (the older blocks rendered above)."""
    """Enter -> the agent wrote its last chunk: later than the floor's means we held it back."""


def tmux(*args: str) -> str:
    done = subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"tmux {' '.join(args[:1])} failed: {done.stderr.strip()}")
    return done.stdout


def capture(session: str) -> str:
    return tmux("capture-pane", "-p", "-t", session)


def peak_rss_mb(pid: int) -> float:
    """Peak resident memory of a live process (VmHWM), in MB; 0 if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) / 1024 if match else 0.0


def cpu_ticks(pid: int) -> int:
    """utime + stime of a live process, in clock ticks; -1 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return -1
    return int(fields[11]) + int(fields[12])


def wait_quiet(pid: int, timeout: float, quiet: float = 0.3) -> None:
    """Wait until the process has used no CPU for `quiet` seconds (its work after the marker is done)."""
    deadline = time.monotonic() + timeout
    ticks, since = cpu_ticks(pid), time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < quiet:
        time.sleep(0.05)
        now = cpu_ticks(pid)
        if now != ticks:
            ticks, since = now, time.monotonic()


def wait_ready(session: str, ready: re.Pattern[str] | None, timeout: float) -> None:
    """Wait for the ready pattern, or (without one) for a non-empty screen that stays still 0.5 s."""
    deadline = time.monotonic() + timeout
    previous = ""
    stable_since = time.monotonic()
    while time.monotonic() < deadline:
        screen = capture(session)
        if ready is not None:
            if ready.search(screen):
                return
        elif screen.strip():
            if screen != previous:
                previous = screen
                stable_since = time.monotonic()
            elif time.monotonic() - stable_since >= 0.5:
                return
        time.sleep(0.05)
    raise TimeoutError(f"client not ready after {timeout}s; screen:\n{capture(session)}")


def run_once(client: list[str], chunks: int, mode: str, args: argparse.Namespace) -> Run:
    session = f"acp-bench-{os.getpid()}-{time.monotonic_ns()}"
    with tempfile.TemporaryDirectory() as scratch:
        stamp = Path(scratch) / "last-chunk"
        agent = [sys.executable, str(BENCH / "flood_agent.py"), "--chunks", str(chunks), "--mode", mode]
        agent += ["--stamp", str(stamp)]
        command = "exec " + shlex.join([*client, *agent])
        tmux(
            "new-session", "-d", "-s", session, "-x", str(args.width), "-y", str(args.height), "-c", str(REPO), command
        )
        try:
            pid = int(tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])
            wait_ready(session, re.compile(args.ready) if args.ready else None, args.timeout)
            tmux("send-keys", "-t", session, "-l", PROMPT)
            time.sleep(0.2)  # let the client echo the typed text before Enter (not a measurement)
            enter = time.time()
            tmux("send-keys", "-t", session, "Enter")
            deadline = time.monotonic() + args.timeout
            while MARKER not in capture(session):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"marker not on screen after {args.timeout}s:\n{capture(session)}")
                time.sleep(args.poll)
            seen = time.time()
            rss = peak_rss_mb(pid)
            last_chunk = float(stamp.read_text())
            wait_quiet(pid, args.timeout)
            settled = peak_rss_mb(pid)
        finally:
            subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)
    return Run(seen - enter, seen - last_chunk, rss, last_chunk - enter, settled)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mode", choices=("message", "thought", "tools", "mixed"), default="message")
    parser.add_argument(
        "--client",
        default=f"{sys.executable} -m acp_tui --",
        help="client command line; the agent argv is appended (default: this checkout's acp_tui, run from it)",
    )
    parser.add_argument("--ready", help="regex on the screen meaning the client is ready for a prompt")
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--poll", type=float, default=0.01, help="seconds between screen captures")
    parser.add_argument("--no-floor", action="store_true", help="skip the parse-only floor beside each figure")
    parser.add_argument("--width", type=int, default=160)
    parser.add_argument("--height", type=int, default=50)
    args = parser.parse_args()
    client = shlex.split(args.client)

    medians: dict[int, float] = {}
    for chunks in args.chunks:
        runs: list[Run] = []
        floors: list[Floor] = []
        loads: list[float] = []
        for _ in range(args.repeat):
            # the floor runs beside each client run (same moment, same load): the machine is shared
            loads.append(os.getloadavg()[0])
            if not args.no_floor:
                floors.append(floor_once(chunks, args.mode))
            runs.append(run_once(client, chunks, args.mode, args))
        enter = statistics.median(run.enter_to_marker for run in runs)
        last = statistics.median(run.last_chunk_to_marker for run in runs)
        peak = max(run.peak_rss_mb for run in runs)
        settled = max(run.settled_rss_mb for run in runs)
        agent = statistics.median(run.agent_last_line for run in runs)
        medians[chunks] = enter
        print(
            f"{chunks:>6} chunks ({args.mode}): Enter -> marker median {enter:.3f}s "
            f"(runs {', '.join(f'{run.enter_to_marker:.3f}' for run in runs)}); "
            f"last chunk -> marker median {last:.3f}s; agent's last line at {agent:.3f}s; peak RSS {peak:.0f} MB "
            f"({settled:.0f} MB once the turn's work is done); "
            f"load (1 min) {statistics.median(loads):.1f}",
            flush=True,
        )
        if floors:
            turn = statistics.median(floor.turn for floor in floors)
            written = statistics.median(floor.agent_last_line for floor in floors)
            on_screen = statistics.median(
                run.enter_to_marker / floor.turn for run, floor in zip(runs, floors, strict=True)
            )
            held = statistics.median(run.agent_last_line / floor.turn for run, floor in zip(runs, floors, strict=True))
            print(
                f"{'':>6} floor (parse only, run beside each): whole turn {turn:.3f}s, agent's last line at "
                f"{written:.3f}s; on screen {on_screen:.1f}x the floor, agent's last line {held:.1f}x the "
                f"floor's turn (medians of the paired ratios)",
                flush=True,
            )
    if 2000 in medians and 8000 in medians:
        print(f"8000/2000 ratio (Enter -> marker medians): {medians[8000] / medians[2000]:.2f}")


if __name__ == "__main__":
    main()
