"""The whole question path, in a real terminal app: the demo agent asks, the dialog answers, the agent hears.

`AgentSession` runs the built-in demo agent (v2 and v1) with the elicitation service, whose asker is
`ElicitationDialogs` over a small Textual app; the user's keys go through the real dialogs. Every frame
the client sends is validated against the schema of the negotiated version.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.agent.session import AgentSession
from acp_tui.agent.trace import Direction
from acp_tui.protocol import codec
from acp_tui.services.elicitation import ElicitationService
from acp_tui.ui.chat.elicitation_asker import ElicitationDialogs
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen
from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlScreen
from tests.support.paths import REPO
from tests.support.schema_check import validate_client_message
from tests.support.wait import armed
from tests.support.wait import until as wait_until


class Wire:
    """Trace sink: every frame the client sent and received, decoded."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []

    def record(self, direction: Direction, payload: Any) -> None:
        if direction == "->":
            self.sent.append(json.loads(bytes(payload)))
        elif direction == "<-":
            self.received.append(json.loads(bytes(payload)))


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("conversation")


async def until(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 20) -> None:
    await wait_until(condition, pilot=pilot, timeout=timeout)


@pytest.mark.parametrize("version", [2, 1])
async def test_demo_asks_the_user_answers_through_the_dialogs(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_DEMO_SPEED", "0")
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    wire = Wire()
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        service = ElicitationService(ElicitationDialogs(app, arm_delay=0.1, agent_name="demo"))
        session = AgentSession(
            [sys.executable, "-m", "acp_tui.demo"], cwd=tmp_path, protocol=version, trace=wire, services=[service]
        )
        try:
            await asyncio.wait_for(session.start(), 20)
            assert session.version == version

            await session.prompt([codec.text_block("ask")])
            await armed(pilot, ElicitationFormScreen)
            await pilot.press("ctrl+e", *"-tui", "tab", *"ada@example.com", "ctrl+s")  # the first field has the keys
            await until(pilot, lambda: any("answered:" in json.dumps(m) for m in wire.received))

            await session.prompt([codec.text_block("link")])
            await armed(pilot, ElicitationUrlScreen)
            await pilot.press("c")
            await until(pilot, lambda: any(m.get("method") == "elicitation/complete" for m in wire.received))
            await until(pilot, lambda: not service.waiting)
        finally:
            await session.shutdown()
    answers = [m for m in wire.sent if "result" in m and isinstance(m["result"], dict) and "action" in m["result"]]
    assert answers[0]["result"]["action"] == "accept"
    content = answers[0]["result"]["content"]
    assert content["name"] == "greeter-tui" and content["email"] == "ada@example.com"
    assert content["language"] == "python" and content["features"] == ["tests"] and content["private"] is True
    assert answers[1]["result"] == {"action": "accept"}
    assert app.clipboard == "https://example.com/acp-tui-demo/login?code=DEMO-1234"
    for message in wire.sent:
        if message.get("method") == "initialize":
            continue  # the hybrid initialize is checked against v2 elsewhere
        answering = "elicitation/create" if message in answers else None
        if "method" in message or answering:
            validate_client_message(message, version, answering=answering)
