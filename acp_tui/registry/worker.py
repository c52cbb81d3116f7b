"""The registry's slow work for the TUI, done in a child process: reading the index, and installing one agent.

`python -m acp_tui.registry.worker index` writes the index (read as `acp-tui agents` reads it) as one JSON
line; `... install ID [--preview] [--kind K] [--trust-unverified]` installs as `acp-tui add` does and writes its
progress as JSON lines, one `Report` each, the last a `Done` or a `Failed`. Why a process and not a thread: the
install unwinds SIGTERM (installs.py: the tool's group killed, the temp folder removed), which only a main thread
can catch, so closing the dialog or quitting acp-tui mid-install is one SIGTERM that leaves nothing half-installed;
and the UI process never imports HTTP, TLS or the schema validator (docs/performance.md: acp-tui's own process
opens no network connection). The agent-supplied text it passes on is bounded first (roster.MAX_*), so a 50 MB
description costs the UI nothing.

This module imports only msgspec and entries at the top: the UI imports it for `Report` and `command`.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Sequence

import msgspec

from acp_tui.registry.entries import KINDS, Entry, Kind, Unusable

__all__ = ["Done", "Failed", "IndexReport", "Line", "Report", "Step", "Transfer", "command", "decode_report", "main"]

#: the longest text of one progress report
_TEXT = 300
_NAME = 200
_DESCRIPTION = 4000


class Step(msgspec.Struct, frozen=True, tag="step"):
    text: str


class Line(msgspec.Struct, frozen=True, tag="line"):
    """A line of the running tool's output (npm, pip)."""

    text: str


class Transfer(msgspec.Struct, frozen=True, tag="transfer"):
    done: int
    total: int | None


class Done(msgspec.Struct, frozen=True, tag="done"):
    id: str
    version: str
    #: what happened to a version it replaced
    note: str | None = None


class Failed(msgspec.Struct, frozen=True, tag="failed"):
    message: str


class IndexReport(msgspec.Struct, frozen=True, tag="index"):
    """The index as the child read it (names and descriptions bounded)."""

    entries: tuple[Entry, ...]
    unusable: tuple[Unusable, ...]
    left_out: int
    origin: str
    notes: tuple[str, ...] = ()

    def find(self, agent_id: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.id == agent_id), None)


Report = Step | Line | Transfer | Done | Failed | IndexReport

_DECODER = msgspec.json.Decoder(Report)


def decode_report(line: bytes) -> Report | None:
    """One line of the child's output; None when it is not a report (the child is ours, but a line may be cut)."""
    try:
        return _DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def command(*args: str) -> list[str]:
    """The child's command line, with this interpreter."""
    return [sys.executable, "-m", "acp_tui.registry.worker", *args]


class _JsonProgress:
    """`Progress` as reports on stdout; a transfer at most ten times a second (and its last)."""

    def __init__(self) -> None:
        self._last = 0.0

    def step(self, text: str) -> None:
        _emit(Step(text[:_TEXT]))

    def line(self, text: str) -> None:
        if text.strip():
            _emit(Line(text[:_TEXT]))

    def transfer(self, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - self._last >= 0.1 or (total is not None and done >= total):
            self._last = now
            _emit(Transfer(done, total))

    def finish(self) -> None:
        pass


def _emit(report: Report) -> None:
    with contextlib.suppress(OSError):  # the UI is gone: it sends SIGTERM too, which unwinds the install
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
        sys.stdout.buffer.flush()


def _bounded(entry: Entry) -> Entry:
    if len(entry.name) <= _NAME and len(entry.description) <= _DESCRIPTION:
        return entry
    return msgspec.structs.replace(entry, name=entry.name[:_NAME], description=entry.description[:_DESCRIPTION])


def _index() -> int:
    from acp_tui.config import load_settings
    from acp_tui.paths import config_file
    from acp_tui.registry.source import IndexError_, load_index, location

    settings, _warnings = load_settings(config_file())
    try:
        index = load_index(location(settings.registry))
    except IndexError_ as exc:
        _emit(Failed(str(exc)))
        return 1
    entries = tuple(_bounded(entry) for entry in index.entries)
    _emit(IndexReport(entries, index.unusable, index.left_out, index.origin, index.notes))
    return 0


def _install(args: Sequence[str]) -> int:
    from acp_tui.config import load_settings
    from acp_tui.paths import config_file
    from acp_tui.registry.installs import InstallError, Interrupted, install, make_plan
    from acp_tui.registry.manifest import sweep
    from acp_tui.registry.source import IndexError_, load_index, location

    agent_id, options = args[0], set(args[1:])
    kind: Kind | None = next((k for k in KINDS if f"--kind={k}" in options), None)
    settings, _warnings = load_settings(config_file())
    try:
        sweep()
        index = load_index(location(settings.registry))
        entry = index.find(agent_id)
        if entry is None:
            _emit(Failed(f"no agent {agent_id!r} in the registry ({index.origin})"))
            return 1
        plan = make_plan(
            entry,
            preview="--preview" in options,
            kind=kind,
            trust_unverified="--trust-unverified" in options,
        )
        _emit(Step(f"installing {plan.describe()}"[:_TEXT]))
        agent, note = install(plan, index.where, _JsonProgress())
    except (IndexError_, InstallError) as exc:
        _emit(Failed(str(exc)))
        return 1
    except OSError as exc:
        _emit(Failed(f"cannot install {agent_id}: {exc.strerror or exc}: {exc.filename or ''}"))
        return 1
    except (Interrupted, KeyboardInterrupt):
        _emit(Failed("interrupted; nothing was left half-installed"))
        return 130
    _emit(Done(agent.id, agent.version, note))
    return 0


def main(argv: Sequence[str]) -> int:
    match list(argv):
        case ["index"]:
            return _index()
        case ["install", agent_id, *options]:
            return _install([agent_id, *options])
        case _:
            print("usage: python -m acp_tui.registry.worker index | install ID [options]", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
