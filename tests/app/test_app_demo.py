"""The built-in demo agent through the real app: every behaviour word, typed into the prompt, in v2 and v1.

These are the user's first minute: `acp-tui` with no agent runs `python -m acp_tui.demo`, and each
word the welcome message lists must show its feature on screen. Assertions read the widgets the
conversation holds and the status bar, never the agent's wire traffic. The demo runs at speed 0 (no
delays) except for `slow`, which must still be running when Ctrl-C arrives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from acp_tui.demo import content
from acp_tui.session.model import AGENT_MESSAGE, Message
from acp_tui.ui.browsers.transcript_view import ExportScreen
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen
from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlScreen
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.compaction import CompactionView
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.thought_view import ThoughtView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.timeline.unknown_update import UnknownUpdateView
from acp_tui.ui.timeline.user_message import FOLD_HEAD, UserMessageView
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.status_bar import SPINNER
from tests.support.demo_app import VERSIONS, DemoRun, demo_app

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


def assert_usage_shown(run: DemoRun, turns: int) -> None:
    """The status bar shows the context meter and the cost the demo reported after `turns` turns."""
    values = run.chat.status.values
    assert values.size == 200_000 and values.used is not None and values.used > 0
    expected_cost = f"${0.0123 * turns:.3f}"
    assert values.cost == expected_cost
    assert "/ 200.0k" in run.status_text() and expected_cost in run.status_text()


# -- the first minute ----------------------------------------------------------------------------


@VERSIONS
async def test_first_message_says_what_to_type_then_markdown_and_think(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        welcome = run.views(AgentMessageView)[0].text
        assert "acp-tui demo agent" in welcome
        for word in content.BEHAVIOURS:
            assert f"`{word}`" in welcome
        assert "acp-tui demo agent" in run.screen_text()
        assert run.chat.status.values.state == "idle" and "ready" in run.status_text()

        await run.turn("markdown")
        answer = run.last_message()
        assert answer.startswith("## Greeting people, politely")
        assert "```python\ndef greet(name: str) -> str:" in answer
        screen = run.screen_text()
        # Rendered as markdown: the heading and the code are on screen, the fence markers are not.
        assert "Greeting people, politely" in screen and 'return f"Hello, {name}!"' in screen
        assert "```" not in screen and "## Greeting" not in screen
        assert_usage_shown(run, 1)

        await run.turn("think")
        thoughts = run.views(ThoughtView)
        assert len(thoughts) == 1
        assert thoughts[0].text == content.THOUGHT
        assert thoughts[0].finished and thoughts[0].collapsed
        entries = run.chat.conversation.entries
        assert entries.index(thoughts[0]) < entries.index(run.views(AgentMessageView)[-1])
        assert run.last_message() == content.THOUGHT_ANSWER
        assert_usage_shown(run, 2)

        await run.turn("hello there")  # a word that names no behaviour: the echo
        assert run.last_message().startswith("You said: hello there")
        assert_usage_shown(run, 3)


def card_by_title(run: DemoRun, start: str) -> ToolCallCard:
    matches = [card for card in run.cards() if (card.call.title or "").startswith(start)]
    assert len(matches) == 1, f"one card titled {start!r}, got {[c.call.title for c in run.cards()]}"
    return matches[0]


@VERSIONS
async def test_tools_show_read_edit_execute_cards_and_a_failed_fetch(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        await run.turn("tools")
        assert [(card.call.kind, card.call.status) for card in run.cards()] == [
            ("read", "completed"),
            ("edit", "completed"),
            ("execute", "completed"),
            ("fetch", "failed"),
        ]
        read = card_by_title(run, "Read src/greet.py")
        assert 'return "Hello " + name' in read.full_text()
        edit = card_by_title(run, "Edit src/greet.py")
        assert "Hello, {name}!" in edit.full_text()
        fetch = card_by_title(run, "Fetch")
        assert "could not resolve host" in fetch.full_text()
        assert "failed" in fetch.header_text()
        execute = card_by_title(run, "Run ")
        if version == 2:
            # v2 terminals are shown inside the card that refers to them, output and all.
            terminals = execute.query(TerminalView)
            assert len(terminals) == 1
            assert "3 passed" in terminals[0].full_text()
            assert not [w for w in run.chat.conversation.entries if isinstance(w, TerminalView)]
        else:
            # v1 has no terminals: the demo reports the output as the card's text.
            assert "3 passed" in execute.full_text()
        assert "Three tool calls worked" in run.last_message()
        assert "Fetch https://pypi.invalid" in run.screen_text()
        assert_usage_shown(run, 1)


@VERSIONS
async def test_edit_approved_with_a_completes_with_the_diff(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        await run.send("edit")
        dialog = await run.armed_dialog()
        assert "src/greet.py" in run.screen_text()
        assert dialog is run.app.screen
        await run.pilot.press("a")
        await run.idle()
        (card,) = run.cards()
        assert card.call.kind == "edit" and card.call.status == "completed"
        text = card.full_text()
        assert 'return "Hello " + name' in text and 'return f"Hello, {name}!"' in text
        assert run.last_message().startswith("Done:")
        assert_usage_shown(run, 1)


@VERSIONS
async def test_edit_rejected_with_r_is_not_applied(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        await run.send("edit")
        await run.armed_dialog()
        await run.pilot.press("r")
        await run.idle()
        (card,) = run.cards()
        assert card.call.status == "failed"
        assert "Refused by the user" in card.full_text()
        assert "unchanged" in run.last_message()


@VERSIONS
async def test_plan_entries_all_end_completed(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        await run.turn("plan")
        (plan,) = run.views(PlanView)
        items = plan.entries.items
        assert items is not None
        assert [(e.content, e.status) for e in items.entries] == [(step, "completed") for step in content.PLAN_STEPS]
        assert [card.call.status for card in run.cards()] == ["completed"] * 3
        assert run.last_message() == "All three steps are done."
        assert_usage_shown(run, 1)


@VERSIONS
async def test_notice_is_a_toast_and_not_part_of_the_conversation(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        before = list(run.chat.conversation.entries)
        await run.turn("notice")
        added = [w for w in run.chat.conversation.entries if w not in before]
        if version == 2:
            # Raised together, the two make one toast: the warning, counting the other; F5 lists both.
            title, _, severity = run.toasts[-1]
            assert (title, severity) == (f"{content.NOTICE_WARNING_TITLE} (+1 more, F5)", "warning")
            listed = [(entry.title, entry.description) for entry in run.chat.notices.entries]
            assert listed == [
                (content.NOTICE_WARNING_TITLE, content.NOTICE_WARNING_TEXT),
                (content.NOTICE_INFO_TITLE, content.NOTICE_INFO_TEXT),
            ]
            # Only the user's bubble and the agent's sentence about the notices were added.
            assert not [w for w in added if isinstance(w, (SystemLine, UnknownUpdateView))]
            assert all(content.NOTICE_WARNING_TEXT not in getattr(w, "text", "") for w in added)
            assert "two notices" in run.last_message()
        else:
            assert run.toasts == []
            assert "needs ACP v2" in run.last_message()
        assert_usage_shown(run, 1)


async def test_compact_and_unknown_v2(tmp_path: Path) -> None:
    async with demo_app(tmp_path, 2) as run:
        await run.turn("compact")
        (view,) = run.views(CompactionView)
        assert view.compaction.status == "completed"
        summary = view.compaction.summary.text
        assert "Retained context" in summary and "three tests pass" in summary
        assert "context compacted" in run.screen_text()
        assert "Compaction finished" in run.last_message()
        assert_usage_shown(run, 1)

        await run.turn("unknown")
        (unknown,) = run.views(UnknownUpdateView)
        assert unknown.entry.kind == "_demo/sparkle"
        assert "the agent sent _demo/sparkle, which this client does not understand" in run.screen_text()
        assert run.chat.controller.session is not None and run.chat.controller.session.state.problem_count == 0
        assert "_demo/sparkle" in run.last_message()
        assert_usage_shown(run, 2)


async def test_compact_and_unknown_in_v1_say_why_there_is_nothing_to_show(tmp_path: Path) -> None:
    async with demo_app(tmp_path, 1) as run:
        await run.turn("compact")
        assert not run.views(CompactionView)
        assert "needs ACP v2" in run.last_message()
        await run.turn("unknown")
        assert "extension notification" in run.last_message()
        assert run.chat.status.values.state == "idle"
        assert_usage_shown(run, 2)


@VERSIONS
async def test_error_turn_shows_the_message_in_the_status_bar(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        await run.turn("error")
        assert content.ERROR_MESSAGE in run.status_text()
        (card,) = run.cards()
        assert card.call.status == "failed"
        assert_usage_shown(run, 1)
        await run.turn("markdown")  # the session carries on after an error
        assert "error" not in run.status_text() and "ready" in run.status_text()


@VERSIONS
async def test_slow_is_cancelled_by_ctrl_c(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version, speed="1") as run:
        await run.send("slow")
        await run.wait(lambda: "1…" in run.messages(), "the slow count to start")
        shown: list[str] = []  # the status bar's state text after every change, in order
        status = run.chat.status
        original = status.update_values

        def update_values(**changes: object) -> None:
            original(**changes)
            shown.append(status.state_text().plain)

        status.update_values = update_values  # type: ignore[method-assign]
        await run.pilot.press("ctrl+c")
        await run.idle("the cancelled turn to end")
        labels = [label.lstrip(SPINNER + " ") for label in shown]
        assert "cancelling…" in labels
        assert labels[-1] == "⊘ cancelled", labels
        assert labels.index("cancelling…") < len(labels) - 1
        assert "cancelled" in run.status_text()
        assert run.chat.status.values.stop_reason == "cancelled"
        counted = run.last_message()
        assert "done." not in counted
        # The agent stopped streaming: the answer does not grow any more.
        for _ in range(10):
            await run.pilot.pause(0.05)
        assert run.last_message() == counted
        assert_usage_shown(run, 1)


@VERSIONS
async def test_everything_in_one_turn(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        await run.send("everything")
        await run.armed_dialog()
        await run.pilot.press("a")
        await run.idle()
        assert len(run.views(ThoughtView)) == 1 and run.views(ThoughtView)[0].collapsed
        (plan,) = run.views(PlanView)
        assert plan.entries.items is not None
        assert {e.status for e in plan.entries.items.entries} == {"completed"}
        assert [(c.call.kind, c.call.status) for c in run.cards()] == [
            ("read", "completed"),
            ("edit", "completed"),
            ("execute", "completed"),
            ("fetch", "failed"),
        ]
        assert "## Greeting people, politely" in run.messages()
        if version == 2:
            assert len(run.views(CompactionView)) == 1
            assert len(run.views(UnknownUpdateView)) == 1
            assert run.toasts[-1][0] == f"{content.NOTICE_WARNING_TITLE} (+1 more, F5)"  # raised together: one toast
            assert [entry.title for entry in run.chat.notices.entries] == [
                content.NOTICE_WARNING_TITLE,
                content.NOTICE_INFO_TITLE,
            ]
        else:
            assert not run.views(CompactionView) and not run.views(UnknownUpdateView)
        assert run.chat.status.values.stop_reason in (None, "end_turn")
        assert_usage_shown(run, 1)


@pytest.mark.parametrize("version", [2, 1])
async def test_the_demo_asks_a_question_and_sends_a_link_through_the_chat_screen(tmp_path: Path, version: int) -> None:
    """Elicitation through the real screen: the form is answered, the link copied, the agent hears both."""
    async with demo_app(tmp_path, version) as run:
        init = run.chat.controller.session
        assert init is not None and init.init is not None
        await run.send("ask")
        await run.wait(lambda: isinstance(run.app.screen, ElicitationFormScreen) and run.app.screen.armed, "the form")
        # The dialog names the agent as `initialize` did (its title), not the launch's name ("demo"): a program
        # name such as `env` or `gemini.js` says nothing.
        assert str(run.app.screen.query_one("#dialog").border_title) == "Question from acp-tui demo agent"
        await run.pilot.press("ctrl+e", *"-tui", "tab", *"ada@example.com", "ctrl+s")  # the first field has the keys
        await run.wait(lambda: "answered:" in agent_said(run), "the answer in the reply")
        await run.idle()
        await run.send("link")
        await run.wait(lambda: isinstance(run.app.screen, ElicitationUrlScreen) and run.app.screen.armed, "the link")
        assert str(run.app.screen.query_one("#dialog").border_title) == "Link from acp-tui demo agent"
        await run.pilot.press("c")
        await run.idle()
        assert run.app.clipboard == "https://example.com/acp-tui-demo/login?code=DEMO-1234"
        assert run.chat.controller.state.problem_count == 0


def agent_said(run: DemoRun) -> str:
    """Everything the agent said in this session (its messages' text)."""
    return "".join(
        e.text
        for k, e in run.chat.controller.state.entities.items()
        if k[0] == AGENT_MESSAGE and isinstance(e, Message)
    )


async def test_a_sent_long_paste_is_folded_in_the_conversation_and_opens_with_enter(tmp_path: Path) -> None:
    """A sent 120-line paste (as `seq 120` pastes, with its last newline) is a compact bubble, not 121 rows."""
    pasted = "".join(f"{n}\n" for n in range(1, 121))
    async with demo_app(tmp_path, 2) as run:
        prompt = run.chat.prompt_input
        prompt.focus()
        prompt.post_message(events.Paste(pasted))
        await run.wait(lambda: "[pasted 120 lines]" in prompt.text, "the paste to be collapsed in the prompt")
        await run.pilot.press("enter")
        await run.idle()
        bubble = next(view for view in run.views(UserMessageView) if "120" in view.text)
        assert bubble.text.rstrip("\n").endswith("119\n120")  # the message itself is whole
        assert bubble.folded and bubble.focusable
        inner = bubble.content_region.height
        assert inner == FOLD_HEAD + 1, inner  # the first lines and "… 114 more lines (Enter)"
        assert "… 114 more lines (Enter)" in run.screen_text()
        bubble.focus()
        await run.pilot.press("enter")
        await run.wait(lambda: bubble.content_region.height == 120, "the bubble to open to all 120 lines")
        assert not bubble.folded
        await run.pilot.press("enter")
        await run.wait(lambda: bubble.content_region.height == FOLD_HEAD + 1, "the bubble to fold again")


async def test_a_short_multi_line_prompt_is_shown_whole_and_takes_no_focus(tmp_path: Path) -> None:
    async with demo_app(tmp_path, 2) as run:
        await run.turn("one\ntwo\nthree\n")
        bubble = next(view for view in run.views(UserMessageView) if "three" in view.text)
        assert bubble.content_region.height == 3 and not bubble.focusable


def no_downloads_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME, without ~/Downloads; returns it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    return home


async def test_the_palettes_screenshot_is_saved_without_a_downloads_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh HOME has no ~/Downloads: Textual's default failed with no reason; the data folder takes it."""
    home = no_downloads_folder(tmp_path, monkeypatch)
    saved = tmp_path / "user-data" / "saved"
    async with demo_app(tmp_path, 2) as run:
        await run.pilot.press("ctrl+p")
        await run.pilot.pause()
        for key in "Screenshot":
            await run.pilot.press(key)
        await run.pilot.pause()
        await run.pilot.press("enter")
        await run.wait(lambda: saved.is_dir() and any(saved.glob("*.svg")), "the screenshot in the data folder")
        await run.wait(lambda: any("Saved screenshot" in message for _, message, _ in run.toasts), "the toast")
        assert not (home / "Downloads").exists()


async def test_a_screenshot_that_cannot_be_saved_says_why(tmp_path: Path) -> None:
    async with demo_app(tmp_path, 2) as run:
        run.app.deliver_screenshot(path=str(tmp_path / "no" / "such" / "folder"))
        await run.wait(lambda: run.toasts, "a toast")
        title, message, severity = run.toasts[-1]
        assert (title, severity) == ("Screenshot not saved", "error")
        assert "No such file or directory" in message and str(tmp_path / "no") in message


async def test_the_export_is_suggested_outside_the_session_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export's default path was the session's folder, often a git repository: now Downloads or the data folder."""
    home = no_downloads_folder(tmp_path, monkeypatch)
    async with demo_app(tmp_path, 2) as run:
        await run.turn("hello")
        run.chat.action_sessions("export")
        await run.wait(lambda: isinstance(run.app.screen, ExportScreen), "the export question")
        screen = run.app.screen
        assert isinstance(screen, ExportScreen)
        assert screen.suggested.parent == tmp_path / "user-data" / "saved"
        (home / "Downloads").mkdir()
        await run.pilot.press("escape")
        await run.wait(lambda: not isinstance(run.app.screen, ExportScreen), "the question to close")
        run.chat.action_sessions("export")
        await run.wait(lambda: isinstance(run.app.screen, ExportScreen), "the export question again")
        screen = run.app.screen
        assert isinstance(screen, ExportScreen) and screen.suggested.parent == home / "Downloads"


async def test_after_ctrl_n_f5_lists_only_the_new_sessions_notices(tmp_path: Path) -> None:
    async with demo_app(tmp_path, 2) as run:
        await run.turn("notice")
        assert len(run.chat.notices.entries) == 2

        def session_id() -> str | None:
            session = run.chat.controller.session
            return session.session_id if session is not None else None

        before = session_id()
        await run.pilot.press("ctrl+n")
        await run.wait(lambda: session_id() not in (None, before) and not run.chat.pump.pending, "the new session")
        await run.pilot.pause()
        assert run.chat.notices.entries == [] and run.chat.notices.total == 0
