#!/usr/bin/env python3
"""The parse-only floor: a client that reads and decodes the flood agent's lines and renders nothing.

It starts bench/flood_agent.py, does the v2 handshake, sends one prompt and reads the agent's
stdout in large chunks, splitting lines and decoding each as JSON, until the turn ends. It prints
the whole turn (prompt sent -> last line decoded) and when the agent wrote its last chunk (from the
agent's stamp file), both from the moment the prompt was sent. Every client figure in
bench/stream_speed.py is printed beside this one. Run by hand:

    .venv/bin/python bench/floor_reader.py --mode mixed --chunks 300 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
MARKER = "ZZMARKERZZ"


@dataclass
class Floor:
    turn: float
    """Prompt sent -> last line read and decoded."""
    agent_last_line: float
    """Prompt sent -> the agent wrote its last chunk."""
    lines: int
    megabytes: float


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _read_until(fd: int, buffer: bytearray, done: object) -> tuple[int, int]:
    """Read, split and decode lines until `done(message)`; returns lines and bytes seen."""
    lines = 0
    size = 0
    while True:
        newline = buffer.find(b"\n")
        while newline >= 0:
            line = bytes(buffer[:newline])
            del buffer[: newline + 1]
            lines += 1
            size += len(line) + 1
            message = json.loads(line)
            if done(message):  # type: ignore[operator]
                return lines, size
            newline = buffer.find(b"\n")
        data = os.read(fd, 1 << 18)
        if not data:
            raise EOFError("the agent closed its stdout")
        buffer += data


def run_once(chunks: int, mode: str) -> Floor:
    with tempfile.TemporaryDirectory() as scratch:
        stamp = Path(scratch) / "last-chunk"
        agent = [sys.executable, str(BENCH / "flood_agent.py"), "--chunks", str(chunks), "--mode", mode]
        proc = subprocess.Popen([*agent, "--stamp", str(stamp)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        buffer = bytearray()
        try:
            _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 2}})
            _read_until(fd, buffer, lambda m: m.get("id") == 1)
            _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": scratch}})
            _read_until(fd, buffer, lambda m: m.get("id") == 2)
            prompt = [{"type": "text", "text": "Please write the long answer"}]
            start = time.time()
            _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"prompt": prompt}})
            lines, size = _read_until(
                fd, buffer, lambda m: m.get("params", {}).get("update", {}).get("state") == "idle"
            )
            end = time.time()
            last = float(stamp.read_text())
        finally:
            proc.kill()
            proc.wait()
    return Floor(end - start, last - start, lines, size / 1e6)


def median_floor(chunks: int, mode: str, repeat: int) -> Floor:
    runs = [run_once(chunks, mode) for _ in range(repeat)]
    return Floor(
        statistics.median(r.turn for r in runs),
        statistics.median(r.agent_last_line for r in runs),
        runs[0].lines,
        runs[0].megabytes,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[300])
    parser.add_argument("--mode", choices=("message", "thought", "tools", "mixed"), default="mixed")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for chunks in args.chunks:
        floor = median_floor(chunks, args.mode, args.repeat)
        print(
            f"floor {args.mode} {chunks}: {floor.lines} lines, {floor.megabytes:.2f} MB; whole turn median "
            f"{floor.turn:.3f}s; agent's last line at {floor.agent_last_line:.3f}s"
        )


if __name__ == "__main__":
    main()
