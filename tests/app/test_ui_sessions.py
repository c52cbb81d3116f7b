"""The session browser and everything it leads to, with pilots.

The browser alone runs against a scripted `SessionSource` (paging, filtering, delete with confirmation,
transcript-only rows, hostile titles, 10,000 sessions); the whole app runs against the demo agent in both
versions: a new session, the browser, a past session opened with its history in a fresh timeline, a
large history shown tail first, the transcript viewer and the Markdown export.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets import Static

from acp_tui.agent.dialect import SessionAbilities
from acp_tui.controller.sessions import MAX_LIST_PAGES, MAX_LISTED_SESSIONS, SessionPage, listing
from acp_tui.demo.store import StoredSession, write_sessions
from acp_tui.paths import saves_dir
from acp_tui.ui.browsers.sessions import HINTS, SHORTER_HINTS, ConfirmDelete, SessionBrowser
from acp_tui.ui.browsers.transcript_view import ExportScreen, TranscriptScreen
from acp_tui.ui.chat.history_timeline import EarlierEntries, HistoryTimeline
from acp_tui.ui.chat.session_actions import SessionCommands
from acp_tui.ui.chat.terminal_title import WindowTitle, osc_title, window_title
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.user_message import UserMessageView
from acp_tui.ui.widgets.session_list import SessionList, age_text
from tests.support.demo_app import VERSIONS, DemoRun, demo_app
from tests.support.sessions_browser import NOW, Host, Source, settle

pytestmark = [pytest.mark.timeout(90), pytest.mark.usefixtures("_private_dirs")]
HOSTILE = "\x1b]0;owned\x07[bold red]Fix[/] \x1b[2J\u202eevil"


async def test_pages_load_as_the_user_scrolls_and_a_bad_cursor_is_said() -> None:
    source = Source(total=230, page_size=50, fail_cursor="200")
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: len(browser.rows) >= 50 and not browser.loading, "the first pages")
        assert source.cursors == [None, "50"]  # the screen's worth and the page after it, no more
        view = browser.query_one(SessionList)
        for _ in range(12):
            await pilot.press("pagedown")
        await settle(pilot, lambda: len(browser.rows) == 200, "pages up to the bad cursor")
        await settle(pilot, lambda: browser.problem is not None, "the refused page")
        assert source.cursors == [None, "50", "100", "150", "200"]
        status = str(browser.query_one("#sessions-status", Static).render())
        assert "invalid cursor" in status and "200 sessions" in status
        assert view.selected is not None and view.cursor > 50  # the cursor went down with the pages
        await pilot.press("ctrl+home")
        assert view.cursor == 0 and app.list_text()[0].startswith(
            "▌● Session 0"
        )  # the open one, newest first, under the cursor bar


async def test_filter_as_you_type_and_open_with_enter() -> None:
    source = Source(total=40, titles={7: "Fix the login bug", 23: "Login page styling"})
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: len(browser.rows) == 40, "the sessions")
        await pilot.press(*"login")
        view = browser.query_one(SessionList)
        assert [browser.rows[i].session_id for i in view.shown] == ["s00007", "s00023"]
        assert "2 of 40" in str(browser.query_one("#sessions-status", Static).render())
        await pilot.press("down", "enter")
        await settle(pilot, lambda: app.chosen, "the browser to close")
    assert app.chosen[0] is not None and app.chosen[0].session_id == "s00023"


async def test_delete_asks_first_and_only_when_the_agent_offers_it() -> None:
    source = Source(total=5)
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: len(browser.rows) == 5, "the sessions")
        await pilot.press("tab", "down", "d")  # on the list: d deletes
        await settle(pilot, lambda: isinstance(app.screen, ConfirmDelete), "the confirmation")
        await pilot.press("n")
        await settle(pilot, lambda: app.screen is browser, "the browser again")
        assert source.deleted == []
        await pilot.press("d")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmDelete), "the confirmation")
        await pilot.press("y")
        await settle(pilot, lambda: len(browser.rows) == 4, "the row to go")
        assert source.deleted == ["s00001"]
        await pilot.press("up", "d")  # the open session is not deleted
        await pilot.pause()
        assert app.screen is browser and source.deleted == ["s00001"]
        source.abilities = SessionAbilities(list=True, load=True)
        browser.abilities = source.abilities
        await pilot.press("down", "d")
        await pilot.pause()
        assert app.screen is browser and source.deleted == ["s00001"]  # not offered: never asked


async def test_transcript_only_rows_open_the_transcript(tmp_path: Path) -> None:
    from acp_tui.protocol.v2 import TextContent
    from acp_tui.session.changes import EntityAdded
    from acp_tui.session.model import USER_MESSAGE, Message, SessionState
    from acp_tui.transcript import TranscriptWriter

    state = SessionState()
    message = Message((USER_MESSAGE, "m1"))
    message.content.append(TextContent(text="what did we decide yesterday?"))
    state.entities[message.key] = message
    path = tmp_path / "old.jsonl"
    writer = TranscriptWriter(path, label="old-session")
    writer.note("agent demo; session old-session")
    writer.write_changes(state, [EntityAdded(message.key, 0)])
    writer.close()
    source = Source(total=3, abilities=SessionAbilities())  # an agent that can neither list nor load
    source.transcripts = [
        listing("old-session", source.cwd, "Yesterday's plan", NOW - timedelta(days=1), listed=False, transcript=path)
    ]
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: browser.rows and not browser.loading, "the transcripts")
        assert [r.session_id for r in browser.rows] == ["old-session"]
        assert browser.query_one("#sessions-filter").region.height == 1  # a one-row field, not a 3-row box
        assert "transcript" in app.list_text()[0]
        assert "the agent does not list its sessions" in str(browser.query_one("#sessions-status", Static).render())
        await pilot.press("enter")
        await settle(
            pilot,
            lambda: isinstance(app.screen, TranscriptScreen) and app.screen.markdown is not None,
            "the transcript",
        )
        viewer = app.screen
        assert isinstance(viewer, TranscriptScreen) and not viewer.can_open
        # it covers the list's box exactly: no frame peeking out around it (`╭╭─ title ──╮─╮`, report of 2026-12-07)
        assert viewer.query_one("#transcript-dialog").region == browser.query_one("#sessions-dialog").region
        await pilot.press("e")
        await settle(
            pilot,
            lambda: isinstance(app.screen, ExportScreen) and app.screen.query("#export-path"),
            "the export question",
        )
        target = tmp_path / "out.md"
        field_ = app.screen.query_one("#export-path")
        assert field_.region.height == 1
        # the chat's default (Downloads, else the data folder's saved/), never the session's folder: a repository
        assert field_.value == str(saves_dir() / "old.md")  # type: ignore[attr-defined]
        assert not field_.value.startswith(source.cwd)  # type: ignore[attr-defined]
        field_.value = str(target)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot, target.exists, "the file")
        assert target.read_text() == viewer.markdown
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is browser, "the browser again")
        assert app.chosen == []


async def test_hostile_titles_are_shown_literally() -> None:
    source = Source(total=2, titles={1: HOSTILE})
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: len(browser.rows) == 2, "the sessions")
        line = app.list_text()[1]
        assert "[bold red]Fix[/]" in line and "evil" in line
        assert not any(ch in line for ch in "\x1b\x07\u202e")
    assert window_title(HOSTILE, "demo") == "[bold red]Fix[/] evil — demo"
    sequence = osc_title(HOSTILE)
    assert sequence.startswith("\x1b]2;") and sequence.endswith("\x1b\\") and sequence.count("\x1b") == 2


async def test_columns_line_up_whether_a_row_is_open_tagged_or_not(tmp_path: Path) -> None:
    transcript = listing(
        "t00001",
        "/home/user/project",
        "Only a transcript",
        NOW - timedelta(days=2),
        listed=False,
        transcript=tmp_path / "t.jsonl",
    )
    source = Source(total=2, transcripts=[transcript])  # s00000 is the open one, s00001 plain
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, lambda: len(app.browser.rows) == 3, "the sessions")
        lines = app.list_text()[:3]
        assert lines[0].rstrip().endswith("open") and lines[2].rstrip().endswith("transcript")
        # the age is right-aligned just before the folder: one folder column means one age column too
        assert len({line.index("/home/user/project") for line in lines}) == 1, lines


def test_window_title_is_saved_set_and_restored() -> None:
    written: list[str] = []

    class Driver:
        def write(self, data: str) -> None:
            written.append(data)

    title = WindowTitle()
    title.show(Driver(), "Fix the bug", "Claude Agent")
    title.show(Driver(), "Fix the bug", "Claude Agent")  # unchanged: nothing written
    title.show(Driver(), None, "Claude Agent")
    assert written == ["\x1b[22;2t", "\x1b]2;Fix the bug — Claude Agent\x1b\\", "\x1b[23;2t"]
    title.show(None, "headless", "x")
    assert len(written) == 3


async def test_ten_thousand_sessions_open_and_filter() -> None:
    """10,000 rows load and filter to the one that matches (the speed is bench/session_history.py's, not a test's)."""
    source = Source(total=10_000, page_size=10_000, titles={4242: "the needle"})
    app = Host(source)
    async with app.run_test(size=(120, 40)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: len(browser.rows) == 10_000, "ten thousand sessions", timeout=20)
        browser.filter_input.value = "needle"
        view = browser.query_one(SessionList)
        await settle(pilot, lambda: [browser.rows[i].session_id for i in view.shown] == ["s04242"], "the filter")


def test_ages_read_like_a_person_would_say_them() -> None:
    assert age_text(NOW - timedelta(seconds=5), NOW) == "just now"
    assert age_text(NOW - timedelta(minutes=5), NOW) == "5 min ago"
    assert age_text(NOW - timedelta(days=40), NOW) == (NOW - timedelta(days=40)).astimezone().strftime("%Y-%m-%d")
    assert age_text(None, NOW) == ""


# --- the whole app against the demo agent ---------------------------------------------------------------


def user_texts(run: DemoRun) -> list[str]:
    return [view.message.text for view in run.views(UserMessageView) if view.message is not None]


@VERSIONS
async def test_new_session_then_open_the_first_with_its_history(tmp_path: Path, version: int) -> None:
    async with demo_app(tmp_path, version) as run:
        await run.turn("the first prompt")
        first = run.chat.controller.sessions.current_session_id
        run.chat.action_sessions("new")
        await run.wait(lambda: run.chat.controller.sessions.current_session_id not in (None, first), "a new session")
        await run.idle()
        await run.wait(lambda: not run.views(UserMessageView), "a fresh timeline")
        run.chat.action_sessions("browse")
        await run.wait(lambda: isinstance(run.app.screen, SessionBrowser), "the browser")
        browser = run.app.screen
        assert isinstance(browser, SessionBrowser)
        await run.wait(lambda: browser.rows and not browser.loading, "the sessions listed")
        assert [row.session_id for row in browser.rows] == [first], "the new session, never prompted, is no row"
        await run.pilot.press(*"first prompt")
        await run.wait(lambda: len(browser.query_one(SessionList).shown) == 1, "the filter")
        await run.pilot.press("enter")
        await run.wait(lambda: run.chat.controller.sessions.current_session_id == first, "the first session to open")
        await run.idle()
        assert user_texts(run) == ["the first prompt"]  # replayed once into a fresh timeline
        assert run.views(AgentMessageView)
        assert run.chat.query_one("#header").values.session_title == "the first prompt"  # type: ignore[attr-defined]
        await run.turn("and on we go")
        assert user_texts(run)[-1] == "and on we go"


async def test_a_large_history_shows_its_end_first_and_the_rest_on_the_way_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    project = tmp_path / "project"
    project.mkdir()
    updates: list[dict[str, Any]] = []
    for turn in range(300):
        updates.append(
            {
                "sessionUpdate": "user_message",
                "messageId": f"u{turn}",
                "content": [{"type": "text", "text": f"question {turn}"}],
            }
        )
        updates.append(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": f"a{turn}",
                "content": {"type": "text", "text": f"answer {turn}"},
            }
        )
    write_sessions(store, [(StoredSession("big", str(project), 2, "A long one"), updates)])
    monkeypatch.setenv("ACP_TUI_DEMO_STORE", str(store))
    async with demo_app(tmp_path, 2) as run:
        assert await run.chat.controller.sessions.open_session("big", cwd=str(project))
        await run.idle()
        timeline = run.chat.pump.timeline
        assert isinstance(timeline, HistoryTimeline)
        conversation = run.chat.conversation
        # the replay is over: the view comes to rest at its newest entry, following, never left mid-history (the
        # anchor is taken a callback after the first overflow, so wait for it rather than read one frame)
        await run.wait(
            lambda: (
                conversation.max_scroll_y > 0
                and conversation.is_anchored
                and conversation.scroll_y == conversation.max_scroll_y
            ),
            "the history laid out at its end",
        )
        assert conversation.following
        shown = user_texts(run)
        assert shown[-1] == "question 299" and len(shown) < 40 and timeline.hidden > 500
        earlier = run.views(EarlierEntries)
        assert len(earlier) == 1
        before = timeline.hidden
        run.chat.conversation.scroll_home(animate=False)  # the user scrolls up to the top
        await run.wait(lambda: timeline.hidden < before, "earlier entries")
        await run.idle()
        more = user_texts(run)
        assert len(more) > len(shown) and more[-len(shown) :] == shown and more[-1] == "question 299"
        assert run.chat.conversation.scroll_y > 0  # the view stayed on what the user was reading


async def test_export_from_the_palette_writes_the_conversation(tmp_path: Path) -> None:
    async with demo_app(tmp_path, 2) as run:
        await run.turn("export me please")
        run.chat.action_sessions("export")
        await run.wait(
            lambda: isinstance(run.app.screen, ExportScreen) and run.app.screen.query("#export-path"),
            "the export question",
        )
        screen = run.app.screen
        assert isinstance(screen, ExportScreen)
        target = tmp_path / "chat.md"
        screen.query_one("#export-path").value = str(target)  # type: ignore[attr-defined]
        await run.pilot.press("enter")
        await run.wait(target.exists, "the Markdown file")
        text = target.read_text()
        assert "export me please" in text and '"ev"' not in text  # a chat log, not the records
        assert any("saved to" in message for _title, message, _severity in run.toasts)
        assert SessionCommands is not None


async def test_resume_without_an_id_opens_the_browser_once_the_agent_is_up(tmp_path: Path) -> None:
    from dataclasses import replace

    from acp_tui.ui.app import AcpApp
    from tests.support.demo_app import demo_launch

    project = tmp_path / "project"
    project.mkdir()
    app = AcpApp(replace(demo_launch(project, 2), pick_session=True), arm_delay=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, SessionBrowser), "the browser at start")
        browser = app.screen
        assert isinstance(browser, SessionBrowser)
        await settle(pilot, lambda: browser.abilities.list and not browser.loading, "the agent's list")
        # The agent lists the session it started for the visit, untitled; never prompted, it is no row (m7).
        assert browser.rows == []
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, SessionBrowser), "the chat again")


async def test_sessions_never_prompted_are_not_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first-use report's m7: every start that sent no prompt left an `(untitled)` row. The demo lists every
    session it started (its store is shared by the runs, as a real agent's is); ours are indexed as they start."""
    monkeypatch.setenv("ACP_TUI_DEMO_STORE", str(tmp_path / "store"))
    async with demo_app(tmp_path, 2) as run:
        unused = run.chat.controller.sessions.current_session_id
        sessions = run.chat.controller.sessions
        run.chat.action_sessions("new")
        await run.wait(lambda: sessions.current_session_id not in (None, unused), "a second session")
        await run.idle()
        await run.turn("the only prompt")
        prompted = sessions.current_session_id
        run.chat.action_sessions("new")
        await run.wait(lambda: sessions.current_session_id not in (None, unused, prompted), "a third session")
        await run.idle()
        listed = await sessions.list_sessions()
        assert {unused, prompted} <= {row.session_id for row in listed.sessions}, "the agent lists all three"
        run.chat.action_sessions("browse")
        await run.wait(lambda: isinstance(run.app.screen, SessionBrowser), "the browser")
        browser = run.app.screen
        assert isinstance(browser, SessionBrowser)
        await run.wait(lambda: browser.rows and not browser.loading, "the sessions listed")
        assert [(row.session_id, row.title) for row in browser.rows] == [(prompted, "the only prompt")]
        assert "untitled" not in run.screen_text()


@dataclass
class EndlessSource(Source):
    """An agent whose pages never run out: the same cursor again (`repeat`), or a new one with no rows."""

    repeat: bool = True

    async def list_sessions(self, cursor: str | None = None, *, all_dirs: bool = False) -> SessionPage:
        self.cursors.append(cursor)
        if self.repeat:
            return SessionPage(self.rows()[:3], "again")
        return SessionPage([], f"page-{len(self.cursors)}")


@pytest.mark.parametrize("repeat", [True, False], ids=["same-cursor", "empty-pages"])
async def test_a_cursor_that_never_ends_stops_the_paging_and_says_so(repeat: bool) -> None:
    """Issue 21: a `nextCursor` that never changed was asked for ~3,000 times in 10 s, no rows drawn."""
    source = EndlessSource(total=3, repeat=repeat)
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: browser.paging.stopped is not None and not browser.loading, "paging to stop")
        asked = len(source.cursors)
        await pilot.pause(0.2)
        assert len(source.cursors) == asked  # and it stays stopped
        if repeat:
            assert source.cursors == [None, "again"]  # the repeat is seen on the second answer
        else:
            assert asked == MAX_LIST_PAGES
        assert len(browser.rows) == 3 if repeat else not browser.rows
        status = str(browser.query_one("#sessions-status", Static).render())
        assert "the agent sent a page cursor again" in status if repeat else "the agent kept sending pages" in status


async def test_a_hundred_thousand_sessions_are_capped_quickly() -> None:
    source = Source(total=100_000, page_size=25_000)
    app = Host(source)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: browser.paging.stopped is not None, "the cap", timeout=60)
        assert len(browser.rows) == MAX_LISTED_SESSIONS and source.cursors == [None]
        status = str(browser.query_one("#sessions-status", Static).render())
        assert f"the agent kept sending sessions; showing the first {MAX_LISTED_SESSIONS:,}" in status


@pytest.mark.parametrize("width", [80, 120])
async def test_the_key_hint_fits_the_footer(width: int) -> None:
    """The key hint was cut at 80 columns: a shorter wording is shown where the long one does not fit."""
    app = Host(Source(total=3))
    async with app.run_test(size=(width, 24)) as pilot:
        browser = app.browser
        await settle(pilot, lambda: len(browser.rows) == 3 and not browser.loading, "the sessions")
        hints = browser.query_one("#sessions-hints", Static)
        await settle(pilot, lambda: str(hints.render()) in {HINTS, *SHORTER_HINTS}, "the hint")
        await pilot.pause()
        shown = str(hints.render())
        footer = browser.query_one("#sessions-footer")
        status = browser.query_one("#sessions-status", Static)
        assert len(shown) <= hints.size.width and status.region.right <= hints.region.x, (shown, hints.size)
        assert hints.region.right <= footer.region.right
        line = next(strip.text for strip in app.screen._compositor.render_strips() if "⏎ open" in strip.text)
        assert shown in line and "Esc" in shown
        if width >= 120:
            assert shown == HINTS


async def test_a_followed_conversation_folds_its_oldest_entries_and_builds_them_again_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long turn keeps a few screens built while the user follows its end (issue 27): the oldest
    entries fold into the "earlier" line and come back, in order, when the user scrolls up."""
    from acp_tui.ui.chat.history_timeline import LIVE

    store = tmp_path / "store"
    project = tmp_path / "project"
    project.mkdir()
    updates: list[dict[str, Any]] = []
    for turn in range(300):
        updates.append(
            {
                "sessionUpdate": "user_message",
                "messageId": f"u{turn}",
                "content": [{"type": "text", "text": f"question {turn}"}],
            }
        )
    write_sessions(store, [(StoredSession("big", str(project), 2, "A long one"), updates)])
    monkeypatch.setenv("ACP_TUI_DEMO_STORE", str(store))
    async with demo_app(tmp_path, 2) as run:
        assert await run.chat.controller.sessions.open_session("big", cwd=str(project))
        await run.idle()
        timeline = run.chat.pump.timeline
        assert isinstance(timeline, HistoryTimeline)
        conversation = run.chat.conversation
        # Laid out means overflowing and anchored: the anchor is taken a callback after the first overflow, and a
        # scroll before it would be undone by it.
        await run.wait(lambda: conversation.max_scroll_y > 0 and conversation.is_anchored, "the history laid out")
        conversation.scroll_home(animate=False)  # the user reads above the end
        await run.wait(lambda: not conversation.following and conversation.scroll_y == 0, "the user at the top")
        assert timeline.show_earlier(LIVE) == LIVE
        await run.idle()
        revealed = user_texts(run)
        assert len(revealed) > LIVE
        assert timeline.trim() == 0  # not following: nothing folds under the reader's eyes
        conversation.follow()
        folded = timeline.trim()
        await run.idle()
        shown = user_texts(run)
        assert folded > 0 and len(shown) <= LIVE and shown == revealed[-len(shown) :]
        assert timeline.hidden == 300 - len(shown)
        conversation.scroll_home(animate=False)
        await run.wait(lambda: len(user_texts(run)) > len(shown), "the folded entries again")
        await run.idle()
        again = user_texts(run)
        assert again == [f"question {turn}" for turn in range(300 - len(again), 300)]


async def test_a_burst_mounts_only_its_newest_entries_and_the_followed_end_is_built_back_once_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame that brings hundreds of entries (the app fell behind a fast agent, issue 27) mounts at most
    `BURST` of its newest; once no frame builds anything for a poll, the followed end is built back up to
    `LIVE`, in order, without leaving the end."""
    from acp_tui.protocol.v2 import ToolCallUpdate
    from acp_tui.session.coalesce import coalesce
    from acp_tui.session.reducer import apply
    from acp_tui.ui.chat import history_timeline
    from acp_tui.ui.chat.history_timeline import BURST, LIVE
    from acp_tui.ui.timeline.tool_call import ToolCallCard

    # The timeline's clock stands still until the burst has been looked at: "quiet" is a time since a frame
    # last built anything, and a loaded machine must not make the test's own waits look quiet.
    clock = [time.monotonic()]
    monkeypatch.setattr(history_timeline, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    async with demo_app(tmp_path, 2) as run:
        await run.idle()
        timeline = run.chat.pump.timeline
        assert isinstance(timeline, HistoryTimeline)
        conversation = run.chat.conversation
        state = run.chat.controller.state

        def frame(first_id: int, count: int) -> int:
            """One frame of `count` finished tool calls, as the pump applies it."""
            changes: list[Any] = []
            for number in range(first_id, first_id + count):
                call = ToolCallUpdate(tool_call_id=f"c{number}", title=f"Read r{number}", status="completed")
                changes += apply(state, call)
            for change in coalesce(changes):
                timeline.apply(change)
            return timeline.trim()

        def titles() -> list[str]:
            return [card.header_text() for card in run.views(ToolCallCard)]

        frame(0, 40)
        await run.wait(lambda: conversation.max_scroll_y > 0 and conversation.following, "the view following")
        frame(40, 300)
        frame(340, 100)  # the next frames come before Textual has removed what the one before folded
        frame(440, 100)
        await run.idle()
        assert titles() == [f"✓ ⚙ Read r{number}" for number in range(540 - BURST, 540)]
        clock[0] += 2 * history_timeline.POLL  # now no frame has built anything for a poll
        await run.wait(lambda: len(titles()) == LIVE, "the followed end built back")
        assert conversation.following
        assert titles() == [f"✓ ⚙ Read r{number}" for number in range(540 - LIVE, 540)]
        assert timeline.hidden == 541 - LIVE  # the demo's greeting and the oldest calls
