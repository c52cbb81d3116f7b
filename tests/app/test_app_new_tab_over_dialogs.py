"""Ctrl+T opens a tab over a tab's own question too (the dialog stays with its tab), except on the session list,
where Ctrl+T is its own "all folders" key (acp_tui/ui/app.py, acp_tui/ui/browsers/sessions.py).

Without a priority binding the dialog, a modal screen, cut the app's Ctrl+T off: with a permission waiting,
Ctrl+T did nothing at all, while Alt+N and Ctrl+PageUp/Down (priority bindings) worked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.browsers.sessions import SessionBrowser
from acp_tui.ui.dialogs.permission import PermissionScreen
from tests.support.tabs import tabs_app

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


@pytest.mark.asyncio
async def test_ctrl_t_over_a_question_opens_a_tab_and_the_question_waits_on_its_own(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        app, pilot = run.app, run.pilot
        first = run.chat
        await run.send("edit")
        dialog = await run.armed_dialog()
        await pilot.press("ctrl+t")
        await run.wait(lambda: len(app.tabs.tabs) == 2, "a second tab over the question")
        await run.ready()
        assert app.screen is app.tabs.tabs[1].screen
        assert not any(isinstance(s, PermissionScreen) for s in app.screen_stack)
        await pilot.press("alt+1")
        assert app.screen_stack[-1] is dialog and app.screen_stack[-2] is first


@pytest.mark.asyncio
async def test_ctrl_t_on_the_session_list_still_shows_every_folder(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        app, pilot = run.app, run.pilot
        await pilot.press("ctrl+o")
        await run.wait(lambda: isinstance(app.screen, SessionBrowser), "the session list")
        browser = app.screen
        assert isinstance(browser, SessionBrowser) and not browser.all_dirs
        await pilot.press("ctrl+t")
        await run.wait(lambda: browser.all_dirs, "every folder's sessions")
        assert len(app.tabs.tabs) == 1 and app.screen is browser
