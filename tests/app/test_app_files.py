"""The file service through the real app: a v1 agent reads and writes through acp-tui, visibly.

A write inside the session folder happens and shows as a line with its diff; a write outside asks in
a dialog (which a stray key cannot answer) and nothing is written unless the user says yes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.outside_read import OutsideReadScreen
from acp_tui.ui.dialogs.outside_write import OutsideWriteScreen
from acp_tui.ui.timeline.file_access import FileAccessView
from tests.support.agents import scripted_agent_argv
from tests.support.app_run import AppRun, make_launch, project_dir, running_app, v1_turn


def fs_request(method: str, params: dict[str, Any], request_id: int) -> dict[str, Any]:
    return {
        "op": "request",
        "method": method,
        "id": request_id,
        "wait": True,
        "params": {"sessionId": "$SESSION", **params},
    }


def answer(run: AppRun, request_id: int) -> dict[str, Any]:
    lines = [json.loads(line) for line in run.record.read_text(encoding="utf-8").splitlines()]
    return next(m for m in lines if m.get("id") == request_id and "method" not in m)


async def test_a_v1_agent_reads_and_writes_inside_the_folder_and_the_timeline_says_so(tmp_path: Path) -> None:
    folder = project_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    turn = v1_turn(
        fs_request("fs/read_text_file", {"path": str(folder / "notes.txt")}, 11),
        fs_request("fs/write_text_file", {"path": str(folder / "notes.txt"), "content": "one\n2\n"}, 12),
    )
    async with running_app(tmp_path, {"version": 1, "turns": [turn]}, cwd=folder) as run:
        init = run.received("initialize")[0]["params"]
        assert init["clientCapabilities"]["fs"] == {"readTextFile": True, "writeTextFile": True}
        await run.send("edit notes")
        await run.idle()
        assert answer(run, 11)["result"]["content"] == "one\ntwo\n"
        assert "result" in answer(run, 12)
        assert (folder / "notes.txt").read_text(encoding="utf-8") == "one\n2\n"
        lines = [view for view in run.views(FileAccessView)]
        assert len(lines) == 2


async def test_a_write_outside_the_folder_asks_and_no_means_nothing_is_written(tmp_path: Path) -> None:
    folder = project_dir(tmp_path)
    folder.mkdir(parents=True)
    outside = tmp_path / "elsewhere.txt"
    turn = v1_turn(fs_request("fs/write_text_file", {"path": str(outside), "content": "sneaky"}, 21))
    async with running_app(tmp_path, {"version": 1, "turns": [turn]}, cwd=folder) as run:
        await run.send("write outside")
        await run.wait(lambda: isinstance(run.app.screen, OutsideWriteScreen), "the dialog")
        dialog = run.app.screen
        assert isinstance(dialog, OutsideWriteScreen)
        await run.wait(lambda: dialog.armed, "the dialog to arm")
        await run.pilot.press("n")
        await run.idle()
        assert not outside.exists()
        assert "error" in answer(run, 21)


async def test_a_write_outside_the_folder_allowed_by_the_user_is_written(tmp_path: Path) -> None:
    folder = project_dir(tmp_path)
    folder.mkdir(parents=True)
    outside = tmp_path / "allowed.txt"
    turn = v1_turn(fs_request("fs/write_text_file", {"path": str(outside), "content": "fine"}, 31))
    async with running_app(tmp_path, {"version": 1, "turns": [turn]}, cwd=folder) as run:
        await run.send("write outside")
        await run.wait(lambda: isinstance(run.app.screen, OutsideWriteScreen), "the dialog")
        dialog = run.app.screen
        assert isinstance(dialog, OutsideWriteScreen)
        await run.wait(lambda: dialog.armed, "the dialog to arm")
        await run.pilot.press("y")
        await run.idle()
        assert outside.read_text(encoding="utf-8") == "fine"
        assert "result" in answer(run, 31)


@asynccontextmanager
async def asking_app(tmp_path: Path, script: dict[str, Any], cwd: Path) -> AsyncIterator[AppRun]:
    """`running_app` with `outside_reads = "ask"`."""
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    record = tmp_path / "record.jsonl"
    launch = dataclasses.replace(make_launch(scripted_agent_argv(script_path, record), cwd=cwd), outside_reads="ask")
    app = AcpApp(launch, arm_delay=0.1)
    async with app.run_test(size=(120, 45)) as pilot:
        run = AppRun(app, pilot, record)
        await run.ready()
        yield run


async def test_an_outside_read_is_marked_and_with_ask_a_dialog_decides(tmp_path: Path) -> None:
    folder = project_dir(tmp_path)
    folder.mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2\n", encoding="utf-8")
    turn = v1_turn(
        fs_request("fs/read_text_file", {"path": str(secret)}, 41),
        fs_request("fs/read_text_file", {"path": str(secret)}, 42),
    )
    async with asking_app(tmp_path, {"version": 1, "turns": [turn]}, folder) as run:
        await run.send("read outside")
        for key in ("n", "y"):
            await run.wait(lambda: isinstance(run.app.screen, OutsideReadScreen), "the dialog")
            dialog = run.app.screen
            assert isinstance(dialog, OutsideReadScreen)
            await run.wait(lambda: dialog.armed, "the dialog to arm")
            await run.pilot.press(key)
            await run.wait(lambda: run.app.screen is not dialog, "the dialog to close")
        await run.idle()
        assert "declined" in answer(run, 41)["error"]["message"]
        assert answer(run, 42)["result"]["content"] == "hunter2\n"
        lines = [view.line_text() for view in run.views(FileAccessView)]
        assert len(lines) == 2 and all("outside the session folder" in line for line in lines)
        assert lines[1].startswith("⚠ read ")
