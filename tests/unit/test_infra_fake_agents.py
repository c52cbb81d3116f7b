"""The scripted and hostile fake agents do what they claim, driven over raw pipes with plain JSON."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.agents import hostile_agent_argv, scripted_agent_argv
from tests.support.agents.hostile_agent import (
    CRASH_STDERR,
    DONE_MARKER,
    EXIT_CODE,
    HOSTILE_STRINGS,
    PERMISSION_BUTTON_IMITATION,
    SESSION_ID,
)
from tests.support.peers import JsonLinePeer
from tests.support.schema_check import validate_agent_message

V2_INIT = {"protocolVersion": 2, "info": {"name": "infra-test", "version": "0.0.1"}, "capabilities": {}}
V1_INIT = {"protocolVersion": 1, "clientCapabilities": {}}


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Callable[[list[str]], JsonLinePeer]]:
    started: list[JsonLinePeer] = []

    def start(argv: list[str]) -> JsonLinePeer:
        peer = JsonLinePeer(argv, cwd=tmp_path)
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.close()


def handshake(peer: JsonLinePeer, version: int) -> str:
    init = peer.request(1, "initialize", V2_INIT if version >= 2 else V1_INIT)
    assert init["result"]["protocolVersion"] == version
    validate_agent_message(init, version, answering="initialize")
    session = peer.request(2, "session/new", {"cwd": "/tmp", "mcpServers": []})
    validate_agent_message(session, version, answering="session/new")
    return str(session["result"]["sessionId"])


def prompt(peer: JsonLinePeer, session_id: str, text: str, msg_id: int = 3) -> None:
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": msg_id,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
        }
    )


def is_done_marker(message: dict[str, Any]) -> bool:
    update = message.get("params", {}).get("update", {}) if message.get("method") == "session/update" else {}
    content = update.get("content")
    return isinstance(content, dict) and content.get("text") == DONE_MARKER


def is_idle(message: dict[str, Any]) -> bool:
    update = message.get("params", {}).get("update", {}) if message.get("method") == "session/update" else {}
    return update.get("sessionUpdate") == "state_update" and update.get("state") == "idle"


def read_record(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# scripted agent ------------------------------------------------------------------------------------


def test_scripted_agent_plays_turns_and_records(tmp_path: Path, spawn: Any) -> None:
    permission = {
        "sessionId": "$SESSION",
        "title": "Write a file?",
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
    }
    script = {
        "version": 2,
        "session_new": {"sessionId": "sess-A"},
        "after_session_new": [
            {"op": "update", "update": {"sessionUpdate": "available_commands_update", "availableCommands": []}}
        ],
        "turns": [
            {
                "match": "^ask",
                "steps": [
                    {"op": "respond_prompt"},
                    {"op": "state", "state": "running"},
                    {"op": "request", "method": "session/request_permission", "params": permission},
                    {
                        "op": "update",
                        "update": {
                            "sessionUpdate": "agent_message_chunk",
                            "messageId": "a1",
                            "content": {"type": "text", "text": "prompt id $PROMPT_ID"},
                        },
                    },
                    {"op": "state", "state": "idle", "stopReason": "end_turn"},
                ],
            },
            {"steps": [{"op": "error_prompt", "code": -32000, "message": "scripted failure"}]},
        ],
    }
    script_path, record = tmp_path / "script.json", tmp_path / "record.jsonl"
    script_path.write_text(json.dumps(script))
    peer = spawn(scripted_agent_argv(script_path, record))
    assert handshake(peer, 2) == "sess-A"
    commands = peer.read_message()
    assert commands["params"]["update"]["sessionUpdate"] == "available_commands_update"

    prompt(peer, "sess-A", "ask me", msg_id=7)
    answer = peer.read_message()
    assert answer == {"jsonrpc": "2.0", "id": 7, "result": {"messageId": "user-msg-1"}}
    ask = peer.read_until(lambda m: m.get("method") == "session/request_permission")[-1]
    assert ask["id"] == 0 and ask["params"]["sessionId"] == "sess-A"
    validate_agent_message(ask, 2)
    peer.send({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}})
    rest = peer.read_until(is_idle)
    assert rest[0]["params"]["update"]["content"]["text"] == "prompt id 7"
    for message in rest:
        validate_agent_message(message, 2)

    prompt(peer, "sess-A", "second", msg_id=8)
    failed = peer.read_message()
    assert failed["error"] == {"code": -32000, "message": "scripted failure"}

    unknown = peer.request(9, "session/set_config_option", {"sessionId": "sess-A", "configId": "x", "value": "y"})
    assert unknown["error"]["code"] == -32601
    assert peer.close() == 0

    received = read_record(record)
    assert [m.get("method") for m in received] == [
        "initialize",
        "session/new",
        "session/prompt",
        None,
        "session/prompt",
        "session/set_config_option",
    ]
    assert received[3] == {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {"outcome": {"outcome": "selected", "optionId": "allow"}},
    }


def test_scripted_agent_cancel_abandons_turn_v2(tmp_path: Path, spawn: Any) -> None:
    script = {
        "turns": [
            {
                "steps": [
                    {"op": "respond_prompt"},
                    {"op": "state", "state": "running"},
                    {"op": "wait_for", "response": 99},
                    {"op": "stderr", "text": "never reached"},
                ]
            }
        ]
    }
    (tmp_path / "s.json").write_text(json.dumps(script))
    peer = spawn(scripted_agent_argv(tmp_path / "s.json"))
    session_id = handshake(peer, 2)
    prompt(peer, session_id, "go")
    peer.read_until(lambda m: m.get("params", {}).get("update", {}).get("state") == "running")
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}})
    idle = peer.read_until(is_idle)[-1]
    assert idle["params"]["update"]["stopReason"] == "cancelled"
    prompt(peer, session_id, "again", msg_id=4)
    echoed = peer.read_until(is_idle)
    assert any(
        m.get("params", {}).get("update", {}).get("content") == [{"type": "text", "text": "echo: again"}]
        for m in echoed
    )
    assert peer.close() == 0
    assert "never reached" not in peer.stderr_text()


def test_scripted_agent_v1_default_turn_and_cancel(tmp_path: Path, spawn: Any) -> None:
    script = {"version": 1, "turns": [{"match": "slow", "steps": [{"op": "wait_for", "method": "never/sent"}]}]}
    (tmp_path / "s.json").write_text(json.dumps(script))
    peer = spawn(scripted_agent_argv(tmp_path / "s.json"))
    session_id = handshake(peer, 1)
    prompt(peer, session_id, "hello", msg_id=3)
    seen = peer.read_until(lambda m: m.get("id") == 3)
    assert seen[0]["params"]["update"]["content"]["text"] == "echo: hello"
    assert seen[-1]["result"] == {"stopReason": "end_turn"}
    for message in seen[:-1]:
        validate_agent_message(message, 1)
    prompt(peer, session_id, "slow one", msg_id=4)
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}})
    assert peer.read_message() == {"jsonrpc": "2.0", "id": 4, "result": {"stopReason": "cancelled"}}


def test_scripted_agent_exit_step(tmp_path: Path, spawn: Any) -> None:
    script = {"turns": [{"steps": [{"op": "stderr", "text": "bye now"}, {"op": "exit", "code": 7}]}]}
    (tmp_path / "s.json").write_text(json.dumps(script))
    peer = spawn(scripted_agent_argv(tmp_path / "s.json"))
    prompt(peer, handshake(peer, 2), "x")
    assert peer.wait() == 7
    assert peer.read_line() is None
    peer.close()
    assert "bye now" in peer.stderr_text()


# hostile agent -------------------------------------------------------------------------------------


def test_hostile_exit_at_start(spawn: Any) -> None:
    peer = spawn(hostile_agent_argv("exit_at_start"))
    assert peer.wait() == EXIT_CODE
    assert peer.read_line() is None
    peer.close()
    assert CRASH_STDERR in peer.stderr_text()


@pytest.mark.parametrize("version", [1, 2])
def test_hostile_exit_mid_stream(spawn: Any, version: int) -> None:
    peer = spawn(hostile_agent_argv("exit_mid_stream", version))
    prompt(peer, handshake(peer, version), "go")
    assert peer.wait() == EXIT_CODE
    lines = []
    while (line := peer.read_line()) is not None:
        lines.append(json.loads(line))
    assert any("partial answer" in json.dumps(m) for m in lines)
    peer.close()
    assert CRASH_STDERR in peer.stderr_text()


def test_hostile_exit_in_permission(spawn: Any) -> None:
    peer = spawn(hostile_agent_argv("exit_in_permission"))
    prompt(peer, handshake(peer, 2), "go")
    ask = peer.read_until(lambda m: m.get("method") == "session/request_permission")[-1]
    assert ask["id"] == 0
    validate_agent_message(ask, 2)
    assert peer.wait() == EXIT_CODE


def test_hostile_exit_while_cancelling(spawn: Any) -> None:
    peer = spawn(hostile_agent_argv("exit_while_cancelling"))
    prompt(peer, handshake(peer, 2), "go")
    peer.read_until(lambda m: "working until you cancel" in json.dumps(m))
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION_ID}})
    assert peer.wait() == EXIT_CODE


@pytest.mark.parametrize("version", [1, 2])
def test_hostile_garbage(spawn: Any, version: int) -> None:
    peer = spawn(hostile_agent_argv("garbage", version))
    prompt(peer, handshake(peer, version), "go")
    raw: list[bytes] = []
    while True:
        line = peer.read_line()
        assert line is not None
        raw.append(line)
        if DONE_MARKER.encode() in line:
            break
    assert b"this is not json at all\n" in raw
    with pytest.raises(UnicodeDecodeError):
        b"".join(raw).decode("utf-8")
    parsed = []
    for line in raw:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            continue
    assert {"not": "json-rpc"} in parsed
    assert any(m.get("id") == 987654 for m in parsed if isinstance(m, dict))
    assert any(isinstance(m, dict) and m.get("method") == "hostile/unknown_request" for m in parsed)
    done = peer.read_until(is_idle if version >= 2 else (lambda m: m.get("id") == 3))
    assert done


def test_hostile_huge_message_is_one_50mb_line(spawn: Any) -> None:
    peer = spawn(hostile_agent_argv("huge_message"))
    prompt(peer, handshake(peer, 2), "go")
    peer.read_until(lambda m: m.get("method") == "session/update" and m["params"]["update"].get("state") == "running")
    line = peer.read_line(timeout=30)
    assert line is not None and len(line) >= 50 * 1024 * 1024
    assert json.loads(line)["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    peer.read_until(is_done_marker)


@pytest.mark.parametrize(
    ("scenario", "check"),
    [
        ("huge_tool_output", "tool"),
        ("update_flood", "flood"),
        ("stderr_flood", "stderr"),
    ],
)
def test_hostile_scaled_floods(spawn: Any, scenario: str, check: str) -> None:
    scale = 0.01
    peer = spawn(hostile_agent_argv(scenario, 2, scale))
    prompt(peer, handshake(peer, 2), "go")
    seen = peer.read_until(is_done_marker, timeout=30)
    updates = [m["params"]["update"] for m in seen if m.get("method") == "session/update"]
    if check == "tool":
        final = [u for u in updates if u.get("toolCallId") == "huge-tool" and "content" in u][-1]
        assert final["content"][0]["content"]["text"].count("\n") == int(100_000 * scale) - 1
    elif check == "flood":
        assert sum(1 for u in updates if u.get("messageId") == "flood-msg") == int(100_000 * scale)
    else:
        assert peer.close() == 0
        assert peer.stderr_bytes >= int(100 * 1024 * 1024 * scale)


@pytest.mark.parametrize(
    ("scenario", "answered"),
    [
        ("never_init", []),
        ("never_new", [1]),
        ("never_prompt", [1, 2]),
    ],
)
def test_hostile_never_answers(spawn: Any, scenario: str, answered: list[int]) -> None:
    peer = spawn(hostile_agent_argv(scenario))
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": V2_INIT})
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}})
    prompt(peer, SESSION_ID, "go")
    peer.send({"jsonrpc": "2.0", "id": 4, "method": "session/list", "params": {}})
    assert peer.close() == 0, "a hung agent still exits when stdin closes"
    replies = []
    while (line := peer.read_line()) is not None:
        replies.append(json.loads(line))
    assert [m["id"] for m in replies if "result" in m] == answered
    assert not [m for m in replies if "error" in m], "once hung, nothing at all is answered"


def test_hostile_spec_violations(spawn: Any) -> None:
    peer = spawn(hostile_agent_argv("spec_violations"))
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": V2_INIT})
    peer.read_message()
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}})
    early = peer.read_message()
    assert early.get("method") == "session/update"
    assert peer.read_message()["id"] == 2
    prompt(peer, SESSION_ID, "go")
    seen = peer.read_until(lambda m: m.get("method") == "session/request_permission")
    assert is_idle(seen[0])
    assert [m["id"] for m in seen if "result" in m].count(3) == 2
    assert any(m.get("id") == 55555 for m in seen)
    duplicate = peer.read_message()
    assert duplicate.get("method") == "session/request_permission" and duplicate["id"] == 0
    peer.send({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}})
    peer.read_until(is_done_marker)


@pytest.mark.parametrize("version", [1, 2])
def test_hostile_injection_reaches_every_field(spawn: Any, version: int) -> None:
    peer = spawn(hostile_agent_argv("injection", version))
    prompt(peer, handshake(peer, version), "go")
    seen = peer.read_until(lambda m: m.get("method") == "session/request_permission")
    for message in seen:
        if "id" not in message or message.get("method"):
            validate_agent_message(message, version)
    ask = seen[-1]
    assert [o["name"] for o in ask["params"]["options"]] == list(HOSTILE_STRINGS[:3])
    blob = json.dumps(seen)
    for hostile in HOSTILE_STRINGS:
        assert json.dumps(hostile)[1:-1] in blob
    titles = [m["params"]["update"].get("title") for m in seen if m.get("method") == "session/update"]
    assert PERMISSION_BUTTON_IMITATION in titles
    if version >= 2:
        chunk = next(
            m["params"]["update"]
            for m in seen
            if m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == "terminal_output_chunk"
        )
        assert "\x1b]52;c;aGk=\x07" in base64.b64decode(chunk["data"]).decode()
    peer.send({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}})
    peer.read_until(is_done_marker)
    assert peer.close() == 0
    assert "[@click=app.quit]q[/]" in peer.stderr_text()
