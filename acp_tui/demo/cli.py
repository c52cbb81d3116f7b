"""The demo agent's command line: `python -m acp_tui.demo [--speed X]`."""

from __future__ import annotations

import argparse
import asyncio

from acp_tui.demo.turn import SPEED_ENV, Pace


def main(argv: list[str] | None = None) -> int:
    """Run the demo agent; 0 when the client closes stdin."""
    parser = argparse.ArgumentParser(
        prog="python -m acp_tui.demo",
        description="The acp-tui demo agent: a scripted ACP (v1/v2) agent on stdin/stdout.",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=None,
        help=f"delay multiplier (1 = human pace, 0 = no delay); default from ${SPEED_ENV} or 1",
    )
    args = parser.parse_args(argv)
    pace = Pace(args.speed) if args.speed is not None else Pace.from_env()
    from acp_tui.demo.server import run_stdio

    try:
        asyncio.run(run_stdio(pace))
    except KeyboardInterrupt:
        return 130
    return 0
