"""The plan shows once (issue 22: at 160×50 it showed twice, in the timeline and in the panel above the
prompt). While the panel shows the checklist, the timeline's plan is its header alone; when the panel is
only its line (a short screen) or gone (the turn ended), the timeline shows the checklist.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.plan_view import PlanView
from tests.support.app_run import plan_update, running_app, screen_text, v2_turn

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


def times_shown(run: object, text: str) -> int:
    return screen_text(run).count(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(("size", "panel_open"), [((160, 50), True), ((80, 24), False)])
async def test_the_plan_in_progress_shows_once(tmp_path: Path, size: tuple[int, int], panel_open: bool) -> None:
    gate = tmp_path / "gate"
    steps = [
        plan_update("p1", ("Read the code", "completed"), ("Fix the bug", "in_progress"), ("Run the tests", "pending")),
        {"op": "wait_for_file", "path": str(gate), "timeout": 30},
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}, size=size) as run:
        await run.send("plan")
        panel = run.chat.query_one(PlanPanel)
        await run.wait(lambda: panel.shown and bool(run.views(PlanView)), "the plan in progress")
        [view] = run.views(PlanView)
        await run.wait(lambda: view.has_class("-in-panel") == panel_open, "the timeline's view to follow the panel")
        await run.pilot.pause()
        assert panel.expanded == panel_open
        assert times_shown(run, "Run the tests") == 1, screen_text(run)
        if panel_open:
            assert "in progress, above the prompt" in view.header_text
            panel.focus()
            await run.pilot.press("enter")  # folded to its line: the checklist is back in the timeline
            await run.wait(lambda: not view.has_class("-in-panel"), "the checklist in the timeline")
            await run.pilot.pause()
            assert times_shown(run, "Run the tests") == 1, screen_text(run)
        gate.touch()
        await run.idle()
        await run.wait(lambda: not panel.shown and not view.has_class("-in-panel"), "the turn's end")
        await run.pilot.pause()
        assert times_shown(run, "Run the tests") == 1 and view.header_text == "Plan 1/3"
