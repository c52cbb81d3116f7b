"""The scrolling conversation timeline: entries in order, following new output while at the bottom.

Following uses Textual's anchoring: while anchored, each layout keeps the view at the bottom, so a
growing message only changes its own height (no scroll call per chunk). Scrolling up releases the
anchor (Textual does this for every user scroll); scrolling back to the bottom, pressing End or
clicking the hint restores it.

Scrolled up, the view holds still: what the user reads stays on the same rows while the content around it
changes. Each layout (`arrange`) moves the scroll offset by as much as the entry at the top of the view
moved (entries above it grew, shrank, were folded or inserted), plus the lines a streamed message in view
inserted above what it shows (`hold_lines`: a long answer renders its older blocks after its newest ones,
above them). It is done before the layout places anything, so no frame shows the content jump.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult, WidgetPlacement
from textual.scrollbar import ScrollBar
from textual.widget import AwaitMount, Widget

from acp_tui.path_text import NO_CONTEXT
from acp_tui.ui.widgets.new_output_hint import NewOutputHint
from acp_tui.ui.widgets.prompt_return import ReturnsToPrompt


class Conversation(ReturnsToPrompt, VerticalScroll):
    """Vertical timeline of conversation entries (messages, thoughts, tool cards, plans...).

    Each kind of entry sets its own margins (the rhythm): a turn and prose get a blank line around
    them, tool lines and plans stack (margins collapse, so a blank line between two blocks is one).

    Escape, or typing, on any entry (or on the timeline itself) goes back to the prompt (`ReturnsToPrompt`).
    """

    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
        width: 100%;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end", "follow", "Follow output", show=False),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        #: the session shown (its folder): the timeline hands it to the views that show paths
        self.context = NO_CONTEXT
        self._hint = NewOutputHint()
        self._height_seen = 0
        #: the placements of the last layout (Textual's own list, kept as it is: no copy per frame)
        self._placed: Sequence[WidgetPlacement] = ()
        self._held = 0  # lines inserted above the view inside the entry at its top, since the last layout

    def on_mount(self) -> None:
        self.mount(self._hint)

    # -- entries -----------------------------------------------------------------------------

    @property
    def entries(self) -> list[Widget]:
        """The timeline widgets in order (the hint excluded)."""
        return [child for child in self.children if child is not self._hint]

    def newest_entry(self) -> Widget | None:
        """The newest entry that takes the focus (a card), where Tab from the prompt starts; None if none."""
        entries = [widget for widget in self.screen.focus_chain if self in widget.ancestors]
        return entries[-1] if entries else None

    def add_entry(self, widget: Widget) -> AwaitMount:
        """Append a widget to the end of the timeline."""
        return self.mount(widget)

    def insert_entry(self, index: int, widget: Widget) -> AwaitMount:
        """Insert a widget at `index` in the timeline (appends when `index` is past the end)."""
        entries = self.entries
        if index >= len(entries):
            return self.mount(widget)
        return self.mount(widget, before=entries[max(index, 0)])

    # -- following ---------------------------------------------------------------------------

    @property
    def following(self) -> bool:
        """Is the view kept at the bottom as output grows (rather than held where the user put it)?"""
        # Textual exposes anchoring but not whether a user scroll released it; read its flag.
        return not self._anchor_released

    @property
    def hint_visible(self) -> bool:
        """Is the "new output below" hint shown?"""
        return self._hint.has_class("-visible")

    def follow(self) -> None:
        """Jump to the newest output and keep following it."""
        self._anchor_released = False
        self._hint.remove_class("-visible")
        if self.max_scroll_y > 0:
            self.anchor()

    def action_follow(self) -> None:
        self.follow()

    def release_anchor(self) -> None:
        """Textual lets go of the newest output at the start of every scroll; once that scroll has set
        its target, `_resume_at_end` takes it back if the scroll asked for the end and is there."""
        super().release_anchor()
        self.call_next(self._resume_at_end)

    def _resume_at_end(self) -> None:
        """PageDown, Down, End or the wheel at the bottom go nowhere: keep following (else new output
        would wait behind the "new output below" hint while the user sits at the end)."""
        end = self.max_scroll_y
        if self._anchor_released and end > 0 and self.scroll_target_y >= end and self.scroll_y >= end:
            self._anchor_released = False
            self._hint.remove_class("-visible")

    def scroll_to_start(self) -> None:
        """Jump to the oldest entry (Ctrl+Home); new output no longer moves the view (the hint says so)."""
        self.release_anchor()
        self.scroll_home(animate=False, immediate=True)

    def on_new_output_hint_pressed(self, event: NewOutputHint.Pressed) -> None:
        event.stop()
        self.follow()

    def _sync_anchor(self) -> None:
        """Anchor only while the timeline overflows the view.

        An anchored container shorter than its view is drawn bottom-aligned (Textual scrolls it to a
        negative offset); a conversation should start at the top.
        """
        overflowing = self.max_scroll_y > 0
        if overflowing:
            if not self.is_anchored:
                self._anchor_released = False  # nothing could be scrolled before: the user is at the end
                self._hint.remove_class("-visible")
                self.anchor()
            return
        # Everything fits: there is nothing to follow or to hint at.
        self._anchor_released = False
        self._hint.remove_class("-visible")
        if self.is_anchored:
            self.anchor(False)
            self.scroll_to(y=0, animate=False, immediate=True, release_anchor=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.following:
            self._hint.remove_class("-visible")
        elif old_value > new_value:
            # The user scrolled up: output that arrives from now on is "new".
            self._height_seen = self.virtual_size.height

    def watch_virtual_size(self, size: Size) -> None:
        if self.is_mounted:
            # The container size is updated just after the virtual size: check once both are set. Content
            # that outgrows a laid-out view is anchored now (the next frame shows the end of a first long
            # answer, not its top): this runs inside the screen's layout, and a callback on the timeline's
            # own queue can wait there for several frames.
            view = self.container_size.height
            if view and size.height > view and not self.is_anchored:
                self._sync_anchor()
            self.call_later(self._sync_anchor)
        if self.following:
            self._height_seen = size.height
        elif size.height > self._height_seen:
            self._hint.add_class("-visible")

    # -- holding the view while scrolled up ------------------------------------------------------

    def hold_lines(self, widget: Widget, row: int, count: int) -> None:
        """`widget` (a streamed message) inserted `count` lines at its content row `row`: if that is above the
        bottom of the view and `widget` reaches into the view, the next layout scrolls by as much, so the
        lines after the insertion stay where they are (those are what the user scrolled up to: the newest
        blocks, shown before the older ones rendered above them)."""
        if not self._anchor_released or count <= 0:
            return
        view = self.content_region
        region = widget.region
        if region.height and widget.content_region.y + row - self._held < view.bottom and view.y < region.bottom:
            self._held += count

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Lay out the entries; scrolled up, keep the content at the top of the view where it was."""
        result = super().arrange(size, optimal)
        if optimal:
            return result
        shift, self._held = self._held, 0
        if self._anchor_released and self._placed:
            view_top = round(self.scroll_y)
            moved = {placement.widget: placement.region.y for placement in result.placements}
            for placement in self._placed:  # the first entry still showing at the top of the view
                widget, region = placement.widget, placement.region
                if widget is not self._hint and region.bottom > view_top and widget in moved:
                    shift += moved[widget] - region.y
                    break
            if shift:
                animator = self.app.animator
                if animator.is_being_animated(self, "scroll_y"):
                    animator.force_stop_animation(
                        self, "scroll_y"
                    )  # a PageUp under way lands, then moves with the rest
                self._height_seen += shift  # lines that went in above are not "new output below"
                target = max(0.0, self.scroll_y + shift)  # clamped to the new size once it is known (`_scroll_update`)
                # As Textual's own anchoring does here: before the placements are made, so no frame jumps.
                self.set_reactive(Widget.scroll_y, target)
                self.set_reactive(Widget.scroll_target_y, target)
                self.vertical_scrollbar.set_reactive(ScrollBar.position, target)
        self._placed = result.placements
        return result

    def on_resize(self) -> None:
        self.call_later(self._sync_anchor)
