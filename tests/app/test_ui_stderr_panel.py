"""The stderr panel (F2): an empty one says "no stderr yet" instead of opening blank; real lines replace it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from acp_tui.ui.widgets.stderr_panel import StderrPanel
from tests.support.app_run import running_app, screen_text, v2_turn

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

EMPTY = "no stderr yet"


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StderrPanel()


def panel_text(app: App[None]) -> list[str]:
    return [line.rstrip() for line in screen_text_of(app)]


def screen_text_of(app: App[None]) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_an_empty_panel_says_no_stderr_yet_until_a_line_arrives() -> None:
    app = PanelApp()
    async with app.run_test(size=(60, 16)) as pilot:
        panel = app.query_one(StderrPanel)
        panel.toggle()
        await pilot.pause()
        assert any(line.strip() == EMPTY for line in panel_text(app))
        assert panel.lines == []  # the placeholder is drawn, not logged
        panel.add_lines(["warming up"])
        await pilot.pause()
        shown = panel_text(app)
        assert any(line.strip() == "warming up" for line in shown)
        assert not any(EMPTY in line for line in shown)


async def test_f2_on_a_quiet_agent_shows_no_stderr_yet(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn()]}) as run:
        await run.pilot.press("f2")
        panel = run.chat.query_one(StderrPanel)
        await run.wait(lambda: panel.display, "the panel")
        await run.pilot.pause()
        assert EMPTY in screen_text(run)


async def test_an_empty_panel_is_one_line_and_escape_closes_it_back_to_the_prompt(tmp_path: Path) -> None:
    """F2 on a quiet agent opened twelve blank rows (half an 80x24 screen) that Escape did not close."""
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn()]}) as run:
        prompt = run.chat.prompt_input
        panel = run.chat.query_one(StderrPanel)
        await run.pilot.press("f2")
        await run.wait(lambda: panel.display and panel.outer_size.height > 0, "the panel")
        assert panel.outer_size.height == 2  # its border and "no stderr yet"
        assert run.app.focused is panel  # its keys scroll it
        await run.pilot.press("escape")
        await run.wait(lambda: not panel.is_open and run.app.focused is prompt, "the panel closed, the prompt focused")
        panel.add_lines([f"line {n}" for n in range(30)])
        await run.pilot.press("f2")
        await run.wait(lambda: panel.display and panel.outer_size.height > 2, "the panel with lines")
        assert panel.outer_size.height == 12
        await run.pilot.press("f2")  # F2 closes it too, and the prompt has the focus again
        await run.wait(lambda: not panel.is_open and run.app.focused is prompt, "closed by F2")
