"""AgentSession against the official Python SDK's echo agent (v1), including its "says 2, speaks v1"
answer to our hybrid initialize (see tests/support/fixtures/traffic/py-echo-pv2.log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.protocol.v2 import TextContent
from acp_tui.session.model import AGENT_MESSAGE, Message
from tests.support.agent_session import Recorder, idle_with, make_session
from tests.support.peers import PySdkPeers


@pytest.mark.parametrize("protocol", [None, 1], ids=["auto-says-2-speaks-v1", "forced-v1"])
async def test_python_echo_agent_turn(
    tmp_path: Path, py_sdk_peers: PySdkPeers, peer_home_env: dict[str, str], protocol: int | None
) -> None:
    recorder = Recorder()
    session = make_session(py_sdk_peers.echo_agent, recorder, tmp_path, env=peer_home_env, protocol=protocol)
    try:
        await session.start()
        # Offered 2, it answers protocolVersion 2 without the v2-required `info`, then speaks v1.
        assert session.version == 1
        await session.prompt([TextContent(text="ping from acp-tui")])
        await recorder.until(idle_with(session, "end_turn"))
        replies = [
            e.text for e in session.state.entities.values() if isinstance(e, Message) and e.key[0] == AGENT_MESSAGE
        ]
        assert replies == ["ping from acp-tui"]
        assert session.state.problem_count == (1 if protocol is None else 0)  # the version mismatch, noted once
        recorder.validate_sent(1, hybrid_initialize=protocol is None)
    finally:
        await session.shutdown()
