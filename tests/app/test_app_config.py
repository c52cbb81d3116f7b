"""Session config options in the app: the chip bar, the F4 picker, Shift+Tab mode cycling, errors; every
mode change a line in the conversation, and a question before a mode that bypasses permissions.

Real keys go through a pilot to the real app running the scripted agent; assertions are on the exact
JSON the agent recorded (validated against the schema) and on what the bar shows afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList
from textual.widgets import Button, OptionList, Static

from acp_tui.session.modes import bypasses_permissions
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.config_picker import ConfigPickerScreen
from acp_tui.ui.dialogs.mode_confirm import ModeConfirmScreen
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.widgets.config_bar import ConfigBar
from tests.support.scripted_app import ARM_DELAY, SIZE, ScriptedRun, isolate_user_dirs, ready, wait_until


def select(
    config_id: str,
    name: str,
    current: str,
    values: list[tuple[str, str]],
    category: str | None = None,
) -> dict[str, Any]:
    option: dict[str, Any] = {
        "type": "select",
        "configId": config_id,
        "name": name,
        "currentValue": current,
        "options": [{"value": value, "name": label} for value, label in values],
    }
    if category is not None:
        option["category"] = category
    return option


MODES = [("ask", "Ask"), ("code", "Code")]
MODELS = [("fast", "Fast"), ("smart", "Smart")]
#: Array order puts the model first: the bar must keep it (no category-first reordering).
OPTIONS = [
    select("model", "Model", "fast", MODELS, "model"),
    select("mode", "Mode", "ask", MODES, "mode"),
    {"type": "_x_knob", "configId": "knob", "name": "Knob", "currentValue": 1},
]
ANSWER = [select("model", "Model", "smart", MODELS, "model"), select("mode", "Mode", "code", MODES, "mode")]


def script(options: list[dict[str, Any]], answer: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "version": 2,
        "session_new": {"sessionId": "cfg-1", "configOptions": options},
        "responses": {"session/set_config_option": answer or {"result": {"configOptions": ANSWER}}},
    }


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)


def bar_text(app: AcpApp) -> str:
    assert app.chat is not None
    return app.chat.query_one(ConfigBar).plain_text()


def set_requests(run: ScriptedRun) -> list[dict[str, Any]]:
    return [m for m in run.records() if m.get("method") == "session/set_config_option"]


async def test_f4_picker_sends_the_choice_and_the_bar_follows_the_answer(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, script(OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        assert bar_text(app).startswith("Model: Fast ▾ · Mode: Ask ▾")
        assert "Knob" not in bar_text(app)  # unknown option types are kept, not shown
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")
        option_list = app.screen.query_one(OptionList)
        highlighted = option_list.highlighted_option
        assert highlighted is not None and "Fast" in str(highlighted.prompt)  # starts on the current value
        await pilot.press("down")
        assert "Smart" in str(option_list.highlighted_option.prompt)  # type: ignore[union-attr]
        await pilot.press("enter")
        await wait_until(pilot, lambda: set_requests(run), "session/set_config_option")
        (request,) = set_requests(run)
        assert request["params"] == {"sessionId": "cfg-1", "configId": "model", "type": "id", "value": "smart"}
        run.validate_all()
        await wait_until(pilot, lambda: "Model: Smart" in bar_text(app), "the bar to show the answer")
        assert "Mode: Code" in bar_text(app)  # the answer is the full new set
        assert not isinstance(app.screen, ConfigPickerScreen)


async def test_escape_closes_the_picker_without_sending(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, script(OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")
        await pilot.press("down", "escape")
        await wait_until(pilot, lambda: app.screen is chat, "the picker to close")
        await pilot.pause(0.1)
        assert set_requests(run) == []
        assert chat.focused is chat.prompt_input


async def test_shift_tab_cycles_the_mode_option(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, script(OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        assert chat.focused is chat.prompt_input
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: set_requests(run), "session/set_config_option")
        (request,) = set_requests(run)
        assert request["params"] == {"sessionId": "cfg-1", "configId": "mode", "type": "id", "value": "code"}
        run.validate_all()
        await wait_until(pilot, lambda: "Mode: Code" in bar_text(app), "the new mode")
        assert chat.focused is chat.prompt_input  # the key cycled the mode, it did not move focus


async def test_without_a_mode_option_shift_tab_still_moves_focus(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, script([select("model", "Model", "fast", MODELS, "model")]))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        assert chat.focused is chat.prompt_input
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: chat.focused is not chat.prompt_input, "focus to move back")
        assert set_requests(run) == []


async def test_no_options_hide_the_bar(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, {"version": 2, "session_new": {"sessionId": "cfg-1"}})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        assert not chat.query_one(ConfigBar).display
        await pilot.press("f4")
        await pilot.pause(0.05)
        assert app.screen is chat  # nothing to pick


async def test_refusal_shows_a_toast_and_keeps_the_bar(tmp_path: Path) -> None:
    refusal = {"error": {"code": -32602, "message": "[b]mode[/b] locked"}}
    run = ScriptedRun(tmp_path, script(OPTIONS, refusal))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: any("locked" in str(n.message) for n in app._notifications), "the toast")
        (note,) = [n for n in app._notifications if "locked" in str(n.message)]
        assert "[b]mode[/b] locked" in str(note.message) and note.severity == "error" and not note.markup
        assert "Mode: Ask" in bar_text(app)


HOSTILE_NAME = "[bold red]Mo[/]de\x1b[31m"
HOSTILE_VALUE = "[link=https://x]Evil[/link]"


async def test_hostile_option_names_render_literally(tmp_path: Path) -> None:
    options = [select("mode", HOSTILE_NAME, "evil", [("evil", HOSTILE_VALUE), ("good", "Good")], "mode")]
    run = ScriptedRun(tmp_path, script(options))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        text = bar_text(app)
        assert "[bold red]Mo[/]de" in text and "\x1b" not in text
        assert "[link=https://x]Evil[/link]" in text
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")
        prompts = [str(option.prompt) for option in app.screen.query_one(OptionList).options]
        assert any("[bold red]Mo[/]de" in p for p in prompts)
        assert any("[link=https://x]Evil[/link]" in p for p in prompts)
        assert not any("\x1b" in p for p in prompts)


async def test_command_palette_opens_the_picker(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, script(OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: app.screen is not chat, "the command palette")
        await pilot.press(*"session settings")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ConfigPickerScreen) or _palette_has_hit(app), "a palette hit"
        )
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")


def _palette_has_hit(app: AcpApp) -> bool:
    lists = app.screen.query(CommandList)
    return bool(lists) and lists.first().option_count > 0


GROUPED = {
    "type": "select",
    "configId": "model",
    "name": "Model",
    "currentValue": "a1",
    "options": [
        {"groupId": "anthropic", "name": "Anthropic", "options": [{"value": "a1", "name": "Opus"}]},
        {"groupId": "local", "name": "Local models", "options": [{"value": "l1", "name": "Llama"}]},
    ],
}
BOOLEAN = {"type": "boolean", "configId": "think", "name": "Thinking", "currentValue": False}


async def test_grouped_values_and_booleans_in_the_picker(tmp_path: Path) -> None:
    answer = {"result": {"configOptions": [GROUPED, {**BOOLEAN, "currentValue": True}]}}
    run = ScriptedRun(tmp_path, script([GROUPED, BOOLEAN], answer))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        assert bar_text(app).startswith("Model: Opus ▾ · Thinking: off ▾")
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")
        option_list = app.screen.query_one(OptionList)
        rows = [(str(option.prompt).strip("\u00a0 "), option.disabled) for option in option_list.options]
        assert rows == [
            ("Model", True),
            ("Anthropic", True),
            ("● Opus", False),
            ("Local models", True),
            ("○ Llama", False),
            ("Thinking", True),
            ("○ on", False),
            ("● off", False),
        ]
        await pilot.press("down", "down")  # Opus → Llama (skipping the group heading) → on
        assert str(option_list.highlighted_option.prompt).endswith("on")  # type: ignore[union-attr]
        await pilot.press("enter")
        await wait_until(pilot, lambda: set_requests(run), "session/set_config_option")
        (request,) = set_requests(run)
        assert request["params"] == {"sessionId": "cfg-1", "configId": "think", "type": "boolean", "value": True}
        run.validate_all()
        await wait_until(pilot, lambda: "Thinking: on" in bar_text(app), "the bar to show the answer")


async def test_clicking_a_chip_opens_the_picker_on_that_option(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, script(OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        bar = chat.query_one(ConfigBar)
        # shown *and laid out*: a click aimed at a bar that has no region yet lands elsewhere
        await wait_until(pilot, lambda: bar.display and bar.region.width > 0, "the config bar on screen")
        offset = bar_text(app).index("Mode: Ask")
        assert await pilot.click(ConfigBar, offset=(offset + 2, 0)), "the click landed on the bar"
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")
        highlighted = app.screen.query_one(OptionList).highlighted_option
        assert highlighted is not None and str(highlighted.prompt).endswith("Ask")


# -- mode changes are seen, and a permission-bypassing mode asks first (issue 22) ----------------------

CLAUDE_MODES = [
    ("default", "Default"),
    ("acceptEdits", "Accept Edits"),
    ("bypassPermissions", "Bypass Permissions"),
    ("plan", "Plan"),
]


def mode_answer(value: str) -> dict[str, Any]:
    return {"result": {"configOptions": [select("mode", "Mode", value, CLAUDE_MODES, "mode")]}}


def lines(app: AcpApp) -> list[str]:
    assert app.chat is not None
    return [view.message for view in app.chat.query(SystemLine)]


async def test_a_mode_switched_with_shift_tab_is_a_line_in_the_conversation(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, script(OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        assert lines(app) == []  # the mode the session opens with is no change
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: "you switched the mode to Code" in lines(app), "the mode line")
        (line,) = [view for view in chat.query(SystemLine) if "mode" in view.message]
        assert line.severity == "info"


@pytest.mark.parametrize("version", [1, 2])
async def test_a_mode_the_agent_switches_is_a_line_in_the_conversation(tmp_path: Path, version: int) -> None:
    if version == 2:
        change = {
            "sessionUpdate": "config_option_update",
            "configOptions": [select("mode", "Mode", "bypassPermissions", CLAUDE_MODES, "mode")],
        }
        session_new: dict[str, Any] = {
            "sessionId": "cfg-1",
            "configOptions": [select("mode", "Mode", "default", CLAUDE_MODES, "mode")],
        }
    else:
        change = {"sessionUpdate": "current_mode_update", "currentModeId": "bypassPermissions"}
        session_new = {
            "sessionId": "cfg-1",
            "modes": {
                "currentModeId": "default",
                "availableModes": [{"id": value, "name": name} for value, name in CLAUDE_MODES],
            },
        }
    turn = {"steps": [{"op": "update", "update": change}, {"op": "respond_prompt", "stopReason": "end_turn"}]}
    run = ScriptedRun(tmp_path, {"version": version, "session_new": session_new, "turns": [turn]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        chat.prompt_input.load_text("go")
        await pilot.press("enter")
        expected = "the agent switched the mode to Bypass Permissions — it may act without asking for permission"
        await wait_until(pilot, lambda: expected in lines(app), "the mode line")
        (line,) = [view for view in chat.query(SystemLine) if "mode" in view.message]
        assert line.severity == "warning"


def bypass_script(current: str, answer: str) -> dict[str, Any]:
    return {
        "version": 2,
        "session_new": {"sessionId": "cfg-1", "configOptions": [select("mode", "Mode", current, CLAUDE_MODES, "mode")]},
        "responses": {"session/set_config_option": mode_answer(answer)},
    }


async def confirm_dialog(pilot: Any, app: AcpApp) -> ModeConfirmScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, ModeConfirmScreen), "the mode question")
    dialog = app.screen
    assert isinstance(dialog, ModeConfirmScreen)
    await wait_until(pilot, lambda: dialog.armed, "the question armed")
    return dialog


async def test_shift_tab_into_bypass_permissions_asks_first(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, bypass_script("acceptEdits", "bypassPermissions"))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        await pilot.press("shift+tab")
        await confirm_dialog(pilot, app)
        assert set_requests(run) == []  # nothing sent before the answer
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is chat, "the question closed")
        await pilot.pause(0.1)
        assert set_requests(run) == [] and "Mode: Accept Edits" in bar_text(app)
        await pilot.press("shift+tab")
        await confirm_dialog(pilot, app)
        await pilot.press("y")
        await wait_until(pilot, lambda: set_requests(run), "session/set_config_option")
        (request,) = set_requests(run)
        assert request["params"]["value"] == "bypassPermissions"
        await wait_until(
            pilot,
            lambda: any(line.startswith("you switched the mode to Bypass Permissions") for line in lines(app)),
            "the mode line",
        )


async def test_the_mode_question_says_why_in_words_and_prints_each_key_once(tmp_path: Path) -> None:
    """It read `⚠ permissions This mode's name says…` (a lone word), and its hint repeated the options' keys."""
    run = ScriptedRun(tmp_path, bypass_script("acceptEdits", "bypassPermissions"))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        await pilot.press("shift+tab")
        dialog = await confirm_dialog(pilot, app)
        assert str(dialog.query_one("#marker", Static).render()) == "⚠ bypasses permissions"
        hint = str(dialog.query_one("#hint", Static).render())
        assert hint == "esc keep  ←→ ⏎ choose  ⇧Tab skip to the next mode"
        options = [str(button.label) for button in dialog.query(Button)]
        assert options == ["y Switch to Bypass Permissions", "n Keep Accept Edits"]  # y and n shown here, once


async def test_shift_tab_in_the_question_skips_the_bypassing_mode(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, bypass_script("acceptEdits", "plan"))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        await pilot.press("shift+tab")
        await confirm_dialog(pilot, app)
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: set_requests(run), "session/set_config_option")
        (request,) = set_requests(run)
        assert request["params"]["value"] == "plan"
        await wait_until(pilot, lambda: "you switched the mode to Plan" in lines(app), "the mode line")


async def test_choosing_a_bypassing_mode_in_the_picker_asks_first(tmp_path: Path) -> None:
    run = ScriptedRun(tmp_path, bypass_script("default", "bypassPermissions"))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)
        await wait_until(pilot, lambda: chat.query_one(ConfigBar).display, "the config bar")
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigPickerScreen), "the picker")
        await pilot.press("down", "down", "enter")  # Default → Accept Edits → Bypass Permissions
        dialog = await confirm_dialog(pilot, app)
        assert "Bypass Permissions" in dialog.mode
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is chat, "the question closed")
        await pilot.pause(0.1)
        assert set_requests(run) == []


@pytest.mark.parametrize(
    ("value", "name", "bypasses"),
    [
        ("bypassPermissions", "Bypass Permissions", True),
        ("yolo", "YOLO", True),
        ("full-access", "Full Access", True),
        ("auto", "Auto-approve everything", True),
        ("x", "dangerously skip permissions", True),
        ("default", "Default", False),
        ("acceptEdits", "Accept Edits", False),
        ("plan", "Plan", False),
    ],
)
def test_which_modes_bypass_permissions(value: str, name: str, bypasses: bool) -> None:
    assert bypasses_permissions(value, name) is bypasses


#: Claude's ACP adapter's options (tests/support/fixtures/traffic/claude-v2-tool.log, its session/new result).
CLAUDE_OPTIONS = [
    select("mode", "Mode", "auto", [("default", "Manual"), ("auto", "Auto")], "mode"),
    select("model", "Model", "default", [("default", "Default (recommended)"), ("opus", "Opus")], "model"),
    select("effort", "Effort", "default", [("default", "Default"), ("high", "High")], "thought_level"),
    {"type": "boolean", "configId": "fast", "name": "Fast mode", "currentValue": False},
    {"type": "boolean", "configId": "ultracode", "name": "Ultracode", "currentValue": False},
]


async def test_claudes_settings_at_80_columns_drop_whole_chips_and_keep_f4(tmp_path: Path) -> None:
    """Claude's settings line was cut mid-word at 80 columns and lost its `F4` hint."""
    run = ScriptedRun(tmp_path, script(CLAUDE_OPTIONS))
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=(80, 24)) as pilot:
        chat = await ready(pilot, app)
        bar = chat.query_one(ConfigBar)
        await wait_until(pilot, lambda: bar.display and bar.content_size.width > 0, "the config bar")
        await pilot.pause()
        text = bar_text(app)
        assert len(text) <= bar.content_size.width and text.endswith("   F4"), text
        chips = text.removesuffix("   F4").split(" · ")
        assert chips[0] == "Mode: Auto ▾" and chips[-1].startswith("+") and chips[-1].endswith(" more"), chips
        assert all(chip.endswith(" ▾") for chip in chips[:-1])  # only whole chips
        shown = len(chips) - 1
        assert shown + int(chips[-1].split()[0][1:]) == len(CLAUDE_OPTIONS)
