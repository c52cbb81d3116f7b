"""The command line run in-process: its exit status and the launches it would have started."""

from __future__ import annotations

from acp_tui.cli import main
from acp_tui.launch import Launch


def run(argv: list[str]) -> tuple[int, list[Launch]]:
    launches: list[Launch] = []

    def runner(launch: Launch) -> int:
        launches.append(launch)
        return 7

    return main(argv, runner=runner), launches
