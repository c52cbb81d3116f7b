"""Reads outside the session folder on screen (issue 21): the timeline marks them `⚠ … — outside the
session folder` with the real path, names with control characters show them escaped, and with
`outside_reads = "ask"` a guarded dialog asks first."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from acp_tui.services.files import OutsideRead
from acp_tui.session.model import SessionState
from acp_tui.transcript.markdown import access_line as markdown_line
from acp_tui.transcript.writer import _access_value
from acp_tui.ui.dialogs.outside_read import OutsideReadScreen
from acp_tui.ui.timeline.file_access import FileAccessView, access_line
from tests.support.outside_write import PROJECT, DialogApp, _access, wait_for
from tests.support.widgets import WidgetApp, screen_text


def test_an_outside_read_is_marked_with_its_real_path() -> None:
    state = SessionState()

    def line(**fields: Any) -> str:
        return access_line(_access(state, kind="read", **fields)).plain

    assert line(path="/etc/passwd", outside=True) == "⚠ read /etc/passwd — outside the session folder"
    assert line(path="/etc/passwd", requested_path=f"{PROJECT}/link", outside=True) == (
        "⚠ read /etc/passwd — outside the session folder (asked for link)"
    )
    assert line(
        path="/etc/shadow",
        outside=True,
        status="refused",
        detail='outside the session folder: turned off (outside_reads = "refuse")',
    ) == ('⊘ read refused /etc/shadow — outside the session folder: turned off (outside_reads = "refuse")')
    assert line(path="/etc/x", outside=True, status="failed", detail="not found") == (
        "✗ read failed /etc/x — outside the session folder; not found"
    )
    assert line(path=f"{PROJECT}/src/a.py") == "▤ read src/a.py"  # inside: as before


def test_control_characters_in_a_name_are_shown_escaped() -> None:
    state = SessionState()
    access = _access(state, kind="read", path="/tmp/a\x1b[2Jb\nc\u202e.txt", outside=True)
    assert access_line(access).plain == "⚠ read /tmp/a\\x1b[2Jb\\nc\\u202e.txt — outside the session folder"


def test_the_transcript_says_outside_too() -> None:
    state = SessionState()
    value = _access_value(_access(state, kind="read", path="/etc/passwd", outside=True))
    assert value.outside and markdown_line(value) == "⚠ read `/etc/passwd` — **outside the session folder**"
    inside = _access_value(_access(state, kind="read", path=f"{PROJECT}/a.py"))
    assert not inside.outside and markdown_line(inside) == "▤ read `a.py`"


async def test_the_line_is_a_warning_in_the_timeline() -> None:
    state = SessionState()
    view = FileAccessView(_access(state, kind="read", path="/etc/passwd", outside=True))
    app = WidgetApp(view)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert "⚠ read /etc/passwd — outside the session folder" in screen_text(app)
        assert view.has_class("-problem")


def _read(path: str = "/etc/passwd", requested: str | None = None) -> OutsideRead:
    return OutsideRead(path=Path(path), cwd=PROJECT, requested=requested or path)


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["y"], [True]),
        (["n"], [False]),
        (["escape"], [False]),
        (["enter"], []),
        (["right", "enter"], [True]),
    ],
)
async def test_the_read_dialog_decides_once_armed(keys: list[str], expected: list[bool]) -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = OutsideReadScreen(_read(), arm_delay=0.2)
        app.push_screen(screen, callback=app.results.append)
        await pilot.press("y")  # before it is armed: ignored
        assert app.results == []
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        await pilot.press(*keys)
        await pilot.pause()
        assert app.results == expected


async def test_the_read_dialog_names_the_real_path_escaped_and_what_was_asked() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        home = os.path.expanduser("~")
        screen = OutsideReadScreen(_read(f"{home}/.ssh/id\x1b]0;x\x07", requested=f"{PROJECT}/key"), arm_delay=0.05)
        app.push_screen(screen, callback=app.results.append)
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        text = screen_text(app)
        assert "~/.ssh/id\\x1b]0;x\\x07" in text
        assert "asked for /work/project/key" in text and "⚠ outside" in text
        screen.close_because("withdrawn")
        await pilot.pause()
        assert app.results == [False]


async def _open_armed(pilot: Any) -> None:
    app = pilot.app
    assert isinstance(app, DialogApp)
    screen = OutsideReadScreen(_read(requested=f"{PROJECT}/config/passwd-link"), arm_delay=0.05)
    app.push_screen(screen, callback=app.results.append)
    await wait_for(pilot, lambda: screen.armed, "the dialog to arm")


def test_snapshot_outside_read_80x24(snap_compare: Any) -> None:
    assert snap_compare(DialogApp(), terminal_size=(80, 24), run_before=_open_armed)
