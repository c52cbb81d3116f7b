"""A folded diff unfolds in place (issue 18, "The look"): a diff longer than its bound shows its first
rows and "… N more lines"; it can then be focused (Tab), and Enter or a click on that row shows the rest,
up to `unfold_lines` more rows, beyond which the row points at `s` (save the whole diff). Nothing past the
fold is drawn until asked, and the keys a focused card already uses keep their meaning.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch, ToolCallLocation, ToolCallUpdate
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply
from acp_tui.ui.timeline.diff_view import DiffView
from acp_tui.ui.timeline.tool_call import MAX_CARD_DIFF_LINES, ToolCallCard
from tests.support.widgets import WidgetApp, found, screen_text, until

CWD = "/home/me/project"
SIZES = [(80, 24), (160, 50)]
THEMES = ["acp-dark", "acp-light"]


def long_diff(lines: int, path: str = f"{CWD}/steps.py") -> Diff:
    body = "".join(f"+step_{i}()\n" for i in range(lines))
    return Diff(
        changes=[DiffChange(operation="add", path=path)],
        patch=DiffPatch(format="git_patch", text=f"--- /dev/null\n+++ b/steps.py\n@@ -0,0 +1,{lines} @@\n{body}"),
    )


def edit_card(lines: int) -> ToolCallCard:
    state = SessionState()
    apply(
        state,
        ToolCallUpdate(
            tool_call_id="e",
            title="Write steps.py",
            kind="edit",
            status="completed",
            locations=[ToolCallLocation(path=f"{CWD}/steps.py")],
            content=[long_diff(lines)],
        ),
    )
    card = ToolCallCard(found(state.tool_call("e")))
    card.toggle()  # opened by the user
    return card


async def test_enter_on_the_focused_fold_shows_the_rest_in_place() -> None:
    card = edit_card(200)
    app = WidgetApp(card)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        diff = card.query_one(DiffView)
        assert diff.hidden_lines == 200 - MAX_CARD_DIFF_LINES and diff.focusable
        assert len(diff.content_lines()) == 1 + MAX_CARD_DIFF_LINES + 1  # nothing past the fold is drawn
        assert diff.content_lines()[-1] == "… 140 more lines (press s to save)"
        card.focus()
        await pilot.press("tab")  # from the card to its folded diff
        assert app.focused is diff
        await pilot.pause()
        assert diff.content_lines()[-1] == "… 140 more lines — ⏎ shows them, s saves the whole diff"
        await pilot.press("enter")
        await pilot.pause()
        assert diff.unfolded and diff.hidden_lines == 0 and card.expanded  # the card stays open
        lines = diff.content_lines()
        assert len(lines) == 1 + 200 and lines[-1].endswith("+ step_199()")
        assert card.has_focus and not diff.focusable  # nothing left to unfold: the card has the focus
        await pilot.press("enter")  # the card's own Enter is untouched: it closes the card
        await pilot.pause()
        assert not card.expanded


async def test_enter_on_the_card_still_folds_the_card() -> None:
    card = edit_card(200)
    app = WidgetApp(card)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert not card.expanded and not card.query_one(DiffView).unfolded


async def test_s_on_the_focused_diff_saves_the_whole_card() -> None:
    card = edit_card(200)
    app = WidgetApp(card)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        card.query_one(DiffView).focus()
        await pilot.press("s")
        await pilot.pause()
        assert app.saved == [card] and "step_199" in card.full_text()


async def test_a_click_on_the_fold_row_unfolds() -> None:
    view = DiffView(long_diff(40), max_lines=10)
    app = WidgetApp(view)
    async with app.run_test(size=(80, 60)) as pilot:
        await pilot.pause()
        assert view.content_lines()[-1] == "… 30 more lines (press s to save)"
        await pilot.click(DiffView, offset=(2, 0))  # a click elsewhere unfolds nothing
        await pilot.pause()
        assert not view.unfolded
        await pilot.click(DiffView, offset=(2, view.size.height - 1))
        assert await until(pilot, lambda: view.unfolded)
        assert len(view.content_lines()) == 41 and "… " not in screen_text(app)


async def test_beyond_the_unfold_cap_the_row_points_at_save() -> None:
    view = DiffView(long_diff(100), max_lines=10, unfold_lines=50)
    app = WidgetApp(view)
    async with app.run_test(size=(80, 80)) as pilot:
        await pilot.pause()
        view.focus()
        await pilot.press("enter")
        await pilot.pause()
        lines = view.content_lines()
        assert len(lines) == 1 + 60 + 1  # the file row, 10 + 50 rows, the fold row
        assert lines[-1] == "… 40 more lines — s saves the whole diff"
        assert app.focused is not view and not view.focusable  # the focus went to what holds it
        await pilot.press("enter")  # nothing more to unfold
        assert len(view.content_lines()) == 62
        assert "step_99()" in view.full_text()


async def test_a_diff_that_fits_is_not_a_focus_stop() -> None:
    view = DiffView(long_diff(5))
    app = WidgetApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not view.focusable and view.hidden_lines == 0


# -- snapshots: the focused fold and the unfolded diff, at both sizes and in both themes ----------------------


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("unfolded", [False, True], ids=["focused_fold", "unfolded"])
def test_snapshot_unfold(snap_compare: Any, size: tuple[int, int], theme: str, unfolded: bool) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        pilot.app.theme = theme
        pilot.app.query_one(ToolCallCard).query_one(DiffView).focus()
        if unfolded:
            await pilot.press("enter")
        await pilot.pause()
        pilot.app.query_one(VerticalScroll).scroll_end(animate=False)  # the fold row, or the last rows
        await pilot.pause()

    assert snap_compare(WidgetApp(edit_card(70)), terminal_size=size, run_before=run_before)
