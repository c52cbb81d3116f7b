"""The command-palette providers share one base (`ScreenActionCommands`): an entry is offered only where the
screen has its action, is found by its name, its aliases (shown as the alias) or its keywords (shown as the
name), and runs the screen action it names."""

from __future__ import annotations

import inspect

from textual.app import App
from textual.screen import Screen

from acp_tui.ui.browsers.notices import NoticeCommands
from acp_tui.ui.chat.session_actions import SessionCommands
from acp_tui.ui.dialogs.config_picker import ConfigCommands
from acp_tui.ui.dialogs.login import LoginCommands
from acp_tui.ui.widgets.palette import PaletteEntry, ScreenActionCommands


class Actions(Screen[None]):
    """A screen with some of the actions the providers run; it records which ran."""

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []

    def action_open_config(self) -> None:
        self.ran.append("open_config")

    def action_log_in(self) -> None:
        self.ran.append("log_in")

    def action_sessions(self, what: str) -> None:
        self.ran.append(f"sessions:{what}")


async def _search(provider: ScreenActionCommands, query: str) -> list[str]:
    return [hit.text or "" async for hit in provider.search(query)]


async def _discover(provider: ScreenActionCommands) -> list[str]:
    return [hit.text or "" async for hit in provider.discover()]


def test_an_entry_names_its_bare_action() -> None:
    assert PaletteEntry("Sessions", "sessions('browse')", "").action_name == "sessions"
    assert PaletteEntry("Notices", "show_notices", "").action_name == "show_notices"


async def test_the_providers_offer_what_the_screen_can_do_and_run_it() -> None:
    app: App[None] = App()
    async with app.run_test() as pilot:
        screen = Actions()
        await app.push_screen(screen)
        await pilot.pause()
        assert await _discover(NoticeCommands(screen)) == []  # no `action_show_notices` here
        assert await _discover(LoginCommands(screen)) == ["Log in"]  # "Log out" has no action here
        assert await _discover(SessionCommands(screen)) == [
            "Sessions",
            "New session",
            "Export conversation as Markdown",
        ]
        assert await _search(ConfigCommands(screen), "settings") == ["Session settings"]
        assert await _search(ConfigCommands(screen), "model") == ["Mode and model"]  # an alias is shown as itself
        assert await _search(LoginCommands(screen), "authenticate") == ["Log in"]  # a keyword shows the name
        assert await _search(NoticeCommands(screen), "notices") == []
        hits = [hit async for hit in SessionCommands(screen).search("new session")]
        assert [hit.text for hit in hits] == ["New session"]
        ran = hits[0].command()  # the palette awaits what it returns (`Screen.run_action`)
        assert inspect.isawaitable(ran)
        await ran
        assert screen.ran == ["sessions:new"]
