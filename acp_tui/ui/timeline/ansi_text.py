"""Turn decoded terminal segments into Rich `Text`: styles come from the SGR state, never from markup.

The decoder (`acp_tui.ansi`) has already removed every control sequence, so the text is appended as
plain strings; `Text.from_markup` and `Text.from_ansi` are never used on agent output.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from rich.color import Color as RichColor
from rich.style import Style
from rich.text import Text

from acp_tui.ansi import PLAIN, Color, Segment, SgrStyle

__all__ = ["rich_style", "segments_to_text", "append_segments"]


def _rich_color(color: Color | None) -> RichColor | None:
    if color is None:
        return None
    if isinstance(color, tuple):
        return RichColor.from_rgb(*color)
    return RichColor.from_ansi(color)


@lru_cache(maxsize=1024)
def rich_style(sgr: SgrStyle) -> Style:
    """The Rich style for an SGR state (cached: terminal output reuses a handful of styles)."""
    if sgr == PLAIN:
        return Style.null()
    return Style(
        color=_rich_color(sgr.fg),
        bgcolor=_rich_color(sgr.bg),
        bold=sgr.bold or None,
        dim=sgr.dim or None,
        italic=sgr.italic or None,
        underline=sgr.underline or None,
        reverse=sgr.reverse or None,
        strike=sgr.strike or None,
    )


def append_segments(text: Text, segments: Iterable[Segment]) -> Text:
    """Append segments to an existing `Text` (for streamed chunks); returns the same object."""
    for segment in segments:
        if segment.style == PLAIN:
            text.append(segment.text)
        else:
            text.append(segment.text, rich_style(segment.style))
    return text


def segments_to_text(segments: Iterable[Segment]) -> Text:
    """A new `Text` holding the segments, with `end=""` so appended chunks do not gain newlines."""
    return append_segments(Text(end=""), segments)
