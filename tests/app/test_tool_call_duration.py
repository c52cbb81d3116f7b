"""A finished tool call's line says how long it ran (`✓ ▶ Run pytest · exit 0 · 1.2 s`), measured on our clock.

Agents do not report a tool call's duration, so the timeline measures it (`CallClock`): from when the call is
first seen unfinished, going `in_progress` or having its permission answered, to when it is seen finished.
The newcomer report (2026-12-07, nits) saw `Run … · exit 0` with no duration, and `echo hi  Bash · exit 0`
with two spaces where every other part of the line is separated by ` · `.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_tui.session.changes import PermissionsChanged
from acp_tui.session.model import TOOL_CALL, PendingPermission, SessionState, ToolCall
from acp_tui.ui.timeline.renderer import CallClock
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.app_run import (
    card_for,
    running_app,
    tool,
    v2_turn,
)
from tests.support.permission import v2
from tests.support.widgets import card_line

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def call(tool_call_id: str, status: str) -> ToolCall:
    entity = ToolCall((TOOL_CALL, tool_call_id))
    entity.status = status
    return entity


def test_the_clock_runs_from_in_progress_or_the_permission_answer_to_the_finish() -> None:
    clock = FakeClock()
    timing = CallClock(clock)
    state = SessionState()
    # asked first: the time the user takes to answer is not the tool's
    asked = call("t1", "pending")
    state.entities[asked.key] = asked
    timing.seen(asked)
    state.permissions[7] = PendingPermission(7, v2())  # names the tool call "t1"
    timing.permissions(state, PermissionsChanged(opened=(7,)))
    clock.now += 30.0  # the user thinks
    del state.permissions[7]
    timing.permissions(state, PermissionsChanged(resolved=((7, "once"),)))
    clock.now += 1.25
    asked.status = "completed"
    timing.seen(asked)
    assert timing.took(asked.key) == 1.25
    # pending, then in_progress: the run starts when it goes in progress; the first finish counts
    run = call("t2", "pending")
    timing.seen(run)
    clock.now += 5.0
    run.status = "in_progress"
    timing.seen(run)
    clock.now += 0.5
    run.status = "failed"
    timing.seen(run)
    clock.now += 9.0
    run.status = "completed"
    timing.seen(run)
    assert timing.took(run.key) == 0.5
    # first seen finished (a history, or a call that came and went within one frame): not measured
    done = call("t3", "completed")
    timing.seen(done)
    assert timing.took(done.key) is None
    timing.forget(run.key)
    assert timing.took(run.key) is None


async def test_a_finished_command_line_has_one_separator_and_its_duration(tmp_path: Path) -> None:
    gate = tmp_path / "finish"
    steps = [
        tool("run", title="echo hi", kind="execute", status="in_progress", name="Bash"),
        {"op": "wait_for_file", "path": str(gate), "timeout": 30},
        tool("run", status="completed", rawOutput={"exitCode": 0}),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}) as run:
        await run.send("go")
        await run.wait(lambda: any(c.call.id == "run" for c in run.views(ToolCallCard)), "the running call")
        gate.touch()
        await run.idle()
        card = card_for(run, "run")
        line = card_line(run.app, card)
        assert re.fullmatch(r"✓ ▶ echo hi · Bash · \d+\.\d s", line), line
