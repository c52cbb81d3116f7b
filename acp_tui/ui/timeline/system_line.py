"""Lines the client itself writes into the conversation: the agent stopped, restarted, a turn failed.

They are the client's voice, visually distinct from anything the agent sends; any agent text they
quote (an exit reason, stderr lines) is sanitized and shown as plain text.

One glyph per line (README, "Glyphs"): a line that opens with a status glyph of the table ("⊘
cancelled") keeps it; any other line gets its severity's (`·` info, `⚠` warning, `✗` error), so a
line never shows two.
"""

from __future__ import annotations

from typing import Final

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from acp_tui.sanitize import multiline, plain
from acp_tui.ui.themes import theme_colour
from acp_tui.ui.widgets.icons import GLYPHS, leading_glyph

#: The glyph of a line that does not name its own, by severity.
SEVERITY_GLYPHS: Final[dict[str, str]] = {
    "info": GLYPHS["note"],
    "warning": GLYPHS["attention"],
    "error": GLYPHS["failed"],
}
#: The theme colour of each glyph (by its meaning, whatever the line's severity).
GLYPH_COLOURS: Final[dict[str, str]] = {
    GLYPHS["done"]: "success",
    GLYPHS["failed"]: "error",
    GLYPHS["cancelled"]: "text-muted",
    GLYPHS["running"]: "warning",
    GLYPHS["pending"]: "text-muted",
    GLYPHS["paused"]: "text-muted",
    GLYPHS["attention"]: "warning",
    GLYPHS["ready"]: "success",
    GLYPHS["stopped"]: "error",
    GLYPHS["note"]: "text-muted",
    GLYPHS["problem"]: "warning",
}


class SystemLine(Static):
    """A muted one-liner (severity "info"), or a tinted line ("warning"/"error") with optional detail."""

    DEFAULT_CSS = """
    SystemLine {
        color: $text-muted;
        padding: 0 1;
    }
    SystemLine.-warning {
        color: $foreground;
        background: $warning 8%;
        margin: 1 0 0 0;
    }
    SystemLine.-error {
        color: $foreground;
        background: $error 10%;
        margin: 1 0 0 0;
    }
    SystemLine:ansi { background: transparent; }  /* an ANSI colour cannot be a tint */
    """

    def __init__(self, message: str, *, detail: str = "", severity: str = "info") -> None:
        glyph, rest = leading_glyph(plain(message))
        self.glyph = glyph or SEVERITY_GLYPHS.get(severity, GLYPHS["note"])
        self.severity = severity
        self._text = rest
        self._detail = multiline(detail) if detail else ""
        super().__init__(self._line(Style()), classes=f"-{severity}")
        self.message = message

    def _line(self, glyph_style: Style) -> Text:
        text = Text()
        text.append(self.glyph, style=glyph_style + Style(bold=True))  # the glyph's colour, not the line's
        text.append(" ")
        text.append(self._text, style="bold" if self.severity != "info" else "")
        if self._detail:
            text.append("\n")
            text.append(self._detail, style="dim")
        return text

    def render(self) -> Text:
        """The line, its glyph coloured from the theme by what it means."""
        variables = self.app.theme_variables
        colour = variables.get(GLYPH_COLOURS.get(self.glyph, "text-muted"), "auto 60%")
        return self._line(Style(color=theme_colour(colour, self.background_colors[1]).rich_color))
