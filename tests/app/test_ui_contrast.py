"""Every shipped theme keeps text readable: WCAG 2 contrast of at least 4.5:1 for every text cell drawn.

The real app runs the scripted agent through a turn that produces every kind of timeline entry (a
thought, Markdown with code, tool cards in every state with a diff and a terminal, a plan, a
compaction, an unknown update, system lines; finished tool calls opened so their diffs and output are
read too), the plan panel above the prompt, the chips under the prompt, a toast, the stderr panel,
the status bar in each of its states, the permission dialog, the settings picker, the problems list
and the slash-command menu. For each of these the test walks the segments the compositor hands to
the terminal (after Textual resolved alpha, `auto` colours and `dim`) and checks every segment that
holds text against the background it is drawn on. Borders, scrollbars and other box-drawing cells
are not text and are skipped (WCAG's 4.5:1 is a text rule). Under a modal dialog only the dialog is
checked: the screen behind it is deliberately faded and inactive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pygments.styles import get_style_by_name
from pygments.token import Token
from textual.color import Color
from textual.geometry import Region
from textual.screen import ModalScreen

from acp_tui.launch import Launch
from acp_tui.ui.app import AcpApp
from acp_tui.ui.themes import ANSI_NAMES, load_shipped_themes
from acp_tui.ui.timeline.thought_view import ThoughtView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.widgets.command_menu import CommandMenu
from acp_tui.ui.widgets.file_picker import FilePicker
from acp_tui.ui.widgets.markdown_stream import code_theme_for
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.queued_prompts import QueuedPrompt
from acp_tui.ui.widgets.session_list import SessionList
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.support.agents import scripted_agent_argv
from tests.support.app_run import GIT_DIFF, AppRun, b64, plan_update, project_dir, running_app, text, tool, update
from tests.support.contrast import (
    MINIMUM,
    contrast_ratio,
    dialog_region,
    low_contrast,
)

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

#: The palettes with colours of their own. acp-ansi names the terminal's ANSI colours, so its contrast is
#: the terminal palette's; tests/app/test_ui_look.py checks that it sends nothing else.
THEMES = ["acp-dark", "acp-light"]

ANSWER = """\
## A heading

Some **bold**, some *italic*, `inline code` and a [link](https://example.com).

- a list item
- another one

```python
def greet(name: str) -> str:
    # a comment
    return f"Hello, {name}!"  # 42
```

> a quotation
"""


def test_contrast_ratio_matches_the_wcag_reference_values() -> None:
    assert contrast_ratio(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio(Color(119, 119, 119), Color(255, 255, 255)) == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio(Color(255, 255, 255), Color(255, 255, 255)) == pytest.approx(1.0)


#: Backgrounds text is drawn on, and the palette colours that are drawn as text on them.
BACKGROUNDS = ("background", "surface", "panel", "user-message-background")
TEXT_COLOURS = (
    "foreground",
    "primary",
    "secondary",
    "accent",
    "success",
    "warning",
    "error",
    "thought-foreground",
    "diff-added",
    "diff-removed",
    "footer-key-foreground",
    *(f"ansi-{name}" for name in ANSI_NAMES),
)


@pytest.mark.parametrize("theme", THEMES)
def test_every_palette_text_colour_reads_on_every_palette_background(theme: str) -> None:
    """The cheap check behind the rendered one: no palette colour is unreadable on a palette surface."""
    [palette] = [t for t in load_shipped_themes() if t.name == theme]
    colours = {
        **palette.variables,
        **{
            key: getattr(palette, key)
            for key in (
                "foreground",
                "primary",
                "secondary",
                "accent",
                "success",
                "warning",
                "error",
                "background",
                "surface",
                "panel",
            )
        },
    }
    failures = [
        f"{fg} {colours[fg]} on {bg} {colours[bg]} = {ratio:.2f}"
        for fg in TEXT_COLOURS
        for bg in BACKGROUNDS
        if (ratio := contrast_ratio(Color.parse(colours[fg]), Color.parse(colours[bg]))) < MINIMUM
    ]
    assert not failures, failures


@pytest.mark.parametrize("dark", [True, False])
def test_code_highlighting_colours_read_on_their_background(dark: bool) -> None:
    """Every token colour of the code theme used for Markdown code blocks (error tokens aside)."""
    style = get_style_by_name(code_theme_for(dark))
    background = Color.parse(style.background_color)
    failures = []
    for token, token_style in style:
        if token in Token.Error or not token_style["color"]:
            continue
        under = Color.parse(f"#{token_style['bgcolor']}") if token_style["bgcolor"] else background
        ratio = contrast_ratio(Color.parse(f"#{token_style['color']}"), under)
        if ratio < MINIMUM:
            failures.append(f"{token} #{token_style['color']} = {ratio:.2f}")
    assert not failures, failures


def report(failures: list[str]) -> str:
    """The failures, each text and colour pair once (the first place it was seen)."""
    seen: dict[str, str] = {}
    for failure in failures:
        seen.setdefault(failure.split("): ", 1)[1], failure)
    return "text below 4.5:1:\n" + "\n".join(seen.values())


# -- the scene -----------------------------------------------------------------------------------


def select(config_id: str, name: str, current: str, values: list[tuple[str, str]], category: str) -> dict[str, Any]:
    return {
        "type": "select",
        "configId": config_id,
        "name": name,
        "currentValue": current,
        "category": category,
        "options": [{"value": value, "name": label} for value, label in values],
    }


CONFIG = [
    select("mode", "Mode", "ask", [("ask", "Ask"), ("code", "Code")], "mode"),
    select("model", "Model", "fast", [("fast", "Fast"), ("smart", "Smart")], "model"),
]


def scene_turn() -> dict[str, Any]:
    """One v2 turn with every kind of entry; it fails at the end so the status bar shows an error."""
    diff = [
        {
            "type": "diff",
            "changes": [{"operation": "modify", "path": "src/greet.py"}],
            "patch": {"format": "git_patch", "text": GIT_DIFF},
        }
    ]
    steps: list[dict[str, Any]] = [
        update({"sessionUpdate": "agent_thought", "messageId": "t1", "content": [text("Let me think.")]}),
        update({"sessionUpdate": "agent_message", "messageId": "m1", "content": [text(ANSWER)]}),
        plan_update(
            "p1",
            ("Read the code", "completed"),
            ("Fix the bug", "in_progress"),
            ("Test it", "pending"),
            ("Skip this", "cancelled"),
        ),
        tool("pend", title="Read notes.md", kind="read", status="pending"),
        tool(
            "edit",
            title="Edit src/greet.py",
            kind="edit",
            status="completed",
            locations=[{"path": "src/greet.py", "line": 2}],
            content=diff,
        ),
        tool(
            "fail",
            title="Run the tests",
            kind="execute",
            status="failed",
            content=[{"type": "content", "content": text("1 failed, 2 passed")}],
        ),
        tool("stop", title="Long job", kind="execute", status="cancelled"),
        tool("odd", title="Odd status", kind="other", status="teleporting"),
        tool(
            "run",
            title="Run pytest",
            kind="execute",
            status="in_progress",
            content=[{"type": "terminal", "terminalId": "term-1"}],
        ),
        update({"sessionUpdate": "terminal_update", "terminalId": "term-1", "command": "pytest -q", "cwd": "/src"}),
        update(
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": "term-1",
                "data": b64(b"collected 3 items\n\x1b[32m3 passed\x1b[0m \x1b[31m1 failed\x1b[0m\n"),
            }
        ),
        update({"sessionUpdate": "terminal_update", "terminalId": "term-1", "exitStatus": {"exitCode": 1}}),
        update(
            {
                "sessionUpdate": "compaction_update",
                "compactionId": "c1",
                "status": "completed",
                "summary": [text("Kept the plan.")],
            }
        ),
        update({"sessionUpdate": "_vendor/sparkle", "intensity": 11}),
        update(
            {
                "sessionUpdate": "usage_update",
                "used": 53_200,
                "size": 200_000,
                "cost": {"amount": 0.12, "currency": "USD"},
            }
        ),
        update(
            {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "Rate limit soon",
                "description": "You have used 90% of your quota.",
            }
        ),
        {"op": "stderr", "text": "warming up"},
        {"op": "raw", "line": "this is not JSON"},
    ]
    return {
        "match": "scene",
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            *steps,
            update(
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "error",
                    "error": {"code": -32603, "message": "model overloaded"},
                }
            ),
        ],
    }


def dialog_turn(go: Path) -> dict[str, Any]:
    """A turn that asks for permission and waits (the prompt sent meanwhile is queued); the request comes once
    the test has read the screen before it (`go` exists)."""
    request = {
        "op": "request",
        "method": "session/request_permission",
        "id": 7,
        "wait": True,
        "params": {
            "sessionId": "$SESSION",
            "title": "Edit main.py",
            "description": "The agent wants to change a file.",
            "subject": {
                "type": "tool_call",
                "toolCall": {"toolCallId": "perm", "title": "Edit main.py", "kind": "edit", "status": "pending"},
            },
            "options": [
                {"optionId": "yes", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
            ],
        },
    }
    return {
        "match": "dialog",
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            plan_update("p2", ("Ask first", "completed"), ("Edit main.py", "in_progress"), ("Test it", "pending")),
            {"op": "wait_for_file", "path": str(go), "timeout": 30},
            request,
            {"op": "state", "state": "idle", "stopReason": "end_turn"},
        ],
    }


def scene_app(tmp_path: Path, theme: str) -> tuple[AcpApp, Path]:
    script = {
        "version": 2,
        "initialize": {
            "protocolVersion": 2,
            "info": {"name": "scripted", "title": "Scripted Agent", "version": "1.0.0"},
            "capabilities": {"session": {}},
        },
        "session_new": {"sessionId": "contrast-1", "configOptions": CONFIG},
        "after_session_new": [
            update({"sessionUpdate": "session_info_update", "title": "Contrast check"}),
            update(
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": [
                        {"name": "help", "description": "Show help"},
                        {"name": "compact", "description": "Compact"},
                    ],
                }
            ),
        ],
        "turns": [scene_turn(), dialog_turn(tmp_path / "go")],
    }
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    record = tmp_path / "record.jsonl"
    launch = Launch(
        agent_argv=tuple(scripted_agent_argv(script_path, record)),
        agent_name="scripted",
        env={},
        cwd=project_dir(tmp_path),
        protocol="auto",
        theme=theme,
        log_path=None,
        init_timeout=10,
        warnings=("a warning from the config file",),
        is_demo=False,
    )
    return AcpApp(launch, arm_delay=0.1), record


#: The status bar's states, each as the fields the chat screen sets.
STATUS_STATES: list[dict[str, Any]] = [
    {"state": "starting", "busy": False},
    {"state": "running", "busy": True},
    {"state": "idle", "busy": False, "waiting_label": "waiting for initialize 3s"},
    {"state": "running", "busy": True, "waiting_for_user": 2, "waiting_label": None},
    {"state": "running", "busy": True, "waiting_for_user": 0, "cancelling": True},
    {"state": "requires_action", "busy": False, "cancelling": False},
    {"state": "idle", "busy": False, "stop_reason": "cancelled"},
    {"state": "idle", "busy": False, "stop_reason": "refusal"},
    {"state": "idle", "busy": False, "stop_reason": "end_turn", "queued": 2, "problems": 1, "stderr_unseen": 3},
    {"state": "stopped", "busy": False},
]


@pytest.mark.parametrize("theme", THEMES)
async def test_every_text_cell_has_readable_contrast(tmp_path: Path, theme: str) -> None:
    app, record = scene_app(tmp_path, theme)
    failures: list[str] = []
    async with app.run_test(size=(120, 160), notifications=True) as pilot:
        run = AppRun(app, pilot, record)
        await run.ready()
        # the prompt with its placeholder and the chips
        await pilot.pause()
        failures += low_contrast(app, "idle screen")
        # the slash-command menu
        await pilot.press("slash")
        await run.wait(lambda: run.chat.query_one(CommandMenu).is_open, "the command menu")
        await pilot.pause()
        failures += low_contrast(app, "command menu")
        run.chat.prompt_input.load_text("")
        # every timeline entry, a toast, the error state
        await run.send("scene")
        await run.idle()
        await run.wait(
            lambda: run.chat.status.values.problems > 0 and run.chat.status.values.stderr_unseen > 0,
            "the problem and the stderr line",
        )
        await run.wait(lambda: bool(app.screen.query("Toast")), "the toast")
        for thought in run.chat.query(ThoughtView):
            thought.focus()
            await pilot.press("enter")  # open: its text is dimmed on purpose, but must stay readable
        for card in run.chat.query(ToolCallCard):
            if not card.expanded:
                card.toggle()  # a finished call is one line: open it, so its diff and output are checked too
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        failures += low_contrast(app, "timeline")
        # a focused card
        run.chat.query("ToolCallCard").first().focus()
        await pilot.pause()
        failures += low_contrast(app, "focused card")
        run.chat.prompt_input.focus()
        # the stderr panel
        await pilot.press("f2")
        await pilot.pause()
        failures += low_contrast(app, "stderr panel")
        await pilot.press("f2")
        # the status bar in each state
        status = run.chat.query_one(StatusBar)
        for fields in STATUS_STATES:
            status.update_values(**fields)
            await pilot.pause()
            failures += low_contrast(app, f"status {fields}", status.region)
        # the problems list and the settings picker
        await pilot.press("f3")
        await run.wait(lambda: isinstance(app.screen, ModalScreen), "the problems list")
        await pilot.pause()
        failures += low_contrast(app, "problems list", dialog_region(app))
        await pilot.press("escape")
        await run.wait(lambda: not isinstance(app.screen, ModalScreen), "the problems list to close")
        await pilot.press("f4")
        await run.wait(lambda: isinstance(app.screen, ModalScreen), "the settings picker")
        await pilot.pause()
        failures += low_contrast(app, "settings picker", dialog_region(app))
        await pilot.press("escape")
        await run.wait(lambda: not isinstance(app.screen, ModalScreen), "the picker to close")
        # the permission dialog, with a prompt queued behind it
        app.clear_notifications()
        await run.send("dialog")
        await run.wait(lambda: run.chat.status.values.busy, "the agent to work")
        # Queued through the controller: typed, it raced the permission dialog, which took the Enter when it
        # came first (under load), and nothing was queued.
        run.chat.controller.submit("a queued prompt")
        await run.wait(lambda: bool(run.chat.query(QueuedPrompt)), "the queued prompt")
        await run.wait(lambda: run.chat.query_one(PlanPanel).shown, "the plan panel")
        await pilot.pause()
        failures += low_contrast(app, "queued prompt and plan panel")
        (tmp_path / "go").touch()  # now the permission request
        await run.wait(lambda: isinstance(app.screen, ModalScreen) and app.screen.armed, "the armed dialog")  # type: ignore[attr-defined]
        await pilot.pause()
        failures += low_contrast(app, "permission dialog", dialog_region(app))
        await pilot.press("1")
        await run.wait(lambda: not isinstance(app.screen, ModalScreen), "the dialog to close")
        await pilot.pause()
        failures += low_contrast(app, "after the dialog")
    assert not failures, report(failures)


# -- focus you can see (issue 22) ----------------------------------------------------------------------

#: WCAG 2.x success criterion 1.4.11 (non-text contrast): a focus indicator reads at 3:1 or better.
FOCUS_MINIMUM = 3.0

Cell = tuple[str, Color, Color]


def cells(app: AcpApp, region: Region) -> dict[tuple[int, int], Cell]:
    """(character, foreground, background) of every cell of `region` as the terminal is sent it."""
    variables = app.theme_variables
    default_fg, default_bg = Color.parse(variables["foreground"]), Color.parse(variables["background"])
    out: dict[tuple[int, int], Cell] = {}
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        if not region.y <= y < region.bottom:
            continue
        x = 0
        for segment in strip:
            style = segment.style
            fg = Color.from_rich_color(style.color) if style is not None and style.color else default_fg
            bg = Color.from_rich_color(style.bgcolor) if style is not None and style.bgcolor else default_bg
            if style is not None and style.reverse:
                fg, bg = bg, fg
            for character in segment.text:
                if region.x <= x < region.right:
                    out[(x, y)] = (character, fg, bg)
                x += 1
    return out


def marker_contrast(before: dict[tuple[int, int], Cell], after: dict[tuple[int, int], Cell]) -> float:
    """How strongly the cells that changed show it: a glyph that appeared, against its background, or a
    background that changed, against the old one (the best of them; 1.0 when nothing changed)."""
    best = 1.0
    for place, (character, fg, bg) in after.items():
        old = before.get(place)
        if old is None or old == (character, fg, bg):
            continue
        best = max(best, contrast_ratio(bg, old[2]))
        if not character.isspace() and character != old[0]:
            best = max(best, contrast_ratio(fg, bg))
    return best


@pytest.mark.parametrize("theme", THEMES)
async def test_a_focused_card_is_marked_at_3_to_1(tmp_path: Path, theme: str) -> None:
    """The focused card's background alone was a 1.1–1.2:1 tint: a bar beside it now marks it."""
    turn = {
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            tool(
                "t1",
                title="Read a.txt",
                kind="read",
                status="completed",
                content=[{"type": "content", "content": text("one line")}],
            ),
            {"op": "state", "state": "idle", "stopReason": "end_turn"},
        ]
    }
    async with running_app(tmp_path, {"version": 2, "turns": [turn]}, size=(80, 24), theme=theme) as run:
        await run.send("go")
        await run.idle()
        [card] = run.chat.query(ToolCallCard)
        await run.pilot.pause()
        before = cells(run.app, card.region)
        card.focus()
        await run.pilot.pause()
        ratio = marker_contrast(before, cells(run.app, card.region))
        assert ratio >= FOCUS_MINIMUM, f"{theme}: the focused card shows at {ratio:.2f}:1"


@pytest.mark.parametrize("theme", THEMES)
async def test_the_session_list_cursor_row_is_marked_at_3_to_1(theme: str) -> None:
    from tests.support.sessions_browser import Host, Source, settle

    class ThemedHost(Host):
        def on_mount(self) -> None:
            for palette in load_shipped_themes():
                self.register_theme(palette)
            self.theme = theme
            super().on_mount()

    app = ThemedHost(Source(total=3, current_session_id=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: len(app.browser.rows) == 3, "the sessions")
        view = app.browser.query_one(SessionList)
        view.focus()
        await pilot.pause()
        first = Region(view.region.x, view.region.y, view.region.width, 1)
        selected = cells(app, first)  # type: ignore[arg-type]
        view.move(1)
        await pilot.pause()
        ratio = marker_contrast(cells(app, first), selected)  # type: ignore[arg-type]
        assert ratio >= FOCUS_MINIMUM, f"{theme}: the cursor row shows at {ratio:.2f}:1"


@pytest.mark.parametrize("theme", THEMES)
async def test_the_mention_pickers_selected_row_reads_at_4_5_to_1(tmp_path: Path, theme: str) -> None:
    """The `@` picker's matched letters on the selected row read at 1.2:1 (dark) / 2.2:1 (light)."""
    for name in ("greet.py", "green.txt", "grep.md"):
        (project_dir(tmp_path) / name).write_text("x\n", encoding="utf-8")
    async with running_app(tmp_path, {"version": 2}, size=(80, 24), theme=theme) as run:
        run.chat.prompt_input.focus()
        await run.pilot.press("at", "g", "r", "e")
        picker = run.chat.query_one(FilePicker)
        await run.wait(lambda: picker.is_open and len(picker.shown) == 3 and picker.highlighted == 0, "the picker")
        await run.pilot.press("down")
        await run.wait(lambda: picker.highlighted == 1, "the second row")
        await run.pilot.pause()
        failures = low_contrast(run.app, "mention picker", picker.content_region)
        assert not failures, report(failures)
