"""An agent's `env` in config.toml may name a command whose output is the key (docs/protocol.md §2.4)."""

from __future__ import annotations

import shlex
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui import secrets
from acp_tui.cli import main
from acp_tui.config import NamedAgent, parse_settings, resolve_env
from acp_tui.launch import Launch

PY = sys.executable
KEY = "sk-from-the-password-manager-42"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in ("config", "data", "state"):
        monkeypatch.setenv(f"ACP_TUI_{name.upper()}_DIR", str(tmp_path / name))
    monkeypatch.delenv("ACP_TUI_LOG", raising=False)
    (tmp_path / "config").mkdir()
    secrets.clear()
    yield
    secrets.clear()


def printer(text: str, code: int = 0) -> list[str]:
    return [PY, "-c", f"import sys; print({text!r}); print('second line'); sys.exit({code})"]


def test_env_entries_parse_as_values_or_commands() -> None:
    text = (
        '[agents.a]\ncommand = "agent"\n'
        'env = { PLAIN = "x", LIST = { command = ["pass", "openai"] }, SPLIT = { command = "pass show openai" }, '
        'BAD = { command = [] }, WORSE = { run = "x" }, NUMBER = 3 }\n'
    )
    settings, warnings = parse_settings(text, "config.toml")
    agent = settings.agents["a"]
    assert agent.env == {"PLAIN": "x"}
    assert agent.env_commands == {"LIST": ("pass", "openai"), "SPLIT": ("pass", "show", "openai")}
    assert len(warnings) == 3 and all("{ command = " in warning for warning in warnings)


def test_resolve_runs_the_command_and_keeps_the_first_line_as_a_secret() -> None:
    agent = NamedAgent(
        command=["agent"],
        env={"ANTHROPIC_LOG": "debug", "GITHUB_TOKEN": "ghp_literal_value"},
        env_commands={"OPENAI_API_KEY": tuple(printer(KEY))},
    )
    env, warnings = resolve_env(agent, name="codex")
    assert env == {"ANTHROPIC_LOG": "debug", "GITHUB_TOKEN": "ghp_literal_value", "OPENAI_API_KEY": KEY}
    assert not warnings
    assert secrets.is_secret(KEY) and secrets.is_secret("ghp_literal_value")
    assert not secrets.is_secret("debug")  # not a key: would hide ordinary words


def test_a_failing_command_leaves_the_variable_unset_with_a_warning() -> None:
    agent = NamedAgent(
        command=["agent"],
        env_commands={
            "A_KEY": tuple(printer("nope", 1)),
            "B_KEY": (PY, "-c", "pass"),
            "C_KEY": ("/nonexistent/pass",),
        },
    )
    env, warnings = resolve_env(agent, name="codex")
    assert env == {}
    assert [w.split(":")[0] for w in warnings] == [
        "agents.codex.env.A_KEY",
        "agents.codex.env.B_KEY",
        "agents.codex.env.C_KEY",
    ]
    assert "exited with status 1" in warnings[0] and "printed nothing" in warnings[1] and "could not run" in warnings[2]


def test_the_launch_carries_the_commands_output(tmp_path: Path) -> None:
    agent = tmp_path / "fake-agent"
    agent.write_text("#!/bin/sh\nexit 0\n")
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR)
    command = ", ".join(f'"{part}"' for part in printer(KEY))
    (tmp_path / "config" / "config.toml").write_text(
        f'[agents.codex]\ncommand = ["{agent}"]\nenv = {{ OPENAI_API_KEY = {{ command = [{command}] }} }}\n'
    )
    launches: list[Launch] = []

    def runner(launch: Launch) -> int:
        launches.append(launch)
        return 0

    assert main(["codex"], runner=runner) == 0
    [launch] = launches
    assert dict(launch.env) == {"OPENAI_API_KEY": KEY}
    assert secrets.is_secret(KEY)
    assert shlex.join(printer(KEY)) not in " ".join(launch.warnings)
