"""The real app against the scripted agent: every update kind shows as it should, in both versions.

Each test starts `AcpApp` with the scripted fake agent (`tests/support/agents/scripted_agent.py`), sends a
prompt through the real prompt input and waits on conditions until the timeline shows what the
agent sent. The harness (`AppRun`, `running_app`) is in tests/support/app_run.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.color import Color

from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.compaction import CompactionView
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.thought_view import ThoughtView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.timeline.unknown_update import UnknownUpdateView
from acp_tui.ui.timeline.user_message import UserMessageView
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.session_header import SessionHeader
from acp_tui.ui.widgets.status_bar import fit_hints
from acp_tui.ui.widgets.stderr_panel import StderrPanel
from tests.support.app_run import (
    GIT_DIFF,
    SHOWN_CWD,
    AppRun,
    b64,
    card_for,
    plan_update,
    running_app,
    screen_text,
    text,
    tool,
    update,
    v1_turn,
    v2_turn,
)

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

# -- harness ---------------------------------------------------------------------------------------


def drawn_colours(run: AppRun, word: str) -> tuple[Color, Color]:
    """The foreground and background colours the screen draws `word` with."""
    for strip in run.app.screen._compositor.render_strips():
        for segment in strip:
            if word in segment.text and segment.style is not None:
                style = segment.style
                assert style.color is not None and style.bgcolor is not None
                return Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)
    raise AssertionError(f"{word!r} is not on screen")


# -- header ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
async def test_header_shows_agent_protocol_cwd_and_literal_title(tmp_path: Path, version: int) -> None:
    hostile = "[bold red]pwn[/] \x1b]0;evil\x07 $(rm -rf ~)"
    init: dict[str, Any]
    if version == 2:
        init = {
            "protocolVersion": 2,
            "info": {"name": "scripted", "title": "Scripted Agent", "version": "3.1.4"},
            "capabilities": {"session": {}},
        }
    else:
        init = {
            "protocolVersion": 1,
            "agentCapabilities": {},
            "authMethods": [],
            "agentInfo": {"name": "scripted", "title": "Scripted Agent", "version": "3.1.4"},
        }
    script = {
        "version": version,
        "initialize": init,
        "after_session_new": [update({"sessionUpdate": "session_info_update", "title": hostile})],
    }
    async with running_app(tmp_path, script) as run:
        header = run.chat.query_one("#header", SessionHeader)
        await run.wait(lambda: header.values.session_title == hostile, "the session title")
        values = header.values
        assert values.agent == "Scripted Agent" and values.agent_version == "3.1.4"
        assert values.protocol == version
        rendered = header.render().plain
        assert "Scripted Agent 3.1.4" in rendered
        assert "[bold red]pwn[/]" in rendered and "$(rm -rf ~)" in rendered
        assert "\x1b" not in rendered and "\x07" not in rendered
        assert ("ACP v2" if version == 2 else "ACP v1") in rendered
        assert SHOWN_CWD in rendered


async def test_header_falls_back_to_the_agent_name_then_the_command(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        header = run.chat.query_one("#header", SessionHeader)
        await run.wait(lambda: header.values.protocol == 2, "the handshake")
        assert header.values.agent == "scripted-agent" and header.values.session_title is None
    async with running_app(tmp_path, {"version": 1}) as run:
        header = run.chat.query_one("#header", SessionHeader)
        await run.wait(lambda: header.values.protocol == 1, "the handshake")
        assert header.values.agent == "scripted"  # v1 agent without agentInfo: the launch's name
        assert "ACP v1" in header.render().plain


# -- user messages ---------------------------------------------------------------------------------


async def test_v2_user_message_before_or_after_the_response_is_one_bubble(tmp_path: Path) -> None:
    reply = update({"sessionUpdate": "agent_message", "messageId": "a-$MESSAGE_ID", "content": [text("ok")]})
    script = {
        "version": 2,
        "turns": [
            {
                "match": "before",
                "steps": [
                    {"op": "user_message"},
                    {"op": "respond_prompt"},
                    {"op": "state", "state": "running"},
                    reply,
                    {"op": "state", "state": "idle", "stopReason": "end_turn"},
                ],
            },
            v2_turn(reply, match="after"),
        ],
    }
    async with running_app(tmp_path, script) as run:
        await run.send("echo before the answer")
        await run.idle()
        await run.send("echo after the answer")
        await run.idle()
        await run.send("same words")
        await run.idle()
        await run.send("same words")
        await run.idle()
        bubbles = run.views(UserMessageView)
        assert [b.text for b in bubbles] == [
            "echo before the answer",
            "echo after the answer",
            "same words",
            "same words",
        ]
        assert all(b.state == "sent" and b.status_text == "" for b in bubbles)
        assert [m.text for m in run.views(AgentMessageView)] == ["ok", "ok", "echo: same words", "echo: same words"]


async def test_v1_user_message_is_one_bubble_per_prompt(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 1}) as run:
        await run.send("hello v1")
        await run.idle()
        await run.send("hello v1")
        await run.idle()
        assert [b.text for b in run.views(UserMessageView)] == ["hello v1", "hello v1"]
        assert [m.text for m in run.views(AgentMessageView)] == ["echo: hello v1", "echo: hello v1"]


# -- agent messages and thoughts -------------------------------------------------------------------

STREAMED = "".join(f"word{index} " + ("\n\n" if index % 10 == 9 else "") for index in range(120))


def chunks(kind: str, whole: str, size: int, message_id: str | None) -> list[dict[str, Any]]:
    steps = []
    for start in range(0, len(whole), size):
        body: dict[str, Any] = {"sessionUpdate": kind, "content": text(whole[start : start + size])}
        if message_id is not None:
            body["messageId"] = message_id
        steps.append(update(body))
    return steps


@pytest.mark.parametrize("version", [1, 2])
async def test_agent_message_streamed_from_many_chunks_is_exact(tmp_path: Path, version: int) -> None:
    steps = chunks("agent_message_chunk", STREAMED, 7, "answer-1" if version == 2 else None)
    script = {"version": version, "turns": [v2_turn(*steps) if version == 2 else v1_turn(*steps)]}
    async with running_app(tmp_path, script) as run:
        await run.send("stream please")
        await run.idle()
        [message] = run.views(AgentMessageView)
        assert message.text == STREAMED
        await run.wait(lambda: any("word119" in line for line in message.stream.rendered_lines()), "last word")
        rendered = " ".join(message.stream.rendered_lines())
        assert all(f"word{index}" in rendered for index in range(120))


async def test_agent_message_upsert_replaces_the_chunks(tmp_path: Path) -> None:
    steps = [
        *chunks("agent_message_chunk", "a draft that will be replaced", 5, "m1"),
        update({"sessionUpdate": "agent_message", "messageId": "m1", "content": [text("the final answer")]}),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}) as run:
        await run.send("upsert")
        await run.idle()
        [message] = run.views(AgentMessageView)
        assert message.text == "the final answer"
        await run.wait(lambda: "the final answer" in " ".join(message.stream.rendered_lines()), "the upsert")
        assert "draft" not in " ".join(message.stream.rendered_lines())


@pytest.mark.parametrize("version", [1, 2])
async def test_thought_is_dimmed_and_collapsed_once_finished(tmp_path: Path, version: int) -> None:
    thought = "Let me think.\n\nFirst this, then that."
    ids = ("t1", "m1") if version == 2 else (None, None)
    steps = [
        *chunks("agent_thought_chunk", thought, 4, ids[0]),
        *chunks("agent_message_chunk", "Answer.", 3, ids[1]),
    ]
    script = {"version": version, "turns": [v2_turn(*steps) if version == 2 else v1_turn(*steps)]}
    async with running_app(tmp_path, script) as run:
        await run.send("think")
        await run.idle()
        [view] = run.views(ThoughtView)
        assert view.text == thought
        await run.wait(lambda: view.collapsed, "the thought to collapse")
        assert view.summary == "▸ Thought (7 words)"
        assert view.has_class("-collapsed") and view.outer_size.height == 1  # only the summary line
        [answer] = run.views(AgentMessageView)
        # dimmed: on screen, the thought's text is closer to the background than the answer's
        await run.pilot.pause()
        dimmed, background = drawn_colours(run, "Thought")
        normal, _ = drawn_colours(run, "Answer.")
        assert abs(dimmed.brightness - background.brightness) < abs(normal.brightness - background.brightness)
        assert answer.text == "Answer."
        assert run.chat.conversation.entries.index(view) < run.chat.conversation.entries.index(answer)


# -- tool calls and terminals ----------------------------------------------------------------------


async def test_v2_tool_calls_create_patch_stream_and_finish(tmp_path: Path) -> None:
    steps = [
        tool("read", title="Read config.toml", kind="read", status="pending"),
        tool("read", status="in_progress", locations=[{"path": "/etc/config.toml", "line": 3}]),
        update(
            {
                "sessionUpdate": "tool_call_content_chunk",
                "toolCallId": "read",
                "content": {"type": "content", "content": text("line one\n")},
            }
        ),
        update(
            {
                "sessionUpdate": "tool_call_content_chunk",
                "toolCallId": "read",
                "content": {"type": "content", "content": text("line two\n")},
            }
        ),
        tool("read", status="completed", rawInput={"path": "/etc/config.toml"}, rawOutput={"bytes": 18}),
        tool(
            "edit",
            title="Edit app.py",
            kind="edit",
            status="completed",
            content=[
                {
                    "type": "diff",
                    "changes": [{"operation": "modify", "path": "app.py"}],
                    "patch": {"format": "git_patch", "text": GIT_DIFF},
                }
            ],
        ),
        tool("stop", title="Long job", kind="execute", status="in_progress"),
        tool("stop", status="cancelled"),
        tool("odd", title="Odd status", kind="other", status="teleporting"),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}) as run:
        await run.send("tools")
        await run.idle()
        assert [c.call.id for c in run.views(ToolCallCard)] == ["read", "edit", "stop", "odd"]
        read = card_for(run, "read")
        assert read.pill_text == "✓ completed"
        full = read.full_text()
        assert "Read config.toml" in full and "line one\nline two" in full and "/etc/config.toml:3" in full
        # raw input/output: hidden until toggled with `i` on the focused card
        assert not read.has_class("-raw")
        read.focus()
        await run.pilot.press("i")
        await run.wait(lambda: read.has_class("-raw") and read.expanded, "the raw view")
        await run.pilot.pause()
        raw = screen_text(run)
        assert '"path": "/etc/config.toml"' in raw and '"bytes": 18' in raw
        await run.pilot.press("i")
        await run.wait(lambda: not read.has_class("-raw"), "the raw view to close")
        await run.pilot.pause()
        assert '"bytes": 18' not in screen_text(run)
        edit = card_for(run, "edit")
        assert not edit.expanded and edit.result_text() == "+1 −1"  # done: one line that says what changed
        assert '-    return "Hello " + name' in edit.full_text() and '+    return f"Hello, {name}!"' in edit.full_text()
        assert card_for(run, "stop").pill_text == "⊘ cancelled"
        assert card_for(run, "odd").pill_text == "◐ teleporting"
        shown = screen_text(run)
        assert "✎ Edit app.py · +1 −1 ▸" in shown and "teleporting" in shown


async def test_v1_tool_call_with_old_new_text_diff_and_locations(tmp_path: Path) -> None:
    steps = [
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Edit greet.py",
                "kind": "edit",
                "status": "pending",
            }
        ),
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "status": "in_progress",
                "locations": [{"path": "/src/greet.py", "line": 1}],
            }
        ),
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "status": "completed",
                "content": [
                    {"type": "diff", "path": "/src/greet.py", "oldText": "return 'hi'\n", "newText": "return 'hello'\n"}
                ],
            }
        ),
        update(
            {"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "Fetch", "kind": "fetch", "status": "failed"}
        ),
    ]
    async with running_app(tmp_path, {"version": 1, "turns": [v1_turn(*steps)]}) as run:
        await run.send("edit v1")
        await run.idle()
        card = card_for(run, "t1")
        full = card.full_text()
        assert "-return 'hi'" in full and "+return 'hello'" in full
        assert "/src/greet.py:1" in full
        assert not card.expanded and card.result_text() == "+1 −1"  # done: one line
        failed = card_for(run, "t2")
        assert failed.has_class("-error") and failed.expanded


@pytest.mark.parametrize("order", ["none", "card-first", "terminal-first"])
async def test_terminal_output_with_colour_and_exit_status(tmp_path: Path, order: str) -> None:
    """A terminal stands alone, or sits inside the card that refers to it (whichever came first)."""
    referenced = order != "none"
    card_step = tool(
        "run",
        title="Run tests",
        kind="execute",
        status="in_progress",
        content=[{"type": "terminal", "terminalId": "term-1"}],
    )
    steps: list[dict[str, Any]] = [card_step] if order == "card-first" else []
    steps += [
        update({"sessionUpdate": "terminal_update", "terminalId": "term-1", "command": "pytest -q", "cwd": "/src"}),
        update(
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": "term-1",
                "data": b64(b"collected 3 items\n\x1b[32m3 passed\x1b[0m"),
            }
        ),
    ]
    if order == "terminal-first":
        steps.append(card_step)  # the standalone terminal moves into the card and keeps streaming there
    steps += [
        update({"sessionUpdate": "terminal_output_chunk", "terminalId": "term-1", "data": b64(b" in 0.1s\n")}),
        update({"sessionUpdate": "terminal_update", "terminalId": "term-1", "exitStatus": {"exitCode": 0}}),
    ]
    if referenced:
        steps.append(tool("run", status="completed"))
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}) as run:
        await run.send("terminal")
        await run.idle()
        views = list(run.chat.query(TerminalView))
        assert len(views) == 1, "a terminal is shown exactly once"
        view = views[0]
        await run.wait(lambda: view.footer_text() == "exit 0", "the exit status")
        assert view.header_text() == "$ pytest -q  (/src)"
        assert view.output.plain_text() == "collected 3 items\n3 passed in 0.1s"
        passed = view.output.lines()[1]
        assert passed.plain == "3 passed in 0.1s"
        [span] = passed.spans
        assert (span.start, span.end) == (0, 8) and isinstance(span.style, Style)
        assert span.style.color is not None and span.style.color.number == 2  # ANSI green
        assert "\x1b" not in view.output.plain_text()
        if referenced:
            card = card_for(run, "run")
            assert view in card.query(TerminalView)
            assert view not in run.chat.conversation.entries
        else:
            assert view in run.chat.conversation.entries


# -- plans, compaction, unknown updates --------------------------------------------------------------


async def test_v2_plan_is_updated_in_place_by_plan_id(tmp_path: Path) -> None:
    steps = [
        plan_update("p1", ("Read the code", "in_progress"), ("Fix the bug", "pending")),
        plan_update("p2", ("Another plan", "pending")),
        plan_update("p1", ("Read the code", "completed"), ("Fix the bug", "in_progress")),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}) as run:
        await run.send("plan")
        await run.idle()
        plans = run.views(PlanView)
        assert [p.plan.id for p in plans] == ["p1", "p2"]
        assert plans[0].header_text == "Plan 1/2"
        lines = plans[0].text_lines()
        assert any("Read the code" in line for line in lines) and any("Fix the bug" in line for line in lines)


async def test_v1_plan_replaces_the_one_plan(tmp_path: Path) -> None:
    def v1_plan(*entries: tuple[str, str]) -> dict[str, Any]:
        return update(
            {
                "sessionUpdate": "plan",
                "entries": [{"content": content, "priority": "high", "status": status} for content, status in entries],
            }
        )

    steps = [
        v1_plan(("Step A", "pending"), ("Step B", "pending")),
        v1_plan(("Step A", "completed"), ("Step B", "completed")),
    ]
    async with running_app(tmp_path, {"version": 1, "turns": [v1_turn(*steps)]}) as run:
        await run.send("plan")
        await run.idle()
        [plan] = run.views(PlanView)
        assert plan.header_text == "Plan 2/2"


async def test_compaction_runs_streams_its_summary_and_completes(tmp_path: Path) -> None:
    steps = [
        update({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}),
        update({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": text("Kept: ")}),
        update(
            {
                "sessionUpdate": "compaction_summary_chunk",
                "compactionId": "c1",
                "content": text("the user wants tests."),
            }
        ),
        update({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"}),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}) as run:
        await run.send("compact")
        await run.idle()
        [view] = run.views(CompactionView)
        assert view.compaction.status == "completed"
        assert view.summary.text == "Kept: the user wants tests."
        assert "summary" in view.row_text and view.has_class("-success")
        assert view.expanded  # a finished compaction keeps its (user-displayable) summary shown
        assert "the user wants tests." in screen_text(run)
        view.focus()
        await run.pilot.press("enter")
        await run.wait(lambda: not view.expanded, "the summary to close")


async def test_a_long_compaction_summary_is_folded_until_enter(tmp_path: Path) -> None:
    summary = "\n\n".join(f"Kept point {i}." for i in range(1, 13))
    steps = [
        update({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}),
        update({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": text(summary)}),
        update({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"}),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}, size=(80, 24)) as run:
        await run.send("compact")
        await run.idle()
        [view] = run.views(CompactionView)
        await run.wait(lambda: "Kept point 1." in screen_text(run), "the summary's start")
        shown = screen_text(run)
        assert "… Enter shows the whole summary" in shown and "Kept point 12." not in shown
        view.focus()
        await run.pilot.press("enter")
        await run.wait(lambda: "Kept point 12." in screen_text(run), "the whole summary")
        assert "… Enter shows the whole summary" not in screen_text(run) and view.expanded


@pytest.mark.parametrize("version", [1, 2])
async def test_unknown_update_is_one_line_that_opens_to_raw_json(tmp_path: Path, version: int) -> None:
    weird = update({"sessionUpdate": "_vendor/sparkle", "intensity": 11, "label": "[b]shiny[/b]"})
    turn = v2_turn(weird) if version == 2 else v1_turn(weird)
    async with running_app(tmp_path, {"version": version, "turns": [turn]}) as run:
        await run.send("unknown")
        await run.idle()
        [view] = run.views(UnknownUpdateView)
        await run.pilot.pause()
        assert "the agent sent _vendor/sparkle, which this client does not understand" in screen_text(run)
        assert not view.expanded and view.outer_size.height == 1
        view.focus()
        await run.pilot.press("enter")
        await run.wait(lambda: view.expanded, "the raw JSON")
        raw = view.raw_text().plain
        assert '"intensity": 11' in raw and '"[b]shiny[/b]"' in raw
        assert run.chat.status.values.problems == 0


# -- notices, usage, stderr --------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
async def test_notice_is_a_toast_never_a_timeline_entry(tmp_path: Path, version: int) -> None:
    notice = update(
        {
            "sessionUpdate": "notice",
            "severity": "warning",
            "title": "Rate limit [b]soon[/b]",
            "description": "You have used 90% of your quota.",
        }
    )
    turn = v2_turn(notice) if version == 2 else v1_turn(notice)
    async with running_app(tmp_path, {"version": version, "turns": [turn]}) as run:
        await run.send("notice")
        await run.idle()
        await run.wait(lambda: len(run.app._notifications) > 0, "the toast")
        [toast] = list(run.app._notifications)
        assert toast.title == "Rate limit [b]soon[/b]" and toast.message == "You have used 90% of your quota."
        assert toast.severity == "warning" and not toast.markup
        kinds = {type(entry).__name__ for entry in run.chat.conversation.entries}
        assert kinds == {"UserMessageView"}, kinds


@pytest.mark.parametrize("version", [1, 2])
async def test_usage_shows_in_the_status_bar_with_cost(tmp_path: Path, version: int) -> None:
    usage = update(
        {
            "sessionUpdate": "usage_update",
            "used": 12_345,
            "size": 200_000,
            "cost": {"amount": 0.0452, "currency": "USD"},
        }
    )
    turn = v2_turn(usage) if version == 2 else v1_turn(usage)
    async with running_app(tmp_path, {"version": version, "turns": [turn]}) as run:
        await run.send("usage")
        await run.idle()
        await run.wait(lambda: run.chat.status.values.used == 12_345, "the usage")
        rendered = run.chat.status.render().plain
        assert "12.3k / 200.0k (6%)" in rendered and "$0.045" in rendered


async def test_stderr_goes_to_the_f2_panel_with_an_unseen_badge(tmp_path: Path) -> None:
    steps = [{"op": "stderr", "text": "warming up"}, {"op": "stderr", "text": "\x1b[31mred alert\x1b[0m [b]x[/b]"}]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}) as run:
        panel = run.chat.query_one("#stderr", StderrPanel)
        await run.send("stderr")
        await run.idle()
        await run.wait(lambda: run.chat.status.values.stderr_unseen == 2, "the unseen badge")
        assert "stderr +2" in run.chat.status.render().plain
        assert not panel.display
        await run.pilot.press("f2")
        await run.wait(lambda: panel.is_open and panel.display, "the panel to open")
        assert run.chat.status.values.stderr_unseen == 0
        assert not panel.region.overlaps(run.chat.status.region), "the status bar stays visible"
        assert not panel.region.overlaps(run.chat.prompt_input.region), "the prompt stays visible"
        assert "stderr +" not in run.chat.status.render().plain
        assert panel.lines[-2:] == ["warming up", "red alert [b]x[/b]"]
        await run.pilot.press("f2")
        await run.wait(lambda: not panel.display, "the panel to close")


# -- foreground state in the status bar ----------------------------------------------------------------


def state_line(run: AppRun) -> str:
    return run.chat.status.state_text().plain


@pytest.mark.parametrize("version", [1, 2])
async def test_working_then_cancelled(tmp_path: Path, version: int) -> None:
    gate = {"op": "wait_for", "method": "session/cancel", "timeout": 20}
    message = update(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": text("on it"),
            **({"messageId": "m1"} if version == 2 else {}),
        }
    )
    if version == 2:
        turn = {
            "steps": [
                {"op": "respond_prompt"},
                {"op": "user_message"},
                {"op": "state", "state": "running"},
                message,
                gate,
                {"op": "state", "state": "idle", "stopReason": "cancelled"},
            ]
        }
    else:
        turn = {"steps": [message, gate, {"op": "respond_prompt", "stopReason": "cancelled"}]}
    async with running_app(tmp_path, {"version": version, "turns": [turn]}) as run:
        await run.send("work")
        await run.wait(lambda: run.views(AgentMessageView), "the agent's message")
        assert state_line(run).endswith("working…")
        await run.pilot.press("ctrl+c")
        await run.wait(lambda: state_line(run) == "⊘ cancelled", "the cancelled state")
        assert run.received("session/cancel")


async def test_requires_action_is_waiting_for_you(tmp_path: Path) -> None:
    turn = {
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            {"op": "state", "state": "requires_action"},
            {"op": "wait_for", "method": "session/cancel", "timeout": 20},
            {"op": "state", "state": "idle", "stopReason": "cancelled"},
        ]
    }
    async with running_app(tmp_path, {"version": 2, "turns": [turn]}) as run:
        await run.send("act")
        await run.wait(lambda: state_line(run) == "⚠ waiting for you", "requires_action")
        await run.pilot.press("ctrl+c")
        await run.wait(lambda: state_line(run) == "⊘ cancelled", "the cancelled state")


@pytest.mark.parametrize("version", [1, 2])
async def test_idle_shows_how_the_turn_ended(tmp_path: Path, version: int) -> None:
    if version == 2:
        turns: list[dict[str, Any]] = [
            v2_turn(stop="refusal", match="refuse"),
            v2_turn(stop="max_tokens", match="long"),
            {
                "match": "fail",
                "steps": [
                    {"op": "respond_prompt"},
                    {"op": "user_message"},
                    {"op": "state", "state": "running"},
                    update(
                        {
                            "sessionUpdate": "state_update",
                            "state": "idle",
                            "stopReason": "error",
                            "error": {"code": -32603, "message": "model [overloaded]"},
                        }
                    ),
                ],
            },
            v2_turn(match="fine"),
        ]
    else:
        turns = [
            {"match": "refuse", "steps": [{"op": "respond_prompt", "stopReason": "refusal"}]},
            {"match": "long", "steps": [{"op": "respond_prompt", "stopReason": "max_tokens"}]},
            {"match": "fail", "steps": [{"op": "error_prompt", "code": -32603, "message": "model [overloaded]"}]},
            {"match": "fine", "steps": [{"op": "respond_prompt", "stopReason": "end_turn"}]},
        ]
    async with running_app(tmp_path, {"version": version, "turns": turns}) as run:
        for prompt, expected in [
            ("refuse", "⚠ the agent refused"),
            ("long", "⚠ stopped: token limit"),
            ("fail", "✗ error: model [overloaded]"),
            ("fine", "● ready"),
        ]:
            await run.send(prompt)
            await run.idle()
            await run.wait(lambda: state_line(run) == expected, expected)
        # the conversation keeps a line for every turn that did not simply end (none for "fine")
        from acp_tui.ui.timeline.system_line import SystemLine

        lines = [view.message for view in run.views(SystemLine)]
        assert lines == [
            "the agent refused; this exchange is left out of its context",
            "stopped: token limit",
            "✗ the turn failed: model [overloaded]",
        ]


@pytest.mark.parametrize("version", [1, 2])
async def test_thought_followed_by_a_tool_call_collapses_and_the_turn_end_finishes_it(
    tmp_path: Path, version: int
) -> None:
    steps = [
        *chunks("agent_thought_chunk", "I should read the file.", 6, "t1" if version == 2 else None),
        tool("read", title="Read a.py", kind="read", status="completed")
        if version == 2
        else update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "read",
                "title": "Read a.py",
                "kind": "read",
                "status": "completed",
            }
        ),
        *chunks("agent_thought_chunk", "Now the last thought.", 6, "t2" if version == 2 else None),
    ]
    script = {"version": version, "turns": [v2_turn(*steps) if version == 2 else v1_turn(*steps)]}
    async with running_app(tmp_path, script) as run:
        await run.send("think and read")
        await run.idle()
        first, last = run.views(ThoughtView)
        assert first.text == "I should read the file." and last.text == "Now the last thought."
        await run.wait(lambda: first.collapsed, "the first thought to collapse when the tool call starts")
        await run.wait(lambda: last.collapsed, "the last thought to collapse when the turn ends")


async def test_v2_rejected_prompt_shows_a_failed_bubble_and_the_next_prompt_works(tmp_path: Path) -> None:
    turns = [{"match": "bad", "steps": [{"op": "error_prompt", "code": -32602, "message": "prompt [too] long"}]}]
    async with running_app(tmp_path, {"version": 2, "turns": turns}) as run:
        await run.send("bad prompt")
        await run.idle(ran=False)
        [bubble] = run.views(UserMessageView)
        await run.wait(lambda: bubble.state == "failed", "the failed bubble")
        assert bubble.status_text == "not sent: prompt [too] long"
        await run.send("good prompt")
        await run.idle()
        assert [b.text for b in run.views(UserMessageView)] == ["bad prompt", "good prompt"]
        assert run.views(UserMessageView)[1].state == "sent"
        assert [m.text for m in run.views(AgentMessageView)] == ["echo: good prompt"]


async def test_a_long_title_is_cut_short_and_keeps_protocol_and_cwd_visible(tmp_path: Path) -> None:
    title = "A very long session title " * 10
    script = {"version": 2, "after_session_new": [update({"sessionUpdate": "session_info_update", "title": title})]}
    async with running_app(tmp_path, script, size=(100, 30)) as run:
        header = run.chat.query_one("#header", SessionHeader)
        await run.wait(lambda: header.values.session_title == title, "the session title")
        await run.pilot.pause()
        line = screen_text(run).splitlines()[0]
        assert line.rstrip().endswith(f"ACP v2  ·  {SHOWN_CWD}")
        assert "…" in line and "A very long session title" in line


def test_key_hints_drop_whole_hints_that_do_not_fit_but_never_quit() -> None:
    hints = "⏎ send · ^J newline · ^C cancel · ^Q quit"
    assert fit_hints(hints, 100) == hints
    assert fit_hints(hints, len(hints)) == hints
    assert fit_hints(hints, len(hints) - 1) == "⏎ send · ^J newline · ^Q quit"
    assert fit_hints(hints, 16) == "⏎ send · ^Q quit"
    assert fit_hints(hints, 3) == "^Q quit"  # the status bar reserves its room first
    assert fit_hints("⏎ send · ^J newline", 3) == ""
    assert fit_hints("", 50) == ""


async def test_narrow_status_bar_keeps_the_usage_and_whole_hints(tmp_path: Path) -> None:
    usage = update(
        {"sessionUpdate": "usage_update", "used": 53_200, "size": 200_000, "cost": {"amount": 0.12, "currency": "USD"}}
    )
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(usage)]}, size=(80, 24)) as run:
        await run.send("usage")
        await run.idle()
        await run.wait(lambda: run.chat.status.values.used == 53_200, "the usage")
        await run.pilot.pause()
        line = screen_text(run).splitlines()[-1].rstrip()
        assert line.startswith(" ● ready  · 53.2k / 200.0k (27%) · $0.120")
        assert line.endswith("⏎ send · ^J newline · ^Q quit")
