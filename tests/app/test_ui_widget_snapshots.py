"""SVG snapshots of the timeline widgets in every state, at 80x24 and 160x50, in both shipped themes.

Scenes: tool calls in every status (one line when done, the body while running or failed, a diff
opened, a terminal inside a card), diffs (several files, notes, a folded long one), the plan (its view
in the timeline and the panel above the prompt, open and folded), a terminal alone, the client's own
lines, and the permission dialog. Baselines live in `tests/app/__snapshots__/`; regenerate with
`pytest --snapshot-update` after a deliberate visual change (and look at them). They pin the size, the
theme and the Textual version in use (docs/style.md, rule 12).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.path_text import ViewContext
from acp_tui.protocol.v2 import (
    Diff,
    DiffChange,
    DiffPatch,
    PlanEntry,
    PlanItems,
    PlanUpdate,
    StateUpdate,
    TerminalExitStatus,
    TerminalOutput,
    TerminalRef,
    TerminalUpdate,
    ToolCallLocation,
    ToolCallUpdate,
)
from acp_tui.session.local_events import AgentExited
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import ModelInput, apply
from acp_tui.ui.dialogs.permission import PermissionScreen
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.plan_view import PlanView
from tests.support.permission import DialogApp, v2
from tests.support.widgets import GIT_PATCH, WidgetApp, found, text_item

SIZES = [(80, 24), (160, 50)]
THEMES = ["acp-dark", "acp-light"]
CWD = "/home/me/project"
CONTEXT = ViewContext(CWD)
PYTEST_OUTPUT = (
    b"\x1b]0;title\x07\x1b[1m============ test session starts ============\x1b[0m\n"
    b"collected 3 items\n\n"
    b"tests/test_a.py \x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\x1b[32m.\x1b[0m\n\n"
    b"\x1b[31mFAILED\x1b[0m tests/test_a.py::test_parse - \x1b[1mAssertionError\x1b[0m\n"
    b"\x1b[31m======= \x1b[1m1 failed\x1b[0m, \x1b[32m2 passed\x1b[31m in 0.12s =======\x1b[0m\n"
)
PY_PATCH = (
    "diff --git a/src/greet.py b/src/greet.py\n--- a/src/greet.py\n+++ b/src/greet.py\n@@ -1,8 +1,9 @@\n"
    '-"""Greets people."""\n+"""Greets people, politely."""\n \n \n def greet(name: str) -> str:\n'
    '-    return "Hello " + name\n+    """Return a friendly greeting for `name`."""\n+    return f"Hello, {name}!"\n'
    ' \n \n if __name__ == "__main__":\n'
)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def edit_diff() -> Diff:
    return Diff(
        changes=[DiffChange(operation="modify", path=f"{CWD}/src/greet.py")],
        patch=DiffPatch(format="git_patch", text=PY_PATCH),
    )


def terminal_factory(state: SessionState) -> Callable[[str], Widget | None]:
    def factory(terminal_id: str) -> Widget | None:
        terminal = state.terminal(terminal_id)
        return TerminalView(terminal, context=CONTEXT) if terminal is not None else None

    return factory


def tool_cards() -> list[Widget]:
    """Every status: pending, running (its body), done (one line), failed (its body), cancelled,
    interrupted, an unknown one, a hostile title; a running and a finished terminal."""
    state = SessionState()
    updates: list[ModelInput] = [
        StateUpdate(state="running"),
        ToolCallUpdate(
            tool_call_id="pend",
            title="Read notes.md",
            kind="read",
            status="pending",
            locations=[ToolCallLocation(path=f"{CWD}/notes.md")],
        ),
        ToolCallUpdate(
            tool_call_id="read",
            title=f"Read {CWD}/src/greet.py",
            kind="read",
            status="completed",
            locations=[ToolCallLocation(path=f"{CWD}/src/greet.py", line=4)],
            content=[text_item("```python\ndef greet(name):\n    return name\n```\n")],
        ),
        ToolCallUpdate(
            tool_call_id="edit",
            title="Edit src/greet.py",
            kind="edit",
            status="completed",
            locations=[ToolCallLocation(path=f"{CWD}/src/greet.py")],
            content=[edit_diff()],
        ),
        ToolCallUpdate(
            tool_call_id="grep",
            title="Search for TODO",
            kind="search",
            status="in_progress",
            content=[text_item("src/greet.py:3: # TODO be friendlier\n")],
        ),
        TerminalUpdate(
            terminal_id="t1",
            command="pytest -q",
            cwd=CWD,
            output=TerminalOutput(data=b64(PYTEST_OUTPUT)),
            exit_status=TerminalExitStatus(exit_code=1),
        ),
        ToolCallUpdate(
            tool_call_id="test",
            title="Run pytest -q",
            kind="execute",
            status="completed",
            content=[TerminalRef(terminal_id="t1")],
        ),
        TerminalUpdate(
            terminal_id="t2",
            command="make build",
            cwd="/tmp/build",
            output=TerminalOutput(data=b64(b"compiling 3 files\n")),
        ),
        ToolCallUpdate(
            tool_call_id="make",
            title="Run make build",
            kind="execute",
            status="in_progress",
            content=[TerminalRef(terminal_id="t2")],
        ),
        ToolCallUpdate(
            tool_call_id="fail",
            title="Fetch https://pypi.invalid/simple/",
            kind="fetch",
            status="failed",
            content=[text_item("Error: could not resolve host pypi.invalid")],
        ),
        ToolCallUpdate(tool_call_id="stop", title="Long job", kind="execute", status="cancelled"),
        ToolCallUpdate(tool_call_id="odd", title="Odd status", kind="other", status="teleporting"),
        ToolCallUpdate(tool_call_id="evil", title="[ Allow always ] [bold]x[/]", kind="_weird", status="completed"),
    ]
    for update in updates:
        apply(state, update)
    gone = SessionState()  # the agent exits while a call runs: it is interrupted
    apply(gone, StateUpdate(state="running"))
    apply(gone, ToolCallUpdate(tool_call_id="gone", title="Think it over", kind="think", status="in_progress"))
    apply(gone, AgentExited(returncode=1, reason="crashed"))
    ids = ["pend", "read", "edit", "grep", "test", "make", "fail", "stop", "odd", "evil"]
    cards = [
        ToolCallCard(found(state.tool_call(i)), context=CONTEXT, terminal_factory=terminal_factory(state)) for i in ids
    ]
    return [*cards, ToolCallCard(found(gone.tool_call("gone")), context=CONTEXT)]


def diffs() -> list[Widget]:
    """An opened edit (numbered, tinted, coloured), several files with notes, a folded long diff."""
    state = SessionState()
    long_lines = "".join(f"+    step_{i}()\n" for i in range(80))
    apply(
        state,
        ToolCallUpdate(
            tool_call_id="many",
            title="Apply the refactoring",
            kind="edit",
            status="in_progress",
            content=[
                Diff(
                    changes=[
                        DiffChange(operation="modify", path="/src/app.py"),
                        DiffChange(operation="add", path=f"{CWD}/img/logo.png", file_type="binary"),
                        DiffChange(operation="move", path=f"{CWD}/new.py", old_path=f"{CWD}/old.py"),
                    ],
                    patch=DiffPatch(format="git_patch", text=GIT_PATCH),
                ),
                Diff(
                    changes=[DiffChange(operation="add", path=f"{CWD}/steps.py")],
                    patch=DiffPatch(
                        format="git_patch", text=f"--- /dev/null\n+++ b/steps.py\n@@ -0,0 +1,80 @@\n{long_lines}"
                    ),
                ),
            ],
        ),
    )
    apply(
        state,
        ToolCallUpdate(
            tool_call_id="edit",
            title="Edit src/greet.py",
            kind="edit",
            status="completed",
            locations=[ToolCallLocation(path=f"{CWD}/src/greet.py")],
            content=[edit_diff()],
        ),
    )
    opened = ToolCallCard(found(state.tool_call("edit")), context=CONTEXT)
    opened.toggle()
    return [opened, ToolCallCard(found(state.tool_call("many")), context=CONTEXT, max_text_lines=20)]


def plans() -> list[Widget]:
    """The plan in the timeline, and the panel above the prompt open and folded."""
    state = SessionState()
    entries = [
        PlanEntry(content="Read the failing test", priority="high", status="completed"),
        PlanEntry(content="Fix the parser", priority="high", status="in_progress"),
        PlanEntry(content="Add a regression test", priority="medium", status="pending"),
        PlanEntry(content="Update the changelog", priority="low", status="cancelled"),
        PlanEntry(content="Celebrate [bold]loudly[/]", priority="_someday", status="_blocked"),
    ]
    # the panels show a plan of their own: the panel showing a plan's checklist would fold that plan's
    # view in the timeline to its header (tests/app/test_app_plan_once.py)
    apply(state, PlanUpdate(plan=PlanItems(plan_id="p", entries=entries)))
    apply(state, PlanUpdate(plan=PlanItems(plan_id="q", entries=entries)))
    plan = found(state.plan("q"))
    opened, folded = PlanPanel(), PlanPanel()
    opened.show(plan)
    folded.show(plan)
    folded.action_toggle_open()
    return [PlanView(found(state.plan("p"))), opened, folded]


def terminal() -> list[Widget]:
    state = SessionState()
    apply(
        state,
        TerminalUpdate(
            terminal_id="t1",
            command="pytest -q",
            cwd="/home/me/elsewhere",
            output=TerminalOutput(data=b64(PYTEST_OUTPUT)),
            exit_status=TerminalExitStatus(exit_code=1),
        ),
    )
    return [TerminalView(found(state.terminal("t1")), context=CONTEXT)]


def system_lines() -> list[Widget]:
    return [
        SystemLine("a warning from the config file", severity="warning"),
        SystemLine("restarting the agent…"),
        SystemLine("⊘ cancelled"),
        SystemLine("✗ the turn failed: model overloaded", severity="error"),
        SystemLine(
            "the agent stopped (exit 1) — press Ctrl-R to restart it",
            severity="error",
            detail="Traceback (most recent call last):\nRuntimeError: boom",
        ),
    ]


SCENES: dict[str, Callable[[], list[Widget]]] = {
    "tool_cards": tool_cards,
    "diffs": diffs,
    "plans": plans,
    "terminal": terminal,
    "system_lines": system_lines,
}


def themed(app: App[Any], theme: str) -> App[Any]:
    app.theme = theme
    return app


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("scene", list(SCENES))
def test_snapshot(snap_compare: Any, scene: str, size: tuple[int, int], theme: str) -> None:
    assert snap_compare(themed(WidgetApp(*SCENES[scene]()), theme), terminal_size=size)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_permission_dialog(snap_compare: Any, size: tuple[int, int], theme: str) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        pilot.app.theme = theme
        screen = PermissionScreen(v2(), arm_delay=0.05, position=1, total=2)
        pilot.app.push_screen(screen)
        for _ in range(500):
            if screen.armed:
                break
            await pilot.pause(0.01)
        await pilot.pause()

    assert snap_compare(DialogApp(), terminal_size=size, run_before=run_before)
