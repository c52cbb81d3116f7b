"""What the demo agent remembers of its sessions: their history (to replay), title, folder and last activity.

In memory by default; with `ACP_TUI_DEMO_STORE=DIR` it also lives on disk, so a later demo process can
list, load and resume yesterday's sessions like a real agent (`acp-tui --continue`, the session list).
On disk: `index.json` (every session's folder, title, time and protocol version) and one
`<id>.history.jsonl` per session (its updates, one JSON object a line, read only when it is replayed).

A history keeps what a client shows: messages, thoughts, tool calls, plans, terminals, usage. Live-only
updates (foreground states, notices, commands, config, session info) are not replayed (docs/protocol.md §3).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

STORE_ENV = "ACP_TUI_DEMO_STORE"
PAGE_SIZE_ENV = "ACP_TUI_DEMO_PAGE_SIZE"
#: Replay half the history, then fail the request (tests of a load that fails halfway).
BREAK_REPLAY_ENV = "ACP_TUI_DEMO_BREAK_REPLAY"
DEFAULT_PAGE_SIZE = 50
#: Updates a client shows but does not need replayed (they describe the live session, not its history).
LIVE_ONLY = frozenset(
    {
        "state_update",
        "notice",
        "available_commands_update",
        "config_option_update",
        "current_mode_update",
        "session_info_update",
    }
)

_encoder = msgspec.json.Encoder()


class BadCursor(Exception):
    """A `session/list` cursor this store did not make."""


def now_rfc3339() -> str:
    """The time now as RFC 3339 with milliseconds, in UTC."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class StoredSession:
    """One session as the store keeps it; `history` is None until it is read from disk."""

    session_id: str
    cwd: str
    version: int
    title: str | None = None
    updated_at: str = field(default_factory=now_rfc3339)
    history: list[Any] | None = field(default_factory=list)

    def meta(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "version": self.version,
            "title": self.title,
            "updatedAt": self.updated_at,
        }


class SessionStore:
    """The demo's sessions by id, newest activity first when listed."""

    def __init__(self, directory: Path | None = None, page_size: int = DEFAULT_PAGE_SIZE) -> None:
        self.directory = directory
        self.page_size = max(1, page_size)
        self.sessions: dict[str, StoredSession] = {}
        if directory is not None:
            self._load_index()

    @classmethod
    def from_env(cls) -> SessionStore:
        raw = os.environ.get(STORE_ENV, "").strip()
        try:
            page = int(os.environ.get(PAGE_SIZE_ENV, "") or DEFAULT_PAGE_SIZE)
        except ValueError:
            page = DEFAULT_PAGE_SIZE
        return cls(Path(raw).expanduser() if raw else None, page)

    # -- sessions ---------------------------------------------------------------------------------------

    def add(self, session_id: str, cwd: str, version: int) -> StoredSession:
        stored = self.sessions.get(session_id)
        if stored is None:
            stored = self.sessions[session_id] = StoredSession(session_id, cwd, version)
            self._save_index()
        return stored

    def get(self, session_id: str, version: int) -> StoredSession | None:
        """A session recorded in this protocol version (a v1 history cannot be replayed to a v2 client)."""
        stored = self.sessions.get(session_id)
        return stored if stored is not None and stored.version == version else None

    def remember(self, session_id: str, update: Any) -> None:
        """Keep an update for replay (live-only kinds are skipped)."""
        stored = self.sessions.get(session_id)
        if stored is None:
            return
        data = update if isinstance(update, dict) else msgspec.to_builtins(update)
        if not isinstance(data, dict) or data.get("sessionUpdate") in LIVE_ONLY:
            return
        history = self.history(stored)
        history.append(data)
        if self.directory is not None:
            self._append(stored, data)

    def touched(self, stored: StoredSession, title: str | None = None) -> None:
        """A turn ended: the session's last activity is now (and it may have its title)."""
        stored.updated_at = now_rfc3339()
        if title is not None and stored.title is None:
            stored.title = title
        self._save_index()

    def delete(self, session_id: str) -> None:
        if self.sessions.pop(session_id, None) is not None:
            self._save_index()
            if self.directory is not None:
                self._history_file(session_id).unlink(missing_ok=True)

    def history(self, stored: StoredSession) -> list[Any]:
        if stored.history is None:
            stored.history = self._read_history(stored.session_id)
        return stored.history

    def page(self, version: int, cwd: str | None, cursor: str | None) -> tuple[list[StoredSession], str | None]:
        """One page of this version's sessions (in `cwd` when given), newest first, and the next cursor."""
        rows = [s for s in self.sessions.values() if s.version == version and (cwd is None or s.cwd == cwd)]
        rows.sort(key=lambda s: s.updated_at, reverse=True)
        start = _offset(cursor) if cursor is not None else 0
        if start > len(rows):
            raise BadCursor(cursor)
        end = start + self.page_size
        return rows[start:end], (_cursor(end) if end < len(rows) else None)

    # -- disk ---------------------------------------------------------------------------------------------

    def _index_file(self) -> Path:
        assert self.directory is not None
        return self.directory / "index.json"

    def _history_file(self, session_id: str) -> Path:
        assert self.directory is not None
        safe = base64.urlsafe_b64encode(session_id.encode()).decode().rstrip("=")
        return self.directory / f"{safe}.history.jsonl"

    def _load_index(self) -> None:
        try:
            data = json.loads(self._index_file().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        for meta in data if isinstance(data, list) else []:
            try:
                stored = StoredSession(
                    str(meta["sessionId"]),
                    str(meta["cwd"]),
                    int(meta["version"]),
                    meta.get("title"),
                    str(meta["updatedAt"]),
                    history=None,
                )
            except (KeyError, TypeError, ValueError):
                continue
            self.sessions[stored.session_id] = stored

    def _save_index(self) -> None:
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        temporary = self._index_file().with_suffix(".tmp")
        temporary.write_text(json.dumps([s.meta() for s in self.sessions.values()]), encoding="utf-8")
        temporary.replace(self._index_file())

    def _append(self, stored: StoredSession, data: dict[str, Any]) -> None:
        assert self.directory is not None
        self.directory.mkdir(parents=True, exist_ok=True)
        with self._history_file(stored.session_id).open("ab") as file:
            file.write(_encoder.encode(data) + b"\n")

    def _read_history(self, session_id: str) -> list[Any]:
        if self.directory is None:
            return []
        try:
            lines = self._history_file(session_id).read_bytes().splitlines()
        except OSError:
            return []
        out: list[Any] = []
        for line in lines:
            try:
                out.append(msgspec.json.decode(line))
            except msgspec.DecodeError:
                continue  # a torn last line
        return out


def write_sessions(directory: Path, sessions: list[tuple[StoredSession, list[dict[str, Any]]]]) -> None:
    """Put ready-made sessions into a store directory (benchmarks and tests build large histories)."""
    directory.mkdir(parents=True, exist_ok=True)
    store = SessionStore(directory)
    for stored, updates in sessions:
        store.sessions[stored.session_id] = StoredSession(
            stored.session_id, stored.cwd, stored.version, stored.title, stored.updated_at, history=None
        )
        if updates:
            with store._history_file(stored.session_id).open("wb") as file:
                file.write(b"\n".join(_encoder.encode(u) for u in updates) + b"\n")
    store._save_index()


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"demo:{offset}".encode()).decode()


def _offset(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadCursor(cursor) from None
    prefix, _, number = text.partition(":")
    if prefix != "demo" or not number.isdigit():
        raise BadCursor(cursor)
    return int(number)


__all__ = [
    "BREAK_REPLAY_ENV",
    "BadCursor",
    "LIVE_ONLY",
    "PAGE_SIZE_ENV",
    "STORE_ENV",
    "SessionStore",
    "StoredSession",
    "now_rfc3339",
    "write_sessions",
]
