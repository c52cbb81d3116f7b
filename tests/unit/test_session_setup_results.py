"""What `session/new` and `session/resume` answer besides the session (v2: `availableCommands`,
`configOptions`) reaches the model as if the agent had sent the updates: the command menu and the config
pickers are filled without waiting for an `available_commands_update` (docs/protocol.md §3, §10.3)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from acp_tui.agent.session import AgentSession
from acp_tui.services.permission import PermissionService
from tests.support.agent_session import Recorder
from tests.support.agents import AGENTS_DIR
from tests.support.schema_check import validate_agent_message

SCRIPTED = str(AGENTS_DIR / "scripted_agent.py")

MODEL = {
    "configId": "model",
    "name": "Model",
    "category": "model",
    "type": "select",
    "currentValue": "fast",
    "options": [{"value": "fast", "name": "Fast"}, {"value": "deep", "name": "Deep"}],
}
NEW = {
    "sessionId": "scripted-session-1",
    "availableCommands": [{"name": "review", "description": "Review the diff", "type": "command"}],
    "configOptions": [MODEL],
}
RESUMED = {"availableCommands": [{"name": "init", "description": "Create an AGENTS.md", "type": "command"}]}


def script() -> dict[str, Any]:
    return {"version": 2, "session_new": NEW, "responses": {"session/resume": {"result": RESUMED}}}


def test_the_answers_are_schema_valid() -> None:
    validate_agent_message({"jsonrpc": "2.0", "id": 1, "result": NEW}, 2, answering="session/new")
    validate_agent_message({"jsonrpc": "2.0", "id": 2, "result": RESUMED}, 2, answering="session/resume")


async def test_commands_and_options_answered_by_new_and_resume_reach_the_model(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script()))
    recorder = Recorder()
    session = AgentSession(
        [sys.executable, SCRIPTED, str(path)],
        cwd=tmp_path,
        trace=recorder,
        listener=recorder,
        services=[PermissionService(recorder)],
    )
    await session.start()
    try:
        assert [c.name for c in session.state.commands] == ["review"]
        assert [o.config_id for o in session.state.config_options] == ["model"]
        await session.others.resume("yesterday")
        assert session.session_id == "yesterday"
        assert [c.name for c in session.state.commands] == ["init"]  # the resumed session's own list
        assert session.state.problem_count == 0, list(session.state.problems)
        recorder.validate_sent(2)
    finally:
        await session.shutdown()
