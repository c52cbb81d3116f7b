"""Issue 38: what a hostile agent could still do, each against the real app and the hostile agent, with its bound.

A plan of 100,000 entries, a flood of permission requests (the transcript grows with its length, not its
square), a permission option named with 100 KB among 50, a request that names an announced call by its id
alone (and one that names a call never announced), a command line with control characters, a background
list whose unannounced item is past the 200 kept, and an @-mention that leads outside the folder through a
link. (A hidden tab's bound is `tests/app/test_hidden_pump.py`'s.)
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from acp_tui.controller.controller import SessionController
from acp_tui.paths import transcripts_dir
from acp_tui.services.permission import MAX_OPTION_NAME, MAX_OPTIONS
from acp_tui.session.model import MAX_PLAN_ENTRIES, Message, Plan, SessionState
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.dialogs.outside_read import OutsideReadScreen
from acp_tui.ui.dialogs.permission import PermissionScreen
from acp_tui.ui.widgets.plan_view import PlanView
from tests.support.agents.hostile_agent import (
    ANSWER,
    BACKGROUND_GHOST,
    DANGER_PATH,
    DANGER_TITLE,
    DONE_MARKER,
    EDIT_NEW_LINE,
    HUGE_OPTION_COUNT,
    HUGE_PLAN_ENTRIES,
)
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.hostile import (
    SIZE,
    chat_of,
    hostile,
    make_launch,
    screen_text,
    session_ready,
    start_and_prompt,
    system_lines,
    typing_still_works,
    wait_for,
)
from tests.support.wait import armed, until


def answers(state: SessionState) -> list[Any]:
    """What the agent reported of the client's answers (its `ANSWER` lines), in order."""
    lines: list[Any] = []
    for entity in state.entities.values():
        if isinstance(entity, Message) and entity.key[0] == "agent_message":
            lines += [json.loads(line[len(ANSWER) :]) for line in entity.text.splitlines() if line.startswith(ANSWER)]
    return lines


def state_of(chat: ChatScreen) -> SessionState:
    assert chat.controller.session is not None
    return chat.controller.session.state


async def finished(pilot: Any, app: AcpApp, chat: ChatScreen) -> None:
    await wait_for(pilot, lambda: DONE_MARKER in screen_text(app), timeout=60, what="the done marker")
    await wait_for(pilot, lambda: not chat.status.values.busy, what="the turn to end")


# -- plans -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version,scale", [(2, 1.0), (1, 0.2)])
async def test_a_plan_of_100000_entries_keeps_500_shown_with_the_rest_counted(
    app_dirs: Path, tmp_path: Path, version: int, scale: float
) -> None:
    app = AcpApp(make_launch(hostile("huge_plan", version, scale), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await start_and_prompt(pilot, app)
        began = time.monotonic()
        await finished(pilot, app, chat)
        await typing_still_works(pilot, chat)
        # Three plans of 100,000 entries: the UI never saw more than 500 of one (it froze ~15 s for each before).
        assert time.monotonic() - began < 30
        count = int(HUGE_PLAN_ENTRIES * scale)
        plan = next(e for e in state_of(chat).entities.values() if isinstance(e, Plan))
        assert len(plan.plan.entries) == MAX_PLAN_ENTRIES  # type: ignore[union-attr]
        assert plan.more == count - MAX_PLAN_ENTRIES and plan.more_done == 0
        assert plan.plan.entries[0].content.endswith("… (entry cut at 1,000 characters)")  # type: ignore[union-attr]
        view = chat.query_one(PlanView)
        lines = view.text_lines()
        assert lines[0] == f"Plan 10/{count}"
        assert len(lines) == 1 + MAX_PLAN_ENTRIES + 1
        assert lines[-1] == f"… {count - MAX_PLAN_ENTRIES:,} more entries not shown"


# -- permission floods: the transcript grows with the flood, not its square ----------------------------------


async def flood_transcript_bytes(tmp_path: Path, scale: float, version: int = 2) -> tuple[int, int]:
    """(transcript bytes, requests answered) for a flood of `10,000 × scale` permission requests."""
    events = ControllerEvents()
    user = ScriptedUser([])  # every question answered "cancelled", one at a time
    ctl = SessionController(
        make_launch(hostile("permission_flood", version, scale), tmp_path), asker=user, listener=events
    )
    try:
        assert await ctl.start()
        ctl.submit("flood")
        await until(lambda: any(f"{ANSWER}" in line for line in _texts(ctl)), "the flood answered", timeout=120)
        await until(lambda: not ctl.busy, "the turn to end", timeout=30)
        answered = len(user.asked)
    finally:
        await ctl.shutdown()
    files = list(transcripts_dir().glob("*.jsonl"))
    return sum(f.stat().st_size for f in files), answered


def _texts(ctl: SessionController) -> list[str]:
    state = ctl.session.state if ctl.session is not None else SessionState()
    return [e.text for e in state.entities.values() if isinstance(e, Message) and e.key[0] == "agent_message"]


@pytest.mark.parametrize("version", [2, 1])
async def test_a_permission_flood_writes_a_transcript_linear_in_its_length(
    app_dirs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    small_dir, big_dir = tmp_path / "small", tmp_path / "big"
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(small_dir))
    small, small_answered = await flood_transcript_bytes(tmp_path, 0.1, version)
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(big_dir))
    big, big_answered = await flood_transcript_bytes(tmp_path, 1.0, version)
    assert (small_answered, big_answered) == (1_000, 10_000)  # every request asked, and answered once
    # 10,000 requests wrote 311 MB when each record restated every open id; now a few hundred bytes each.
    assert 8 <= big / small <= 12, (small, big)
    assert big < 10_000 * 500, big


# -- permission options ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [2, 1])
async def test_a_100kb_option_name_among_50_options_is_cut_and_the_rest_counted(
    app_dirs: Path, tmp_path: Path, version: int
) -> None:
    app = AcpApp(make_launch(hostile("huge_options", version), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await start_and_prompt(pilot, app)
        dialog = await armed(pilot, PermissionScreen)
        assert len(dialog.options) == MAX_OPTIONS and dialog.more_options == HUGE_OPTION_COUNT - MAX_OPTIONS
        assert len(dialog.options[0].name) < MAX_OPTION_NAME + 50
        text = screen_text(app)
        assert f"… {HUGE_OPTION_COUNT - MAX_OPTIONS} more options not shown" in text
        assert "… (name cut at 200" in text  # the note wraps onto the next row
        assert "esc reject" in text  # the key line is on screen, under every option
        assert dialog.query_one("#dialog").outer_size.height <= SIZE[1]
        await pilot.press("r")
        await finished(pilot, app, chat)
        assert answers(state_of(chat)) == [{"outcome": {"outcome": "selected", "optionId": "opt-reject"}}]


# -- the dialog names the call it approves -------------------------------------------------------------------


@pytest.mark.parametrize("version", [2, 1])
async def test_a_request_naming_an_announced_call_by_id_shows_that_call_and_an_unknown_id_says_so(
    app_dirs: Path, tmp_path: Path, version: int
) -> None:
    app = AcpApp(make_launch(hostile("hidden_call", version), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await start_and_prompt(pilot, app)
        first = await armed(pilot, PermissionScreen, what="the dialog about the delete")
        text = screen_text(app)
        assert DANGER_TITLE in text and DANGER_PATH in text and first.call is not None
        assert first.call.kind == "delete" and first.unknown_call is None
        await pilot.press("r")
        second = await armed(pilot, PermissionScreen, what="the dialog about the edit")
        assert second is not first
        assert "Edit .bashrc" in screen_text(app) and EDIT_NEW_LINE in screen_text(app)  # its diff
        await pilot.press("a")
        third = await armed(pilot, PermissionScreen, what="the dialog about an unknown call")
        assert third is not second and third.unknown_call == "never-announced"
        assert "unknown call: the agent names tool call 'never-announced', which it never announced" in screen_text(app)
        await pilot.press("r")
        await finished(pilot, app, chat)
        assert [a["outcome"]["optionId"] for a in answers(state_of(chat))] == ["no", "yes", "no"]


# -- command lines are shown as they run ---------------------------------------------------------------------


@pytest.mark.parametrize("version", [2, 1])
async def test_a_command_line_shows_its_control_characters_escaped(
    app_dirs: Path, tmp_path: Path, version: int
) -> None:
    app = AcpApp(make_launch(hostile("control_command", version), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await start_and_prompt(pilot, app)
        await finished(pilot, app, chat)
        text = screen_text(app)
        shown = "printf '\\x1b]0;pwned\\x07'\\tdone\\x1b[2J"
        assert text.count(shown) == (2 if version == 2 else 1), text  # the call's title, and v2's terminal card
        assert "\x1b" not in text


# -- background lists ---------------------------------------------------------------------------------------


async def test_an_unannounced_background_item_past_the_200_kept_is_still_caught(app_dirs: Path, tmp_path: Path) -> None:
    app = AcpApp(make_launch(hostile("background_flood"), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await start_and_prompt(pilot, app)
        await finished(pilot, app, chat)
        problems = [(p.reason, p.detail) for p in state_of(chat).problems]
        assert ("background work listed before it was announced", f"terminal bg-{BACKGROUND_GHOST}") in problems


# -- @-mentions that lead outside the folder ------------------------------------------------------------------


def linked_project(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose `pw` is a link to a file outside it; returns (project, the real file)."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("root:x:0:0\n")
    (project / "pw").symlink_to(secret)
    (project / "inside.txt").write_text("inside\n")
    (project / "in-link").symlink_to(project / "inside.txt")
    return project, secret.resolve()


@pytest.mark.parametrize("version", [2, 1])
async def test_a_mention_leading_outside_is_sent_marked_with_its_real_path_when_reads_are_allowed(
    app_dirs: Path, tmp_path: Path, version: int
) -> None:
    project, secret = linked_project(tmp_path)
    app = AcpApp(make_launch(hostile("echo_prompt", version), project, outside_reads="allow"), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = chat_of(app)
        await wait_for(pilot, lambda: session_ready(chat), what="session ready")
        chat.controller.submit("read @pw and @in-link")
        await finished(pilot, app, chat)
        got = answers(state_of(chat))
        assert {"type": "resource", "uri": secret.as_uri(), "text": "root:x:0:0\n"} in got  # named where it leads
        warned = [line for line in system_lines(chat) if "leads outside the session folder" in line]
        assert len(warned) == 1 and "@pw" in warned[0] and str(secret) in warned[0] and "⚠" in warned[0]
        assert str(secret) in screen_text(app)


@pytest.mark.parametrize("setting", ["ask", "refuse"])
async def test_a_mention_leading_outside_is_asked_or_refused_as_an_outside_read(
    app_dirs: Path, tmp_path: Path, setting: str
) -> None:
    project, secret = linked_project(tmp_path)
    app = AcpApp(make_launch(hostile("echo_prompt"), project, outside_reads=setting), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = chat_of(app)
        await wait_for(pilot, lambda: session_ready(chat), what="session ready")
        chat.controller.submit("read @pw")
        if setting == "ask":
            dialog = await armed(pilot, OutsideReadScreen, what="the outside-read dialog")
            assert dialog.read.mention and dialog.read.path == secret
            assert "Your @pw leads outside the session folder" in screen_text(app)
            assert str(secret) in screen_text(app)
            await pilot.press("n")
        await wait_for(
            pilot, lambda: any("not sent: @pw" in line for line in system_lines(chat)), what="the not-sent line"
        )
        assert answers(state_of(chat)) == []  # the agent got no prompt at all
        assert chat.controller.session is not None and chat.controller.session.state.submissions == {}
        await typing_still_works(pilot, chat)
