"""The protocol inspector (acp_tui/ui/browsers/inspector.py) over a frame log of 20,000 frames: bounded, filtered,
a frame shown as JSON on Enter, agent text never markup; opened by F8 in the app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input, Static, TextArea

from acp_tui.agent.frames import CAPACITY, FrameLog
from acp_tui.ui.browsers.inspector import FrameScreen, InspectorScreen
from tests.support.scripted_app import wait_until

pytestmark = pytest.mark.timeout(120)

MARKUP = "[bold red]not markup[/] \x1b[31m"


def _frames(count: int) -> FrameLog:
    log = FrameLog()
    for n in range(count):
        log.record("->", b'{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{}}' % n)
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"chunk {n} {MARKUP}"}}
        line = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}}
        log.record("<-", json.dumps(line).encode())
    return log


class _Host(App[None]):
    def __init__(self, log: FrameLog) -> None:
        super().__init__()
        self.log_under_test = log

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(InspectorScreen(self.log_under_test))


def _table(app: Any) -> DataTable[Any]:
    return app.screen.query_one(DataTable)


async def test_twenty_thousand_frames_keep_the_newest_ten_thousand_and_filter() -> None:
    log = _frames(10_000)  # 20,000 frames
    assert len(log) == CAPACITY and log.dropped == 10_000
    app = _Host(log)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        table = _table(app)
        assert table.row_count == CAPACITY
        summary = str(app.screen.query_one("#inspector-summary", Static).render())
        assert "10,000 older ones only in the log file" in summary
        # one-row filter fields, not Textual's 3-row boxes (the newcomer report of 2026-12-07)
        assert [field.region.height for field in app.screen.query(Input)] == [1, 1]
        app.screen.query_one("#inspector-method", Input).value = "session/update"
        await wait_until(pilot, lambda: table.row_count == CAPACITY // 2, "only the updates")
        app.screen.query_one("#inspector-text", Input).value = "chunk 9999 "
        await wait_until(pilot, lambda: table.row_count == 1, "one frame by its text")
        app.screen.query_one("#inspector-method", Input).value = "↩"
        await wait_until(pilot, lambda: table.row_count == 0, "no answers in this log")


async def test_enter_shows_the_frame_as_json_and_agent_text_stays_text() -> None:
    app = _Host(_frames(3))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        table = _table(app)
        assert table.cursor_row == table.row_count - 1  # newest last, and the cursor on it
        row = [str(cell) for cell in table.get_row_at(table.cursor_row)]
        assert row[2] == "← agent" and row[3] == "session/update · agent_message_chunk"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, FrameScreen), "the frame")
        text = app.screen.query_one(TextArea).text
        assert json.loads(text)["params"]["update"]["content"]["text"] == f"chunk 2 {MARKUP}"
        assert '"sessionUpdate": "agent_message_chunk"' in text  # indented JSON, the markup in it as typed
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "back to the list")


async def test_frames_arrive_while_open_and_problems_mark_them_and_closing_stops_listening() -> None:
    log = _frames(2)
    app = _Host(log)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        table = _table(app)
        log.record("<-", b"{not json")
        log.mark_last_received("unparseable line")
        await wait_until(pilot, lambda: table.row_count == 5, "the new frame")
        assert "⚑ not a JSON-RPC object; unparseable line" == str(table.get_row_at(4)[5])
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, InspectorScreen), "closed")
        assert log.listener is None


async def test_f8_in_the_app_shows_the_live_connection_and_the_palette_offers_it(tmp_path: Path) -> None:
    from acp_tui.launch_resolve import demo_argv
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.browsers.inspector import COMMAND_NAME, InspectorCommands
    from tests.support.scripted_app import make_launch, ready, submit

    app = AcpApp(make_launch(demo_argv(), tmp_path, env={"ACP_TUI_DEMO_SPEED": "0.02"}, name="demo"), arm_delay=0)
    async with app.run_test(size=(140, 40)) as pilot:
        chat = await ready(pilot, app)
        assert chat.controller.session is not None
        frames = chat.controller.session.frames
        assert frames.listener is None  # nothing listens (or renders) while the inspector is closed
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        table = _table(app)
        labels = [str(table.get_row_at(n)[3]) for n in range(table.row_count)]
        assert labels[:2] == ["initialize", "↩ initialize"], labels
        before = table.row_count
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is chat, "back to the chat")
        await submit(pilot, chat, "hello")
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector again")
        await wait_until(pilot, lambda: _table(app).row_count > before, "the new turn's frames")
        assert COMMAND_NAME in [entry.name for entry in InspectorCommands.ENTRIES]
        await app.action_quit_app()


async def test_typing_a_filter_rebuilds_the_table_once_typing_pauses_not_per_key() -> None:
    app = _Host(_frames(500))  # 1,000 frames
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        table = _table(app)
        screen.filter_delay = 3600.0  # the timer never fires in this test: only Enter applies the filter
        built = screen.rebuilds
        assert app.focused is table
        await pilot.press("slash")  # from the list to the text filter
        assert screen.focused is screen.query_one("#inspector-text", Input)  # (app.focused is narrowed above)
        await pilot.press(*"chunk 499 ")
        await pilot.pause()
        assert screen.rebuilds == built and table.row_count == 1_000  # ten keys, no rebuild yet
        await pilot.press("enter")
        await wait_until(pilot, lambda: table.row_count == 1, "the filter applied by Enter")
        assert screen.rebuilds == built + 1
        assert app.focused is table  # Enter goes on to the table
        # with the real delay the filter applies by itself once typing pauses (the timer, reset per key)
        screen.filter_delay = 0.15
        screen.query_one("#inspector-text", Input).focus()
        await pilot.press("end", *["backspace"] * 5)  # "chunk" matches every update
        await wait_until(pilot, lambda: table.row_count == 500, "the filter applied by the timer")


async def test_a_new_filter_keeps_the_selected_frame_selected_and_a_following_cursor_follows() -> None:
    app = _Host(_frames(50))  # frames 1..100: odd ones prompts, even ones updates
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        table = _table(app)
        table.move_cursor(row=39)  # frame 40, an update
        assert str(table.get_row_at(table.cursor_row)[0]) == "40"
        method = screen.query_one("#inspector-method", Input)
        method.value = "session/update"
        await wait_until(pilot, lambda: table.row_count == 50, "only the updates")
        assert str(table.get_row_at(table.cursor_row)[0]) == "40"  # still the frame the user looked at
        method.value = "session/prompt"
        await wait_until(pilot, lambda: str(table.get_row_at(0)[3]) == "session/prompt", "only the prompts")
        assert table.row_count == 50
        assert str(table.get_row_at(table.cursor_row)[0]) == "39"  # gone: the nearest older frame shown
        method.value = ""
        await wait_until(pilot, lambda: table.row_count == 100, "every frame")
        assert str(table.get_row_at(table.cursor_row)[0]) == "39"
        table.move_cursor(row=table.row_count - 1)  # on the newest: the table follows
        method.value = "session/update"
        await wait_until(pilot, lambda: table.row_count == 50, "only the updates again")
        assert str(table.get_row_at(0)[3]) == "session/update · agent_message_chunk"
        assert table.cursor_row == table.row_count - 1


async def test_enter_opens_a_frame_from_a_sealed_page_and_a_mark_on_a_sealed_frame_shows() -> None:
    """The log keeps older frames in sealed, compressed pages (acp_tui/agent/frames.py): Enter on one still shows it,
    and a problem marked on a received frame whose page was sealed (a sent frame came between) reaches its row."""
    log = FrameLog(page=4)
    for n in range(18):
        log.record("<-", json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"n": n}}).encode())
    app = _Host(log)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        table = _table(app)
        log.record("<-", b"{not json")  # frame 19
        log.record("->", b'{"jsonrpc":"2.0","id":1,"method":"fs/x","params":{}}')  # frame 20 seals their page
        assert log._pages[-1].frames is None
        log.mark_last_received("unparseable line")
        await wait_until(pilot, lambda: table.row_count == 20, "the new frames")
        await wait_until(pilot, lambda: "unparseable line" in str(table.get_row_at(18)[5]), "the mark on frame 19")
        assert str(table.get_row_at(18)[5]) == "⚑ not a JSON-RPC object; unparseable line"
        assert "1 marked ⚑" in str(app.screen.query_one("#inspector-summary", Static).render())
        table.move_cursor(row=2)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, FrameScreen), "frame 3")
        assert json.loads(app.screen.query_one(TextArea).text) == {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"n": 2},
        }


async def test_an_update_shows_its_kind_and_the_filters_find_a_kind_and_the_answers() -> None:
    """Every update read `session/update`: finding a `tool_call_update` took the text filter; answers took `↩`."""
    log = FrameLog()
    log.record("->", b'{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}')
    tool = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}
    for update in ({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}, tool):
        line = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}}
        log.record("<-", json.dumps(line).encode())
    log.record("<-", b'{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":7}}}')
    log.record("<-", b'{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}')
    app = _Host(log)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        table = _table(app)
        labels = [str(table.get_row_at(n)[3]) for n in range(table.row_count)]
        assert labels == [
            "session/prompt",
            "session/update · agent_message_chunk",
            "session/update · tool_call_update",
            "session/update",  # a kind that is not text: the method alone
            "↩ session/prompt",
        ]
        app.screen.query_one("#inspector-method", Input).value = "tool_call_update"
        await wait_until(pilot, lambda: table.row_count == 1, "the one tool call update")
        app.screen.query_one("#inspector-method", Input).value = "answer"
        await wait_until(pilot, lambda: [str(table.get_row_at(0)[3])] == ["↩ session/prompt"], "the answer")
        assert table.row_count == 1
