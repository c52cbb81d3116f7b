"""The outside-the-folder dialog and the file-access lines (docs/protocol.md §10.2).

The dialog names the resolved path and shows the diff, ignores keys until armed (the permission
dialog's typing guard), focuses nothing on arrival, and shows agent text as inert data. Snapshots pin
80×24 and 160×50 with acp-dark (docs/style.md, rule 12); regenerate with `pytest --snapshot-update`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button

from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch, StateUpdate, ToolCallLocation, ToolCallUpdate
from acp_tui.services.files import OutsideWrite
from acp_tui.session.local_events import FileAccessed
from acp_tui.session.model import FILE_ACCESS, SessionState
from acp_tui.session.reducer import apply
from acp_tui.ui.dialogs.outside_write import OutsideWriteScreen, shown_path
from acp_tui.ui.timeline.diff_view import DiffView
from acp_tui.ui.timeline.file_access import FileAccessView, access_line
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.outside_write import PROJECT, DialogApp, _access, outside_write, wait_for
from tests.support.widgets import WidgetApp, card_line, screen_text


async def decide(keys: list[str], write: OutsideWrite | None = None) -> tuple[list[bool | None], OutsideWriteScreen]:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.ask(write or outside_write())
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        assert screen.focused is None  # nothing focused on arrival: a stray Enter decides nothing
        await pilot.press(*keys)
        await pilot.pause()
        return list(app.results), screen


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["y"], [True]),
        (["a"], [True]),
        (["n"], [False]),
        (["r"], [False]),
        (["escape"], [False]),
        (["enter"], []),  # nothing focused: Enter does nothing
        (["right", "enter"], [True]),
        (["right", "right", "enter"], [False]),
    ],
)
async def test_keys_decide_once_armed(keys: list[str], expected: list[bool]) -> None:
    results, _ = await decide(keys)
    assert results == expected


async def test_keys_are_ignored_until_armed_and_typing_keeps_it_disarmed() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        # Generous: a key every ~0.1 s must never leave a gap this long, even on a loaded machine.
        screen = app.ask(outside_write(), arm_delay=1.0)
        await pilot.pause()
        for _ in range(8):  # someone still typing a prompt: every key restarts the count
            await pilot.press("y")
            await pilot.pause(0.1)
            assert not screen.armed and app.results == []
        await pilot.press("enter", "n", "escape")
        assert app.results == []
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        assert all(not button.disabled for button in screen.query(Button))
        await pilot.press("n")
        await pilot.pause()
        assert app.results == [False]


async def test_clicks_are_ignored_until_armed() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.ask(outside_write(), arm_delay=0.3)
        await pilot.pause()
        await pilot.click("#allow")
        assert app.results == []
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        await pilot.click("#allow")
        await pilot.pause()
        assert app.results == [True]


async def test_the_dialog_names_the_resolved_path_and_shows_the_diff() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.ask(outside_write())
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        text = screen_text(app)
        assert "The agent wants to overwrite this file:" in text and "/etc/hosts" in text
        assert "outside the session folder /work/project" in text
        assert "+ 10.0.0.5 build-box" in text  # numbered, signed lines
        assert len(screen.query(DiffView)) == 1


async def test_a_new_file_too_large_to_diff_and_an_unoffered_write() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        big = "x\n" * 400_000
        screen = app.ask(
            outside_write(
                path=PROJECT / "src" / "gen.txt",
                created=True,
                old_text=None,
                new_text=big,
                diff=None,
                reason="not_offered",
            )
        )
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        text = screen_text(app)
        assert "wants to create this file:" in text and "src/gen.txt" in text  # relative inside the folder
        assert "did not offer this agent file access" in text
        assert "too large to show here (400000 lines, 800,000 bytes)" in text


def test_shown_path_is_escaped_relative_or_home() -> None:
    home = Path(os.path.expanduser("~"))
    assert shown_path(outside_write(path=home / ".bashrc")) == "~/.bashrc"
    assert shown_path(outside_write(path=PROJECT / "a" / "b.txt")) == "a/b.txt"
    hostile = outside_write(path=Path("/tmp/\x1b]52;c;aGk=\x07evil\u202e.txt"))
    assert shown_path(hostile) == "/tmp/\\x1b]52;c;aGk=\\x07evil\\u202e.txt"  # what the name really holds


async def test_agent_text_in_the_path_is_inert() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.ask(outside_write(path=Path("/tmp/[bold]x[/bold] [@click=app.quit]y[/].txt"), diff=None))
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        assert "/tmp/[bold]x[/bold] [@click=app.quit]y[/].txt" in screen_text(app)


# -- snapshots -------------------------------------------------------------------------------------------


async def _open_armed(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, DialogApp)
    screen = app.ask(outside_write(), arm_delay=0.05)
    await wait_for(pilot, lambda: screen.armed, "the dialog to arm")


def test_snapshot_outside_write_80x24(snap_compare: Any) -> None:
    assert snap_compare(DialogApp(), terminal_size=(80, 24), run_before=_open_armed)


def test_snapshot_outside_write_160x50(snap_compare: Any) -> None:
    assert snap_compare(DialogApp(), terminal_size=(160, 50), run_before=_open_armed)


# -- file-access lines and the tool card ------------------------------------------------------------------


def test_access_lines() -> None:
    state = SessionState()

    def line(**fields: Any) -> str:
        return access_line(_access(state, **fields)).plain

    assert line(kind="read", path=f"{PROJECT}/src/app.py") == "▤ read src/app.py"
    assert line(kind="read", path=f"{PROJECT}/src/app.py", first_line=10, line_count=51) == (
        "▤ read src/app.py (lines 10–60)"
    )
    assert line(kind="read", path=f"{PROJECT}/a", first_line=3, line_count=1) == "▤ read a (line 3)"
    assert line(kind="read", path=f"{PROJECT}/new.md", detail="does not exist: read as empty") == (
        "▤ read new.md — does not exist: read as empty"
    )
    assert line(kind="write", path="/etc/hosts", status="refused", detail="refused: the user declined") == (
        "⊘ write refused /etc/hosts — refused: the user declined"
    )
    assert line(kind="read", path="/tmp/x\x1b[31m\u202e.txt", status="failed", detail="bad\x1b]0;t\x07") == (
        "✗ read failed /tmp/x\\x1b[31m\\u202e.txt — bad"
    )  # a name's controls shown escaped, a detail's removed


def _write_fields(path: str = f"{PROJECT}/notes/hello.txt") -> dict[str, Any]:
    patch = "diff --git a/notes/hello.txt b/notes/hello.txt\n--- /dev/null\n+++ b/notes/hello.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"
    diff = Diff(
        changes=[DiffChange(operation="add", path="notes/hello.txt")], patch=DiffPatch(format="git_patch", text=patch)
    )
    return {"kind": "write", "path": path, "created": True, "diff": diff, "added": 2, "removed": 0}


async def test_a_write_shows_its_line_and_diff_in_the_timeline() -> None:
    state = SessionState()
    view = FileAccessView(_access(state, **_write_fields()))
    app = WidgetApp(view)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "✎ created notes/hello.txt (+2)" in text and "  2 + world" in text
        assert text.count("notes/hello.txt") == 1  # the line names the file: the diff starts with its lines
        view.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "world" not in screen_text(app)
        assert "+world" in view.full_text()


async def test_a_tool_card_lists_the_files_of_its_call() -> None:
    state = SessionState()
    apply(state, StateUpdate(state="running"))
    path = f"{PROJECT}/notes/hello.txt"
    apply(
        state,
        ToolCallUpdate(
            tool_call_id="w1",
            title="Writing to notes/hello.txt",
            kind="edit",
            status="in_progress",
            locations=[ToolCallLocation(path=path)],
        ),
    )
    call = state.tool_call("w1")
    assert call is not None
    card = ToolCallCard(call)
    app = WidgetApp(card)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        apply(state, FileAccessed(kind="read", path=path, cwd=str(PROJECT), detail="does not exist: read as empty"))
        card.apply_fields(frozenset({"files"}))
        apply(state, FileAccessed(cwd=str(PROJECT), **_write_fields(path)))
        card.apply_fields(frozenset({"files"}))
        await pilot.pause()
        text = screen_text(app)
        assert "▤ read notes/hello.txt — does not exist: read as empty" in text
        assert "✎ created notes/hello.txt (+2)" in text and "  2 + world" in text
        assert card_line(app, card) == "◐ ✎ Writing to notes/hello.txt ▾"  # the title names the path: once
        assert not any(key[0] == FILE_ACCESS for key in state.entities)  # in the card, not in the timeline
        assert "✎ created notes/hello.txt (+2)" in card.full_text()
