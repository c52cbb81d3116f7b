"""Settings load from config.toml; broken files give a warning naming the file and line, never an error."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from acp_tui import paths
from acp_tui.config import NamedAgent, Settings, load_settings

GOOD = """\
theme = "nord"
default_agent = "claude"
init_timeout = 12

[agents.claude]
command = ["npx", "@agentclientprotocol/claude-agent-acp"]
env = { ANTHROPIC_LOG = "debug" }
cwd = "~/src"

[agents.gemini]
command = "gemini --acp"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file_gives_defaults_silently(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "config.toml") == (Settings(), [])


def test_good_file(tmp_path: Path) -> None:
    settings, warnings = load_settings(write(tmp_path, GOOD))
    assert warnings == []
    assert settings.theme == "nord"
    assert settings.default_agent == "claude"
    assert settings.init_timeout == 12.0
    assert settings.agents["claude"] == NamedAgent(
        command=["npx", "@agentclientprotocol/claude-agent-acp"], env={"ANTHROPIC_LOG": "debug"}, cwd="~/src"
    )
    assert settings.agents["gemini"] == NamedAgent(command=["gemini", "--acp"])


def test_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, 'theme = "nord"\n\n[agents.x]\ncommand = [\n')
    settings, warnings = load_settings(path)
    assert settings == Settings(broken=warnings[0].removesuffix("; using default settings"))
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{path}:5:")
    assert "invalid TOML" in warnings[0] and "default" in warnings[0]


def test_wrong_types_name_the_key_and_keep_the_rest(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'theme = 3\ninit_timeout = "soon"\nmystery = true\n\n'
        '[agents.good]\ncommand = ["good-agent"]\nenv = { A = "1", B = 2 }\n\n'
        '[agents.bad]\ncommand = ["x", 1]\n\n[agents.nocmd]\ncwd = "/"\n',
    )
    settings, warnings = load_settings(path)
    assert settings.theme is None and settings.init_timeout == 30.0
    assert settings.agents == {"good": NamedAgent(command=["good-agent"], env={"A": "1"})}
    text = "\n".join(warnings)
    assert f"{path}:1: 'theme' must be a string" in text
    assert f"{path}:2: 'init_timeout' must be a positive number" in text
    assert "unknown setting 'mystery'" in text
    assert f"{path}:7: 'agents.good.env.B' must be a string" in text
    assert f"{path}:10: 'agents.bad.command' must be a string or a list of strings" in text
    assert "'agents.nocmd' has no 'command'" in text


def test_default_agent_must_be_named_or_a_registry_id(tmp_path: Path) -> None:
    """A registry id is kept (whether it is installed is the launch's to say: tests/unit/test_cli.py); a name that
    cannot be one is dropped with a warning."""
    settings, warnings = load_settings(write(tmp_path, 'default_agent = "ghost"\n'))
    assert settings.default_agent == "ghost" and warnings == []
    settings, warnings = load_settings(write(tmp_path, 'default_agent = "Not An Id"\n'))
    assert settings.default_agent is None
    assert warnings == [
        f"{tmp_path / 'config.toml'}: default_agent 'Not An Id' is not defined under [agents] (nor a registry agent's id)"
    ]


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    settings, warnings = load_settings(tmp_path)  # a directory
    assert settings == Settings(broken=warnings[0].removesuffix("; using defaults")) and str(tmp_path) in warnings[0]
    path = tmp_path / "config.toml"
    path.write_bytes(b'theme = "ok"\ntheme2 = "\xff"\n')
    settings, warnings = load_settings(path)
    assert settings == Settings(broken=warnings[0].removesuffix("; using defaults")) and warnings[0].startswith(
        f"{path}:2:"
    )


def test_path_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ACP_TUI_CONFIG_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("ACP_TUI_STATE_DIR", str(tmp_path / "s"))
    assert paths.config_file() == tmp_path / "c" / "config.toml"
    assert paths.transcripts_dir() == tmp_path / "d" / "transcripts"
    assert paths.log_dir() == tmp_path / "s" / "logs"
    one = paths.history_file(Path("/work/project"))
    assert one.parent == tmp_path / "d" / "history"
    # the digest is hashlib's SHA-256, whichever module computes it: existing histories keep their names
    assert one.name == f"project-{hashlib.sha256(b'/work/project').hexdigest()[:16]}.jsonl"
    assert one != paths.history_file(Path("/other/project"))
    assert not (tmp_path / "d").exists()
    assert paths.ensure_dir(paths.log_dir()).is_dir()


def test_default_paths_use_the_app_name(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ACP_TUI_CONFIG_DIR", "ACP_TUI_DATA_DIR", "ACP_TUI_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert "acp-tui" in paths.config_dir().parts
    assert "acp-tui" in paths.data_dir().parts
    assert "acp-tui" in paths.state_dir().parts
