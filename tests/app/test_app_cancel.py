"""Ctrl-C, Ctrl-Q and tool-call cancel in the real app against the scripted agent.

Every test presses real keys through a pilot and asserts on the exact JSON the agent recorded (and
validates all of it against the schema of the negotiated version), plus what the status bar and the
conversation show.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from acp_tui.session.model import AGENT_MESSAGE, TOOL_CALL, USER_MESSAGE, Message
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.timeline.user_message import UserMessageView
from tests.support.scripted_app import (
    ARM_DELAY,
    SIZE,
    STANDARD_OPTIONS,
    ScriptedRun,
    armed_dialog,
    conversation_text,
    dialog,
    isolate_user_dirs,
    permission_request,
    ready,
    submit,
    v1_turn,
    v2_turn,
    wait_until,
)

SESSION = "scripted-session-1"
CANCEL = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION}}
CANCELLED = {"outcome": {"outcome": "cancelled"}}
#: Short force-stop delay for the one test that waits for it (the app default is 3 s).
FORCE_STOP_AFTER = 0.4


@pytest.fixture(autouse=True)
def _user_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)


def record_notes(app: AcpApp) -> list[str]:
    """Collect every toast the app shows from now on."""
    notes: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        notes.append(message)
        original(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return notes


def tool_call(status: str, *, version: int = 2, **extra: Any) -> dict[str, Any]:
    if version == 2:
        update = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "tc-1",
            "title": "Run the tests",
            "kind": "execute",
            "status": status,
            **extra,
        }
    else:
        update = {
            "sessionUpdate": "tool_call",
            "toolCallId": "tc-1",
            "title": "Run the tests",
            "kind": "execute",
            "status": status,
            **extra,
        }
    return {"op": "update", "update": update}


def chunk(text: str) -> dict[str, Any]:
    return {
        "op": "update",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m-1",
            "content": {"type": "text", "text": text},
        },
    }


def agent_text(chat: ChatScreen) -> str:
    """The text of every agent message in the model."""
    assert chat.controller.session is not None
    return "".join(
        entity.content.text
        for key, entity in chat.controller.session.state.entities.items()
        if key[0] == AGENT_MESSAGE and isinstance(entity, Message)
    )


def cancelling_shown(chat: ChatScreen) -> bool:
    return chat.status.values.cancelling and "cancelling…" in chat.status.state_text().plain


def tool_call_entity(chat: ChatScreen) -> Any:
    assert chat.controller.session is not None
    return chat.controller.session.state.entities.get((TOOL_CALL, "tc-1"))


@pytest.mark.parametrize("version", [2, 1])
async def test_ctrl_c_while_streaming_cancels_keeps_applying_updates_and_ends_cancelled(
    tmp_path: Path, version: int
) -> None:
    gate = tmp_path / "wind-down"
    after_cancel = [
        # The agent winds down only when the test has seen "cancelling…": a fixed pause here is a window
        # a poll can miss on a loaded machine (Ctrl-C's own press waits for the app to go idle).
        {"op": "wait_for_file", "path": str(gate)},
        chunk(" …and a late word"),
        tool_call("cancelled", version=version)
        if version == 2
        else {
            "op": "update",
            "update": {"sessionUpdate": "tool_call_update", "toolCallId": "tc-1", "status": "failed"},
        },
    ]
    steps = [
        chunk("Working on it"),
        tool_call("in_progress", version=version),
        {"op": "wait_for", "method": "session/cancel"},
        *after_cancel,
    ]
    turn = v2_turn(*steps, stop_reason="cancelled") if version == 2 else v1_turn(*steps, stop_reason="cancelled")
    run = ScriptedRun(tmp_path, {"version": version, "turns": [{"steps": turn}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "run the tests")
        await wait_until(
            pilot, lambda: tool_call_entity(chat) is not None and chat.status.values.busy, "the running tool call"
        )
        chat.prompt_input.focus()
        chat.prompt_input.load_text("a draft")  # Ctrl-C cancels the turn: no copy, no clear
        chat.prompt_input.select_all()
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: "session/cancel" in run.methods(), "session/cancel")
        await wait_until(
            pilot,
            lambda: cancelling_shown(chat) and tool_call_entity(chat).cancelling,
            "cancelling… and the tool call marked cancelling",
        )
        gate.touch()
        await wait_until(pilot, lambda: not chat.status.values.busy, "the turn to end")
        assert chat.status.values.stop_reason == "cancelled"
        assert not chat.status.values.cancelling
        assert "cancelled" in chat.status.state_text().plain
        assert chat.prompt_input.text == "a draft"
        assert app.clipboard != "a draft"
        assert not tool_call_entity(chat).cancelling
        assert "Working on it …and a late word" in agent_text(chat)  # updates after the cancel still apply
    assert [m for m in run.records() if m.get("method") == "session/cancel"] == [CANCEL]
    run.validate_all()


@pytest.mark.parametrize("version", [2, 1])
async def test_ctrl_c_with_a_permission_dialog_open_answers_cancelled_and_cancels(tmp_path: Path, version: int) -> None:
    step = permission_request(9, STANDARD_OPTIONS, version=version)
    turn = v2_turn(step, stop_reason=None) if version == 2 else v1_turn(step, stop_reason=None)
    run = ScriptedRun(tmp_path, {"version": version, "turns": [{"steps": turn}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "edit the file")
        await armed_dialog(pilot, app)
        await pilot.press("ctrl+c")  # the modal dialog has the focus: the priority binding still wins
        await wait_until(
            pilot,
            lambda: run.answer_to(9) is not None and "session/cancel" in run.methods(),
            "the cancelled answer and session/cancel",
        )
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
        await wait_until(
            pilot, lambda: not chat.status.values.busy and not chat.status.values.cancelling, "the turn to end"
        )
        assert chat.status.values.stop_reason == "cancelled"
        assert chat.status.values.waiting_for_user == 0
        assert "permission request closed: the turn was cancelled" in conversation_text(chat)
    assert run.answer_to(9) == {"jsonrpc": "2.0", "id": 9, "result": CANCELLED}
    assert [m for m in run.records() if m.get("method") == "session/cancel"] == [CANCEL]
    run.validate_all({9: "session/request_permission"})


async def test_cancel_before_insertion_leaves_no_user_message_and_no_error(tmp_path: Path) -> None:
    steps = [
        {"op": "wait_for", "method": "session/cancel"},
        {"op": "error_prompt", "code": -32800, "message": "Request cancelled"},
    ]
    run = ScriptedRun(tmp_path, {"turns": [{"steps": steps}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "never mind")
        await wait_until(pilot, lambda: "session/prompt" in run.methods(), "the prompt on the wire")
        await pilot.press("ctrl+c")
        session = chat.controller.session
        assert session is not None
        await wait_until(
            pilot,
            lambda: any(s.status == "cancelled" for s in session.state.submissions.values()),
            "the submission to be cancelled",
        )
        await wait_until(
            pilot, lambda: not chat.status.values.busy and not chat.status.values.cancelling, "the client to be idle"
        )
        assert not any(key[0] == USER_MESSAGE for key in session.state.entities)
        assert chat.status.values.stop_reason != "error" and chat.status.values.error_message is None
        assert "error" not in chat.status.state_text().plain
        assert not [line for line in chat.query(SystemLine) if line.has_class("-error")]
        bubbles = list(chat.query(UserMessageView))
        assert all(not b.has_class("-failed") for b in bubbles)
    assert [m for m in run.records() if m.get("method") == "session/cancel"] == [CANCEL]
    run.validate_all()


async def test_an_agent_that_never_goes_idle_is_stopped_by_a_second_ctrl_c(tmp_path: Path) -> None:
    turn = v2_turn(chunk("thinking hard"), {"op": "wait_for", "method": "never/sent"}, stop_reason=None)
    run = ScriptedRun(tmp_path, {"turns": [{"steps": turn}], "on_cancel": []})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY, force_stop_after=FORCE_STOP_AFTER)
    async with app.run_test(size=SIZE) as pilot:
        notes = record_notes(app)
        chat = await ready(pilot, app)
        await submit(pilot, chat, "loop forever")
        await wait_until(pilot, lambda: chat.status.values.busy, "the turn to run")
        session = chat.controller.session
        assert session is not None
        pid = session.transport.pid
        assert pid is not None
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: "session/cancel" in run.methods(), "session/cancel")
        # Too early: only says the cancel is on its way. The slow-cancel notice was timed at the cancel
        # (FORCE_STOP_AFTER); the press is judged against the grace as it is now, made long so that the
        # press counts as early however late it comes on a loaded machine (the bound itself is
        # tests/unit/test_interrupt.py's).
        chat.controller.force_stop_after = 60
        await pilot.press("ctrl+c")
        assert any("Cancelling" in note for note in notes)
        assert session.transport.running
        await wait_until(pilot, lambda: "has not stopped yet" in conversation_text(chat), "the slow-cancel notice")
        assert session.transport.running
        chat.controller.force_stop_after = FORCE_STOP_AFTER
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: chat.status.values.state == "stopped", "the agent to stop")
        await wait_until(pilot, lambda: not session.transport.running, "the process to end")
        with pytest.raises(ProcessLookupError):
            os.killpg(pid, 0)
        assert "you stopped the agent" in conversation_text(chat)
        assert any(key[0] == USER_MESSAGE for key in session.state.entities)  # the conversation is kept
        assert list(chat.query(UserMessageView))
    run.validate_all()


async def test_idle_ctrl_c_copies_a_selection_then_clears_then_quits_on_a_double_press(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, {})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        notes = record_notes(app)
        chat = await ready(pilot, app)
        prompt = chat.prompt_input
        prompt.focus()
        prompt.load_text("hello world")
        prompt.select_all()
        await pilot.press("ctrl+c")
        assert app.clipboard == "hello world"
        assert prompt.text == "hello world"
        prompt.move_cursor((0, 5))  # no selection now
        await pilot.press("ctrl+c")
        assert prompt.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        assert any("again to quit" in note for note in notes)
        assert app.is_running
        session = chat.controller.session
        assert session is not None
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit", timeout=10)
    assert app.return_value == 0
    assert not session.transport.running
    assert "session/cancel" not in run.methods()  # nothing was running
    run.validate_all()


async def test_ctrl_q_during_work_cancels_then_shuts_the_agent_down_cleanly(tmp_path: Path) -> None:
    turn = v2_turn(chunk("working"), {"op": "wait_for", "method": "never/sent"}, stop_reason=None)
    run = ScriptedRun(tmp_path, {"turns": [{"steps": turn}], "on_cancel": []})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "work")
        await wait_until(pilot, lambda: chat.status.values.busy, "the turn to run")
        session = chat.controller.session
        assert session is not None
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit")
    assert app.return_value == 0
    records = run.records()
    # the cancel, then the session is closed (the scripted agent advertises session/close): the last things
    # the agent heard before its stdin closed
    assert records[-2] == CANCEL and records[-1].get("method") == "session/close"
    info = session.connection.exit_info
    assert info is not None and info.code == 0 and info.signal is None  # it exited on EOF, not killed
    run.validate_all()


async def test_ctrl_x_on_a_cancellable_tool_card_sends_tool_call_cancel(tmp_path: Path) -> None:
    steps = [
        tool_call("in_progress", capabilities={"cancel": {}}),
        {"op": "wait_for", "method": "session/cancel"},
        tool_call("cancelled"),
    ]
    script = {
        "turns": [{"steps": v2_turn(*steps, stop_reason="cancelled")}],
        "responses": {"tool_call/cancel": {"result": {}}},
    }
    run = ScriptedRun(tmp_path, script)
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "run it")
        await wait_until(pilot, lambda: bool(chat.query(ToolCallCard)), "the tool card")
        card = chat.query_one(ToolCallCard)
        card.focus()
        await pilot.press("ctrl+x")  # a plain x is typed into the prompt (tests/app/test_app_focus.py)
        await wait_until(pilot, lambda: "tool_call/cancel" in run.methods(), "tool_call/cancel")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not chat.status.values.busy, "the turn to end")
    request = next(m for m in run.records() if m.get("method") == "tool_call/cancel")
    assert request == {
        "jsonrpc": "2.0",
        "id": request["id"],
        "method": "tool_call/cancel",
        "params": {"sessionId": SESSION, "toolCallId": "tc-1"},
    }
    assert isinstance(request["id"], int)
    run.validate_all()


async def test_ctrl_x_on_a_tool_card_without_the_capability_sends_nothing(tmp_path: Path) -> None:
    steps = [tool_call("in_progress"), {"op": "wait_for", "method": "session/cancel"}, tool_call("cancelled")]
    run = ScriptedRun(tmp_path, {"turns": [{"steps": v2_turn(*steps, stop_reason="cancelled")}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "run it")
        await wait_until(pilot, lambda: bool(chat.query(ToolCallCard)), "the tool card")
        chat.query_one(ToolCallCard).focus()
        await pilot.press("ctrl+x")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not chat.status.values.busy, "the turn to end")
    assert "tool_call/cancel" not in run.methods()
    run.validate_all()


async def test_ctrl_q_with_a_dialog_open_answers_it_cancelled_before_the_agent_goes(tmp_path: Path) -> None:
    turn = v2_turn(permission_request(9, STANDARD_OPTIONS), stop_reason=None)
    run = ScriptedRun(tmp_path, {"turns": [{"steps": turn}], "on_cancel": []})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "edit")
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit")
    assert app.return_value == 0
    assert run.answer_to(9) == {"jsonrpc": "2.0", "id": 9, "result": CANCELLED}
    assert CANCEL in run.records()
    run.validate_all({9: "session/request_permission"})


async def test_escape_after_a_cancel_answers_a_late_request_cancelled(tmp_path: Path) -> None:
    """A request that arrives while a cancel is under way is still answered when dismissed."""
    only_allow = [{"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"}]
    turn = v2_turn(
        chunk("working"),
        {"op": "wait_for", "method": "session/cancel"},
        permission_request(11, only_allow),
        stop_reason="cancelled",
    )
    run = ScriptedRun(tmp_path, {"turns": [{"steps": turn}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "work")
        await wait_until(pilot, lambda: chat.status.values.busy, "the turn to run")
        await pilot.press("ctrl+c")
        await armed_dialog(pilot, app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: run.answer_to(11) is not None, "the late request's answer")
        await wait_until(pilot, lambda: not chat.status.values.busy, "the turn to end")
    assert run.answer_to(11) == {"jsonrpc": "2.0", "id": 11, "result": CANCELLED}
    run.validate_all({11: "session/request_permission"})
