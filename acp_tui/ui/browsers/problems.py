"""The protocol problems list: what the agent sent that we could not use, with the raw lines.

Reasons and raw lines wrap (a raw line cut at the border hid what was wrong with it); the summary says
what is true now: while the agent runs acp-tui carried on past each problem, once it stopped it says so.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

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
    ProblemsScreen VerticalScroll {
        height: 1fr;
        background: $surface;
    }
    ProblemsScreen .problems--list { width: 1fr; }
    """

    #: Characters of one raw line shown (it wraps; the inspector, F8, has the whole frame).
    DETAIL_LIMIT = 2000

    BINDINGS = [Binding("escape,q,f3", "dismiss", "Close")]

    def __init__(self, problems: list[Any], total: int, *, agent_stopped: bool = False) -> None:
        super().__init__()
        self._problems = problems
        self._total = total
        self._stopped = agent_stopped

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.summary, style="bold"), classes="problems--summary")
            with VerticalScroll():
                yield Static(Text(self.text), classes="problems--list")

    @property
    def summary(self) -> str:
        """The heading: how many, and what became of the session (true in the state it is read in)."""
        shown = len(self._problems)
        summary = f"{self._total} protocol problem{'s' if self._total != 1 else ''}"
        if shown < self._total:
            summary += f" (the newest {shown} are kept)"
        if self._stopped:
            return summary + " — each was left out. The agent has stopped: Ctrl+R restarts it. Esc closes."
        return summary + " — each was left out; acp-tui carried on. Esc closes."

    @property
    def text(self) -> str:
        """The problems, newest last: each reason, and under it the raw line (sanitized, wrapped when shown)."""
        lines: list[str] = []
        for problem in self._problems:
            lines.append(f"⚑ {plain(problem.reason)}")
            detail = plain(problem.detail)
            if detail:
                lines.append(f"    {detail[: self.DETAIL_LIMIT]}")
        return "\n".join(lines or ["no problems so far"])

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()  # PageUp/PageDown and the arrows scroll a long list

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
