"""Rich's Markdown styles taken from the app theme, so agent answers wear the palette too.

Rich renders Markdown with its own named styles (`markdown.h1`, `markdown.link`, ...) in fixed ANSI
colours; pushing this theme on the app's console maps them onto the theme variables instead.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.theme import Theme


def rich_colour_name(value: str) -> str:
    """A theme colour as Rich reads it: hex stays, Textual's `ansi_bright_blue` becomes `bright_blue`
    (an ANSI theme's colours are the terminal's own), and `ansi_default` becomes `default`."""
    return value.removeprefix("ansi_") if value.startswith("ansi_") else value


def markdown_theme(variables: Mapping[str, str]) -> Theme:
    """Rich styles for Markdown elements built from Textual theme variables (hex or ANSI colours)."""
    primary = rich_colour_name(variables.get("primary", "blue"))
    secondary = rich_colour_name(variables.get("secondary", primary))
    accent = rich_colour_name(variables.get("accent", primary))
    return Theme(
        {
            "markdown.h1": f"bold underline {primary}",
            "markdown.h2": f"bold {primary}",
            "markdown.h3": f"bold {secondary}",
            "markdown.h4": f"italic {secondary}",
            "markdown.h5": "italic",
            "markdown.h6": "dim",
            "markdown.block_quote": f"italic {secondary}",
            "markdown.list": primary,
            "markdown.item.bullet": f"bold {primary}",
            "markdown.item.number": f"bold {primary}",
            "markdown.link": f"underline {accent}",
            "markdown.link_url": accent,
            "markdown.table.border": secondary,
            "markdown.table.header": f"bold {primary}",
            "markdown.kbd": f"bold {accent}",
            "markdown.hr": "dim",
        },
        inherit=True,
    )
