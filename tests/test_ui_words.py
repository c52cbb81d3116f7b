"""What screens say must be true in every state: the words a new user reads first (issue 22)."""

from __future__ import annotations

from textual.app import App

from acp_tui.session.model import Problem
from acp_tui.ui.screens.problems import ProblemsScreen
from tests.test_ui_widgets import shown_text


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
