"""The rows of the session browser: title, last activity, folder; thousands of them, drawn lazily.

Only the visible lines are rendered (Textual's line API), so opening a list of 5,000 sessions and
re-filtering it on every keystroke costs what the screen shows, not what the list holds. The rows are
`SessionListing`s (their titles already sanitised); ids and folders are sanitised here, where shown.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.controller.sessions import SessionListing, same_folder
from acp_tui.path_text import display_path
from acp_tui.sanitize import plain

AGE_WIDTH = 11
#: The folder column takes at most this share of the width.
CWD_SHARE = 3
#: Within this many rows of the end, more rows are asked for (the next page).
NEAR_END = 20


def age_text(when: datetime | None, now: datetime | None = None) -> str:
    """`just now`, `5 min ago`, `3 h ago`, `yesterday`, `Mon 14:02` (this week), `2026-11-02` (older)."""
    if when is None:
        return ""
    now = now or datetime.now(UTC)
    delta = now - when
    if delta < timedelta(minutes=1):
        return "just now"
    if delta < timedelta(hours=1):
        return f"{int(delta.total_seconds() // 60)} min ago"
    local, today = when.astimezone(), now.astimezone()
    if delta < timedelta(hours=12) or local.date() == today.date():
        return f"{int(delta.total_seconds() // 3600)} h ago"
    if local.date() == (today - timedelta(days=1)).date():
        return "yesterday"
    if delta < timedelta(days=6):
        return local.strftime("%a %H:%M")
    return local.strftime("%Y-%m-%d")


def folder_text(cwd: str, here: str) -> str:
    """A session's folder: relative below this one, `~/…` elsewhere (always sanitised)."""
    if same_folder(cwd, here):
        return display_path(cwd)
    try:
        relative = os.path.relpath(cwd, here)
    except ValueError:
        relative = ""
    if relative and not relative.startswith(".."):
        return plain(relative)
    return display_path(cwd)


#: Cells kept at the end of every row for its tag (" open", " transcript").
TAG_WIDTH = len(" transcript")


def _fit(text: str, width: int) -> str:
    """`text` in at most `width` cells, an ellipsis where it was cut."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"


class SessionList(ScrollView, can_focus=True):
    """A cursor over session rows; Enter or a double click chooses one."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-list--cursor",
        "session-list--title",
        "session-list--untitled",
        "session-list--age",
        "session-list--cwd",
        "session-list--tag",
        "session-list--current",
        "session-list--pointer",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Open", show=False),
    ]

    class Chosen(Message):
        """The user chose the row under the cursor."""

        def __init__(self, row: SessionListing) -> None:
            super().__init__()
            self.row = row

    class NearEnd(Message):
        """The cursor or the view came near the last row: the next page may be wanted."""

    class Typed(Message):
        """A printable key on the list: it belongs to the filter."""

        def __init__(self, character: str) -> None:
            super().__init__()
            self.character = character

    def __init__(self, here: str, current: str | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.here = here
        self.current = current
        self.rows: list[SessionListing] = []
        self.shown: list[int] = []
        self.cursor = 0
        self._keys_of_list = {"d", "v"}
        self._now = datetime.now(UTC)

    # -- content -------------------------------------------------------------------------------------

    def show(self, rows: list[SessionListing], shown: list[int], *, keep: str | None = None) -> None:
        """New rows and which of them pass the filter; the cursor stays on `keep` (a session id) if shown."""
        self.rows, self.shown = rows, shown
        self._now = datetime.now(UTC)
        position = 0
        if keep is not None:
            position = next((i for i, r in enumerate(shown) if rows[r].session_id == keep), 0)
        self.cursor = min(position, max(0, len(shown) - 1))
        self.virtual_size = Size(self.size.width, len(shown))
        self.refresh()
        self._follow_cursor()

    @property
    def selected(self) -> SessionListing | None:
        if not self.shown:
            return None
        return self.rows[self.shown[self.cursor]]

    # -- moving --------------------------------------------------------------------------------------

    def move(self, delta: int) -> None:
        if not self.shown:
            return
        self.cursor = max(0, min(len(self.shown) - 1, self.cursor + delta))
        self.refresh()
        self._follow_cursor()

    def page(self, direction: int) -> None:
        self.move(direction * max(1, self.scrollable_content_region.height - 1))

    def move_to(self, end: bool) -> None:
        self.move(len(self.shown) if end else -len(self.shown))

    def action_choose(self) -> None:
        row = self.selected
        if row is not None:
            self.post_message(self.Chosen(row))

    def _follow_cursor(self) -> None:
        if self.shown:
            self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, immediate=True)
        self._check_end()

    def _check_end(self) -> None:
        height = max(1, self.scrollable_content_region.height)
        seen = max(self.cursor, int(self.scroll_y) + height)
        if len(self.shown) - seen <= max(NEAR_END, height):
            self.post_message(self.NearEnd())

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._check_end()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.shown))
        self._check_end()

    def on_click(self, event: events.Click) -> None:
        index = int(self.scroll_y) + event.y
        if 0 <= index < len(self.shown):
            self.cursor = index
            self.refresh()
            if event.chain >= 2:
                self.action_choose()

    def on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character and event.character not in self._keys_of_list:
            event.stop()
            self.post_message(self.Typed(event.character))

    # -- drawing -------------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_y) + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not 0 <= index < len(self.shown):
            return Strip.blank(width, base)
        row = self.rows[self.shown[index]]
        segments = self._segments(row, width, index == self.cursor)
        strip = Strip(segments).crop_extend(0, width, base).apply_style(base)
        if index == self.cursor:
            strip = strip.apply_style(self.get_component_rich_style("session-list--cursor"))
        return strip

    def _segments(self, row: SessionListing, width: int, under_cursor: bool = False) -> list[Segment]:
        style = self.get_component_rich_style
        current = row.session_id == self.current
        tag = " open" if current else (" transcript" if row.transcript_only else "")
        cwd_width = min(40, max(8, width // CWD_SHARE))
        title_width = max(
            4, width - 3 - AGE_WIDTH - 2 - cwd_width - TAG_WIDTH
        )  # one width for every row: columns align
        if row.title:
            title, title_style = row.title, style("session-list--title")
        else:
            title, title_style = f"(untitled) {plain(row.session_id)}", style("session-list--untitled")
        marker: tuple[str, Style | None] = ("● ", style("session-list--current")) if current else ("  ", None)
        # The cursor row is marked by a bar, not only by its tint: bold and a 30% tint alone were hard to see.
        pointer: tuple[str, Style | None] = ("▌", style("session-list--pointer")) if under_cursor else (" ", None)
        parts: list[tuple[str, Style | None]] = [
            pointer,
            marker,
            (set_cell_size(_fit(title, title_width), title_width), title_style),
            (age_text(row.updated_at, self._now).rjust(AGE_WIDTH) + "  ", style("session-list--age")),
            (set_cell_size(_fit(folder_text(row.cwd, self.here), cwd_width), cwd_width), style("session-list--cwd")),
        ]
        if tag:
            parts.append((tag, style("session-list--current" if current else "session-list--tag")))
        return [Segment(text, part_style) for text, part_style in parts]


__all__ = ["AGE_WIDTH", "NEAR_END", "SessionList", "age_text", "folder_text"]
