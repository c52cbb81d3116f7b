"""The protocol inspector of tab N names tab N's log file (`--log FILE`: tab 2 writes `FILE.tab2`), where the
frames it no longer holds in memory are (acp_tui/ui/browsers/inspector.py, acp_tui/ui/tabs/host.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.browsers.inspector import InspectorScreen
from tests.support.tabs import tabs_app

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


@pytest.mark.asyncio
async def test_each_tabs_inspector_names_its_own_log_file(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    async with tabs_app(tmp_path, log_path=log) as run:
        app, pilot = run.app, run.pilot
        await pilot.press("ctrl+t")
        await run.wait(lambda: len(app.tabs.tabs) == 2, "a second tab")
        await run.ready()
        second_log = tmp_path / "acp.tab2.jsonl"
        await run.wait(second_log.exists, "tab 2's log file")
        app.action_show_inspector()
        await run.wait(lambda: isinstance(app.screen, InspectorScreen), "tab 2's inspector")
        assert isinstance(app.screen, InspectorScreen)
        assert str(second_log) in app.screen.log_hint, app.screen.log_hint
        await pilot.press("escape")
        await run.wait(lambda: not isinstance(app.screen, InspectorScreen), "the inspector closed")
        await pilot.press("alt+1")
        app.action_show_inspector()
        await run.wait(lambda: isinstance(app.screen, InspectorScreen), "tab 1's inspector")
        assert isinstance(app.screen, InspectorScreen)
        assert app.screen.log_hint == f" ({log})"
