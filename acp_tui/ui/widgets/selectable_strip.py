"""A rendered line made selectable, at a cost that does not grow with how often its place changes.

Textual maps the mouse to text through an `offset` in each segment's style meta (`Strip.apply_offsets`).
Two of its caches keep what that makes: the line caches up to four offset copies of itself, and the terminal
render looks each new style's ANSI codes up in a cache of 16,384 styles (`Strip.render_ansi`). A long answer
that grows above the screen (its older blocks rendered while the view stays at the end) moves every shown
line down at each frame, so each frame made a new style per segment, and both caches filled: 11 MB for the
8,000-chunk answer of docs/performance.md, kept for the life of the app.

`with_offsets` makes the same strip without caching it on the line, and gives each new style the ANSI codes
of the style it extends (an offset is meta only: it changes no colour or attribute). Those are looked up by
the extended style, of which a widget has few, so the terminal render needs no lookup of the new one. What
is kept is what Textual keeps for the lines on screen until the next refresh.
"""

from __future__ import annotations

from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip


def with_offsets(strip: Strip, y: int, color_system: ColorSystem) -> Strip:
    """`strip.apply_offsets(0, y)`, not cached on `strip`, each new style carrying its ANSI codes for
    `color_system` (the console's, as `Strip.render` uses)."""
    segments: list[Segment] = []
    x = 0
    for text, style, _ in strip:
        offset = Style.from_meta({"offset": (x, y)})
        if style:
            combined = style + offset
            combined._ansi = Strip.render_ansi(style, color_system)
            segments.append(Segment(text, combined))
        else:
            offset._ansi = ""  # meta only: no codes
            segments.append(Segment(text, offset))
        x += len(text)
    return Strip(segments, strip.cell_length)
