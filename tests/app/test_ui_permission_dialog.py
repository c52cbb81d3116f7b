"""The permission dialog: keys pick the agent's options, slips are ignored, agent text stays inert."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Button, Static

from acp_tui.protocol.codec import decode_permission_request
from acp_tui.protocol.methods import V1RequestPermissionRequest
from acp_tui.session.v1_adapter import v2_permission_request
from acp_tui.ui.dialogs.permission import PermissionChoice, PermissionRequest, PermissionScreen, dialog_rows
from acp_tui.ui.timeline.diff_view import DiffView
from tests.support.permission import FOUR_OPTIONS, DialogApp, v2

ARM = 0.2


V1_REQUEST: dict[str, Any] = {
    "sessionId": "s1",
    "toolCall": {
        "toolCallId": "call_1",
        "title": "Write hello.txt",
        "kind": "edit",
        "status": "pending",
        "content": [{"type": "diff", "path": "/p/hello.txt", "oldText": "hi\n", "newText": "hello\n"}],
        "locations": [{"path": "/p/hello.txt"}],
    },
    "options": FOUR_OPTIONS,
}


def v1(**changes: Any) -> PermissionRequest:
    """A v1 request as the dialog gets it: through the v1 adapter, v2-shaped."""
    request = decode_permission_request(json.dumps({**V1_REQUEST, **changes}).encode(), 1)
    assert isinstance(request, V1RequestPermissionRequest)
    return v2_permission_request(request)


class Harness:
    """Pushes one dialog and records its result."""

    def __init__(self, app: DialogApp, pilot: Pilot[None]) -> None:
        self.app = app
        self.pilot = pilot
        self.results: list[PermissionChoice | None] = []
        self.screen: PermissionScreen | None = None

    async def open(self, request: PermissionRequest, *, arm: bool = True, **kwargs: Any) -> PermissionScreen:
        self.screen = PermissionScreen(request, arm_delay=kwargs.pop("arm_delay", ARM), **kwargs)
        self.app.push_screen(self.screen, callback=self.results.append)
        await self.pilot.pause()
        if arm:
            await self.wait_armed()
        return self.screen

    async def wait_armed(self) -> None:
        assert self.screen is not None
        for _ in range(500):
            if self.screen.armed:
                return
            await self.pilot.pause(0.01)
        raise AssertionError("dialog never armed")

    async def result(self) -> PermissionChoice | None:
        for _ in range(200):
            if self.results:
                return self.results[0]
            await self.pilot.pause(0.01)
        raise AssertionError("dialog gave no result")


async def run(request: PermissionRequest, keys: list[str], **kwargs: Any) -> PermissionChoice | None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        await harness.open(request, **kwargs)
        await pilot.press(*keys)
        return await harness.result()


@pytest.mark.parametrize("make", [v2, v1], ids=["v2", "v1"])
@pytest.mark.parametrize(("key", "option_id"), [("a", "once"), ("A", "always"), ("r", "no"), ("R", "never")])
async def test_letter_keys_pick_first_option_of_kind(make: Any, key: str, option_id: str) -> None:
    assert await run(make(), [key]) == PermissionChoice(option_id=option_id)


@pytest.mark.parametrize("make", [v2, v1], ids=["v2", "v1"])
async def test_arrows_and_enter_choose_focused_button(make: Any) -> None:
    # Nothing is focused on arrival; down three times, up once -> the second option.
    assert await run(make(), ["down", "down", "down", "up", "enter"]) == PermissionChoice(option_id="always")


async def test_arrows_wrap_and_tab_moves() -> None:
    assert await run(v2(), ["up", "enter"]) == PermissionChoice(option_id="never")
    assert await run(v2(), ["tab", "tab", "tab", "enter"]) == PermissionChoice(option_id="no")


async def test_unknown_kind_gets_a_button_chosen_by_number() -> None:
    options = [*FOUR_OPTIONS[:2], {"optionId": "later", "name": "Ask me later", "kind": "_defer"}]
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2(options=options))
        labels = [str(button.label) for button in screen.query(Button)]
        assert labels[2].startswith("3 Ask me later")
        assert screen.query(Button)[2].variant == "default"
        assert [b.variant for b in screen.query(Button)][:2] == ["success", "success"]
        await pilot.press("3")
        assert await harness.result() == PermissionChoice(option_id="later")


async def test_unknown_kind_reachable_by_arrows() -> None:
    options = [{"optionId": "x", "name": "Something new", "kind": "_new_kind"}]
    assert await run(v2(options=options), ["down", "enter"]) == PermissionChoice(option_id="x")


async def test_number_keys_pick_any_option_in_order() -> None:
    assert await run(v1(), ["4"]) == PermissionChoice(option_id="never")


@pytest.mark.parametrize("make", [v2, v1], ids=["v2", "v1"])
async def test_escape_picks_reject_once(make: Any) -> None:
    assert await run(make(), ["escape"]) == PermissionChoice(option_id="no")


async def test_escape_without_reject_once_cancels_turn() -> None:
    options = [FOUR_OPTIONS[0], FOUR_OPTIONS[3]]
    choice = await run(v2(options=options), ["escape"])
    assert choice == PermissionChoice(option_id=None, cancel_turn=True)


async def test_letter_for_missing_kind_does_nothing() -> None:
    options = [FOUR_OPTIONS[0], FOUR_OPTIONS[2]]
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2(options=options))
        await pilot.press("A", "R", "9")
        await pilot.pause()
        assert harness.results == [] and app.screen is screen
        await pilot.press("r")
        assert await harness.result() == PermissionChoice(option_id="no")


async def test_keys_before_arm_delay_are_ignored() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        # A longer delay here so the stray keys surely land while arming, even on a slow machine.
        screen = await harness.open(v2(), arm=False, arm_delay=1.0)
        assert not screen.armed
        assert "ignored" in str(screen.query_one("#hint", Static).render())
        assert all(button.disabled for button in screen.query(Button))
        await pilot.press("enter", "a")
        await pilot.pause()
        assert harness.results == []
        assert app.screen is screen
        await harness.wait_armed()
        assert not any(button.disabled for button in screen.query(Button))
        assert "ignored" not in str(screen.query_one("#hint", Static).render())
        await pilot.press("a")
        assert await harness.result() == PermissionChoice(option_id="once")


async def test_click_before_arm_delay_is_ignored() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        # A longer delay so the click surely lands while arming, even on a slow, shared machine.
        screen = await harness.open(v2(), arm=False, arm_delay=1.0)
        first = screen.query(Button).first()
        await pilot.click(first)
        await pilot.pause()
        assert harness.results == [] and app.screen is screen
        await harness.wait_armed()
        await pilot.click(first)
        assert await harness.result() == PermissionChoice(option_id="once")


HOSTILE_OPTIONS = [
    {"optionId": "styled", "name": "[bold red]x[/]", "kind": "allow_once"},
    {"optionId": "click", "name": "[@click=app.quit]q[/]", "kind": "reject_once"},
    {"optionId": "osc", "name": "ok\x1b]52;c;aGk=\x07", "kind": "_x"},
]


async def test_hostile_strings_render_literally_and_trigger_nothing() -> None:
    request = v2(
        title="[ Allow always ]",
        description="\x1b]52;c;aGk=\x07[link=https://evil]see[/link]",
        options=HOSTILE_OPTIONS,
        subject={"type": "command", "command": "rm -rf / \x1b[2J[bold]x[/]", "cwd": "/tmp"},
    )
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(request)
        labels = [str(button.label) for button in screen.query(Button)]
        assert labels[0] == "1 [bold red]x[/]  a"
        assert labels[1] == "2 [@click=app.quit]q[/]  r"
        assert labels[2] == "3 ok"
        assert str(screen.query_one("#title", Static).render()) == "[ Allow always ]"
        body = "\n".join(str(w.render()) for w in screen.query("#body Static"))
        assert "[link=https://evil]see[/link]" in body
        assert "$ rm -rf / \\x1b[2J[bold]x[/]" in body  # what runs, its control character written out
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "aGk=" not in svg
        # The title that looks like a button is no button: only the three options are.
        assert len(screen.query(Button)) == 3
        await pilot.click("#title")
        await pilot.pause()
        assert harness.results == []
        # Clicking the option whose name is a click action picks that option and runs nothing.
        await pilot.click(screen.query(Button)[1])
        assert await harness.result() == PermissionChoice(option_id="click")
        assert app.is_running


async def test_close_because_dismisses_without_option() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2(), arm=False)
        screen.close_because("the agent withdrew the request")
        choice = await harness.result()
        assert choice is not None and choice.option_id is None and not choice.cancel_turn
        assert choice.reason == "the agent withdrew the request"
        await pilot.pause()
        assert app.screen is not screen
        # Keys after closing do not reach a second answer.
        await pilot.press("a")
        await pilot.pause()
        assert len(harness.results) == 1


async def test_queue_position_shown_and_updated() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2(), position=1, total=3)
        assert "request 1 of 3" in screen.queue_label
        screen.set_queue(2, 4)
        assert "request 2 of 4" in screen.queue_label
        screen.set_queue(1, 1)
        assert "request" not in screen.queue_label


async def test_scroll_keys_scroll_the_conversation_below() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        chat = app.query_one("#chat", VerticalScroll)
        chat.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        bottom = chat.scroll_y
        assert bottom > 0
        await harness.open(v2(), arm=False)
        # Scrolling decides nothing, so it works while the dialog is still arming.
        await pilot.press("pageup")
        await pilot.pause()
        for _ in range(100):
            if chat.scroll_y < bottom:
                break
            await pilot.pause(0.01)
        after_page = chat.scroll_y
        assert after_page < bottom
        await pilot.press("ctrl+down")
        for _ in range(100):
            if chat.scroll_y > after_page:
                break
            await pilot.pause(0.01)
        assert chat.scroll_y > after_page
        assert harness.results == []


async def test_v1_diff_and_locations_are_shown() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v1())
        assert str(screen.query_one("#title", Static).render()) == "Write hello.txt"
        from acp_tui.ui.timeline.diff_view import DiffView

        lines = screen.query_one(DiffView).content_lines()
        assert lines == ["/p/hello.txt", "1   - hi", "  1 + hello"]  # the path once, then numbered lines
        body = "\n".join(str(w.render()) for w in screen.query("#body Static"))
        assert "/p/hello.txt" not in body  # the location is the diff's own file: not listed again
        # a location with a line number is still worth its own row
        screen.dismiss(None)
        await pilot.pause()
        screen = await harness.open(
            v1(toolCall={**V1_REQUEST["toolCall"], "locations": [{"path": "/p/hello.txt", "line": 1}]})
        )
        body = "\n".join(str(w.render()) for w in screen.query("#body Static"))
        assert "↳ /p/hello.txt:1" in body


async def test_dialog_fits_small_terminal() -> None:
    app = DialogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2())
        await pilot.pause()
        dialog = screen.query_one("#dialog")
        assert (
            dialog.region.bottom <= 23 and dialog.region.height == dialog_rows(24) == 14
        )  # the status bar's row is clear
        # Every option button and the hint line are inside the dialog, on screen.
        for widget in [*screen.query(Button), screen.query_one("#hint")]:
            assert dialog.region.contains_region(widget.region)
        # The long diff scrolls inside the dialog.
        assert screen.query_one("#body", VerticalScroll).max_scroll_y > 0


def test_snapshot_dialog(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        screen = PermissionScreen(v2(), arm_delay=0.05, position=1, total=2)
        pilot.app.push_screen(screen)
        for _ in range(500):
            if screen.armed:
                break
            await pilot.pause(0.01)
        await pilot.pause()

    assert snap_compare(DialogApp(), terminal_size=(100, 30), run_before=run_before)


async def test_enter_right_after_arming_decides_nothing() -> None:
    """No option is focused when the dialog arms, so a stray Enter cannot approve."""
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2())
        await pilot.press("enter")
        await pilot.pause(0.05)
        assert harness.results == [] and screen.is_current
        await pilot.press("r")
        assert await harness.result() == PermissionChoice(option_id="no")


async def test_keys_while_arming_restart_the_countdown() -> None:
    """Someone still typing when the dialog appears cannot decide it until they pause."""
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        # Generous delay: a key every ~0.05 s must never leave a gap this long, even on a loaded machine.
        screen = await harness.open(v2(), arm=False, arm_delay=1.0)
        loop = asyncio.get_running_loop()
        typing_until = loop.time() + 2.5  # well over two arm delays of continuous typing
        while loop.time() < typing_until:
            await pilot.press("x")
            assert not screen.armed, "the dialog armed while keys were still arriving"
            await pilot.pause(0.05)
        await harness.wait_armed()
        await pilot.press("a")
        assert await harness.result() == PermissionChoice(option_id="once")


async def test_each_key_is_said_once_and_the_hint_fits_at_80_columns() -> None:
    """The newcomer report (2026-12-07, nits): `1 Allow once  a …` and then `a allow  A always …` in the hint,
    which at 80 columns was cut at `PgUp/PgDn`."""
    app = DialogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2())
        await pilot.pause()
        hint = screen.query_one("#hint", Static)
        said = str(hint.render())
        assert said == "↑↓ ⏎ choose  esc reject  PgUp/PgDn scroll chat"
        assert len(said) <= hint.content_size.width  # whole, not cut
        labels = [str(button.label) for button in screen.query(Button)]
        assert labels == [
            "1 Allow once  a",
            "2 Yes, allow all edits during this session  A",
            "3 Reject  r",
            "4 Never  R",
        ]


def body_text(screen: PermissionScreen) -> str:
    return "\n".join(str(widget.render()) for widget in screen.query("#body Static"))


async def test_a_write_of_the_same_text_says_no_change_not_raw_json(tmp_path: Any) -> None:
    """Claude Code's second `Write` of a file that already held its text came with no diff, and the dialog
    showed the raw input, `{"file_path": …, "content": …}` (newcomer report, 2026-12-07)."""
    target = tmp_path / "hello.txt"
    target.write_text("hello\n")
    call = {"toolCallId": "w1", "title": "Write hello.txt", "kind": "edit"}
    same = {**call, "rawInput": {"file_path": str(target), "content": "hello\n"}}
    changed = {**call, "rawInput": {"file_path": str(target), "content": "hello there\n"}}
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        harness = Harness(app, pilot)
        screen = await harness.open(v2(subject={"type": "tool_call", "toolCall": same}))
        shown = body_text(screen)
        assert f"no change to {target}: it already holds this text" in shown and '"content"' not in shown
        screen.dismiss(None)
        await pilot.pause()
        screen = await harness.open(v2(subject={"type": "tool_call", "toolCall": changed}))
        await pilot.pause()
        diff = screen.query_one(DiffView).full_text()
        assert "\n-hello\n+hello there" in diff and '"content"' not in body_text(screen)
