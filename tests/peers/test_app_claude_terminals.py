"""Claude's ACP adapter in v1 with the terminal-output extension advertised (docs/protocol.md §6.4): its Bash
tool call's output streams into the tool card as a live terminal, the same widget as a v2 display-only
terminal. The adapter and the loopback model are the fixtures of `tests/peers/test_app_claude_adapter.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import ControllerListener
from acp_tui.controller.wiring import UserAsker
from acp_tui.launch import Launch
from acp_tui.protocol.v2 import TerminalRef
from acp_tui.services.permission import PermissionService
from acp_tui.services.terminals import TerminalService
from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.app_run import AppRun
from tests.support.claude import _launch

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


def with_terminals(launch: Launch, listener: ControllerListener, asker: UserAsker) -> SessionController:
    """The app's controller with the terminal service installed (as the app installs it)."""
    return SessionController(
        launch,
        asker=asker,
        listener=listener,
        services=lambda _launch, _host, ask: [PermissionService(ask), TerminalService()],
    )


@pytest.mark.timeout(180)
async def test_claude_v1_bash_output_streams_into_the_card(
    tmp_path: Path,
    claude_adapter: list[str],
    mock_model: int,
) -> None:
    project = tmp_path / "src" / "project"
    app = AcpApp(_launch(claude_adapter, project, mock_model, 1), arm_delay=0.1, controller=with_terminals)
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
        session = run.chat.controller.session
        assert session is not None and session.version == 1

        await run.send("RUNCMD please")
        await run.idle()
        [card] = run.views(ToolCallCard)
        assert card.call.status == "completed" and "echo hi" in (card.call.title or "")
        terminal_ids = [item.terminal_id for item in card.call.content if isinstance(item, TerminalRef)]
        assert terminal_ids, "the Bash call's content names its terminal"
        await run.wait(lambda: len(card.query(TerminalView)) == 1, "the terminal in the card")
        view = card.query_one(TerminalView)
        assert view.terminal_id == terminal_ids[0]
        await run.wait(lambda: view.footer_text() == "exit 0", "the exit status")
        assert view.header_text() == "$ echo hi"
        assert view.output.plain_text() == "hi"
        meta = card.call.meta or {}
        assert not {"terminal_info", "terminal_output", "terminal_output_delta", "terminal_exit"} & set(meta)
        assert session.state.problem_count == 0, list(session.state.problems)
