"""Sessions beyond the open one: the agent's list, our transcripts of past sessions, and how the two merge.

The browser and `acp-tui --continue` see one list (docs/protocol.md §3): the sessions the agent lists
(`session/list`, paged by an opaque cursor, filtered by working directory) and the sessions we keep a
transcript of for this agent, so a session the agent cannot list or load can still be read. The
transcript side comes from a small index (`sessions.jsonl` in the data directory) that the controller
appends to as sessions open, get their first prompt and change title: one file read instead of opening every
transcript. A session that never got a prompt is in the index as such and in neither list (`merge`).

Everything an agent supplied (titles, paths) is sanitised here, once; the UI only lays it out. Pure
and UI-free: the controller, the command line and the browser share it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from acp_tui import paths
from acp_tui.protocol import methods
from acp_tui.sanitize import plain
from acp_tui.session.model import USER_MESSAGE, Message, SessionState

#: Titles longer than this are cut (a title is a label, not a message).
TITLE_LIMIT = 200
#: A title made from the first prompt keeps this much of it.
PROMPT_TITLE_LIMIT = 80
#: Rows of the agent's list kept in one listing (more: a note says the first ones are shown).
MAX_LISTED_SESSIONS = 20_000
#: Pages asked for in one listing: an agent whose cursor never runs out is not followed for ever.
MAX_LIST_PAGES = 200
#: A page cursor longer than this is not sent back (it is kept, once per page, to spot a repeat).
MAX_CURSOR_LENGTH = 10_000


@dataclass(frozen=True, slots=True)
class SessionListing:
    """One row of the session list: a session the agent listed, one we have a transcript of, or both."""

    session_id: str
    cwd: str
    title: str | None = None
    updated_at: datetime | None = None
    #: the agent listed it: it can be opened with the agent (where it offers load or resume)
    listed: bool = False
    #: our transcript of it (the newest, when there are several)
    transcript: Path | None = None
    #: lower-case title, id and folder, for filtering as the user types
    haystack: str = field(default="", compare=False)
    #: a prompt was sent in it (False: our index saw it start and never prompted; `merge` leaves it out)
    prompted: bool = True

    @property
    def transcript_only(self) -> bool:
        return not self.listed and self.transcript is not None


class SessionPage(msgspec.Struct, frozen=True):
    """One page of `session/list`; `next_cursor` is None on the last page (an empty string is a cursor)."""

    sessions: list[SessionListing]
    next_cursor: str | None
    #: rows the agent sent on this page beyond `MAX_LISTED_SESSIONS` (not made into rows at all)
    dropped: int = 0


class SessionPaging:
    """One walk through the agent's pages, bounded (issue 21: a `nextCursor` that never changes was
    followed ~3,000 times in 10 s): it stops on a cursor seen before, after `MAX_LIST_PAGES` pages or
    `MAX_LISTED_SESSIONS` rows, and `stopped` says so in words for the list."""

    def __init__(self) -> None:
        self.pages = 0
        self.rows = 0
        self.stopped: str | None = None
        self._cursors: set[str] = set()

    def take(self, page: SessionPage) -> SessionPage:
        """`page` as it is to be shown: cut to the rows left, with no next cursor once paging must stop."""
        self.pages += 1
        room = max(0, MAX_LISTED_SESSIONS - self.rows)
        rows = page.sessions[:room]
        self.rows += len(rows)
        cursor = page.next_cursor
        first = f"showing the first {self.rows:,}"
        if page.dropped or len(rows) < len(page.sessions) or (cursor is not None and self.rows >= MAX_LISTED_SESSIONS):
            self.stopped = f"the agent kept sending sessions; {first}"
        elif cursor is not None and cursor in self._cursors:
            self.stopped = f"the agent sent a page cursor again; {first}"
        elif cursor is not None and self.pages >= MAX_LIST_PAGES:
            self.stopped = f"the agent kept sending pages; {first}"
        elif cursor is not None and len(cursor) > MAX_CURSOR_LENGTH:
            self.stopped = f"the agent's page cursor is too long to send back; {first}"
        if self.stopped is not None:
            return SessionPage(rows, None)
        if cursor is not None:
            self._cursors.add(cursor)
        return SessionPage(rows, cursor)


def listing(
    session_id: str,
    cwd: str,
    title: str | None,
    updated_at: datetime | None,
    *,
    listed: bool,
    transcript: Path | None = None,
    prompted: bool = True,
) -> SessionListing:
    """A row with its title made safe and its filter text prepared; the id and folder stay as the agent
    sent them (they go back to it), and are sanitised where they are shown."""
    clean_title = _title(title)
    haystack = f"{clean_title or ''}\n{plain(session_id)}\n{plain(cwd)}".casefold()
    return SessionListing(session_id, cwd, clean_title, updated_at, listed, transcript, haystack, prompted)


def from_wire(page: methods.ListSessionsResponse, limit: int = MAX_LISTED_SESSIONS) -> SessionPage:
    """A `session/list` result as rows (at most `limit`; the rest counted in `dropped`); `nextCursor`
    absent or null ends the list (docs/protocol.md §3)."""
    rows = [
        listing(
            info.session_id,
            info.cwd,
            info.title if isinstance(info.title, str) else None,
            parse_time(info.updated_at),
            listed=True,
        )
        for info in page.sessions[:limit]
    ]
    cursor = page.next_cursor if isinstance(page.next_cursor, str) else None
    return SessionPage(rows, cursor, max(0, len(page.sessions) - limit))


def parse_time(value: object) -> datetime | None:
    """An RFC 3339 / ISO 8601 time as an aware datetime (naive times are taken as UTC); None if unreadable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def newest_first(rows: Iterable[SessionListing]) -> list[SessionListing]:
    """Most recently updated first; rows with no time keep their order after the others."""
    timed = sorted((r for r in rows if r.updated_at is not None), key=_time_key, reverse=True)
    return timed + [r for r in rows if r.updated_at is None]


def _time_key(row: SessionListing) -> float:
    assert row.updated_at is not None
    return row.updated_at.timestamp()


def merge(agent_rows: Iterable[SessionListing], transcript_rows: Iterable[SessionListing]) -> list[SessionListing]:
    """Agent rows get the transcript we have of them; transcripts the agent did not list stay as their own rows.

    A session that never got a prompt (an acp-tui start left unused, the session a `--resume` visit opened) is
    no row at all, though our index knows it and many agents list it: an untitled agent row is left out when our
    transcript of it says no prompt was sent. An agent row with a title stays whatever our index says."""
    by_id: dict[str, SessionListing] = {}
    for row in transcript_rows:
        by_id.setdefault(row.session_id, row)
    out: list[SessionListing] = []
    for row in agent_rows:
        ours = by_id.pop(row.session_id, None)
        if ours is not None and not ours.prompted and row.title is None:
            continue
        if ours is not None:
            row = replace(
                row,
                transcript=ours.transcript,
                title=row.title or ours.title,
                updated_at=row.updated_at or ours.updated_at,
                haystack=row.haystack if row.title else ours.haystack,
            )
        out.append(row)
    out.extend(row for row in by_id.values() if row.prompted)
    return newest_first(out)


def matching(rows: Sequence[SessionListing], query: str) -> list[int]:
    """Indexes of the rows whose title, id or folder contain every word of `query` (case-insensitive)."""
    words = query.casefold().split()
    found = list(range(len(rows)))
    for word in words:  # one tight pass per word over what is left (5,000 rows: well under a millisecond)
        found = [i for i in found if word in rows[i].haystack]
    return found


def _title(title: str | None) -> str | None:
    if title is None:
        return None
    clean = plain(title).strip()
    if len(clean) > TITLE_LIMIT:
        clean = clean[: TITLE_LIMIT - 1] + "…"
    return clean or None


def has_prompt(state: SessionState) -> bool:
    """Was a prompt sent in the session (one of its own, or one its replayed history holds)?"""
    return any(key[0] == USER_MESSAGE for key in state.entities)


def state_title(state: SessionState) -> str | None:
    """The session's title: the agent's (`session_info_update`), else the start of its first prompt."""
    if state.info.title:
        return _title(state.info.title)
    return prompt_title(state)


def prompt_title(state: SessionState, limit: int = PROMPT_TITLE_LIMIT) -> str | None:
    """The start of the session's first prompt that has words, on one line, at most `limit` characters (a cut one
    ends in `…`); None before any. Only the start of a prompt is read: a pasted megabyte costs what a line does."""
    for key, entity in state.entities.items():
        if key[0] == USER_MESSAGE and isinstance(entity, Message):
            text = entity.text
            words = " ".join(text[: limit * 8].split()) or " ".join(text.split())
            if words:
                return _title(words if len(words) <= limit else words[: limit - 1].rstrip() + "…")
    return None


def same_folder(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Do two absolute paths name the same folder (symlinks and `..` resolved where they exist)?"""
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


# -- the transcript index ----------------------------------------------------------------------------------


def index_file() -> Path:
    """Where the sessions we have transcripts of are listed (one JSON object a line, the last per file wins)."""
    return paths.data_dir() / "sessions.jsonl"


class IndexEntry(msgspec.Struct, frozen=True):
    """What the index knows of one transcript: whose session it is, where, and what it is called."""

    transcript: Path
    session_id: str
    agent: str
    cwd: str
    title: str | None = None
    updated_at: float = 0.0
    #: a prompt was sent in it; an entry written before this was recorded: it has a title
    prompted: bool = True


class SessionIndex:
    """Appends and reads the transcript index; never raises into its caller (the conversation goes on)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else index_file()
        self.error: str | None = None

    def record(self, entry: IndexEntry) -> None:
        """Add or update the entry of one transcript."""
        line = json.dumps(
            {
                "transcript": str(entry.transcript),
                "sessionId": entry.session_id,
                "agent": entry.agent,
                "cwd": entry.cwd,
                "title": entry.title,
                "updatedAt": round(entry.updated_at or time.time(), 3),
                "prompted": entry.prompted,
            },
            ensure_ascii=True,
        )
        try:
            paths.ensure_dir(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as file:
                file.write(line + "\n")
        except OSError as exc:
            self.error = f"the session index could not be written: {exc.strerror or exc}"

    def entries(self) -> list[IndexEntry]:
        """Every transcript the index knows and that still exists, folded to its latest entry."""
        try:
            data = self.path.read_bytes()
        except OSError:
            return []
        folded: dict[str, IndexEntry] = {}
        for raw in data.splitlines():
            entry = _entry(raw)
            if entry is not None:
                folded[str(entry.transcript)] = entry
        return [e for e in folded.values() if e.transcript.is_file()]

    def sessions(self, agent: str, cwd: str | os.PathLike[str] | None) -> list[SessionListing]:
        """Rows for the transcripts of `agent`'s sessions in `cwd` (None: every folder), newest transcript per id;
        those never prompted come as rows with `prompted` false (for `merge`, which leaves them out)."""
        folder = str(Path(cwd).resolve()) if cwd is not None else None
        newest: dict[str, IndexEntry] = {}
        #: a session prompted in any of its transcripts was prompted (a later visit may have shown no history)
        prompted: dict[str, str | None] = {}
        for entry in self.entries():
            if entry.agent != agent or (folder is not None and not same_folder(entry.cwd, folder)):
                continue
            kept = newest.get(entry.session_id)
            if kept is None or entry.updated_at >= kept.updated_at:
                newest[entry.session_id] = entry
            if entry.prompted:
                prompted[entry.session_id] = entry.title or prompted.get(entry.session_id)
        return newest_first(
            listing(
                e.session_id,
                e.cwd,
                e.title or prompted.get(e.session_id),
                datetime.fromtimestamp(e.updated_at, UTC) if e.updated_at else None,
                listed=False,
                transcript=e.transcript,
                prompted=e.session_id in prompted,
            )
            for e in newest.values()
        )


def _entry(raw: bytes) -> IndexEntry | None:
    try:
        obj: Any = json.loads(raw)
    except ValueError:
        return None  # a torn last line
    if not isinstance(obj, dict):
        return None
    transcript, session_id, agent, cwd = (obj.get(k) for k in ("transcript", "sessionId", "agent", "cwd"))
    if not all(isinstance(v, str) and v for v in (transcript, session_id, agent, cwd)):
        return None
    title = obj.get("title") if isinstance(obj.get("title"), str) else None
    updated = obj.get("updatedAt")
    prompted = obj.get("prompted")
    return IndexEntry(
        Path(str(transcript)),
        str(session_id),
        str(agent),
        str(cwd),
        title,
        float(updated) if isinstance(updated, (int, float)) else 0.0,
        prompted if isinstance(prompted, bool) else title is not None,
    )


__all__ = [
    "MAX_CURSOR_LENGTH",
    "MAX_LISTED_SESSIONS",
    "MAX_LIST_PAGES",
    "IndexEntry",
    "SessionIndex",
    "SessionListing",
    "SessionPage",
    "SessionPaging",
    "from_wire",
    "has_prompt",
    "index_file",
    "listing",
    "matching",
    "merge",
    "newest_first",
    "parse_time",
    "prompt_title",
    "same_folder",
    "state_title",
]
