"""The real app against the hostile agent: launch, private dirs, screen readers, typing."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from acp_tui.paths import transcripts_dir
from acp_tui.transcript import render_markdown
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.timeline.system_line import SystemLine
from tests.support.agents import hostile_agent_argv
from tests.support.launches import make_launch as make_launch  # the tests of hostile agents import it from here
from tests.support.wait import until

SIZE = (120, 45)


@pytest.fixture
def app_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fresh data/state/config dirs so the app never touches the real user dirs; returns the data dir."""
    data = tmp_path / "data"
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(data))
    monkeypatch.setenv("ACP_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ACP_TUI_CONFIG_DIR", str(tmp_path / "config"))
    return data


async def wait_for(pilot: Pilot[Any], condition: Callable[[], object], timeout: float = 15.0, what: str = "") -> None:
    """Poll `condition` between pauses until true; fail with `what` after `timeout` seconds."""
    await until(condition, what, pilot=pilot, timeout=timeout)


def screen_text(app: AcpApp) -> str:
    """The current screen as plain text, exactly the characters the terminal would get (no styles)."""
    console = Console(
        width=app.size.width,
        height=app.size.height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)


def chat_of(app: AcpApp) -> ChatScreen:
    chat = app.chat
    assert chat is not None
    return chat


def system_lines(chat: ChatScreen) -> list[str]:
    return [str(line.render()) for line in chat.query(SystemLine)]


def session_ready(chat: ChatScreen) -> bool:
    return (
        chat.controller.session is not None
        and chat.controller.session.session_id is not None
        and chat.status.values.state == "idle"
    )


async def type_text(pilot: Pilot[Any], text: str) -> None:
    await pilot.press(*[c if c != " " else "space" for c in text])


async def send_prompt(pilot: Pilot[Any], chat: ChatScreen, text: str) -> None:
    chat.prompt_input.focus()
    await type_text(pilot, text)
    await pilot.press("enter")


async def typing_still_works(pilot: Pilot[Any], chat: ChatScreen) -> None:
    """The app answers keys: text typed into the prompt arrives; then the prompt is cleared again."""
    chat.prompt_input.focus()
    chat.prompt_input.load_text("")
    await type_text(pilot, "still alive")
    await wait_for(pilot, lambda: chat.prompt_input.text == "still alive", what="typed text")
    chat.prompt_input.load_text("")


def transcript_markdown() -> str:
    files = sorted(transcripts_dir().glob("*.jsonl"))
    assert files, "no transcript was written"
    return render_markdown(files[-1])


def hostile(scenario: str, version: int = 2, scale: float = 1.0) -> list[str]:
    return hostile_agent_argv(scenario, version, scale)


async def start_and_prompt(pilot: Pilot[Any], app: AcpApp, text: str = "go") -> ChatScreen:
    chat = chat_of(app)
    await wait_for(pilot, lambda: session_ready(chat), what="session ready")
    await send_prompt(pilot, chat, text)
    return chat
