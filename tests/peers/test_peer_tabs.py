"""Tabs (issue 24) with the official TypeScript SDK example agent: one agent process per tab.

The SDK's example agent takes about four seconds to ask its permission (a second between each step), so
tab 1's question arrives while tab 2 is shown: it waits for tab 1 (`⚠` in the bar, nothing over tab 2)
and opens when tab 1 is shown with Alt+1. Ctrl+PageDown goes back, Ctrl+W closes an idle tab and stops its
agent, Ctrl+Q ends every tab's agent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.agent.session import AgentSession
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.dialogs.permission import PermissionScreen, request_title
from acp_tui.ui.timeline.agent_message import AgentMessageView
from tests.support.peers import TsSdkPeers
from tests.support.scripted_app import (
    ARM_DELAY,
    SIZE,
    armed_dialog,
    isolate_user_dirs,
    make_launch,
    ready,
    submit,
    wait_until,
)

#: The example agent's question, and what it says after each answer.
QUESTION = "Modifying critical configuration file"
ALLOWED = "I've successfully updated the configuration"
REJECTED = "I'll skip the configuration update"
#: Its turn is five one-second steps; a loaded machine may take longer.
TURN = 30.0


@pytest.fixture(autouse=True)
def _user_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)


def chat(app: AcpApp, number: int) -> ChatScreen:
    return app.tabs.tabs[number - 1].screen


def session_of(app: AcpApp, number: int) -> AgentSession:
    session = chat(app, number).controller.session
    assert session is not None
    return session


def bar_line(app: AcpApp) -> str:
    """The top line of the terminal: the tab bar while there are two tabs."""
    return app.screen._compositor.render_strips()[0].text


def said(screen: ChatScreen) -> str:
    return "\n".join(w.text for w in screen.conversation.entries if isinstance(w, AgentMessageView))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def new_tab(pilot: Pilot[int], app: AcpApp, count: int) -> ChatScreen:
    await pilot.press("ctrl+t")
    await wait_until(pilot, lambda: len(app.tabs.tabs) == count, f"tab {count}")
    return await ready(pilot, app)


async def test_two_tabs_each_with_the_sdk_agent(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    launch = make_launch(ts_sdk_peers.agent, tmp_path, env=peer_home_env, name="sdk-agent")
    app = AcpApp(launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        first = await ready(pilot, app)
        await submit(pilot, first, "first question")
        await wait_until(pilot, lambda: first.controller.busy, "tab 1's turn to start")

        # Ctrl+T while tab 1 works: the same agent command, a process and a session of its own.
        second = await new_tab(pilot, app, 2)
        assert second is chat(app, 2) and app.screen is second
        assert session_of(app, 2).transport is not session_of(app, 1).transport
        assert session_of(app, 2).session_id != session_of(app, 1).session_id
        name = second.controller.agent_name
        assert name and first.controller.agent_name == name
        # Tab 1 is named from its prompt (or the agent's title), tab 2, with no prompt yet, from the agent (m8).
        first_title = first.controller.state.info.title or "first question"
        assert app.tabs.tabs[0].title == first_title
        assert bar_line(app).startswith(f" 1 ◐ {first_title}") and f" 2 ● {name} " in bar_line(app), bar_line(app)

        # Tab 1 asks while hidden: `⚠` on tab 1; its question waits on no stack, least of all tab 2's.
        await submit(pilot, second, "second question")
        await wait_until(pilot, lambda: f" 1 ⚠ {app.tabs.tabs[0].title}" in bar_line(app), "⚠ on tab 1", timeout=TURN)
        assert app.tabs.tabs[1].title == (second.controller.state.info.title or "second question")
        assert first.presence.waiting == 1
        assert not any(isinstance(s, PermissionScreen) for s in app.get_screen_stack(app.tabs.tabs[0].mode))
        assert app.get_screen_stack(app.tabs.tabs[1].mode)[0] is second

        # Tab 2's own question opens on tab 2 (it is shown); allowed, its turn ends.
        dialog = await armed_dialog(pilot, app)
        assert app.get_screen_stack(app.tabs.tabs[1].mode)[-1] is dialog
        assert request_title(dialog.request) == QUESTION
        await pilot.press("a")
        await wait_until(pilot, lambda: ALLOWED in said(second), "tab 2's answer", timeout=TURN)
        await wait_until(pilot, lambda: f" 2 ● {app.tabs.tabs[1].title}" in bar_line(app), "tab 2 idle in the bar")
        assert f" 1 ⚠ {app.tabs.tabs[0].title}" in bar_line(app), "tab 1 still waits for its answer"
        assert ALLOWED not in said(first)

        # Alt+1: tab 1, its question open on it now; rejected, its turn ends.
        await pilot.press("alt+1")
        assert app.screen is not second
        dialog = await armed_dialog(pilot, app)
        assert app.get_screen_stack(app.tabs.tabs[0].mode)[-2] is first
        await pilot.press("r")
        await wait_until(pilot, lambda: REJECTED in said(first), "tab 1's answer", timeout=TURN)
        await wait_until(pilot, lambda: f" 1 ● {app.tabs.tabs[0].title}" in bar_line(app), "tab 1 idle in the bar")
        assert REJECTED not in said(second)

        # Ctrl+PageDown: tab 2; Ctrl+W closes it (idle: no question) and its agent process ends.
        await pilot.press("ctrl+pagedown")
        assert app.screen is second
        closed = session_of(app, 2)
        pid = closed.transport.pid
        assert pid is not None and alive(pid)
        await pilot.press("ctrl+w")
        await wait_until(pilot, lambda: len(app.tabs.tabs) == 1 and app.screen is first, "tab 2 closed")
        await wait_until(pilot, lambda: closed.connection.exit_info is not None, "tab 2's agent to exit")
        await wait_until(pilot, lambda: not alive(pid), "tab 2's agent process gone")
        assert alive(session_of(app, 1).transport.pid or 0), "tab 1's agent lives on"

        # Two tabs again, then Ctrl+Q: both agents end.
        await new_tab(pilot, app, 2)
        sessions = [session_of(app, 1), session_of(app, 2)]
        pids = [s.transport.pid for s in sessions]
        assert all(p is not None and alive(p) for p in pids)
        await pilot.press("ctrl+q")
        await wait_until(
            pilot, lambda: all(s.connection.exit_info is not None for s in sessions), "both agents to exit"
        )
        assert not any(alive(p) for p in pids if p is not None)
