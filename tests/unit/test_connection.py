"""Connection: a JSON-RPC peer over a real subprocess (the stdlib fake agent `agents/rpc_agent.py`)."""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.agent.connection import Connection, ConnectionClosed, RpcError, WireProblem
from acp_tui.agent.process import AgentProcess
from acp_tui.agent.trace import WireTrace
from acp_tui.protocol.jsonrpc import Request
from tests.support.agents import AGENTS_DIR
from tests.support.schema_check import validate_client_message

AGENT = str(AGENTS_DIR / "rpc_agent.py")


class Peer:
    """A started fake agent with its connection and everything it reported."""

    def __init__(self, proc: AgentProcess, conn: Connection) -> None:
        self.proc = proc
        self.conn = conn
        self.problems: list[WireProblem] = []
        self.notes: list[tuple[str, Any]] = []
        self.changed = asyncio.Event()

    def collect(self, method: str) -> None:
        def handler(params: msgspec.Raw) -> None:
            self.notes.append((method, msgspec.json.decode(params) if params else None))
            self.changed.set()

        self.conn.on_notification(method, handler)

    async def call(self, method: str, params: Any = None) -> Any:
        return msgspec.json.decode(await asyncio.wait_for(self.conn.request(method, params or {}), 20))

    async def until(self, condition: Callable[[], bool]) -> None:
        async def wait() -> None:
            while not condition():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), 20)


@pytest.fixture
async def peer(tmp_path: Path) -> AsyncIterator[Peer]:
    proc = AgentProcess([sys.executable, AGENT])
    await proc.start()
    holder: list[Peer] = []

    def on_problem(problem: WireProblem) -> None:
        holder[0].problems.append(problem)
        holder[0].changed.set()

    conn = Connection(
        proc,
        on_problem=on_problem,
        trace=WireTrace(tmp_path / "trace.jsonl"),
    )
    peer = Peer(proc, conn)
    holder.append(peer)
    for method in ("test/n", "test/seen", "test/cancelled", "test/big", "test/note"):
        peer.collect(method)
    conn.start()
    yield peer
    await proc.shutdown(stdin_grace=2, term_grace=1)


def raw_pieces(*pieces: bytes) -> dict[str, list[str]]:
    return {"pieces": [base64.b64encode(p).decode() for p in pieces]}


async def test_request_round_trip(peer: Peer) -> None:
    assert await peer.call("echo", {"a": [1, "two", None]}) == {"a": [1, "two", None]}


async def test_partial_crlf_blank_garbage_lines(peer: Peer) -> None:
    result = await peer.call(
        "test/emit_raw",
        raw_pieces(
            b'{"jsonrpc":"2.0","meth',
            b'od":"test/n","params":{"k":1}}\r\n\n  \n',
            b'{"jsonrpc":"2.0","method":"test/n","params":{"t":"\xff"}}\n',
            b"not json at all\n",
            b'{"jsonrpc":"2.0","method":"test/n","params":{"k":2}}\n',
        ),
    )
    assert result == {"ok": True}
    assert peer.notes == [("test/n", {"k": 1}), ("test/n", {"k": 2})]
    reasons = [p.reason for p in peer.problems]
    assert len(reasons) == 2
    assert "invalid UTF-8" in reasons[0] and peer.problems[0].raw.endswith(b'"\xff"}}')
    assert "invalid JSON" in reasons[1] and peer.problems[1].raw == b"not json at all"


async def test_fifty_megabyte_line(peer: Peer) -> None:
    size = 50 * 1024 * 1024
    assert await peer.call("test/big", {"size": size}) == {"sent": size}
    assert len(peer.notes) == 1 and len(peer.notes[0][1]["data"]) == size


async def test_notifications_arrive_in_order(peer: Peer) -> None:
    lines = b"".join(b'{"jsonrpc":"2.0","method":"test/n","params":{"i":%d}}\n' % i for i in range(2000))
    await peer.call("test/emit_raw", raw_pieces(lines[:777], lines[777:]))
    assert [params["i"] for _, params in peer.notes] == list(range(2000))


async def test_crash_mid_stream_fails_pending_request_and_reports_exit(peer: Peer) -> None:
    with pytest.raises(ConnectionClosed) as info:
        await peer.call("test/exit", {"code": 7, "stderr": "fatal: out of cheese\n", "partial": True})
    assert info.value.info is not None and info.value.info.code == 7
    assert "out of cheese" in info.value.info.stderr_tail
    assert peer.conn.closed
    assert any("invalid JSON" in p.reason and p.raw.startswith(b'{"jsonrpc"') for p in peer.problems)
    with pytest.raises(ConnectionClosed):
        await peer.conn.request("echo", {})
    with pytest.raises(ConnectionClosed):
        await peer.conn.notify("session/cancel", {})


async def test_exit_while_a_child_holds_stdout_still_fails_every_pending_request(peer: Peer) -> None:
    await peer.call("test/spawn_child")
    held = asyncio.ensure_future(peer.conn.request("test/hold", {}))
    await peer.call("echo")  # the agent has read the held request
    with pytest.raises(ConnectionClosed):
        await peer.call("test/exit", {"code": 0})
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(held, 5)


@pytest.mark.parametrize("agent_id", [0, "0", "perm-1", -5])
async def test_agent_ids_are_echoed_exactly(peer: Peer, agent_id: int | str) -> None:
    seen: list[Request] = []

    async def handler(request: Request) -> dict[str, Any]:
        seen.append(request)
        return {"echo": msgspec.json.decode(request.params)}

    peer.conn.on_request("client/echo", handler)
    result = await peer.call("test/ask", {"id": agent_id, "method": "client/echo", "params": {"x": 1}})
    answer = result["answer"]
    assert answer["id"] == agent_id and type(answer["id"]) is type(agent_id)
    assert answer["result"] == {"echo": {"x": 1}}
    assert seen[0].id == agent_id


@pytest.mark.parametrize("method", ["fs/read_text_file", "terminal/create", "_vendor/thing", "session/fork"])
async def test_unknown_agent_request_gets_method_not_found(peer: Peer, method: str) -> None:
    result = await peer.call("test/ask", {"id": 0, "method": method})
    assert result["answer"]["id"] == 0
    assert result["answer"]["error"]["code"] == -32601


async def test_agent_cancel_request_lets_the_handler_answer_once(peer: Peer) -> None:
    started = asyncio.Event()

    async def permission(request: Request) -> dict[str, Any]:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return {"outcome": {"outcome": "cancelled"}}
        raise AssertionError("unreachable")

    peer.conn.on_request("session/request_permission", permission)
    result = await peer.call("test/ask", {"id": 0, "method": "session/request_permission", "cancel": True})
    assert started.is_set()
    assert result["answer"] == {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}


async def test_agent_cancel_request_without_a_result_answers_minus_32800(peer: Peer) -> None:
    async def slow(request: Request) -> None:
        await asyncio.Event().wait()

    peer.conn.on_request("elicitation/create", slow)
    result = await peer.call("test/ask", {"id": "e1", "method": "elicitation/create", "cancel": True})
    assert result["answer"]["error"]["code"] == -32800 and result["answer"]["id"] == "e1"


async def test_cancelling_our_request_sends_cancel_request(peer: Peer) -> None:
    held = asyncio.ensure_future(peer.conn.request("test/hold", {}))
    await peer.call("echo")
    held.cancel()
    await peer.until(lambda: any(method == "test/cancelled" for method, _ in peer.notes))
    # The agent's late -32800 answer to the cancelled request is dropped quietly.
    assert await peer.call("echo", {"after": True}) == {"after": True}
    assert peer.problems == []


async def test_batch_requests_answered_as_one_array(peer: Peer) -> None:
    async def echo(request: Request) -> Any:
        return msgspec.json.decode(request.params)

    peer.conn.on_request("client/echo", echo)
    batch = [
        {"jsonrpc": "2.0", "id": "b1", "method": "client/echo", "params": {"n": 1}},
        {"jsonrpc": "2.0", "method": "test/note", "params": {"n": 2}},
        {"jsonrpc": "2.0", "id": 0, "method": "nope/unknown", "params": {}},
        5,
    ]
    result = await peer.call("test/batch", {"batch": batch})
    reply = json.loads(result["reply"])
    assert isinstance(reply, list) and len(reply) == 3
    by_id = {json.dumps(entry["id"]): entry for entry in reply}
    assert by_id['"b1"']["result"] == {"n": 1}
    assert by_id["0"]["error"]["code"] == -32601
    assert by_id["null"]["error"]["code"] == -32600
    assert peer.notes == [("test/note", {"n": 2})]


async def test_all_notification_batch_gets_no_reply(peer: Peer) -> None:
    batch = [{"jsonrpc": "2.0", "method": "test/note", "params": {"n": i}} for i in range(3)]
    assert await peer.call("test/batch", {"batch": batch, "expect_reply": False}) == {"reply": None}
    # Had we replied, the agent would read our reply as its next message and fail this call.
    assert await peer.call("echo", {"x": 1}) == {"x": 1}
    assert [params["n"] for _, params in peer.notes] == [0, 1, 2]


async def test_unknown_and_duplicate_responses_are_problems(peer: Peer) -> None:
    await peer.call("echo")  # our request id 1
    await peer.call(
        "test/emit_raw",
        raw_pieces(b'{"jsonrpc":"2.0","id":1,"result":{}}\n', b'{"jsonrpc":"2.0","id":999,"result":{}}\n'),
    )
    reasons = [p.reason for p in peer.problems]
    assert reasons == ["second response to request 1", "response to unknown request id 999"]


async def test_extension_notifications_ignored_unknown_ones_reported(peer: Peer) -> None:
    await peer.call(
        "test/emit_raw",
        raw_pieces(
            b'{"jsonrpc":"2.0","method":"_auth/status_update","params":{}}\n',
            b'{"jsonrpc":"2.0","method":"future/thing","params":{}}\n',
        ),
    )
    assert [p.reason for p in peer.problems] == ["unknown notification 'future/thing' ignored"]


async def test_rpc_error_carries_code_message_data(peer: Peer) -> None:
    with pytest.raises(RpcError) as info:
        await peer.conn.request("no/such", {})
    assert info.value.code == -32601 and "no/such" in info.value.message


async def test_trace_is_json_lines_without_raw_escapes(peer: Peer, tmp_path: Path) -> None:
    await peer.call("echo", {"text": "\x1b[31mred\x1b[0m ünï"})
    await peer.call("test/emit_raw", raw_pieces(b"plain \x1b]0;title\x07 noise\n"))
    assert peer.conn.trace is not None
    peer.conn.trace.close()  # type: ignore[attr-defined]
    data = (tmp_path / "trace.jsonl").read_bytes()
    assert b"\x1b" not in data and b"\x07" not in data and data.isascii()
    records = [json.loads(line) for line in data.splitlines()]
    assert all(set(r) == {"t", "dir", "msg"} for r in records)
    sent = [r["msg"] for r in records if r["dir"] == "->"]
    assert sent[0]["params"] == {"text": "\x1b[31mred\x1b[0m ünï"}
    assert any(r["dir"] == "<-" and r["msg"] == "plain \x1b]0;title\x07 noise" for r in records)
    assert any(r["dir"] == "event" and "problem" in r["msg"] for r in records)


# -- lines the decoder cannot read (issue 21: hostile agent) ----------------------------------------

DEEP = b"[" * 100_000 + b"]" * 100_000


async def ask_raw(peer: Peer, line: bytes, answer_id: Any) -> dict[str, Any]:
    result = await peer.call("test/ask_raw", {"line": base64.b64encode(line).decode(), "id": answer_id})
    answer: dict[str, Any] = result["answer"]
    return answer


async def test_a_deeply_nested_line_is_a_problem_and_reading_goes_on(peer: Peer) -> None:
    await peer.call(
        "test/emit_raw",
        raw_pieces(
            DEEP + b"\n",
            b'{"jsonrpc":"2.0","method":"test/n","params":' + DEEP + b"}\n",
            b'{"jsonrpc":"2.0","method":"test/n","params":{"k":1}}\n',
        ),
    )
    reasons = [p.reason for p in peer.problems]
    assert peer.notes == [("test/n", {"k": 1})], reasons
    assert len(reasons) == 2 and all("nested too deeply" in reason for reason in reasons), reasons
    assert await peer.call("echo", {"after": True}) == {"after": True}


async def test_a_deeply_nested_request_is_answered_with_its_id(peer: Peer) -> None:
    seen: list[Request] = []

    async def handler(request: Request) -> dict[str, Any]:
        seen.append(request)
        return {}

    peer.conn.on_request("fs/write_text_file", handler)
    line = b'{"jsonrpc":"2.0","id":41,"method":"fs/write_text_file","params":' + DEEP + b"}"
    answer = await ask_raw(peer, line, 41)
    # -32700: the scan gives up inside the 200,000 brackets, so it cannot tell the envelope is fine.
    assert answer["id"] == 41 and answer["error"]["code"] == -32700
    assert "nested too deeply" in answer["error"]["message"]
    for version in (2, 1):
        validate_client_message(answer, version)
    assert seen == []
    assert await peer.call("echo", {"after": True}) == {"after": True}


async def test_a_lone_surrogate_in_a_request_is_answered_invalid_params(peer: Peer) -> None:
    # What Python's json writes for the str "\ud800": valid JSON grammar, no Unicode text.
    line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": "w1",
            "method": "fs/write_text_file",
            "params": {"sessionId": "s", "path": "/tmp/x", "content": "\ud800"},
        }
    ).encode()
    answer = await ask_raw(peer, line, "w1")
    assert answer["id"] == "w1" and answer["error"]["code"] == -32602
    assert "lone UTF-16 surrogate" in answer["error"]["message"]
    validate_client_message(answer, 2)
    assert any("lone UTF-16 surrogate" in p.reason for p in peer.problems)


async def test_a_request_whose_id_cannot_be_read_is_answered_with_id_null(peer: Peer) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": "\udc00", "method": "fs/read_text_file", "params": {}}).encode()
    answer = await ask_raw(peer, line, None)
    assert answer["id"] is None and answer["error"]["code"] == -32700
    validate_client_message(answer, 2)  # JSON-RPC: an id that cannot be known is answered with null


async def test_a_batch_we_cannot_read_answers_each_request_in_it(peer: Peer) -> None:
    deep = b"[" * 5000 + b"]" * 5000  # too deep for the decoder, short enough for the scan to see past
    line = (
        b'[{"jsonrpc":"2.0","id":"b1","method":"client/echo","params":' + deep + b"},"
        b'{"jsonrpc":"2.0","method":"test/note","params":{}},'
        b'{"jsonrpc":"2.0","id":"b2","method":"client/echo","params":{}}]'
    )
    result = await peer.call("test/ask_raw", {"line": base64.b64encode(line).decode(), "raw_reply": True})
    reply = json.loads(result["reply"])
    assert isinstance(reply, list)
    assert sorted(entry["id"] for entry in reply) == ["b1", "b2"]
    assert all(entry["error"]["code"] == -32700 for entry in reply)
    for entry in reply:
        validate_client_message(entry, 2)


async def test_an_answer_we_cannot_read_fails_its_request_instead_of_hanging(peer: Peer) -> None:
    before = b'{"jsonrpc":"2.0","id":'
    after = b',"result":{"text":"\\ud800"}}'
    with pytest.raises(RpcError) as info:
        await asyncio.wait_for(
            peer.conn.request(
                "test/answer_raw",
                {"before": base64.b64encode(before).decode(), "after": base64.b64encode(after).decode()},
            ),
            20,
        )
    assert info.value.code == -32700 and "could not be read" in info.value.message
    assert await peer.call("echo", {"after": True}) == {"after": True}


async def test_a_line_past_the_limit_is_dropped_and_its_request_answered(tmp_path: Path) -> None:
    proc = AgentProcess([sys.executable, AGENT])
    await proc.start()
    problems: list[WireProblem] = []
    conn = Connection(proc, on_problem=problems.append, max_line=1024 * 1024)
    conn.start()
    try:
        line = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": "big",
                "method": "fs/write_text_file",
                "params": {"sessionId": "s", "path": "/tmp/x", "content": "x" * 3_000_000},
            }
        ).encode()
        raw = await asyncio.wait_for(
            conn.request("test/ask_raw", {"line": base64.b64encode(line).decode(), "id": "big"}), 30
        )
        answer = json.loads(bytes(raw))["answer"]
        assert answer["id"] == "big" and answer["error"]["code"] == -32600
        assert "over the 1,048,576-byte limit" in answer["error"]["message"]
        validate_client_message(answer, 2)
        assert any("over the 1,048,576-byte limit" in p.reason for p in problems)
        echoed = await asyncio.wait_for(conn.request("echo", {"after": True}), 20)
        assert json.loads(bytes(echoed)) == {"after": True}
    finally:
        await proc.shutdown(stdin_grace=2, term_grace=1)
