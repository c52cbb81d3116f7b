"""A burst into a dialog of several fields (typed fast, or pasted): what comes after a Tab lands in the next field.

Textual's own Tab is only seen when the focused field takes its turn, after the burst's later keys were already
given to that field, so "claude<Tab>~/src" filled the first field with "claude~/src". The dialogs bind Tab and
Shift+Tab as priority keys (`guarded.FIELD_FOCUS_KEYS`): the app moves the focus as it reads the key. The keys are
posted to the app in one go, as the terminal's reader does with one read, not pressed one at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.screen import Screen
from textual.widgets import Input

from acp_tui.launch import Launch
from acp_tui.services.auth import SecretRequest
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen
from acp_tui.ui.dialogs.login import SecretScreen
from acp_tui.ui.dialogs.new_tab import NewTabScreen
from tests.support.elicitation_ui import Host, form_question, open_dialog

ARM = 0.05


def burst(app: App[Any], *keys: str) -> None:
    """`keys` as one read of the terminal: all queued before the app handles the first."""
    for key in keys:
        if key == "tab":
            app.post_message(events.Key("tab", "\t"))
        elif key == "shift+tab":
            app.post_message(events.Key("shift+tab", None))
        else:
            for char in key:
                app.post_message(events.Key(char, char))


def values(screen: Any) -> list[str]:
    return [field.value for field in screen.query(Input).results(Input)]


async def test_the_new_tab_dialog_takes_agent_tab_folder_typed_in_one_burst() -> None:
    built: list[tuple[str, str]] = []

    def build(agent: str, folder: str) -> Launch:
        built.append((agent, folder))
        raise AssertionError("not submitted in this test")

    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = NewTabScreen(agent="demo", folder="", choices=(), build=build)
        await open_dialog(app, pilot, screen, arm=False)
        burst(app, "claude", "tab", "~/src/app")
        await pilot.pause()
        await pilot.pause()
        assert values(screen) == ["claude", "~/src/app"]
        burst(app, "shift+tab")  # and back
        await pilot.pause()
        assert screen.focused is screen.query_one("#agent", Input)
        assert not built


def _form() -> ElicitationFormScreen:
    return ElicitationFormScreen(form_question({"name": {"type": "string"}, "team": {"type": "string"}}), arm_delay=ARM)


def _key_entry() -> SecretScreen:
    return SecretScreen(SecretRequest("API key"), arm_delay=ARM)


@pytest.mark.parametrize(
    ("dialog", "first", "second"),
    [(_form, "Ada", "Engines"), (_key_entry, "MY_KEY", "sk-test-value-1234")],
    ids=["a form", "the key entry"],
)
async def test_a_guarded_dialog_takes_a_burst_field_by_field(
    dialog: Callable[[], Screen[Any]], first: str, second: str
) -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = dialog()
        await open_dialog(app, pilot, screen)
        field, _ = screen.query(Input).results(Input)
        field.focus()
        await pilot.pause()
        burst(app, first, "tab", second)
        await pilot.pause()
        await pilot.pause()
        assert values(screen) == [first, second]
