"""Decode speed of realistic mixed `session/update` params (run by hand: python bench/bench_codec.py).

Mix: mostly agent message chunks, plus tool call updates, plan updates and usage updates.
Prints updates/second, the median of 5 runs.
"""

from __future__ import annotations

import statistics
import sys
import time

import msgspec

from acp_tui.protocol import codec


def _params(update: dict[str, object]) -> bytes:
    return msgspec.json.encode({"sessionId": "0fc11f28-7c41-4bc9-b9e1-906896eaa52e", "update": update})


def make_workload(n: int) -> list[bytes]:
    """N params: 85% text chunks, 8% tool call updates, 4% plans, 3% usage."""
    out: list[bytes] = []
    for i in range(n):
        slot = i % 100
        if slot < 85:
            update: dict[str, object] = {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "msg_01",
                "content": {"type": "text", "text": f"chunk {i} with `code` and **bold** text "},
            }
        elif slot < 93:
            update = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": f"toolu_{i}",
                "title": "Read src/app.py",
                "kind": "read",
                "status": "in_progress",
                "locations": [{"path": "/home/user/project/src/app.py", "line": 12}],
                "content": [{"type": "content", "content": {"type": "text", "text": "def main():\n    pass\n"}}],
                "rawInput": {"file_path": "/home/user/project/src/app.py"},
            }
        elif slot < 97:
            update = {
                "sessionUpdate": "plan_update",
                "plan": {
                    "type": "items",
                    "planId": "plan-1",
                    "entries": [
                        {"content": "Read the code", "priority": "high", "status": "completed"},
                        {"content": "Write the fix", "priority": "medium", "status": "in_progress"},
                        {"content": "Run the tests", "priority": "low", "status": "pending"},
                    ],
                },
            }
        else:
            update = {
                "sessionUpdate": "usage_update",
                "used": 1200 + i,
                "size": 200000,
                "cost": {"amount": 0.01, "currency": "USD"},
            }
        out.append(_params(update))
    return out


def main(n: int = 100_000) -> None:
    workload = make_workload(n)
    rates = []
    for _ in range(5):
        start = time.perf_counter()
        for params in workload:
            codec.decode_update(params, 2)
        rates.append(n / (time.perf_counter() - start))
    print(f"{statistics.median(rates):,.0f} updates/s (median of 5 runs, {n:,} mixed session/update params)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
