"""The app with a v1 agent running commands through client terminals (docs/protocol.md §10.2): the command
shows live in the tool card that embeds it, with the same widget as a v2 display-only terminal, its
exit status and run time, and stays readable after release."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import ControllerListener
from acp_tui.controller.wiring import UserAsker
from acp_tui.launch import Launch
from acp_tui.services.permission import PermissionService
from acp_tui.services.terminals import TerminalService
from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.agents import scripted_agent_argv
from tests.support.app_run import AppRun, card_for, make_launch, project_dir, tool, v1_turn

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

PY = sys.executable


def with_terminals(launch: Launch, listener: ControllerListener, asker: UserAsker) -> SessionController:
    """The app's controller with the terminal service installed (ids `term-t-N`, for the script)."""
    return SessionController(
        launch,
        asker=asker,
        listener=listener,
        services=lambda _launch, _host, ask: [PermissionService(ask), TerminalService(id_prefix="t")],
    )


def terminal_request(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {
        "op": "request",
        "id": request_id,
        "method": method,
        "params": {"sessionId": "$SESSION", **params},
        "timeout": 15,
    }


async def test_a_v1_command_streams_into_its_card(tmp_path: Path) -> None:
    # Step 0, then the rest only once the test has seen the command running (it creates `gate`): a fixed
    # pause between the steps is a window a late poll can miss on a loaded machine.
    gate = tmp_path / "gate"
    printer = (
        f"import os, time\nprint('\\x1b[32mstep 0\\x1b[0m', flush=True)\n"
        f"for _ in range(3000):\n    if os.path.exists({str(gate)!r}): break\n    time.sleep(0.01)\n"
        "for i in (1, 2):\n    print(f'\\x1b[32mstep {i}\\x1b[0m', flush=True)"
    )
    script = {
        "version": 1,
        "turns": [
            v1_turn(
                tool("call-1", title="Run the steps", kind="execute", status="in_progress"),
                terminal_request(10, "terminal/create", command=PY, args=["-c", printer]),
                tool("call-1", content=[{"type": "terminal", "terminalId": "term-t-1"}]),
                {"op": "sleep", "seconds": 0.3},
                terminal_request(11, "terminal/wait_for_exit", terminalId="term-t-1"),
                terminal_request(12, "terminal/release", terminalId="term-t-1"),
                tool("call-1", status="completed"),
            )
        ],
    }
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script))
    record = tmp_path / "record.jsonl"
    launch = make_launch(scripted_agent_argv(script_path, record), cwd=project_dir(tmp_path))

    app = AcpApp(launch, arm_delay=0.1, controller=with_terminals)
    async with app.run_test(size=(120, 45)) as pilot:
        run = AppRun(app, pilot, record)
        await run.ready()
        await run.send("run it")
        await run.wait(lambda: any(c.call.id == "call-1" for c in run.views(ToolCallCard)), "the card")
        card = card_for(run, "call-1")
        await run.wait(lambda: len(card.query(TerminalView)) == 1, "the terminal inside the card")
        view = card.query_one(TerminalView)
        await run.wait(lambda: "step 0" in view.output.plain_text(), "output while the command runs")
        assert view.terminal.exit_status is None and view.footer_text() == "running…"
        gate.touch()
        await run.idle()
        await run.wait(lambda: view.footer_text() == "exit 0", "the exit status")
        assert view.header_text().startswith(f"$ {PY} -c ")
        assert view.output.plain_text() == "step 0\nstep 1\nstep 2"
        [span] = view.output.lines()[0].spans  # the colour is kept
        assert span.style.color is not None and span.style.color.number == 2  # type: ignore[union-attr]
        assert view.elapsed_text().endswith(" s")
        assert view in card.query(TerminalView)  # released, still readable in its card
        answers = [json.loads(line) for line in record.read_text().splitlines()]
        assert {"jsonrpc": "2.0", "id": 11, "result": {"exitCode": 0}} in answers
