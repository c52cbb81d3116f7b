"""Permission dialogs in the real app against the scripted agent: every answer is checked on the wire.

Each test drives `AcpApp` with a pilot, lets the scripted agent ask for permission, presses keys,
and asserts on the exact JSON the agent recorded; every recorded client message is also validated
against the official schema of the negotiated version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.permission import OptionButton
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

PERMISSION = "session/request_permission"


@pytest.fixture(autouse=True)
def _user_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)


def selected(option_id: str) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


CANCELLED = {"outcome": {"outcome": "cancelled"}}


def one_request_script(version: int, options: list[dict[str, str]], request_id: Any = 7) -> dict[str, Any]:
    step = permission_request(request_id, options, version=version)
    turn = v2_turn(step) if version == 2 else v1_turn(step)
    return {"version": version, "turns": [{"steps": turn}]}


async def answer_with_key(
    tmp_path: Path, key: str, *, version: int = 2, options: list[dict[str, str]] = STANDARD_OPTIONS
) -> ScriptedRun:
    """Ask once, press `key` in the armed dialog, wait for the turn to end; return the run."""
    run = ScriptedRun(tmp_path, one_request_script(version, options))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "edit the file")
        await armed_dialog(pilot, app)
        assert chat.status.values.waiting_for_user == 1
        assert "waiting for you" in chat.status.state_text().plain
        await pilot.press(key)
        await wait_until(pilot, lambda: run.answer_to(7) is not None, "the permission answer")
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
        await wait_until(
            pilot, lambda: chat.status.values.state == "idle" and not chat.status.values.busy, "the turn to end"
        )
        assert chat.status.values.waiting_for_user == 0
        assert "waiting for you" not in chat.status.state_text().plain
    run.validate_all({7: PERMISSION})
    return run


@pytest.mark.parametrize(
    ("key", "option_id"),
    [("a", "allow-once"), ("A", "allow-always"), ("r", "reject-once"), ("R", "reject-always")],
    ids=["allow-once", "allow-always", "reject-once", "reject-always"],
)
async def test_letter_keys_answer_with_the_option_of_their_kind(tmp_path: Path, key: str, option_id: str) -> None:
    run = await answer_with_key(tmp_path, key)
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": selected(option_id)}


async def test_v1_request_is_one_dialog_and_allow_once_answers_it(tmp_path: Path) -> None:
    run = await answer_with_key(tmp_path, "a", version=1)
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": selected("allow-once")}


async def test_unknown_option_kind_gets_a_button_chosen_with_arrows_and_enter(tmp_path: Path) -> None:
    options = [
        {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "sandbox", "name": "Run in a sandbox", "kind": "run_sandboxed"},
        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
    ]
    run = ScriptedRun(tmp_path, one_request_script(2, options))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "edit the file")
        screen = await armed_dialog(pilot, app)
        buttons = list(screen.query(OptionButton))
        assert [b.option.option_id for b in buttons] == ["allow-once", "sandbox", "reject-once"]
        assert "Run in a sandbox" in str(buttons[1].label)
        assert screen.focused is None  # nothing focused on arrival: a stray Enter decides nothing
        await pilot.press("down", "down")
        assert screen.focused is buttons[1]
        await pilot.press("enter")
        await wait_until(pilot, lambda: run.answer_to(7) is not None, "the permission answer")
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": selected("sandbox")}
    run.validate_all({7: PERMISSION})


@pytest.mark.parametrize("version", [2, 1])
async def test_queued_requests_are_shown_one_at_a_time_and_answered_in_order(tmp_path: Path, version: int) -> None:
    steps = [
        permission_request(1, STANDARD_OPTIONS, title="First", wait=False, version=version),
        permission_request(2, STANDARD_OPTIONS, title="Second", wait=False, version=version),
        {"op": "wait_for", "response": 1},
        {"op": "wait_for", "response": 2},
    ]
    turn = v2_turn(*steps) if version == 2 else v1_turn(*steps)
    run = ScriptedRun(tmp_path, {"version": version, "turns": [{"steps": turn}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "two edits")
        first = await armed_dialog(pilot, app)
        await wait_until(pilot, lambda: chat.status.values.waiting_for_user == 2, "two requests waiting")
        assert "waiting for you (2)" in chat.status.state_text().plain
        assert first.request.title == "First"  # a v1 request reaches the UI in the v2 shape
        assert "1 of 2" in first.queue_label
        await pilot.press("a")
        await wait_until(
            pilot,
            lambda: dialog(app) is not None and dialog(app) is not first and dialog(app).armed,  # type: ignore[union-attr]
            "the second dialog",
        )
        second = dialog(app)
        assert second is not None
        assert run.answer_to(1) == {"jsonrpc": "2.0", "id": 1, "result": selected("allow-once")}
        assert run.answer_to(2) is None
        assert chat.status.values.waiting_for_user == 1
        assert "waiting for you" in chat.status.state_text().plain
        await pilot.press("r")
        await wait_until(pilot, lambda: run.answer_to(2) is not None, "the second answer")
        await wait_until(pilot, lambda: chat.status.values.state == "idle", "the turn to end")
    assert run.answer_to(2) == {"jsonrpc": "2.0", "id": 2, "result": selected("reject-once")}
    answers = [m.get("id") for m in run.records() if "method" not in m]
    assert answers == [1, 2]
    run.validate_all({1: PERMISSION, 2: PERMISSION})


async def test_keys_before_the_arm_delay_are_ignored_then_the_same_key_counts(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, one_request_script(2, STANDARD_OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "edit the file")
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        screen = dialog(app)
        assert screen is not None and not screen.armed
        await pilot.press("a")
        assert not screen.armed, "the arm delay is too short for this machine to test the guard"
        await wait_until(pilot, lambda: screen.armed, "the dialog to arm")
        assert run.answer_to(7) is None
        assert dialog(app) is screen
        await pilot.press("a")
        await wait_until(pilot, lambda: run.answer_to(7) is not None, "the permission answer")
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": selected("allow-once")}
    run.validate_all({7: PERMISSION})


async def test_typing_a_prompt_as_the_request_arrives_chooses_nothing(tmp_path: Path) -> None:
    """The user types "hello" + Enter while the dialog appears: those keys decide nothing."""
    script = {"turns": [{"steps": v2_turn(permission_request(7, STANDARD_OPTIONS))}]}
    run = ScriptedRun(tmp_path, script)
    # The dialog does not arm by itself in this test (a loaded machine may take any time between its arrival and
    # the Enter): it arms once the test shortens the delay and a key restarts the countdown.
    app = AcpApp(run.launch, arm_delay=600)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "edit the file")
        # Keep typing into the prompt; the request arrives somewhere in the middle.
        for key in "hello":
            await pilot.press(key)
            if dialog(app) is not None:
                break
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        await pilot.press("enter")
        screen = dialog(app)
        assert screen is not None and not screen.armed
        assert run.answer_to(7) is None
        screen.arm_delay = ARM_DELAY
        await pilot.press("x")  # ignored while arming, and restarts the countdown with the delay now set
        await wait_until(pilot, lambda: screen.armed, "the dialog to arm")
        assert run.answer_to(7) is None
        await pilot.press("r")
        await wait_until(pilot, lambda: run.answer_to(7) is not None, "the permission answer")
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": selected("reject-once")}


async def test_escape_picks_reject_once_when_offered(tmp_path: Path) -> None:
    run = await answer_with_key(tmp_path, "escape")
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": selected("reject-once")}


async def test_escape_without_reject_once_cancels_the_turn_and_answers_cancelled(tmp_path: Path) -> None:
    options = [{"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"}]
    run = ScriptedRun(tmp_path, one_request_script(2, options))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "edit the file")
        await armed_dialog(pilot, app)
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: run.answer_to(7) is not None and "session/cancel" in run.methods(),
            "the cancelled answer and session/cancel",
        )
        await wait_until(
            pilot, lambda: chat.status.values.state == "idle" and not chat.status.values.cancelling, "the turn to end"
        )
        assert chat.status.values.stop_reason == "cancelled"
        assert dialog(app) is None
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": CANCELLED}
    cancel = next(m for m in run.records() if m.get("method") == "session/cancel")
    assert cancel == {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "scripted-session-1"}}
    run.validate_all({7: PERMISSION})


def second_request_then(*steps: dict[str, Any]) -> dict[str, Any]:
    """Ask twice; once the first is answered (the second's dialog is then showing), play `steps`."""
    return {
        "turns": [
            {
                "steps": v2_turn(
                    permission_request(4, STANDARD_OPTIONS, title="First", wait=False),
                    permission_request(5, STANDARD_OPTIONS, title="Second", wait=False),
                    {"op": "wait_for", "response": 4},
                    *steps,
                    stop_reason=None,
                )
            }
        ]
    }


async def answer_first_request(pilot: Any, app: AcpApp) -> None:
    """Answer the first of two requests: the second's dialog replaces it at once (before the
    answer is on the wire), and the agent's next steps may close it again within milliseconds."""
    chat = await ready(pilot, app)
    await submit(pilot, chat, "edit the file")
    first = await armed_dialog(pilot, app)
    assert first.request.title == "First"
    await pilot.press("a")


async def test_the_agent_withdrawing_its_request_closes_the_dialog_and_says_why(tmp_path: Path) -> None:
    run = ScriptedRun(
        tmp_path,
        second_request_then(
            {"op": "send", "message": {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 5}}},
            {"op": "wait_for", "response": 5},
            {"op": "state", "state": "idle", "stopReason": "end_turn"},
        ),
    )
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        await answer_first_request(pilot, app)
        chat = app.chat
        assert chat is not None
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
        await wait_until(pilot, lambda: "withdrew" in conversation_text(chat), "the reason in the conversation")
        assert "permission request closed: the agent withdrew its request" in conversation_text(chat)
        await wait_until(pilot, lambda: chat.status.values.state == "idle", "the turn to end")
        assert chat.status.values.waiting_for_user == 0
    assert run.answer_to(4) == {"jsonrpc": "2.0", "id": 4, "result": selected("allow-once")}
    assert run.answer_to(5) == {"jsonrpc": "2.0", "id": 5, "result": CANCELLED}
    run.validate_all({4: PERMISSION, 5: PERMISSION})


async def test_the_agent_exiting_closes_the_dialog_and_says_why(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, second_request_then({"op": "exit", "code": 3}))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        await answer_first_request(pilot, app)
        chat = app.chat
        assert chat is not None
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
        await wait_until(pilot, lambda: chat.status.values.state == "stopped", "the stopped state")
        text = conversation_text(chat)
        assert "permission request closed: the agent stopped" in text
        assert "the agent stopped (exited with code 3)" in text and "Ctrl-R" in text
        assert chat.status.values.waiting_for_user == 0
    assert run.answer_to(5) is None  # nobody left to answer
    run.validate_all({4: PERMISSION})


async def test_the_conversation_scrolls_while_a_dialog_is_open(tmp_path: Path) -> None:
    long_text = "\n\n".join(f"paragraph {n}" for n in range(120))
    steps = [
        {
            "op": "update",
            "update": {
                "sessionUpdate": "agent_message",
                "messageId": "a1",
                "content": [{"type": "text", "text": long_text}],
            },
        },
        permission_request(7, STANDARD_OPTIONS),
    ]
    run = ScriptedRun(tmp_path, {"turns": [{"steps": v2_turn(*steps)}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "say a lot")
        await armed_dialog(pilot, app)
        conversation = chat.conversation
        # At the end it follows (not still on its way there, or the Page Up could start from above `before`).
        await wait_until(
            pilot,
            lambda: conversation.max_scroll_y > 20 and conversation.scroll_y == conversation.max_scroll_y,
            "a long conversation, at its end",
        )
        before = conversation.scroll_y
        await pilot.press("pageup")
        await wait_until(pilot, lambda: conversation.scroll_y < before, "the conversation to scroll up")
        assert dialog(app) is not None and run.answer_to(7) is None
        await pilot.press("a")
        await wait_until(pilot, lambda: run.answer_to(7) is not None, "the permission answer")
    assert run.answer_to(7) == {"jsonrpc": "2.0", "id": 7, "result": selected("allow-once")}
