"""Steering and the account in the app, against the scripted agent playing Claude's extensions.

Ctrl+Enter and Alt+Enter in the prompt steer while the agent works (Enter still queues); `s` on a
queued prompt promotes it; without the capability the keys queue and a notice says so. The account
shows in the header and on F4; the plan windows as the status bar's meter, `⚠` near the limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.session.account import AccountState, LimitWindow
from acp_tui.ui.chat.steer_control import NOT_OFFERED
from acp_tui.ui.timeline.user_message import STEERED_TEXT, UserMessageView
from acp_tui.ui.widgets.limit_meter import account_lines, meter
from acp_tui.ui.widgets.queued_prompts import QueuedPrompt
from acp_tui.ui.widgets.session_header import SessionHeader
from tests.support.app_run import AppRun, running_app, screen_text

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

STEER = "_session/steering"
INIT: dict[str, Any] = {
    "protocolVersion": 1,
    "agentCapabilities": {"loadSession": False, "promptCapabilities": {}, "_meta": {"authStatus": {}}},
    "authMethods": [],
    "_meta": {"steering": {"supported": True}},
}
ACCOUNT = {
    "jsonrpc": "2.0",
    "method": "_auth/status_update",
    "params": {"authStatus": {"kind": "account", "label": "Claude Max", "account": {"email": "ada@example.com"}}},
}


def rate(kind: str, utilization: float, status: str = "allowed") -> dict[str, Any]:
    meta = {"_claude/rateLimit": {"status": status, "rateLimitType": kind, "utilization": utilization}}
    body = {"sessionUpdate": "usage_update", "used": 1000, "size": 200000, "_meta": meta}
    return {"op": "update", "update": body}


def script(release: Path, *, offered: bool = True, steps: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    init = INIT if offered else {k: v for k, v in INIT.items() if k != "_meta"}
    work = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "working"}}
    return {
        "version": 1,
        "initialize": init,
        "responses": {STEER: {"result": {"outcome": "injected"}}},
        "after_session_new": [{"op": "send", "message": ACCOUNT}] if offered else [],
        "turns": [
            {
                "match": "start",
                "steps": [
                    {"op": "update", "update": work},
                    *steps,
                    {"op": "wait_for_file", "path": str(release), "timeout": 30},
                    {"op": "respond_prompt", "stopReason": "end_turn"},
                ],
            }
        ],
    }


async def working(run: AppRun) -> None:
    await run.send("start")
    await run.wait(lambda: run.chat.controller.state.foreground.busy, "the turn to run")


def steered(run: AppRun) -> list[UserMessageView]:
    return [v for v in run.views(UserMessageView) if v.has_class("-steered")]


@pytest.mark.asyncio
@pytest.mark.parametrize("key", ["ctrl+enter", "alt+enter"])
async def test_the_steer_keys_send_into_the_running_turn(tmp_path: Path, key: str) -> None:
    release = tmp_path / "release"
    async with running_app(tmp_path, script(release)) as run:
        await working(run)
        run.chat.prompt_input.load_text("use tabs, not spaces")
        await run.pilot.press(key)
        await run.wait(lambda: len(steered(run)) == 1, "the steered message")
        [view] = steered(run)
        assert view.text == "use tabs, not spaces" and view.status_text == STEERED_TEXT
        assert [m["params"]["prompt"][0]["text"] for m in run.received(STEER)] == ["use tabs, not spaces"]
        assert run.chat.prompt_input.text == "" and not run.chat.controller.queue.items
        assert STEERED_TEXT in screen_text(run)
        run.chat.prompt_input.load_text("later")
        await run.pilot.press("enter")  # Enter still queues
        await run.wait(lambda: run.chat.controller.queue.items == ("later",), "the queued prompt")
        assert len(run.received(STEER)) == 1
        release.touch()
        await run.wait(lambda: run.prompts_received() == ["start", "later"], "the queue to go out")


@pytest.mark.asyncio
async def test_s_on_a_queued_prompt_promotes_it_to_a_steer(tmp_path: Path) -> None:
    release = tmp_path / "release"
    async with running_app(tmp_path, script(release)) as run:
        await working(run)
        await run.send("first queued")
        await run.send("second queued")
        await run.wait(lambda: len(run.chat.query(QueuedPrompt)) == 2, "two queued prompts")
        run.chat.query(QueuedPrompt).last().focus()
        await run.pilot.press("s")
        await run.wait(lambda: [v.text for v in steered(run)] == ["second queued"], "the promoted steer")
        assert run.chat.controller.queue.items == ("first queued",)
        release.touch()
        await run.wait(lambda: run.prompts_received() == ["start", "first queued"], "the rest of the queue")


@pytest.mark.asyncio
async def test_without_steering_the_key_queues_and_says_so(tmp_path: Path) -> None:
    release = tmp_path / "release"
    async with running_app(tmp_path, script(release, offered=False), notifications=True) as run:
        await working(run)
        run.chat.prompt_input.load_text("wait your turn")
        await run.pilot.press("ctrl+enter")
        await run.wait(lambda: run.chat.controller.queue.items == ("wait your turn",), "the queued prompt")
        await run.wait(lambda: any(n.message == NOT_OFFERED for n in run.app._notifications), "the notice")
        assert run.received(STEER) == []
        release.touch()
        await run.wait(lambda: run.prompts_received() == ["start", "wait your turn"], "the queue to go out")


@pytest.mark.asyncio
async def test_the_account_and_the_plan_meter_show_with_a_warning_near_the_limit(tmp_path: Path) -> None:
    release = tmp_path / "release"
    windows = (rate("five_hour", 0.42), rate("seven_day", 0.81))
    async with running_app(tmp_path, script(release, steps=windows)) as run:
        header = run.chat.query_one(SessionHeader)
        await run.wait(lambda: header.values.account == "Claude Max", "the account")
        assert "Claude Max" in screen_text(run).splitlines()[0]
        await working(run)
        await run.wait(lambda: run.chat.status.values.limits == "5h 42% 7d 81% ⚠", "the meter")
        assert run.chat.status.values.limits_warn
        assert "5h 42% 7d 81% ⚠" in screen_text(run).splitlines()[-1]
        lines = account_lines(run.chat.controller.state.account)
        assert lines[0] == "Account: Claude Max · ada@example.com"
        assert lines[1:] == ("Limit 5h: 42% used", "Limit 7d: 81% used ⚠")
        assert run.chat.config.tools[-3:] == lines  # what F4 lists under "About the agent"
        release.touch()


@pytest.mark.asyncio
async def test_a_narrow_bar_keeps_the_worst_window(tmp_path: Path) -> None:
    release = tmp_path / "release"
    windows = (rate("five_hour", 0.3), rate("seven_day", 0.95, "allowed_warning"))
    async with running_app(tmp_path, script(release, steps=windows), size=(80, 24)) as run:
        await working(run)
        await run.wait(lambda: run.chat.status.values.limits_short == "7d 95% ⚠", "the meter")
        bottom = screen_text(run).splitlines()[-1]
        assert "7d 95% ⚠" in bottom or "5h 30% 7d 95% ⚠" in bottom
        release.touch()


def test_no_windows_no_meter_and_a_rejected_window_reads_limit() -> None:
    state = AccountState()
    assert meter(state) is None and account_lines(state) == ()
    state.windows["five_hour"] = LimitWindow("five_hour", None, "rejected", 1_000_000_000.0 + 3600)
    shown = meter(state)
    assert shown is not None and (shown.text, shown.warn) == ("5h limit ⚠", True)
    [line] = account_lines(state, now=1_000_000_000.0)
    assert line.startswith("Limit 5h: status rejected, resets ") and line.endswith("(in 1h 0m) ⚠")
