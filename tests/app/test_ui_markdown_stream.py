"""Pilot tests of the streamed message widget and the thought widget."""

from __future__ import annotations

import sys

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pytest import MonkeyPatch
from textual.app import App, ComposeResult
from textual.geometry import Offset
from textual.selection import Selection

from acp_tui.ui.timeline.thought import Thought
from acp_tui.ui.widgets import markdown_stream
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_stream import MarkdownStream, sanitize
from tests.support.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
from flood_agent import MARKER, realistic_markdown

from tests.support.markdown import mount_stream, screen_text, wait_for


class StreamApp(App[None]):
    """A conversation, as on the chat screen."""

    def compose(self) -> ComposeResult:
        yield Conversation()


async def test_many_chunks_render_exactly_the_whole_text() -> None:
    pieces = realistic_markdown(300)
    full = "".join(pieces)
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        for index, piece in enumerate(pieces):
            streamed.append(piece)
            if index % 5 == 0:
                await pilot.pause()
        await wait_for(pilot, lambda: streamed.settled and any(MARKER in line for line in streamed.rendered_lines()))
        assert streamed.text == full
        # The incremental rendering equals rendering the whole text at once.
        whole = MarkdownStream(full)
        await mount_stream(app, whole)
        await wait_for(pilot, lambda: whole.settled and whole.line_count > 0)
        assert streamed.rendered_lines() == whole.rendered_lines()
        assert streamed.rendered_lines()[-1].strip() == f"Done: {MARKER}"
        assert "## " not in "\n".join(streamed.rendered_lines())  # headings were parsed, not shown raw
        await wait_for(pilot, lambda: MARKER in screen_text(app))


async def test_code_fence_is_highlighted() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        for piece in ["Intro\n\n```py", "thon\ndef handler(x):\n", "    return x + 1\n```\n\nafter"]:
            streamed.append(piece)
        streamed.finish()
        await wait_for(pilot, lambda: any("after" in line for line in streamed.rendered_lines()))
        strips = streamed.rendered_strips()
        code_line = next(strip for strip in strips if "def handler" in strip.text)
        foregrounds = {segment.style.color for segment in code_line if segment.style and segment.style.color}
        assert len(foregrounds) >= 2  # keyword and name in different colours
        assert any(segment.style and segment.style.bgcolor for segment in code_line)
        assert not any("```" in strip.text for strip in strips)


async def test_markup_in_agent_text_is_literal_and_inert() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        streamed.append("Look: [bold red]x[/] and [@click=app.quit]quit[/] now")
        streamed.finish()
        await wait_for(pilot, lambda: streamed.size.height == 1)
        line = streamed.rendered_lines()[0]
        assert "[bold red]x[/]" in line
        assert "[@click=app.quit]quit[/]" in line
        for strip in streamed.rendered_strips():
            for segment in strip:
                style = segment.style
                assert style is None or (not style.link and "@click" not in style.meta)
        column = line.index("quit")
        await pilot.click(MarkdownStream, offset=(column + 1, 0))
        await pilot.pause()
        assert app.is_running
        assert "[@click=app.quit]quit[/]" in screen_text(app)


async def test_a_long_answer_arriving_at_once_shows_its_end_first_while_followed(monkeypatch: MonkeyPatch) -> None:
    """A whole long answer in one frame (a fast agent): while the conversation follows its end, the first
    flush renders the newest blocks, so the end is on screen before the older blocks above it are rendered;
    they follow in order, and the result is the same as rendering in order. Scrolled up, it renders in order."""
    monkeypatch.setattr(markdown_stream, "LATE_BUDGET", 0.0)  # the first flush renders nothing but the end
    monkeypatch.setattr(markdown_stream, "FLUSH_BUDGET", 0.0)  # nor, scrolled up, more than its least
    monkeypatch.setattr(markdown_stream, "MIN_BLOCKS_PER_FLUSH", 4)
    full = "".join(realistic_markdown(2000))
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        conversation = app.query_one(Conversation)
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.size.width > 0)
        assert conversation.following
        streamed.append(full)
        streamed.flush()
        first = streamed.rendered_lines()
        assert first[-1].strip() == f"Done: {MARKER}"
        assert not streamed.settled
        await wait_for(pilot, lambda: streamed.settled)
        expected = streamed.rendered_lines()
        assert 40 <= len(first) < len(expected) // 2  # a screen of the newest lines, not the whole answer
        assert first[-30:] == expected[-30:]
        await wait_for(pilot, lambda: MARKER in screen_text(app))
        whole = MarkdownStream(full)
        await mount_stream(app, whole)
        await wait_for(pilot, lambda: whole.settled and whole.line_count > 0)
        assert whole.rendered_lines() == expected  # as if rendered in order

        scrolled_up = MarkdownStream()
        await mount_stream(app, scrolled_up)
        await wait_for(pilot, lambda: scrolled_up.size.width > 0)
        conversation.release_anchor()
        assert not conversation.following
        scrolled_up.append(full)
        scrolled_up.flush()
        first = scrolled_up.rendered_lines()
        assert 0 < len(first) < len(expected) // 2
        assert first == expected[: len(first)]  # the oldest blocks, in order; the end waits its turn
        await wait_for(pilot, lambda: scrolled_up.settled)
        assert scrolled_up.rendered_lines() == expected


async def test_links_show_their_target_and_are_not_links() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream("See [the docs](https://example.com/x) please.")
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.line_count > 0)
        assert "the docs (https://example.com/x)" in streamed.rendered_lines()[0]
        for strip in streamed.rendered_strips():
            assert all(segment.style is None or not segment.style.link for segment in strip)


async def test_a_reference_link_resolves_in_every_block_and_after_a_re_wrap() -> None:
    """A finished block is parsed again on its own when it is re-wrapped (or rendered late, or scrolled back
    to after leaving the cache): the message's link references still resolve it."""
    text = "See [the docs][d] first.\n\n[d]: https://example.com/d\n\nThen [the docs][d] again.\n"
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        for start in range(0, len(text), 7):
            streamed.append(text[start : start + 7])
            await pilot.pause()
        streamed.finish()
        await wait_for(pilot, lambda: streamed.settled and streamed.line_count >= 3)
        wide = [line for line in streamed.rendered_lines() if line]
        assert wide == ["See the docs (https://example.com/d) first.", "Then the docs (https://example.com/d) again."]
        await pilot.resize_terminal(60, 40)
        await wait_for(pilot, lambda: streamed.settled and streamed.size.width < 60)
        assert [line for line in streamed.rendered_lines() if line] == wide


async def test_terminal_escapes_never_reach_the_output() -> None:
    hostile = "a\x1b]52;c;SGVsbG8=\x07b\x1b[2Jc\x9b31md\r\u202eе\x00"
    assert "\x1b" not in sanitize(hostile)
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        streamed.append(hostile[:9])
        streamed.append(hostile[9:])
        streamed.finish()
        await wait_for(pilot, lambda: streamed.line_count > 0)
        rendered = "\n".join(streamed.rendered_lines())
        # whole sequences go with their payload; the OSC split across the two chunks loses its head (ESC and
        # `]52;c;S` with the first chunk) and its tail is harmless text
        assert "aGVsbG8=bcd" in rendered and "]52;" not in rendered and "[2J" not in rendered
        for bad in ("\x1b", "\x07", "\x9b", "\r", "\u202e", "\x00"):
            assert bad not in streamed.text
            assert bad not in rendered
            assert bad not in screen_text(app)


async def test_tabs_and_newlines_survive_sanitising() -> None:
    assert sanitize("a\tb\nc") == "a\tb\nc"


async def test_set_text_replaces_the_message() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        streamed.append("# Old title\n\nold body paragraph\n\nmore old")
        await wait_for(pilot, lambda: any("more old" in line for line in streamed.rendered_lines()))
        streamed.set_text("new body only")
        await wait_for(pilot, lambda: streamed.rendered_lines() == ["new body only"])
        assert streamed.text == "new body only"
        streamed.append(" and more")
        await wait_for(pilot, lambda: streamed.rendered_lines() == ["new body only and more"])
        await wait_for(pilot, lambda: "old" not in screen_text(app))


async def test_width_change_rewraps() -> None:
    paragraph = " ".join(f"word{i}" for i in range(60))
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream(f"{paragraph}\n\n{paragraph}")
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.line_count > 0)
        wide = streamed.rendered_lines()
        await pilot.resize_terminal(50, 40)
        await wait_for(pilot, lambda: streamed.line_count > len(wide))
        narrow = streamed.rendered_lines()
        assert max(len(line) for line in narrow) <= streamed.content_region.width
        assert " ".join(" ".join(narrow).split()) == " ".join(" ".join(wide).split())
        assert streamed.size.height == streamed.line_count


async def test_height_grows_with_content() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream()
        await mount_stream(app, streamed)
        streamed.append("one paragraph")
        await wait_for(pilot, lambda: streamed.size.height == 1)
        streamed.append("\n\nsecond paragraph\n\n- a\n- b")
        await wait_for(pilot, lambda: streamed.size.height == 6)
        assert streamed.rendered_lines()[2:] == ["second paragraph", "", " • a", " • b"]


async def test_thought_is_dimmed_streams_open_and_collapses_when_finished() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        thought = Thought()
        await mount_stream(app, thought)
        thought.append("Planning the **change**\n\n")
        thought.append("```python\nx = 1\n```\n\nthird line")
        await wait_for(pilot, lambda: any("third line" in line for line in thought.body.rendered_lines()))
        assert not thought.collapsed
        assert thought.body.display
        for strip in thought.body.rendered_strips():
            assert all(segment.style is None or segment.style.color is None for segment in strip)
        thought.finish()
        await wait_for(pilot, lambda: thought.size.height == 1)
        assert thought.collapsed
        assert thought.summary == "▸ Thought (10 words)"
        assert "▸ Thought (10 words)" in screen_text(app)
        await pilot.click(Thought)
        await wait_for(pilot, lambda: thought.size.height > 1)
        assert not thought.collapsed
        assert "third line" in screen_text(app)
        thought.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: thought.size.height == 1)
        assert thought.collapsed


async def test_a_thought_finished_before_it_was_drawn_renders_when_opened() -> None:
    """A folded thought is not rendered until it is opened (a long turn's thoughts mostly never are, issue
    27); opened, it shows all of its text."""
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        thought = Thought()
        await mount_stream(app, thought)
        thought.append("Planning the **change**\n\n")
        thought.append("- first\n- second\n\nthird line")
        thought.finish()
        await wait_for(pilot, lambda: thought.size.height == 1)
        assert thought.summary == "▸ Thought (9 words)"
        await pilot.click(Thought)
        await wait_for(pilot, lambda: any("third line" in line for line in thought.body.rendered_lines()))
        await wait_for(pilot, lambda: thought.size.height > 1)
        assert thought.body.rendered_lines() == ["Planning the change", "", " • first", " • second", "", "third line"]
        assert "third line" in screen_text(app)


async def test_selected_text_is_the_rendered_text() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = MarkdownStream("Hello **bold** world\n\nsecond block")
        await mount_stream(app, streamed)
        await wait_for(pilot, lambda: streamed.line_count == 3)
        app.screen.selections = {streamed: Selection(Offset(6, 0), Offset(6, 2))}
        await pilot.pause()
        assert app.screen.get_selected_text() == "bold world\n\nsecond"
        selection_style = app.screen.get_component_rich_style("screen--selection")
        painted = streamed.render_line(0)
        assert any(
            segment.text == "bold" and segment.style and selection_style.bgcolor == segment.style.bgcolor
            for segment in painted
        )


DIVERSE = """Setext title
============

A paragraph with `code`, **bold**, *em*, ~~gone~~ and a [link](https://example.com).
It continues on a second line.

1. first
2. second

   still the second item

3. third

- loose
- list
  - nested

> a quote
lazily continued

> second quote

| name | value |
|------|-------|
| a    | 1     |

    indented code

---

```js
const x = 1;

const y = 2;
```

<div>
html block
</div>

Sub heading
-----------

~~~
tilde fence
~~~
last paragraph"""


async def test_incremental_rendering_matches_whole_rendering_at_every_cut() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        whole = MarkdownStream(DIVERSE)
        await mount_stream(app, whole)
        await wait_for(pilot, lambda: whole.line_count > 0)
        expected = whole.rendered_lines()
        assert "last paragraph" in expected[-1]
        for step in (1, 7, 23):
            streamed = MarkdownStream()
            await mount_stream(app, streamed)
            await wait_for(pilot, lambda: streamed.size.width > 0)
            for start in range(0, len(DIVERSE), step):
                streamed.append(DIVERSE[start : start + step])
                streamed.flush()  # every cut is a frame boundary
            assert streamed.rendered_lines() == expected, f"step {step}"
            # All blocks but the last two (the last line is incomplete) and the invisible html block.
            assert streamed.cached_blocks == 11
            await streamed.remove()


async def test_a_flood_is_parsed_a_slice_at_a_time_and_renders_as_if_parsed_whole(monkeypatch: MonkeyPatch) -> None:
    """A fast agent's 145 KB between two frames: no parse sees more than `PARSE_SLICE` characters (markdown-it's
    tokens cost ~30 bytes a character), yet the lines are those of the text parsed in one go. A block longer
    than a slice (a 40 KB code block) is parsed whole, and renders the same too."""
    fence = (
        "```python\n" + "".join(f"value_{n} = compute({n})  # a long generated line\n" for n in range(900)) + "```\n"
    )
    texts = ["".join(realistic_markdown(8000)), f"Intro.\n\n{fence}\nAfter the code.\n\n{fence}\nDone."]
    real_parse = markdown_stream.parse_source
    parsed: list[int] = []

    def counting_parse(parser: MarkdownIt, source: str, continues: bool) -> list[Token]:
        parsed.append(len(source))
        return real_parse(parser, source, continues)

    app = StreamApp()
    async with app.run_test(size=(100, 40)) as pilot:
        for text in texts:
            monkeypatch.setattr(markdown_stream, "PARSE_SLICE", len(text) + 1)
            whole = MarkdownStream(text)
            await mount_stream(app, whole)
            await wait_for(pilot, lambda: whole.settled and whole.line_count > 0)
            expected = whole.rendered_lines()

            monkeypatch.setattr(markdown_stream, "PARSE_SLICE", 16 * 1024)
            monkeypatch.setattr(markdown_stream, "parse_source", counting_parse)
            parsed.clear()
            sliced = MarkdownStream(text)
            await mount_stream(app, sliced)
            await wait_for(pilot, lambda: sliced.settled and sliced.line_count > 0)
            assert sliced.rendered_lines() == expected
            monkeypatch.setattr(markdown_stream, "parse_source", real_parse)
            longest = max(parsed)
            if text is texts[0]:
                assert longest <= 16 * 1024 and sum(parsed) >= len(text)
            else:
                assert longest > len(fence)  # the code block could not be cut: parsed whole
            await whole.remove()
            await sliced.remove()


async def test_a_one_paragraph_thought_is_counted_in_words_not_as_one_line() -> None:
    """`▸ Thought (1 line)` was shown for a thought of one long paragraph."""
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        thought = Thought()
        await mount_stream(app, thought)
        thought.append("I should read the file first, then check how the tests call it, and only then edit. " * 3)
        thought.finish()
        await wait_for(pilot, lambda: thought.size.height == 1)
        assert thought.summary == "▸ Thought (51 words)"
        single = Thought()
        await mount_stream(app, single)
        single.append("Hmm.")
        single.finish()
        await wait_for(pilot, lambda: single.size.height == 1)
        assert single.summary == "▸ Thought (1 word)"
