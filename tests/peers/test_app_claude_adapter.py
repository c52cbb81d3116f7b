"""The real app against a product agent: Claude's ACP adapter, driven by the loopback mock model.

The adapter (npm, ~110 packages, installed once into tests/.peers/) produces all of its own ACP
traffic — session title, usage, notices, commands, tool calls, display-only terminals — while
`tests/support/fakes/mock_anthropic.py` stands in for the model API on a loopback port. Prompts containing
RUNCMD make the model ask for a Bash tool call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.widgets.session_header import SessionHeader
from tests.support.app_run import AppRun
from tests.support.claude import _launch

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [2, 1], ids=["v2", "v1"])
async def test_claude_adapter_answers_and_runs_a_command(
    tmp_path: Path, claude_adapter: list[str], mock_model: int, protocol: Literal[1, 2]
) -> None:
    project = tmp_path / "src" / "project"
    app = AcpApp(_launch(claude_adapter, project, mock_model, protocol), arm_delay=0.1)
    async with app.run_test(size=(140, 45)) as pilot:
        run = AppRun(app, pilot, tmp_path / "no-record.jsonl")
        await run.wait(
            lambda: (
                run.chat.controller.session is not None
                and run.chat.controller.session.session_id is not None
                and run.chat.status.values.state == "idle"
            ),
            "the adapter's session",
            timeout=60,
        )
        assert run.chat.controller.session is not None and run.chat.controller.session.version == protocol
        header = run.chat.query_one("#header", SessionHeader).values
        assert header.agent.startswith("Claude") and header.protocol == protocol

        await run.send("hello there")
        await run.idle()
        answers = [view.text for view in run.views(AgentMessageView)]
        assert "Hello from mock LLM. You said: hello there" in answers

        await run.send("RUNCMD please")
        await run.idle()
        cards = run.views(ToolCallCard)
        assert len(cards) == 1 and cards[0].call.status == "completed"
        assert "echo hi" in (cards[0].call.title or "")
        if protocol == 2:
            # the adapter reports the command's output as a display-only terminal, shown in the card
            terminals = list(cards[0].query(TerminalView))
            assert len(terminals) == 1 and "hi" in terminals[0].full_text()
            assert terminals[0].footer_text() == "exit 0"
        else:
            assert "hi" in cards[0].full_text()
        # closed and finished, the card still shows what the command printed (issue 22)
        tail = cards[0].output_tail()
        assert not cards[0].expanded and tail is not None and [line.plain for line in tail.lines] == ["hi"]
        assert "Done. The tool ran." in [view.text for view in run.views(AgentMessageView)]
        session = run.chat.controller.session
        assert session is not None
        assert session.state.problem_count == 0, list(session.state.problems)
        assert session.state.usage is not None and run.chat.status.values.cost is not None
