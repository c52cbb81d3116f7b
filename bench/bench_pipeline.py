"""The whole inbound hot path, without a UI: bytes → framing → JSON-RPC envelope → typed update →
reducer (run by hand: python bench/bench_pipeline.py [N]).

The stream is N `session/update` notification lines of the realistic mix in `bench_codec.py`,
fed in 64 KiB reads as they would come off the pipe. Prints updates/second, median of 5 runs.
Goal (issue 2): at least 200,000 updates/second on one core.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_codec import make_workload

from acp_tui.protocol import codec, jsonrpc
from acp_tui.protocol.framing import LineFramer
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply

READ = 64 * 1024


def make_stream(n: int) -> bytes:
    lines = [b'{"jsonrpc":"2.0","method":"session/update","params":' + params + b"}\n" for params in make_workload(n)]
    return b"".join(lines)


def run_once(stream: bytes) -> float:
    framer = LineFramer()
    state = SessionState()
    start = time.perf_counter()
    for offset in range(0, len(stream), READ):
        for line in framer.feed(stream[offset : offset + READ]):
            message = jsonrpc.decode_frame(line)
            params: bytes = bytes(message.params)  # type: ignore[union-attr]
            _session, update = codec.decode_update(params, 2)
            apply(state, update)
    return time.perf_counter() - start


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    stream = make_stream(n)
    times = [run_once(stream) for _ in range(5)]
    median = statistics.median(times)
    print(
        f"{n} updates, {len(stream) / 1e6:.1f} MB: median {median * 1000:.0f} ms, "
        f"{n / median:,.0f} updates/s (runs: {', '.join(f'{t * 1000:.0f}' for t in times)} ms)"
    )


if __name__ == "__main__":
    main()
