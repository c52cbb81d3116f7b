"""The notices list: ACP notices are kept (not only toasted), listed newest last with a severity glyph,
sanitized, closed with Escape; the palette opens it. The chat screen's key and palette entry are
wired by `ChatScreen` (see `test_f5_in_the_chat_opens_the_notices_the_agent_raised`)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets import Static

from acp_tui.protocol.v2 import Notice
from acp_tui.ui.browsers.notices import (
    NOTICES_KEY,
    NoticeCommands,
    NoticeEntry,
    NoticeLog,
    NoticesScreen,
    toast_lines,
)
from acp_tui.ui.themes import load_shipped_themes
from tests.support.app_run import running_app, screen_text, update, v2_turn
from tests.support.contrast import dialog_region, low_contrast

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

AT = datetime(2026, 1, 2, 9, 30, 5)


def notice(severity: str, title: str, description: str | None = None) -> Notice:
    if description is None:
        return Notice(severity=severity, title=title)
    return Notice(severity=severity, title=title, description=description)


class Home(Screen[None]):
    """A screen that can show notices, as the chat screen does."""

    COMMANDS = {NoticeCommands}

    def __init__(self, log: NoticeLog) -> None:
        super().__init__()
        self.notices = log

    def compose(self) -> ComposeResult:
        yield Static("home")

    def action_show_notices(self) -> None:
        self.app.push_screen(NoticesScreen(self.notices.entries, self.notices.total))


class NoticesApp(App[None]):
    def __init__(self, log: NoticeLog, theme: str = "acp-dark") -> None:
        super().__init__()
        self.notices = log
        for palette in load_shipped_themes():
            self.register_theme(palette)
        self.theme = theme

    def on_mount(self) -> None:
        self.push_screen(Home(self.notices))


def rows(app: App[Any]) -> list[str]:
    return [str(static.render()) for static in app.screen.query(".notice").results(Static)]


def test_the_log_keeps_notices_oldest_first_and_drops_the_oldest_when_full() -> None:
    log = NoticeLog(limit=2)
    for index in range(3):
        log.add(notice("info", f"n{index}"), at=AT)
    assert [entry.title for entry in log.entries] == ["n1", "n2"]
    assert log.total == 3
    entry = log.add(notice("warning", "quota", "90% used"), at=AT)
    assert entry == NoticeEntry("warning", "quota", "90% used", AT)


async def test_the_list_shows_every_notice_newest_last_with_its_glyph_and_escape_closes_it() -> None:
    log = NoticeLog()
    log.add(notice("info", "Indexed", "1,204 files"), at=AT)
    log.add(notice("warning", "Rate limit soon", "You have used 90% of your quota."), at=AT)
    log.add(notice("error", "Tool crashed"), at=AT)
    log.add(notice("_vendor_fyi", "Something new"), at=AT)
    app = NoticesApp(log)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(NOTICES_KEY)  # not bound on Home: nothing happens
        await app.screen.run_action("show_notices")
        await pilot.pause()
        assert isinstance(app.screen, NoticesScreen)
        assert rows(app) == [
            "09:30:05 ℹ Indexed — 1,204 files",
            "09:30:05 ⚠ Rate limit soon — You have used 90% of your quota.",
            "09:30:05 ✗ Tool crashed",
            "09:30:05 • _vendor_fyi: Something new",
        ]
        assert "4 notices from the agent" in str(app.screen.query_one("#notices-summary", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, Home)
        await app.screen.run_action("show_notices")
        await pilot.pause()
        await pilot.press(NOTICES_KEY)  # the key that opens it closes it too
        await pilot.pause()
        assert isinstance(app.screen, Home)


async def test_agent_text_is_sanitized_and_never_markup() -> None:
    log = NoticeLog()
    log.add(notice("warning\x1b[31m", "[bold red]pwn[/] \x1b]0;evil\x07", "line one\nline two \x1b[2J"), at=AT)
    app = NoticesApp(log)
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(NoticesScreen(log.entries))
        await pilot.pause()
        [row] = rows(app)
        assert "[bold red]pwn[/]" in row and "\x1b" not in row and "\x07" not in row
        assert "line one\nline two" in row
        assert row.startswith("09:30:05 • warning: ")  # an unknown severity (after sanitizing) is shown as sent


async def test_an_empty_list_says_so_and_a_full_one_says_what_was_dropped() -> None:
    app = NoticesApp(NoticeLog())
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(NoticesScreen([]))
        await pilot.pause()
        assert str(app.screen.query_one("#notices-empty", Static).render()) == "no notices yet"
        app.screen.dismiss(None)
        await pilot.pause()
        log = NoticeLog(limit=3)
        for index in range(5):
            log.add(notice("info", f"n{index}"), at=AT)
        app.push_screen(NoticesScreen(log.entries, log.total))
        await pilot.pause()
        summary = str(app.screen.query_one("#notices-summary", Static).render())
        assert summary.startswith("5 notices from the agent (the newest 3 are kept)")


async def test_a_long_list_opens_scrolled_to_the_newest() -> None:
    log = NoticeLog()
    for index in range(60):
        log.add(notice("info", f"notice {index}"), at=AT)
    app = NoticesApp(log)
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(NoticesScreen(log.entries))
        await pilot.pause()
        notices = app.screen.query_one("#notices-list")
        for _ in range(50):
            await pilot.pause(0.02)
            if notices.max_scroll_y > 0 and notices.scroll_y == notices.max_scroll_y:
                break
        assert notices.max_scroll_y > 0 and notices.scroll_y == notices.max_scroll_y


async def test_the_palette_opens_the_list() -> None:
    log = NoticeLog()
    log.add(notice("info", "From the palette"), at=AT)
    app = NoticesApp(log)
    async with app.run_test(size=(100, 30)) as pilot:
        app.action_command_palette()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"notices")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, NoticesScreen)
        assert rows(app) == ["09:30:05 ℹ From the palette"]


@pytest.mark.parametrize("theme", ["acp-dark", "acp-light"])
async def test_the_list_is_readable_in_both_themes(theme: str) -> None:
    log = NoticeLog()
    for severity in ("info", "warning", "error", "_odd"):
        log.add(notice(severity, f"A {severity} notice", "with a description"), at=AT)
    app = NoticesApp(log, theme)
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(NoticesScreen(log.entries))
        await pilot.pause()
        assert not low_contrast(app, "notices", dialog_region(app))  # type: ignore[arg-type]


async def test_f5_in_the_chat_opens_the_notices_the_agent_raised(tmp_path: Path) -> None:
    raised = [
        update(
            {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "Rate limit soon",
                "description": "You have used 90% of your quota.",
            }
        ),
        update({"sessionUpdate": "notice", "severity": "info", "title": "Indexed"}),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*raised)]}) as run:
        await run.send("notices")
        await run.idle()
        await run.pilot.press(NOTICES_KEY)  # from the prompt, which has the focus
        await run.wait(lambda: isinstance(run.app.screen, NoticesScreen), "the notices list")
        shown = rows(run.app)
        assert [row.split(" ", 1)[1] for row in shown] == [
            "⚠ Rate limit soon — You have used 90% of your quota.",
            "ℹ Indexed",
        ]
        await run.pilot.press("escape")
        await run.wait(lambda: not isinstance(run.app.screen, NoticesScreen), "the list to close")


async def test_a_long_notice_toast_stays_small_at_80x24(tmp_path: Path) -> None:
    """A long notice covered half of an 80×24 screen for ~5 s: its toast is now two rows (title, one row of
    text ending "… F5"); the list keeps it whole."""
    long = "The model provider is rate limiting this workspace; " * 8
    raised = [
        update(
            {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limit reached " * 6, "description": long}
        )
    ]
    async with running_app(
        tmp_path, {"version": 2, "turns": [v2_turn(*raised)]}, size=(80, 24), notifications=True
    ) as run:
        await run.send("notices")
        await run.idle()
        await run.wait(lambda: bool(run.app.screen.query("Toast")), "the toast")
        await run.pilot.pause()
        [toast] = run.app.screen.query("Toast")
        assert toast.outer_size.height == 2, toast.outer_size
        assert "… F5" in screen_text(run)
        await run.pilot.press(NOTICES_KEY)
        await run.wait(lambda: isinstance(run.app.screen, NoticesScreen), "the notices list")
        assert long.strip() in rows(run.app)[0]


async def test_toasts_hide_no_answer_text_chips_or_prompt_at_80x24(tmp_path: Path) -> None:
    """Two notices under a long answer made two toasts over the answer's last rows and the prompt: now they are
    one toast (the weightier notice, "+1 more"), top right over the header, above the conversation's text."""
    answer = "".join(f"answer line {n} with some words to read\n\n" for n in range(30)) + "THE LAST LINE"
    raised = [
        update(
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": answer}, "messageId": "a1"}
        ),
        update({"sessionUpdate": "notice", "severity": "warning", "title": "Rate limit", "description": "At 80%."}),
        update({"sessionUpdate": "notice", "severity": "info", "title": "Indexed", "description": "All files."}),
    ]
    async with running_app(
        tmp_path, {"version": 2, "turns": [v2_turn(*raised)]}, size=(80, 24), notifications=True
    ) as run:
        await run.send("notices")
        await run.idle()
        await run.wait(lambda: bool(run.app.screen.query("Toast")), "the toast")
        await run.pilot.pause()
        await run.pilot.pause()
        toasts = list(run.app.screen.query("Toast"))
        assert len(toasts) == 1
        shown = str(toasts[0].render())
        assert "Rate limit (+1 more, F5)" in shown and "At 80%." in shown
        conversation = run.chat.conversation
        assert toasts[0].region.bottom <= conversation.content_region.y  # above every row of text
        assert "THE LAST LINE" in screen_text(run)


def test_toast_lines_cut_at_a_word_and_say_where_the_rest_is() -> None:
    title, message = toast_lines("Short title", "word " * 40, 37)
    assert title == "Short title" and message.endswith("… F5") and len(message) <= 37
    assert not message.removesuffix(" … F5").endswith("wor")  # cut at a word, not inside one
    assert toast_lines("Only a title", "", 37) == ("", "Only a title")
    assert toast_lines("x" * 100, "fits", 37)[0] == "x" * 36 + "…"
    assert toast_lines("x" * 100, "fits", 37, more=2) == ("x" * 22 + "… (+2 more, F5)", "fits")
