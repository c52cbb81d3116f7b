"""The jobs tray against the scripted v2 agent (v2 `state_update.background`, ui/widgets/jobs_tray.py).

A dev server and a watcher started in a turn stay listed after the turn ends; the stop key sends
`terminal/cancel` only for the job that advertises `capabilities.cancel` (never `tool_call/cancel` for
the watcher, which does not); the tray empties when the snapshot does. Every frame of the script
validates against the official v2 schema, and every frame we send does too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.widgets.jobs_tray import JobsTray
from tests.support.app_run import AppRun, running_app, screen_text
from tests.support.jobs_script import background_subagent_turn, cancellable_watcher_turn, script
from tests.support.schema_check import validate_agent_message, validate_client_message

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


def test_every_frame_of_the_script_is_schema_valid() -> None:
    for turn in [*script()["turns"], cancellable_watcher_turn()]:
        for step in turn["steps"]:
            if step["op"] == "update":
                frame = {
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {"sessionId": "s", "update": step["update"]},
                }
                validate_agent_message(frame, 2)


def tray(run: AppRun) -> JobsTray:
    return run.chat.query_one(JobsTray)


async def started(run: AppRun) -> JobsTray:
    await run.send("start")
    await run.idle()
    jobs = tray(run)
    await run.wait(lambda: jobs.count == 2, "two background jobs")
    return jobs


def validate_sent(run: AppRun) -> int:
    """Every frame we sent (the agent sends no requests here: all of them are ours), against the v2 schema."""
    frames = [json.loads(line) for line in run.record.read_text(encoding="utf-8").splitlines() if line.strip()]
    for frame in frames:
        validate_client_message(frame, 2)
    return len(frames)


@pytest.mark.asyncio
async def test_a_job_started_in_a_turn_stays_listed_after_it(tmp_path: Path, private_dirs: None) -> None:
    async with running_app(tmp_path, script(), size=(80, 24)) as run:
        jobs = await started(run)
        assert run.chat.controller.state.foreground.state == "idle"
        assert jobs.display
        assert "2 jobs" in jobs.summary() and "npm run dev" in jobs.summary()
        assert "\x1b" not in jobs.summary() and "\u202e" not in jobs.summary()
        assert "Watch tests" in jobs.summary()
        assert run.chat.status.values.jobs == 2
        await run.wait(
            lambda: "2 jobs" in screen_text(run).splitlines()[-1], "`2 jobs` in the status bar at 80 columns"
        )
        # the dev server's card renders at the agent's 40 columns
        [view] = [v for v in run.chat.query(TerminalView) if v.terminal_id == "dev"]
        assert view.output.columns == 40


@pytest.mark.asyncio
async def test_the_stop_key_cancels_only_what_allows_it(tmp_path: Path, private_dirs: None) -> None:
    async with running_app(tmp_path, script()) as run:
        jobs = await started(run)
        await run.pilot.click(JobsTray)
        await run.wait(lambda: jobs.has_focus, "the tray focused")
        assert any("^X stop" in row for row in jobs.rows())
        await run.pilot.press("down")  # the watcher: paused, no `capabilities.cancel`
        assert "‖" in jobs.rows()[2]
        assert not jobs.stoppable(jobs.jobs[1])
        await run.pilot.press("ctrl+x")
        await run.pilot.press("up", "enter")  # the dev server's newest output, on demand
        await run.wait(lambda: any("ready on :3000" in row for row in jobs.rows()), "the live tail")
        await run.pilot.press("ctrl+x")
        await run.wait(lambda: run.received("terminal/cancel"), "terminal/cancel")
        [cancel] = run.received("terminal/cancel")
        assert cancel["params"]["terminalId"] == "dev"
        assert run.received("tool_call/cancel") == []
        await run.wait(lambda: any("stopping…" in row for row in jobs.rows()), "stopping…")
        await run.pilot.press("ctrl+x")  # already stopping: nothing more is sent
        await run.pilot.pause()
        assert len(run.received("terminal/cancel")) == 1
        assert validate_sent(run) >= 4  # initialize, session/new, session/prompt, terminal/cancel


@pytest.mark.asyncio
async def test_the_tray_empties_when_the_snapshot_does(tmp_path: Path, private_dirs: None) -> None:
    async with running_app(tmp_path, script()) as run:
        jobs = await started(run)
        await run.send("done")
        await run.idle()
        await run.wait(lambda: jobs.count == 0, "an empty snapshot")
        assert not jobs.display
        assert run.chat.status.values.jobs == 0
        assert "job" not in screen_text(run).splitlines()[-1]
        assert run.chat.controller.state.problem_count == 0  # final statuses came before the removal


@pytest.mark.asyncio
async def test_no_tray_for_an_agent_that_reports_no_background(tmp_path: Path, private_dirs: None) -> None:
    plain_turn = {"steps": [{"op": "respond_prompt"}, {"op": "user_message"}, {"op": "state", "state": "running"}]}
    plain_turn["steps"].append({"op": "state", "state": "idle", "stopReason": "end_turn"})
    async with running_app(tmp_path, {"version": 2, "turns": [plain_turn]}) as run:
        await run.send("hello")
        await run.idle()
        assert not tray(run).display and not run.chat.controller.state.background.reported


@pytest.mark.asyncio
async def test_a_subagent_working_in_the_background_is_listed_by_its_name(tmp_path: Path, private_dirs: None) -> None:
    async with running_app(tmp_path, {"version": 2, "turns": [background_subagent_turn()]}) as run:
        await run.send("delegate")
        await run.idle()
        jobs = tray(run)
        await run.wait(lambda: jobs.count == 1, "one background job")
        assert "Explore the tests" in jobs.summary() and "\x1b" not in jobs.summary()
        assert "not shown" not in jobs.summary()
        await run.pilot.click(JobsTray)
        await run.wait(lambda: jobs.has_focus, "the tray focused")
        [row] = [row for row in jobs.rows()[1:] if "Explore the tests" in row]
        assert "◇" in row and "^X stop" not in row  # no stop: none is offered for a subagent here
        assert not jobs.stoppable(jobs.jobs[0])
        assert "not shown" not in "\n".join(jobs.rows())


@pytest.mark.asyncio
async def test_a_background_tool_call_that_allows_it_is_stopped_with_tool_call_cancel(
    tmp_path: Path, private_dirs: None
) -> None:
    agent = {**script(), "turns": [cancellable_watcher_turn()]}
    async with running_app(tmp_path, agent) as run:
        await run.send("watch")
        await run.idle()
        jobs = tray(run)
        await run.wait(lambda: jobs.count == 1, "the watcher listed")
        await run.pilot.click(JobsTray)
        await run.wait(lambda: jobs.has_focus, "the tray focused")
        assert jobs.stoppable(jobs.jobs[0]) and "^X stop" in jobs.rows()[1]
        await run.pilot.press("ctrl+x")
        await run.wait(lambda: run.received("tool_call/cancel"), "tool_call/cancel")
        [cancel] = run.received("tool_call/cancel")
        assert cancel["params"]["toolCallId"] == "watch" and run.received("terminal/cancel") == []
        await run.wait(lambda: "stopping…" in jobs.rows()[1], "stopping…")
        await run.pilot.press("ctrl+x")  # already stopping: the card's guard holds
        await run.pilot.pause()
        assert len(run.received("tool_call/cancel")) == 1
        assert validate_sent(run) >= 4  # initialize, session/new, session/prompt, tool_call/cancel


@pytest.mark.asyncio
async def test_f9_opens_the_tray_from_the_prompt(tmp_path: Path, private_dirs: None) -> None:
    async with running_app(tmp_path, script()) as run:
        jobs = await started(run)
        run.chat.prompt_input.focus()
        await run.pilot.press("f9")
        await run.wait(lambda: jobs.has_focus, "the tray focused by F9")
        assert any("^X stop" in row for row in jobs.rows())
        await run.pilot.press("escape")
        await run.wait(lambda: run.chat.prompt_input.has_focus, "back in the prompt")


@pytest.mark.asyncio
async def test_f9_without_jobs_leaves_the_focus_in_the_prompt(tmp_path: Path, private_dirs: None) -> None:
    async with running_app(tmp_path, script()) as run:
        said: list[str] = []
        run.app.notify = lambda message, *args, **kwargs: said.append(message)  # type: ignore[method-assign]
        run.chat.prompt_input.focus()
        assert not tray(run).display
        await run.pilot.press("f9")
        await run.wait(lambda: said, "a word that there are no jobs")  # F9 did nothing, silently
        assert said == ["no background jobs: F9 goes to them while the agent runs some"]
        assert run.chat.prompt_input.has_focus
