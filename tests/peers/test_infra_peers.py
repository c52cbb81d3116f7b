"""The real peers install and answer a handshake over plain JSON pipes (no acp_tui code)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.peers import JsonLinePeer, PeerUnavailable, PySdkPeers, TsSdkPeers, ensure_ts_sdk, peer_env

#: The `spawn` fixture: start a peer from its argv.
Spawn = Callable[[list[str]], JsonLinePeer]

V2_INIT = {"protocolVersion": 2, "info": {"name": "infra-test", "version": "0.0.1"}, "capabilities": {}}
V1_INIT = {
    "protocolVersion": 1,
    "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False},
    "clientInfo": {"name": "infra-test", "version": "0.0.1"},
}


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    """Start peers with a fresh HOME each, and shut every one down at teardown."""
    started: list[JsonLinePeer] = []

    def start(argv: list[str]) -> JsonLinePeer:
        peer = JsonLinePeer(argv, env=peer_env(tmp_path / f"home{len(started)}"), cwd=tmp_path)
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.close()


def test_peer_env_has_fresh_home(tmp_path: Path) -> None:
    env = peer_env(tmp_path / "h")
    assert env["HOME"] == str(tmp_path / "h")
    assert (tmp_path / "h").is_dir() and not any((tmp_path / "h").iterdir())


def test_dual_version_agent_negotiates_v2(ts_sdk_peers: TsSdkPeers, spawn: Spawn) -> None:
    peer = spawn(ts_sdk_peers.dual_version_agent)
    answer = peer.request(1, "initialize", V2_INIT)
    assert answer["result"]["protocolVersion"] == 2
    session = peer.request(2, "session/new", {"cwd": "/tmp", "mcpServers": []})
    assert isinstance(session["result"]["sessionId"], str)


def test_dual_version_agent_speaks_v1(ts_sdk_peers: TsSdkPeers, spawn: Spawn) -> None:
    peer = spawn(ts_sdk_peers.dual_version_agent)
    answer = peer.request(1, "initialize", V1_INIT)
    assert answer["result"]["protocolVersion"] == 1


def test_sdk_agent_answers_v1(ts_sdk_peers: TsSdkPeers, spawn: Spawn) -> None:
    peer = spawn(ts_sdk_peers.agent)
    answer = peer.request(1, "initialize", V1_INIT)
    assert answer["result"]["protocolVersion"] == 1


def test_python_echo_agent_echoes(py_sdk_peers: PySdkPeers, spawn: Spawn) -> None:
    peer = spawn(py_sdk_peers.echo_agent)
    assert peer.request(1, "initialize", V1_INIT, timeout=20)["result"]["protocolVersion"] == 1
    session_id = peer.request(2, "session/new", {"cwd": "/tmp", "mcpServers": []})["result"]["sessionId"]
    prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "ping-42"}]}
    peer.send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
    seen = peer.read_until(lambda m: m.get("id") == 3)
    echoed = [
        m["params"]["update"]["content"]["text"]
        for m in seen
        if m.get("method") == "session/update" and m["params"]["update"].get("sessionUpdate") == "agent_message_chunk"
    ]
    assert echoed == ["ping-42"]
    assert seen[-1]["result"]["stopReason"] == "end_turn"
    assert peer.close() == 0


def test_python_agent_example_is_installed(py_sdk_peers: PySdkPeers) -> None:
    assert Path(py_sdk_peers.agent[1]).is_file()
    assert Path(py_sdk_peers.agent[0]).name == "python"


def test_missing_node_is_reported_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(PeerUnavailable, match="'node' is not on PATH"):
        ensure_ts_sdk()
