"""The notices list: every ACP `notice` of the session, because a 5-second toast is easy to miss.

Notices are live and not part of the conversation's history (docs/protocol.md), so they stay out of
the timeline; the chat screen keeps them in a `NoticeLog` as they arrive and `NoticesScreen` lists
them, newest last, each with a glyph for its severity. Severity, title and description are the
agent's text: sanitized and drawn as plain text, never markup.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.protocol.v2 import Notice
from acp_tui.sanitize import multiline, plain
from acp_tui.ui.widgets.palette import PaletteEntry, ScreenActionCommands

__all__ = [
    "MAX_NOTICES",
    "NOTICES_KEY",
    "NoticeCommands",
    "NoticeEntry",
    "NoticeLog",
    "NoticesScreen",
    "severity_glyph",
    "toast_lines",
]

#: The key that opens (and closes) the list. F5 is free everywhere, including in the prompt, where
#: Textual's TextArea takes F6 and F7 for itself.
NOTICES_KEY: Final = "f5"
#: Notices kept per session; older ones are dropped (and counted) so a chatty agent cannot grow memory.
MAX_NOTICES: Final = 500

_GLYPHS: Final[dict[str, str]] = {"info": "ℹ", "warning": "⚠", "error": "✗"}
#: Rows a notice's toast message may take (its title takes one more): a toast is a glance, F5 has the rest.
TOAST_MESSAGE_ROWS: Final = 1
#: Said at the end of a toast whose text was cut.
_MORE: Final = f" … {NOTICES_KEY.upper()}"


def _cut(text: str, room: int, more: str = _MORE) -> str:
    """`text` in at most `room` characters; when cut, it ends with `more` (at a word boundary if one is near)."""
    if len(text) <= room:
        return text
    keep = max(1, room - len(more))
    head = text[:keep]
    space = head.rfind(" ")
    if space > keep * 2 // 3:
        head = head[:space]
    return head.rstrip() + more


def toast_lines(title: str, description: str, width: int, *, more: int = 0) -> tuple[str, str]:
    """A notice's toast as (title, message), each one-line agent text cut to fit a toast `width` cells wide:
    the title one row, the message `TOAST_MESSAGE_ROWS` (ending "… F5" when cut). With no
    description the title is the message (a toast without a title is one row shorter). `more` notices
    raised with this one are counted on its first row, "(+2 more, F5)"."""
    room = max(12, width)
    title, description = plain(title).strip(), plain(description).strip()
    label = f" (+{more} more, {NOTICES_KEY.upper()})" if more else ""
    if not description:
        return "", _cut(title, room * TOAST_MESSAGE_ROWS - len(label), "…" if more else _MORE) + label
    title = _cut(title, room - len(label), "…") + label
    return title, _cut(description, room * TOAST_MESSAGE_ROWS)


def severity_glyph(severity: str) -> str:
    """The glyph of a known severity; any other value gets a neutral bullet (it is shown as sent)."""
    return _GLYPHS.get(severity, "•")


@dataclass(frozen=True, slots=True)
class NoticeEntry:
    """One notice as it arrived (agent text, unsanitized: sanitized where it is drawn)."""

    severity: str
    title: str
    description: str
    at: datetime


@dataclass(slots=True)
class NoticeLog:
    """The session's notices, oldest first, at most `limit` of them."""

    limit: int = MAX_NOTICES
    total: int = 0
    _entries: deque[NoticeEntry] = field(default_factory=deque)

    def add(self, notice: Notice, at: datetime | None = None) -> NoticeEntry:
        """Keep `notice` (the toast is shown by the caller); the oldest one goes when the log is full."""
        description = notice.description if isinstance(notice.description, str) else ""
        entry = NoticeEntry(notice.severity, notice.title, description, at or datetime.now())
        self._entries.append(entry)
        while len(self._entries) > self.limit:
            self._entries.popleft()
        self.total += 1
        return entry

    @property
    def entries(self) -> list[NoticeEntry]:
        """The kept notices, oldest first."""
        return list(self._entries)

    def clear(self) -> None:
        """Another session is shown (Ctrl+N, one opened from the list): its list starts empty."""
        self._entries.clear()
        self.total = 0


def notice_row(entry: NoticeEntry) -> Content:
    """`HH:MM:SS ⚠ Title — description` with the glyph in the severity's colour; agent text is plain."""
    severity = plain(entry.severity)
    style = {"info": "$primary", "warning": "$warning", "error": "$error"}.get(entry.severity, "$secondary")
    parts: list[Content | str | tuple[str, str]] = [
        (entry.at.strftime("%H:%M:%S "), "$text-muted"),
        (f"{severity_glyph(entry.severity)} ", f"bold {style}"),
    ]
    if entry.severity not in _GLYPHS:
        parts.append((f"{severity}: ", style))  # an unknown severity is shown as sent
    parts.append((plain(entry.title) or "(untitled)", "bold"))
    description = multiline(entry.description).strip()
    if description:
        parts += [" — ", description]
    return Content.assemble(*parts)


class NoticesScreen(ModalScreen[None]):
    """A modal list of the session's notices (newest last); Escape, q or the opening key closes it."""

    CSS_PATH = "notices.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [Binding(f"escape,q,{NOTICES_KEY}", "dismiss", "Close")]

    def __init__(self, entries: Iterable[NoticeEntry], total: int | None = None) -> None:
        super().__init__()
        self._entries = list(entries)
        self._total = len(self._entries) if total is None else total

    def compose(self) -> ComposeResult:
        with Vertical(id="notices-dialog") as box:
            box.border_title = "Notices"
            shown = len(self._entries)
            summary = f"{self._total} notice{'s' if self._total != 1 else ''} from the agent"
            if shown < self._total:
                summary += f" (the newest {shown} are kept)"
            yield Static(Content(summary + " — Esc closes"), id="notices-summary")
            with VerticalScroll(id="notices-list"):
                for entry in self._entries:
                    classes = f"notice -{entry.severity if entry.severity in _GLYPHS else 'other'}"
                    yield Static(notice_row(entry), classes=classes)
                if not self._entries:
                    yield Static(Content("no notices yet"), id="notices-empty")

    def on_mount(self) -> None:
        notices = self.query_one("#notices-list", VerticalScroll)
        notices.focus()
        self.call_after_refresh(notices.scroll_end, animate=False)  # newest last, and in view once laid out

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


#: Palette entry: name and help.
COMMAND_NAME: Final = "Notices"
COMMAND_HELP: Final = "Every notice the agent raised this session (F5)"


class NoticeCommands(ScreenActionCommands):
    """Command-palette entry that opens the notices list on screens with a `show_notices` action."""

    ENTRIES = (PaletteEntry(COMMAND_NAME, "show_notices", COMMAND_HELP),)
