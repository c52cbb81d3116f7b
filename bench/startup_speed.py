#!/usr/bin/env python3
"""Start-up to a ready prompt, black box in tmux (run by hand: python bench/startup_speed.py [--repeat N]).

Starts `acp-tui -- <agent>` in a detached 160x50 tmux session (the flood agent, which answers the
handshake at once, so this measures the client) and polls the pane every 10 ms until the status bar
says "ready". Prints the median and all runs, and the client's own CPU time at that moment (steadier than
wall time on a shared machine). Goals: ≤ 1.0 s (issue 4), ≤ 0.35 s (issue 27) on this 2-core machine.
`--agent-start 0.2` makes the agent wait before it reads, as a slower (Node) agent's own start-up does: what
acp-tui hides of it by starting the agent before it imports its UI (docs/performance.md "Start-up").
`--floor` runs Textual's floor beside each run (bench/textual_floor_app.py: a title, a text area and a status
line, no agent), so each figure comes with what the same host takes to start any Textual app of that shape.

The client runs as a user's would, with its bytecode cached: PYTHONDONTWRITEBYTECODE is dropped for it and
an uncounted first run writes the cache (with it set, every start compiles ~400 modules: about twice as slow).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SOCKET = f"acp-startup-{os.getpid()}"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=True).stdout


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def one_run(client: str, timeout: float, agent_start: float = 0.0) -> tuple[float, float]:
    agent = f"{shlex.quote(sys.executable)} {shlex.quote(str(BENCH / 'flood_agent.py'))}"
    if agent_start:
        agent += f" --start-delay {agent_start}"
    with tempfile.TemporaryDirectory() as tmp:
        env = " ".join(
            f"{var}={shlex.quote(str(Path(tmp) / var))}"
            for var in ("ACP_TUI_DATA_DIR", "ACP_TUI_STATE_DIR", "ACP_TUI_CONFIG_DIR")
        )
        session = f"startup{time.monotonic_ns()}"
        pid: int | None = None
        start = time.monotonic()
        command = f"exec env -u PYTHONDONTWRITEBYTECODE {env} {client} {agent}"  # exec: the pane's pid is the client's
        tmux("new-session", "-d", "-x", "160", "-y", "50", "-s", session, command)
        try:
            pid = int(tmux("list-panes", "-t", session, "-F", "#{pane_pid}").strip())
            while time.monotonic() - start < timeout:
                screen = tmux("capture-pane", "-p", "-t", session)
                if "● ready" in screen:
                    return time.monotonic() - start, cpu_seconds(pid)
                time.sleep(0.01)
            raise TimeoutError("the client never became ready")
        finally:
            subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)
            if pid is not None:
                gone(pid, timeout)


def gone(pid: int, timeout: float) -> None:
    """Wait until the killed client has exited: its shutdown (stopping its agent) must not run beside the next
    start and be counted against it."""
    deadline = time.monotonic() + timeout
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--client", default=f"{REPO / '.venv' / 'bin' / 'acp-tui'} --")
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument(
        "--agent-start",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="the flood agent waits this long before it reads (a slower agent's start-up, e.g. 0.2 for Node)",
    )
    parser.add_argument("--floor", action="store_true", help="run Textual's floor app beside each run")
    args = parser.parse_args()
    # a session that outlives the runs keeps the tmux server up (a server whose last session was just
    # killed is still shutting down when the next run asks it for a session, and refuses)
    tmux("new-session", "-d", "-s", "keeper", "sleep 3600")
    one_run(args.client, args.timeout, args.agent_start)  # writes the bytecode cache, as a user's first start does
    floor_client = f"{shlex.quote(sys.executable)} {shlex.quote(str(BENCH / 'textual_floor_app.py'))}"
    if args.floor:
        one_run(floor_client, args.timeout)  # its bytecode cache too
    runs, floors = [], []
    for _ in range(args.repeat):
        runs.append(one_run(args.client, args.timeout, args.agent_start))
        if args.floor:
            floors.append(one_run(floor_client, args.timeout)[0])
    times = [wall for wall, _ in runs]
    cpu = statistics.median(cpu for _, cpu in runs)
    agent = f" (agent start-up +{args.agent_start:g} s)" if args.agent_start else ""
    print(
        f"start-up to ready{agent}: median {statistics.median(times):.2f} s, client CPU {cpu:.2f} s, "
        f"load {os.getloadavg()[0]:.1f} (runs: {', '.join(f'{t:.2f}' for t in times)})"
    )
    if floors:
        ratios = statistics.median(wall / floor for wall, floor in zip(times, floors, strict=True))
        print(
            f"  Textual's floor, run beside each: median {statistics.median(floors):.2f} s; acp-tui {ratios:.2f}x it "
            f"(median of the paired ratios; runs: {', '.join(f'{t:.2f}' for t in floors)})"
        )
    subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
