"""The command line end to end: what `acp-tui ...` builds is what the app runs and shows.

`acp_tui.cli.main` is called with a runner that keeps the `Launch` it would start, and the real app is
then driven on it in a pilot (the runner interface is synchronous; the pilot is async). The console
script itself is run as a subprocess for the paths that never start a UI: a missing agent, `--version`,
`--paths`, `--list-agents`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui import __version__
from acp_tui.cli import main
from acp_tui.launch import Launch
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.widgets.session_header import SessionHeader
from tests.support.agents import SCRIPTED_AGENT
from tests.support.wait import until


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Private config, data and state dirs (the CLI reads config.toml from the config one)."""
    dirs: dict[str, Path] = {}
    for name in ("CONFIG", "DATA", "STATE"):
        folder = tmp_path / f"user-{name.lower()}"
        folder.mkdir()
        monkeypatch.setenv(f"ACP_TUI_{name}_DIR", str(folder))
        dirs[name.lower()] = folder
    monkeypatch.setenv("ACP_TUI_DEMO_SPEED", "0")
    monkeypatch.delenv("ACP_TUI_LOG", raising=False)
    monkeypatch.chdir(tmp_path)
    return dirs


def launch_from_cli(argv: list[str]) -> Launch:
    """What `acp-tui ARGV` would start: main() must reach the runner, and return its status."""
    launches: list[Launch] = []

    def runner(launch: Launch) -> int:
        launches.append(launch)
        return 0

    assert main(argv, runner=runner) == 0
    (launch,) = launches
    return launch


async def wait(pilot: Pilot[Any], condition: Any, what: str, timeout: float = 15.0) -> None:
    """Poll `condition` between short pauses until it holds; fail naming `what`."""
    await until(condition, what, pilot=pilot, timeout=timeout)


@asynccontextmanager
async def app_for(launch: Launch) -> AsyncIterator[tuple[AcpApp, Pilot[Any], ChatScreen]]:
    app = AcpApp(launch, arm_delay=0.1)
    async with app.run_test(size=(120, 45)) as pilot:
        await wait(pilot, lambda: app.chat is not None, "the chat screen")
        assert app.chat is not None
        yield app, pilot, app.chat


def system_lines(chat: ChatScreen) -> list[SystemLine]:
    return list(chat.query(SystemLine))


def line_text(line: SystemLine) -> str:
    return str(line.render())


def status_text(chat: ChatScreen) -> str:
    return chat.status.render().plain


# -- agents that fail to start -------------------------------------------------------------------

EXITS_AT_ONCE = (
    "import sys\n"
    "sys.stderr.write('loading credentials\\n')\n"
    "sys.stderr.write('fatal: MY_AGENT_API_KEY is not set\\n')\n"
    "sys.exit(3)\n"
)


async def test_agent_exiting_before_initialize_shows_its_stderr_tail(tmp_path: Path) -> None:
    launch = launch_from_cli(["--", sys.executable, "-c", EXITS_AT_ONCE])
    async with app_for(launch) as (_app, pilot, chat):
        await wait(pilot, lambda: chat.status.values.state == "stopped" and system_lines(chat), "the exit banner")
        await pilot.pause()
        banners = [line for line in system_lines(chat) if "agent stopped" in line_text(line)]
        assert len(banners) == 1, [line_text(line) for line in system_lines(chat)]
        text = line_text(banners[0])
        assert "exited with code 3" in text
        assert "fatal: MY_AGENT_API_KEY is not set" in text and "loading credentials" in text
        assert "Ctrl-R" in text
        assert "agent stopped" in status_text(chat)


async def test_agent_that_never_answers_initialize_times_out_with_a_clear_message(tmp_path: Path) -> None:
    silent = "import sys, time\nsys.stderr.write('thinking about it\\n')\ntime.sleep(60)\n"
    launch = launch_from_cli(["--init-timeout", "1", "--", sys.executable, "-c", silent])
    assert launch.init_timeout == 1
    async with app_for(launch) as (_app, pilot, chat):
        await wait(pilot, lambda: chat.status.values.state == "stopped", "the handshake timeout")
        await pilot.pause()
        texts = [line_text(line) for line in system_lines(chat)]
        timeouts = [text for text in texts if "initialize" in text]
        assert len(timeouts) == 1, texts
        assert "did not answer initialize within 1 s" in timeouts[0]
        assert "Ctrl-R" in timeouts[0]
        # The hung agent was stopped: no second banner about its exit.
        assert not [text for text in texts if "the agent stopped (" in text], texts
        assert "agent stopped" in status_text(chat)


# -- config.toml -----------------------------------------------------------------------------------


async def test_broken_config_is_reported_in_the_ui_and_the_demo_still_starts(user_dirs: dict[str, Path]) -> None:
    config = user_dirs["config"] / "config.toml"
    config.write_text('theme = "acp-light"\n\n[agents.claude\ncommand = ["claude"]\n', encoding="utf-8")
    launch = launch_from_cli([])
    assert launch.is_demo and launch.agent_name == "demo"
    async with app_for(launch) as (_app, pilot, chat):
        warnings = [line for line in system_lines(chat) if "config.toml" in line_text(line)]
        assert len(warnings) == 1
        assert f"{config}:3:" in line_text(warnings[0]) and "invalid TOML" in line_text(warnings[0])
        await wait(
            pilot,
            lambda: (
                chat.status.values.state == "idle"
                and [v for v in chat.conversation.entries if isinstance(v, AgentMessageView)]
            ),
            "the demo to greet",
        )
        welcome = [v for v in chat.conversation.entries if isinstance(v, AgentMessageView)][0]
        assert "acp-tui demo agent" in welcome.text


async def test_named_agent_from_config_is_what_runs(tmp_path: Path, user_dirs: dict[str, Path]) -> None:
    script = tmp_path / "echo-script.json"
    script.write_text(
        json.dumps(
            {
                "version": 2,
                "initialize": {
                    "protocolVersion": 2,
                    "agentCapabilities": {},
                    "agentInfo": {"name": "echo-agent", "version": "9.9"},
                },
                "turns": [
                    {
                        "steps": [
                            {"op": "respond_prompt"},
                            {"op": "user_message"},
                            {"op": "state", "state": "running"},
                            {
                                "op": "update",
                                "update": {
                                    "sessionUpdate": "agent_message_chunk",
                                    "messageId": "m-1",
                                    "content": {"type": "text", "text": "echo: $PROMPT_TEXT"},
                                },
                            },
                            {"op": "state", "state": "idle", "stopReason": "end_turn"},
                        ]
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    record = tmp_path / "echo-record.jsonl"
    config = user_dirs["config"] / "config.toml"
    command = [sys.executable, str(SCRIPTED_AGENT), str(script), "--record", str(record)]
    config.write_text(
        f'[agents.echo]\ncommand = {json.dumps(command)}\nenv = {{ ECHO_MODE = "loud" }}\n', encoding="utf-8"
    )

    launch = launch_from_cli(["echo"])
    assert launch.agent_argv == tuple(command) and launch.agent_name == "echo"
    assert dict(launch.env) == {"ECHO_MODE": "loud"} and not launch.is_demo and launch.warnings == ()
    async with app_for(launch) as (_app, pilot, chat):
        await wait(
            pilot,
            lambda: (
                chat.controller.session is not None
                and chat.controller.session.session_id is not None
                and chat.status.values.state == "idle"
            ),
            "the named agent's session",
        )
        header = chat.query_one(SessionHeader)
        assert header.values.agent == "echo-agent" and header.values.agent_version == "9.9"
        chat.prompt_input.focus()
        chat.prompt_input.load_text("hello named agent")
        await pilot.press("enter")
        await wait(
            pilot,
            lambda: any(
                v.text == "echo: hello named agent"
                for v in chat.conversation.entries
                if isinstance(v, AgentMessageView)
            ),
            "the echo",
        )
    prompts = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [m["params"]["prompt"][0]["text"] for m in prompts if m.get("method") == "session/prompt"] == [
        "hello named agent"
    ]


# -- the console script as a subprocess ------------------------------------------------------------


def console_script() -> str:
    """The installed `acp-tui` entry point of the interpreter running the tests."""
    beside = Path(sys.executable).parent / "acp-tui"
    found = str(beside) if beside.exists() else shutil.which("acp-tui")
    assert found is not None, "the acp-tui console script is not installed (pip install -e .)"
    return found


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [console_script(), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
    )


def test_console_script_missing_agent_is_one_line_and_127() -> None:
    result = run_cli("definitely-not-a-command-xyz")
    assert result.returncode == 127
    assert result.stderr.splitlines() == ["acp-tui: cannot run 'definitely-not-a-command-xyz': command not found"]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_console_script_version_paths_and_list_agents(user_dirs: dict[str, Path]) -> None:
    version = run_cli("--version")
    assert (version.returncode, version.stdout, version.stderr) == (0, f"acp-tui {__version__}\n", "")

    where = run_cli("--paths")
    assert where.returncode == 0 and where.stderr == ""
    rows = dict(line.split(None, 1) for line in where.stdout.splitlines())
    assert rows["config"] == str(user_dirs["config"] / "config.toml")
    assert rows["data"] == str(user_dirs["data"]) and rows["state"] == str(user_dirs["state"])

    empty = run_cli("--list-agents")
    assert empty.returncode == 0 and "No named agents" in empty.stdout

    (user_dirs["config"] / "config.toml").write_text(
        'default_agent = "echo"\n[agents.echo]\ncommand = ["python3", "-m", "echo_agent"]\n', encoding="utf-8"
    )
    listed = run_cli("--list-agents")
    assert listed.returncode == 0 and listed.stderr == ""
    assert "* echo  python3 -m echo_agent" in listed.stdout.splitlines()


@pytest.mark.parametrize("args", [["--list-agents"], ["--paths"], ["--version"]])
def test_a_reader_gone_before_the_listing_is_no_traceback(args: list[str]) -> None:
    """`acp-tui --list-agents | head -3`: the pipe's reader is closed before anything is written (deterministic:
    the read end is closed first); the command ends 141 like any writer to a closed pipe, without a traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [console_script(), *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=60,
            env=dict(os.environ),
        )
    finally:
        os.close(write_end)
    assert result.returncode == 141, result.stderr
    assert result.stderr == ""
