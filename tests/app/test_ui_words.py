"""What screens say must be true in every state: the words a new user reads first (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from acp_tui.session.model import Problem
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browsers.help import HelpScreen
from acp_tui.ui.browsers.keys import KEYS
from acp_tui.ui.browsers.problems import ProblemsScreen
from tests.support.app_run import make_launch, running_app, v2_turn
from tests.support.paths import REPO
from tests.support.wait import until
from tests.support.widgets import shown_text

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


async def test_the_problems_list_does_not_claim_the_session_went_on() -> None:
    """F3 after the agent stopped said "the session went on": while it runs, each problem was left out and
    acp-tui carried on."""
    app: App[None] = App()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ProblemsScreen([Problem("malformed session/update", "{oops")], 1)
        await app.push_screen(screen)
        await pilot.pause()
        text = shown_text(screen)
        assert "went on" not in text
        assert "1 protocol problem — each was left out; acp-tui carried on. Esc closes." in text


async def test_the_problems_list_wraps_reasons_and_raw_lines_at_80_columns() -> None:
    """The reason and the raw line were cut at the border: both wrap now, so their ends show."""
    reason = "the agent sent a session/update whose content block has no type field at all, so it was skipped"
    raw = '{"jsonrpc":"2.0","method":"session/update","params":{"update":{"text":"' + "x" * 150 + 'END-OF-RAW"}}}'
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ProblemsScreen([Problem(reason, raw)], 1))
        await pilot.pause()
        screen = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "so it was skipped" in screen and "END-OF-RAW" in screen


async def test_with_cat_as_the_agent_f3_and_the_status_bar_say_it_stopped(tmp_path: Path) -> None:
    """`acp-tui -- cat`: F3 said "acp-tui carried on" and the status bar offered `⏎ send` though the agent had
    stopped; Enter keeps the prompt for a restart, so the bar says `⏎ queue`."""
    app = AcpApp(make_launch(["cat"], cwd=tmp_path), arm_delay=0.1)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(
            lambda: app.chat is not None and app.chat.status.values.state == "stopped", "cat to stop", pilot=pilot
        )
        chat = app.chat
        assert chat is not None
        status = chat.status.render().plain
        assert "⏎ queue" in status and "⏎ send" not in status and "^R restart" in status
        await pilot.press("f3")
        await until(lambda: isinstance(app.screen, ProblemsScreen), "the problems list", pilot=pilot)
        text = shown_text(app.screen)
        assert "carried on" not in text and "The agent has stopped: Ctrl+R restarts it." in text
        await pilot.press("escape")
        await until(lambda: app.screen is chat, "the list to close", pilot=pilot)
        chat.prompt_input.load_text("hello")
        await pilot.press("enter")
        await until(lambda: len(chat.controller.queue) == 1, "the prompt to be queued for the restart", pilot=pilot)


def readme_keys() -> list[str]:
    """The first column of README's "Keys" table, in order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text.split("### Keys", 1)[1].split("\n\n", 2)[1]
    return [row.split(" | ")[0].removeprefix("| ") for row in table.splitlines()[2:]]


def test_the_help_screen_and_readme_list_the_same_keys_in_the_same_order() -> None:
    assert readme_keys() == [key for key, _ in KEYS]


async def test_f1_shows_the_keys_and_escape_closes_them(tmp_path: Path) -> None:
    """F1 did nothing; a new user expects the keys there."""
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn()]}) as run:
        await run.pilot.press("f1")
        await run.wait(lambda: isinstance(run.app.screen, HelpScreen), "the keys")
        text = "\n".join(strip.text for strip in run.app.screen._compositor.render_strips())
        for key in ("F1", "Ctrl+C", "Ctrl+R", "PageUp / PageDown", "@"):
            assert key in text, key
        await run.pilot.press("escape")
        await run.wait(lambda: not isinstance(run.app.screen, HelpScreen), "the keys closed")
        assert run.app.focused is run.chat.prompt_input


async def test_f1_is_readable_at_80x24() -> None:
    """The key column was 48 wide at 80×24 and the words wrapped into 20 (about 6 keys a screen): the keys
    are narrow now (a long one wraps), the words wide, and most keys fit on one screen."""
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(HelpScreen())
        await pilot.pause()
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
        assert any("send the prompt (queued while the agent works)" in row for row in rows)
        shown = [key for key, _ in KEYS if any(row.startswith(f"│ {key.replace('`', '')}  ") for row in rows)]
        assert len(shown) >= 15, shown
