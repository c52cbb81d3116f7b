#!/usr/bin/env python3
"""Typing and paging in a long conversation, black box in tmux (run by hand:
python bench/long_session.py --rounds 333 --repeat 5).

Runs one `mixed` turn of the flood agent (bench/flood_agent.py: each round is a thought, a tool
call and a message, so 333 rounds ≈ 1,000 blocks), waits until it is on screen, then times a
keystroke (typed -> seen in the prompt) and PageUp (pressed -> the screen changed), and prints
the medians, the client's peak RSS and the time the turn took.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stream_speed import BENCH, MARKER, REPO, SOCKET, capture, peak_rss_mb, tmux, wait_ready


def wait_change(session: str, before: str, timeout: float = 10.0) -> float:
    start = time.perf_counter()
    while capture(session) == before:
        if time.perf_counter() - start > timeout:
            raise TimeoutError("the screen did not change")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=333)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--client", default=f"{sys.executable} -m acp_tui --")
    parser.add_argument(
        "--settle", type=float, default=1.0, help="seconds between the turn on screen and the first key"
    )
    args = parser.parse_args()
    session = f"acp-long-{time.monotonic_ns()}"
    agent = [sys.executable, str(BENCH / "flood_agent.py"), "--chunks", str(args.rounds), "--mode", "mixed"]
    command = "exec " + shlex.join([*shlex.split(args.client), *agent])
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(REPO), command)
    try:
        pid = int(tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0])
        wait_ready(session, None, 60)
        tmux("send-keys", "-t", session, "-l", "go")
        time.sleep(0.2)
        start = time.perf_counter()
        tmux("send-keys", "-t", session, "Enter")
        while MARKER not in capture(session):
            time.sleep(0.01)
        turn = time.perf_counter() - start
        time.sleep(args.settle)  # let the turn's last frame settle (not a measurement)
        keys: list[float] = []
        pages: list[float] = []
        for _ in range(args.repeat):
            before = capture(session)
            tmux("send-keys", "-t", session, "-l", "x")
            keys.append(wait_change(session, before))
            time.sleep(0.2)
        for _ in range(args.repeat):
            before = capture(session)
            tmux("send-keys", "-t", session, "PageUp")
            pages.append(wait_change(session, before))
            time.sleep(0.2)
        print(
            f"{args.rounds} rounds (~{args.rounds * 3} blocks), turn on screen in {turn:.2f}s: keystroke median "
            f"{statistics.median(keys) * 1000:.1f} ms (max {max(keys) * 1000:.1f}), PageUp median "
            f"{statistics.median(pages) * 1000:.1f} ms (max {max(pages) * 1000:.1f}) (each includes a tmux capture, "
            f"~2-5 ms); peak RSS {peak_rss_mb(pid):.0f} MB; load (1 min) {os.getloadavg()[0]:.1f}"
        )
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)


if __name__ == "__main__":
    main()
