"""A bare JSON-RPC client driving the demo agent, and readers of the messages it got."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from tests.support.paths import REPO
from tests.support.schema_check import validate_agent_message

TIMEOUT = 10.0


CWD = "/home/user/project"


Msg = dict[str, Any]


PermissionPolicy = Callable[[Msg], Msg | None]


def allow(option: str = "allow_once") -> PermissionPolicy:
    """Answer every permission request by selecting `option`."""
    return lambda _request: {"outcome": {"outcome": "selected", "optionId": option}}


class DemoClient:
    """A minimal ACP client over the demo's stdio that records and validates every message."""

    def __init__(self, version: int, *, speed: float = 0.0, permission: PermissionPolicy | None = None) -> None:
        self.version = version
        self.speed = speed
        self.permission = permission if permission is not None else allow()
        self.received: list[Msg] = []
        self.invalid: list[str] = []
        self._methods: dict[int, str] = {}
        self._ids = iter(range(1, 1_000_000))
        self._changed = asyncio.Condition()
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> DemoClient:
        env = dict(os.environ, ACP_TUI_DEMO_SPEED=str(self.speed), PYTHONPATH=str(REPO))
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "acp_tui.demo",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=REPO,
            env=env,
            limit=1 << 24,
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        if proc.returncode is None:
            proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), TIMEOUT)
            finally:
                if proc.returncode is None:
                    proc.kill()
        if self._reader is not None:
            await asyncio.wait_for(self._reader, TIMEOUT)
        stderr = await proc.stderr.read() if proc.stderr is not None else b""
        if exc[0] is None:
            assert proc.returncode == 0, stderr.decode(errors="replace")
            assert not self.invalid, "\n".join(self.invalid)

    # --- wire --------------------------------------------------------------------------------------

    def _write(self, msg: Msg) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(msg).encode() + b"\n")

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while line := await self._proc.stdout.readline():
            msg = json.loads(line)
            answering = self._methods.get(msg["id"]) if "method" not in msg and isinstance(msg.get("id"), int) else None
            try:
                validate_agent_message(msg, self.version, answering=answering)
            except AssertionError as exc:
                self.invalid.append(str(exc))
            if msg.get("method") == "session/request_permission":
                answer = self.permission(msg)
                if answer is not None:
                    self.answer(msg["id"], answer)
            async with self._changed:
                self.received.append(msg)
                self._changed.notify_all()

    def answer(self, request_id: Any, result: Msg) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "result": result})

    def send(self, method: str, params: Msg) -> int:
        """Send a request without waiting; returns its id."""
        request_id = next(self._ids)
        self._methods[request_id] = method
        self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    def notify(self, method: str, params: Msg) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def wait_for(self, predicate: Callable[[Msg], bool], *, start: int = 0) -> Msg:
        """The first received message (from index `start`) matching `predicate`."""

        def find() -> Msg | None:
            return next((m for m in self.received[start:] if predicate(m)), None)

        async def wait() -> Msg:
            async with self._changed:
                await self._changed.wait_for(lambda: find() is not None or self._reader_done())
            found = find()
            assert found is not None, "the agent exited before sending the awaited message"
            return found

        return await asyncio.wait_for(wait(), TIMEOUT)

    def _reader_done(self) -> bool:
        return self._reader is not None and self._reader.done()

    async def response(self, request_id: int) -> Msg:
        return await self.wait_for(lambda m: m.get("id") == request_id and "method" not in m)

    async def call(self, method: str, params: Msg) -> Msg:
        return await self.response(self.send(method, params))

    # --- ACP -----------------------------------------------------------------------------------------

    async def initialize(self) -> Msg:
        if self.version == 2:
            params = {"protocolVersion": 2, "info": {"name": "test", "version": "0"}, "capabilities": {}}
        else:
            params = {"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
        return await self.call("initialize", params)

    async def new_session(self) -> str:
        await self.initialize()
        reply = await self.call("session/new", {"cwd": CWD, "mcpServers": []})
        session_id: str = reply["result"]["sessionId"]
        await self.wait_for(lambda m: _update(m).get("sessionUpdate") in ("agent_message", "agent_message_chunk"))
        return session_id

    async def turn(self, session_id: str, text: str) -> tuple[Msg, list[Msg]]:
        """Prompt and wait for the end of the turn: (prompt response, messages of the turn)."""
        start = len(self.received)
        request_id = self.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})
        if self.version == 2:
            reply = await self.response(request_id)
            await self.wait_for(lambda m: _is_idle(m, session_id), start=start)
        else:
            reply = await self.response(request_id)
        return reply, self.received[start:]


def _update(msg: Msg) -> Msg:
    if msg.get("method") != "session/update":
        return {}
    update: Msg = msg["params"]["update"]
    return update


def _is_idle(msg: Msg, session_id: str) -> bool:
    update = _update(msg)
    return (
        update.get("sessionUpdate") == "state_update"
        and update.get("state") == "idle"
        and msg["params"]["sessionId"] == session_id
    )


def updates(messages: list[Msg], kind: str | None = None) -> list[Msg]:
    found = [_update(m) for m in messages if _update(m)]
    return [u for u in found if kind is None or u["sessionUpdate"] == kind]


def agent_text(messages: list[Msg]) -> str:
    return "".join(
        u["content"]["text"] for u in updates(messages, "agent_message_chunk") if u["content"]["type"] == "text"
    )


def stop_reason(version: int, reply: Msg, messages: list[Msg]) -> str:
    """How the turn ended, read the way the negotiated version reports it."""
    if version == 1:
        result: str = reply["result"]["stopReason"]
        return result
    idle = [u for u in updates(messages, "state_update") if u["state"] == "idle"]
    assert len(idle) == 1
    reason: str = idle[0]["stopReason"]
    return reason


def tool_calls(version: int, messages: list[Msg]) -> dict[str, Msg]:
    """Every tool call of the turn, with its patches applied in order (content replaced, not chunked)."""
    calls: dict[str, Msg] = {}
    for update in updates(messages):
        kind = update["sessionUpdate"]
        if kind in ("tool_call", "tool_call_update"):
            call = calls.setdefault(update["toolCallId"], {})
            call.update({k: v for k, v in update.items() if v is not None and k != "sessionUpdate"})
        elif kind == "tool_call_content_chunk":
            calls.setdefault(update["toolCallId"], {}).setdefault("content", []).append(update["content"])
    return calls
