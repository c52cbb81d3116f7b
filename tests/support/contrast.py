"""Colour contrast of what the screen shows (WCAG ratio), per text segment."""

from __future__ import annotations

from collections.abc import Iterator

from rich.segment import Segment
from textual.color import Color
from textual.geometry import Region
from textual.screen import ModalScreen

from acp_tui.ui.app import AcpApp

#: WCAG 2.x success criterion 1.4.3 (contrast, minimum) for normal-size text.
MINIMUM = 4.5


def relative_luminance(colour: Color) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def contrast_ratio(foreground: Color, background: Color) -> float:
    """WCAG 2 contrast ratio, from 1 (none) to 21 (black on white)."""
    lighter, darker = sorted((relative_luminance(foreground), relative_luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def is_text(character: str) -> bool:
    """A cell that carries text or a meaningful glyph (not a space, border, block or scrollbar piece)."""
    if character.isspace():
        return False
    return not 0x2500 <= ord(character) <= 0x259F  # box drawing and block elements


def text_segments(app: AcpApp, region: Region | None = None) -> Iterator[tuple[int, str, Color, Color]]:
    """(row, text, foreground, background) of every text segment the terminal is sent."""
    variables = app.theme_variables
    default_fg = Color.parse(variables["foreground"])
    default_bg = Color.parse(variables["background"])
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        if region is not None and not region.y <= y < region.bottom:
            continue
        x = 0
        for segment in strip:
            text, style = segment.text, segment.style
            start, x = x, x + Segment(text).cell_length
            if region is not None:
                text = _clip(text, start, region)
            if not any(is_text(c) for c in text):
                continue
            fg = Color.from_rich_color(style.color) if style is not None and style.color else default_fg
            bg = Color.from_rich_color(style.bgcolor) if style is not None and style.bgcolor else default_bg
            if style is not None and style.reverse:
                fg, bg = bg, fg
            if style is not None and style.dim:  # left to the terminal: assume it halves the contrast
                fg = bg.blend(fg, 0.5)
            yield y, text, fg, bg


def _clip(text: str, start: int, region: Region) -> str:
    """The part of a segment starting at column `start` that lies inside `region` (one cell per char)."""
    return "".join(c for i, c in enumerate(text) if region.x <= start + i < region.right)


def low_contrast(app: AcpApp, where: str, region: Region | None = None) -> list[str]:
    """One line per text segment below the minimum, naming the theme, the place and the colours."""
    failures = []
    for y, segment, fg, bg in text_segments(app, region):
        ratio = contrast_ratio(fg, bg)
        if ratio < MINIMUM:
            failures.append(
                f"{app.theme} {where} (row {y}): {segment.strip()[:40]!r} {fg.hex} on {bg.hex} = {ratio:.2f}"
            )
    return failures


def dialog_region(app: AcpApp) -> Region:
    """The region of a modal screen's dialog (its own first child, not Textual's toast rack or tooltip);
    the faded screen around it is not checked."""
    screen = app.screen
    assert isinstance(screen, ModalScreen)
    [dialog, *_] = [child for child in screen.children if not (child.id or "").startswith("textual-")]
    return dialog.region
