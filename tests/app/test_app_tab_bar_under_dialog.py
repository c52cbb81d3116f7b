"""The tab bar stays true while a dialog is open over its tab (acp_tui/ui/widgets/tab_bar.py).

A dialog is a modal screen; the chat screen under it (the tab bar's) is drawn but not laid out again, so a
bar that had to appear (the tab was alone when its question opened, a second tab came while it waited) stayed
missing, and one whose tabs changed kept their old glyphs — the very marks that say another tab needs you.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.demo_app import DemoRun
from tests.support.tabs import tabs_app

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


def top_line(run: DemoRun) -> str:
    return run.screen_text().splitlines()[0]


@pytest.mark.asyncio
async def test_the_bar_appears_over_a_question_left_open_when_a_second_tab_came(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, size=(100, 30)) as run:
        app, pilot = run.app, run.pilot
        await run.send("edit")  # one tab: no bar; its question opens
        dialog = await run.armed_dialog()
        assert not top_line(run).startswith(" 1 ")
        await pilot.press("ctrl+t")
        await run.wait(lambda: len(app.tabs.tabs) == 2, "a second tab")
        await run.ready()
        await pilot.press("alt+1")
        assert app.screen is dialog
        await run.wait(lambda: top_line(run).startswith(" 1 ⚠ "), "the bar over tab 1, under its question")
        assert " 2 ● " in top_line(run)


@pytest.mark.asyncio
async def test_the_bar_under_a_question_follows_the_other_tabs(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.2", size=(100, 30)) as run:
        app, pilot = run.app, run.pilot
        await pilot.press("ctrl+t")
        await run.wait(lambda: len(app.tabs.tabs) == 2, "a second tab")
        await run.ready()
        second = run.chat
        await pilot.press("alt+1")
        await run.wait(lambda: top_line(run).startswith(" 1 ● ") and " 2 ● " in top_line(run), "both idle")
        await run.send("edit")
        await run.armed_dialog()
        second.controller.submit("slow")  # tab 2 works, hidden, while tab 1's question is open
        await run.wait(lambda: " 2 ◐ " in top_line(run), "tab 2 working, in the bar under the question")
        await run.wait(lambda: "•" in top_line(run), "tab 2's unseen output marked")
        assert second.controller.cancel()
        await run.wait(lambda: " 2 ● " in top_line(run), "tab 2 idle again")
