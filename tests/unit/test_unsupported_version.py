"""`-32022` at initialize (schema `ErrorCode`, `UnsupportedProtocolVersionErrorData`): say what the agent speaks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acp_tui.agent.session import AgentSession, SessionError
from tests.support.agents import AGENTS_DIR

SCRIPTED = str(AGENTS_DIR / "scripted_agent.py")


@pytest.mark.asyncio
async def test_an_agent_that_speaks_no_version_of_ours_is_named_clearly(tmp_path: Path) -> None:
    error = {"code": -32022, "message": "Unsupported protocol version", "data": {"requested": 2, "supported": [7, 9]}}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 2, "responses": {"initialize": {"error": error}}}), encoding="utf-8")
    session = AgentSession([sys.executable, SCRIPTED, str(script)], cwd=tmp_path)
    try:
        await session.connect()
        with pytest.raises(SessionError, match="it supports: 7, 9"):
            await session.initialize()
    finally:
        await session.shutdown()


@pytest.mark.asyncio
async def test_a_v1_only_agent_is_asked_again_in_v1(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 1, "supported_versions": [1]}), encoding="utf-8")
    session = AgentSession([sys.executable, SCRIPTED, str(script)], cwd=tmp_path)
    try:
        await session.connect()
        assert await session.initialize() == 1
    finally:
        await session.shutdown()
