"""`with_offsets`: Textual's `apply_offsets`, without what made a growing answer keep 11 MB."""

from __future__ import annotations

import io

from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.widgets.selectable_strip import with_offsets

CONSOLE = Console(file=io.StringIO(), color_system="truecolor", force_terminal=True)


def line() -> Strip:
    return Strip(
        [
            Segment("def ", Style(color="red", bold=True)),
            Segment("name", None),
            Segment(" = ", Style(color="#00ff00", bgcolor="#101010", italic=True)),
            Segment("é1", Style(underline=True)),
        ]
    )


def test_the_strip_is_textuals_own_offsets_strip() -> None:
    """Same text, same styles (the offset meta included), same terminal output, at every y."""
    for y in (0, 1, 37, 4000):
        ours = with_offsets(line(), y, ColorSystem.TRUECOLOR)
        theirs = line().apply_offsets(0, y)
        assert [(segment.text, segment.style) for segment in ours] == [
            (segment.text, segment.style) for segment in theirs
        ]
        assert [segment.style.meta["offset"] for segment in ours if segment.style] == [(0, y), (4, y), (8, y), (11, y)]
        assert ours.render(CONSOLE) == theirs.render(CONSOLE)
        assert ours.cell_length == theirs.cell_length


def test_a_line_moving_down_every_frame_leaves_nothing_in_textuals_caches() -> None:
    """The line itself keeps no offset copy, and the terminal render looks up no new style: rendering the same
    line at a thousand places grows neither (Textual's `apply_offsets` grows both, to 16,384 styles)."""
    shown = line()
    with_offsets(shown, 0, ColorSystem.TRUECOLOR).render(CONSOLE)  # the line's own styles are looked up once
    looked_up = Strip.render_ansi.cache_info().currsize
    for y in range(1, 1000):
        with_offsets(shown, y, ColorSystem.TRUECOLOR).render(CONSOLE)
    assert Strip.render_ansi.cache_info().currsize == looked_up
    assert shown.apply_offsets(0, 5) is shown.apply_offsets(0, 5)  # (Textual's does cache on the line ...)
    assert Strip.render_ansi.cache_info().currsize == looked_up
    shown.apply_offsets(0, 5).render(CONSOLE)
    assert Strip.render_ansi.cache_info().currsize > looked_up  # (... and looks each new style up)
