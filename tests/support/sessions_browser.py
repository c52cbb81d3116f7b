"""The sessions browser: a scripted source of sessions and a host app."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from textual.app import ComposeResult
from textual.widgets import Static

from acp_tui.agent.dialect import SessionAbilities
from acp_tui.controller.errors import ControllerError
from acp_tui.controller.sessions import SessionListing, SessionPage, listing
from acp_tui.ui.browsers.sessions import SessionBrowser
from acp_tui.ui.key_order import KeysInOrderApp
from acp_tui.ui.widgets.session_list import SessionList
from tests.support.wait import until

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@dataclass
class Source:
    """A scripted agent list: `total` sessions in pages of `page_size`, and transcripts."""

    total: int
    page_size: int = 50
    cwd: str = "/home/user/project"
    abilities: SessionAbilities = field(default_factory=lambda: SessionAbilities(list=True, load=True, delete=True))
    transcripts: list[SessionListing] = field(default_factory=list)
    titles: dict[int, str] = field(default_factory=dict)
    cursors: list[str | None] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    fail_cursor: str | None = None
    current_session_id: str | None = "s00000"

    def rows(self) -> list[SessionListing]:
        return [
            listing(f"s{i:05d}", self.cwd, self.titles.get(i, f"Session {i}"), NOW - timedelta(minutes=i), listed=True)
            for i in range(self.total)
            if f"s{i:05d}" not in self.deleted
        ]

    async def session_abilities(self) -> SessionAbilities:
        return self.abilities

    async def list_sessions(self, cursor: str | None = None, *, all_dirs: bool = False) -> SessionPage:
        self.cursors.append(cursor)
        if cursor is not None and cursor == self.fail_cursor:
            raise ControllerError("the agent refused session/list: invalid cursor (-32602)")
        start = int(cursor or 0)
        rows = self.rows()
        end = start + self.page_size
        return SessionPage(rows[start:end], str(end) if end < len(rows) else None)

    def transcript_sessions(self, *, all_dirs: bool = False) -> list[SessionListing]:
        return list(self.transcripts)

    async def delete_session(self, session_id: str) -> None:
        self.deleted.append(session_id)


class Host(KeysInOrderApp[None]):
    """An app whose first screen is the browser; what it returned is kept."""

    def __init__(self, source: Source) -> None:
        super().__init__()
        self.source = source
        self.chosen: list[SessionListing | None] = []

    def compose(self) -> ComposeResult:
        yield Static("chat")

    def on_mount(self) -> None:
        self.push_screen(SessionBrowser(self.source, self.source.cwd), self.chosen.append)

    @property
    def browser(self) -> SessionBrowser:
        screen = next(s for s in reversed(self.screen_stack) if isinstance(s, SessionBrowser))
        return screen

    def list_text(self) -> list[str]:
        view = self.browser.query_one(SessionList)
        return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


async def settle(pilot: Any, condition: Any, what: str, timeout: float = 10) -> None:
    await until(condition, what, pilot=pilot, timeout=timeout)
