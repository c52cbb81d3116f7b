"""A context compaction (docs/protocol.md §5.5): a divider-like row with a collapsible Markdown summary.

The row says "◐ compacting context…", "✓ context compacted", "✗ compaction failed: error",
"⊘ compaction cancelled", or shows an unknown status as sent without inferring anything from it.
The summary streams into a Markdown widget and stays shown: the spec calls it user-displayable, and it
is what the agent now remembers of the conversation. A long one is folded to its first `FOLD_ROWS`
rows with "… Enter shows the whole summary" below; Enter (or a click) then shows all of it, then closes
it, then opens it again (the user's choice wins from then on).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import HorizontalGroup, Vertical

from acp_tui.protocol.v2 import ContentBlock, TextContent
from acp_tui.sanitize import multiline, plain
from acp_tui.session.model import Compaction
from acp_tui.ui.widgets.content_blocks import TextStatic, block_widget
from acp_tui.ui.widgets.markdown_stream import MarkdownStream

__all__ = ["FOLD_ROWS", "CompactionView", "compaction_label"]

#: Rows of a long summary shown until the user asks for all of it.
FOLD_ROWS: Final = 5


def compaction_label(compaction: Compaction) -> tuple[str, str]:
    """The row text and its variant ("running", "success", "error", "cancelled", "unknown")."""
    status = compaction.status
    if status == "in_progress":
        return "◐ compacting context…", "running"
    if status == "completed":
        return "✓ context compacted", "success"
    if status == "failed":
        error = plain(compaction.error) if compaction.error else "unknown error"
        return f"✗ compaction failed: {error}", "error"
    if status == "cancelled":
        return "⊘ compaction cancelled", "cancelled"
    return f"compaction: {plain(status)}", "unknown"


class CompactionView(Vertical, can_focus=True):
    """One compaction; updated by `apply_fields`, `append_text`, `append_content`, `replace_content`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Expand", show=False)]

    DEFAULT_CSS = """
    CompactionView { height: auto; width: 1fr; margin: 1 0; }
    CompactionView > .compaction--row { color: $text-muted; border-top: dashed $panel; padding: 0 1; }
    CompactionView:focus { outline-left: thick $primary; }
    CompactionView:focus > .compaction--row { border-top: dashed $primary; }
    CompactionView.-running > .compaction--row { color: $warning; }
    CompactionView.-success > .compaction--row { color: $success; }
    CompactionView.-error > .compaction--row { color: $error; }
    CompactionView > .compaction--summary { height: auto; display: none; padding-left: 2; }
    CompactionView.-expanded > .compaction--summary { display: block; }
    CompactionView.-folded > .compaction--summary { max-height: 5; overflow: hidden hidden; }
    CompactionView > .compaction--more { display: none; color: $text-muted; padding-left: 2; }
    CompactionView.-folded > .compaction--more { display: block; }
    CompactionView .compaction--chips { height: auto; }
    """

    _VARIANTS: ClassVar[tuple[str, ...]] = ("-running", "-success", "-error", "-cancelled", "-unknown")

    def __init__(self, compaction: Compaction) -> None:
        super().__init__()
        self.compaction = compaction
        self._row = TextStatic(classes="compaction--row")
        self.summary = MarkdownStream(multiline(compaction.summary.text))
        self._chips = HorizontalGroup(classes="compaction--chips")
        self._initial_chips: list[Any] = [
            block_widget(block) for block in compaction.summary.blocks if not isinstance(block, TextContent)
        ]
        self._user_expanded: bool | None = None  # None: shown (folded when long); True: all; False: closed
        self._more = TextStatic(Text("… Enter shows the whole summary", style="italic"), classes="compaction--more")
        self._row_plain = ""
        self._update_row()

    def compose(self) -> ComposeResult:
        yield self._row
        with Vertical(classes="compaction--summary"):
            yield self.summary
            with self._chips:
                yield from self._initial_chips
        yield self._more
        self._initial_chips = []

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def _has_summary(self) -> bool:
        return len(self.compaction.summary) > 0

    def _is_long(self) -> bool:
        """Would the summary take more than `FOLD_ROWS` rows (its lines, wrapped at the view's width)?"""
        width = max(20, (self.content_size.width or 80) - 2)
        text = self.compaction.summary.text
        rows = start = 0
        while rows <= FOLD_ROWS:  # only the first rows are measured: a summary can be long
            end = text.find("\n", start)
            line = len(text) - start if end < 0 else end - start
            rows += max(1, -(-line // width))
            if end < 0:
                break
            start = end + 1
        return rows > FOLD_ROWS

    def on_resize(self) -> None:
        self._update_row()  # a narrower view wraps the summary into more rows

    def _update_row(self) -> None:
        label, variant = compaction_label(self.compaction)
        wanted = self._user_expanded is not False
        self.set_class(wanted and self._has_summary(), "-expanded")
        self.set_class(self.expanded and self._user_expanded is None and self._is_long(), "-folded")
        self.remove_class(*self._VARIANTS)
        self.add_class(f"-{variant}")
        text = Text(label)
        if self._has_summary():
            text.append("  (summary ▾)" if self.expanded else "  (summary ▸)", style="italic")
        self._row_plain = text.plain
        self._row.update(text)

    @property
    def row_text(self) -> str:
        return self._row_plain

    def apply_fields(self, fields: frozenset[str]) -> None:
        """Status or error changed (`EntityChanged`)."""
        if fields & {"status", "error"}:
            self._update_row()
            if self.compaction.status != "in_progress":
                self.summary.finish()

    def append_text(self, text: str) -> None:
        """A summary text chunk (`TextAppended`)."""
        first = not self.summary.text
        self.summary.append(multiline(text))
        if first or (self._user_expanded is None and not self.has_class("-folded")):
            self._update_row()  # it may have grown long enough to fold

    def append_content(self, block: ContentBlock) -> None:
        """A non-text summary block (`ContentAppended`)."""
        chip = block_widget(block)
        if self._chips.is_mounted:
            self._chips.mount(chip)
        else:
            self._initial_chips.append(chip)
        self._update_row()

    def replace_content(self) -> None:
        """The summary was replaced or cleared (`ContentReplaced`)."""
        self.summary.set_text(self.compaction.summary.text)
        if self.summary.is_mounted:
            self.summary.flush()
        chips = [block_widget(b) for b in self.compaction.summary.blocks if not isinstance(b, TextContent)]
        if self._chips.is_mounted:
            self._chips.remove_children()
            if chips:
                self._chips.mount(*chips)
        else:
            self._initial_chips = chips
        self._update_row()

    def action_toggle_open(self) -> None:
        """Open or close the summary."""
        if not self._has_summary():
            return
        self._user_expanded = self.has_class("-folded") or not self.expanded
        self._update_row()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_open()
