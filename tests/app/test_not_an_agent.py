"""A peer that is no ACP agent gets a message that says what happened (issue 11, "Echoing agent").

`acp-tui -- cat` used to report "the agent refused initialize: Method not found": `cat` echoed our
`initialize` request, we answered it Method not found, and `cat` echoed that answer back as the reply
to our own request. A request that is one of ours coming back (same id and method as one we wait for),
or an `initialize` request from the peer (what a client sends), means there is no agent on the other end.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.agent.connection import Connection, NotAnAgent
from acp_tui.agent.process import AgentProcess
from acp_tui.agent.session import AgentSession, SessionError
from acp_tui.cli import main
from acp_tui.launch import Launch
from acp_tui.protocol.jsonrpc import Request
from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.system_line import SystemLine

ECHO_MESSAGE = "the agent echoed our initialize request back, as cat does — is this an ACP agent?"

#: A peer that, like a client, opens with its own `initialize` request, then waits.
CLIENT_LIKE = (
    "import json, sys\n"
    "sys.stdin.readline()\n"
    "print(json.dumps({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {'protocolVersion': 2}}), flush=True)\n"
    "sys.stdin.readline()\n"
)

#: A real agent whose own request happens to reuse the id of ours (each side has its own id space).
SAME_ID_AGENT = (
    "import json, sys\n"
    "ours = json.loads(sys.stdin.readline())\n"
    "print(json.dumps({'jsonrpc': '2.0', 'id': ours['id'], 'method': 'test/ask', 'params': {}}), flush=True)\n"
    "answer = json.loads(sys.stdin.readline())\n"
    "print(json.dumps({'jsonrpc': '2.0', 'id': ours['id'], 'result': {'got': answer['result']}}), flush=True)\n"
    "sys.stdin.readline()\n"
)


async def connected(argv: list[str]) -> tuple[AgentProcess, Connection, list[str], list[bytes]]:
    """A started process and connection; returns the problems reported and every frame sent."""
    problems: list[str] = []
    sent: list[bytes] = []

    class Trace:
        def record(self, direction: str, payload: Any) -> None:
            if direction == "->":
                sent.append(bytes(payload))

    proc = AgentProcess(argv)
    await proc.start()
    conn = Connection(proc, on_problem=lambda p: problems.append(p.reason), trace=Trace())
    conn.start()
    return proc, conn, problems, sent


async def test_an_echoed_request_fails_it_with_what_happened_and_is_not_answered() -> None:
    proc, conn, problems, sent = await connected(["cat"])
    try:
        with pytest.raises(NotAnAgent) as caught:
            await asyncio.wait_for(conn.request("initialize", {"protocolVersion": 2}), 10)
        assert caught.value.message == ECHO_MESSAGE
        assert problems == [ECHO_MESSAGE]
        await asyncio.sleep(0.2)
        assert [json.loads(frame)["method"] for frame in sent] == ["initialize"]  # no answer to the echo
    finally:
        await proc.shutdown()


async def test_a_peer_sending_initialize_is_no_agent() -> None:
    proc, conn, problems, _ = await connected([sys.executable, "-c", CLIENT_LIKE])
    try:
        with pytest.raises(NotAnAgent) as caught:
            await asyncio.wait_for(conn.request("initialize", {"protocolVersion": 2}), 10)
        assert "sent us an initialize request" in caught.value.message
        assert len(problems) == 1
    finally:
        await proc.shutdown()


async def test_an_agent_request_that_only_shares_our_id_is_answered_normally() -> None:
    proc, conn, problems, _ = await connected([sys.executable, "-c", SAME_ID_AGENT])

    async def ask(request: Request) -> dict[str, Any]:
        return {"ok": True}

    conn.on_request("test/ask", ask)
    try:
        raw = await asyncio.wait_for(conn.request("test/work", {}), 10)
        assert msgspec.json.decode(raw) == {"got": {"ok": True}}
        assert problems == []
    finally:
        await proc.shutdown()


async def test_cat_as_the_agent_fails_the_handshake_saying_so(tmp_path: Path) -> None:
    session = AgentSession(["cat"], cwd=tmp_path, handshake_timeout=10)
    try:
        with pytest.raises(SessionError) as caught:
            await session.start()
        assert str(caught.value) == ECHO_MESSAGE
    finally:
        await session.shutdown()


async def test_acp_tui_with_cat_says_the_agent_echoed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CONFIG", "DATA", "STATE"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(f"ACP_TUI_{name}_DIR", str(tmp_path / name))
    monkeypatch.chdir(tmp_path)
    launches: list[Launch] = []

    def runner(launch: Launch) -> int:
        launches.append(launch)
        return 0

    assert main(["--", "cat"], runner=runner) == 0
    app = AcpApp(launches[0], arm_delay=0.1)
    async with app.run_test(size=(120, 45)) as pilot:

        def lines() -> list[str]:
            chat = app.chat
            return [str(line.render()) for line in chat.query(SystemLine)] if chat is not None else []

        for _ in range(500):
            if any("echoed" in line for line in lines()):
                break
            await pilot.pause(0.02)
        shown = lines()
        assert any(ECHO_MESSAGE in line for line in shown), shown
        assert not any("Method not found" in line for line in shown), shown
