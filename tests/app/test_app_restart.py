"""Ctrl-R after the agent died: a new process, a new initialize, `session/resume` where offered.

The agent is killed from outside (its whole process group), the banner shows, Ctrl-R restarts it,
and a new prompt completes a turn; against the scripted agent (which records the resume request),
the demo agent in both protocol versions, and the official TypeScript SDK's dual-version agent.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from tests.support.agents import scripted_agent_argv
from tests.support.hostile import (
    SIZE,
    chat_of,
    make_launch,
    screen_text,
    send_prompt,
    session_ready,
    system_lines,
    transcript_markdown,
    typing_still_works,
    wait_for,
)
from tests.support.peers import TsSdkPeers

FRESH = "the agent's memory of this conversation starts fresh"
RESUMED = "session resumed"


async def kill_restart_and_prompt(pilot: Pilot[Any], app: AcpApp, *, answer: str, timeout: float = 20) -> ChatScreen:
    """One turn, kill the agent's process group, check the banner, Ctrl-R, one more turn."""
    chat = chat_of(app)
    await wait_for(pilot, lambda: session_ready(chat), timeout=timeout, what="session ready")
    await send_prompt(pilot, chat, "first question")
    await wait_for(
        pilot,
        lambda: (
            answer in screen_text(app) and not chat.status.values.busy and chat.status.values.stop_reason is not None
        ),
        timeout=timeout,
        what="first turn",
    )
    first = chat.controller.session
    assert first is not None and first.transport.pid is not None
    old_pid, old_session_id = first.transport.pid, first.session_id
    os.killpg(old_pid, signal.SIGKILL)
    await wait_for(pilot, lambda: chat.status.values.state == "stopped", what="stopped")
    assert any("killed by SIGKILL" in line and "Ctrl-R" in line for line in system_lines(chat))
    assert "first question" in screen_text(app)  # the conversation stays
    await typing_still_works(pilot, chat)
    await pilot.press("ctrl+r")
    await wait_for(
        pilot, lambda: chat.controller.session is not first and session_ready(chat), timeout=timeout, what="restart"
    )
    assert chat.controller.session is not None and chat.controller.session.transport.pid != old_pid
    assert chat.controller.session.init is not None  # a new initialize was answered
    lines = system_lines(chat)
    resumed, fresh = any(RESUMED in line for line in lines), any(FRESH in line for line in lines)
    assert resumed != fresh, lines  # exactly one of: resumed, or a clear "memory starts fresh" line
    if resumed:
        assert chat.controller.session.session_id == old_session_id
    await send_prompt(pilot, chat, "second question")
    await wait_for(
        pilot,
        lambda: (
            "second question" in screen_text(app)
            and not chat.status.values.busy
            and chat.status.values.stop_reason is not None
        ),
        timeout=timeout,
        what="second turn",
    )
    assert "first question" in screen_text(app)
    return chat


def record_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_restart_resumes_the_same_session_v2(app_dirs: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 2, "responses": {"session/resume": {"result": {}}}}))
    record = tmp_path / "record.jsonl"
    app = AcpApp(make_launch(scripted_agent_argv(script, record), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await kill_restart_and_prompt(pilot, app, answer="echo: first question")
        await wait_for(pilot, lambda: "echo: second question" in screen_text(app))
        assert chat.controller.session is not None and chat.controller.session.session_id == "scripted-session-1"
        assert any(RESUMED in line for line in system_lines(chat))
    messages = record_of(record)
    methods = [m.get("method") for m in messages if "method" in m]
    assert methods.count("initialize") == 2
    assert methods.count("session/new") == 1
    resume = next(m for m in messages if m.get("method") == "session/resume")
    assert resume["params"]["sessionId"] == "scripted-session-1"
    assert resume["params"]["cwd"] == str(tmp_path)
    assert "id" in resume
    prompts = [m for m in messages if m.get("method") == "session/prompt"]
    assert [p["params"]["sessionId"] for p in prompts] == ["scripted-session-1"] * 2
    markdown = transcript_markdown()
    for shown in (
        "first question",
        "echo: first question",
        "killed by SIGKILL",
        "second question",
        "echo: second question",
    ):
        assert shown in markdown, shown


async def test_ctrl_r_on_a_running_agent_says_so_and_a_second_one_restarts_it(app_dirs: Path, tmp_path: Path) -> None:
    """Ctrl+R on a running agent used to be a toast that went away: now the conversation says what a
    second Ctrl+R does, and the second one stops the agent and starts it afresh (resuming the session)."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 2, "responses": {"session/resume": {"result": {}}}}))
    app = AcpApp(make_launch(scripted_agent_argv(script), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = chat_of(app)
        await wait_for(pilot, lambda: session_ready(chat), what="session ready")
        first = chat.controller.session
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: any("press Ctrl-R again" in line for line in system_lines(chat)),
            what="the line saying what a second Ctrl-R does",
        )
        assert chat.controller.session is first and not chat.controller.stopped  # nothing was stopped yet
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: chat.controller.session is not first and session_ready(chat), what="restart")
        lines = system_lines(chat)
        assert any("you stopped the agent to restart it" in line for line in lines), lines
        assert not any("press Ctrl-R to restart it" in line for line in lines), lines  # it is restarting already
        assert any(RESUMED in line for line in lines), lines


async def test_restart_without_resume_starts_fresh_and_says_so_v1(app_dirs: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 1}))  # no sessionCapabilities.resume advertised
    record = tmp_path / "record.jsonl"
    app = AcpApp(make_launch(scripted_agent_argv(script, record), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await kill_restart_and_prompt(pilot, app, answer="echo: first question")
        assert any(FRESH in line for line in system_lines(chat))
    methods = [m.get("method") for m in record_of(record) if "method" in m]
    assert "session/resume" not in methods
    assert methods.count("session/new") == 2


async def test_refused_resume_falls_back_to_a_new_session_v2(app_dirs: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "version": 2,
                "responses": {"session/resume": {"error": {"code": -32002, "message": "Resource not found"}}},
            }
        )
    )
    app = AcpApp(make_launch(scripted_agent_argv(script), tmp_path), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await kill_restart_and_prompt(pilot, app, answer="echo: first question")
        lines = system_lines(chat)
        assert any("could not resume" in line for line in lines), lines
        assert any(FRESH in line for line in lines), lines


@pytest.mark.parametrize("protocol", [2, 1])
async def test_restart_with_the_demo_agent(app_dirs: Path, tmp_path: Path, protocol: int) -> None:
    argv = [sys.executable, "-m", "acp_tui.demo"]
    env = {"ACP_TUI_DEMO_SPEED": "0"}
    app = AcpApp(make_launch(argv, tmp_path, protocol=protocol, env=env), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await kill_restart_and_prompt(pilot, app, answer="first question")
        assert chat.controller.session is not None and chat.controller.session.version == protocol
        # The demo advertises resume in v1 (sessionCapabilities.resume) and v2 has it as baseline.
        assert any(RESUMED in line for line in system_lines(chat)), system_lines(chat)


async def test_restart_with_the_typescript_sdk_dual_version_agent(
    app_dirs: Path,
    tmp_path: Path,
    ts_sdk_peers: TsSdkPeers,
    peer_home_env: dict[str, str],
) -> None:
    app = AcpApp(make_launch(ts_sdk_peers.dual_version_agent, tmp_path, env=peer_home_env), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await kill_restart_and_prompt(pilot, app, answer="first question", timeout=30)
        assert chat.status.values.state != "stopped"
