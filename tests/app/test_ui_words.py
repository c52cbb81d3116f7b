"""What screens say must be true in every state: the words a new user reads first (issue 22)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from acp_tui.session.model import Problem
from acp_tui.ui.browsers.help import HelpScreen
from acp_tui.ui.browsers.keys import KEYS
from acp_tui.ui.browsers.problems import ProblemsScreen
from tests.support.app_run import private_dirs, running_app, v2_turn  # noqa: F401  (fixtures)
from tests.support.paths import REPO
from tests.support.widgets import shown_text


async def test_the_problems_list_does_not_claim_the_session_went_on() -> None:
    """F3 after the agent stopped said "the session went on": what is true in every state is that each
    problem was left out and acp-tui carried on."""
    app: App[None] = App()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ProblemsScreen([Problem("malformed session/update", "{oops")], 1)
        await app.push_screen(screen)
        await pilot.pause()
        text = shown_text(screen)
        assert "went on" not in text
        assert "1 protocol problem — each was left out; acp-tui carried on. Esc closes." in text


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
