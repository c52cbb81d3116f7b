#!/usr/bin/env python3
"""In-process speed of the streamed message widget (headless Textual, no agent, no protocol).

Feeds `MarkdownStream` the realistic markdown answer (bench/flood_agent.py) in N chunks as fast as
possible, yielding to the event loop every few appends as a real app reading an agent would, and
reports the time until the last chunk is rendered and painted. Run by hand:

    .venv/bin/python bench/widget_speed.py --chunks 2000 8000 --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flood_agent import MARKER, realistic_markdown
from textual.app import App, ComposeResult
from textual.widgets import Markdown, Static

from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_stream import MarkdownStream


class BenchApp(App[None]):
    """A conversation holding one streamed message, as in the real chat screen."""

    def compose(self) -> ComposeResult:
        yield Conversation()


def _marker_on_screen(app: App[None]) -> bool:
    """Is the marker in the screen's composited lines (what the terminal would show)?"""
    lines = app.screen._compositor.render_strips()
    return any(MARKER in strip.text for strip in lines)


SHORT_MESSAGE = "Sure: `make test` runs **all** tests.\n\n- fast\n- offline\n\n```sh\nmake test\n```\n"


async def add_history(conversation: Conversation, entries: int) -> None:
    """Fill the conversation with earlier turns: a user line, a short answer, a tool-card line."""
    for index in range(entries // 3):
        await conversation.add_entry(Static(f"> question {index}", markup=False))
        await conversation.add_entry(MarkdownStream(SHORT_MESSAGE))
        await conversation.add_entry(Static(f"✓ Read file src/module_{index}.py", markup=False))


async def run_once(
    pieces: list[str], every: int, size: tuple[int, int], history: int = 0
) -> tuple[float, float, float]:
    """Seconds from the first append and from the last append until the marker is on screen,
    and the CPU seconds this process spent meanwhile (less sensitive to a busy machine)."""
    app = BenchApp()
    async with app.run_test(size=size) as pilot:
        conversation = app.query_one(Conversation)
        await add_history(conversation, history)
        widget = MarkdownStream()
        await conversation.add_entry(widget)
        await pilot.pause()
        start = time.perf_counter()
        cpu_start = time.process_time()
        for index, piece in enumerate(pieces):
            widget.append(piece)
            if index % every == 0:
                await asyncio.sleep(0)
        last = time.perf_counter()
        while not _marker_on_screen(app):
            await asyncio.sleep(0.005)
        done = time.perf_counter()
        cpu = time.process_time() - cpu_start
    return done - start, done - last, cpu


async def short_messages(kind: str, count: int, size: tuple[int, int]) -> float:
    """Seconds to mount `count` short finished messages with our widget or Textual's `Markdown`."""
    app = BenchApp()
    async with app.run_test(size=size) as pilot:
        conversation = app.query_one(Conversation)
        start = time.perf_counter()
        for index in range(count):
            text = SHORT_MESSAGE.replace("all", f"all {index}")
            widget = MarkdownStream(text) if kind == "stream" else Markdown(text)
            await conversation.add_entry(widget)
        marker = f"all {count - 1}"
        while not any(marker in strip.text for strip in app.screen._compositor.render_strips()):
            await pilot.pause(0.005)
        return time.perf_counter() - start


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--every", type=int, default=4, help="yield to the event loop every N appends")
    parser.add_argument("--width", type=int, default=160)
    parser.add_argument("--height", type=int, default=50)
    parser.add_argument("--history", type=int, default=0, help="earlier timeline entries before the stream")
    parser.add_argument("--short", type=int, default=0, help="also compare N short messages: ours vs Markdown")
    args = parser.parse_args()
    medians: dict[int, float] = {}
    for chunks in args.chunks:
        pieces = realistic_markdown(chunks)
        totals: list[float] = []
        tails: list[float] = []
        cpus: list[float] = []
        for _ in range(args.repeat):
            total, tail, cpu = await run_once(pieces, args.every, (args.width, args.height), args.history)
            totals.append(total)
            tails.append(tail)
            cpus.append(cpu)
        medians[chunks] = statistics.median(totals)
        print(
            f"{chunks:>6} chunks ({len(''.join(pieces)) / 1024:.0f} KB): "
            f"first append -> on screen median {statistics.median(totals):.3f}s "
            f"(runs {', '.join(f'{t:.3f}' for t in totals)}); "
            f"last append -> on screen median {statistics.median(tails):.3f}s; "
            f"CPU median {statistics.median(cpus):.3f}s"
        )
    if 2000 in medians and 8000 in medians:
        print(f"8000/2000 ratio: {medians[8000] / medians[2000]:.2f}")
    if args.short:
        size = (args.width, args.height)
        ours = statistics.median([await short_messages("stream", args.short, size) for _ in range(args.repeat)])
        stock = statistics.median([await short_messages("markdown", args.short, size) for _ in range(args.repeat)])
        print(f"{args.short} short messages mounted and on screen: MarkdownStream {ours:.3f}s, Markdown {stock:.3f}s")
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS of this process: {peak_kb / 1024:.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
