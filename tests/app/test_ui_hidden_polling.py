"""A hidden tab costs no CPU (issue 24): the "earlier entries" line of a long conversation polls whether the
user scrolled to it, and only while its screen is the one on the terminal (acp_tui/ui/chat/history_timeline.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from acp_tui.demo.store import StoredSession, write_sessions
from acp_tui.ui.chat.history_timeline import EarlierEntries
from acp_tui.ui.chat.screen import ChatScreen
from tests.support.demo_app import DemoRun, demo_app

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


def long_session(store: Path, project: Path) -> None:
    """300 entries: more than a session shows at once, so it opens under an "earlier entries" line."""
    updates: list[dict[str, Any]] = [
        {"sessionUpdate": "user_message", "messageId": f"u{turn}", "content": [{"type": "text", "text": f"q {turn}"}]}
        for turn in range(300)
    ]
    write_sessions(store, [(StoredSession("big", str(project), 2, "A long one"), updates)])


async def open_long(run: DemoRun, project: Path) -> tuple[ChatScreen, EarlierEntries]:
    chat = run.chat
    assert await chat.controller.sessions.open_session("big", cwd=str(project))
    await run.wait(lambda: chat.query(EarlierEntries), "the earlier line")
    return chat, chat.query_one(EarlierEntries)


async def test_the_earlier_line_polls_only_while_its_tab_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    project = tmp_path / "project"
    project.mkdir()
    long_session(store, project)
    monkeypatch.setenv("ACP_TUI_DEMO_STORE", str(store))
    checks: Counter[EarlierEntries] = Counter()
    check = EarlierEntries._check

    def counted(self: EarlierEntries) -> None:
        checks[self] += 1
        check(self)

    monkeypatch.setattr(EarlierEntries, "_check", counted)
    async with demo_app(tmp_path, 2) as run:
        first, line1 = await open_long(run, project)
        await run.wait(lambda: checks[line1] >= 2, "the shown tab's line polling")
        await run.pilot.press("ctrl+t")
        await run.wait(lambda: run.chat is not first, "a second tab")
        await run.ready()
        second, line2 = await open_long(run, project)
        hidden_at = checks[line1]
        await run.wait(lambda: checks[line2] >= 5, "the second tab's line polling")
        assert checks[line1] <= hidden_at + 1  # a tick already on its way when the tab was hidden, no more
        await run.pilot.press("alt+1")
        await run.wait(lambda: run.chat is first, "the first tab shown again")
        shown_at, line2_at = checks[line1], checks[line2]
        await run.wait(lambda: checks[line1] >= shown_at + 3, "the first tab's line polling again")
        assert checks[line2] <= line2_at + 1
        assert second.query_one(EarlierEntries) is line2  # the same line, paused, not rebuilt
