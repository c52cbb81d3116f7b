"""An `AgentSession` against a real agent process, and the recorder of what it reported (session tests)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.agent.session_events import SessionEvent
from acp_tui.agent.trace import Direction
from acp_tui.services.permission import PermissionQuestion, PermissionService
from tests.support.schema_check import validate_client_message


@dataclass
class Asked:
    """One permission question as the scripted user saw it; the test resolves `outcome`."""

    question: PermissionQuestion
    outcome: asyncio.Future[str | None]

    @property
    def request_id(self) -> int | str:
        return self.question.request_id

    @property
    def request(self) -> Any:
        return self.question.request


class Recorder:
    """Trace sink keeping what the session sent, an event sink with a condition wait, and a scripted asker."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.events: list[SessionEvent] = []
        self.asked: list[Asked] = []
        self._changed = asyncio.Event()

    async def ask_permission(self, question: PermissionQuestion) -> str | None:
        asked = Asked(question, asyncio.get_running_loop().create_future())
        self.asked.append(asked)
        self._changed.set()
        try:
            return await asyncio.shield(asked.outcome)
        except asyncio.CancelledError:
            if not asked.outcome.done():
                asked.outcome.set_result("cancelled")  # withdrawn: what the dialog would show
            raise

    def permissions_waiting(self, count: int) -> None:
        self._changed.set()

    def record(self, direction: Direction, payload: Any) -> None:
        if direction == "->":
            self.sent.append(bytes(payload))

    def session_event(self, session: AgentSession, event: SessionEvent) -> None:
        self.events.append(event)
        self._changed.set()

    def permissions(self) -> list[Asked]:
        return list(self.asked)

    async def until(self, condition: Callable[[], bool], timeout: float = 30) -> None:
        async def wait() -> None:
            while not condition():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout)

    def validate_sent(self, version: int, hybrid_initialize: bool = True) -> int:
        """Check every sent frame against the schema; return how many were checked."""
        for line in self.sent:
            msg = json.loads(line)
            if msg.get("method") == "initialize" and hybrid_initialize:
                validate_client_message(msg, 2)
            elif "method" in msg:
                validate_client_message(msg, version)
            else:
                validate_client_message(msg, version, answering="session/request_permission")
        return len(self.sent)


def idle_with(session: AgentSession, reason: str) -> Callable[[], bool]:
    fg = session.state.foreground
    return lambda: fg.state == "idle" and not fg.busy and fg.stop_reason == reason


@pytest.fixture
async def recorder() -> Recorder:
    return Recorder()


def make_session(argv: list[str], recorder: Recorder, tmp_path: Path, **kwargs: Any) -> AgentSession:
    return AgentSession(
        argv, cwd=tmp_path, trace=recorder, listener=recorder, services=[PermissionService(recorder)], **kwargs
    )
