"""The prompt in the real app: Enter sends, newline keys, history recall and persistence, the queue,
and the conversation's scrolling around new output.

Driven with the scripted agent; the harness is `tests/support/app_run.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from acp_tui.paths import history_file
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.widgets.queued_prompts import QueuedPrompt, QueuedPrompts
from tests.support.app_run import AppRun, project_dir, running_app, text, update

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


async def type_text(run: AppRun, value: str) -> None:
    """Type `value` key by key (letters and spaces only)."""
    await run.pilot.press(*["space" if char == " " else char for char in value])


# -- sending and editing -------------------------------------------------------------------------------


async def test_enter_sends_and_ctrl_j_inserts_a_newline(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        prompt = run.chat.prompt_input
        assert prompt.has_focus
        await type_text(run, "first line")
        await run.pilot.press("ctrl+j")
        await type_text(run, "second")
        assert prompt.text == "first line\nsecond"
        await run.pilot.press("enter")
        await run.idle()
        assert run.prompts_received() == ["first line\nsecond"]
        assert prompt.text == ""


async def test_shift_enter_inserts_a_newline(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        await type_text(run, "a")
        await run.pilot.press("shift+enter")
        await type_text(run, "b")
        assert run.chat.prompt_input.text == "a\nb"
        assert run.prompts_received() == []


async def test_enter_on_an_empty_prompt_sends_nothing(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        await run.pilot.press("enter", "space", "enter")
        await run.pilot.pause()
        assert run.prompts_received() == []
        assert run.chat.conversation.entries == []


# -- history -------------------------------------------------------------------------------------------


async def test_up_and_down_recall_earlier_prompts(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        prompt = run.chat.prompt_input
        for value in ("alpha", "beta\ngamma"):
            await run.send(value)
            await run.idle()
        await type_text(run, "draft")
        await run.pilot.press("up")
        assert prompt.text == "beta\ngamma"
        assert prompt.cursor_location == (0, 0)  # on the first line: the next Up goes further back
        await run.pilot.press("up")
        assert prompt.text == "alpha"
        await run.pilot.press("up")
        assert prompt.text == "alpha"  # the oldest stays
        await run.pilot.press("down")
        assert prompt.text == "beta\ngamma"
        assert prompt.cursor_location == (1, 5)  # at the end: the next Down goes forward
        await run.pilot.press("down")
        assert prompt.text == "draft"


async def test_up_inside_a_multi_line_prompt_moves_the_cursor(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        await run.send("old prompt")
        await run.idle()
        prompt = run.chat.prompt_input
        prompt.load_text("one\ntwo")
        prompt.move_cursor((1, 2))
        await run.pilot.press("up")
        assert prompt.text == "one\ntwo" and prompt.cursor_location[0] == 0
        await run.pilot.press("up")
        assert prompt.text == "old prompt"


async def test_history_persists_per_working_directory(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        await run.send("remember me")
        await run.idle()
        await run.send("and me\ntoo")
        await run.idle()
    path = history_file(project_dir(tmp_path))
    assert path.is_relative_to(tmp_path / "data")
    assert path.read_text(encoding="utf-8").splitlines() == ['"remember me"', '"and me\\ntoo"']
    async with running_app(tmp_path, {"version": 2}) as run:
        prompt = run.chat.prompt_input
        await run.pilot.press("up")
        assert prompt.text == "and me\ntoo"
        await run.pilot.press("up")
        assert prompt.text == "remember me"
    other = tmp_path / "elsewhere"
    other.mkdir()
    async with running_app(tmp_path, {"version": 2}, cwd=other) as run:
        await run.pilot.press("up")
        assert run.chat.prompt_input.text == ""  # another directory has its own history


# -- the queue ------------------------------------------------------------------------------------------

#: A v2 turn that runs until the client cancels it, then ends.
HELD_TURN: dict[str, Any] = {
    "match": "^hold$",
    "steps": [
        {"op": "respond_prompt"},
        {"op": "user_message"},
        {"op": "state", "state": "running"},
        update({"sessionUpdate": "agent_message_chunk", "messageId": "held", "content": text("holding")}),
        {"op": "wait_for", "method": "session/cancel", "timeout": 20},
        {"op": "state", "state": "idle", "stopReason": "cancelled"},
    ],
}


async def start_held_turn(run: AppRun) -> None:
    await run.send("hold")
    await run.wait(lambda: run.views(AgentMessageView) and run.chat.status.values.busy, "the held turn")


async def test_prompts_typed_while_busy_are_queued_removable_and_sent_in_order(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [HELD_TURN]}) as run:
        await start_held_turn(run)
        queue = run.chat.query_one("#queue", QueuedPrompts)
        for value in ("two", "three", "four", "five"):
            await run.send(value)
        await run.pilot.pause()
        assert queue.texts == ["two", "three", "four", "five"] and queue.display
        assert "4 queued" in run.chat.status.render().plain
        assert run.prompts_received() == ["hold"]
        items = list(queue.query(QueuedPrompt))
        assert [item.prompt_text for item in items] == ["two", "three", "four", "five"]
        # remove "three" with focus + Delete, "five" with a click
        items[1].focus()
        await run.pilot.press("delete")
        await run.wait(lambda: queue.texts == ["two", "four", "five"], "three removed")
        await run.pilot.click(items[3])
        await run.wait(lambda: queue.texts == ["two", "four"], "five removed")
        assert "2 queued" in run.chat.status.render().plain
        await run.pilot.press("ctrl+c")
        # after a cancel the queue waits for the user (it says so) instead of firing at once
        await run.wait(
            lambda: queue.paused and "paused" in " ".join(str(w.render()) for w in queue.query(Static)),
            "the queue to pause",
        )
        await run.pilot.pause(0.3)
        assert run.prompts_received() == ["hold"] and queue.texts == ["two", "four"]
        run.chat.prompt_input.focus()
        await run.pilot.press("enter")  # on the empty prompt: send the next, then the rest in order
        await run.wait(lambda: run.prompts_received() == ["hold", "two", "four"], "the queue to drain")
        await run.idle()
        assert queue.texts == [] and not queue.display
        assert "queued" not in run.chat.status.render().plain
        replies = [m.text for m in run.views(AgentMessageView)]
        assert replies == ["holding", "echo: two", "echo: four"]


# -- scrolling -------------------------------------------------------------------------------------------


def paragraphs(first: int, count: int) -> str:
    return "".join(f"paragraph {index}\n\n" for index in range(first, first + count))


#: Sixty paragraphs, a pause until the client cancels, then forty more.
LONG_TURN: dict[str, Any] = {
    "steps": [
        {"op": "respond_prompt"},
        {"op": "user_message"},
        {"op": "state", "state": "running"},
        *[
            update({"sessionUpdate": "agent_message_chunk", "messageId": "long", "content": text(paragraphs(i, 10))})
            for i in range(0, 60, 10)
        ],
        {"op": "wait_for", "method": "session/cancel", "timeout": 20},
        update({"sessionUpdate": "agent_message_chunk", "messageId": "long", "content": text(paragraphs(60, 40))}),
        {"op": "state", "state": "idle", "stopReason": "cancelled"},
    ]
}


def at_bottom(run: AppRun) -> bool:
    conversation = run.chat.conversation
    return conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y


def last_line_rendered(run: AppRun, index: int) -> bool:
    views = run.views(AgentMessageView)
    return bool(views) and any(f"paragraph {index}" in line for line in views[0].stream.rendered_lines())


async def test_the_view_follows_new_output_at_the_bottom(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        await run.send("long")
        await run.wait(lambda: last_line_rendered(run, 59), "sixty paragraphs")
        await run.wait(lambda: at_bottom(run), "the view at the bottom")
        await run.pilot.press("ctrl+c")
        await run.wait(lambda: last_line_rendered(run, 99), "the rest")
        await run.wait(lambda: at_bottom(run), "the view at the new bottom")
        conversation = run.chat.conversation
        assert conversation.following and not conversation.hint_visible


async def scrolled_up_with_new_output(run: AppRun) -> None:
    """Stream a long message, scroll to the top, then let more output arrive."""
    conversation = run.chat.conversation
    await run.send("long")
    await run.wait(lambda: last_line_rendered(run, 59), "sixty paragraphs")
    await run.wait(lambda: at_bottom(run), "the view at the bottom")
    conversation.focus()
    await run.pilot.press("home")
    await run.wait(lambda: conversation.scroll_y == 0, "the top")
    assert not conversation.following and not conversation.hint_visible
    height_before = conversation.max_scroll_y
    await run.pilot.press("ctrl+c")
    await run.wait(lambda: last_line_rendered(run, 99), "the rest")
    await run.wait(lambda: conversation.max_scroll_y > height_before, "the timeline to grow")
    await run.wait(lambda: conversation.hint_visible, "the new output hint")
    assert conversation.scroll_y == 0  # new output did not move the view
    await run.wait(  # drawn on the next frame after it shows (under load, not yet at the first look)
        lambda: "new output below" in "\n".join(strip.text for strip in run.app.screen._compositor.render_strips()),
        "the hint drawn",
    )


async def test_scrolled_up_view_stays_put_shows_the_hint_and_end_resumes(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        await scrolled_up_with_new_output(run)
        conversation = run.chat.conversation
        assert conversation.has_focus
        await run.pilot.press("end")
        await run.wait(lambda: at_bottom(run) and conversation.following, "following again")
        assert not conversation.hint_visible


async def test_ctrl_end_resumes_following_from_the_prompt(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        await scrolled_up_with_new_output(run)
        conversation = run.chat.conversation
        run.chat.prompt_input.focus()
        await run.pilot.press("ctrl+end")
        await run.wait(lambda: at_bottom(run) and conversation.following, "following again")
        assert not conversation.hint_visible


async def test_end_from_an_empty_prompt_jumps_to_the_newest_output(tmp_path: Path) -> None:
    """The hint says `(End)`: End from the prompt follows the output again, as from the timeline."""
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        await scrolled_up_with_new_output(run)
        conversation = run.chat.conversation
        run.chat.prompt_input.focus()
        await run.pilot.press("end")
        await run.wait(lambda: at_bottom(run) and conversation.following, "following again")
        assert not conversation.hint_visible and run.chat.prompt_input.has_focus


async def test_end_in_a_draft_goes_to_the_line_end_first_then_to_the_newest_output(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        await scrolled_up_with_new_output(run)
        conversation = run.chat.conversation
        prompt = run.chat.prompt_input
        prompt.load_text("a draft")
        prompt.move_cursor((0, 2))
        prompt.focus()
        await run.pilot.press("end")
        await run.wait(lambda: prompt.cursor_location == (0, 7), "the cursor at the line end")
        await run.pilot.pause(0.1)
        assert conversation.scroll_y == 0 and not conversation.following  # the view stayed where the user read
        await run.pilot.press("end")
        await run.wait(lambda: at_bottom(run) and conversation.following, "following again")
        assert prompt.text == "a draft"


async def test_delete_moves_to_the_next_queued_prompt_then_back_to_the_prompt(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [HELD_TURN]}) as run:
        await start_held_turn(run)
        queue = run.chat.query_one("#queue", QueuedPrompts)
        for value in ("a", "b", "c"):
            await run.send(value)
        await run.pilot.pause()
        list(queue.query(QueuedPrompt))[1].focus()
        await run.pilot.press("delete")
        await run.wait(lambda: queue.texts == ["a", "c"], "b removed")
        await run.wait(
            lambda: isinstance(run.app.focused, QueuedPrompt) and run.app.focused.prompt_text == "c",
            "the focus on the next queued prompt",
        )
        await run.pilot.press("backspace")
        await run.wait(lambda: queue.texts == ["a"], "c removed")
        await run.wait(
            lambda: isinstance(run.app.focused, QueuedPrompt) and run.app.focused.prompt_text == "a",
            "the focus on the last queued prompt",
        )
        await run.pilot.press("delete")
        await run.wait(lambda: queue.texts == [] and not queue.display, "the queue emptied")
        await run.wait(lambda: run.chat.prompt_input.has_focus, "the focus back on the prompt")
        await run.pilot.press("ctrl+c")
        await run.idle(ran=False)  # the held turn ends; nothing queued is left to run
        assert run.prompts_received() == ["hold"]
