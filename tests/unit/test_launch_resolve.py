"""Resolving a launch in the base layer (acp_tui/launch_resolve.py): a `LaunchRequest` from the command line or a
new tab's words, resolved the same way, with no argv rebuilt for a tab."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.config import load_settings
from acp_tui.launch import Launch
from acp_tui.launch_resolve import (
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    LaunchError,
    LaunchRequest,
    agent_names,
    resolve_launch,
    tab_launch,
)
from tests.support.launches import make_launch


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config.toml with one named agent (this interpreter, with a word and a variable of its own)."""
    monkeypatch.setenv("ACP_TUI_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "config").mkdir()
    path = tmp_path / "config" / "config.toml"
    path.write_text(
        f'[agents.helper]\ncommand = ["{sys.executable}", "-m", "helper"]\nenv = {{ HELPER_MODE = "quiet" }}\n',
        encoding="utf-8",
    )
    return path


def base(tmp_path: Path) -> Launch:
    launch = make_launch([sys.executable, "-c", "pass"], tmp_path, name="first", protocol=1, log_path=tmp_path / "l")
    return replace(launch, theme="acp-light")


def test_a_tab_resolves_a_named_agent_as_the_command_line_does(config: Path, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    launch = tab_launch(base(tmp_path), "helper --cwd elsewhere", "other")
    # every word after the name is the agent's, even one that is an option of ours: no argv is parsed again
    assert launch.agent_argv == (sys.executable, "-m", "helper", "--cwd", "elsewhere")
    assert launch.agent_name == "helper" and launch.env["HELPER_MODE"] == "quiet"
    assert launch.cwd == tmp_path / "other"
    assert (launch.protocol, launch.theme, launch.log_path) == (1, "acp-light", tmp_path / "l")  # the tab's own
    settings, warnings = load_settings(config)
    request = LaunchRequest(agent=("helper", "--cwd", "elsewhere"), cwd=str(tmp_path / "other"), protocol=1)
    assert resolve_launch(request, settings, warnings).agent_argv == launch.agent_argv


def test_a_tab_without_an_agent_keeps_its_base(config: Path, tmp_path: Path) -> None:
    first = base(tmp_path)
    launch = tab_launch(first, "  ", "")
    assert launch.agent_argv == first.agent_argv and launch.cwd == first.cwd and launch.resume_id is None


def test_what_a_tab_cannot_start_is_one_line(config: Path, tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="does not parse") as unparsed:
        tab_launch(base(tmp_path), "helper 'unclosed", "")
    assert unparsed.value.code == EXIT_USAGE
    with pytest.raises(LaunchError, match="command not found") as missing:
        tab_launch(base(tmp_path), "no-such-agent-anywhere", "")
    assert missing.value.code == EXIT_NOT_FOUND


def test_the_names_a_tab_offers_are_the_names_it_resolves(config: Path, tmp_path: Path) -> None:
    names = agent_names(search_path=str(tmp_path))  # nothing of the catalogue installed there
    assert names == [("helper", "config.toml")]
    assert tab_launch(base(tmp_path), names[0][0], "").agent_name == "helper"
