"""Start-up imports only what the first screen needs (issue 27): the modules below wait for their first use.

A fresh interpreter imports the UI, or runs the real app against the scripted agent up to a ready session
(the status bar says "ready", nothing asked yet), and reports which of them it imported. Markdown's warm-up
(a thread started once the session is up, acp_tui/ui/chat/warm_up.py) is recorded there, not run. This guards what
the start-up gain rests on, so a new top-level import of a dialog or of Markdown cannot quietly undo it; it
times nothing (the time is bench/startup_speed.py's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.agents import AGENTS_DIR
from tests.support.paths import REPO

#: Imported with their first use: Markdown and Pygments with the agent's first message or tool call, each
#: dialog and browser when it first opens, the transcript's reading half when one is exported or resumed, the
#: user's messages' view with the first prompt.
DEFERRED = (
    "markdown_it",
    "pygments",
    "rich.markdown",
    "rich.syntax",
    "acp_tui.ui.widgets.markdown_stream",
    "acp_tui.ui.timeline.diff_view",
    "acp_tui.ui.timeline.tool_call",
    "acp_tui.ui.timeline.agent_message",
    "acp_tui.ui.timeline.thought_view",
    "acp_tui.ui.dialogs.permission",
    "acp_tui.ui.dialogs.login",
    "acp_tui.ui.dialogs.config_picker",
    "acp_tui.ui.dialogs.mode_confirm",
    "acp_tui.ui.dialogs.close_tab",
    "acp_tui.ui.dialogs.new_tab",
    "acp_tui.ui.browsers.inspector",
    "acp_tui.ui.browsers.problems",
    "acp_tui.ui.browsers.help",
    "acp_tui.transcript.markdown",
    "acp_tui.transcript.reader",
    "acp_tui.ui.timeline.user_message",
    "acp_tui.ui.timeline.unknown_update",
)

_RUN_TO_READY = """
import asyncio, json, sys
from pathlib import Path
from acp_tui.launch import Launch
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat import event_pump

warm_ups = []  # the deliberate warm-up of Markdown once the session is up (chat/warm_up.py), recorded, not run
event_pump.warm_up_markdown = warm_ups.append

async def main() -> None:
    agent, script, cwd = sys.argv[1:4]
    launch = Launch(agent_argv=(sys.executable, agent, script), agent_name="scripted", env={}, cwd=Path(cwd),
                    protocol="auto", theme=None, log_path=None, init_timeout=10, warnings=())
    app = AcpApp(launch)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1000):
            chat = app.chat
            if chat is not None and chat.controller.phase == "ready" and chat.status.values.state == "idle":
                break
            await pilot.pause(0.01)
        else:
            raise SystemExit("the session never became ready")
        await pilot.pause()  # the ready frame is drawn
        assert len(warm_ups) == 1, warm_ups  # asked for once the session was up
        print(json.dumps(sorted(name for name in DEFERRED if name in sys.modules)))

DEFERRED = json.loads(sys.argv[4])
asyncio.run(main())
"""


def imported(code: str, *args: str, home: Path) -> list[str]:
    """Run `code` in a fresh interpreter (the user's folders in `home`); the names it printed, as JSON, last."""
    env = {**os.environ, **{f"ACP_TUI_{name}_DIR": str(home / name.lower()) for name in ("DATA", "STATE", "CONFIG")}}
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO, env=env, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    found: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


_IMPORT = "import json, sys; import {module}; print(json.dumps([n for n in sys.argv[1:] if n in sys.modules]))"


def test_importing_the_ui_imports_none_of_the_deferred_modules(tmp_path: Path) -> None:
    assert imported(_IMPORT.format(module="acp_tui.cli, acp_tui.ui.app"), *DEFERRED, home=tmp_path) == []


def test_a_ready_session_has_imported_none_of_them(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 2}), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    agent = str(AGENTS_DIR / "scripted_agent.py")
    assert imported(_RUN_TO_READY, agent, str(script), str(project), json.dumps(DEFERRED), home=tmp_path) == []


def test_the_check_sees_the_deferred_modules_a_tool_card_imports(tmp_path: Path) -> None:
    found = imported(_IMPORT.format(module="acp_tui.ui.timeline.tool_call"), *DEFERRED, home=tmp_path)
    assert set(found) == {
        "markdown_it",
        "pygments",
        "rich.markdown",
        "rich.syntax",
        "acp_tui.ui.widgets.markdown_stream",
        "acp_tui.ui.timeline.diff_view",
        "acp_tui.ui.timeline.tool_call",
    }
