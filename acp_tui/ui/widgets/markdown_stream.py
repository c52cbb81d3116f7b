"""A streamed agent message: markdown that grows by chunks, drawn with Textual's line API.

Why not Textual's `Markdown` widget: it mounts one child widget per markdown block, and laying out
hundreds of widgets costs seconds for a long answer (see docs/performance.md). This widget is a single
`render_line` widget instead:

- chunks are buffered by `append` (O(len) per chunk) and folded in at most once per frame;
- the text is split into top-level markdown blocks; a block that is followed by another block that
  has begun on a complete line can no longer change, so it is rendered once with Rich and its
  lines (`Strip`s) are kept;
- only the trailing, still-growing block is parsed and rendered again at each flush;
- everything is re-rendered only when the width changes.

Hostile sizes stay cheap (an agent can send one 50 MB line, or 100,000 chunks of one paragraph):

- only the first `RENDER_LIMIT` characters are rendered; the rest is only counted (O(len(chunk)) per
  chunk) and a note at the end says how much is hidden; the whole text stays in the session model;
- a paragraph longer than `PIECE_CHARS` is rendered as consecutive pieces cut at a space (or hard-cut
  inside an unbroken word), so a growing paragraph's finished pieces are cached like finished blocks
  and Rich never wraps more than one piece at a time;
- while the user follows the end of the conversation, a flush renders only the newest finished blocks
  (a screen of them) and the tail, so the end of an answer that arrived at once shows in one frame;
  the older blocks above the screen are rendered oldest first, a slice after each refresh;
- otherwise finished blocks are rendered in order within a time budget per flush (the rest continues
  right after the app has handled waiting input), and a slow tail re-render pushes the next one back
  in proportion, so the app keeps answering keys however much arrives at once.

Agent text is data: it goes only to the markdown parser (never to Rich or Textual markup), control
characters are removed before rendering, and links are shown as "text (url)" with no link style, so
clicking does nothing.
"""

from __future__ import annotations

import functools
import io
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, cast, runtime_checkable

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.color import ColorSystem
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.sanitize import strip_sequences
from acp_tui.secrets import redact
from acp_tui.ui.widgets.markdown_lines import Block, BlockLines
from acp_tui.ui.widgets.selectable_strip import with_offsets

FRAME_SECONDS = 1 / 30
"""How often buffered chunks are folded into the rendered lines while a stream is running."""

CODE_THEME = "monokai"
#: Code highlighting under a light theme (a dark code block on a light screen glares).
LIGHT_CODE_THEME = "xcode"  # every token colour reads at 4.5:1 or better on its background

RENDER_LIMIT = 256 * 1024
"""Characters of a message that are rendered. 256 KB is ~1,700 lines at width 156 (a long read, far
beyond any real answer: docs/performance.md's 8,000-chunk answer is 146 KB) and renders in well under a
second in total; the rest is counted and can be saved to a file."""

PIECE_CHARS = 16 * 1024
"""A paragraph longer than this is rendered in pieces of at most this size (~15 ms each with Rich)."""

PARSE_SLICE = 16 * 1024
"""A tail longer than this (a flood that arrived between two frames) is settled a slice at a time, as if
the stream had paused at each slice's last line end: markdown-it's tokens cost ~30 bytes of memory per
character, so the 95 KB that a fast agent sends between two frames would otherwise be ~3 MB of tokens at once."""

FLUSH_BUDGET = 0.1
"""Seconds of finished-block rendering per flush once `MIN_BLOCKS_PER_FLUSH` are done: short enough
that keys still feel answered, long enough that catching up costs few extra frames (each re-lays out)."""

MIN_BLOCKS_PER_FLUSH = 64
"""Blocks always rendered in one flush, so ordinary messages appear whole in a single frame."""

LATE_BUDGET = 0.015
"""Seconds per flush for rendering older blocks above the screen once the newest are shown (the user
follows the end): the next chunks' frame comes first."""

COST_FACTOR = 2.0
"""The next flush waits at least this many times as long as the last one spent on the growing tail
(parsing and rendering it again is the only work that grows with the text, so it sets the pace)."""

_SENTINEL = "\ue000"
"""Prefixed to a paragraph's continuation piece so the parser reads it as paragraph text, not blocks."""


def _control_table() -> dict[int, None]:
    """Characters removed from agent text: C0/C1 controls (but tab and newline), DEL, bidi overrides."""
    codes = [c for c in range(0x20) if c not in (0x09, 0x0A)]
    codes += [0x7F, *range(0x80, 0xA0)]
    codes += [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    return dict.fromkeys(codes)


_CONTROL = _control_table()


def sanitize(text: str) -> str:
    """Remove every character that a terminal could act on, so agent text cannot emit escapes; redact secrets.

    Whole escape sequences go with their payload (a sequence split across two chunks loses its ESC here
    and shows the rest as harmless text); then every remaining control character goes.
    """
    return redact(strip_sequences(text).translate(_CONTROL))


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


_WARM_UP = "".join(
    f"Run `step {language}`:\n\n```{language}\n{code}\n```\n\n"
    for language, code in (
        ("python", "def step(items: list[str]) -> int:\n    return len(items)  # count"),
        ("bash", "ls -la \"$HOME\" | grep -v '^d' && echo done"),
        ("typescript", "const step = (items: string[]): number => items.length;"),
        ("json", '{"step": [1, 2.5, true, null]}'),
        ("diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new"),
    )
)


def warm_up(code_theme: str = CODE_THEME) -> None:
    """Render a small answer with the commonest code blocks once, off screen. Pygments builds a lexer's
    tables and a theme on first use (~30 ms for Python, ~25 ms for TypeScript), which would otherwise
    land on the frame that shows the agent's first answer."""
    console = Console(width=80, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    render_tokens(console, shared_parser().parse(_WARM_UP), 80, False, code_theme)


_warmed: set[str] = set()


def warm_up_once(code_theme: str = CODE_THEME) -> bool:
    """`warm_up` here and now, once per process and theme; whether it ran (acp_tui/ui/chat/warm_up.py calls it in
    the daemon thread it starts once the session is up)."""
    if code_theme in _warmed:
        return False
    _warmed.add(code_theme)
    warm_up(code_theme)
    return True


@functools.cache
def _inline_lexer() -> object:
    """Pygments' plain-text lexer, as Rich would look it up for inline code (found once, shared: it keeps
    no state between texts)."""
    return Syntax("", "text").lexer


class _TokenMarkdown(Markdown):
    """Rich `Markdown` built from already-parsed tokens, so each block is parsed only once."""

    def __init__(self, tokens: list[Token], code_theme: str = CODE_THEME) -> None:
        # Deliberately not calling Markdown.__init__: it builds a new parser and parses again.
        self.markup = ""
        self.parsed = tokens
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        # Inline code takes the code theme's colours (Rich's default is cyan on black, which glares
        # on a light theme); "text" colours nothing but the background. Given by name, Rich looks the
        # lexer up among Pygments' ~600 for every inline code span; the instance is looked up once.
        self.inline_code_lexer = cast(str, _inline_lexer())
        self.inline_code_theme = code_theme


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


def _line_starts(text: str) -> list[int]:
    """Character offset where each line starts (one pass, so many blocks cost linear time)."""
    starts = [0]
    find = text.find
    position = find("\n")
    while position != -1:
        starts.append(position + 1)
        position = find("\n", position + 1)
    return starts


def next_cut(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the paragraph piece starting at `start` ends, if the paragraph text up to `end` is longer
    than `PIECE_CHARS`: (end of this piece, start of the next). It depends only on the `PIECE_CHARS`
    characters after `start`, so streamed and whole renderings cut at the same places."""
    if end - start <= PIECE_CHARS:
        return None
    limit = start + PIECE_CHARS
    lower = limit - PIECE_CHARS // 2
    space = max(text.rfind(" ", lower, limit), text.rfind("\n", lower, limit))
    if space > start:
        return space, space + 1
    return limit, limit  # an unbroken word: hard-cut it


def parse_source(parser: MarkdownIt, source: str, continues: bool) -> list[Token]:
    """Parse a block's source; a continuation piece of a paragraph is parsed as paragraph text."""
    if not continues:
        return parser.parse(source)
    tokens = parser.parse(_SENTINEL + source)
    for token in tokens:
        if token.type == "inline" and token.children is not None:
            children = token.children
            children[0].content = children[0].content.removeprefix(_SENTINEL).lstrip()
            while children and (
                children[0].type in _BREAKS or (children[0].type == "text" and not children[0].content)
            ):
                children.pop(0)
            token.content = token.content.removeprefix(_SENTINEL).lstrip()
            break
    return tokens


_BREAKS = ("softbreak", "hardbreak")


def _is_paragraph(group: _Group) -> bool:
    return group.tokens[0].type == "paragraph_open"


@runtime_checkable
class FollowsEnd(Protocol):
    """A scrolling container that may keep its newest content in view (the conversation)."""

    @property
    def following(self) -> bool: ...


@runtime_checkable
class HoldsView(Protocol):
    """A scrolling container that keeps what the user reads in place while lines are inserted above it."""

    def hold_lines(self, widget: Widget, row: int, count: int) -> None: ...


def format_amount(chars: int) -> str:
    """A human size for a count of characters (they are bytes for ASCII text)."""
    if chars >= 1024 * 1024:
        return f"{chars / (1024 * 1024):.1f} MB"
    if chars >= 1024:
        return f"{chars / 1024:.0f} KB"
    return f"{chars} characters"


def render_tokens(
    console: Console, tokens: list[Token], width: int, muted: bool, code_theme: str = CODE_THEME
) -> list[Strip]:
    """Render markdown tokens to strips exactly `width` cells wide (colours removed if `muted`)."""
    if not tokens or width <= 0:
        return []
    options = console.options.update(width=width, min_width=width, max_width=width, height=None)
    lines = console.render_lines(_TokenMarkdown(tokens, code_theme), options, pad=True)
    # Rich pads some elements with empty lines; blocks are separated by exactly one line instead.
    start, end = 0, len(lines)
    while start < end and _is_empty(lines[start]):
        start += 1
    while end > start and _is_empty(lines[end - 1]):
        end -= 1
    if muted:
        return [Strip(_shared_styles(Segment.remove_color(line)), width) for line in lines[start:end]]
    return [Strip(_shared_styles(line), width) for line in lines[start:end]]


_styles: dict[Style, Style] = {}
"""One `Style` object per distinct style: Rich makes a new one for nearly every segment (a long answer's
lines held ~40,000 equal copies, 3 MB), and the lines are kept."""

MAX_SHARED_STYLES = 4096
"""Distinct styles remembered (a message uses tens; a theme change brings new ones)."""


def _shared_styles(line: Iterable[Segment]) -> list[Segment]:
    """The segments of `line`, each with the shared copy of its style."""
    styles = _styles
    if len(styles) > MAX_SHARED_STYLES:
        styles.clear()
    shared: list[Segment] = []
    for segment in line:
        style = segment.style
        if style is not None:
            common = styles.setdefault(style, style)
            if common is not style:
                segment = Segment(segment.text, common, segment.control)
        shared.append(segment)
    return shared


def code_theme_for(dark: bool, ansi: bool = False) -> str:
    """The Pygments style for code blocks under a dark or a light app theme; under an ANSI theme, Rich's
    ANSI code theme (the terminal's own colours, like everything else then)."""
    if ansi:
        return "ansi_dark" if dark else "ansi_light"
    return CODE_THEME if dark else LIGHT_CODE_THEME


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
        kind: str = "message",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`muted` drops all colours from the rendering, so the widget's own (dim) colour shows;
        `kind` names the text in the truncation note ("message", "thought", ...)."""
        super().__init__(name=name, id=id, classes=classes)
        self._parser = shared_parser()
        self._muted = muted
        self._code_theme = CODE_THEME  # set from the app theme on mount
        self._kind = kind
        self._source = ""
        self._pending: list[str] = []
        self._accepted = 0  # characters taken for rendering (source + pending), at most RENDER_LIMIT
        self._overflow: list[str] = []  # raw chunks beyond RENDER_LIMIT: kept, never rendered
        self._hidden = 0  # characters in _overflow
        self._stable = 0  # offset in _source where the still-growing tail starts
        self._continues = False  # the tail starts inside a paragraph cut into pieces
        self._blocks = BlockLines(self._render_block)  # finished blocks, their layout, some of their lines
        self._catching_up = False  # a `_catch_up` waits for the next refresh
        self._end_first = False  # the last flush rendered the newest blocks first (the user follows the end)
        self._tail_tokens: list[Token] = []
        self._tail_lines: list[Strip] = []
        self._note_lines: list[Strip] = []
        self._dirty = False  # _source changed since the tail was last split and rendered
        self._tail_stale = False  # _tail_tokens changed since they were rendered
        self._note_dirty = False
        self._finished = False
        self._flush_timer: Timer | None = None
        self._last_flush = 0.0
        self._tail_cost = 0.0  # seconds the last flush spent parsing and rendering the growing tail
        if text:
            self._accept(text)

    # -- public API --------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The whole (sanitised) text received so far, including any part not rendered."""
        text = self._source + "".join(self._pending) if self._pending else self._source
        if self._overflow:
            if len(self._overflow) > 1:
                self._overflow[:] = ["".join(self._overflow)]
            text += sanitize(self._overflow[0])
        return text

    @property
    def finished(self) -> bool:
        """Has `finish` been called (the stream ended)?"""
        return self._finished

    @property
    def hidden_chars(self) -> int:
        """How many received characters are not rendered (beyond `RENDER_LIMIT`: then it is truncated)."""
        return self._hidden

    @property
    def line_count(self) -> int:
        """Rendered lines at the current width, including not-yet-flushed text once flushed."""
        return self._blocks.count + len(self._tail_lines) + len(self._note_lines)

    @property
    def cached_blocks(self) -> int:
        """How many blocks are finished, rendered once and cached (the rest is the growing tail)."""
        return self._blocks.rendered_blocks

    @property
    def gap_line(self) -> int | None:
        """The line where older blocks not rendered yet will appear, above newer ones shown already (None
        when there is no such gap): everything from there down moves as they render."""
        done = self._blocks
        return done.prefix_lines if done.unrendered and done.shown_beyond_gap else None

    @property
    def settled(self) -> bool:
        """Is everything received so far rendered (nothing pending, no block waiting for a frame)?"""
        return not (self._pending or self._dirty or self._blocks.unrendered or self._tail_stale or self._note_dirty)

    def append(self, text: str) -> None:
        """Add a chunk; it is rendered at the next frame together with every other pending chunk."""
        if not text:
            return
        self._accept(text)
        self._schedule_flush()

    def set_text(self, text: str) -> None:
        """Replace the whole text (an upsert of the message); renders at the next frame."""
        self._source = ""
        self._pending = []
        self._accepted = 0
        self._overflow = []
        self._hidden = 0
        self._stable = 0
        self._continues = False
        self._blocks.clear()
        self._tail_tokens = []
        self._tail_lines = []
        self._note_lines = []
        self._accept(text)
        self._dirty = True
        self._note_dirty = True
        self._schedule_flush()

    def finish(self) -> None:
        """The stream ended: render what is pending now rather than at the next frame (a hidden stream, a
        folded thought, renders when it is shown)."""
        self._finished = True
        if self.is_mounted and self.display:
            self.flush()

    def flush(self) -> None:
        """Fold pending chunks into the rendered lines now and refresh the display."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        if self._finished and not self.display:
            return  # finished and hidden: rendered at the layout that shows it (`get_content_height`)
        self._take_pending()
        if self.settled:
            return
        width = self._width or self.content_region.width  # (the content width until the first layout decides)
        if width <= 0:
            # Not laid out yet: get_content_height renders everything at the first real width.
            return
        if not self._width:
            self._blocks.reset(width)
        old_count = self.line_count
        self._update(width)
        if self.line_count != old_count:
            self.refresh(layout=True)
        else:
            self.refresh()
        # Measured after the work, so a slow flush still leaves frames for everything else.
        self._last_flush = time.monotonic()
        if self._blocks.unrendered:
            self._schedule_more()

    # -- receiving ---------------------------------------------------------------------------

    def _accept(self, text: str) -> None:
        """Queue a chunk for rendering up to `RENDER_LIMIT`; beyond it only keep and count it."""
        room = RENDER_LIMIT - self._accepted
        if room <= 0:
            self._overflow.append(text)
            self._hidden += len(text)
            self._note_dirty = True
            return
        if len(text) > room:
            self._overflow.append(text[room:])
            self._hidden += len(text) - room
            self._note_dirty = True
            text = text[:room]
        self._pending.append(sanitize(text))
        self._accepted += len(text)

    def _take_pending(self) -> None:
        """Join the buffered chunks onto the source (one join per frame, not one per chunk)."""
        if self._pending:
            self._source += "".join(self._pending)
            self._pending.clear()
            self._dirty = True

    @property
    def _width(self) -> int:
        """The width finished blocks are laid out at (0 until the first layout decides)."""
        return self._blocks.width

    def _schedule_more(self) -> None:
        """Blocks are left to render: the older ones under the newest shown after the next refresh, or the
        next slice in order right after waiting input has been handled."""
        if self._end_first:
            self._schedule_catch_up()
        else:
            self._schedule_flush()

    def _schedule_flush(self) -> None:
        """Flush once per frame at most (chunks arriving within a frame are rendered together), and
        after a slow tail wait in proportion, so re-rendering a big tail never takes most of the time."""
        if self._flush_timer is not None or not self.is_mounted:
            return
        if self._blocks.unrendered and not self._end_first:
            interval = 0.0  # catching up in order: continue as soon as waiting input has been handled
        else:
            interval = max(FRAME_SECONDS, COST_FACTOR * self._tail_cost)
        delay = max(0.001, self._last_flush + interval - time.monotonic())
        self._flush_timer = self.set_timer(delay, self.flush, name="markdown-flush")  # (flush forgets the timer)

    def on_mount(self) -> None:
        """Text given before mounting is rendered at the first frame."""
        self._code_theme = code_theme_for(self.app.current_theme.dark, self.app.current_theme.ansi)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if not self.settled:
            self._schedule_flush()

    def _theme_changed(self, theme: object) -> None:
        """A new theme re-renders with its colours (Markdown styles, and code colours for dark/light)."""
        self._code_theme = code_theme_for(bool(getattr(theme, "dark", True)), bool(getattr(theme, "ansi", False)))
        if self._width:
            self._rerender(self._width)
            self.refresh(layout=True)

    # -- rendering ---------------------------------------------------------------------------

    def _update(self, width: int) -> None:
        """Split new text into finished blocks and the tail, then render what the budget allows."""
        tail_cost = 0.0
        if self._dirty:
            self._dirty = False
            started = time.monotonic()
            self._split_tail()
            tail_cost = time.monotonic() - started
        if not self._render_blocks() and not self._blocks.shown_beyond_gap:
            self._tail_lines = []  # shown once the finished blocks before it are rendered, or the newest are
        elif self._tail_stale:
            self._tail_stale = False
            started = time.monotonic()
            strips = render_tokens(self.app.console, self._tail_tokens, width, self._muted, self._code_theme)
            if strips and self._blocks.count and not self._continues:
                strips.insert(0, Strip.blank(width))
            self._tail_lines = strips
            tail_cost += time.monotonic() - started
        self._tail_cost = tail_cost
        if self._note_dirty:
            self._note_dirty = False
            self._note_lines = self._render_note(width)

    def _split_tail(self) -> None:
        """Parse the tail, queue blocks (and paragraph pieces) that can no longer change, keep the rest.

        A tail longer than `PARSE_SLICE` is first settled a slice at a time (the blocks each slice finishes are
        the ones the stream would have finished had it paused there); the tokens of all but the last slice's
        blocks are let go at once (the newest, shown first, are rendered from the last slice's)."""
        source = self._source
        while len(source) - (stable := self._stable) > PARSE_SLICE:
            end = source.rfind("\n", stable, stable + PARSE_SLICE)
            if end < 0:
                break  # no line end in the slice: parsed whole below
            self._settle(source[stable : end + 1], rest=False)
            if self._stable == stable:
                break  # one block longer than the slice: parsed whole below
            self._blocks.settle()
        self._tail_tokens = self._settle(source[self._stable :], rest=True)
        self._tail_stale = True

    def _settle(self, tail: str, *, rest: bool) -> list[Token]:
        """Queue what of `tail` (the text from `_stable` on) can no longer change and move `_stable` past it;
        with `rest`, return the tokens of what is left (the tail rendered at every flush)."""
        groups = split_blocks(parse_source(self._parser, tail, self._continues))
        starts = _line_starts(tail)
        complete_lines = len(starts) - 1
        done = 0
        while done + 1 < len(groups) and groups[done + 1].start_line < complete_lines:
            done += 1
        offsets = [starts[group.start_line] for group in groups]
        continues = self._continues
        for index in range(done):
            self._queue_group(groups[index], tail, offsets[index], offsets[index + 1], continues and index == 0)
        start = offsets[done] if groups else 0
        continues = continues and done == 0
        left = groups[done:]
        cut_any = False
        if left and _is_paragraph(left[0]):
            end = offsets[done + 1] if len(left) > 1 else len(tail)
            cut = next_cut(tail, start, end)
            while cut is not None:
                self._blocks.queue(Block(tail[start : cut[0]], continues, None))
                start, continues, cut_any = cut[1], True, True
                cut = next_cut(tail, start, end)
        self._stable += start
        self._continues = continues
        if not rest:
            return []
        if cut_any:
            return parse_source(self._parser, tail[start:], continues)
        return [token for group in left for token in group.tokens]

    def _queue_group(self, group: _Group, text: str, start: int, end: int, continues: bool) -> None:
        """Queue a finished block; a long paragraph is queued as the same pieces streaming would cut."""
        if not (_is_paragraph(group) and end - start > PIECE_CHARS):
            self._blocks.queue(Block(text[start:end], continues, group.tokens))
            return
        cut = next_cut(text, start, end)
        while cut is not None:
            self._blocks.queue(Block(text[start : cut[0]], continues, None))
            start, continues = cut[1], True
            cut = next_cut(text, start, end)
        self._blocks.queue(Block(text[start:end], continues, None))

    def _render_blocks(self) -> bool:
        """Render finished blocks for this flush; True when none is left.

        While the user follows the end of the conversation, only the newest blocks (a screen of them) are
        rendered here, so the end of a long answer that arrived at once shows in one frame; the older ones
        are rendered after each refresh, oldest first, above the screen (`_catch_up`). Otherwise they are
        rendered in order, within the flush budget."""
        if not self._blocks.unrendered:
            return True
        self._end_first = self._ends_in_view()
        if self._end_first:
            self._render_end()
        else:
            if self._blocks.shown_beyond_gap:
                self._render_gap_end()
            self._render_older(MIN_BLOCKS_PER_FLUSH, FLUSH_BUDGET)
        return not self._blocks.unrendered

    def _render_end(self) -> None:
        """Render the newest blocks not rendered yet, until they fill a screen."""
        done = self._blocks
        rows, seen, index = self.app.size.height, 0, len(done.blocks) - 1
        while index >= done.prefix and seen < rows:
            if done.blocks[index].height < 0:
                done.render(index)
            seen += done.blocks[index].height + 1
            index -= 1
        done.settle()

    def _render_older(self, least: int, budget: float) -> None:
        """Render the oldest blocks not rendered yet: at least `least`, then until `budget` seconds passed.

        Beyond the gap they fill, newer blocks are shown already: their lines move down, and a conversation
        scrolled up to them is told, so it holds them where the user reads (`HoldsView`)."""
        started = time.monotonic()
        count = 0
        done = self._blocks
        row, last, inserted = done.prefix_lines, done.last_rendered(), 0
        while done.unrendered:
            if count >= least and time.monotonic() - started > budget:
                break
            index = done.prefix
            block = done.blocks[index]
            done.render(index)
            if index < last and block.height:  # in the gap: above lines already shown (and its separator)
                inserted += block.height + (0 if block.continues else 1)
            count += 1
        done.settle()
        self._hold(row, inserted)

    def _render_gap_end(self) -> None:
        """Scrolled up to newer blocks shown before older ones: render the older ones right above them first,
        a screen of them, so the gap moves up out of the view at once instead of a slice a frame in it."""
        done = self._blocks
        row, rows, index, inserted = done.prefix_lines, self.app.size.height, done.last_rendered(), 0
        while index > done.prefix and inserted < rows:
            index -= 1
            block = done.blocks[index]
            if block.height < 0:
                done.render(index)
                if block.height:
                    inserted += block.height + (0 if block.continues else 1)
        done.settle()
        self._hold(row, inserted)

    def _hold(self, row: int, inserted: int) -> None:
        """`inserted` lines went in at `row`, above lines already shown: the conversation keeps those in place."""
        if inserted:
            for node in self.ancestors:
                if isinstance(node, HoldsView):
                    node.hold_lines(self, row, inserted)
                    break

    def _catch_up(self) -> None:
        """After a refresh: render older blocks above the newest ones shown (a slice a frame, so the next
        chunks and keys come first); the view stays at the end while they grow the widget above it."""
        self._catching_up = False
        if not self._blocks.unrendered or not self._width or (self._finished and not self.display):
            return
        if self._blocks.shown_beyond_gap and not self._ends_in_view():
            self._render_gap_end()  # the user scrolled up meanwhile: the blocks above what they read come first
        self._render_older(1, LATE_BUDGET)
        self.refresh(layout=True)
        self._schedule_catch_up()

    def _schedule_catch_up(self) -> None:
        if self._blocks.unrendered and not self._catching_up and self.is_mounted:
            self._catching_up = True
            self.call_after_refresh(self._catch_up)

    def _render_block(self, block: Block) -> list[Strip]:
        """A finished block's lines at the current width (its source parsed again if its tokens are gone)."""
        tokens = block.tokens if block.tokens is not None else parse_source(self._parser, block.source, block.continues)
        return render_tokens(self.app.console, tokens, self._blocks.width, self._muted, self._code_theme)

    def _ends_in_view(self) -> bool:
        """Is this stream inside a container that keeps its newest content in view?"""
        for node in self.ancestors:
            if isinstance(node, FollowsEnd):
                return node.following
        return False

    def _render_note(self, width: int) -> list[Strip]:
        """The line that says how much is not shown and how to get it (empty when nothing is hidden)."""
        if not self._hidden or width <= 0:
            return []
        kind = self._kind
        note = Text(
            f"… {kind} truncated on screen: {format_amount(self._hidden)} more — press s to save the whole {kind}",
            style=Style(italic=True),
        )
        options = self.app.console.options.update(width=width, min_width=width, max_width=width, height=None)
        lines = self.app.console.render_lines(note, options, pad=True)
        return [Strip.blank(width), *(Strip(line, width) for line in lines)]

    def _rerender(self, width: int) -> None:
        """Render every block again at a new width (finished blocks are re-parsed from source)."""
        self._blocks.reset(width)
        self._take_pending()
        self._tail_stale = True
        self._note_dirty = True
        self._update(width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Cheap: the cached line count, unless the width changed (then everything re-wraps)."""
        if width <= 0:
            return 0
        if width != self._width:
            self._rerender(width)
        else:
            if self._finished and self._pending:
                self._take_pending()  # what a hidden, finished stream kept (`flush`) renders as it is shown
            if self._dirty:
                self._update(width)
        if self._blocks.unrendered:
            self._schedule_more()
        return self.line_count

    def _strip_at(self, y: int) -> Strip | None:
        """Line `y`: finished blocks, then the tail, then the truncation note."""
        if y < self._blocks.count:
            return self._blocks.strip_at(y)
        y -= self._blocks.count
        if y < len(self._tail_lines):
            return self._tail_lines[y]
        y -= len(self._tail_lines)
        if y < len(self._note_lines):
            return self._note_lines[y]
        return None

    def render_line(self, y: int) -> Strip:
        """One cached line, in the widget's style, with the user's selection highlighted."""
        width = self.content_region.width
        strip = self._strip_at(y)
        if strip is None:
            return Strip.blank(width, self.rich_style)
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
        return with_offsets(
            strip.apply_style(self.rich_style), y, self.app.console._color_system or ColorSystem.TRUECOLOR
        )

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the rendered text (what the user sees, not the markdown source)."""
        return selection.extract("\n".join(self.rendered_lines())), "\n"

    def rendered_lines(self) -> list[str]:
        """Plain text of every rendered line (for tests and copy), trailing spaces removed."""
        return [strip.text.rstrip() for strip in self.rendered_strips()]

    def rendered_strips(self) -> list[Strip]:
        """Every rendered line as a Strip (for tests that look at styles)."""
        done = self._blocks
        finished = [strip for y in range(done.count) if (strip := done.strip_at(y)) is not None]
        return [*finished, *self._tail_lines, *self._note_lines]
