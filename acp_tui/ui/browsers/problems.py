"""The protocol problems list: what the agent sent that we could not use, with the raw lines."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Log, Static

from acp_tui.sanitize import plain


class ProblemsScreen(ModalScreen[None]):
    """A modal log of protocol problems (newest last); Escape closes it."""

    DEFAULT_CSS = """
    ProblemsScreen {
        align: center middle;
    }
    ProblemsScreen > Vertical {
        width: 90%;
        height: 80%;
        border: round $warning;
        background: $surface;
        padding: 0 1;
    }
    ProblemsScreen Log {
        height: 1fr;
        background: $surface;
    }
    """

    BINDINGS = [Binding("escape,q,f3", "dismiss", "Close")]

    def __init__(self, problems: list[Any], total: int) -> None:
        super().__init__()
        self._problems = problems
        self._total = total

    def compose(self) -> ComposeResult:
        with Vertical():
            shown = len(self._problems)
            summary = f"{self._total} protocol problem{'s' if self._total != 1 else ''}"
            if shown < self._total:
                summary += f" (the newest {shown} are kept)"
            # True whether the agent still runs or not: each was skipped, and acp-tui did not stop for it.
            yield Static(Text(summary + " — each was left out; acp-tui carried on. Esc closes.", style="bold"))
            log = Log(max_lines=20_000)
            yield log

    def on_mount(self) -> None:
        log = self.query_one(Log)
        lines: list[str] = []
        for problem in self._problems:
            lines.append(f"⚑ {plain(problem.reason)}")
            detail = plain(problem.detail)
            if detail:
                lines.append(f"    {detail[:2000]}")
        log.write_lines(lines or ["no problems so far"])

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
