"""Lines the client itself writes into the conversation: the agent stopped, restarted, a request closed.

They are the client's voice, visually distinct from anything the agent sends; any agent text they
quote (an exit reason, stderr lines) is sanitized and shown as plain text.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from acp_tui.sanitize import multiline, plain


class SystemLine(Static):
    """A dim one-liner (severity "info"), or a framed banner ("warning"/"error") with optional detail."""

    DEFAULT_CSS = """
    SystemLine {
        color: $text-muted;
        padding: 0 1;
    }
    SystemLine.-warning {
        border-left: thick $warning;
        color: $foreground;
        background: $warning 10%;
    }
    SystemLine.-error {
        border-left: thick $error;
        color: $foreground;
        background: $error 10%;
    }
    """

    def __init__(self, message: str, *, detail: str = "", severity: str = "info") -> None:
        text = Text("⏺ " if severity == "info" else "■ ", style="bold")
        text.append(plain(message), style="bold" if severity != "info" else "")
        if detail:
            text.append("\n")
            text.append(multiline(detail), style="dim")
        super().__init__(text, classes=f"-{severity}")
        self.message = message
