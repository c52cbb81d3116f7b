"""A streamed agent message: markdown that grows by chunks, drawn with Textual's line API.

Why not Textual's `Markdown` widget: it mounts one child widget per markdown block, and laying out
hundreds of widgets costs seconds for a long answer (see PERFORMANCE.md). This widget is a single
`render_line` widget instead:

- chunks are buffered by `append` (O(len) per chunk) and folded in at most once per frame;
- the text is split into top-level markdown blocks; a block that is followed by another block that
  has begun on a complete line can no longer change, so it is rendered once with Rich and its
  lines (`Strip`s) are kept;
- only the trailing, still-growing block is parsed and rendered again at each flush;
- everything is re-rendered only when the width changes.

Agent text is data: it goes only to the markdown parser (never to Rich or Textual markup), control
characters are removed before rendering, and links are shown as "text (url)" with no link style, so
clicking does nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

FRAME_SECONDS = 1 / 30
"""How often buffered chunks are folded into the rendered lines while a stream is running."""

CODE_THEME = "monokai"


def _control_table() -> dict[int, None]:
    """Characters removed from agent text: C0/C1 controls (but tab and newline), DEL, bidi overrides."""
    codes = [c for c in range(0x20) if c not in (0x09, 0x0A)]
    codes += [0x7F, *range(0x80, 0xA0)]
    codes += [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    return dict.fromkeys(codes)


_CONTROL = _control_table()


def sanitize(text: str) -> str:
    """Remove every character that a terminal could act on, so agent text cannot emit escapes."""
    return text.translate(_CONTROL)


def make_parser() -> MarkdownIt:
    """The same markdown dialect Rich's `Markdown` uses (commonmark + strikethrough + tables)."""
    return MarkdownIt().enable("strikethrough").enable("table")


_shared_parser: MarkdownIt | None = None


def shared_parser() -> MarkdownIt:
    """One parser for every widget: building one costs ~1.6 ms and ~200 KB, parsing keeps no state."""
    global _shared_parser
    if _shared_parser is None:
        _shared_parser = make_parser()
    return _shared_parser


class _TokenMarkdown(Markdown):
    """Rich `Markdown` built from already-parsed tokens, so each block is parsed only once."""

    def __init__(self, tokens: list[Token]) -> None:
        # Deliberately not calling Markdown.__init__: it builds a new parser and parses again.
        self.markup = ""
        self.parsed = tokens
        self.code_theme = CODE_THEME
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = CODE_THEME


@dataclass(slots=True)
class _Group:
    """One top-level markdown block: its first source line (relative to the parsed text) and tokens."""

    start_line: int
    tokens: list[Token]


def split_blocks(tokens: list[Token]) -> list[_Group]:
    """Group a flat markdown-it token stream into top-level blocks."""
    groups: list[_Group] = []
    current: list[Token] = []
    depth = 0
    for token in tokens:
        if depth == 0:
            start = token.map[0] if token.map else (groups[-1].start_line if groups else 0)
            current = [token]
            groups.append(_Group(start, current))
        else:
            current.append(token)
        depth += token.nesting
    return groups


def _line_offset(text: str, line: int) -> int:
    """Character offset where `line` (0-based) starts in `text`."""
    offset = 0
    for _ in range(line):
        offset = text.index("\n", offset) + 1
    return offset


def render_tokens(console: Console, tokens: list[Token], width: int, muted: bool) -> list[Strip]:
    """Render markdown tokens to strips exactly `width` cells wide (colours removed if `muted`)."""
    if not tokens or width <= 0:
        return []
    options = console.options.update(width=width, min_width=width, max_width=width, height=None)
    lines = console.render_lines(_TokenMarkdown(tokens), options, pad=True)
    # Rich pads some elements with empty lines; blocks are separated by exactly one line instead.
    start, end = 0, len(lines)
    while start < end and _is_empty(lines[start]):
        start += 1
    while end > start and _is_empty(lines[end - 1]):
        end -= 1
    if muted:
        return [Strip(list(Segment.remove_color(line)), width) for line in lines[start:end]]
    return [Strip(line, width) for line in lines[start:end]]


def _is_empty(line: list[Segment]) -> bool:
    """A line with no text and no background (padding of a code block keeps its background)."""
    return all(not segment.text.strip() and not (segment.style and segment.style.bgcolor) for segment in line)


class MarkdownStream(Widget):
    """An agent message that grows by chunks; its height is its rendered line count."""

    DEFAULT_CSS = """
    MarkdownStream {
        height: auto;
        width: 1fr;
        padding: 0 1;
    }
    """

    def __init__(
        self,
        text: str = "",
        *,
        muted: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`muted` drops all colours from the rendering, so the widget's own (dim) colour shows."""
        super().__init__(name=name, id=id, classes=classes)
        self._parser = shared_parser()
        self._muted = muted
        self._source = ""
        self._pending: list[str] = []
        self._stable = 0  # offset in _source where the still-growing tail starts
        self._finished_sources: list[str] = []  # source of each finished block, for re-wraps
        self._width = 0
        self._lines: list[Strip] = []  # lines of finished blocks (with separators) at _width
        self._tail_lines: list[Strip] = []
        self._dirty = False  # _source changed since the tail was last rendered
        self._finished = False
        self._flush_timer: Timer | None = None
        self._last_flush = 0.0
        if text:
            self._pending.append(sanitize(text))

    # -- public API --------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The whole (sanitised) text received so far."""
        if self._pending:
            return self._source + "".join(self._pending)
        return self._source

    @property
    def finished(self) -> bool:
        """Has `finish` been called (the stream ended)?"""
        return self._finished

    @property
    def line_count(self) -> int:
        """Rendered lines at the current width, including not-yet-flushed text once flushed."""
        return len(self._lines) + len(self._tail_lines)

    @property
    def cached_blocks(self) -> int:
        """How many blocks are finished, rendered once and cached (the rest is the growing tail)."""
        return len(self._finished_sources)

    def append(self, text: str) -> None:
        """Add a chunk; it is rendered at the next frame together with every other pending chunk."""
        if not text:
            return
        self._pending.append(sanitize(text))
        self._schedule_flush()

    def set_text(self, text: str) -> None:
        """Replace the whole text (an upsert of the message); renders at the next frame."""
        self._source = ""
        self._pending = [sanitize(text)]
        self._stable = 0
        self._finished_sources.clear()
        self._lines = []
        self._tail_lines = []
        self._dirty = True
        self._schedule_flush()

    def finish(self) -> None:
        """The stream ended: render what is pending now rather than at the next frame."""
        self._finished = True
        if self.is_mounted:
            self.flush()

    def flush(self) -> None:
        """Fold pending chunks into the rendered lines now and refresh the display."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        self._take_pending()
        if not self._dirty:
            return
        width = self._render_width()
        if width <= 0:
            # Not laid out yet: get_content_height renders everything at the first real width.
            return
        if not self._width:
            self._width = width
        old_count = self.line_count
        self._dirty = False
        self._update_tail(width)
        if self.line_count != old_count:
            self.refresh(layout=True)
        else:
            self.refresh()
        # Measured after the work, so a slow flush still leaves a frame for everything else.
        self._last_flush = time.monotonic()

    # -- rendering ---------------------------------------------------------------------------

    def _take_pending(self) -> None:
        """Join the buffered chunks onto the source (one join per frame, not one per chunk)."""
        if self._pending:
            self._source += "".join(self._pending)
            self._pending.clear()
            self._dirty = True

    def _on_flush_timer(self) -> None:
        self._flush_timer = None
        self.flush()

    def _render_width(self) -> int:
        """The width lines are rendered at (the content width until the first layout decides)."""
        return self._width or self.content_region.width

    def _schedule_flush(self) -> None:
        """Flush once per frame at most: chunks arriving within a frame are rendered together."""
        if self._flush_timer is not None or not self.is_mounted:
            return
        delay = max(0.001, self._last_flush + FRAME_SECONDS - time.monotonic())
        self._flush_timer = self.set_timer(delay, self._on_flush_timer, name="markdown-flush")

    def on_mount(self) -> None:
        """Text given before mounting is rendered at the first frame."""
        if self._pending or self._dirty:
            self._schedule_flush()

    def _add_finished(self, tokens: list[Token], source: str, width: int) -> None:
        """Render a block that can no longer change and keep its lines."""
        strips = render_tokens(self.app.console, tokens, width, self._muted)
        if not strips:
            return
        if self._lines:
            self._lines.append(Strip.blank(width))
        self._lines.extend(strips)
        self._finished_sources.append(source)

    def _update_tail(self, width: int) -> None:
        """Parse the tail, move blocks that can no longer change into the cache, render the rest."""
        tail = self._source[self._stable :]
        groups = split_blocks(self._parser.parse(tail))
        complete_lines = tail.count("\n")
        done = 0
        while done + 1 < len(groups) and groups[done + 1].start_line < complete_lines:
            done += 1
        if done:
            offsets = [_line_offset(tail, group.start_line) for group in groups[: done + 1]]
            for index in range(done):
                source = tail[offsets[index] : offsets[index + 1]]
                self._add_finished(groups[index].tokens, source, width)
            self._stable += offsets[done]
        rest = [token for group in groups[done:] for token in group.tokens]
        strips = render_tokens(self.app.console, rest, width, self._muted)
        if strips and self._lines:
            strips.insert(0, Strip.blank(width))
        self._tail_lines = strips

    def _rerender(self, width: int) -> None:
        """Render every block again at a new width (finished blocks are re-parsed from source)."""
        self._width = width
        self._lines = []
        sources = self._finished_sources
        self._finished_sources = []
        for source in sources:
            tokens = self._parser.parse(source)
            self._add_finished(tokens, source, width)
        self._take_pending()
        self._dirty = False
        self._update_tail(width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Cheap: the cached line count, unless the width changed (then everything re-wraps)."""
        if width <= 0:
            return 0
        if width != self._width:
            self._rerender(width)
        elif self._dirty:
            self._dirty = False
            self._update_tail(width)
        return self.line_count

    def render_line(self, y: int) -> Strip:
        """One cached line, in the widget's style, with the user's selection highlighted."""
        width = self.content_region.width
        if y < len(self._lines):
            strip = self._lines[y]
        else:
            index = y - len(self._lines)
            if index >= len(self._tail_lines):
                return Strip.blank(width, self.rich_style)
            strip = self._tail_lines[index]
        if strip.cell_length != width:
            strip = strip.crop_extend(0, width, None)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            end = width if end == -1 else min(end, width)
            if start < end:
                before, selected, after = strip.divide([start, end, width])
                style = self.screen.get_component_rich_style("screen--selection")
                strip = Strip.join([before, selected.apply_style(style), after])
        # Offsets let Textual map the mouse to text, so the user can select and copy the message.
        return strip.apply_style(self.rich_style).apply_offsets(0, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the rendered text (what the user sees, not the markdown source)."""
        return selection.extract("\n".join(self.rendered_lines())), "\n"

    def rendered_lines(self) -> list[str]:
        """Plain text of every rendered line (for tests and copy), trailing spaces removed."""
        return [strip.text.rstrip() for strip in (*self._lines, *self._tail_lines)]

    def rendered_strips(self) -> list[Strip]:
        """Every rendered line as a Strip (for tests that look at styles)."""
        return [*self._lines, *self._tail_lines]
