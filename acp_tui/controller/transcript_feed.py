"""The controller's transcript feed: the model's changes, written once per frame to the open transcript.

`SessionController` owns one (`controller.transcript`) and is its `TranscriptHost`. Changes wait here
until the next frame (one write per frame, not per update) or until a client line must follow them, so the
transcript keeps conversation order; the `TranscriptWriter` is the session's (the switcher opens a new
one for each session it shows). Without a writer (transcripts off, nothing opened yet) nothing is kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Protocol

from acp_tui.agent.session import AgentSession
from acp_tui.session.changes import Change
from acp_tui.session.coalesce import coalesce
from acp_tui.session.model import SessionState
from acp_tui.transcript import TranscriptWriter

#: how often the transcript is flushed while updates stream (one write per frame, not per update)
TRANSCRIPT_FRAME = 1 / 30


class TranscriptHost(Protocol):
    """What the feed needs of its controller: the current agent session (whose model the changes belong to)."""

    @property
    def session(self) -> AgentSession | None: ...


class TranscriptFeed:
    """The changes not yet written, and the writer of the session shown (None before one is opened)."""

    def __init__(self, host: TranscriptHost) -> None:
        self._host = host
        self.writer: TranscriptWriter | None = None
        self._pending_transcript: list[Change] = []
        self._transcript_flush: asyncio.TimerHandle | None = None

    @property
    def error(self) -> str | None:
        """Why the transcript cannot be written (said once in the UI), None while it can."""
        return self.writer.error if self.writer is not None else None

    def changed(self, changes: Iterable[Change]) -> None:
        """The model changed: write it with the next frame."""
        if self.writer is not None:  # with none open, nothing would ever flush them
            self._pending_transcript.extend(changes)
            self._schedule_transcript()

    def note(self, text: str, kind: str = "note") -> None:
        """A client line in the open transcript (nothing when none is open)."""
        if self.writer is not None:
            self.writer.note(text, kind=kind)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def _schedule_transcript(self) -> None:
        if self._transcript_flush is None:
            self._transcript_flush = asyncio.get_running_loop().call_later(TRANSCRIPT_FRAME, self.flush)

    def flush(self, state: SessionState | None = None) -> None:
        """Write the pending changes; `state` is the model they belong to (the current one by default)."""
        if self._transcript_flush is not None:
            self._transcript_flush.cancel()
            self._transcript_flush = None
        changes, self._pending_transcript = self._pending_transcript, []
        session = self._host.session
        if state is None and session is not None:
            state = session.state
        if changes and self.writer is not None and state is not None:
            self.writer.write_changes(state, coalesce(changes))


__all__ = ["TRANSCRIPT_FRAME", "TranscriptFeed", "TranscriptHost"]
