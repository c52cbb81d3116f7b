"""The file service with its context and a scripted asker, and its read/write requests."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.protocol.jsonrpc import (
    Request,
    RpcError,
)
from acp_tui.services.base import ServiceContext
from acp_tui.services.files import FileService, OutsideRead, OutsideWrite
from acp_tui.session.local_events import FileAccessed

SESSION = "sess-1"


class Context:
    """What `AgentSession` gives a service, recorded."""

    def __init__(self, cwd: Path, version: int = 1) -> None:
        self.cwd = cwd.resolve()
        self.version = version
        self.applied: list[object] = []
        self.reports: list[str] = []

    def context(self) -> ServiceContext:
        return ServiceContext(
            version=self.version,
            cwd=self.cwd,
            session_id=lambda: SESSION,
            apply=self.applied.append,
            report=lambda reason, raw: self.reports.append(reason),
        )

    @property
    def accesses(self) -> list[FileAccessed]:
        return [item for item in self.applied if isinstance(item, FileAccessed)]


class ScriptedAsker:
    """Answers outside-the-folder questions from a script; `None` in the script waits until withdrawn."""

    def __init__(self, *answers: bool | None) -> None:
        self.answers = list(answers)
        self.asked: list[OutsideWrite] = []
        self.reads: list[OutsideRead] = []
        self.waiting = asyncio.Event()

    async def confirm_outside_read(self, read: OutsideRead) -> bool:
        self.reads.append(read)
        return await self._answer()

    async def confirm_outside_write(self, write: OutsideWrite) -> bool:
        self.asked.append(write)
        return await self._answer()

    async def _answer(self) -> bool:
        answer = self.answers.pop(0)
        if answer is None:
            self.waiting.set()
            await asyncio.Event().wait()  # until cancelled
        assert answer is not None
        return answer


def make(tmp_path: Path, *, version: int = 1, **kwargs: Any) -> tuple[FileService, Context, Path]:
    """A bound service for the folder `tmp_path/project` (created), its recorded context, and that folder."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    service = FileService(**kwargs)
    context = Context(project, version)
    service.bind(context.context())
    return service, context, context.cwd


def request(method: str, params: dict[str, Any], request_id: int = 1) -> Request:
    return Request(request_id, method, msgspec.Raw(json.dumps(params).encode()))


async def read(service: FileService, path: Path | str, **extra: Any) -> str:
    handler = service.methods()["fs/read_text_file"]
    result = await handler(request("fs/read_text_file", {"sessionId": SESSION, "path": str(path), **extra}))
    content: str = result.content
    return content


async def write(service: FileService, path: Path | str, content: str, **extra: Any) -> Any:
    handler = service.methods()["fs/write_text_file"]
    return await handler(
        request("fs/write_text_file", {"sessionId": SESSION, "path": str(path), "content": content, **extra})
    )


async def rpc_error(call: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        await call
    return info.value
