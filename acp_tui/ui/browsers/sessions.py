"""The session browser: this folder's sessions (or every folder's), newest first, filtered as you type.

It merges the agent's list (`session/list`, fetched page by page as the user nears the end) with the
sessions we have transcripts of, so a session the agent cannot list or load can still be read
(docs/protocol.md §3). Enter opens the session with the agent (the screen returns it; the chat opens it),
or shows its transcript when that is all there is; `v` shows the transcript, `d` deletes the session
(after a confirmation, and only when the agent offers `session/delete`), Ctrl-T switches between this
folder and all folders. Agent text is data: titles are sanitised by the catalog, ids and paths here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from acp_tui.agent.dialect import SessionAbilities
from acp_tui.controller.errors import ControllerError
from acp_tui.controller.sessions import SessionListing, SessionPage, SessionPaging, matching, merge
from acp_tui.path_text import display_path
from acp_tui.sanitize import plain
from acp_tui.ui.widgets.session_list import SessionList

#: Palette entry and key.
SESSIONS_KEY = "ctrl+o"
HINTS = "⏎ open · ↑↓ move · Tab to the list: v transcript, d delete · ^T all folders · Esc close"
#: The same keys said shorter, for narrower screens (the longest that fits beside the status is shown).
SHORTER_HINTS = (
    "⏎ open · ↑↓ · Tab: v transcript, d delete · ^T all folders · Esc close",
    "⏎ open · Tab: v transcript, d delete · ^T all folders · Esc",
    "⏎ open · Tab: v view, d delete · ^T folders · Esc",
    "⏎ open · ^T folders · Esc",
)


def fitting_hints(width: int) -> str:
    """The longest key hint that fits in `width` cells (the shortest when none does)."""
    for hints in (HINTS, *SHORTER_HINTS):
        if len(hints) <= width:
            return hints
    return SHORTER_HINTS[-1]


class SessionSource(Protocol):
    """Where the browser gets sessions from (the session controller; tests give a scripted one); a list or a
    delete that fails raises `ControllerError`, its line shown in the browser."""

    @property
    def current_session_id(self) -> str | None: ...

    async def session_abilities(self) -> SessionAbilities: ...

    async def list_sessions(self, cursor: str | None = None, *, all_dirs: bool = False) -> SessionPage: ...

    def transcript_sessions(self, *, all_dirs: bool = False) -> list[SessionListing]: ...

    async def delete_session(self, session_id: str) -> None: ...


class ConfirmDelete(ModalScreen[bool]):
    """`Delete “title”?` — y deletes, n or Esc keeps it."""

    CSS_PATH = "sessions.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Delete"),
        Binding("n,escape", "answer(False)", "Keep"),
    ]

    def __init__(self, row: SessionListing) -> None:
        super().__init__()
        self.row = row

    def compose(self) -> ComposeResult:
        name = self.row.title or plain(self.row.session_id)
        with Vertical(id="confirm-dialog") as box:
            box.border_title = "Delete session"
            yield Static(f"Delete “{name}”?", classes="confirm-question", markup=False)
            note = "The agent deletes it for good"
            note += "; our transcript of it stays." if self.row.transcript is not None else "."
            yield Static(note, classes="confirm-note", markup=False)
            yield Static("y delete · n keep", classes="confirm-keys")

    def action_answer(self, delete: bool) -> None:
        self.dismiss(delete)


class SessionBrowser(ModalScreen[SessionListing | None]):
    """Pick a session to open; returns the row (the caller opens it with the agent) or None."""

    class Listed(Message):
        """What the agent answered (the workers post it; the screen shows it)."""

        def __init__(
            self,
            generation: int,
            abilities: SessionAbilities | None = None,
            page: SessionPage | None = None,
            problem: str | None = None,
            transcripts: list[SessionListing] | None = None,
        ) -> None:
            super().__init__()
            self.generation = generation
            self.abilities = abilities
            self.page = page
            self.problem = problem
            self.transcripts = transcripts

    class Deleted(Message):
        """The agent deleted a session (or said why not)."""

        def __init__(self, row: SessionListing, problem: str | None) -> None:
            super().__init__()
            self.row = row
            self.problem = problem

    CSS_PATH = "sessions.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("ctrl+home", "ends(False)", "First", show=False),
        Binding("ctrl+end", "ends(True)", "Last", show=False),
        Binding("ctrl+t", "toggle_folders", "All folders"),
        Binding("d,delete", "delete", "Delete", show=False),
        Binding("v", "view", "Transcript", show=False),
        Binding(f"{SESSIONS_KEY}", "close", "Close", show=False),
    ]

    def __init__(
        self,
        source: SessionSource,
        here: Path | str,
        *,
        all_dirs: bool = False,
        elsewhere: Callable[[str], bool] = lambda session_id: False,
    ) -> None:
        """`elsewhere` says whether another tab holds a session: picking it returns the row (its tab is shown)
        instead of opening it or its transcript here."""
        super().__init__()
        self.source = source
        self._elsewhere = elsewhere
        self.here = str(here)
        self.all_dirs = all_dirs
        self.abilities = SessionAbilities()
        self.agent_rows: list[SessionListing] = []
        self.transcript_rows: list[SessionListing] = []
        self.rows: list[SessionListing] = []
        self.next_cursor: str | None = None
        self.loading = False
        self.listed_all = False
        self.problem: str | None = None
        self.paging = SessionPaging()
        self._generation = 0  # a folder toggle makes pages still on their way stale
        self._status_plain = ""

    # -- layout ----------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog") as box:
            box.border_title = self._title()
            yield Input(placeholder="type to filter by title, id or folder", id="sessions-filter", compact=True)
            yield SessionList(self.here, self.source.current_session_id, id="sessions-list")
            with Horizontal(id="sessions-footer"):
                yield Static("", id="sessions-status")
                yield Static(HINTS, id="sessions-hints")

    def _title(self) -> str:
        return "Sessions — all folders" if self.all_dirs else f"Sessions — {display_path(self.here)}"

    @property
    def list_view(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#sessions-filter", Input)

    def on_mount(self) -> None:
        self.filter_input.focus()
        self._reload()

    # -- loading ---------------------------------------------------------------------------------------

    def _reload(self) -> None:
        """(Re)start from nothing: our transcripts now, the agent's first page as soon as it answers."""
        self._generation += 1
        self.agent_rows, self.next_cursor, self.listed_all, self.problem = [], None, False, None
        self.paging = SessionPaging()
        self.transcript_rows = self.source.transcript_sessions(all_dirs=self.all_dirs)
        self.loading = True
        self._rebuild()
        self._first_page(self._generation)

    @work(exclusive=True, group="sessions-page")
    async def _first_page(self, generation: int) -> None:
        abilities = await self.source.session_abilities()
        # Our transcripts again, now that the agent is up: the session it started meanwhile (`acp-tui --resume`
        # opens the list first) is in the index, and one never prompted is left out of the agent's rows too.
        transcripts = self.source.transcript_sessions(all_dirs=self.all_dirs)
        self.post_message(self.Listed(generation, abilities=abilities, transcripts=transcripts))
        if abilities.list:
            await self._fetch(None, generation)

    @work(exclusive=True, group="sessions-page")
    async def _next_page(self, cursor: str, generation: int) -> None:
        await self._fetch(cursor, generation)

    async def _fetch(self, cursor: str | None, generation: int) -> None:
        try:
            page = await self.source.list_sessions(cursor, all_dirs=self.all_dirs)
        except ControllerError as exc:
            self.post_message(self.Listed(generation, problem=plain(str(exc))))
            return
        self.post_message(self.Listed(generation, page=page))

    @on(Listed)
    def _listed(self, message: Listed) -> None:
        if message.generation != self._generation:
            return  # for the folders shown before a toggle
        if message.abilities is not None:
            self.abilities = message.abilities
            self.loading = message.abilities.list
            self.listed_all = not message.abilities.list
        if message.transcripts is not None:
            self.transcript_rows = message.transcripts
            self._rebuild()
        if message.problem is not None:
            self.loading, self.problem = False, message.problem
        if message.page is not None:
            self.loading = False
            page = self.paging.take(message.page)  # bounded: a repeated cursor or a flood stops here
            known = {row.session_id for row in self.agent_rows}
            self.agent_rows.extend(row for row in page.sessions if row.session_id not in known)
            self.next_cursor = page.next_cursor
            self.listed_all = page.next_cursor is None
            self._rebuild()
        self._show_status()

    def _want_more(self) -> None:
        """Near the end of what is shown: the next page, if the agent has one and none is on its way."""
        if self.loading or self.next_cursor is None or self.problem is not None:
            return
        self.loading = True
        self._next_page(self.next_cursor, self._generation)

    # -- showing ---------------------------------------------------------------------------------------

    def _rebuild(self) -> None:
        view = self.list_view
        keep = view.selected.session_id if view.selected is not None else None
        self.rows = merge(self.agent_rows, self.transcript_rows)
        view.show(self.rows, matching(self.rows, self.filter_input.value), keep=keep)
        self._show_status()

    def _show_status(self) -> None:
        view = self.list_view
        shown, total = len(view.shown), len(self.rows)
        parts = [f"{shown:,} of {total:,}" if shown != total else f"{total:,} session{'s' if total != 1 else ''}"]
        if self.loading:
            parts.append("asking the agent…")
        elif self.next_cursor is not None:
            parts.append("more below")
        if self.problem is not None:
            parts.append(self.problem)
        elif self.paging.stopped is not None:
            parts.append(self.paging.stopped)
        elif self.listed_all and not self.abilities.list and not self.loading:
            parts.append("the agent does not list its sessions; these are our transcripts")
        status = self.query_one("#sessions-status", Static)
        status.update(" · ".join(parts))
        status.set_class(self.problem is not None or self.paging.stopped is not None, "-problem")
        self._status_plain = " · ".join(parts)
        self._fit_hints()

    def _fit_hints(self) -> None:
        """The key hint, as long as the footer leaves room for beside the status (it was cut at 80 columns)."""
        footer = self.query_one("#sessions-footer")
        if footer.size.width:
            room = footer.size.width - len(self._status_plain) - 2
            self.query_one("#sessions-hints", Static).update(fitting_hints(room))

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_hints)  # the footer has its new width once laid out

    @on(Input.Changed, "#sessions-filter")
    def _filtered(self, event: Input.Changed) -> None:
        view = self.list_view
        keep = view.selected.session_id if view.selected is not None else None
        view.show(self.rows, matching(self.rows, event.value), keep=keep)
        self._show_status()

    @on(SessionList.NearEnd)
    def _near_end(self) -> None:
        self._want_more()

    @on(SessionList.Typed)
    def _typed(self, event: SessionList.Typed) -> None:
        field = self.filter_input
        field.focus()
        field.insert_text_at_cursor(event.character)

    # -- actions ---------------------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        self.list_view.move(delta)

    def action_page(self, direction: int) -> None:
        self.list_view.page(direction)

    def action_ends(self, end: bool) -> None:
        self.list_view.move_to(end)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_folders(self) -> None:
        self.all_dirs = not self.all_dirs
        self.query_one("#sessions-dialog", Vertical).border_title = self._title()
        self._reload()

    @on(Input.Submitted, "#sessions-filter")
    def _submitted(self) -> None:
        self.list_view.action_choose()

    @on(SessionList.Chosen)
    def _chosen(self, event: SessionList.Chosen) -> None:
        row = event.row
        if row.session_id == self.source.current_session_id:
            self.app.notify("this session is already open", markup=False)
            self.dismiss(None)
        elif self._elsewhere(row.session_id):
            self.dismiss(row)
        elif row.listed and self.abilities.can_open:
            self.dismiss(row)
        elif row.transcript is not None:
            self._view(row)
        else:
            self.app.notify("this agent cannot open past sessions", severity="warning", markup=False)

    def action_view(self) -> None:
        row = self.list_view.selected
        if row is None:
            return
        if row.transcript is None:
            self.app.notify("there is no transcript of this session here", markup=False)
            return
        self._view(row)

    def _view(self, row: SessionListing) -> None:
        # imported on first use: Textual's Markdown and TextArea are start-up time the first screen does not need
        from acp_tui.ui.browsers.transcript_view import TranscriptScreen

        openable = row.listed and self.abilities.can_open and row.session_id != self.source.current_session_id
        assert row.transcript is not None

        def closed(action: str | None) -> None:
            if action == "open":
                self.dismiss(row)

        self.app.push_screen(TranscriptScreen(row.transcript, row.title, can_open=openable), closed)

    def action_delete(self) -> None:
        row = self.list_view.selected
        if row is None:
            return
        if not self.abilities.delete:
            self.app.notify("this agent does not offer deleting sessions", severity="warning", markup=False)
            return
        if not row.listed:
            self.app.notify(
                "the agent does not list this session; only our transcript of it is here",
                severity="warning",
                markup=False,
            )
            return
        if row.session_id == self.source.current_session_id:
            self.app.notify(
                "this is the open session; start a new one (Ctrl-N) before deleting it",
                severity="warning",
                markup=False,
            )
            return

        def answered(delete: bool | None) -> None:
            if delete:
                self._delete(row)

        self.app.push_screen(ConfirmDelete(row), answered)

    @work(group="sessions-delete")
    async def _delete(self, row: SessionListing) -> None:
        try:
            await self.source.delete_session(row.session_id)
        except ControllerError as exc:
            self.post_message(self.Deleted(row, plain(str(exc))))
            return
        self.post_message(self.Deleted(row, None))

    @on(Deleted)
    def _deleted(self, message: Deleted) -> None:
        row = message.row
        if message.problem is not None:
            self.app.notify(message.problem, title="not deleted", severity="warning", markup=False)
            return
        self.agent_rows = [r for r in self.agent_rows if r.session_id != row.session_id]
        self._rebuild()
        self.app.notify(f"deleted “{row.title or plain(row.session_id)}”", markup=False)


__all__ = ["ConfirmDelete", "HINTS", "SESSIONS_KEY", "SessionBrowser", "SessionSource", "fitting_hints"]
