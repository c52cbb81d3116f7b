"""Pilot tests of the conversation container: order, following, the "new output" hint, End."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.widgets import Static

from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_stream import MarkdownStream
from acp_tui.ui.widgets.new_output_hint import NewOutputHint
from tests.support.markdown import screen_text, wait_for


class ConversationApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation()


def paragraphs(count: int, start: int = 0) -> str:
    return "".join(f"paragraph {index}\n\n" for index in range(start, start + count))


async def test_entries_keep_their_order_and_insert_at_index() -> None:
    app = ConversationApp()
    async with app.run_test(size=(100, 40)):
        conversation = app.query_one(Conversation)
        first, second, middle = Static("first"), Static("second"), Static("middle")
        await conversation.add_entry(first)
        await conversation.add_entry(second)
        await conversation.insert_entry(1, middle)
        assert conversation.entries == [first, middle, second]
        last = Static("last")
        await conversation.insert_entry(99, last)
        assert conversation.entries == [first, middle, second, last]


async def test_short_conversation_starts_at_the_top() -> None:
    app = ConversationApp()
    async with app.run_test(size=(100, 40)) as pilot:
        conversation = app.query_one(Conversation)
        message = MarkdownStream("hello")
        await conversation.add_entry(message)
        await wait_for(pilot, lambda: message.size.height == 1)
        assert message.region.y == conversation.region.y
        assert conversation.following


async def test_follows_streamed_output_while_at_the_bottom() -> None:
    app = ConversationApp()
    async with app.run_test(size=(100, 20)) as pilot:
        conversation = app.query_one(Conversation)
        message = MarkdownStream()
        await conversation.add_entry(message)
        for index in range(60):
            message.append(f"paragraph {index}\n\n")
            if index % 10 == 0:
                await pilot.pause()
        await wait_for(pilot, lambda: any("paragraph 59" in line for line in message.rendered_lines()))
        await wait_for(
            pilot, lambda: conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y
        )
        assert conversation.following
        assert not conversation.hint_visible


class WatchedConversation(Conversation):
    """Records, each time the content outgrows the view, whether it is already anchored to the end."""

    def __init__(self) -> None:
        super().__init__()
        self.anchored_as_it_outgrew: list[bool] = []

    def watch_virtual_size(self, size: Size) -> None:
        super().watch_virtual_size(size)
        if size.height > self.container_size.height > 0:
            self.anchored_as_it_outgrew.append(self.is_anchored)


class WatchedApp(App[None]):
    def compose(self) -> ComposeResult:
        yield WatchedConversation()


async def test_a_first_long_answer_is_followed_from_the_frame_it_outgrows_the_view() -> None:
    """The layout that first makes the timeline overflow anchors it there and then, so the next frame shows
    the answer's end; a check queued on the timeline waited several frames while the answer's top showed."""
    app = WatchedApp()
    async with app.run_test(size=(100, 20)) as pilot:
        conversation = app.query_one(WatchedConversation)
        message = MarkdownStream("short")
        await conversation.add_entry(message)
        await wait_for(pilot, lambda: message.line_count == 1)
        assert not conversation.is_anchored
        message.append("\n\n" + paragraphs(40))
        await wait_for(pilot, lambda: bool(conversation.anchored_as_it_outgrew))
        assert conversation.anchored_as_it_outgrew[0]
        await wait_for(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y > 0)
        assert conversation.following


async def test_scrolling_up_stops_following_and_shows_the_hint_end_resumes() -> None:
    app = ConversationApp()
    async with app.run_test(size=(100, 20)) as pilot:
        conversation = app.query_one(Conversation)
        message = MarkdownStream(paragraphs(40))
        await conversation.add_entry(message)
        await wait_for(
            pilot, lambda: conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y
        )
        conversation.focus()
        await pilot.press("home")
        await wait_for(pilot, lambda: conversation.scroll_y == 0)
        assert not conversation.following
        assert not conversation.hint_visible  # nothing new yet
        message.append(paragraphs(20, start=40))
        await wait_for(pilot, lambda: conversation.hint_visible)
        assert conversation.scroll_y == 0  # the view stays where the user put it
        await pilot.press("end")
        await wait_for(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y)
        assert conversation.following
        assert not conversation.hint_visible
        message.append(paragraphs(10, start=60))
        await wait_for(pilot, lambda: any("paragraph 69" in line for line in message.rendered_lines()))
        await wait_for(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y)


async def test_scrolling_back_to_the_bottom_resumes_following() -> None:
    app = ConversationApp()
    async with app.run_test(size=(100, 20)) as pilot:
        conversation = app.query_one(Conversation)
        message = MarkdownStream(paragraphs(40))
        await conversation.add_entry(message)
        await wait_for(
            pilot, lambda: conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y
        )
        conversation.focus()
        await pilot.press("up")
        await wait_for(pilot, lambda: not conversation.following)
        message.append(paragraphs(5, start=40))
        await wait_for(pilot, lambda: conversation.hint_visible)
        while conversation.scroll_y < conversation.max_scroll_y:
            await pilot.press("pagedown")
        await wait_for(pilot, lambda: conversation.following)
        assert not conversation.hint_visible
        message.append(paragraphs(10, start=45))
        await wait_for(pilot, lambda: any("paragraph 54" in line for line in message.rendered_lines()))
        await wait_for(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y)


async def test_page_down_or_end_at_the_bottom_keeps_following() -> None:
    """Pressing PageDown (or Down, or End) once more at the bottom is a scroll that goes nowhere: it must
    not let go of the newest output (Textual releases the anchor at the start of every scroll)."""
    app = ConversationApp()
    async with app.run_test(size=(100, 20)) as pilot:
        conversation = app.query_one(Conversation)
        message = MarkdownStream(paragraphs(40))
        await conversation.add_entry(message)
        await wait_for(
            pilot, lambda: conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y
        )
        conversation.focus()
        for key in ("pagedown", "down", "end"):
            await pilot.press(key)
            await pilot.pause()
            assert conversation.following, key
        message.append(paragraphs(10, start=40))
        await wait_for(pilot, lambda: any("paragraph 49" in line for line in message.rendered_lines()))
        await wait_for(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y)
        assert not conversation.hint_visible


async def test_clicking_the_hint_resumes_following() -> None:
    app = ConversationApp()
    async with app.run_test(size=(100, 20)) as pilot:
        conversation = app.query_one(Conversation)
        message = MarkdownStream(paragraphs(40))
        await conversation.add_entry(message)
        await wait_for(
            pilot, lambda: conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y
        )
        conversation.scroll_to(y=0, animate=False)
        await wait_for(pilot, lambda: conversation.scroll_y == 0)
        message.append(paragraphs(5, start=40))
        hint = app.query_one(NewOutputHint)
        await wait_for(pilot, lambda: conversation.hint_visible and hint.region.height == 1)
        await pilot.click(NewOutputHint)
        await wait_for(pilot, lambda: conversation.following and conversation.scroll_y == conversation.max_scroll_y)
        assert not conversation.hint_visible


# -- scrolled up, the view holds still; the hint leaves its row clean (issue 37, m9 and m10) -----------------


def sections(count: int) -> str:
    """A long answer of many blocks: headings, paragraphs as wide as the view, code."""
    return "".join(
        f"## Step {index}\n\nStep {index} renders each block once and keeps its lines while the stream grows.\n\n"
        f"```python\ndef step_{index}() -> int:\n    return {index}\n```\n\n"
        for index in range(count)
    )


def view_rows(app: App[None], conversation: Conversation) -> list[str]:
    """The conversation's rows on screen, as text (without the scrollbar, whose thumb moves as it grows)."""
    rows = screen_text(app).split("\n")
    region = conversation.scrollable_content_region
    return [row[region.x : region.right] for row in rows[region.y : region.bottom]]


@pytest.mark.parametrize(
    ("keys", "then"), [(("up", "up", "up"), "catch up"), (("pageup",), "finish")], ids=["up", "pageup"]
)
async def test_a_scrolled_up_view_holds_still_while_older_blocks_render_above_it(
    monkeypatch: pytest.MonkeyPatch, keys: tuple[str, ...], then: str
) -> None:
    """A long answer that arrived at once renders its newest blocks first and the older ones above them
    after; the user who scrolled up meanwhile must keep reading the same lines (m9: the view moved at every
    sample for two seconds, and went on moving after the turn had ended). What is below the gap the older
    blocks fill (all of the view, when the gap is above it) stays on its rows; what is above the gap makes
    room by moving up. The older blocks wait until the user has scrolled (else a fast machine renders them
    all first and nothing is tested); then they render a frame at a time (`catch up`) or as the answer ends."""
    waiting: list[MarkdownStream] = []
    catch_up = MarkdownStream._schedule_catch_up
    monkeypatch.setattr(MarkdownStream, "_schedule_catch_up", lambda stream: waiting.append(stream))
    app = ConversationApp()
    async with app.run_test(size=(100, 24)) as pilot:
        conversation = app.query_one(Conversation)
        message = MarkdownStream("start\n\n")
        await conversation.add_entry(message)
        await wait_for(pilot, lambda: message.line_count == 1)
        message.append(sections(120))  # arrives at once while the view follows the end
        await wait_for(pilot, lambda: any("step_119" in line for line in view_rows(app, conversation)))
        conversation.focus()
        for key in keys:
            await pilot.press(key)
        await wait_for(pilot, lambda: not conversation.following)
        await pilot.pause()
        before, y_before, gap = view_rows(app, conversation), conversation.scroll_y, message.gap_line
        assert gap is not None and waiting
        first = max(0, gap - round(y_before))  # the first row of the view below the gap
        assert first < len(before) - 1 and "Step" in "".join(before[first:])
        monkeypatch.setattr(MarkdownStream, "_schedule_catch_up", catch_up)
        if then == "catch up":
            catch_up(message)
        else:
            message.finish()
        await wait_for(pilot, lambda: message.settled, timeout=30)
        await pilot.pause()
        assert view_rows(app, conversation)[first:] == before[first:], "the lines the user scrolled to moved"
        assert conversation.scroll_y > y_before and not conversation.following
        assert not conversation.hint_visible  # what went in above is not new output below


async def test_the_new_output_hint_clears_its_whole_row() -> None:
    app = ConversationApp()
    async with app.run_test(size=(100, 20)) as pilot:
        conversation = app.query_one(Conversation)
        wide = "".join(f"- item {index} " + "wide text under the hint " * 3 + "\n" for index in range(60))
        message = MarkdownStream(wide)
        await conversation.add_entry(message)
        await wait_for(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y > 0)
        conversation.scroll_to(y=0, animate=False)
        await wait_for(pilot, lambda: conversation.scroll_y == 0)
        message.append("- one more item\n")
        await wait_for(pilot, lambda: any(NewOutputHint.LABEL in row for row in view_rows(app, conversation)))
        [row] = [row for row in view_rows(app, conversation) if NewOutputHint.LABEL in row]
        assert row.replace(NewOutputHint.LABEL, "").strip() == "", f"the row beside the hint shows {row!r}"
