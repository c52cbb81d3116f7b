#!/usr/bin/env python3
"""Why client terminals use pipes, not a PTY (acp_tui/services/terminals.py, docs/protocol.md §10.2).

Runs a few typical agent commands both ways, the way the terminal service would (own session, stdout
and stderr merged, stdin on /dev/null for pipes; the PTY as stdin, stdout and stderr otherwise), and
reports for each: time to the first output byte, total time, bytes read, how it ended (a command that
waits for input is killed after 3 s) and the start of its output. Run by hand:

    .venv/bin/python bench/terminal_pty_vs_pipe.py

PYTHONUNBUFFERED is removed from the children's environment, so the buffering a program does when its
output is not a terminal shows.
"""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
import sys
import time
from dataclasses import dataclass

TIMEOUT = 3.0
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}


@dataclass
class Result:
    first: float | None
    total: float
    size: int
    ended: str
    head: bytes

    def line(self, how: str) -> str:
        first = f"{self.first * 1000:7.1f} ms" if self.first is not None else "      none"
        return (
            f"  {how:5s} first byte {first}  total {self.total:6.3f} s  {self.size:>10,d} B  "
            f"{self.ended:24s} {self.head[:56]!r}"
        )


async def with_pipes(argv: list[str]) -> Result:
    start = time.perf_counter()
    first: float | None = None
    size = 0
    head = bytearray()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=ENV,
        limit=1 << 18,
    )
    assert proc.stdout is not None
    stdout = proc.stdout

    async def read() -> None:
        nonlocal first, size
        while data := await stdout.read(1 << 18):
            first = first if first is not None else time.perf_counter() - start
            size += len(data)
            head.extend(data[: max(0, 200 - len(head))])

    try:
        await asyncio.wait_for(asyncio.gather(read(), proc.wait()), TIMEOUT)
        ended = f"exit {proc.returncode}"
    except TimeoutError:
        os.killpg(proc.pid, 9)
        await proc.wait()
        ended = f"HUNG (killed after {TIMEOUT:g} s)"
    return Result(first, time.perf_counter() - start, size, ended, bytes(head))


async def with_pty(argv: list[str]) -> Result:
    start = time.perf_counter()
    first: float | None = None
    size = 0
    head = bytearray()
    master, slave = pty.openpty()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        env=ENV,
    )
    os.close(slave)
    loop = asyncio.get_running_loop()
    done = asyncio.Event()

    def readable() -> None:
        nonlocal first, size
        try:
            data = os.read(master, 1 << 18)
        except OSError:  # EIO once the last writer closed the PTY
            data = b""
        if not data:
            loop.remove_reader(master)
            done.set()
            return
        first = first if first is not None else time.perf_counter() - start
        size += len(data)
        head.extend(data[: max(0, 200 - len(head))])

    loop.add_reader(master, readable)
    try:
        await asyncio.wait_for(asyncio.gather(done.wait(), proc.wait()), TIMEOUT)
        ended = f"exit {proc.returncode}"
    except TimeoutError:
        os.killpg(proc.pid, 9)
        await proc.wait()
        ended = f"HUNG (killed after {TIMEOUT:g} s)"
    loop.remove_reader(master)
    os.close(master)
    return Result(first, time.perf_counter() - start, size, ended, bytes(head))


CASES: list[tuple[str, list[str]]] = [
    (
        "python printing 3 lines 0.3 s apart",
        [sys.executable, "-c", "import time\nfor i in range(3):\n    print(i)\n    time.sleep(0.3)"],
    ),
    ("ls --color=auto /", ["ls", "--color=auto", "/"]),
    ("git log -3 --oneline", ["git", "log", "-3", "--oneline"]),
    ("cat (reads its input)", ["cat"]),
    ("100 MB from yes", ["sh", "-c", "yes | head -c 100000000"]),
]


async def main() -> None:
    for name, argv in CASES:
        print(name)
        print((await with_pipes(argv)).line("pipes"))
        print((await with_pty(argv)).line("pty"))


if __name__ == "__main__":
    asyncio.run(main())
