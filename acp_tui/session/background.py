"""Background work: what the agent says still runs outside the foreground (v2 `state_update.background`).

The schema's rules ("Background Work" in the Prompt Lifecycle page, docs/protocol.md §9): each
`state_update` that carries `background` is a complete snapshot that replaces the last one; an omitted or
`null` list means "not reported", not "nothing runs"; each item names an entity the agent announced first
(a `terminal_update`, a `tool_call_update`, or for the unstable `subagent` kind a `subagent_update`) and the
agent reports its final status before the snapshot that drops it (a terminal's or a tool call's: the schema
gives a subagent none). What breaks a rule is logged once per rule and kept: an item not announced is still shown
(by its id, it still runs), an item dropped while unfinished still goes. An item of an unknown type still
means work is running: it is counted, never shown as something it is not.

Hostile lists are bounded: at most `MAX_JOBS` items are kept (the rest counted), ids are capped in length.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from msgspec import UNSET

from acp_tui.protocol.v2 import BackgroundWork

#: at most this many background items are kept from one snapshot; the rest are counted as `hidden`
MAX_JOBS: Final = 200
#: an id longer than this is cut (a key in a dict, shown in the tray: never a megabyte)
MAX_ID_CHARS: Final = 200

JobKind = Literal["terminal", "tool_call", "subagent"]


class Job:
    """One listed piece of background work: a terminal, a tool call or a subagent (its session), by its wire id."""

    __slots__ = ("kind", "id")

    def __init__(self, kind: JobKind, job_id: str) -> None:
        self.kind: JobKind = kind
        self.id: str = job_id

    @property
    def ident(self) -> tuple[JobKind, str]:
        return (self.kind, self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Job) and other.ident == self.ident

    def __hash__(self) -> int:
        return hash(self.ident)

    def __repr__(self) -> str:
        return f"Job({self.kind!r}, {self.id!r})"


class Background:
    """The latest snapshot: `jobs` in the agent's order, `other` items of kinds we cannot show, `hidden`
    items beyond the cap. `reported` is False until the agent sends a list (then nothing is shown)."""

    __slots__ = ("reported", "jobs", "other", "hidden", "warned")

    def __init__(self) -> None:
        self.reported: bool = False
        self.jobs: tuple[Job, ...] = ()
        self.other: int = 0
        self.hidden: int = 0
        #: rule breaks already logged (each once per session)
        self.warned: set[str] = set()

    @property
    def count(self) -> int:
        """How many pieces of work run in the background (all of them, shown or not)."""
        return len(self.jobs) + self.other + self.hidden

    def snapshot(self) -> tuple[tuple[Job, ...], int, int]:
        return (self.jobs, self.other, self.hidden)


class Snapshot:
    """One wire list read: the `jobs` kept (duplicates once), `other` items of unknown kinds, `hidden` items
    beyond the cap, `notes` on malformed items, and the first item of the whole list, kept or not, that names
    work the agent never announced (`unannounced`)."""

    __slots__ = ("jobs", "other", "hidden", "notes", "unannounced")

    def __init__(self) -> None:
        self.jobs: tuple[Job, ...] = ()
        self.other = 0
        self.hidden = 0
        self.notes: list[str] = []
        self.unannounced: Job | None = None


def read_snapshot(items: list[BackgroundWork], announced: Callable[[Job], bool]) -> Snapshot:
    """A wire list as a `Snapshot`. Every item is checked against `announced`, those past the cap too: the
    rule holds for the list the agent sent, not for the part of it that is kept."""
    snapshot = Snapshot()
    jobs: dict[Job, None] = {}
    for index, item in enumerate(items):
        job = _item_job(item)
        if job is not None and snapshot.unannounced is None and not announced(job):
            snapshot.unannounced = job
        if snapshot.hidden or len(jobs) + snapshot.other >= MAX_JOBS:
            snapshot.hidden = snapshot.hidden or len(items) - index
            if snapshot.unannounced is not None:
                break  # past the cap only the rule was still being checked, and it is broken already
            continue
        if job is None:
            if item.type in ("terminal", "tool_call", "subagent"):
                snapshot.notes.append(f"a background {item.type} item without its id")
            else:
                snapshot.other += 1
            continue
        jobs[job] = None
    snapshot.jobs = tuple(jobs)
    return snapshot


def _item_job(item: BackgroundWork) -> Job | None:
    """The job an item names (None: an unknown kind, or no id)."""
    if item.type == "terminal":
        return _job("terminal", item.terminal_id)
    if item.type == "tool_call":
        return _job("tool_call", item.tool_call_id)
    if item.type == "subagent":
        return _job("subagent", item.session_id)
    return None


def _job(kind: JobKind, job_id: object) -> Job | None:
    if job_id is UNSET or not isinstance(job_id, str) or not job_id:
        return None
    return Job(kind, job_id[:MAX_ID_CHARS])


__all__ = ["MAX_JOBS", "MAX_ID_CHARS", "JobKind", "Job", "Background", "Snapshot", "read_snapshot"]
