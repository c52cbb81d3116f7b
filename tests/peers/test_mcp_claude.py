"""Real agents started by their catalogue commands and given a stdio MCP server (issue 26): Claude's ACP adapter
(loopback model) and Gemini CLI.

The adapter's own MCP client starts the server we hand it in `session/new`; the probe server's record shows
it was started and asked for its tools. Every frame we send validates against the negotiated schema.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.agent.trace import Direction
from acp_tui.cli import build_launch, parse_argv
from acp_tui.config import parse_settings
from acp_tui.mcp_servers import McpServer
from tests.support.claude import CLAUDE_DIR
from tests.support.paths import FAKES
from tests.support.peers import peer_env
from tests.support.schema_check import validate_client_message

PROBE = FAKES / "mcp_probe_server.py"


class Sent:
    """The frames the session sends."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def record(self, direction: Direction, payload: Any) -> None:
        if direction == "->":
            self.frames.append(json.loads(bytes(payload)))


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
async def test_claude_adapter_starts_the_stdio_server_it_is_given(
    tmp_path: Path,
    claude_adapter: list[str],
    mock_model: int,
    protocol: int,
) -> None:
    node = shutil.which("node")
    assert node is not None
    bin_dir = CLAUDE_DIR / "node_modules" / ".bin"
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **peer_env(home),
        "PATH": f"{bin_dir}{os.pathsep}{Path(node).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "IS_SANDBOX": "1",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{mock_model}",
        "ANTHROPIC_API_KEY": "sk-ant-dummy",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    settings, _ = parse_settings("", "config.toml")
    options, agent = parse_argv(["claude"])
    launch = build_launch(options, agent, settings, [], env)
    assert launch.agent_argv == ("claude-agent-acp",)  # the catalogue's command
    record = tmp_path / "probe.jsonl"
    probe = McpServer("probe", "stdio", command=sys.executable, args=(str(PROBE), str(record)))
    project = tmp_path / "project"
    project.mkdir()
    sent = Sent()
    session = AgentSession(
        launch.agent_argv,
        cwd=project,
        env={**os.environ, **env},
        protocol=protocol,
        handshake_timeout=60,
        trace=sent,
        mcp_servers=[probe],
    )
    try:
        await session.start()
        assert session.tools.refused == (), session.tools.refused
        for _ in range(600):
            if record.exists() and '"tools/list"' in record.read_text():
                break
            await asyncio.sleep(0.1)
        asked = record.read_text() if record.exists() else ""
    finally:
        await session.shutdown()
    assert '"started": true' in asked and '"initialize"' in asked and '"tools/list"' in asked
    new = next(frame for frame in sent.frames if frame.get("method") == "session/new")
    validate_client_message(new, protocol)
    assert new["params"]["mcpServers"][0]["name"] == "probe"


@pytest.mark.timeout(180)
async def test_gemini_cli_started_by_its_catalogue_command_is_sent_the_stdio_server(tmp_path: Path) -> None:
    """Gemini CLI 0.61 takes the server in session/new; it did not start it within a minute here without a
    prompt, so only what we send is checked (not that it ran the server)."""
    from tests.support.peer_gemini import GEMINI_DIR, ensure_gemini_cli, gemini_env
    from tests.support.peers import PeerUnavailable

    try:
        ensure_gemini_cli()
    except PeerUnavailable as exc:
        pytest.fail(f"Gemini CLI is unavailable: {exc}")
    node = shutil.which("node")
    assert node is not None
    home = tmp_path / "home"
    home.mkdir()
    env = gemini_env(home, 9)  # no model is asked: nothing listens there
    env["PATH"] = f"{GEMINI_DIR / 'node_modules' / '.bin'}{os.pathsep}{Path(node).parent}{os.pathsep}{env['PATH']}"
    settings, _ = parse_settings("", "config.toml")
    options, agent = parse_argv(["gemini"])
    launch = build_launch(options, agent, settings, [], env)
    assert launch.agent_argv == ("gemini", "--acp")  # the catalogue's command
    record = tmp_path / "probe.jsonl"
    probe = McpServer("probe", "stdio", command=sys.executable, args=(str(PROBE), str(record)))
    project = tmp_path / "project"
    project.mkdir()
    sent = Sent()
    session = AgentSession(
        launch.agent_argv, cwd=project, env={**os.environ, **env}, handshake_timeout=60, trace=sent, mcp_servers=[probe]
    )
    try:
        await session.start()
        assert session.version == 1 and session.tools.mcp_servers == (probe,) and session.tools.refused == ()
    finally:
        await session.shutdown()
    new = next(frame for frame in sent.frames if frame.get("method") == "session/new")
    validate_client_message(new, 1)
    assert new["params"]["mcpServers"] == [
        {"name": "probe", "command": sys.executable, "args": [str(PROBE), str(record)], "env": []}
    ]
