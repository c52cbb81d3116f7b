"""Hostile message sizes: bounded rendering, the whole text kept, and the app still answering keys.

Widget-level tests drive `MarkdownStream` in a bare app (as in test_ui_markdown_stream.py); one
app-level test drives the real app against the hostile agent and saves the truncated message.
Speed is measured by hand (bench/widget_speed.py, the hostile agent), never asserted here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Input

from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.thought import Thought
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_stream import PIECE_CHARS, RENDER_LIMIT, MarkdownStream
from tests.support.agents.hostile_agent import DONE_MARKER
from tests.support.hostile import SIZE, hostile, make_launch, start_and_prompt, typing_still_works
from tests.support.hostile import screen_text as app_screen_text
from tests.support.hostile import wait_for as app_wait_for
from tests.support.markdown import mount_stream, screen_text, wait_for

WIDTH = 100
MAX_LINES = RENDER_LIMIT // 40 + 100  # generous (lines are ~95 cells wide here), yet far below unbounded


class FloodApp(App[None]):
    """A conversation and an input, to prove keys still arrive while a message floods in."""

    def compose(self) -> ComposeResult:
        yield Conversation()
        yield Input(id="prompt")


def one_line(size: int) -> str:
    return ("0123456789abcdef" * (size // 16 + 1))[:size]


async def test_a_5_mb_single_line_is_truncated_on_screen_and_kept_whole() -> None:
    text = one_line(5 * 1024 * 1024)
    app = FloodApp()
    async with app.run_test(size=(WIDTH, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.size.width > 0)
        streamed.append(text)
        streamed.finish()
        await wait_for(pilot, lambda: streamed.settled and streamed.line_count > 0)
        lines = streamed.rendered_lines()
        assert lines[-1] == "… message truncated on screen: 4.8 MB more — press s to save the whole message"
        assert streamed.hidden_chars > 0 and streamed.hidden_chars == len(text) - RENDER_LIMIT
        assert streamed.text == text
        assert len(lines) <= MAX_LINES
        assert max(len(line) for line in lines) <= streamed.content_region.width
        shown = "".join(lines[:-2])
        assert shown == text[:RENDER_LIMIT]  # hard-cut pieces, nothing lost or doubled on screen
        await wait_for(pilot, lambda: streamed.size.height == streamed.line_count)
        # Appending beyond the bound only counts: the note changes, the rendered text does not.
        streamed.append("more")
        await wait_for(pilot, lambda: streamed.settled)
        assert streamed.rendered_lines()[:-1] == lines[:-1]
        assert streamed.hidden_chars == len(text) - RENDER_LIMIT + 4
        app.query_one(Conversation).scroll_end(animate=False)
        await wait_for(pilot, lambda: "message truncated on screen" in screen_text(app))


async def test_a_100000_chunk_paragraph_renders_bounded_and_keys_still_arrive() -> None:
    chunks = [f"{i} " for i in range(100_000)]
    app = FloodApp()
    async with app.run_test(size=(WIDTH, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.size.width > 0)
        app.query_one(Input).focus()
        typed = "typed during the flood"
        for index, chunk in enumerate(chunks):
            streamed.append(chunk)
            if index % 50 == 0:
                await asyncio.sleep(0)  # as a real app reading an agent yields between reads
            if index % 4000 == 0 and index // 4000 < len(typed):
                await pilot.press(typed[index // 4000])
        await wait_for(pilot, lambda: app.query_one(Input).value == typed[: len(chunks) // 4000 + 1])
        streamed.finish()
        await wait_for(pilot, lambda: streamed.settled)
        full = "".join(chunks)
        assert streamed.text == full
        lines = streamed.rendered_lines()
        assert len(lines) <= MAX_LINES
        assert lines[-1].startswith("… message truncated on screen: ")
        # The paragraph was cut into cached pieces: the growing tail never held the whole of it.
        assert streamed.cached_blocks >= RENDER_LIMIT // PIECE_CHARS - 1
        words = " ".join(lines[:-2]).split()
        assert words[:3] == ["0", "1", "2"]
        assert [int(word) for word in words[1:-1]] == list(range(1, len(words) - 1))


LONG_PARAGRAPH = " ".join(
    f"word{i} **bold{i}** `code{i}`" if i % 7 == 0 else f"word{i}" + ("\nsoft" if i % 13 == 0 else "")
    for i in range(9000)
)
DOCUMENT = f"# Title\n\nintro\n\n{LONG_PARAGRAPH}\n\n- after\n- list\n\n{one_line(3 * PIECE_CHARS)}\n\nlast words"


async def test_streaming_a_long_paragraph_equals_rendering_it_whole() -> None:
    assert len(LONG_PARAGRAPH) > 4 * PIECE_CHARS
    app = FloodApp()
    async with app.run_test(size=(WIDTH, 40)) as pilot:
        whole = MarkdownStream(DOCUMENT)
        await mount_stream(app, whole)
        await wait_for(pilot, lambda: whole.settled and whole.line_count > 0)
        expected = whole.rendered_lines()
        assert expected[-1] == "last words"
        assert "**" not in "\n".join(expected)  # inline markup inside the pieces is still parsed
        for step in (997, 5003):
            streamed = MarkdownStream()
            await mount_stream(app, streamed)
            await wait_for(pilot, lambda: streamed.size.width > 0)
            for start in range(0, len(DOCUMENT), step):
                streamed.append(DOCUMENT[start : start + step])
                streamed.flush()
            await wait_for(pilot, lambda: streamed.settled)
            assert streamed.rendered_lines() == expected, f"step {step}"
            await streamed.remove()


async def test_pieces_rewrap_when_the_width_changes() -> None:
    app = FloodApp()
    async with app.run_test(size=(WIDTH, 40)) as pilot:
        streamed = MarkdownStream(DOCUMENT)
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.settled and streamed.line_count > 0)
        wide = streamed.rendered_lines()
        await pilot.resize_terminal(60, 40)
        await wait_for(pilot, lambda: streamed.settled and streamed.line_count > len(wide))
        narrow = streamed.rendered_lines()
        assert max(len(line) for line in narrow) <= streamed.content_region.width
        assert "".join("".join(narrow).split()) == "".join("".join(wide).split())


async def test_thousands_of_blocks_in_one_chunk_render_over_several_frames() -> None:
    text = "".join(f"block {i}\n\n" for i in range(6000)) + "end"
    app = FloodApp()
    async with app.run_test(size=(WIDTH, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.size.width > 0)
        streamed.append(text)
        streamed.flush()
        assert not streamed.settled  # the first flush stopped at its time budget
        app.query_one(Input).focus()
        await pilot.press("k")
        assert app.query_one(Input).value == "k"
        await wait_for(pilot, lambda: streamed.settled, timeout=30)
        lines = streamed.rendered_lines()
        assert lines[0] == "block 0" and lines[-3:] == ["block 5999", "", "end"]
        assert len(lines) == 6001 * 2 - 1
        await wait_for(pilot, lambda: streamed.size.height == len(lines))


async def test_a_huge_thought_is_truncated_with_its_own_note() -> None:
    app = FloodApp()
    async with app.run_test(size=(WIDTH, 40)) as pilot:
        thought = Thought()
        await mount_stream(app, thought)
        text = "thinking " * (RENDER_LIMIT // 9 + 50_000)
        thought.append(text)
        await wait_for(pilot, lambda: thought.body.settled and thought.body.line_count > 0)
        assert thought.body.rendered_lines()[-1].startswith("… thought truncated on screen: ")
        assert thought.body.rendered_lines()[-1].endswith("press s to save the whole thought")
        assert thought.text == text
        thought.finish()
        await wait_for(pilot, lambda: thought.size.height == 1)
        assert thought.summary == f"▸ Thought ({len(text.split()):,} words)"


async def test_the_real_app_truncates_a_huge_message_and_saves_it_whole(app_dirs: Path, tmp_path: Path) -> None:
    size = 5 * 1024 * 1024
    app = AcpApp(make_launch(hostile("huge_message", scale=0.1), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await start_and_prompt(pilot, app)
        await app_wait_for(pilot, lambda: DONE_MARKER in app_screen_text(app), timeout=60, what="the done marker")
        view = next(v for v in chat.query(AgentMessageView) if v.message.id == "huge-msg")
        assert len(view.full_text()) == size
        assert view.stream.hidden_chars > 0 and view.can_focus
        assert view.stream.line_count <= MAX_LINES
        await typing_still_works(pilot, chat)
        view.focus()
        await pilot.press("s")
        outputs = app_dirs / "outputs"
        await app_wait_for(pilot, lambda: outputs.is_dir() and any(outputs.iterdir()), what="the saved message")
        saved = next(outputs.iterdir())
        assert saved.suffix == ".md"
        assert saved.read_text(encoding="utf-8") == one_line(size)
