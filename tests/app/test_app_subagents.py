"""Subagents in the app: a lane under the conversation for each child session, open while it works and
closed once it ended (Enter or a click toggles it), and a child's permission request labelled with its
name, answered through the one permission queue for the child's session."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.subagent_lane import SubagentLane
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.scripted_app import (
    ARM_DELAY,
    SIZE,
    ScriptedRun,
    armed_dialog,
    isolate_user_dirs,
    ready,
    submit,
    v2_turn,
    wait_until,
)
from tests.support.subagents import CHILD, TITLE, subagent_end, subagent_steps


@pytest.fixture(autouse=True)
def _user_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)


PERMISSION = "session/request_permission"


def lane_of(app: AcpApp) -> SubagentLane | None:
    lanes = list(app.screen.query(SubagentLane))
    return lanes[0] if lanes else None


async def test_the_lane_is_open_while_the_child_works_and_closes_when_it_ends(tmp_path: Path) -> None:
    gate = tmp_path / "child-may-finish"
    steps = [*subagent_steps(end=False), {"op": "wait_for_file", "path": str(gate)}, *subagent_end()]
    run = ScriptedRun(tmp_path, {"turns": [{"steps": v2_turn(*steps)}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "delegate")
        await wait_until(
            pilot, lambda: (lane := lane_of(app)) is not None and len(lane.child.tool_calls) == 2, "2 calls"
        )
        lane = lane_of(app)
        assert lane is not None and lane.child.session_id == CHILD
        await wait_until(pilot, lambda: "Found [bold]3[/] tests" in lane.body_text().plain, "the child's answer")
        assert lane.expanded and lane.has_class("-expanded")
        header = lane.header_text().plain
        assert TITLE in header and "general-purpose" in header and "2 tool calls" in header
        body = lane.body_text().plain
        assert "› Find the tests" in body and "grep -rn def test" in body and "Write notes.md" in body
        assert not app.screen.query(ToolCallCard)  # the child's calls are in its lane, not the parent's timeline
        gate.touch()
        await wait_until(pilot, lambda: lane.child.ended and not lane.expanded, "the lane to close")
        await wait_until(pilot, lambda: chat.status.values.state == "idle", "the turn to end")
        assert "↩ 3 tests found" in lane.body_text().plain
        chat.prompt_input.focus()
        await pilot.press("tab")  # from the prompt to the newest entry that takes the focus: the lane
        assert app.focused is lane
        await pilot.press("enter")
        assert lane.expanded and lane.has_class("-expanded")
        await pilot.click(lane.query_one("_LaneHeader"))
        assert not lane.expanded
        await pilot.press("h")  # typing away from the prompt lands in it
        assert app.focused is chat.prompt_input and chat.prompt_input.text == "h"
    run.validate_all()


async def test_a_subagents_permission_is_labelled_and_answered_for_its_session(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, {"turns": [{"steps": v2_turn(*subagent_steps(ask=True))}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "delegate")
        screen = await armed_dialog(pilot, app)
        assert screen.subagent == TITLE and screen.request.session_id == CHILD
        title = screen.query_one("#title").render()
        assert f"subagent {TITLE}" in str(title) and "Write notes.md" in str(title)
        await pilot.press("a")
        await wait_until(pilot, lambda: run.answer_to(40) is not None, "the answer")
        await wait_until(pilot, lambda: chat.status.values.state == "idle", "the turn to end")
    assert run.answer_to(40) == {
        "jsonrpc": "2.0",
        "id": 40,
        "result": {"outcome": {"outcome": "selected", "optionId": "allow"}},
    }
    run.validate_all({40: PERMISSION})
