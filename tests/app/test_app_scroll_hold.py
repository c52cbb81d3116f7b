"""A long answer's end while the user reads above it (issue 37, m9: PageUp while an 8,000-chunk answer
finished, and the rows on screen changed at every sample for two seconds, still after `● ready`).

A long answer that arrives at once shows its newest blocks first and renders the older ones above them a
slice a frame; the turn's last chunk and its end come meanwhile. Scrolled up, what the user reads stays on
its rows through all of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.widgets.markdown_stream import MarkdownStream
from tests.support.app_run import AppRun, running_app, text, update, v2_turn

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


def answer_sections(start: int, count: int) -> str:
    return "".join(
        f"## Step {index}\n\nStep {index} keeps its lines while the answer grows.\n\n"
        f"```python\ndef step_{index}() -> int:\n    return {index}\n```\n\n"
        for index in range(start, start + count)
    )


def ending_turn(release: Path) -> dict[str, Any]:
    """A long answer that arrives at once, then (once the test has scrolled up) its last part and the turn's end."""
    chunk = "agent_message_chunk"
    return v2_turn(
        update({"sessionUpdate": chunk, "messageId": "long", "content": text(answer_sections(0, 120))}),
        {"op": "wait_for_file", "path": str(release), "timeout": 30},
        update({"sessionUpdate": chunk, "messageId": "long", "content": text(answer_sections(120, 5))}),
    )


async def test_the_view_stays_where_the_user_scrolled_while_a_long_answer_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The older blocks wait until the test has scrolled (a fast machine would render them all first), then
    # render as the app does: a frame at a time, while the answer's last part and the turn's end arrive.
    waiting: list[MarkdownStream] = []
    catch_up = MarkdownStream._schedule_catch_up
    monkeypatch.setattr(MarkdownStream, "_schedule_catch_up", lambda stream: waiting.append(stream))
    release = tmp_path / "release"
    async with running_app(tmp_path, {"version": 2, "turns": [ending_turn(release)]}, size=(100, 30)) as run:
        conversation = run.chat.conversation
        await run.send("long")
        await run.wait(lambda: last_line_rendered_text(run, "step_119"), "the answer's newest lines")
        [view] = run.views(AgentMessageView)
        conversation.focus()
        await run.pilot.press("pageup")
        await run.wait(lambda: not conversation.following, "scrolled up")
        await run.pilot.pause()
        y_before, gap = conversation.scroll_y, view.stream.gap_line
        assert gap is not None and waiting
        top = conversation.scrollable_content_region.y
        first = max(0, view.stream.content_region.y + gap - top)  # the first row of the view below the gap
        before = conversation_rows(run)
        assert first < len(before) - 1 and "Step 11" in "".join(before[first:])
        monkeypatch.setattr(MarkdownStream, "_schedule_catch_up", catch_up)
        catch_up(view.stream)
        release.touch()  # the answer's last part, and the turn ends
        await run.idle()
        await run.wait(lambda: view.stream.settled, "every block rendered", timeout=30)
        await run.pilot.pause()
        # (the last row is the "new output below" hint's now: the answer's last part came below the view)
        assert conversation_rows(run)[first:-1] == before[first:-1], "the lines the user scrolled to moved"
        assert not conversation.following and conversation.hint_visible
        # the view moved with the lines it shows: down by what was rendered above them, no more
        assert conversation.scroll_y > y_before


def last_line_rendered_text(run: AppRun, needle: str) -> bool:
    views = run.views(AgentMessageView)
    return bool(views) and any(needle in line for line in views[0].stream.rendered_lines())


def conversation_rows(run: AppRun) -> list[str]:
    """The conversation's rows on screen, without the scrollbar (its thumb moves as the answer grows)."""
    region = run.chat.conversation.scrollable_content_region
    rows = "\n".join(strip.text for strip in run.app.screen._compositor.render_strips()).split("\n")
    return [row[region.x : region.right] for row in rows[region.y : region.bottom]]
