"""A file mentioned with `@` reaches a real product agent: Claude's ACP adapter, with the loopback model.

The adapter advertises embedded context, so the file goes as a `resource` block; the fake model server
records what the adapter sent it, and the file's text must be there (v2 and v1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.agent_message import AgentMessageView
from tests.support.app_run import AppRun
from tests.support.claude import _launch

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

MARKER = "ZEBRA-MARKER-4242"


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [2, 1], ids=["v2", "v1"])
async def test_a_mentioned_file_reaches_claudes_adapter(
    tmp_path: Path,
    claude_adapter: list[str],
    mock_model: int,
    protocol: Literal[1, 2],
) -> None:
    project = tmp_path / "src" / "project"
    project.mkdir(parents=True, exist_ok=True)  # the private-dirs fixture may have made it
    (project / "notes.md").write_text(f"# Notes\n\nThe secret word is {MARKER}.\n", encoding="utf-8")
    app = AcpApp(_launch(claude_adapter, project, mock_model, protocol), arm_delay=0.1)
    async with app.run_test(size=(140, 45)) as pilot:
        run = AppRun(app, pilot, tmp_path / "no-record.jsonl")
        await run.wait(
            lambda: (
                run.chat.controller.session is not None
                and run.chat.controller.session.session_id is not None
                and run.chat.status.values.state == "idle"
            ),
            "the adapter's session",
            timeout=60,
        )
        await run.send("what does @notes.md say")
        await run.idle()
        assert any("Hello from mock LLM" in view.text for view in run.views(AgentMessageView))
        session = run.chat.controller.session
        assert session is not None
        assert session.state.problem_count == 0, list(session.state.problems)
    requests = [json.loads(line) for line in (tmp_path / "model-requests.jsonl").read_text().splitlines()]
    sent = [r for r in requests if r["path"].startswith("/v1/messages") and "count_tokens" not in r["path"]]
    assert any(MARKER in json.dumps(r["body"]) for r in sent), "the file's text never reached the model"
