"""A theme chosen in the command palette is saved to config.toml and used on the next start.

`save_theme` changes the one top-level `theme` line (or adds it) and leaves every other byte of the
user's file alone; anything it cannot change safely is left untouched, with a message.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest
from textual.command import CommandPalette

from acp_tui.cli import build_launch, parse_argv
from acp_tui.config import load_settings, save_theme, with_theme
from acp_tui.paths import config_file
from acp_tui.ui.app import AcpApp
from tests.support.app_run import running_app

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

CONFIG = """\
# my acp-tui settings
theme = "acp-dark"   # dark for now
default_agent = "claude"

[agents.claude]
command = ["npx", "@agentclientprotocol/claude-agent-acp"]
theme = "not a top-level key"
"""


def test_an_existing_theme_line_changes_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    assert save_theme(path, "acp-light") is None
    assert path.read_text(encoding="utf-8") == CONFIG.replace('theme = "acp-dark"', 'theme = "acp-light"', 1)
    settings, warnings = load_settings(path)
    assert settings.theme == "acp-light" and settings.default_agent == "claude"


def test_a_missing_file_is_created_with_the_theme(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    assert save_theme(path, "acp-light") is None
    assert path.read_text(encoding="utf-8") == 'theme = "acp-light"\n'


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            'default_agent = "a"\n\n[agents.a]\ncommand = "a"\n',
            'default_agent = "a"\ntheme = "nord"\n\n[agents.a]\ncommand = "a"\n',
        ),
        ('# only tables\n[agents.a]\ncommand = "a"\n', 'theme = "nord"\n# only tables\n[agents.a]\ncommand = "a"\n'),
        ("init_timeout = 5", 'init_timeout = 5\ntheme = "nord"\n'),
        ("", 'theme = "nord"\n'),
        (
            "\"theme\" = 'old' # quoted key, literal string\r\ninit_timeout = 5\r\n",
            '"theme" = "nord" # quoted key, literal string\r\ninit_timeout = 5\r\n',
        ),
        ("theme='old'\n", 'theme="nord"\n'),
    ],
)
def test_the_key_is_added_or_replaced_in_place(before: str, after: str) -> None:
    assert with_theme(before, "nord") == after


def test_odd_names_are_escaped() -> None:
    name = 'quote " back \\ tab \t'
    assert tomllib.loads(with_theme("", name))["theme"] == name


@pytest.mark.parametrize(
    "broken",
    [
        'theme = "unterminated\n',
        'theme = """multi\nline"""\n',
        "x = [\n  [1, 2],\n]\ntheme = 'after a nested array'\n",
    ],
)
def test_a_file_that_cannot_be_edited_safely_is_left_alone(tmp_path: Path, broken: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(broken, encoding="utf-8")
    message = save_theme(path, "acp-light")
    assert message is not None and str(path) in message and "not saved" in message
    assert path.read_text(encoding="utf-8") == broken


def test_the_file_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "private" / "config.toml"
    path.parent.mkdir()
    path.write_text(CONFIG, encoding="utf-8")
    os.chmod(path, 0o600)
    assert save_theme(path, "acp-light") is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]  # no temporary file left behind


async def test_a_theme_picked_in_the_palette_is_saved_and_used_on_the_next_start(tmp_path: Path) -> None:
    path = config_file()
    assert path.parent == tmp_path / "config"  # the private config dir (ACP_TUI_CONFIG_DIR)
    path.write_text(CONFIG, encoding="utf-8")
    async with running_app(tmp_path, {"version": 2}) as run:
        assert run.app.theme == "acp-dark"
        assert path.read_text(encoding="utf-8") == CONFIG  # starting does not write
        run.app.action_change_theme()
        await run.wait(lambda: isinstance(run.app.screen, CommandPalette), "the theme picker")
        await run.pilot.press(*"acp-light")
        await run.pilot.pause(0.3)
        await run.pilot.press("enter")
        await run.wait(lambda: run.app.theme == "acp-light", "the light theme")
        await run.wait(
            lambda: 'theme = "acp-light"   # dark for now' in path.read_text(encoding="utf-8"), "the saved theme"
        )
    # the next start: the CLI reads config.toml and the app comes up light
    options, agent = parse_argv(["--", "true"])
    settings, warnings = load_settings(path)
    launch = build_launch(options, agent, settings, warnings)
    assert launch.theme == "acp-light"
    assert AcpApp(launch).theme == "acp-light"
