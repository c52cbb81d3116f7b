#!/usr/bin/env python3
"""A v1 client terminal flooded with output: how soon the card shows the end, and what it costs.

In headless Textual, the terminal service (`acp_tui.services.terminals`) runs a command that prints
N lines at full speed, for a tool card that embeds the terminal, through the session model and the
timeline renderer exactly as in the app. Each run is a fresh process and reports:

- exit → model: from the process's exit to the last line in the session model;
- exit → card: from the process's exit to the last line painted in the card (the screen's strips);
- memory: peak RSS above the idle app (VmHWM, reset once the app is idle);
- loop lag: the worst delay of a 10 ms timer during the run (how late a key press would be answered).

Goals (issue 13): the card shows the last line ≤ 0.5 s after the exit, ≤ 30 MB above idle, keys within
100 ms throughout. Run by hand:

    .venv/bin/python bench/terminal_flood.py --lines 100000 --repeat 5
    .venv/bin/python bench/terminal_flood.py --bytes 100000000 --repeat 3    # the 100 MB flood
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgspec
from textual.app import App, ComposeResult

from acp_tui.protocol.jsonrpc import Request
from acp_tui.protocol.v2 import TerminalRef, ToolCallUpdate
from acp_tui.services.base import ServiceContext
from acp_tui.services.terminals import TerminalService
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import ModelInput, apply
from acp_tui.ui.timeline.renderer import TimelineRenderer
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.widgets.conversation import Conversation

SESSION = "bench-session"


def printer(lines: int, flood: int) -> tuple[list[str], str]:
    """argv of a command that prints `lines` numbered lines as fast as Python can (or `flood` bytes of
    `yes` and one more line), and the last line it prints."""
    if flood:
        return ["sh", "-c", f"yes 'flood line' | head -c {flood}; echo; echo the end"], "the end"
    code = (
        f"import sys\nsys.stdout.write(''.join(f'flood line {{i:7d}} ' + 'x' * 40 + '\\n' for i in range({lines})))\n"
    )
    return [sys.executable, "-c", code], f"flood line {lines - 1:7d} " + "x" * 40


def rss_mb(field: str = "VmRSS") -> float:
    match = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE)
    return int(match.group(1)) / 1024 if match else 0.0


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation()


def on_screen(app: App[None], needle: str) -> bool:
    return any(needle in strip.text for strip in app.screen._compositor.render_strips())


async def run_once(lines: int, flood: int) -> dict[str, float]:
    app = BenchApp()
    async with app.run_test(size=(160, 50)) as pilot:
        state = SessionState()
        renderer = TimelineRenderer(app.query_one(Conversation), state)

        def feed(item: ModelInput) -> None:
            for change in apply(state, item):
                renderer.apply(change)

        service = TerminalService()
        service.bind(
            ServiceContext(
                version=1, cwd=Path.cwd(), session_id=lambda: SESSION, apply=feed, report=lambda reason, raw: None
            )
        )
        await pilot.pause()
        idle = rss_mb()
        Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS from here on

        lag = 0.0
        ticking = True

        async def ticker() -> None:
            nonlocal lag
            while ticking:
                before = time.perf_counter()
                await asyncio.sleep(0.01)
                lag = max(lag, time.perf_counter() - before - 0.01)

        tick = asyncio.ensure_future(ticker())
        argv, wanted = printer(lines, flood)
        params = {"sessionId": SESSION, "command": argv[0], "args": argv[1:]}
        result = await service.methods()["terminal/create"](
            Request(1, "terminal/create", msgspec.Raw(msgspec.json.encode(params)))
        )
        terminal_id = result.terminal_id
        feed(
            ToolCallUpdate(
                tool_call_id="call-1",
                title="flood",
                kind="execute",
                status="in_progress",
                content=[TerminalRef(terminal_id=terminal_id)],
            )
        )
        wanted_bytes = (wanted + "\n").encode()
        term = state.terminal(terminal_id)
        assert term is not None
        in_model = in_card = None
        deadline = time.perf_counter() + 60
        while in_card is None and time.perf_counter() < deadline:
            await asyncio.sleep(0.002)
            now = time.perf_counter()
            if in_model is None and bytes(term.output[-len(wanted_bytes) :]) == wanted_bytes:
                in_model = now
            if in_model is not None:
                views = list(app.query(TerminalView))
                view = views[0].output if views else None
                if view is not None and view.line_count and view.lines()[-1].plain == wanted:
                    await pilot.pause()  # one refresh: then it is painted
                    if on_screen(app, wanted):
                        in_card = time.perf_counter()
        ticking = False
        await tick
        assert term.ended_at is not None and in_model is not None and in_card is not None, "the flood never ended"
        # the exit time is monotonic seconds; perf_counter shares its clock on Linux
        exit_at = term.ended_at - time.monotonic() + time.perf_counter()
        peak = rss_mb("VmHWM")
        await service.close()
    return {
        "exit_to_model": in_model - exit_at,
        "exit_to_card": in_card - exit_at,
        "peak_above_idle_mb": peak - idle,
        "max_loop_lag": lag,
        "idle_mb": idle,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--bytes", type=int, default=0, help="print this many bytes of `yes` instead")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # one run, JSON out
    args = parser.parse_args()
    if args.once:
        print(json.dumps(asyncio.run(run_once(args.lines, args.bytes))))
        return
    runs: list[dict[str, Any]] = []
    for _ in range(args.repeat):
        done = subprocess.run(
            [sys.executable, __file__, "--once", "--lines", str(args.lines), "--bytes", str(args.bytes)],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        run = runs[-1]
        print(
            f"exit→model {run['exit_to_model'] * 1000:6.1f} ms   exit→card {run['exit_to_card'] * 1000:6.1f} ms   "
            f"peak +{run['peak_above_idle_mb']:5.1f} MB   loop lag max {run['max_loop_lag'] * 1000:5.1f} ms"
        )
    what = f"{args.bytes / 1e6:g} MB of `yes`" if args.bytes else f"{args.lines} lines"
    print(f"\n{what}, median of {len(runs)} runs:")
    for key, unit, scale in (
        ("exit_to_model", "ms", 1000),
        ("exit_to_card", "ms", 1000),
        ("peak_above_idle_mb", "MB", 1),
        ("max_loop_lag", "ms", 1000),
    ):
        print(f"  {key:20s} {statistics.median(r[key] for r in runs) * scale:8.1f} {unit}")


if __name__ == "__main__":
    main()
