"""The finished blocks' line layout and its bounded cache of rendered lines (no terminal needed)."""

from __future__ import annotations

from markdown_it.token import Token
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.widgets.markdown_lines import Block, BlockLines


class Renderer:
    """Renders a block's source as one line per source line (an empty source renders nothing), counting."""

    def __init__(self) -> None:
        self.rendered: list[str] = []

    def __call__(self, block: Block) -> list[Strip]:
        self.rendered.append(block.source)
        return [Strip([Segment(line)], len(line)) for line in block.source.splitlines()]


def lines_of(done: BlockLines) -> list[str]:
    """Every line's text (a separator is the width's blank: shown as "")."""
    return [strip.text.strip() if (strip := done.strip_at(y)) is not None else "?" for y in range(done.count)]


def make(sources: list[tuple[str, bool]], *, cached_lines: int = 1000) -> tuple[BlockLines, Renderer]:
    renderer = Renderer()
    done = BlockLines(renderer, cached_lines=cached_lines)
    done.reset(10)
    for source, continues in sources:
        done.queue(Block(source, continues, None))
    return done, renderer


def test_blocks_rendered_in_order_are_separated_by_one_blank_line_except_a_continued_paragraph() -> None:
    done, _ = make([("a1\na2", False), ("", False), ("b", False), ("b more", True), ("c", False)])
    for _ in range(5):
        done.render(done.prefix)
    assert done.unrendered == 0
    assert lines_of(done) == ["a1", "a2", "", "b", "b more", "", "c"]
    assert done.rendered_blocks == 4  # the empty block takes no line and no separator
    assert done.strip_at(7) is None and done.strip_at(-1) is None


def test_the_newest_blocks_rendered_first_show_after_a_gap_and_join_the_prefix_in_place() -> None:
    done, _ = make([("a", False), ("b", False), ("c", False), ("d1\nd2", False)])
    done.render(3)
    done.render(2)
    done.settle()
    assert done.shown_beyond_gap
    assert lines_of(done) == ["c", "", "d1", "d2"]  # nothing above yet: no separator before the first
    done.render(0)
    done.settle()
    assert lines_of(done) == ["a", "", "c", "", "d1", "d2"]  # the gap (b) takes no line
    done.render(1)
    done.settle()
    assert not done.shown_beyond_gap and done.unrendered == 0
    assert lines_of(done) == ["a", "", "b", "", "c", "", "d1", "d2"]


def test_lines_beyond_the_cache_are_rendered_again_when_shown_and_the_layout_stays() -> None:
    sources = [(f"block {number} line 1\nblock {number} line 2", False) for number in range(50)]
    done, renderer = make(sources, cached_lines=10)
    for _ in range(50):
        done.render(done.prefix)
    assert len(renderer.rendered) == 50
    expected = []
    for number in range(50):
        expected += [f"block {number} line 1", f"block {number} line 2", ""]
    assert lines_of(done) == expected[:-1]
    # Reading every line again rendered the evicted blocks again; at most 10 lines stay cached.
    assert len(renderer.rendered) > 50
    assert sum(len(lines) for lines in done._cache.values()) <= 10
    before = len(renderer.rendered)
    last = done.strip_at(148)
    assert last is not None and last.text == "block 49 line 2"  # the last block was shown last: still cached
    assert len(renderer.rendered) == before


def test_a_reset_renders_everything_again_at_the_new_width() -> None:
    done, renderer = make([("a", False), ("b", False)])
    done.render(0)
    done.render(1)
    done.reset(20)
    assert done.unrendered == 2 and done.count == 0 and done.width == 20
    done.render(1)
    done.render(0)
    done.settle()
    assert lines_of(done) == ["a", "", "b"]
    done.clear()
    assert done.count == 0 and done.blocks == [] and done.unrendered == 0


def test_blocks_left_waiting_after_a_flush_let_go_of_their_tokens() -> None:
    """The tokens a parse made for blocks not rendered in this flush are dropped (the source is parsed again
    when they are): a long answer that arrived at once held megabytes of tokens while it rendered."""
    done, renderer = make([])
    token = Token("paragraph_open", "p", 1)
    for source in ("a", "b", "c"):
        done.queue(Block(source, False, [token]))
    done.render(2)
    done.settle()
    assert [block.tokens for block in done.blocks] == [None, None, None]
    done.render(0)
    done.render(1)
    done.settle()
    assert lines_of(done) == ["a", "", "b", "", "c"] and renderer.rendered == ["c", "a", "b"]


def test_a_cached_line_keeps_its_segments_and_not_textuals_strip_around_them() -> None:
    """A `Strip` carries eight empty caches (~1.25 KB); 1,000 cached lines would keep 1.25 MB of them. The cache
    keeps each line's segments, and a Strip is made only for the line drawn: the same segments, the same width."""
    import gc
    import tracemalloc

    styles = [Style(color="red"), Style(bold=True), None]

    def twenty_segments(block: Block) -> list[Strip]:
        return [
            Strip([Segment(f"w{row}.{n} ", styles[n % 3]) for n in range(20)], 140)
            for row in range(len(block.source.splitlines()))
        ]

    done = BlockLines(twenty_segments, cached_lines=1000)
    done.reset(140)
    for _ in range(100):
        done.queue(Block("\n".join(["line"] * 10), False, None))
    gc.collect()
    tracemalloc.start()
    try:
        bare = tracemalloc.get_traced_memory()[0]
        lines = [[Segment(f"w{row}.{n} ", styles[n % 3]) for n in range(20)] for row in range(1000)]
        segments_only = tracemalloc.get_traced_memory()[0] - bare  # the texts, the segments, a list a line
        del lines
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(100):
            done.render(done.prefix)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert done.count == 100 * 10 + 99
    assert kept < segments_only + 200 * 1000  # and a tuple a line (and the cache's own); a Strip is ~1,250 bytes
    first = done.strip_at(0)
    assert first is not None and first.cell_length == 140 and first.text.startswith("w0.0 w0.1 ")
    assert [segment.style for segment in first][:3] == styles
