"""Ctrl+W on a working tab asks once (acp_tui/ui/dialogs/close_tab.py), however often it is pressed.

Ctrl+W is a priority binding (it works over a tab's dialogs), so without care each press stacked one more
"Close tab" question over the last: three presses, three questions to refuse one by one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.dialogs.close_tab import CloseTabScreen
from tests.support.demo_app import DemoRun
from tests.support.tabs import tabs_app
from tests.support.wait import armed

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


def questions(run: DemoRun) -> list[CloseTabScreen]:
    return [screen for screen in run.app.screen_stack if isinstance(screen, CloseTabScreen)]


@pytest.mark.asyncio
async def test_ctrl_w_pressed_again_over_the_close_question_asks_no_second_time(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.2") as run:
        app, pilot = run.app, run.pilot
        await pilot.press("ctrl+t")
        await run.wait(lambda: len(app.tabs.tabs) == 2, "a second tab")
        await run.ready()
        await run.send("slow")
        await run.wait(lambda: run.chat.controller.busy, "tab 2 working")
        await pilot.press("ctrl+w")
        question = await armed(pilot, CloseTabScreen, what="the close question")
        await pilot.press("ctrl+w", "ctrl+w")
        await pilot.pause()
        assert questions(run) == [question]
        await pilot.press("n")
        await run.wait(lambda: not questions(run), "the question answered")
        assert len(app.tabs.tabs) == 2 and run.chat.controller.busy, "kept, still working"
        assert run.chat.prompt_input.has_focus
