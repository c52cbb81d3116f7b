"""The question dialogs look like the permission dialog (issue 18, "The look"): the same calm frame, and
their choices are quiet rows whose words are coloured by what they do, never saturated buttons.

The outside-the-folder write dialog keeps the path prominent (its own tinted row, shown once: the diff
starts with its lines) and says that the file is outside the folder with one warning-coloured word.
The light theme's snapshots of it live here (acp-dark's are in tests/app/test_ui_outside_write.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.color import Color
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Static

from acp_tui.services.files import OutsideRead
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen
from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlScreen
from acp_tui.ui.dialogs.login import TerminalLoginScreen
from acp_tui.ui.dialogs.outside_read import OutsideReadScreen
from acp_tui.ui.dialogs.outside_write import OutsideWriteScreen
from acp_tui.ui.dialogs.permission import PermissionScreen
from tests.support.elicitation_ui import Host, form_question, open_dialog, url_question
from tests.support.login import terminal_command
from tests.support.outside_write import PROJECT, outside_write
from tests.support.permission import v2
from tests.support.widgets import screen_text

ARM = 0.05
THEMES = ["acp-dark", "acp-light"]


def _frame(screen: Screen[Any]) -> tuple[str, Color]:
    edge, colour = screen.query_one("#dialog").styles.border_top
    return edge, colour


async def _frame_of(theme: str, dialog: Screen[Any]) -> tuple[tuple[str, Color], list[Button]]:
    app = Host(theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot, dialog)
        await pilot.pause()
        return _frame(dialog), list(dialog.query(Button))


def _dialogs() -> list[Screen[Any]]:
    return [
        OutsideWriteScreen(outside_write(), arm_delay=ARM),
        TerminalLoginScreen(terminal_command(), arm_delay=ARM),
        ElicitationUrlScreen(url_question("https://example.com/login"), arm_delay=ARM),
        ElicitationFormScreen(form_question({"name": {"type": "string"}}), arm_delay=ARM),
        OutsideReadScreen(OutsideRead(path=PROJECT.parent / "secret", cwd=PROJECT, requested="/x"), arm_delay=ARM),
    ]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("index", range(5), ids=["outside_write", "terminal_login", "url", "form", "outside_read"])
async def test_question_dialogs_wear_the_permission_frame_and_quiet_rows(theme: str, index: int) -> None:
    permission_frame, _ = await _frame_of(theme, PermissionScreen(v2(), arm_delay=ARM))
    dialog = _dialogs()[index]
    frame, buttons = await _frame_of(theme, dialog)
    assert frame == permission_frame  # the same edge in the same colour: nothing alarm-red
    assert buttons
    for button in buttons:  # no saturated block: the row is the dialog's own surface
        assert button.styles.background.a == 0, button
        assert button.styles.min_width is None or button.styles.min_width.value == 0, button


def _colour(widget: Widget) -> Color:
    style = widget.rich_style
    assert style.color is not None and style.color.triplet is not None
    return Color.from_rich_color(style.color)


@pytest.mark.parametrize("theme", THEMES)
async def test_outside_is_one_warning_word_and_the_path_shows_once(theme: str) -> None:
    app = Host(theme)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = OutsideWriteScreen(outside_write(), arm_delay=ARM)
        await open_dialog(app, pilot, dialog)
        await pilot.pause()
        text = screen_text(app)
        assert "⚠ outside the session folder /work/project" in text
        assert text.count("/etc/hosts") == 1  # named on its row; the diff starts with its lines
        assert "+ 10.0.0.5 build-box" in text
        marker = dialog.query_one("#marker", Static)
        warning = Color.parse(app.theme_variables["text-warning"])
        assert _colour(marker) == warning and marker.rich_style.bold
        for other in ("#title", "#path", "#why", "#hint"):  # nothing else says it in warning colour
            assert _colour(dialog.query_one(other)) != warning, other
        path = dialog.query_one("#path", Static)
        assert path.rich_style.bold and path.styles.background.a > 0  # the path stands out
        assert _colour(dialog.query_one("#allow")) == Color.parse(app.theme_variables["text-success"])
        assert _colour(dialog.query_one("#refuse")) == Color.parse(app.theme_variables["text-error"])


async def test_an_unoffered_write_says_so_with_the_same_one_word() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        write = outside_write(path=PROJECT / "src" / "a.txt", reason="not_offered")
        dialog = OutsideWriteScreen(write, arm_delay=ARM)
        await open_dialog(app, pilot, dialog)
        text = screen_text(app)
        assert "⚠ unoffered acp-tui did not offer this agent file access" in text
        assert "src/a.txt" in text


async def test_the_typing_guard_is_unchanged() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = OutsideWriteScreen(outside_write(), arm_delay=60)  # never arms during the test
        await open_dialog(app, pilot, dialog, arm=False)
        await pilot.press("y", "enter", "right", "enter")
        await pilot.pause()
        assert app.results == [] and not dialog.armed and dialog.focused is None
        assert all(button.disabled for button in dialog.query(Button))
        dialog.close_because("withdrawn")
        await pilot.pause()
        assert app.results == [False]


# -- snapshots ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_snapshot_outside_write_light(snap_compare: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, Host)
        await open_dialog(app, pilot, OutsideWriteScreen(outside_write(), arm_delay=ARM))

    assert snap_compare(Host("acp-light"), terminal_size=size, run_before=run_before)
