"""The real app with tabs against the demo agent (`tabs_app`), and the tab helpers the tab tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from acp_tui.cli import tab_launch  # the product's launcher: installed registry agents by id too
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.tabs.host import Tab
from tests.support.demo_app import DemoRun, demo_launch


@asynccontextmanager
async def tabs_app(
    tmp_path: Path,
    *,
    speed: str = "0",
    launcher: bool = False,
    size: tuple[int, int] = (120, 40),
    log_path: Path | None = None,
) -> AsyncIterator[DemoRun]:
    """acp-tui with the demo (v2) in `tmp_path/project`, its first tab ready; `launcher`: *New tab with
    agent…* resolves agents as the command line does."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    launch = replace(demo_launch(project, 2, speed), log_path=log_path)
    app = AcpApp(launch, arm_delay=0.1, launcher=tab_launch if launcher else None)
    async with app.run_test(size=size) as pilot:
        run = DemoRun(app, pilot)
        await run.ready()
        yield run


def tab(run: DemoRun, number: int) -> Tab:
    return run.app.tabs.tabs[number - 1]


def chat(run: DemoRun, number: int) -> ChatScreen:
    return tab(run, number).screen


async def second_tab(run: DemoRun) -> None:
    """Ctrl+T, and wait until the new tab's session is ready."""
    count = len(run.app.tabs.tabs)
    await run.pilot.press("ctrl+t")
    await run.wait(lambda: len(run.app.tabs.tabs) == count + 1, "a new tab")
    await run.ready()
