"""An agent plan (docs/protocol.md §7): a checklist whose entries are replaced whole on every update.

Each entry shows its status glyph (`GLYPHS`: ○ pending, ◐ in progress, ✓ completed, ⊘ cancelled, "?"
plus the value for an unknown status) and its priority (high stands out, medium and low stay quiet,
anything else is shown as sent). While the `PlanPanel` above the prompt shows a plan's checklist, its
view in the timeline is only its header ("in progress, above the prompt"): the plan shows once; the view
in the timeline is its history.
A plan variant this client does not know shows "plan (unsupported format: type)" and opens (click or
Enter) to its raw JSON. Entry text is agent data: sanitized and drawn as plain `Text`.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget

from acp_tui.protocol.v2 import PlanItems, UnknownPlan
from acp_tui.sanitize import plain
from acp_tui.session.model import Plan
from acp_tui.ui.widgets.content_blocks import (
    MAX_JSON_LINES,
    TextStatic,
    head_lines,
    more_lines_text,
    pretty_json,
)
from acp_tui.ui.widgets.icons import plan_status_glyph, priority_variant

__all__ = ["PlanView", "PlanEntries", "more_entries_line", "plan_lines", "plan_progress"]

_COMPONENTS = (
    "plan--high",
    "plan--medium",
    "plan--low",
    "plan--unknown",
    "plan--done",
    "plan--glyph-done",
    "plan--glyph-running",
    "plan--glyph-pending",
)
_GLYPH_VARIANTS: Final = {"completed": 0, "in_progress": 1}


def plan_progress(items: PlanItems, more: int = 0, more_done: int = 0) -> tuple[int, int, str | None]:
    """(completed entries, all entries, the entry in progress, else the first pending one); `more` entries
    the model left out (`Plan.more`, `more_done` of them completed) count too."""
    done = sum(1 for entry in items.entries if entry.status == "completed") + more_done
    current = next((entry for entry in items.entries if entry.status == "in_progress"), None)
    if current is None:
        current = next((entry for entry in items.entries if entry.status == "pending"), None)
    return done, len(items.entries) + more, plain(current.content) if current is not None else None


def more_entries_line(more: int) -> str:
    """The line that stands for the entries the model left out (`Plan.more`)."""
    return f"… {more:,} more entr{'ies' if more != 1 else 'y'} not shown"


def plan_lines(items: PlanItems, more: int = 0) -> list[str]:
    """The plan as plain text lines: glyph, content, priority (for tests, copying and saving)."""
    lines = []
    for entry in items.entries:
        glyph, unknown_status = plan_status_glyph(entry.status)
        status = f" {unknown_status}" if unknown_status is not None else ""
        lines.append(f"{glyph}{status} {plain(entry.content)}  [{plain(entry.priority)}]")
    if more:
        lines.append(more_entries_line(more))
    return lines


class PlanEntries(Widget):
    """The checklist of a `PlanItems`, drawn as one `Text` coloured through component classes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(_COMPONENTS)

    DEFAULT_CSS = """
    PlanEntries { height: auto; width: 1fr; }
    PlanEntries > .plan--high { color: $warning; }
    PlanEntries > .plan--medium { text-style: dim; }
    PlanEntries > .plan--low { text-style: dim; }
    PlanEntries > .plan--unknown { color: $secondary; }
    PlanEntries > .plan--done { text-style: dim; }
    PlanEntries > .plan--glyph-done { color: $success; }
    PlanEntries > .plan--glyph-running { color: $warning; text-style: bold; }
    PlanEntries > .plan--glyph-pending { text-style: dim; }
    """

    def __init__(self, items: PlanItems | None, *, priorities: bool = True) -> None:
        super().__init__()
        self.items = items
        self.priorities = priorities
        #: entries the model left out (`Plan.more`): one "… N more entries" line
        self.more = 0
        self._cache: tuple[tuple[Style, ...], Text] | None = None

    def set_items(self, items: PlanItems | None, more: int = 0) -> None:
        """Replace all entries (the plan was updated)."""
        self.items = items
        self.more = more
        self._cache = None
        self.refresh(layout=True)

    def render(self) -> Text:
        styles = tuple(self.get_component_rich_style(name, partial=True) for name in _COMPONENTS)
        if self._cache is None or self._cache[0] != styles:
            self._cache = (styles, self._build(*styles))
        return self._cache[1]

    def _build(
        self,
        high: Style,
        medium: Style,
        low: Style,
        unknown: Style,
        done: Style,
        glyph_done: Style,
        glyph_running: Style,
        glyph_pending: Style,
    ) -> Text:
        text = Text(end="")
        glyph_styles = (glyph_done, glyph_running)
        if self.items is None:
            return text
        priority_styles = {"high": high, "medium": medium, "low": low, "unknown": unknown}
        if not self.items.entries:
            return Text("(empty plan)", style=done, end="")
        for index, entry in enumerate(self.items.entries):
            if index:
                text.append("\n")
            glyph, unknown_status = plan_status_glyph(entry.status)
            variant = _GLYPH_VARIANTS.get(entry.status)
            text.append(glyph, glyph_styles[variant] if variant is not None else glyph_pending)
            if unknown_status is not None:
                text.append(f" {unknown_status}", unknown)
            text.append(" ")
            finished = entry.status in ("completed", "cancelled")
            text.append(plain(entry.content), done if finished else Style())
            if self.priorities and not finished:
                text.append("  ")
                text.append(plain(entry.priority), priority_styles[priority_variant(entry.priority)])
        if self.more:
            text.append("\n")
            text.append(more_entries_line(self.more), done)
        return text


class PlanView(Vertical, can_focus=True):
    """One plan by id; `apply_fields` re-renders it in place when the model replaced it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Expand", show=False)]

    DEFAULT_CSS = """
    PlanView {
        height: auto;
        width: 1fr;
        margin: 1 0;
        padding: 0 1;
    }
    PlanView:focus { background: $boost; outline-left: thick $primary; }
    PlanView > .plan--header { color: $text-muted; text-style: bold; }
    PlanView > PlanEntries { padding-left: 2; }
    PlanView.-in-panel > PlanEntries { display: none; }
    PlanView > .plan--raw { display: none; color: $text-muted; background: $boost; }
    PlanView.-unsupported.-expanded > .plan--raw { display: block; }
    PlanView.-unsupported > PlanEntries { display: none; }
    """

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan
        self._header = TextStatic(classes="plan--header")
        self.entries = PlanEntries(None)
        self._raw = TextStatic(classes="plan--raw")
        self._header_plain = ""
        self.refresh_plan()

    def compose(self) -> ComposeResult:
        yield self._header
        yield self.entries
        yield self._raw

    def on_mount(self) -> None:
        # a plan that starts while the panel already shows it (the panel tells the views it knows of)
        for panel in self.screen.query("PlanPanel"):
            if getattr(panel, "in_full", None) == self.plan.key:
                self.set_in_panel(True)

    def set_in_panel(self, shown: bool) -> None:
        """The plan panel shows (or stopped showing) this plan's checklist: show just the header meanwhile."""
        if shown != self.has_class("-in-panel"):
            self.set_class(shown, "-in-panel")
            self.refresh_plan()

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def _set_header(self, text: Text) -> None:
        self._header_plain = text.plain
        self._header.update(text)

    def refresh_plan(self) -> None:
        """Render the plan the model holds now (its entries were replaced whole)."""
        content = self.plan.plan
        if isinstance(content, PlanItems):
            self.remove_class("-unsupported")
            done, total, _ = plan_progress(content, self.plan.more, self.plan.more_done)
            header = Text(f"Plan {done}/{total}")
            if self.has_class("-in-panel"):
                header.append(" · in progress, above the prompt", style="italic")
            self._set_header(header)
            self.entries.set_items(content, self.plan.more)
            return
        self.add_class("-unsupported")
        self.entries.set_items(None)
        kind = plain(content.type) if isinstance(content, UnknownPlan) else plain(type(content).__name__)
        arrow = "▾" if self.expanded else "▸"
        self._set_header(Text(f"{arrow} plan (unsupported format: {kind})"))
        raw = content.raw if isinstance(content, UnknownPlan) else content
        head, more = head_lines(pretty_json(raw), MAX_JSON_LINES)
        body = Text(head)
        if more:
            body.append("\n").append_text(more_lines_text(more))
        self._raw.update(body)

    def apply_fields(self, fields: frozenset[str]) -> None:
        """The model replaced the plan (`EntityChanged` with "plan")."""
        if "plan" in fields:
            self.refresh_plan()

    def action_toggle_open(self) -> None:
        """Open or close the raw JSON of an unsupported plan (supported plans are always open)."""
        if not self.has_class("-unsupported"):
            return
        self.toggle_class("-expanded")
        self.refresh_plan()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_open()

    @property
    def header_text(self) -> str:
        return self._header_plain

    def text_lines(self) -> list[str]:
        """The plan as plain lines (header first)."""
        content = self.plan.plan
        if isinstance(content, PlanItems):
            return [self._header_plain, *plan_lines(content, self.plan.more)]
        return [self._header_plain]
