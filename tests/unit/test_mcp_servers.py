"""MCP servers and extra folders from the config reach the agent in session/new, load and resume (issue 26).

A scripted agent (tests/support/agents/scripted_agent.py) records every line it gets; what we send is checked
against the official schema of the negotiated version (tests/support/schema_check.py), `McpServer` included. A
transport or `additionalDirectories` the agent does not advertise is not sent, and a line says so.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui import secrets
from acp_tui.agent.dialect import SessionTools
from acp_tui.agent.session import AgentSession
from acp_tui.cli import build_launch, parse_argv
from acp_tui.config import parse_settings, resolve_mcp_servers
from acp_tui.launch_resolve import LaunchError
from acp_tui.mcp_servers import McpServer
from acp_tui.protocol import codec
from tests.support.agents import scripted_agent_argv
from tests.support.schema_check import def_validator, validate_client_message

STDIO = McpServer("files", "stdio", command="/usr/bin/env", args=("true",), env=(("LOG_LEVEL", "info"),))
HTTP = McpServer("web", "http", url="https://mcp.example.com/mcp", headers=(("Authorization", "Bearer xyz123"),))
SSE = McpServer("events", "sse", url="https://mcp.example.com/sse", headers=())

#: initialize results (shapes from the official schemas' `AgentCapabilities`, both versions)
V2_ALL = {
    "protocolVersion": 2,
    "info": {"name": "scripted", "version": "1"},
    "capabilities": {"session": {"mcp": {"stdio": {}, "http": {}}, "additionalDirectories": {}}},
}
V2_NONE = {"protocolVersion": 2, "info": {"name": "scripted", "version": "1"}, "capabilities": {"session": {}}}
V1_ALL = {
    "protocolVersion": 1,
    "agentCapabilities": {
        "loadSession": True,
        "mcpCapabilities": {"http": True, "sse": True},
        "sessionCapabilities": {"additionalDirectories": {}, "resume": {}},
    },
}
V1_STDIO_ONLY = {
    "protocolVersion": 1,
    "agentCapabilities": {"loadSession": True, "sessionCapabilities": {"resume": {}}},
}


def _run_script(tmp_path: Path, version: int, initialize: dict[str, Any]) -> tuple[list[str], Path]:
    script = tmp_path / "script.json"
    responses: dict[str, Any] = {"session/resume": {"result": {}}}
    if version == 1:
        responses["session/load"] = {"result": None}
    script.write_text(json.dumps({"version": version, "initialize": initialize, "responses": responses}))
    record = tmp_path / "record.jsonl"
    return scripted_agent_argv(script, record), record


def _received(record: Path, method: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    return [line for line in lines if line.get("method") == method]


async def _session_setups(
    tmp_path: Path, version: int, initialize: dict[str, Any], servers: tuple[McpServer, ...], folders: list[Path]
) -> tuple[AgentSession, list[dict[str, Any]]]:
    """Start, open a new session, then resume (and v1: load) one; every setup request the agent got."""
    argv, record = _run_script(tmp_path, version, initialize)
    session = AgentSession(argv, cwd=tmp_path, mcp_servers=servers, additional_directories=folders)
    try:
        await session.start()
        await session.others.open_session("old-1", history=False)
        if version == 1:
            await session.others.open_session("old-2", history=True)
    finally:
        await session.shutdown()
    setups = [m for method in ("session/new", "session/resume", "session/load") for m in _received(record, method)]
    return session, setups


@pytest.mark.parametrize(("version", "initialize"), [(2, V2_ALL), (1, V1_ALL)])
async def test_every_kind_reaches_an_agent_that_takes_it(tmp_path: Path, version: int, initialize: Any) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    servers = (STDIO, HTTP, SSE) if version == 1 else (STDIO, HTTP)
    session, setups = await _session_setups(tmp_path, version, initialize, servers, [extra])
    assert len(setups) == (3 if version == 1 else 2)
    for message in setups:
        validate_client_message(message, version)
        sent = message["params"]["mcpServers"]
        assert [server["name"] for server in sent] == [server.name for server in servers]
        for server in sent:
            def_validator(version, "McpServer").validate(server)
        stdio = sent[0]
        assert stdio["command"] == "/usr/bin/env" and stdio["args"] == ["true"]
        assert stdio["env"] == [{"name": "LOG_LEVEL", "value": "info"}]
        assert ("type" in stdio) == (version == 2)  # v2 tags stdio; v1's stdio has no tag
        assert sent[1] == {
            "type": "http",
            "name": "web",
            "url": "https://mcp.example.com/mcp",
            "headers": [{"name": "Authorization", "value": "Bearer xyz123"}],
        }
        assert message["params"]["additionalDirectories"] == [str(extra)]
    assert session.tools.refused == ()


@pytest.mark.parametrize(("version", "initialize"), [(2, V2_NONE), (1, V1_STDIO_ONLY)])
async def test_what_the_agent_does_not_advertise_is_not_sent_and_said(
    tmp_path: Path, version: int, initialize: Any
) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    session, setups = await _session_setups(tmp_path, version, initialize, (STDIO, HTTP, SSE), [extra])
    for message in setups:
        validate_client_message(message, version)
        names = [server["name"] for server in message["params"]["mcpServers"]]
        assert names == ([] if version == 2 else ["files"])  # v1: every agent takes stdio; v2 only if advertised
        assert "additionalDirectories" not in message["params"]
    # One line for all the servers (one per server filled a small screen), and one for the folders.
    servers, folders = session.tools.refused
    if version == 2:
        assert servers == "MCP servers 'files', 'web', 'events' not given to the agent: it takes no MCP servers"
    else:
        assert (
            servers == "MCP servers 'web' (http), 'events' (sse) not given to the agent: it accepts only stdio servers"
        )
    assert folders == f"extra folders not given to the agent: it does not accept additional directories ({extra})"


@pytest.mark.parametrize("version", [1, 2])
def test_wire_shapes_validate_against_mcp_server(version: int) -> None:
    validator = def_validator(version, "McpServer")
    for server in (STDIO, HTTP, SSE) if version == 1 else (STDIO, HTTP):
        validator.validate(codec.mcp_server_params(server, version))
    bare = McpServer("bare", "stdio", command="/bin/true")
    assert codec.mcp_server_params(bare, version)["env"] == []
    validator.validate(codec.mcp_server_params(bare, version))


# -- configuration ------------------------------------------------------------------------------------


CONFIG = """
[agents.claude]
command = ["claude-agent-acp"]
mcp_servers = ["files"]
add_dirs = ["lib"]

[agents.bare]
command = ["claude-agent-acp"]
mcp_servers = []

[agents.all]
command = ["claude-agent-acp"]

[mcp_servers.files]
command = ["true", "~/src"]
env = { LOG_LEVEL = "info", API_TOKEN = { command = ["SECRET_PROGRAM"] } }

[mcp_servers.web]
url = "https://mcp.example.com/mcp"
headers = { Authorization = { command = ["SECRET_PROGRAM"] } }

[mcp_servers.events]
url = "https://mcp.example.com/sse"
transport = "sse"
"""


@pytest.fixture
def secret_program(tmp_path: Path) -> str:
    program = tmp_path / "bin" / "print-secret"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\necho 'tok-from-a-password-manager'\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return str(program)


def _launch(tmp_path: Path, secret_program: str, *argv: str) -> Any:
    settings, warnings = parse_settings(CONFIG.replace("SECRET_PROGRAM", secret_program), "config.toml")
    assert warnings == []
    (tmp_path / "lib").mkdir(exist_ok=True)
    bin_dir = Path(sys.executable).parent
    environ = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    real = tmp_path / "bin" / "claude-agent-acp"
    real.write_text("#!/bin/sh\n")
    real.chmod(0o755)
    environ["PATH"] += f"{os.pathsep}{real.parent}"
    options, agent = parse_argv(list(argv))
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        return build_launch(options, agent, settings, [], environ)
    finally:
        os.chdir(cwd)


def test_config_declares_servers_once_and_agents_narrow_them(tmp_path: Path, secret_program: str) -> None:
    secrets.clear()
    launch = _launch(tmp_path, secret_program, "claude")
    assert [server.name for server in launch.mcp_servers] == ["files"]
    files = launch.mcp_servers[0]
    assert os.path.isabs(files.command) and files.args == (str(Path("~/src").expanduser()),)
    assert dict(files.env) == {"LOG_LEVEL": "info", "API_TOKEN": "tok-from-a-password-manager"}
    assert secrets.is_secret("tok-from-a-password-manager")
    assert launch.add_dirs == (tmp_path / "lib",)
    assert _launch(tmp_path, secret_program, "bare").mcp_servers == ()
    everything = _launch(tmp_path, secret_program, "all").mcp_servers
    assert [server.name for server in everything] == ["files", "web", "events"]
    assert dict(everything[1].headers) == {"Authorization": "tok-from-a-password-manager"}
    assert everything[2].transport == "sse"
    secrets.clear()


def test_command_line_picks_servers_and_folders_for_one_run(tmp_path: Path, secret_program: str) -> None:
    (tmp_path / "more").mkdir()
    launch = _launch(tmp_path, secret_program, "--mcp", "web", "--add-dir", "more", "claude")
    assert [server.name for server in launch.mcp_servers] == ["web"]
    assert launch.add_dirs == (tmp_path / "lib", tmp_path / "more")
    assert _launch(tmp_path, secret_program, "--no-mcp", "all").mcp_servers == ()
    with pytest.raises(LaunchError, match="--mcp nope: no such"):
        _launch(tmp_path, secret_program, "--mcp", "nope", "all")
    with pytest.raises(LaunchError, match="not a directory"):
        _launch(tmp_path, secret_program, "--add-dir", "missing", "all")
    secrets.clear()


def test_config_problems_are_warnings() -> None:
    text = """
[agents.a]
command = "x"
mcp_servers = ["ghost"]
[mcp_servers.both]
command = "x"
url = "https://x"
[mcp_servers.bad]
url = "https://x"
transport = "websocket"
[mcp_servers.nourl]
url = "mcp.example.com/mcp"
"""
    settings, warnings = parse_settings(text, "config.toml")
    assert list(settings.mcp_servers) == []
    assert settings.agents["a"].mcp_servers == ()
    joined = "\n".join(warnings)
    assert "'agents.a.mcp_servers' names no [mcp_servers] ghost" in joined
    assert "'mcp_servers.both' needs either 'command' (stdio) or 'url'" in joined
    assert "'mcp_servers.bad.transport' must be" in joined
    assert "'mcp_servers.nourl.url' must be an http:// or https:// URL" in joined


def test_a_missing_program_leaves_the_server_out_with_a_warning() -> None:
    settings, _ = parse_settings('[mcp_servers.x]\ncommand = "no-such-program-here"\n', "config.toml")
    servers, warnings = resolve_mcp_servers(settings.mcp_servers, search_path="/nonexistent")
    assert servers == [] and "cannot run 'no-such-program-here'" in warnings[0]


async def test_secrets_from_a_command_never_reach_the_log(tmp_path: Path, secret_program: str) -> None:
    secrets.clear()
    settings, _ = parse_settings(CONFIG.replace("SECRET_PROGRAM", secret_program), "config.toml")
    servers, _ = resolve_mcp_servers(settings.mcp_servers)
    argv, record = _run_script(tmp_path, 2, V2_ALL)
    log = tmp_path / "wire.jsonl"
    session = AgentSession(argv, cwd=tmp_path, mcp_servers=servers, log_path=log)
    try:
        await session.start()
    finally:
        await session.shutdown()
    assert "tok-from-a-password-manager" in record.read_text()  # the agent got it
    logged = log.read_text()
    assert "session/new" in logged and "mcp.example.com" in logged
    assert "tok-from-a-password-manager" not in logged
    secrets.clear()


async def test_the_conversation_says_what_was_given_and_what_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, secret_program: str
) -> None:
    from dataclasses import replace

    from acp_tui.controller.controller import SessionController
    from acp_tui.controller.controller_events import Note
    from tests.support.controller import ControllerEvents, ScriptedUser
    from tests.support.scripted_app import make_launch

    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    secrets.clear()
    config = f'[mcp_servers.files]\ncommand = ["true"]\nenv = {{ API_TOKEN = {{ command = ["{secret_program}"] }} }}\n'
    settings, _ = parse_settings(config, "config.toml")
    (stdio,), _ = resolve_mcp_servers(settings.mcp_servers)  # the value fetched from a command: a secret
    assert dict(stdio.env) == {"API_TOKEN": "tok-from-a-password-manager"}
    initialize = {**V2_NONE, "capabilities": {"session": {"mcp": {"stdio": {}}}}}
    argv, record = _run_script(tmp_path, 2, initialize)
    launch = replace(make_launch(argv, tmp_path), mcp_servers=(stdio, HTTP), add_dirs=(tmp_path,))
    events = ControllerEvents()
    ctl = SessionController(launch, asker=ScriptedUser([]), listener=events)
    try:
        assert await ctl.start()
        assert ctl.transcript.writer is not None
        transcript = ctl.transcript.writer.path
    finally:
        await ctl.shutdown()
    notes = [(e.text, e.severity) for e in events if isinstance(e, Note)]
    assert ("the agent is given 1 MCP server (files)", "info") in notes
    assert ("MCP server 'web' not given to the agent: it does not accept http servers", "warning") in notes
    assert any(text.startswith("extra folders not given") and severity == "warning" for text, severity in notes)
    assert "tok-from-a-password-manager" in record.read_text()  # the agent got it ...
    saved = transcript.read_text()
    assert "not given to the agent" in saved and "tok-from-a-password-manager" not in saved  # ... the transcript never
    secrets.clear()


# -- the file guards: an extra folder the agent was given is inside the session ------------------------


async def test_an_extra_folder_given_is_inside_for_the_file_guards(tmp_path: Path) -> None:
    import msgspec

    from acp_tui.services.files import FileService
    from tests.support.files import Context, ScriptedAsker, read, rpc_error, write

    (tmp_path / "project").mkdir()
    extra = tmp_path / "lib"
    extra.mkdir()
    (extra / "a.txt").write_text("lib text\n")
    asker = ScriptedAsker()  # asked nothing: a question would fail the test (empty script)
    service = FileService(asker=asker, outside_writes="refuse", outside_reads="refuse")
    context = Context(tmp_path / "project")
    service.bind(msgspec.structs.replace(context.context(), roots=(extra.resolve(),)))
    assert await read(service, extra / "a.txt") == "lib text\n"
    await write(service, extra / "b.txt", "new\n")
    assert (extra / "b.txt").read_text() == "new\n"
    assert [access.outside for access in context.accesses] == [False, False]
    # a folder beside it is still outside: refused by the settings, never written
    error = await rpc_error(write(service, tmp_path / "other.txt", "x"))
    assert 'outside_writes = "refuse"' in error.message and not (tmp_path / "other.txt").exists()


async def test_only_folders_the_agent_takes_widen_the_guards(tmp_path: Path) -> None:
    extra = tmp_path / "lib"
    extra.mkdir()
    for initialize, expected in ((V1_ALL, (extra.resolve(),)), (V1_STDIO_ONLY, ())):
        argv, _ = _run_script(tmp_path, 1, initialize)
        from acp_tui.services.files import FileService

        service = FileService()
        session = AgentSession(argv, cwd=tmp_path, additional_directories=[extra], services=[service])
        try:
            await session.connect()
            await session.initialize()
            assert service.context.roots == expected
        finally:
            await session.shutdown()


async def test_folders_dropped_by_the_retry_without_tools_do_not_widen_the_guards(tmp_path: Path) -> None:
    """The agent refused `session/new` with the folder; it was started without it, so the folder is outside."""
    from acp_tui.services.files import FileService

    extra = tmp_path / "lib"
    extra.mkdir()
    (tmp_path / "project").mkdir()
    script = tmp_path / "script.json"
    refusal = {"code": -32602, "message": "bad additionalDirectories"}
    script.write_text(json.dumps({"version": 2, "initialize": V2_ALL, "refuse_tools": refusal}))
    record = tmp_path / "record.jsonl"
    service = FileService()
    session = AgentSession(
        scripted_agent_argv(script, record),
        cwd=tmp_path / "project",
        additional_directories=[extra],
        services=[service],
    )
    try:
        await session.connect()
        await session.initialize()
        assert service.context.roots == (extra.resolve(),)  # offered: the agent advertised the capability
        await session.new_session()
        assert session.tools.additional_directories == ()
        after: tuple[Path, ...] = service.context.roots
        assert after == ()  # not accepted: outside again
    finally:
        await session.shutdown()
    news = [m["params"].get("additionalDirectories") for m in _received(record, "session/new")]
    assert news == [[str(extra)], None] or news == [[str(extra)], []], news  # retried once, without the folder


# -- the catalogue of well-known agents --------------------------------------------------------------


def test_list_agents_shows_the_catalogue_marked_installed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from acp_tui.catalogue import CATALOGUE, CHECKED
    from acp_tui.cli import _print_agents

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "codex-acp").write_text("#!/bin/sh\n")
    (bin_dir / "codex-acp").chmod(0o755)
    settings, _ = parse_settings('[agents.gemini]\ncommand = "gemini --acp"\n', "config.toml")
    assert _print_agents(settings, sys.stdout, search_path=str(bin_dir)) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"Well-known ACP agents (acp-tui NAME runs one; commands checked {CHECKED}):" in out
    rows = {line.split()[0]: line for line in out if line.startswith("  ")}
    assert set(rows) == {agent.name for agent in CATALOGUE}
    assert rows["codex"].endswith("  installed")
    assert rows["claude"].endswith("install: npm install -g @agentclientprotocol/claude-agent-acp")
    assert rows["gemini"].endswith("(the named agent above wins)")


def test_a_catalogue_name_runs_its_command_unless_config_or_the_user_says_otherwise(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("claude-agent-acp", "gemini"):
        (bin_dir / program).write_text("#!/bin/sh\n")
        (bin_dir / program).chmod(0o755)
    environ = {"PATH": str(bin_dir)}
    settings, _ = parse_settings("", "config.toml")

    def launch(*argv: str, config: Any = settings) -> Any:
        options, agent = parse_argv(list(argv))
        return build_launch(options, agent, config, [], environ)

    claude = launch("claude", "--flag")
    assert claude.agent_argv == ("claude-agent-acp", "--flag") and claude.agent_name == "claude"
    assert launch("gemini").agent_argv == ("gemini", "--acp")
    assert launch("gemini", "--acp").agent_argv == ("gemini", "--acp")  # spelled out: the user's own command
    named, _ = parse_settings('[agents.claude]\ncommand = "gemini --acp"\n', "config.toml")
    assert launch("claude", config=named).agent_argv == ("gemini", "--acp")
    with pytest.raises(LaunchError, match=r"command not found \(OpenAI Codex .*npm install -g @zed-industries"):
        launch("codex")


def test_the_demo_welcome_names_the_installed_agents(tmp_path: Path) -> None:
    from acp_tui.catalogue import DEMO_AGENTS_ENV
    from acp_tui.demo.content import WELCOME, welcome

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude-agent-acp").write_text("#!/bin/sh\n")
    (bin_dir / "claude-agent-acp").chmod(0o755)
    settings, _ = parse_settings("", "config.toml")
    options, agent = parse_argv([])
    demo = build_launch(options, agent, settings, [], {"PATH": str(bin_dir)})
    assert demo.is_demo and demo.env[DEMO_AGENTS_ENV] == "claude"
    assert DEMO_AGENTS_ENV not in build_launch(options, agent, settings, [], {"PATH": str(tmp_path)}).env
    text = welcome(demo.env[DEMO_AGENTS_ENV])
    assert text.startswith(WELCOME) and "ACP agents installed here: `claude`; run one with `acp-tui NAME`" in text
    assert welcome("") == WELCOME and welcome("[x](javascript:1),`rm`") == WELCOME  # only plain names


def test_the_given_line_keeps_servers_and_folders_apart() -> None:
    """ "MCP servers files, web and extra folders /x" read as if the folder were a third server."""
    line = SessionTools((STDIO, HTTP), ("/src/lib", "/src/docs")).given()
    assert line == "the agent is given 2 MCP servers (files, web) and 2 extra folders (/src/lib, /src/docs)"
    assert SessionTools((), ("/src/lib",)).given() == "the agent is given 1 extra folder (/src/lib)"
