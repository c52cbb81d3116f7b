"""Load the palettes shipped beside this module (the `*.toml` files of `acp_tui.ui.themes`) as Textual themes.

A palette is a TOML file of Textual's theme colours plus extra `[variables]`; widgets style
themselves only through these variables, so a theme is nothing but a palette. A palette with
`ansi = true` (acp-ansi) names the terminal's own ANSI colours, for terminals with 16 colours. The `ansi-*`
variables also give agent terminal output its ANSI colours (`ansi_terminal_theme`).
"""

from __future__ import annotations

import tomllib
from importlib import resources

from rich.terminal_theme import TerminalTheme
from textual.color import Color, ColorParseError
from textual.theme import Theme

_COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
    "boost",
)
#: The ANSI colour names, in SGR order (30-37); a palette sets each as an `ansi-NAME` variable.
ANSI_NAMES = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")


def load_shipped_themes() -> list[Theme]:
    """Every `*.toml` palette in this package, sorted by name; unreadable files are skipped."""
    themes: list[Theme] = []
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        try:
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        themes.append(theme_from_palette(data, fallback_name=entry.name.removesuffix(".toml")))
    return themes


def theme_names() -> list[str]:
    """Every theme `--theme` and `theme =` may name: ours first, then Textual's built-in ones."""
    from textual.theme import BUILTIN_THEMES

    ours = [theme.name for theme in load_shipped_themes()]
    return [*ours, *sorted(name for name in BUILTIN_THEMES if name not in ours)]


def theme_from_palette(data: dict[str, object], *, fallback_name: str) -> Theme:
    """Build a Textual `Theme` from a palette mapping (unknown keys ignored)."""
    colours = {key: str(data[key]) for key in _COLOUR_KEYS if key in data}
    variables = data.get("variables", {})
    return Theme(
        name=str(data.get("name", fallback_name)),
        dark=bool(data.get("dark", True)),
        ansi=bool(data.get("ansi", False)),
        variables={str(k): str(v) for k, v in variables.items()} if isinstance(variables, dict) else {},
        **colours,  # type: ignore[arg-type]
    )


def theme_colour(value: str, under: Color, opacity: float = 1.0) -> Color:
    """A theme variable's value ("#rrggbb", "#rrggbbaa", "auto 60%") as an opaque colour over `under`,
    drawn at `opacity` (for styles built in code, where Textual's alpha and `auto` colours do not reach).

    An ANSI colour (`ansi_green`, an ANSI palette's) is the terminal's own: it is used as it is, never
    blended, and a tint of it (`opacity` below 1) is no tint at all."""
    try:
        if value.startswith("auto"):
            percent = value.removeprefix("auto").strip().rstrip("%")
            colour = under.get_contrast_text(float(percent) / 100 if percent else 0.95)
        else:
            colour = Color.parse(value)
    except (ValueError, ColorParseError):
        colour = under.get_contrast_text(0.6)
    if colour.ansi is not None or under.ansi is not None:
        return colour if opacity >= 1 else under
    return under + colour.multiply_alpha(opacity)


def ansi_terminal_theme(theme: Theme) -> TerminalTheme | None:
    """The ANSI colours a palette gives agent terminal output, or None when it does not set all eight.

    Textual maps ANSI colours through one fixed terminal theme per light/dark; ours are chosen with the
    palette, so a red `1 failed` from pytest stays readable on the palette's own surface.
    """
    try:
        colours = [Color.parse(theme.variables[f"ansi-{name}"]).rgb for name in ANSI_NAMES]
        background = Color.parse(theme.background or "").rgb
        foreground = Color.parse(theme.foreground or "").rgb
    except (KeyError, ColorParseError):
        return None
    return TerminalTheme(background, foreground, colours, colours)
