"""Reducer throughput, run by hand: `.venv/bin/python bench/bench_reducer.py`.

Workloads: N text chunks applied to one agent message (then its text read once), and M tool calls with
5 patches each. Prints the median of several runs and updates per second; the 100k and 200k chunk
runs show whether the cost per chunk stays flat (linear total time). Goal: >= 500,000 chunks/s.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp_tui.protocol.v2 import AgentMessageChunk, TextContent, ToolCallUpdate
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import ModelInput, apply

RUNS = 5


def chunks(n: int) -> list[AgentMessageChunk]:
    return [AgentMessageChunk(message_id="m", content=TextContent(text=f"word{i % 97} ")) for i in range(n)]


def tool_updates(m: int) -> list[ToolCallUpdate]:
    updates: list[ToolCallUpdate] = []
    for i in range(m):
        tid = f"call_{i}"
        updates.append(ToolCallUpdate(tool_call_id=tid, title=f"Read file {i}", kind="read", status="pending"))
        updates.append(ToolCallUpdate(tool_call_id=tid, status="in_progress"))
        updates.append(ToolCallUpdate(tool_call_id=tid, title=f"Read a{i}.py", raw_input={"path": f"a{i}.py"}))
        updates.append(ToolCallUpdate(tool_call_id=tid, locations=None))
        updates.append(ToolCallUpdate(tool_call_id=tid, raw_output="ok"))
        updates.append(ToolCallUpdate(tool_call_id=tid, status="completed"))
    return updates


def timed(updates: Sequence[ModelInput], read_text: bool) -> float:
    state = SessionState()
    start = time.perf_counter()
    for update in updates:
        apply(state, update)
    if read_text:
        text = state.message("agent_message", "m").text  # type: ignore[union-attr]
        assert text
    return time.perf_counter() - start


def report(label: str, updates: Sequence[ModelInput], read_text: bool = False) -> None:
    times = [timed(updates, read_text) for _ in range(RUNS)]
    median = statistics.median(times)
    per_us = median / len(updates) * 1e6
    print(
        f"{label:<40} median {median * 1000:8.1f} ms  {len(updates) / median:>12,.0f} updates/s  {per_us:.2f} us/update"
    )


def main() -> None:
    print(f"Python {sys.version.split()[0]}, median of {RUNS} runs")
    report("100,000 chunks -> one message", chunks(100_000), read_text=True)
    report("200,000 chunks -> one message", chunks(200_000), read_text=True)
    report("10,000 tool calls x (create + 5 patches)", tool_updates(10_000))
    report("20,000 tool calls x (create + 5 patches)", tool_updates(20_000))


if __name__ == "__main__":
    main()
