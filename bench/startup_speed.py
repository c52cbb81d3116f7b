#!/usr/bin/env python3
"""Start-up to a ready prompt, black box in tmux (run by hand: python bench/startup_speed.py [--repeat N]).

Starts `acp-tui -- <agent>` in a detached 160x50 tmux session (the flood agent, which answers the
handshake at once, so this measures the client) and polls the pane every 10 ms until the status bar
says "ready". Prints the median and all runs. Goal (issue 4): ≤ 1.0 s on this 2-core machine.
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


def one_run(client: str, timeout: float) -> float:
    agent = f"{shlex.quote(sys.executable)} {shlex.quote(str(BENCH / 'flood_agent.py'))}"
    with tempfile.TemporaryDirectory() as tmp:
        env = " ".join(
            f"{var}={shlex.quote(str(Path(tmp) / var))}"
            for var in ("ACP_TUI_DATA_DIR", "ACP_TUI_STATE_DIR", "ACP_TUI_CONFIG_DIR")
        )
        session = f"startup{time.monotonic_ns()}"
        start = time.monotonic()
        tmux("new-session", "-d", "-x", "160", "-y", "50", "-s", session, f"env {env} {client} {agent}")
        try:
            while time.monotonic() - start < timeout:
                screen = tmux("capture-pane", "-p", "-t", session)
                if "● ready" in screen:
                    return time.monotonic() - start
                time.sleep(0.01)
            raise TimeoutError("the client never became ready")
        finally:
            subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--client", default=f"{REPO / '.venv' / 'bin' / 'acp-tui'} --")
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()
    # a session that outlives the runs keeps the tmux server up (a server whose last session was just
    # killed is still shutting down when the next run asks it for a session, and refuses)
    tmux("new-session", "-d", "-s", "keeper", "sleep 3600")
    times = [one_run(args.client, args.timeout) for _ in range(args.repeat)]
    print(f"start-up to ready: median {statistics.median(times):.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)})")
    subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
