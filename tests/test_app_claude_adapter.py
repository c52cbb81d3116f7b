"""The real app against a product agent: Claude's ACP adapter, driven by the loopback mock model.

The adapter (npm, ~110 packages, installed once into tests/.peers/) produces all of its own ACP
traffic — session title, usage, notices, commands, tool calls, display-only terminals — while
`tests/fakes/mock_anthropic.py` stands in for the model API on a loopback port. Prompts containing
RUNCMD make the model ask for a Bash tool call.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest

from acp_tui.launch import Launch
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.agent_message import AgentMessageView
from acp_tui.ui.widgets.session_header import SessionHeader
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call import ToolCallCard
from tests.paths import FAKES
from tests.peers import PEERS_CACHE, PeerUnavailable, _install_atomically, _require, _run, peer_env
from tests.test_app_timeline import AppRun, private_dirs  # noqa: F401  (autouse fixture)

CLAUDE_ADAPTER_VERSION = "0.101.0"
CLAUDE_DIR = PEERS_CACHE / f"claude-agent-acp-{CLAUDE_ADAPTER_VERSION}"


def _build_claude(tmp: Path) -> None:
    npm = _require("npm")
    (tmp / "package.json").write_text('{"name": "acp-test-claude", "version": "1.0.0", "private": true}\n')
    _run(
        [npm, "install", "--no-audit", "--no-fund", f"@agentclientprotocol/claude-agent-acp@{CLAUDE_ADAPTER_VERSION}"],
        tmp,
        f"npm install @agentclientprotocol/claude-agent-acp@{CLAUDE_ADAPTER_VERSION}",
    )


@pytest.fixture(scope="session")
def claude_adapter() -> list[str]:
    """argv of the adapter, installed once; fails (never skips) when it cannot be had."""
    try:
        node = _require("node")
        _install_atomically(CLAUDE_DIR, _build_claude)
    except PeerUnavailable as exc:
        pytest.fail(f"Claude's ACP adapter is unavailable: {exc}")
    entry = CLAUDE_DIR / "node_modules" / "@agentclientprotocol" / "claude-agent-acp" / "dist" / "index.js"
    assert entry.is_file(), f"the adapter install lacks {entry}"
    return [node, str(entry)]


MOCK_ANTHROPIC = FAKES / "mock_anthropic.py"


@pytest.fixture
def mock_model(tmp_path: Path) -> Iterator[int]:
    """The loopback stand-in for the model API; yields its port once it accepts connections."""
    assert MOCK_ANTHROPIC.is_file(), f"the fake model server is missing: {MOCK_ANTHROPIC}"
    proc = subprocess.Popen(
        [sys.executable, str(MOCK_ANTHROPIC), "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "MOCK_CWD": str(tmp_path), "MOCK_RECORD": str(tmp_path / "model-requests.jsonl")},
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        line = proc.stdout.readline().decode() if ready else ""
        if not line.startswith("listening on "):
            pytest.fail(f"the mock model server did not start (said {line!r}, exit {proc.poll()})")
        yield int(line.split()[-1])
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def _launch(argv: list[str], cwd: Path, port: int, protocol: Literal[1, 2]) -> Launch:
    home = cwd.parent / "claude-home"
    home.mkdir(exist_ok=True)
    env = {
        **peer_env(home),
        "IS_SANDBOX": "1",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-ant-dummy",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    return Launch(
        agent_argv=tuple(argv),
        agent_name="claude",
        env=env,
        cwd=cwd,
        protocol=protocol,
        theme=None,
        log_path=None,
        init_timeout=60,
        warnings=(),
        is_demo=False,
    )


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [2, 1], ids=["v2", "v1"])
async def test_claude_adapter_answers_and_runs_a_command(
    tmp_path: Path, claude_adapter: list[str], mock_model: int, protocol: Literal[1, 2]
) -> None:
    project = tmp_path / "src" / "project"
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
        assert run.chat.controller.session is not None and run.chat.controller.session.version == protocol
        header = run.chat.query_one("#header", SessionHeader).values
        assert header.agent.startswith("Claude") and header.protocol == protocol

        await run.send("hello there")
        await run.idle()
        answers = [view.text for view in run.views(AgentMessageView)]
        assert "Hello from mock LLM. You said: hello there" in answers

        await run.send("RUNCMD please")
        await run.idle()
        cards = run.views(ToolCallCard)
        assert len(cards) == 1 and cards[0].call.status == "completed"
        assert "echo hi" in (cards[0].call.title or "")
        if protocol == 2:
            # the adapter reports the command's output as a display-only terminal, shown in the card
            terminals = list(cards[0].query(TerminalView))
            assert len(terminals) == 1 and "hi" in terminals[0].full_text()
            assert terminals[0].footer_text() == "exit 0"
        else:
            assert "hi" in cards[0].full_text()
        # closed and finished, the card still shows what the command printed (issue 22)
        tail = cards[0].output_tail()
        assert not cards[0].expanded and tail is not None and [line.plain for line in tail.lines] == ["hi"]
        assert "Done. The tool ran." in [view.text for view in run.views(AgentMessageView)]
        session = run.chat.controller.session
        assert session is not None
        assert session.state.problem_count == 0, list(session.state.problems)
        assert session.state.usage is not None and run.chat.status.values.cost is not None
