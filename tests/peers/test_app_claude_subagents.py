"""Claude's ACP adapter with the loopback model, delegating to a subagent: the real adapter's subagent
session (`subagent_update`, the child's own updates and its permission request under its session id)
shows as a lane with the child's work, and its permission is labelled and answered through the queue.

The mock model answers `SUBAGENT` with an `Agent` tool call whose prompt is `WRITEFILE`, so the child
asks to write a file. The mode is set to `default` first (the `auto` mode's classifier needs the real
API and blocks the call), as in the recorded `claude-v2-subagent.log`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from acp_tui.session.v1_adapter import V1_MODE_CONFIG_ID
from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.subagent_lane import SubagentLane
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.app_run import AppRun
from tests.support.claude import _launch
from tests.support.scripted_app import armed_dialog

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [2, 1], ids=["v2", "v1"])
async def test_claude_subagent_work_and_permission_show_in_its_lane(
    tmp_path: Path,
    claude_adapter: list[str],
    mock_model: int,
    protocol: Literal[1, 2],
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
        session = run.chat.controller.session
        assert session is not None and session.version == protocol
        await run.chat.controller.set_config("mode" if protocol == 2 else V1_MODE_CONFIG_ID, "default")
        await run.send("SUBAGENT please")
        dialog = await armed_dialog(pilot, app)
        assert dialog.subagent == "Write hello" and dialog.request.session_id in session.state.subagents
        await pilot.press("a")
        await run.wait(lambda: (tmp_path / "hello.txt").exists(), "the child's file", timeout=60)  # MOCK_CWD
        await run.wait(
            lambda: bool(session.state.subagents) and all(c.ended for c in session.state.subagents.values()),
            "the subagent to end",
            timeout=60,
        )
        await run.idle()
        [lane] = run.views(SubagentLane)
        child = lane.child
        [write] = child.tool_calls
        assert child.title == "Write hello" and (write.title or "").endswith("hello.txt") and write.kind == "edit"
        assert write.status == "completed"
        assert "WRITEFILE for the parent" in lane.body_text().plain and "1 tool call" in lane.header_text().plain
        assert not run.views(ToolCallCard)  # the Write call is the child's, not the parent's
        assert session.state.problem_count == 0, list(session.state.problems)
