"""The F4 panel lists the MCP servers and extra folders the agent was given, and the ones it was not and
why; names and transports only, never an env value, header or url that may carry a secret. The `@` picker
indexes the extra folders too (rows written from `~`), and a mention of one of their files is sent."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Static

from acp_tui.agent.dialect import SessionTools
from acp_tui.mcp_servers import McpServer
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.config_picker import ConfigPickerScreen
from tests.support.scripted_app import ARM_DELAY, SIZE, ScriptedRun, isolate_user_dirs, ready, wait_until

SECRET = "tok-6f1e-never-shown"
STDIO = McpServer("files", "stdio", command="/usr/bin/env", args=("--token", SECRET), env=(("API_TOKEN", SECRET),))
HTTP = McpServer("web", "http", url=f"https://mcp.example/{SECRET}", headers=(("Authorization", SECRET),))
MODE = {
    "type": "select",
    "configId": "mode",
    "name": "Mode",
    "currentValue": "ask",
    "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
}


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)


def test_the_lines_name_what_was_given_and_what_was_not_never_a_value() -> None:
    tools = SessionTools((STDIO,), ("/src/lib",), ("MCP server 'web' not given to the agent: it does not accept http",))
    assert tools.lines() == (
        "MCP server files (stdio)",
        "extra folder /src/lib",
        "MCP server 'web' not given to the agent: it does not accept http",
    )
    assert SECRET not in "".join(tools.lines())
    assert SessionTools().lines() == ()


async def test_f4_lists_the_agent_tools_below_the_settings(tmp_path: Path) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    initialize = {
        "protocolVersion": 2,
        "info": {"name": "scripted", "version": "1"},
        "capabilities": {"session": {"mcp": {"stdio": {}}, "additionalDirectories": {}}},
    }
    run = ScriptedRun(
        tmp_path, {"version": 2, "initialize": initialize, "session_new": {"sessionId": "t-1", "configOptions": [MODE]}}
    )
    app = AcpApp(replace(run.launch, mcp_servers=(STDIO, HTTP), add_dirs=(extra,)), arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        (new,) = [m for m in run.records() if m.get("method") == "session/new"]
        assert [server["name"] for server in new["params"]["mcpServers"]] == ["files"]
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")
        text = str(app.screen.query_one("#config-tools", Static).render())
        assert "MCP server files (stdio)" in text
        assert f"extra folder {extra.resolve()}" in text or f"extra folder {extra}" in text
        assert "MCP server 'web' not given to the agent: it does not accept http servers" in text
        assert SECRET not in text


async def test_an_agent_refusing_the_servers_gets_a_session_without_them_and_a_line_says_so(tmp_path: Path) -> None:

    from acp_tui.agent.session import AgentSession
    from tests.support.agents import scripted_agent_argv

    script = tmp_path / "script.json"
    initialize = {
        "protocolVersion": 2,
        "info": {"name": "scripted", "version": "1"},
        "capabilities": {"session": {"mcp": {"stdio": {}}}},
    }
    refusal = {"code": -32602, "message": "bad mcpServers"}
    script.write_text(json.dumps({"version": 2, "initialize": initialize, "refuse_tools": refusal}))
    record = tmp_path / "record.jsonl"
    session = AgentSession(scripted_agent_argv(script, record), cwd=tmp_path, mcp_servers=[STDIO])
    try:
        await session.connect()
        await session.initialize()
        assert await session.new_session()
    finally:
        await session.shutdown()
    sent = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    news = [m["params"]["mcpServers"] for m in sent if m.get("method") == "session/new"]
    assert [[server["name"] for server in servers] for servers in news] == [["files"], []]  # retried once, bare
    assert session.tools.mcp_servers == ()
    (line,) = session.tools.refused
    assert "refused a session with its MCP servers" in line and "bad mcpServers" in line and SECRET not in line


async def test_the_at_picker_lists_an_extra_folder_under_home_as_tilde_and_sends_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_tui.ui.widgets.file_picker import FilePicker

    home = tmp_path / "home"
    extra = home / "extlib"
    (extra / "notes").mkdir(parents=True)
    (extra / "notes" / "zebra-guide.md").write_text("# zebra\n")
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("print('hi')\n")
    monkeypatch.setenv("HOME", str(home))
    initialize = {
        "protocolVersion": 2,
        "info": {"name": "scripted", "version": "1"},
        "capabilities": {"session": {"additionalDirectories": {}}},
    }
    run = ScriptedRun(tmp_path, {"version": 2, "initialize": initialize})
    app = AcpApp(replace(run.launch, cwd=project, add_dirs=(extra,)), arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        picker = chat.query_one(FilePicker)
        chat.prompt_input.focus()
        await pilot.press("at", *"zebra")
        await wait_until(
            pilot, lambda: [m.path for m in picker.shown][:1] == ["~/extlib/notes/zebra-guide.md"], "the extra file"
        )
        await pilot.press("tab")
        await wait_until(pilot, lambda: chat.prompt_input.text == "@~/extlib/notes/zebra-guide.md ", "the chip")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "session/prompt" in run.methods(), "the prompt sent")
    (prompt,) = [m for m in run.records() if m.get("method") == "session/prompt"]
    sent = json.dumps(prompt["params"]["prompt"])
    assert (extra / "notes" / "zebra-guide.md").as_uri() in sent  # the mention is the extra folder's file
