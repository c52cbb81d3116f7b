"""SVG snapshots of the whole chat screen at 120x40: an answer with code, a tool call with a diff, a
plan with the usage meter, and the light theme; and at 80x24 in both themes (header and status bar fit).

The scripted agent plays fixed turns; HOME is the test's own directory, so the header shows
`~/src/project`; each snapshot is taken once the agent is idle (no spinner frame). Baselines live in
`tests/app/__snapshots__/test_app_snapshots/`; regenerate with `pytest --snapshot-update` after a
deliberate visual change, and look at them. They pin the Textual version in use (docs/style.md, rule 12).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.permission import PermissionScreen, dialog_rows
from acp_tui.ui.timeline.renderer import CallClock
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.widgets.session_header import SessionHeader
from tests.support.agents import scripted_agent_argv
from tests.support.app_run import (
    GIT_DIFF,
    AppRun,
    b64,
    make_launch,
    plan_update,
    project_dir,
    text,
    tool,
    update,
    v2_turn,
)
from tests.support.scripted_app import STANDARD_OPTIONS, permission_request

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

SIZE = (120, 40)

INIT = {
    "protocolVersion": 2,
    "info": {"name": "scripted", "title": "Scripted Agent", "version": "1.0.0"},
    "capabilities": {"session": {}},
}

ANSWER = """\
## Greeting people, politely

The greeting in `greet.py` works, but it can be **friendlier**:

- use an *f-string* instead of `+` concatenation;
- keep the function **pure**, so it is trivial to test.

```python
def greet(name: str) -> str:
    \"\"\"Return a friendly greeting for `name`.\"\"\"
    return f"Hello, {name}!"
```

> Tip: run `pytest -q` after the change.
"""


def answer_steps() -> list[dict[str, Any]]:
    return [
        update(
            {"sessionUpdate": "agent_message_chunk", "messageId": "answer", "content": text(ANSWER[start : start + 13])}
        )
        for start in range(0, len(ANSWER), 13)
    ]


def snapshot_app(
    tmp_path: Path,
    turn: dict[str, Any],
    *,
    theme: str | None = None,
    session_new: dict[str, Any] | None = None,
    after_new: tuple[dict[str, Any], ...] = (),
) -> AcpApp:
    script = {
        "version": 2,
        "initialize": INIT,
        "turns": [turn],
        "after_session_new": [
            *after_new,
            update({"sessionUpdate": "session_info_update", "title": "Friendlier greeting"}),
        ],
    }
    if session_new is not None:
        script["session_new"] = session_new
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    launch = make_launch(
        scripted_agent_argv(script_path, tmp_path / "record.jsonl"), cwd=project_dir(tmp_path), theme=theme
    )
    return AcpApp(launch, arm_delay=0.1)


def send_and_wait(
    prompt: str, *, record: Path, gate: tuple[str, Path] | None = None
) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """A `run_before` that sends `prompt`, waits until the turn is over, and leaves the prompt focused;
    with a `gate` (a tool call id, a file the agent waits for), the file is made once that call is shown
    running, so its finish is seen apart from its start and the line has a duration."""

    async def run_before(pilot: Pilot[Any]) -> None:
        run = AppRun(pilot.app, pilot, record)  # type: ignore[arg-type]
        await run.ready()
        # A blinking cursor would make the picture depend on the time it is taken (it failed under load).
        run.chat.prompt_input.cursor_blink = False
        await run.wait(
            lambda: run.chat.query_one("#header", SessionHeader).values.session_title is not None, "the title"
        )
        await run.send(prompt)
        if gate is not None:
            call_id, path = gate
            await run.wait(lambda: any(card.call.id == call_id for card in run.views(ToolCallCard)), "the call")
            path.touch()
        await run.idle()
        await run.wait(lambda: run.chat.status.values.state == "idle", "idle")
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    return run_before


def test_snapshot_streamed_answer_with_code(snap_compare: Any, tmp_path: Path) -> None:
    app = snapshot_app(tmp_path, v2_turn(*answer_steps()))
    run_before = send_and_wait("How can greet() be friendlier?", record=tmp_path / "record.jsonl")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_tool_call_with_diff(snap_compare: Any, tmp_path: Path) -> None:
    steps = [
        update(
            {
                "sessionUpdate": "agent_message",
                "messageId": "intro",
                "content": [text("I'll make the greeting friendlier.")],
            }
        ),
        tool(
            "edit-1",
            title="Edit src/greet.py",
            kind="edit",
            status="completed",
            locations=[{"path": "src/greet.py", "line": 2}],
            content=[
                {
                    "type": "diff",
                    "changes": [{"operation": "modify", "path": "src/greet.py"}],
                    "patch": {"format": "git_patch", "text": GIT_DIFF},
                }
            ],
        ),
        tool("read-1", title="Read src/greet.py", kind="read", status="completed"),
        tool(
            "run-1",
            title="Run the tests",
            kind="execute",
            status="failed",
            content=[{"type": "content", "content": text("1 failed, 2 passed")}],
        ),
        update({"sessionUpdate": "agent_message", "messageId": "done", "content": [text("Done.")]}),
    ]
    app = snapshot_app(tmp_path, v2_turn(*steps))
    run_before = send_and_wait("Make it friendlier", record=tmp_path / "record.jsonl")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_plan_with_usage_meter(snap_compare: Any, tmp_path: Path) -> None:
    steps = [
        plan_update(
            "plan-1",
            ("Read the greeting code", "completed"),
            ("Make the greeting friendlier", "completed"),
            ("Run the tests", "in_progress"),
            ("Update the changelog", "pending"),
        ),
        update({"sessionUpdate": "agent_message", "messageId": "m", "content": [text("Working through the plan.")]}),
        update(
            {
                "sessionUpdate": "usage_update",
                "used": 53_200,
                "size": 200_000,
                "cost": {"amount": 0.1234, "currency": "USD"},
            }
        ),
    ]
    app = snapshot_app(tmp_path, v2_turn(*steps))
    run_before = send_and_wait("Plan it", record=tmp_path / "record.jsonl")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_light_theme(snap_compare: Any, tmp_path: Path) -> None:
    steps = [
        update({"sessionUpdate": "agent_thought", "messageId": "t", "content": [text("Check greet.py first.")]}),
        *answer_steps(),
        tool(
            "edit-1",
            title="Edit src/greet.py",
            kind="edit",
            status="completed",
            content=[
                {
                    "type": "diff",
                    "changes": [{"operation": "modify", "path": "src/greet.py"}],
                    "patch": {"format": "git_patch", "text": GIT_DIFF},
                }
            ],
        ),
        update({"sessionUpdate": "usage_update", "used": 1_500, "size": 200_000}),
    ]
    app = snapshot_app(tmp_path, v2_turn(*steps), theme="acp-light")
    run_before = send_and_wait("How can greet() be friendlier?", record=tmp_path / "record.jsonl")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# -- 80x24: the header and the status bar fit (issue 11) ----------------------------------------------

NARROW = (80, 24)
CHIPS = {
    "sessionId": "narrow-1",
    "configOptions": [
        {
            "type": "select",
            "configId": "mode",
            "name": "Mode",
            "currentValue": "ask",
            "category": "mode",
            "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
        },
        {
            "type": "select",
            "configId": "model",
            "name": "Model",
            "currentValue": "fast",
            "category": "model",
            "options": [{"value": "fast", "name": "Fast"}, {"value": "smart", "name": "Smart"}],
        },
    ],
}


def narrow_steps() -> list[dict[str, Any]]:
    return [
        update({"sessionUpdate": "agent_message", "messageId": "m", "content": [text("I'll edit the greeting.")]}),
        tool(
            "edit-1",
            title="Edit src/greet.py",
            kind="edit",
            status="completed",
            content=[
                {
                    "type": "diff",
                    "changes": [{"operation": "modify", "path": "src/greet.py"}],
                    "patch": {"format": "git_patch", "text": GIT_DIFF},
                }
            ],
        ),
        update(
            {
                "sessionUpdate": "usage_update",
                "used": 53_200,
                "size": 200_000,
                "cost": {"amount": 0.1234, "currency": "USD"},
            }
        ),
    ]


def test_snapshot_80x24_dark(snap_compare: Any, tmp_path: Path) -> None:
    app = snapshot_app(tmp_path, v2_turn(*narrow_steps()), session_new=CHIPS)
    run_before = send_and_wait("Make it friendlier", record=tmp_path / "record.jsonl")
    assert snap_compare(app, terminal_size=NARROW, run_before=run_before)


def test_snapshot_80x24_light_with_an_error(snap_compare: Any, tmp_path: Path) -> None:
    """The turn fails: the status bar keeps the error and ^Q quit next to the usage and a problem."""
    turn = {
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            *narrow_steps(),
            {"op": "raw", "line": "not json"},
            {"op": "stderr", "text": "rate limited"},
            update(
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "error",
                    "error": {"code": -32603, "message": "model overloaded, try again in a minute"},
                }
            ),
        ]
    }
    app = snapshot_app(tmp_path, turn, theme="acp-light", session_new=CHIPS)
    sent = send_and_wait("Make it friendlier", record=tmp_path / "record.jsonl")

    async def run_before(pilot: Pilot[Any]) -> None:
        await sent(pilot)
        run = AppRun(pilot.app, pilot, tmp_path / "record.jsonl")  # type: ignore[arg-type]
        # stderr has its own pipe: it may be read after the turn ended
        await run.wait(lambda: run.chat.status.values.stderr_unseen == 1, "the stderr line")
        await pilot.pause()

    assert snap_compare(app, terminal_size=NARROW, run_before=run_before)


# -- a turn of tool calls at both sizes and in both themes (issue 18) ----------------------------------


def tools_steps(gate: Path) -> list[dict[str, Any]]:
    """The shape of the demo's `tools` answer: prose, a read, an edit, a command (finishing once `gate`
    exists), a failure, prose."""
    return [
        update(
            {
                "sessionUpdate": "agent_message",
                "messageId": "intro",
                "content": [text("Let me read the file, improve it, run the tests and check the index.")],
            }
        ),
        tool(
            "read-1",
            title="Read src/greet.py",
            kind="read",
            status="completed",
            locations=[{"path": "src/greet.py", "line": 1}],
            content=[{"type": "content", "content": text("```python\ndef greet(name):\n    return name\n```")}],
        ),
        tool(
            "edit-1",
            title="Edit src/greet.py",
            kind="edit",
            status="completed",
            content=[
                {
                    "type": "diff",
                    "changes": [{"operation": "modify", "path": "src/greet.py"}],
                    "patch": {"format": "git_patch", "text": GIT_DIFF},
                }
            ],
        ),
        tool(
            "run-1",
            title="Run pytest -q",
            kind="execute",
            status="in_progress",
            content=[{"type": "terminal", "terminalId": "term-1"}],
        ),
        update({"sessionUpdate": "terminal_update", "terminalId": "term-1", "command": "pytest -q"}),
        update(
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": "term-1",
                "data": b64(b"\x1b[32m3 passed\x1b[0m in 0.04s\n"),
            }
        ),
        {"op": "wait_for_file", "path": str(gate), "timeout": 30},
        update({"sessionUpdate": "terminal_update", "terminalId": "term-1", "exitStatus": {"exitCode": 0}}),
        tool("run-1", status="completed"),
        tool(
            "fetch-1",
            title="Fetch https://pypi.invalid/simple/",
            kind="fetch",
            status="failed",
            content=[{"type": "content", "content": text("Error: could not resolve host pypi.invalid")}],
        ),
        update(
            {
                "sessionUpdate": "agent_message",
                "messageId": "done",
                "content": [text("Three tool calls worked; the fetch failed.")],
            }
        ),
    ]


@pytest.mark.parametrize("theme", ["acp-dark", "acp-light"])
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_tools_answer(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int], theme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command's duration is measured on our clock; the picture shows a fixed one.
    monkeypatch.setattr(CallClock, "took", lambda self, key: 1.2 if key in self._took else None)
    gate = tmp_path / "finish"
    app = snapshot_app(tmp_path, v2_turn(*tools_steps(gate)), theme=theme)
    run_before = send_and_wait("tools", record=tmp_path / "record.jsonl", gate=("run-1", gate))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("theme", ["acp-dark", "acp-light"])
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_jobs_tray(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int], theme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two background jobs listed after the turn: the tray above the status bar, `2 jobs` in it."""
    from acp_tui.ui.widgets.jobs_tray import JobsTray
    from tests.support.jobs_script import start_jobs

    monkeypatch.setattr(JobsTray, "clock", staticmethod(lambda: 0.0))  # no elapsed time in a picture
    app = snapshot_app(tmp_path, {"steps": start_jobs()["steps"]}, theme=theme)
    run_before = send_and_wait("start", record=tmp_path / "record.jsonl")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def subagent_lane_steps() -> list[dict[str, Any]]:
    """Two subagents: one that ended (its lane closed) and the scripted explorer (opened by the test)."""
    from tests.support.subagents import child, parent, subagent_steps

    other = "child-review-1"
    return [
        update({"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": text("Delegating the work.")}),
        parent({"sessionUpdate": "subagent_update", "sessionId": other, "title": "Review the diff"}),
        child({"sessionUpdate": "tool_call_update", "toolCallId": "r-1", "title": "git diff", "kind": "read"}, other),
        child({"sessionUpdate": "tool_call_update", "toolCallId": "r-1", "status": "completed"}, other),
        parent(
            {
                "sessionUpdate": "subagent_update",
                "sessionId": other,
                "state": {"state": "idle", "stopReason": "end_turn"},
            }
        ),
        *subagent_steps(),
        update(
            {"sessionUpdate": "agent_message_chunk", "messageId": "a2", "content": text("Both subagents are done.")}
        ),
    ]


# -- the account in the header and the plan's windows in the status bar (issue 28) --------------------------


def limit_window(kind: str, utilization: float, status: str) -> dict[str, Any]:
    """A `usage_update` carrying one of Claude's plan windows (`_meta["_claude/rateLimit"]`)."""
    window = {"status": status, "rateLimitType": kind, "utilization": utilization, "resetsAt": 1_900_000_000}
    return update(
        {"sessionUpdate": "usage_update", "used": 53_000, "size": 200_000, "_meta": {"_claude/rateLimit": window}}
    )


@pytest.mark.parametrize("theme", ["acp-dark", "acp-light"])
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_subagent_lanes(snap_compare: Any, tmp_path: Path, size: tuple[int, int], theme: str) -> None:
    """A closed lane (one line, its tool-call count) and an open one (its task, calls, answer and reply)."""
    from acp_tui.ui.timeline.subagent_lane import SubagentLane

    app = snapshot_app(tmp_path, v2_turn(*subagent_lane_steps()), theme=theme)
    sent = send_and_wait("delegate", record=tmp_path / "record.jsonl")

    async def run_before(pilot: Pilot[Any]) -> None:
        await sent(pilot)
        lanes = list(pilot.app.screen.query(SubagentLane))
        assert [lane.expanded for lane in lanes] == [False, False]
        lanes[1].toggle()
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("theme", ["acp-dark", "acp-light"])
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_account_and_limits(snap_compare: Any, tmp_path: Path, size: tuple[int, int], theme: str) -> None:
    """`Claude Max` in the header; `5h 42% 7d 83% ⚠` in the status bar (the worst window alone when narrow)."""
    account = {"kind": "account", "label": "Claude Max", "account": {"email": "ada@example.com"}}
    push = {
        "op": "send",
        "message": {"jsonrpc": "2.0", "method": "_auth/status_update", "params": {"authStatus": account}},
    }
    turn = v2_turn(
        update({"sessionUpdate": "agent_message", "messageId": "a", "content": [text("Done.")]}),
        limit_window("five_hour", 0.42, "allowed"),
        limit_window("seven_day", 0.83, "allowed_warning"),
    )
    app = snapshot_app(tmp_path, turn, theme=theme, after_new=(push,))
    run_before = send_and_wait("hello", record=tmp_path / "record.jsonl")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


#: Tab 1's question in the tab-bar picture (asked while it is hidden, so never drawn).
PERMISSION = permission_request(7, STANDARD_OPTIONS[::2], title="Edit greet.py")


@pytest.mark.parametrize("theme", ["acp-dark", "acp-light"])
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_tab_bar(snap_compare: Any, tmp_path: Path, size: tuple[int, int], theme: str) -> None:
    """Three tabs: tab 1 needs you (a permission asked while it was hidden) with unseen output, tab 2 works,
    tab 3 is shown and idle; at 80 columns the titles are cut, never the numbers or glyphs."""
    hold = tmp_path / "never"  # tab 2's turn waits for this file: it stays working for the picture
    turns = [
        v2_turn(
            update({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": text("Hello!")}), match="hello"
        ),
        {
            "match": "dialog",
            "steps": [
                {"op": "respond_prompt"},
                {"op": "user_message"},
                {"op": "state", "state": "running"},
                update({"sessionUpdate": "agent_message_chunk", "messageId": "b", "content": text("Editing.")}),
                PERMISSION,
                {"op": "state", "state": "idle", "stopReason": "end_turn"},
            ],
        },
        {
            "match": "work",
            "steps": [
                {"op": "respond_prompt"},
                {"op": "user_message"},
                {"op": "state", "state": "running"},
                update({"sessionUpdate": "agent_message_chunk", "messageId": "c", "content": text("Working on it.")}),
                {"op": "wait_for_file", "path": str(hold), "timeout": 60},
                {"op": "state", "state": "idle", "stopReason": "end_turn"},
            ],
        },
    ]
    script = {
        "version": 2,
        "initialize": INIT,
        "turns": turns,
        "after_session_new": [
            update({"sessionUpdate": "session_info_update", "title": "Make the greeting friendlier, with tests"})
        ],
    }
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    record = tmp_path / "record.jsonl"
    launch = make_launch(scripted_agent_argv(script_path, record), cwd=project_dir(tmp_path), theme=theme)
    app = AcpApp(launch, arm_delay=0.1)

    async def run_before(pilot: Pilot[Any]) -> None:
        run = AppRun(pilot.app, pilot, record)  # type: ignore[arg-type]

        async def ready_tab() -> None:
            await run.ready()
            run.chat.prompt_input.cursor_blink = False
            await run.wait(lambda: run.chat.controller.state.info.title is not None, "the title")

        await ready_tab()
        await run.send("hello")
        await run.idle()
        tabs = app.tabs
        for number in (2, 3):
            await pilot.press("ctrl+t")
            await run.wait(lambda number=number: len(tabs.tabs) == number, f"tab {number}")  # type: ignore[misc]
            await ready_tab()
            if number == 2:
                await run.send("work")
                await run.wait(lambda: run.chat.status.values.busy, "tab 2 working")
        first = tabs.tabs[0].screen
        first.controller.submit("dialog")  # asked while tab 1 is hidden
        await run.wait(
            lambda: (
                [(label.state, label.unseen) for label in tabs.labels()]
                == [("waiting", True), ("working", False), ("idle", False)]
            ),
            "tab 1 waiting with unseen output, tab 2 working, tab 3 idle",
        )
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_permission_over_the_turn(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """A permission question in the real chat screen: it sits above the status bar (which stays in view), as
    tall as it needs, and the turn's own words stay above it (the newcomer report of 2026-12-07 saw the dialog
    cover the lower 20 rows at 160x50, status bar and all)."""
    steps = [
        update({"sessionUpdate": "agent_message", "messageId": "a", "content": [text("Everything at once: an edit.")]}),
        tool("call-7", title="Edit greet.py", kind="edit", status="pending"),
        permission_request(7, STANDARD_OPTIONS, title="Edit greet.py"),
    ]
    app = snapshot_app(tmp_path, v2_turn(*steps))
    record = tmp_path / "record.jsonl"

    async def run_before(pilot: Pilot[Any]) -> None:
        run = AppRun(pilot.app, pilot, record)  # type: ignore[arg-type]
        await run.ready()
        run.chat.prompt_input.cursor_blink = False
        await run.wait(lambda: run.chat.controller.state.info.title is not None, "the title")
        await run.send("everything")
        await run.wait(lambda: isinstance(app.screen, PermissionScreen) and app.screen.armed, "the question")
        await pilot.pause()
        dialog = app.screen.query_one("#dialog")
        status = run.chat.query_one("#status")
        assert dialog.region.bottom <= status.region.y, (dialog.region, status.region)  # the status bar shows
        assert dialog.region.height <= dialog_rows(size[1])  # 14 rows of 24, 19 of 50: the turn stays in view

    assert snap_compare(app, terminal_size=size, run_before=run_before)
