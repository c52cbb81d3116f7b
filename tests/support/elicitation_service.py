"""The elicitation service's surroundings: a scripted asker, an in-memory transport, a scripted agent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from acp_tui.agent.connection import Connection
from acp_tui.agent.process import ExitInfo
from acp_tui.services.base import ServiceContext
from acp_tui.services.elicitation import (
    ElicitationService,
    FormOutcome,
    FormQuestion,
    RefusedElicitation,
    UrlOutcome,
    UrlQuestion,
)
from tests.support.schema_check import validate_client_message

FormScript = Callable[[FormQuestion], Awaitable[FormOutcome]]


UrlScript = Callable[[UrlQuestion], Awaitable[UrlOutcome]]


class ScriptedAsker:
    """Answers questions with scripts (queued per kind); records questions, withdrawals and refusals."""

    def __init__(self) -> None:
        self.form_scripts: list[FormScript] = []
        self.url_scripts: list[UrlScript] = []
        self.forms: list[FormQuestion] = []
        self.urls: list[UrlQuestion] = []
        self.withdrawn: list[int | str] = []
        self.refusals: list[RefusedElicitation] = []
        self.asked = asyncio.Event()

    async def ask_form(self, question: FormQuestion) -> FormOutcome:
        self.forms.append(question)
        self.asked.set()
        script = self.form_scripts.pop(0) if self.form_scripts else never
        try:
            return await script(question)
        except asyncio.CancelledError:
            self.withdrawn.append(question.request_id)
            raise

    async def ask_url(self, question: UrlQuestion) -> UrlOutcome:
        self.urls.append(question)
        self.asked.set()
        script = self.url_scripts.pop(0) if self.url_scripts else never
        try:
            return await script(question)
        except asyncio.CancelledError:
            self.withdrawn.append(question.request_id)
            raise

    def elicitation_refused(self, refusal: RefusedElicitation) -> None:
        self.refusals.append(refusal)


async def never(question: Any) -> Any:
    await asyncio.Event().wait()


class MemoryTransport:
    """The agent's end of the pipe, in memory: frames in by `feed`, the client's frames in `sent`."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.wrote = asyncio.Event()
        self._on_data: Callable[[bytes], None] | None = None
        self._on_close: Callable[[ExitInfo], None] | None = None

    def start_reading(self, on_data: Callable[[bytes], None], on_close: Callable[[ExitInfo], None]) -> None:
        self._on_data, self._on_close = on_data, on_close

    async def write(self, data: bytes) -> None:
        for line in data.splitlines():
            self.sent.append(json.loads(line))
        self.wrote.set()

    def feed(self, message: dict[str, Any]) -> None:
        assert self._on_data is not None
        self._on_data(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def close(self) -> None:
        assert self._on_close is not None
        self._on_close(ExitInfo(code=0, signal=None, stderr_tail=""))


class Agent:
    """A scripted agent talking to an `ElicitationService` through a real `Connection`."""

    def __init__(self, version: int, service: ElicitationService, asker: ScriptedAsker) -> None:
        self.version = version
        self.service = service
        self.asker = asker
        self.transport = MemoryTransport()
        self.problems: list[str] = []
        self.connection = Connection(self.transport, on_problem=lambda p: self.problems.append(p.reason))
        for method, handler in service.methods().items():
            self.connection.on_request(method, handler)
        for method, notification in service.notifications().items():
            self.connection.on_notification(method, notification)
        self.connection.start()
        self.session = "s1"
        service.bind(
            ServiceContext(
                version=version,
                cwd=Path("/"),
                session_id=lambda: self.session,
                apply=lambda item: None,
                report=lambda reason, raw: self.problems.append(reason),
            )
        )
        self._ids = 100

    def ask(self, params: dict[str, Any], request_id: int | str | None = None) -> int | str:
        """Send `elicitation/create`; return its id."""
        if request_id is None:
            self._ids += 1
            request_id = self._ids
        self.transport.feed({"id": request_id, "method": "elicitation/create", "params": params})
        return request_id

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.transport.feed({"method": method, "params": params})

    def answers(self, request_id: int | str) -> list[dict[str, Any]]:
        return [frame for frame in self.transport.sent if frame.get("id") == request_id]

    async def answer(self, request_id: int | str) -> dict[str, Any]:
        """The one frame answering `request_id` (waits for it)."""

        async def wait() -> None:
            while not self.answers(request_id):
                self.transport.wrote.clear()
                await self.transport.wrote.wait()

        await asyncio.wait_for(wait(), 5)
        await asyncio.sleep(0.01)  # a second answer would be written by now
        frames = self.answers(request_id)
        assert len(frames) == 1, frames
        return frames[0]

    async def until_asked(self, count: int = 1) -> None:
        async def wait() -> None:
            while len(self.asker.forms) + len(self.asker.urls) < count:
                self.asker.asked.clear()
                await self.asker.asked.wait()

        await asyncio.wait_for(wait(), 5)

    def validate_sent(self) -> None:
        for frame in self.transport.sent:
            validate_client_message(frame, self.version, answering="elicitation/create")


def url_params(elicitation_id: str = "login-1", url: str = "https://auth.example.com/device?code=X") -> dict[str, Any]:
    return {"sessionId": "s1", "message": "Log in", "mode": "url", "elicitationId": elicitation_id, "url": url}
