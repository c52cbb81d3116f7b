"""Scrolling and focus from the prompt (issue 11).

- PageUp/PageDown (and Ctrl+Home/Ctrl+End) scroll the conversation while the prompt has the focus.
- Escape on any non-modal widget (a card, the timeline, a queued prompt, the stderr panel) returns
  the focus to the prompt; a printable key typed there goes to the prompt *with the key*.
- A card's own letters stay the card's (`i`, `s`); cancelling a tool call needs Ctrl+X, so a plain
  `x` meant for the prompt cancels nothing.
- Tab from the prompt starts at the newest card, then visits the rest in screen order and comes back;
  Enter where nothing uses it goes back to the prompt (issue 22).
- Keys typed fast on a card (issue 22) all follow the first one to the prompt, the card's own keys
  and Enter included: a burst reaches the card before the focus has moved.

The widgets post `FocusPrompt`; `ChatScreen` turns it into `PromptInput.take_focus`. The widget-level
tests below wire it the same way in a small app; the real-app tests prove the screen's wiring.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from acp_tui.history import PromptHistory
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.prompt_return import FocusPrompt
from acp_tui.ui.widgets.queued_prompts import QueuedPrompt
from acp_tui.ui.widgets.stderr_panel import StderrPanel
from tests.support.app_run import AppRun, running_app, text, tool, update, v2_turn

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

LINES = "\n\n".join(f"paragraph {n}: " + "words " * 12 for n in range(80))
LONG_TURN = v2_turn(update({"sessionUpdate": "agent_message", "messageId": "long", "content": [text(LINES)]}))
CARDS_TURN = v2_turn(
    tool(
        "read",
        title="Read notes.md",
        kind="read",
        status="completed",
        content=[{"type": "content", "content": text("notes")}],
    ),
    tool("run", title="Long job", kind="execute", status="in_progress", capabilities={"cancel": {}}),
    stop="end_turn",
)


# -- the widgets, wired as the chat screen wires them ----------------------------------------------


class Card(Static, can_focus=True):
    """A focusable timeline entry with a letter of its own, like a tool card's `s`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("s", "save", "Save")]
    saved = 0

    def action_save(self) -> None:
        Card.saved += 1


class FocusApp(App[None]):
    def compose(self) -> ComposeResult:
        with Conversation():
            yield Card("a card", id="card")
        yield StderrPanel()
        yield PromptInput(PromptHistory(None), id="prompt")

    @on(FocusPrompt)
    def _focus_prompt(self, event: FocusPrompt) -> None:
        """What `ChatScreen` does with the message."""
        event.stop()
        self.query_one(PromptInput).take_focus(event.key, event.character)


async def test_escape_on_a_card_asks_for_the_prompt_and_the_prompt_takes_the_focus() -> None:
    app = FocusApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        app.query_one("#card").focus()
        await pilot.press("escape")
        assert prompt.has_focus and prompt.text == ""
        app.query_one(Conversation).focus()
        await pilot.press("escape")
        assert prompt.has_focus


async def test_a_key_typed_on_a_card_is_typed_into_the_prompt_never_lost() -> None:
    app = FocusApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.load_text("hello ")
        prompt.move_cursor(prompt.document.end)
        app.query_one("#card").focus()
        await pilot.press("w", "o", "r", "l", "d", "space", "exclamation_mark")
        assert prompt.has_focus and prompt.text == "hello world !"


async def test_a_cards_own_letter_stays_the_cards() -> None:
    app = FocusApp()
    Card.saved = 0
    async with app.run_test() as pilot:
        app.query_one("#card").focus()
        await pilot.press("s")
        assert Card.saved == 1 and app.query_one("#card").has_focus
        assert app.query_one(PromptInput).text == ""


async def test_escape_and_typing_in_the_stderr_panel_go_back_to_the_prompt() -> None:
    app = FocusApp()
    async with app.run_test() as pilot:
        panel = app.query_one(StderrPanel)
        panel.toggle()
        panel.focus()
        await pilot.press("escape")
        assert app.query_one(PromptInput).has_focus
        panel.focus()
        await pilot.press("q")
        assert app.query_one(PromptInput).text == "q"


async def test_modifier_keys_and_navigation_keys_stay_where_the_focus_is() -> None:
    app = FocusApp()
    async with app.run_test() as pilot:
        card = app.query_one("#card")
        card.focus()
        await pilot.press("ctrl+x", "down", "up")
        assert card.has_focus and app.query_one(PromptInput).text == ""


async def test_enter_on_a_card_that_has_no_use_for_it_goes_back_to_the_prompt() -> None:
    app = FocusApp()
    async with app.run_test() as pilot:
        app.query_one("#card").focus()
        await pilot.press("enter")
        assert app.query_one(PromptInput).has_focus and app.query_one(PromptInput).text == ""


# -- the real app ----------------------------------------------------------------------------------


async def long_conversation(tmp_path: Path, run: AppRun) -> Conversation:
    await run.send("long")
    await run.idle()
    conversation = run.chat.conversation
    await run.wait(
        lambda: conversation.max_scroll_y > 20 and conversation.scroll_y == conversation.max_scroll_y,
        "a long conversation at its end",
    )
    return conversation


async def test_pageup_and_pagedown_from_the_prompt_scroll_the_conversation(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        conversation = await long_conversation(tmp_path, run)
        prompt = run.chat.prompt_input
        prompt.load_text("a draft\nof two lines")
        prompt.focus()
        bottom = conversation.scroll_y
        await run.pilot.press("pageup")
        await run.wait(lambda: conversation.scroll_y < bottom, "the conversation to scroll up")
        assert prompt.has_focus and prompt.text == "a draft\nof two lines"
        middle = conversation.scroll_y
        await run.pilot.press("pageup", "pagedown")
        await run.wait(lambda: conversation.scroll_y == middle, "the conversation to scroll back down")
        await run.pilot.press("ctrl+end")
        await run.wait(
            lambda: conversation.scroll_y == conversation.max_scroll_y and conversation.following, "following again"
        )


async def test_ctrl_home_from_the_prompt_goes_to_the_oldest_entry(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        conversation = await long_conversation(tmp_path, run)
        run.chat.prompt_input.focus()
        await run.pilot.press("ctrl+home")
        await run.wait(lambda: conversation.scroll_y == 0, "the top")
        assert not conversation.following and run.chat.prompt_input.has_focus


async def test_scroll_to_start_stops_following(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [LONG_TURN]}, size=(100, 30)) as run:
        conversation = await long_conversation(tmp_path, run)
        conversation.scroll_to_start()
        await run.wait(lambda: conversation.scroll_y == 0, "the top")
        assert not conversation.following


async def cards(run: AppRun) -> list[ToolCallCard]:
    await run.send("cards")
    await run.idle()
    await run.wait(lambda: len(run.views(ToolCallCard)) == 2, "two tool cards")
    return run.views(ToolCallCard)


async def test_a_plain_x_on_a_running_tool_card_cancels_nothing(tmp_path: Path) -> None:
    script = {"version": 2, "turns": [CARDS_TURN], "responses": {"tool_call/cancel": {"result": {}}}}
    async with running_app(tmp_path, script) as run:
        _, running = await cards(run)
        running.focus()
        await run.pilot.press("x")
        await run.pilot.pause(0.2)
        assert run.received("tool_call/cancel") == []
        running.focus()  # (the x went to the prompt, with the focus, once the screen handles FocusPrompt)
        await run.pilot.press("ctrl+x")  # the modifier is the cancel key
        await run.wait(lambda: run.received("tool_call/cancel") != [], "tool_call/cancel")


async def test_escape_on_a_card_in_the_chat_returns_to_the_prompt(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [CARDS_TURN]}) as run:
        read, _ = await cards(run)
        read.focus()
        await run.pilot.press("escape")
        await run.wait(lambda: run.chat.prompt_input.has_focus, "the prompt's focus")


async def test_typing_on_a_card_or_a_queued_prompt_in_the_chat_types_into_the_prompt(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [CARDS_TURN]}) as run:
        _, running = await cards(run)
        running.focus()
        await run.pilot.press("x", "y")  # a plain x is typed, not a cancel
        await run.wait(lambda: run.chat.prompt_input.text == "xy", "the typed text")
        assert run.chat.prompt_input.has_focus
        assert run.received("tool_call/cancel") == []


async def test_escape_and_typing_on_a_queued_prompt_return_to_the_prompt(tmp_path: Path) -> None:
    held = {
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            {"op": "wait_for", "method": "session/cancel", "timeout": 20},
            {"op": "state", "state": "idle", "stopReason": "cancelled"},
        ]
    }
    async with running_app(tmp_path, {"version": 2, "turns": [held]}) as run:
        await run.send("hold")
        await run.wait(lambda: run.chat.status.values.busy, "the agent to work")
        await run.send("later")
        await run.wait(lambda: bool(run.chat.query(QueuedPrompt)), "the queued prompt")
        run.chat.query_one(QueuedPrompt).focus()
        await run.pilot.press("escape")
        await run.wait(lambda: run.chat.prompt_input.has_focus, "the prompt's focus")
        run.chat.query_one(QueuedPrompt).focus()
        await run.pilot.press("k")
        await run.wait(lambda: run.chat.prompt_input.text == "k", "the typed key")
        await run.pilot.press("ctrl+c")


async def test_tab_from_the_prompt_starts_at_the_newest_card_and_comes_back(tmp_path: Path) -> None:
    """Tab from the prompt lands on the newest card (never on the bare timeline, where Enter did
    nothing); Tab again comes back to the prompt, Shift+Tab walks to older cards."""
    async with running_app(tmp_path, {"version": 2, "turns": [CARDS_TURN]}) as run:
        read, running = await cards(run)
        prompt = run.chat.prompt_input
        prompt.focus()
        await run.pilot.pause()
        await run.pilot.press("tab")
        await run.wait(lambda: run.app.focused is running, "the newest card's focus")
        await run.pilot.press("tab")
        await run.wait(lambda: run.app.focused is prompt, "the prompt's focus")
        await run.pilot.press("tab", "shift+tab")
        await run.wait(lambda: run.app.focused is read, "the older card's focus")
        await run.pilot.press("shift+tab")
        await run.wait(lambda: run.app.focused is run.chat.conversation, "the timeline's focus")


async def test_tab_from_the_prompt_with_no_card_keeps_the_focus_and_enter_still_sends(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        prompt = run.chat.prompt_input
        await run.pilot.press("h", "i", "tab")
        await run.pilot.pause()
        assert run.app.focused is prompt
        await run.pilot.press("enter")
        await run.wait(lambda: run.prompts_received() == ["hi"], "the prompt sent")


async def test_enter_where_nothing_uses_it_goes_back_to_the_prompt(tmp_path: Path) -> None:
    """Enter on the bare timeline (or any part that has no use for it) is never silently lost: the
    focus goes back to the prompt, the draft kept, for the next Enter to send."""
    async with running_app(tmp_path, {"version": 2, "turns": [CARDS_TURN]}) as run:
        await cards(run)
        prompt = run.chat.prompt_input
        prompt.load_text("draft")
        run.chat.conversation.focus()
        await run.pilot.pause()
        await run.pilot.press("enter")
        await run.wait(lambda: prompt.has_focus, "the prompt's focus")
        assert prompt.text == "draft" and run.prompts_received() == ["cards"]


# -- typing fast on a card (issue 22) ----------------------------------------------------------------


async def burst(run: AppRun, *keys: str) -> None:
    """Keys as a terminal delivers a fast typist's burst: all queued at once, none waited for."""
    for key in keys:
        run.pilot.app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_a_word_typed_fast_on_a_card_reaches_the_prompt_whole(tmp_path: Path) -> None:
    """`edit` typed on a card: the `e` sends the focus to the prompt, and the `i` queued for the card
    behind it (the card's own key) goes there too, never toggling the card's raw view."""
    async with running_app(tmp_path, {"version": 2, "turns": [CARDS_TURN]}) as run:
        read, _ = await cards(run)
        read.focus()
        await run.pilot.pause()
        await burst(run, "e", "d", "i", "t")
        await run.wait(
            lambda: run.chat.prompt_input.has_focus and len(run.chat.prompt_input.text) >= 3, "the typed keys"
        )
        await run.pilot.pause(0.1)
        assert run.chat.prompt_input.text == "edit" and run.chat.prompt_input.has_focus
        assert not read.has_class("-raw")


async def test_enter_typed_fast_behind_a_word_on_a_card_sends_the_word(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [CARDS_TURN]}) as run:
        read, _ = await cards(run)
        read.focus()
        await run.pilot.pause()
        await burst(run, "o", "k", "enter")
        await run.wait(lambda: run.prompts_received() == ["cards", "ok"], "the word sent")
        assert not read.expanded and run.chat.prompt_input.text == ""


async def test_a_cards_own_key_pressed_first_is_still_the_cards(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [CARDS_TURN]}) as run:
        read, _ = await cards(run)
        read.focus()
        await run.pilot.pause()
        await run.pilot.press("i")
        await run.wait(lambda: read.has_class("-raw"), "the raw view")
        assert read.has_focus and run.chat.prompt_input.text == ""
        await run.pilot.press("i", "x", "i")  # the toggle again, then typing: the second i is typed
        await run.wait(lambda: run.chat.prompt_input.text == "xi", "the typed keys")
        assert not read.has_class("-raw")
