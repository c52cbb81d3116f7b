"""The *New tab with agent…* dialog (acp_tui/ui/dialogs/new_tab.py; the first-use report's N3): `agent<Tab>folder`
fills both fields however fast it comes, the list is a suggestion box Down reaches and typing filters, its marked
row is drawn marked, Enter opens what the fields say (never the list's first row silently), and the list holds the
catalogue's installed agents beside config.toml's.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, OptionList, Static

from acp_tui.launch import Launch, LaunchProblem
from acp_tui.ui.dialogs.new_tab import MARK, AgentChoice, NewTabScreen, ranked_choices
from acp_tui.ui.tabs.agents import agent_choices
from tests.support.elicitation_ui import Host, open_dialog
from tests.support.launches import make_launch
from tests.support.tabs import tabs_app
from tests.support.wait import until

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test

CHOICES = (
    AgentChoice("sdk", "config.toml"),
    AgentChoice("dual", "config.toml"),
    AgentChoice("claude", "Claude Code (ACP adapter)"),
    AgentChoice("codex", "OpenAI Codex (ACP adapter)"),
    AgentChoice("gemini", "Gemini CLI"),
    AgentChoice("qwen", "Qwen Code"),
)
FOLDER = "/home/me/proj"


class Opened:
    """A dialog over the host app, and what its `build` was asked for (it dismisses with a stand-in launch)."""

    def __init__(self, app: Host, screen: NewTabScreen, built: list[tuple[str, str]]) -> None:
        self.app, self.screen, self.built = app, screen, built

    def field(self, name: str) -> Input:
        return self.screen.query_one(f"#{name}", Input)

    def values(self) -> tuple[str, str]:
        return self.field("agent").value, self.field("folder").value

    def rows(self) -> list[str]:
        """The list's rows as drawn (the marked one starts with the mark)."""
        options = self.screen.query_one("#choices", OptionList)
        return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]

    def names(self) -> list[str]:
        return [row[len(MARK) :].split("  ")[0] for row in self.rows()]

    def hint(self) -> str:
        return str(self.screen.query_one("#hint", Static).render())


def launch_for(agent: str, folder: str) -> Launch:
    """A stand-in for the launch `build` returns: the dialog only hands it on."""
    return make_launch([agent], Path(folder), name=agent)


async def open_new_tab(app: Host, pilot: Any, choices: tuple[AgentChoice, ...] = CHOICES) -> Opened:
    built: list[tuple[str, str]] = []

    def build(agent: str, folder: str) -> Launch:
        built.append((agent, folder))
        return launch_for(agent, folder)

    screen = NewTabScreen(agent="demo", folder=FOLDER, choices=choices, build=build)
    await open_dialog(app, pilot, screen, arm=False)
    await until(lambda: screen.focused is screen.query_one("#agent"), "the agent field focused", pilot=pilot)
    return Opened(app, screen, built)


async def test_agent_tab_folder_in_one_press_sequence_opens_the_tab_with_both() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        await pilot.press(*"dual", "tab", *"/srv/extra-lib", "enter")
        await until(lambda: app.results, "the dialog dismissed", pilot=pilot)
        assert dialog.built == [("dual", "/srv/extra-lib")]  # the typed folder replaced the one shown
        assert isinstance(app.results[0], Launch) and app.results[0].agent_name == "dual"


async def test_agent_tab_folder_as_one_read_fills_both_fields() -> None:
    """The keys all queued before the app reads the first, as one read of the terminal gives them."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        for key in "claude":
            app.post_message(events.Key(key, key))
        app.post_message(events.Key("tab", "\t"))
        for key in "/srv/app":
            app.post_message(events.Key(key, key))
        await until(lambda: dialog.values() == ("claude", "/srv/app"), "both fields filled", pilot=pilot)
        assert dialog.screen.focused is dialog.field("folder")
        assert not dialog.built


async def test_a_paste_of_agent_tab_folder_fills_both_fields() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        app.post_message(events.Paste("dual\t/srv/extra-lib\n"))
        await until(lambda: dialog.values() == ("dual", "/srv/extra-lib"), "both fields filled", pilot=pilot)
        assert dialog.screen.focused is dialog.field("folder")
        await pilot.press("enter")
        await until(lambda: app.results, "the dialog dismissed", pilot=pilot)
        assert dialog.built == [("dual", "/srv/extra-lib")]


async def test_a_paste_without_a_tab_is_the_agent_alone() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        app.post_message(events.Paste("npx some-agent --acp"))
        await until(lambda: dialog.values() == ("npx some-agent --acp", FOLDER), "the agent pasted", pilot=pilot)
        assert dialog.screen.focused is dialog.field("agent")


async def test_tab_goes_from_agent_to_folder_and_back_never_to_the_list() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        await pilot.press("tab")
        assert dialog.screen.focused is dialog.field("folder")
        await pilot.press("shift+tab")
        assert dialog.screen.focused is dialog.field("agent")
        await pilot.press("shift+tab")
        assert dialog.screen.focused is dialog.field("folder")
        assert not dialog.screen.query_one("#choices", OptionList).can_focus


async def test_down_marks_a_row_enter_takes_it_and_the_next_enter_opens_the_tab() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        assert not any(row.startswith(MARK) for row in dialog.rows()), "no row marked before Down"
        assert "↓ agents" in dialog.hint()
        await pilot.press("down")
        assert dialog.rows()[0].startswith(MARK) and dialog.screen.marked == 0
        assert dialog.screen.query_one("#choices", OptionList).highlighted == 0
        assert "take this agent" in dialog.hint()
        await pilot.press("down", "down", "up")
        assert [row.startswith(MARK) for row in dialog.rows()] == [False, True, False, False, False, False]
        assert dialog.screen.focused is dialog.field("agent"), "the focus stays in the field"
        await pilot.press("enter")
        assert dialog.values() == ("dual", FOLDER) and dialog.screen.focused is dialog.field("agent")
        assert dialog.screen.marked is None and "open the tab" in dialog.hint()
        assert not dialog.built and not app.results, "taking a row opens nothing yet"
        await pilot.press("enter")
        await until(lambda: app.results, "the dialog dismissed", pilot=pilot)
        assert dialog.built == [("dual", FOLDER)]


async def test_a_row_taken_then_tab_and_a_folder_in_one_read() -> None:
    """`sec`, Down, Enter, Tab, a folder, Enter — all queued before the app reads the first: the row is taken in the
    agent field and the folder lands in *Folder* (no key but Tab moves the focus)."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot, (*CHOICES, AgentChoice("second", "config.toml")))
        for key in "sec":
            app.post_message(events.Key(key, key))
        app.post_message(events.Key("down", None))
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key("tab", "\t"))
        for key in "/srv/app":
            app.post_message(events.Key(key, key))
        app.post_message(events.Key("enter", "\r"))
        await until(lambda: app.results, "the dialog dismissed", pilot=pilot)
        assert dialog.built == [("second", "/srv/app")]


async def test_up_from_the_first_row_and_escape_unmark_and_a_second_escape_closes() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        await pilot.press("down", "up")
        assert dialog.screen.marked is None and not any(row.startswith(MARK) for row in dialog.rows())
        await pilot.press("down", "escape")
        assert dialog.screen.marked is None and not app.results, "the first Escape unmarks"
        await pilot.press("escape")
        await until(lambda: app.results == [None], "the dialog closed", pilot=pilot)


async def test_typing_filters_the_list_fuzzily_and_unmarks() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        assert dialog.names() == [c.name for c in CHOICES]
        await pilot.press("c")
        assert dialog.names()[:2] == ["claude", "codex"], "the names that start with it first"
        await pilot.press("down")
        await pilot.press("o")
        assert dialog.names() == ["codex", "sdk", "dual", "claude", "qwen"], "then the descriptions (`config`…)"
        assert dialog.screen.marked is None and not any(row.startswith(MARK) for row in dialog.rows())
        await pilot.press("backspace", "backspace", *"qn")
        assert dialog.names() == ["qwen"], "the letters in order, not side by side"
        await pilot.press("z")
        assert not dialog.screen.query_one("#choices", OptionList).display
        assert dialog.screen.query_one("#no-match", Static).display
        await pilot.press("backspace", "backspace", "backspace")
        assert dialog.names() == [c.name for c in CHOICES]


async def test_enter_in_the_agent_field_opens_what_it_says_not_the_first_row() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        await pilot.press("c", "l")
        assert dialog.names()[0] == "claude"
        await pilot.press("down", "up", "enter")  # marked, then unmarked again: Enter is the field's
        await until(lambda: app.results, "the dialog dismissed", pilot=pilot)
        assert dialog.built == [("cl", FOLDER)]


async def test_what_cannot_start_is_said_and_the_dialog_stays() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:

        def build(agent: str, folder: str) -> Launch:
            raise LaunchProblem(f"'{agent}': command not found")

        screen = NewTabScreen(agent="demo", folder=FOLDER, choices=CHOICES, build=build)
        await open_dialog(app, pilot, screen, arm=False)
        await pilot.press(*"nope", "enter")
        problem = screen.query_one("#problem", Static)
        await until(lambda: "command not found" in str(problem.render()), "the problem said", pilot=pilot)
        assert not app.results


def test_the_list_ranks_prefix_then_substring_then_letters_then_description() -> None:
    choices = (AgentChoice("xclaude", "a"), AgentChoice("claude", "b"), AgentChoice("cxl", "c"), AgentChoice("z", "cl"))
    assert [choices[i].name for i, _ in ranked_choices(choices, "cl")] == ["claude", "xclaude", "cxl", "z"]
    assert ranked_choices(choices, "CL ")[0] == (1, (0, 1)), "case and outer spaces do not count"
    assert ranked_choices(choices, "") == [(i, ()) for i in range(4)]


def _program(folder: Path, name: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


async def test_the_list_holds_config_agents_then_the_installed_catalogue_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the app's palette action: config.toml's `[agents.*]`, then the catalogue's agents whose program
    is on PATH (a config name hides the catalogue agent of that name, as on the command line)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("gemini", "codex-acp", "claude-agent-acp"):
        _program(bin_dir, program)
    config = Path(os.environ["ACP_TUI_CONFIG_DIR"]) / "config.toml"
    config.write_text('[agents.sdk]\ncommand = ["node", "agent.js"]\n[agents.claude]\ncommand = ["claude-agent-acp"]\n')
    monkeypatch.setenv("PATH", str(bin_dir))
    assert [(c.name, c.what) for c in agent_choices()] == [
        ("sdk", "config.toml"),
        ("claude", "config.toml"),
        ("codex", "OpenAI Codex (ACP adapter)"),
        ("gemini", "Gemini CLI"),
    ]
    async with tabs_app(tmp_path) as run:
        run.app.action_new_tab_with_agent()
        await run.wait(lambda: isinstance(run.app.screen, NewTabScreen), "the new tab dialog")
        screen = run.app.screen
        assert isinstance(screen, NewTabScreen)
        await run.wait(lambda: bool(screen.query("#choices")), "its list")
        options = screen.query_one("#choices", OptionList)
        rows = [str(options.get_option_at_index(i).prompt).strip() for i in range(options.option_count)]
        assert rows == [
            "sdk  config.toml",
            "claude  config.toml",
            "codex  OpenAI Codex (ACP adapter)",
            "gemini  Gemini CLI",
        ]
        assert "qwen" not in run.screen_text(), "a catalogue agent not installed is not offered"
        await run.pilot.press(*"gem", "down")
        assert str(options.get_option_at_index(0).prompt).startswith(MARK + "gemini")


async def test_a_click_on_a_row_takes_it() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_new_tab(app, pilot)
        await pilot.click("#choices", offset=(4, 4))  # the fifth row: gemini
        await until(lambda: dialog.values()[0] == "gemini", "the row taken", pilot=pilot)
        assert dialog.screen.focused is dialog.field("agent") and not app.results
