"""The plan in progress, kept in sight above the prompt while the agent works through it.

The timeline keeps the plan's history (`PlanView`); this panel shows the newest plan of the running
turn while it has entries left to do, so it does not scroll away with the conversation. Open, it is a
header and the checklist; closed, one line: `Plan 3/7 · Run the tests ▸`. It opens by default when the
screen is tall enough to spare the rows, and Enter or a click toggles it (the user's choice then
stands). It goes away when every entry is done or the turn ends.

The plan is shown once: while the panel shows its checklist, the plan's view in the timeline is its
header alone, "Plan 1/3 · in progress, above the prompt" (`PlanView.set_in_panel`); once the panel
goes or folds to its line, the timeline shows the checklist again, where it stays as history.

`StatusRenderer` drives it (`show`, `clear`); the plan's text is agent data, sanitized and drawn as
plain `Text`.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from acp_tui.protocol.v2 import PlanItems
from acp_tui.session.model import EntityKey, Plan
from acp_tui.ui.widgets.content_blocks import TextStatic
from acp_tui.ui.widgets.icons import GLYPHS
from acp_tui.ui.widgets.plan_view import PlanEntries, PlanView, plan_progress

__all__ = ["OPEN_FROM_HEIGHT", "PlanPanel"]

#: Screens at least this tall show the panel open; shorter ones show its one line.
OPEN_FROM_HEIGHT: Final = 40


class PlanPanel(Vertical, can_focus=True):
    """The running turn's plan: one line, or the line and its checklist."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Show or hide the plan", show=False)]

    DEFAULT_CSS = """
    PlanPanel {
        height: auto;
        max-height: 12;
        margin: 0 1;
        padding: 0 1;
        background: $boost;  /* set apart from the prompt's surface below it */
        display: none;
    }
    PlanPanel.-shown { display: block; }
    PlanPanel:focus { background: $surface; }
    PlanPanel > .plan-panel--line { color: $text-muted; }
    PlanPanel > PlanEntries { display: none; padding-left: 2; }
    PlanPanel.-expanded > PlanEntries { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.plan: Plan | None = None
        self._line = TextStatic(classes="plan-panel--line")
        self.entries = PlanEntries(None, priorities=False)
        self._user_expanded: bool | None = None
        self._line_plain = ""
        self._in_full: EntityKey | None = None  # the plan whose checklist the panel shows

    def compose(self) -> ComposeResult:
        yield self._line
        yield self.entries

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    @property
    def line_text(self) -> str:
        """The one line as plain text (for tests)."""
        return self._line_plain

    def show(self, plan: Plan) -> None:
        """The agent sent or changed a plan during the turn: show it while entries are left to do."""
        items = plan.plan
        if not isinstance(items, PlanItems) or not (
            plan.more > plan.more_done or any(entry.status not in ("completed", "cancelled") for entry in items.entries)
        ):
            if self.plan is None or self.plan.key == plan.key:
                self.clear()  # this plan is done (or cannot be shown): nothing in progress to keep in sight
            return
        self.plan = plan
        if not self.shown:
            wanted = self._user_expanded
            if wanted is None:
                wanted = self.screen.size.height >= OPEN_FROM_HEIGHT if self.is_attached else True
            self.set_class(wanted, "-expanded")
        self.add_class("-shown")
        self.entries.set_items(items, plan.more)
        self._update_line(items)
        self._announce()

    def clear(self) -> None:
        """The turn ended or the plan is done: the timeline keeps its history."""
        self.plan = None
        self.remove_class("-shown")
        self.entries.set_items(None)
        self._announce()

    @property
    def in_full(self) -> EntityKey | None:
        """The key of the plan whose checklist the panel shows now (`None`: none, or just its line)."""
        return self._in_full

    def _announce(self) -> None:
        """Tell the timeline's plan views which plan the panel shows in full (they then show only a header)."""
        key = self.plan.key if self.plan is not None and self.shown and self.expanded else None
        if key == self._in_full:
            return
        self._in_full = key
        if self.is_attached:
            for view in self.screen.query(PlanView):
                view.set_in_panel(view.plan.key == key)

    def _update_line(self, items: PlanItems) -> None:
        more = self.plan.more if self.plan is not None else 0
        done, total, current = plan_progress(items, more, self.plan.more_done if self.plan is not None else 0)
        line = Text(f"Plan {done}/{total}", style="bold")
        if current:
            line.append(" · ")
            line.append(current)
        line.append(f" {GLYPHS['open'] if self.expanded else GLYPHS['closed']}")
        self._line_plain = line.plain
        self._line.update(line)

    def action_toggle_open(self) -> None:
        self._user_expanded = not self.expanded
        self.set_class(self._user_expanded, "-expanded")
        if self.plan is not None and isinstance(self.plan.plan, PlanItems):
            self._update_line(self.plan.plan)
        self._announce()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_open()
