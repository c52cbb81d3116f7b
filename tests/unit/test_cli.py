"""The command line: option/agent splitting, agent resolution, clear one-line errors and exit codes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui import __version__
from acp_tui.cli import main, parse_argv
from acp_tui.launch import Launch
from tests.support.cli import run


@pytest.fixture(autouse=True)
def isolated_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every test gets its own config/data/state dirs and no log variable from the outer shell."""
    for name in ("config", "data", "state"):
        monkeypatch.setenv(f"ACP_TUI_{name.upper()}_DIR", str(tmp_path / name))
    monkeypatch.delenv("ACP_TUI_LOG", raising=False)
    (tmp_path / "config").mkdir()
    return tmp_path


@pytest.fixture
def fake_agent(tmp_path: Path) -> Path:
    """An executable file standing in for an agent on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agent = bin_dir / "fake-agent"
    agent.write_text("#!/bin/sh\nexit 0\n")
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR)
    return agent


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config" / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("argv", "agent", "cwd", "protocol"),
    [
        (["gemini", "--acp"], ["gemini", "--acp"], None, "auto"),
        (["--cwd", "/tmp", "gemini", "--cwd", "x"], ["gemini", "--cwd", "x"], "/tmp", "auto"),
        (
            ["--protocol=1", "--", "npx", "@agentclientprotocol/claude-agent-acp", "--foo"],
            ["npx", "@agentclientprotocol/claude-agent-acp", "--foo"],
            None,
            "1",
        ),
        (["--protocol", "2", "--", "--weird-agent", "-h"], ["--weird-agent", "-h"], None, "2"),
        (["--cwd", "-dashdir", "opencode", "acp"], ["opencode", "acp"], "-dashdir", "auto"),
        (["codex-acp", "--", "--version"], ["codex-acp", "--", "--version"], None, "auto"),
        (
            ["--cwd=-d", "--protocol=2", "agent", "-h", "--", "--cwd", "x"],
            ["agent", "-h", "--", "--cwd", "x"],
            "-d",
            "2",
        ),
        (["--", "--", "agent"], ["--", "agent"], None, "auto"),
        ([], [], None, "auto"),
        (["--"], [], None, "auto"),
    ],
)
def test_split_options_from_agent(argv: list[str], agent: list[str], cwd: str | None, protocol: str) -> None:
    options, agent_argv = parse_argv(argv)
    assert agent_argv == agent
    assert options.cwd == cwd
    assert options.protocol == protocol


def test_launch_passes_agent_args_verbatim(fake_agent: Path, tmp_path: Path) -> None:
    code, launches = run(
        ["--theme", "nord", "--init-timeout", "5", "--log", "out.log", str(fake_agent), "--theme", "x", "-h"]
    )
    assert code == 7
    (launch,) = launches
    assert launch.agent_argv == (str(fake_agent), "--theme", "x", "-h")
    assert launch.agent_name == "fake-agent"
    assert launch.theme == "nord" and launch.init_timeout == 5.0 and launch.protocol == "auto"
    assert launch.log_path == Path.cwd() / "out.log"
    assert launch.cwd == Path.cwd() and launch.cwd.is_absolute()
    assert dict(launch.env) == {} and launch.warnings == () and not launch.is_demo


def test_bare_command_found_on_path(monkeypatch: pytest.MonkeyPatch, fake_agent: Path) -> None:
    monkeypatch.setenv("PATH", str(fake_agent.parent))
    monkeypatch.setenv("ACP_TUI_LOG", "/tmp/acp.log")
    code, (launch,) = run(["--protocol", "2", "fake-agent", "--acp"])
    assert code == 7
    assert launch.agent_argv == ("fake-agent", "--acp")
    assert launch.protocol == 2 and launch.log_path == Path("/tmp/acp.log")


def test_no_agent_runs_the_demo() -> None:
    code, (launch,) = run([])
    assert code == 7
    assert launch.agent_argv == (sys.executable, "-m", "acp_tui.demo")
    assert launch.is_demo and launch.agent_name == "demo"


def test_missing_agent_exits_127_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, launches = run(["definitely-not-an-agent-xyz", "--acp"])
    assert code == 127 and launches == []
    err = capsys.readouterr().err
    assert err == "acp-tui: cannot run 'definitely-not-an-agent-xyz': command not found\n"


def test_missing_path_exits_127(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run([str(tmp_path / "nope")])
    assert code == 127
    assert capsys.readouterr().err == f"acp-tui: cannot run '{tmp_path / 'nope'}': no such file\n"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_non_executable_file_exits_126(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "not-exec"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    code, launches = run([str(script)])
    assert code == 126 and launches == []
    assert capsys.readouterr().err == f"acp-tui: cannot run '{script}': permission denied\n"
    monkeypatch.setenv("PATH", str(tmp_path))
    code, _ = run(["not-exec"])
    assert code == 126
    assert capsys.readouterr().err == "acp-tui: cannot run 'not-exec': permission denied\n"
    code, _ = run([str(tmp_path)])
    assert code == 126
    assert "is a directory" in capsys.readouterr().err


def test_bad_cwd_is_a_usage_error(capsys: pytest.CaptureFixture[str], fake_agent: Path) -> None:
    code, _ = run(["--cwd", "/no/such/dir", str(fake_agent)])
    assert code == 2
    assert capsys.readouterr().err == "acp-tui: --cwd '/no/such/dir': not a directory\n"


def test_an_unknown_theme_is_a_usage_error_that_lists_the_themes(capsys: pytest.CaptureFixture[str]) -> None:
    """`--theme nosuchtheme` used to start with the default palette and one easily missed toast."""
    code, launches = run(["--theme", "nosuchtheme", "gemini"])
    assert code == 2 and launches == []
    err = capsys.readouterr().err
    assert "acp-tui: error: option --theme: unknown theme 'nosuchtheme'" in err
    assert "acp-dark" in err and "acp-light" in err and "acp-ansi" in err and "nord" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--bogus"])[0] == 2
    assert run(["--protocol", "3"])[0] == 2
    assert run(["--init-timeout", "-1"])[0] == 2
    assert run(["--vers"])[0] == 2  # no abbreviations: a new flag must not change an old command line
    assert "usage: acp-tui" in capsys.readouterr().err


def test_named_agent_with_env_and_cwd(tmp_path: Path, fake_agent: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    write_config(
        tmp_path,
        f'theme = "gruvbox"\ninit_timeout = 9\n[agents.mine]\ncommand = ["{fake_agent}", "--acp"]\n'
        f'env = {{ TOKEN = "abc" }}\ncwd = "{work}"\n',
    )
    code, (launch,) = run(["mine", "--extra"])
    assert code == 7
    assert launch.agent_argv == (str(fake_agent), "--acp", "--extra")
    assert launch.agent_name == "mine"
    assert dict(launch.env) == {"TOKEN": "abc"}
    assert launch.cwd == work
    assert launch.theme == "gruvbox" and launch.init_timeout == 9.0
    code, (launch,) = run(["--cwd", str(tmp_path), "--theme", "nord", "mine"])
    assert launch.cwd == tmp_path and launch.theme == "nord"


def test_named_agent_env_path_is_used_to_find_the_command(tmp_path: Path, fake_agent: Path) -> None:
    write_config(tmp_path, f'[agents.p]\ncommand = "fake-agent"\nenv = {{ PATH = "{fake_agent.parent}" }}\n')
    code, (launch,) = run(["p"])
    assert code == 7 and launch.agent_argv == ("fake-agent",)


def test_default_agent_from_config(tmp_path: Path, fake_agent: Path) -> None:
    write_config(tmp_path, f'default_agent = "d"\n[agents.d]\ncommand = ["{fake_agent}"]\n')
    code, (launch,) = run([])
    assert launch.agent_argv == (str(fake_agent),) and launch.agent_name == "d" and not launch.is_demo


def test_default_agent_may_name_an_installed_registry_agent(tmp_path: Path, fake_agent: Path) -> None:
    """config.toml's `default_agent = "ID"` runs the installed registry agent of that id (issue 41)."""
    from acp_tui.registry.manifest import InstalledAgent, Pointer, agents_root, manifest_bytes, write_pointer

    folder = agents_root() / "tiny-bin" / "1.0.0"
    folder.mkdir(parents=True)
    agent = InstalledAgent("tiny-bin", "Tiny", "1.0.0", "binary", (str(fake_agent), "--acp"))
    (folder / "acp-tui-install.json").write_bytes(manifest_bytes(agent))
    write_pointer("tiny-bin", Pointer("1.0.0"))
    write_config(tmp_path, 'default_agent = "tiny-bin"\n')
    code, (launch,) = run([])
    assert code == 7 and not launch.is_demo and not launch.warnings
    assert launch.agent_name == "tiny-bin" and launch.agent_argv == (str(fake_agent), "--acp")


def test_a_default_agent_neither_named_nor_installed_runs_the_demo_and_says_why(tmp_path: Path) -> None:
    write_config(tmp_path, 'default_agent = "ghost"\n')
    code, (launch,) = run([])
    assert code == 7 and launch.is_demo
    assert launch.warnings == (
        "default_agent 'ghost' is neither under [agents] in config.toml nor an installed registry agent "
        "(acp-tui agents); running the demo",
    )


def test_a_default_agent_in_the_registry_not_installed_names_the_add_command_in_print_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index.json"
    entry = {
        "id": "far-agent",
        "name": "Far",
        "version": "1.0.0",
        "description": "d",
        "distribution": {"npx": {"package": "far-agent@1.0.0"}},
    }
    index.write_text(json.dumps({"version": "1.0.0", "agents": [entry], "extensions": []}), encoding="utf-8")
    monkeypatch.setenv("ACP_TUI_REGISTRY", str(index))
    write_config(tmp_path, 'default_agent = "far-agent"\n')
    code, launches = run(["-p", "hello"])
    assert code == 127 and not launches
    assert "install it with  acp-tui add far-agent" in capsys.readouterr().err


def test_broken_config_warns_and_uses_defaults(tmp_path: Path, fake_agent: Path) -> None:
    path = write_config(tmp_path, 'theme = "nord"\ntheme = "twice"\n')
    code, (launch,) = run([str(fake_agent)])
    assert code == 7
    assert launch.theme is None
    assert len(launch.warnings) == 1 and launch.warnings[0].startswith(f"{path}:2:")


def test_broken_config_is_explained_when_the_agent_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, "[agents.mine]\ncommand = [\n")
    code, _ = run(["mine"])
    assert code == 127
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"acp-tui: warning: {path}:3:")
    assert err[1] == "acp-tui: cannot run 'mine': command not found"


def test_npx_display_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npx = bin_dir / "npx"
    npx.write_text("#!/bin/sh\n")
    npx.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    _, (launch,) = run(["npx", "-y", "@agentclientprotocol/claude-agent-acp@latest"])
    assert launch.agent_name == "claude-agent-acp"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == (0, [])
    assert capsys.readouterr().out == f"acp-tui {__version__}\n"


def test_help_shows_real_agents(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--help"]) == (0, [])
    out = capsys.readouterr().out
    for example in (
        "claude-agent-acp",
        "npx @agentclientprotocol/claude-agent-acp",
        "codex-acp",
        "gemini --acp",
        "opencode acp",
        "--cwd",
        "--protocol",
    ):
        assert example in out
    assert "zed-industries" not in out and "claude-code-acp" not in out  # the adapter's old name


def test_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--paths"]) == (0, [])
    out = capsys.readouterr().out
    assert f"config  {tmp_path / 'config' / 'config.toml'}\n" in out
    assert f"data    {tmp_path / 'data'}\n" in out
    assert f"state   {tmp_path / 'state'}\n" in out


def test_list_agents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--list-agents"]) == (0, [])
    assert "No named agents" in capsys.readouterr().out
    write_config(
        tmp_path,
        'default_agent = "claude"\n[agents.claude]\ncommand = ["npx", "@agentclientprotocol/claude-agent-acp"]\n'
        '[agents.gem]\ncommand = "gemini --acp"\nenv = { SECRET = "hunter2" }\n',
    )
    assert run(["--list-agents"]) == (0, [])
    out = capsys.readouterr().out
    assert "* claude  npx @agentclientprotocol/claude-agent-acp" in out
    assert "  gem     gemini --acp  (env SECRET)" in out
    assert "hunter2" not in out


def test_list_agents_names_the_mcp_servers_and_what_each_agent_narrows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    servers = '[mcp_servers.files]\ncommand = ["true"]\n[mcp_servers.web]\nurl = "https://mcp.example.com/mcp"\n'
    write_config(tmp_path, servers)
    assert run(["--list-agents"]) == (0, [])
    out = capsys.readouterr().out
    assert "No named agents" in out  # and still the servers every agent gets
    assert "MCP servers (every agent's, unless it names its own): files, web" in out
    agents = (
        '[agents.a]\ncommand = "a-acp"\nmcp_servers = ["web"]\nadd_dirs = ["~/lib"]\n'
        '[agents.b]\ncommand = "b-acp"\nmcp_servers = []\n'
    )
    write_config(tmp_path, servers + agents)
    assert run(["--list-agents"]) == (0, [])
    out = capsys.readouterr().out
    assert "  a  a-acp  (MCP servers web)  (extra folders ~/lib)" in out
    assert "  b  b-acp  (no MCP servers)" in out


def test_list_agents_with_a_broken_config_says_where_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config that does not parse used to list "No named agents" (with a warning above it that read
    like a footnote): the user's agents are there, the file is broken."""
    path = write_config(tmp_path, '[agents.claude]\ncommand = ["npx", "claude-agent-acp"\n')
    assert run(["--list-agents"]) == (1, [])
    captured = capsys.readouterr()
    assert "No named agents" not in captured.out + captured.err
    assert captured.err.startswith(f"acp-tui: cannot list the named agents: the config is broken: {path}:")
    assert "invalid TOML" in captured.err and captured.err.count("\n") == 1


def test_keyboard_interrupt_is_not_a_traceback(fake_agent: Path) -> None:
    def runner(launch: Launch) -> int:
        raise KeyboardInterrupt

    assert main([str(fake_agent)], runner=runner) == 130


def test_cli_and_text_core_do_not_import_the_ui() -> None:
    import subprocess

    code = (
        "import sys, acp_tui.cli, acp_tui.config, acp_tui.paths, acp_tui.ansi, acp_tui.sanitize;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'textual')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_client_terminals_follow_the_setting_and_the_flag_wins(tmp_path: Path, fake_agent: Path) -> None:
    code, (launch,) = run([str(fake_agent)])
    assert code == 7 and launch.client_terminals  # on by default
    write_config(tmp_path, "client_terminals = false\n")
    code, (launch,) = run([str(fake_agent)])
    assert not launch.client_terminals
    write_config(tmp_path, "client_terminals = true\n")
    code, (launch,) = run(["--no-client-terminals", str(fake_agent), "--no-client-terminals"])
    assert not launch.client_terminals
    assert launch.agent_argv == (str(fake_agent), "--no-client-terminals")  # after the agent: the agent's


def test_the_collector_is_off_while_the_ui_is_imported_and_on_once_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up (issue 27): no collection walks the UI's imports; the UI itself runs with the collector on."""
    import gc

    import acp_tui.ui.app
    from acp_tui import cli
    from tests.support.app_run import make_launch

    enabled_in_run: list[bool] = []

    def fake_run(launch: Launch, **_: object) -> int:
        enabled_in_run.append(gc.isenabled())
        return 0

    monkeypatch.setattr(acp_tui.ui.app, "run", fake_run)
    threshold = gc.get_threshold()
    try:
        runner = cli._default_runner()
        assert not gc.isenabled()
        assert runner(make_launch(["agent"], cwd=Path.cwd())) == 0
        assert enabled_in_run == [True]
        assert gc.isenabled()
        assert gc.get_threshold()[0] == cli.GC_YOUNG_THRESHOLD
    finally:
        gc.enable()
        gc.unfreeze()
        gc.set_threshold(*threshold)


_WITHOUT_TLS = """
import asyncio.base_events, sys
from pathlib import Path
from acp_tui import paths
paths.history_file(Path("/work/project"))
import acp_tui.ui.app, acp_tui.agent.process

async def talk() -> bytes:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "print(input())", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    out, _ = await child.communicate(b"over the pipes")
    return out

print(asyncio.run(talk()).decode().strip())
print(sorted(m for m in ("ssl", "_ssl", "_hashlib", "hashlib", "hmac") if m in sys.modules))
maps = open("/proc/self/maps").read() if sys.platform == "linux" else ""
print("libcrypto" in maps, "libssl" in maps)
print(asyncio.base_events.ssl)
import ssl
print(ssl.PROTOCOL_TLS_CLIENT.name)
"""


def test_the_command_runs_its_event_loop_without_mapping_openssl() -> None:
    """asyncio is imported with `ssl` hidden (`import_asyncio_without_tls`), and the history's digest comes from
    CPython's own SHA-256, so the UI, the agent's pipes and the history never map OpenSSL's libraries (~4.5 MB
    resident); `ssl` itself still imports afterwards."""
    code = "from acp_tui import cli\ncli.import_asyncio_without_tls()\n" + _WITHOUT_TLS
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert lines[0] == "over the pipes"
    assert lines[1] == "[]"
    assert lines[2] == "False False"  # (the maps are read on Linux only)
    assert lines[3] == "None"
    assert lines[4] == "PROTOCOL_TLS_CLIENT"


def test_asyncio_already_imported_keeps_its_tls() -> None:
    """Hiding `ssl` is only for a fresh process: an asyncio imported before (a host, a test runner) is left as is."""
    code = "import asyncio\nfrom acp_tui import cli\ncli.import_asyncio_without_tls()\n" + _WITHOUT_TLS
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert lines[0] == "over the pipes"
    assert "ssl" in lines[1]
    assert lines[3] != "None"
