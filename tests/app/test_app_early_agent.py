"""The first tab talks to the agent the command line started before it imported the UI (acp_tui/agent/early_agent.py);
a new tab, like a restart, starts its own."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.agent.early_agent import EarlyAgent
from acp_tui.agent.process import AgentProcess
from acp_tui.ui.app import AcpApp
from tests.support.demo_app import DemoRun, demo_launch
from tests.support.tabs import chat, second_tab

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


async def test_the_first_tab_runs_the_early_agent_and_a_new_tab_its_own(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    launch = demo_launch(project, 2)
    started = EarlyAgent.start(launch.agent_argv, cwd=launch.cwd, env={**os.environ, **launch.env})  # as cli.py does
    pid = started.pid
    assert pid is not None
    app = AcpApp(replace(launch, early_agent=started), arm_delay=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        run = DemoRun(app, pilot)
        await run.ready()  # the demo greeted: the early agent answered the handshake
        first = chat(run, 1).controller.session
        assert first is not None and first.transport.pid == pid and started.pid is None
        await second_tab(run)
        second = chat(run, 2).controller.session
        assert second is not None and second.transport.pid not in (None, pid)
        assert isinstance(first.transport, AgentProcess) and isinstance(second.transport, AgentProcess)
        assert second.transport.lineage is not first.transport.lineage
    started.discard()  # claimed: nothing left to stop (the app stopped it)
    assert not os.path.exists(f"/proc/{pid}")
