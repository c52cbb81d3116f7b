"""SVG snapshots of the timeline widgets at a fixed size with the acp-dark theme.

Baselines live in `tests/__snapshots__/`; regenerate with `pytest --snapshot-update` after a deliberate
visual change (and look at them). They pin the Textual version in use (docs/style.md, rule 12).
"""

from __future__ import annotations

import base64
from typing import Any

from acp_tui.protocol.v2 import (
    Diff,
    DiffChange,
    DiffPatch,
    PlanEntry,
    PlanItems,
    PlanUpdate,
    TerminalExitStatus,
    TerminalOutput,
    TerminalUpdate,
    ToolCallLocation,
    ToolCallUpdate,
)
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call import ToolCallCard
from tests.test_ui_widgets import GIT_PATCH, WidgetApp, found

SIZE = (80, 24)


def test_snapshot_tool_card_with_diff(snap_compare: Any) -> None:
    state = SessionState()
    apply(state, ToolCallUpdate(
        tool_call_id="e1", title="Edit src/app.py [ Allow always ]", kind="edit", status="completed",
        locations=[ToolCallLocation(path="/src/app.py", line=2)],
        content=[Diff(
            changes=[
                DiffChange(operation="modify", path="/src/app.py"),
                DiffChange(operation="add", path="/img/logo.png", file_type="binary"),
                DiffChange(operation="move", path="/new.py", old_path="/old.py"),
            ],
            patch=DiffPatch(format="git_patch", text=GIT_PATCH),
        )],
    ))
    apply(state, ToolCallUpdate(tool_call_id="r1", title="Read README.md", kind="read", status="in_progress"))
    app = WidgetApp(ToolCallCard(found(state.tool_call("e1"))), ToolCallCard(found(state.tool_call("r1"))))
    assert snap_compare(app, terminal_size=SIZE)


def test_snapshot_plan(snap_compare: Any) -> None:
    state = SessionState()
    apply(state, PlanUpdate(plan=PlanItems(plan_id="p", entries=[
        PlanEntry(content="Read the failing test", priority="high", status="completed"),
        PlanEntry(content="Fix the parser", priority="high", status="in_progress"),
        PlanEntry(content="Add a regression test", priority="medium", status="pending"),
        PlanEntry(content="Update the changelog", priority="low", status="cancelled"),
        PlanEntry(content="Celebrate [bold]loudly[/]", priority="_someday", status="_blocked"),
    ])))
    app = WidgetApp(PlanView(found(state.plan("p"))))
    assert snap_compare(app, terminal_size=SIZE)


def test_snapshot_terminal(snap_compare: Any) -> None:
    state = SessionState()
    output = (
        b"\x1b]0;title\x07\x1b[1m============ test session starts ============\x1b[0m\n"
        b"collected 3 items\n\n"
        b"tests/test_a.py \x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\x1b[32m.\x1b[0m\n\n"
        b"\x1b[31mFAILED\x1b[0m tests/test_a.py::test_parse - \x1b[1mAssertionError\x1b[0m\n"
        b"\x1b[31m======= \x1b[1m1 failed\x1b[0m, \x1b[32m2 passed\x1b[31m in 0.12s =======\x1b[0m\n"
    )
    apply(state, TerminalUpdate(
        terminal_id="t1", command="pytest -q", cwd="/home/me/project",
        output=TerminalOutput(data=base64.b64encode(output).decode()),
        exit_status=TerminalExitStatus(exit_code=1),
    ))
    app = WidgetApp(TerminalView(found(state.terminal("t1"))))
    assert snap_compare(app, terminal_size=SIZE)
