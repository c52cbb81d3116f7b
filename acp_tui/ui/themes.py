"""Load the palettes shipped in `themes/` (installed as `acp_tui.themes`) as Textual themes.

A palette is a TOML file of Textual's theme colours plus extra `[variables]`; widgets style
themselves only through these variables, so a theme is nothing but a palette.
"""

from __future__ import annotations

import tomllib
from importlib import resources

from textual.theme import Theme

_COLOUR_KEYS = (
    "primary", "secondary", "accent", "foreground", "background",
    "surface", "panel", "success", "warning", "error", "boost",
)


def load_shipped_themes() -> list[Theme]:
    """Every `*.toml` palette in `acp_tui.themes`, sorted by name; unreadable files are skipped."""
    themes: list[Theme] = []
    for entry in sorted(resources.files("acp_tui.themes").iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        try:
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        themes.append(theme_from_palette(data, fallback_name=entry.name.removesuffix(".toml")))
    return themes


def theme_from_palette(data: dict[str, object], *, fallback_name: str) -> Theme:
    """Build a Textual `Theme` from a palette mapping (unknown keys ignored)."""
    colours = {key: str(data[key]) for key in _COLOUR_KEYS if key in data}
    variables = data.get("variables", {})
    return Theme(
        name=str(data.get("name", fallback_name)),
        dark=bool(data.get("dark", True)),
        variables={str(k): str(v) for k, v in variables.items()} if isinstance(variables, dict) else {},
        **colours,  # type: ignore[arg-type]
    )
