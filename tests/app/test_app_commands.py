"""Slash commands in the prompt: the agent's `available_commands_update` feeds a popup that opens on
`/`, filters as you type, completes with Tab/Enter, closes with Escape, and never gets in the way of
sending text or recalling history (docs/protocol.md §10.3).

The filter rules are tested without a terminal; the rest drives the real app with the scripted agent
(harness from `tests/support/app_run.py`) and once with the demo agent.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol.v2 import AvailableCommand
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.command_menu import CommandMenu, command_query, input_hint, match_commands
from tests.support.agents.hostile_agent import HOSTILE_STRINGS
from tests.support.app_run import AppRun, make_launch, project_dir, running_app, screen_text, update

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

# -- the rules, without a terminal ----------------------------------------------------------------


def cmd(name: str, description: str = "", input: dict[str, Any] | None = None) -> AvailableCommand:
    if input is None:
        return AvailableCommand(name=name, description=description)
    return AvailableCommand(name=name, description=description, input=input)


def test_command_query_is_the_slash_word_before_any_space() -> None:
    assert command_query("/") == ""
    assert command_query("/pl") == "pl"
    assert command_query("/plan ") is None
    assert command_query("/plan\nmore") is None
    assert command_query("plan") is None
    assert command_query(" /plan") is None
    assert command_query("") is None


def test_prefix_matches_come_before_substring_matches_in_the_agents_order() -> None:
    commands = [cmd("explain"), cmd("plan"), cmd("replay"), cmd("Plot"), cmd("init")]
    assert [c.name for c in match_commands(commands, "pl")] == ["plan", "Plot", "explain", "replay"]
    assert [c.name for c in match_commands(commands, "")] == ["explain", "plan", "replay", "Plot", "init"]
    assert match_commands(commands, "zz") == []


def test_input_hint_reads_text_inputs_only() -> None:
    assert input_hint(cmd("a", input={"type": "text", "hint": "what to plan"})) == "what to plan"
    assert input_hint(cmd("a", input={"type": "text", "hint": "  "})) is None
    assert input_hint(cmd("a", input={"type": "choice", "hint": "x"})) is None  # an unknown kind
    assert input_hint(cmd("a")) is None


# -- the app ------------------------------------------------------------------------------------------

COMMANDS: list[dict[str, Any]] = [
    {"name": "explain", "description": "Explain the code"},
    {"name": "plan", "description": "Make a plan first", "input": {"type": "text", "hint": "what to plan"}},
    {"name": "replay", "description": "Replay the last turn"},
    {"name": "init", "description": "Create an AGENTS.md"},
]


def with_commands(commands: list[dict[str, Any]], *, version: int = 2, **extra: Any) -> dict[str, Any]:
    """A script whose agent advertises `commands` right after opening the session."""
    return {
        "version": version,
        "after_session_new": [
            update({"sessionUpdate": "available_commands_update", "availableCommands": commands}),
        ],
        **extra,
    }


def menu_of(run: AppRun) -> CommandMenu:
    return run.chat.query_one("#command-menu", CommandMenu)


async def commands_known(run: AppRun, count: int) -> CommandMenu:
    menu = menu_of(run)
    await run.wait(lambda: len(menu.commands) == count, "the agent's commands")
    return menu


async def type_keys(run: AppRun, value: str) -> None:
    keys = {" ": "space", "/": "slash"}
    await run.pilot.press(*[keys.get(char, char) for char in value])
    await run.pilot.pause()


def shown(menu: CommandMenu) -> list[str]:
    return [c.name for c in menu.shown]


async def test_slash_opens_the_menu_and_typing_filters_it(tmp_path: Path) -> None:
    async with running_app(tmp_path, with_commands(COMMANDS)) as run:
        menu = await commands_known(run, 4)
        assert not menu.is_open and not menu.display
        await type_keys(run, "/")
        await run.wait(lambda: menu.is_open, "the menu to open")
        assert menu.display and shown(menu) == ["explain", "plan", "replay", "init"]
        assert menu.region.bottom <= run.chat.prompt_input.region.y  # above the prompt
        drawn = screen_text(run)
        assert "/plan" in drawn and "Make a plan first" in drawn and "‹what to plan›" in drawn
        await type_keys(run, "pl")
        assert shown(menu) == ["plan", "explain", "replay"]
        assert menu.highlighted_command is not None and menu.highlighted_command.name == "plan"
        await type_keys(run, "an")
        assert shown(menu) == ["plan"]
        await type_keys(run, "z")
        assert not menu.is_open  # nothing matches
        await run.pilot.press("backspace")
        await run.wait(lambda: menu.is_open)
        await type_keys(run, " ")
        assert not menu.is_open  # arguments now
        run.chat.prompt_input.load_text("not a command")
        await run.pilot.pause()
        assert not menu.is_open


async def test_arrows_move_the_highlight_and_tab_or_enter_complete(tmp_path: Path) -> None:
    async with running_app(tmp_path, with_commands(COMMANDS)) as run:
        menu = await commands_known(run, 4)
        prompt = run.chat.prompt_input
        await type_keys(run, "/")
        await run.wait(lambda: menu.is_open)
        await run.pilot.press("down", "down")
        assert menu.highlighted_command is not None and menu.highlighted_command.name == "replay"
        await run.pilot.press("up", "up", "up")  # wraps around to the last
        assert menu.highlighted_command is not None and menu.highlighted_command.name == "init"
        assert prompt.text == "/"  # the arrows did not recall history or move the cursor
        await run.pilot.press("tab")
        await run.pilot.pause()
        assert prompt.text == "/init " and prompt.cursor_location == (0, 6)
        assert not menu.is_open and prompt.has_focus
        prompt.load_text("")
        await type_keys(run, "/ex")
        await run.wait(lambda: menu.is_open)
        await run.pilot.press("enter")
        await run.pilot.pause()
        assert prompt.text == "/explain " and not menu.is_open
        assert run.prompts_received() == []  # completing sends nothing


async def test_a_completed_command_with_arguments_is_sent_exactly(tmp_path: Path) -> None:
    async with running_app(tmp_path, with_commands(COMMANDS)) as run:
        menu = await commands_known(run, 4)
        await type_keys(run, "/pl")
        await run.wait(lambda: menu.is_open)
        await run.pilot.press("tab")
        await type_keys(run, "the refactor")
        run._turns_before = run._turns()
        await run.pilot.press("enter")
        await run.idle()
        assert run.prompts_received() == ["/plan the refactor"]
        assert run.chat.prompt_input.text == "" and not menu.is_open


async def test_enter_on_a_fully_typed_command_sends_it(tmp_path: Path) -> None:
    async with running_app(tmp_path, with_commands(COMMANDS)) as run:
        menu = await commands_known(run, 4)
        await type_keys(run, "/init")
        await run.wait(lambda: menu.is_open)
        run._turns_before = run._turns()
        await run.pilot.press("enter")
        await run.idle()
        assert run.prompts_received() == ["/init"]
        assert not menu.is_open


async def test_escape_closes_the_menu_until_the_slash_word_is_gone(tmp_path: Path) -> None:
    async with running_app(tmp_path, with_commands(COMMANDS)) as run:
        menu = await commands_known(run, 4)
        prompt = run.chat.prompt_input
        await type_keys(run, "/re")
        await run.wait(lambda: menu.is_open)
        await run.pilot.press("escape")
        assert not menu.is_open and prompt.text == "/re" and prompt.has_focus
        await type_keys(run, "p")
        assert not menu.is_open  # still dismissed
        await run.pilot.press("enter")  # unknown `/x` text goes to the agent as typed
        await run.idle()
        assert run.prompts_received() == ["/rep"]
        await type_keys(run, "/")
        await run.wait(lambda: menu.is_open, "the menu to open again for a new prompt")


async def test_unknown_slash_text_is_sent_and_history_works_with_the_menu_closed(tmp_path: Path) -> None:
    async with running_app(tmp_path, with_commands(COMMANDS)) as run:
        menu = await commands_known(run, 4)
        prompt = run.chat.prompt_input
        await type_keys(run, "/nosuch")
        assert not menu.is_open
        run._turns_before = run._turns()
        await run.pilot.press("enter")
        await run.idle()
        assert run.prompts_received() == ["/nosuch"]
        await type_keys(run, "/")
        await run.wait(lambda: menu.is_open)
        await run.pilot.press("up")
        assert prompt.text == "/"  # open menu: Up moved the highlight, not through history
        await run.pilot.press("escape", "up")
        assert prompt.text == "/nosuch"  # closed: Up recalls
        await run.pilot.pause()
        assert not menu.is_open  # the recalled text matches no command
        await run.pilot.press("down")
        assert prompt.text == "/"  # and Down comes back to the draft


async def test_no_commands_means_no_menu(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        menu = menu_of(run)
        await type_keys(run, "/pl")
        assert not menu.is_open and not menu.display
        run._turns_before = run._turns()
        await run.pilot.press("enter")
        await run.idle()
        assert run.prompts_received() == ["/pl"]


async def test_a_new_command_list_replaces_the_old_one_while_open(tmp_path: Path) -> None:
    script = with_commands(
        COMMANDS,
        turns=[
            {
                "steps": [
                    {"op": "respond_prompt"},
                    {"op": "user_message"},
                    {"op": "state", "state": "running"},
                    update(
                        {
                            "sessionUpdate": "available_commands_update",
                            "availableCommands": [
                                {"name": "review", "description": "Review the diff"},
                            ],
                        }
                    ),
                    {"op": "state", "state": "idle", "stopReason": "end_turn"},
                ]
            }
        ],
    )
    async with running_app(tmp_path, script) as run:
        menu = await commands_known(run, 4)
        await run.send("go")
        await run.idle()
        assert [c.name for c in menu.commands] == ["review"]
        await type_keys(run, "/")
        await run.wait(lambda: menu.is_open)
        assert shown(menu) == ["review"]


async def test_a_click_completes_the_command(tmp_path: Path) -> None:
    async with running_app(tmp_path, with_commands(COMMANDS)) as run:
        menu = await commands_known(run, 4)
        await type_keys(run, "/")
        await run.wait(lambda: menu.is_open)
        await run.pilot.click(CommandMenu, offset=(4, 2))  # inside the border: the second row
        await run.pilot.pause()
        assert run.chat.prompt_input.text == "/plan " and run.chat.prompt_input.has_focus
        assert not menu.is_open


async def test_hostile_names_and_descriptions_render_literally(tmp_path: Path) -> None:
    hostile = [{"name": f"h{i}{value}", "description": value} for i, value in enumerate(HOSTILE_STRINGS)]
    async with running_app(tmp_path, with_commands(hostile)) as run:
        menu = await commands_known(run, len(HOSTILE_STRINGS))
        await type_keys(run, "/h0")
        await run.wait(lambda: menu.is_open)
        drawn = screen_text(run)
        assert "/h0[bold red]x[/]" in drawn and "  [bold red]x[/]" in drawn
        run.chat.prompt_input.load_text("/h")
        await run.pilot.pause()
        await run.wait(lambda: len(menu.shown) == len(HOSTILE_STRINGS))
        drawn = screen_text(run)
        assert "[link=https://evil.example]click[/link]" in drawn and "[@click=app.quit]q[/]" in drawn
        assert "\x1b" not in drawn and "\u202e" not in drawn and "\x00" not in drawn
        for _ in range(3):
            await run.pilot.press("down")
        await run.pilot.press("tab")
        await run.pilot.pause()
        assert run.chat.prompt_input.text == "/h3 "  # the escape sequences are gone from the name too


async def test_v1_command_hints_show_in_the_menu(tmp_path: Path) -> None:
    v1 = [{"name": "web", "description": "Search the web", "input": {"hint": "query"}}]
    async with running_app(tmp_path, with_commands(v1, version=1)) as run:
        menu = await commands_known(run, 1)
        await type_keys(run, "/w")
        await run.wait(lambda: menu.is_open)
        assert "/web  Search the web  ‹query›" in screen_text(run)


@pytest.fixture
def demo_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_DEMO_SPEED", "0")


async def test_the_demo_agents_commands_complete_and_run(tmp_path: Path, demo_env: None) -> None:
    from acp_tui.demo.content import BEHAVIOURS

    launch = make_launch([sys.executable, "-m", "acp_tui.demo"], cwd=project_dir(tmp_path), demo=True)
    app = AcpApp(launch, arm_delay=0.1)
    async with app.run_test(size=(120, 45)) as pilot:
        run = AppRun(app, pilot, tmp_path / "unused.jsonl")
        await run.ready()
        menu = await commands_known(run, len(BEHAVIOURS))
        await type_keys(run, "/mark")
        await run.wait(lambda: menu.is_open)
        assert shown(menu) == ["markdown"]
        await pilot.press("tab")
        await pilot.pause()
        assert run.chat.prompt_input.text == "/markdown "
