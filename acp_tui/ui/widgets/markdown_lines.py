"""The finished blocks of a streamed message and where their lines are, with only some of the lines kept.

A long answer is thousands of lines, and a rendered line costs kilobytes: its segments (~2.8 KB for twenty),
and the `Strip` around them (1.25 KB of Textual's empty caches, kept only while a line is drawn: the cache
holds the segments). So a block's lines are kept in a cache of the `CACHED_LINES` lines used last, and what
stays for every block is its source and its height at the current width: enough to know where each line is.
A line whose block left the cache is rendered again when it is shown (scrolling back to it), and kept again.

Blocks are rendered in any order (the newest first while the user follows the end): the ones rendered
from the first on (the prefix) are laid out incrementally; the ones rendered beyond a gap (the late ones)
are laid out again whenever they change, and join the prefix once the gap is rendered. A block that renders
to nothing takes no line; one blank line separates two blocks, except before a later piece of a paragraph
cut in pieces (`continues`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it.token import Token
from rich.segment import Segment
from textual.strip import Strip

#: a cached line: its segments and its width in cells
_Line = tuple[list[Segment], int]

CACHED_LINES = 1000
"""Rendered lines kept (twenty screens of 50 rows); the rest is rendered again when scrolled to."""


@dataclass(slots=True)
class Block:
    """A finished block: its source, its tokens until first rendered (unless parsed lazily), its height."""

    source: str
    continues: bool  # a later piece of a paragraph: no blank line before it
    tokens: list[Token] | None
    height: int = -1  # lines at the current width; -1 until rendered


class BlockLines:
    """The finished blocks of one message, their layout in lines, and a cache of their rendered lines."""

    def __init__(self, render: Callable[[Block], list[Strip]], *, cached_lines: int = CACHED_LINES) -> None:
        """`render` draws a block at the current width (parsing its source when it has no tokens)."""
        self._render = render
        self._capacity = cached_lines
        self.blocks: list[Block] = []
        self.width = 0
        #: blocks not rendered yet at the current width
        self.unrendered = 0
        #: blocks before this index are rendered and laid out in `_starts`
        self.prefix = 0
        self._starts: list[int] = []  # the first line of each prefix block's own lines
        self._prefix_lines = 0  # lines of the prefix, separators included
        self._late_starts: list[int] = []  # rendered blocks beyond the prefix: first line, relative to the prefix's end
        self._late_index: list[int] = []  # ... and the block each is
        self._late_lines = 0
        self._late_stale = False
        self._cache: OrderedDict[int, list[_Line]] = OrderedDict()
        self._cached = 0  # lines in `_cache`

    # -- size -------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        """Lines of every rendered block, separators included (a block not rendered yet takes none)."""
        return self._prefix_lines + self._late_lines

    @property
    def prefix_lines(self) -> int:
        """Lines of the blocks rendered from the first on: where a block rendered in the gap goes."""
        return self._prefix_lines

    def last_rendered(self) -> int:
        """The index of the newest block rendered at the current width (-1 when none is)."""
        blocks = self.blocks
        for index in range(len(blocks) - 1, self.prefix - 1, -1):
            if blocks[index].height >= 0:
                return index
        return self.prefix - 1

    @property
    def shown_beyond_gap(self) -> bool:
        """Are blocks rendered beyond ones not rendered yet (the newest, shown first)?"""
        return self._late_lines > 0

    @property
    def rendered_blocks(self) -> int:
        """Blocks rendered at the current width that take lines."""
        return sum(1 for block in self.blocks if block.height > 0)

    # -- blocks ------------------------------------------------------------------------------

    def clear(self) -> None:
        """No blocks at all (the message's text was replaced)."""
        self.blocks = []
        self.reset(self.width)

    def reset(self, width: int) -> None:
        """Every block is to be rendered again at `width` (a re-wrap, or new colours)."""
        self.width = width
        for block in self.blocks:
            block.height = -1
        self.unrendered = len(self.blocks)
        self.prefix = 0
        self._starts = []
        self._prefix_lines = 0
        self._late_starts, self._late_index, self._late_lines = [], [], 0
        self._late_stale = False
        self._cache.clear()
        self._cached = 0

    def queue(self, block: Block) -> None:
        """A block that can no longer change, to be rendered."""
        self.blocks.append(block)
        self.unrendered += 1

    def render(self, index: int) -> None:
        """Render block `index` (not rendered yet), keep its lines, and lay out what it changes."""
        block = self.blocks[index]
        strips = self._render(block)
        block.height = len(strips)
        block.tokens = None  # the source is enough to render it again
        self.unrendered -= 1
        self._keep(index, strips)
        if index == self.prefix:
            self._advance()
        else:
            self._late_stale = True

    def settle(self) -> None:
        """Lay out the late blocks again if they changed, and let go of the tokens of blocks still waiting
        (once per flush, after rendering): a long answer that arrived at once is ~7 MB of markdown-it tokens
        for a second while it renders, more than its source parsed again costs."""
        if self._late_stale:
            self._gather_late()
        if self.unrendered:
            for block in self.blocks[self.prefix :]:
                block.tokens = None

    def _advance(self) -> None:
        """Move the prefix over every block rendered in a row, laying out their lines."""
        blocks = self.blocks
        while self.prefix < len(blocks) and (height := blocks[self.prefix].height) >= 0:
            if height and self._prefix_lines and not blocks[self.prefix].continues:
                self._prefix_lines += 1
            self._starts.append(self._prefix_lines)
            self._prefix_lines += height
            if self._late_lines:
                self._late_stale = True  # a block rendered early has joined the prefix
            self.prefix += 1

    def _gather_late(self) -> None:
        self._late_stale = False
        starts: list[int] = []
        index: list[int] = []
        lines, before = 0, self._prefix_lines > 0
        for number in range(self.prefix, len(self.blocks)):
            block = self.blocks[number]
            if block.height > 0:
                if before and not block.continues:
                    lines += 1
                starts.append(lines)
                index.append(number)
                lines += block.height
                before = True
        self._late_starts, self._late_index, self._late_lines = starts, index, lines

    # -- lines -------------------------------------------------------------------------------

    def strip_at(self, y: int) -> Strip | None:
        """Line `y` (rendered again if its block left the cache); None past the last line."""
        if y < 0:
            return None
        if y < self._prefix_lines:
            at = bisect_right(self._starts, y) - 1
            return self._line(at, y - self._starts[at])
        y -= self._prefix_lines
        if y < self._late_lines:
            at = bisect_right(self._late_starts, y) - 1
            if at < 0:
                return Strip.blank(self.width)  # the separator before the first late block
            return self._line(self._late_index[at], y - self._late_starts[at])
        return None

    def _line(self, index: int, offset: int) -> Strip:
        if offset >= self.blocks[index].height:
            return Strip.blank(self.width)  # the separator before the next block
        cached = self._cache.get(index)
        if cached is None:
            cached = self._keep(index, self._render(self.blocks[index]))
        else:
            self._cache.move_to_end(index)
        segments, cells = cached[offset]
        return Strip(segments, cells)

    def _keep(self, index: int, strips: list[Strip]) -> list[_Line]:
        """Cache a block's lines (their segments), letting go of the lines used longest ago beyond the capacity."""
        lines = [(list(strip), strip.cell_length) for strip in strips]
        self._cache[index] = lines
        self._cached += len(lines)
        cache = self._cache
        while self._cached > self._capacity and len(cache) > 1:
            _, old = cache.popitem(last=False)
            self._cached -= len(old)
        return lines


__all__ = ["CACHED_LINES", "Block", "BlockLines"]
