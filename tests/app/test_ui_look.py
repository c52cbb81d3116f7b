"""The look (issue 18): one glyph per meaning, paths relative to the session folder, one-line tool calls
with their results, numbered diffs, client lines without stacked glyphs, the plan panel, the colour
system, and a screen that holds the demo's `tools` answer at 160x50.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from acp_tui.path_text import ViewContext
from acp_tui.protocol.v2 import (
    Diff,
    DiffChange,
    DiffPatch,
    PlanEntry,
    PlanItems,
    PlanUpdate,
    StateUpdate,
    TerminalExitStatus,
    TerminalRef,
    TerminalUpdate,
    ToolCallLocation,
    ToolCallUpdate,
)
from acp_tui.session.model import SessionState
from acp_tui.ui.app import ANSI_THEME, AcpApp
from acp_tui.ui.themes.colour_system import colour_system
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.diff_view import DiffView, diff_rows, diff_stats
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.timeline.user_message import UserMessageView
from acp_tui.ui.widgets.icons import GLYPHS, KIND_ICONS, leading_glyph, plan_status_glyph, status_pill
from acp_tui.ui.widgets.plan_panel import PlanPanel
from tests.support.demo_app import DemoRun, demo_launch
from tests.support.widgets import WidgetApp, card_line, drive, found, run, screen_text, text_item

# -- one glyph per meaning ------------------------------------------------------------------------


def test_every_meaning_has_its_own_glyph_and_every_status_uses_the_table() -> None:
    glyphs = list(GLYPHS.values())
    assert len(glyphs) == len(set(glyphs)), "two meanings share a glyph"
    assert not set(glyphs) & set(KIND_ICONS.values()), "a kind icon looks like a status"
    assert all(len(glyph) == 1 for glyph in glyphs)  # one cell, never an emoji
    assert status_pill("completed").text.startswith(GLYPHS["done"])
    assert status_pill("failed").text.startswith(GLYPHS["failed"])
    assert status_pill("cancelled").text.startswith(GLYPHS["cancelled"])
    assert status_pill("in_progress", interrupted=True).text.startswith(GLYPHS["cancelled"])
    assert status_pill("pending").text.startswith(GLYPHS["pending"])
    assert [plan_status_glyph(s)[0] for s in ("completed", "in_progress", "pending", "cancelled")] == [
        GLYPHS["done"],
        GLYPHS["running"],
        GLYPHS["pending"],
        GLYPHS["cancelled"],
    ]


def test_a_line_that_names_its_glyph_keeps_it() -> None:
    assert leading_glyph("⊘ cancelled") == ("⊘", "cancelled")
    assert leading_glyph("✗ the turn failed: x") == ("✗", "the turn failed: x")
    assert leading_glyph("the agent stopped") == (None, "the agent stopped")
    assert leading_glyph("▤ not a status") == (None, "▤ not a status")


async def test_client_lines_show_one_glyph_each() -> None:
    lines = [
        SystemLine("⊘ cancelled"),
        SystemLine("✗ the turn failed: model [overloaded]", severity="error"),
        SystemLine("the agent stopped (exit 1) — press Ctrl-R to restart it", severity="error", detail="boom"),
        SystemLine("a warning from the config file", severity="warning"),
        SystemLine("restarting the agent…"),
    ]
    app = WidgetApp(*lines)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        rendered = [str(line.render()).split("\n")[0] for line in lines]
        assert rendered == [
            "⊘ cancelled",
            "✗ the turn failed: model [overloaded]",
            "✗ the agent stopped (exit 1) — press Ctrl-R to restart it",
            "⚠ a warning from the config file",
            "· restarting the agent…",
        ]
        text = screen_text(app)
        assert "■" not in text and "⏺" not in text


# -- paths ----------------------------------------------------------------------------------------


def test_paths_are_relative_to_the_session_folder_else_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/me")
    context = ViewContext("/home/me/src/app")
    assert context.path("/home/me/src/app/src/x.py") == "src/x.py"
    assert context.path("/home/me/src/app") == "."
    assert context.path("/home/me/src/apple/x.py") == "~/src/apple/x.py"
    assert context.path("/etc/hosts") == "/etc/hosts"
    assert context.path("relative/y.py") == "relative/y.py"
    assert context.path("/home/me/src/app/\x1b]0;x\x07evil") == "evil"  # sanitized first
    assert context.text("Read /home/me/src/app/src/x.py") == "Read src/x.py"
    assert context.text("cd /home/me/src/app/ && ls") == "cd /home/me/src/app/ && ls"  # not a path in it
    assert context.text("cp /x/home/me/src/app/a b") == "cp /x/home/me/src/app/a b"  # inside a longer path
    assert ViewContext().path("/home/me/x") == "~/x"


# -- tool calls: one line, its result ---------------------------------------------------------------

PATCH = (
    "diff --git a/src/app.py b/src/app.py\nindex 1..2 100644\n--- a/src/app.py\n+++ b/src/app.py\n"
    "@@ -1,3 +1,3 @@\n import os\n-x = 1\n+x = 2\n done()\n"
    "@@ -10,2 +10,3 @@ def later():\n keep()\n+added()\n last()\n\\ No newline at end of file\n"
)
CWD = "/work/app"


def a_diff(path: str = f"{CWD}/src/app.py") -> Diff:
    return Diff(changes=[DiffChange(operation="modify", path=path)], patch=DiffPatch(format="git_patch", text=PATCH))


def test_diff_rows_number_both_sides_and_say_the_path_once() -> None:
    rows = diff_rows(a_diff(), ViewContext(CWD))
    assert [(r.kind, r.text, r.old, r.new) for r in rows] == [
        ("file", "src/app.py", None, None),
        ("context", "import os", 1, 1),
        ("removed", "x = 1", 2, None),
        ("added", "x = 2", None, 2),
        ("context", "done()", 3, 3),
        ("gap", "def later():", None, None),
        ("context", "keep()", 10, 10),
        ("added", "added()", None, 11),
        ("context", "last()", 11, 12),
        ("note", "\\ No newline at end of file", None, None),
    ]
    assert diff_stats(a_diff()) == (2, 1)
    # the card names the path already: the diff starts with its lines
    assert diff_rows(a_diff(), ViewContext(CWD), hide_path=f"{CWD}/src/app.py")[0].kind == "context"
    # a removed line that looks like a header stays a removed line inside a hunk
    tricky = Diff(
        changes=[DiffChange(operation="modify", path="/a")],
        patch=DiffPatch(format="git_patch", text="--- a/a\n+++ b/a\n@@ -1,2 +1,1 @@\n--- not a header\n keep\n"),
    )
    assert [(r.kind, r.text) for r in diff_rows(tricky)][1:] == [("removed", "-- not a header"), ("context", "keep")]


async def test_long_diffs_fold_and_code_is_coloured() -> None:
    lines = "".join(f"+line_{i} = {i}\n" for i in range(100))
    long = Diff(
        changes=[DiffChange(operation="add", path="/gen.py")],
        patch=DiffPatch(format="git_patch", text=f"--- /dev/null\n+++ b/gen.py\n@@ -0,0 +1,100 @@\n{lines}"),
    )
    view = DiffView(long, max_lines=10)
    app = WidgetApp(view)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        shown = view.content_lines()
        assert shown[0] == "/gen.py  (new file)" and len(shown) == 12
        assert shown[-1] == "… 90 more lines (press s to save)" and view.hidden_lines == 90
        assert "line_99" in view.full_text()
        rendered = view.render()
        start = rendered.plain.index("line_0")
        number = rendered.plain.index("0", start + len("line_0 = "))
        colours = {str(rendered.get_style_at_offset(app.console, offset).color) for offset in (start, number)}
        assert len(colours) == 2  # a name and a number: Python is coloured


async def test_a_huge_patch_builds_only_the_rows_it_shows() -> None:
    """An agent's 20,000-hunk patch: the hunk model keeps the rows shown and counts the rest exactly (each
    hunk's two rows and the gap before every hunk but the first)."""
    hunks = 20_000
    text = "--- a/big.txt\n+++ b/big.txt\n" + "".join(
        f"@@ -{i * 9 + 1} +{i * 9 + 1} @@ h{i}\n-a{i}\n+b{i}\n" for i in range(hunks)
    )
    big = Diff(
        changes=[DiffChange(operation="modify", path="/big.txt")], patch=DiffPatch(format="git_patch", text=text)
    )
    view = DiffView(big, max_lines=10)
    assert view.hidden_lines == 2 * hunks + (hunks - 1) - 10
    assert len(view._rows) == 11  # the file row and ten patch rows: nothing past the fold was built
    assert diff_stats(big) == (hunks, hunks)
    # a patch in a format we do not read: its raw lines, bounded the same way
    raw = Diff(
        changes=[DiffChange(operation="modify", path="/big.txt")],
        patch=DiffPatch(format="_fancy", text="".join(f"line {i}\n" for i in range(100_000))),
    )
    raw_view = DiffView(raw, max_lines=10)
    assert raw_view.hidden_lines == 100_000 + 1 - 10 and len(raw_view._rows) == 11  # "patch (_fancy):" is a row
    async with WidgetApp(view).run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        shown = view.content_lines()
        assert len(shown) == 12 and shown[-1] == f"… {view.hidden_lines} more lines (press s to save)"


async def test_a_finished_call_is_one_line_with_its_result() -> None:
    state = SessionState()
    run(
        state,
        StateUpdate(state="running"),
        ToolCallUpdate(
            tool_call_id="edit",
            title=f"Edit {CWD}/src/app.py",
            kind="edit",
            status="completed",
            locations=[ToolCallLocation(path=f"{CWD}/src/app.py")],
            content=[a_diff()],
        ),
        ToolCallUpdate(
            tool_call_id="read",
            title="Read the config",
            kind="read",
            status="completed",
            locations=[ToolCallLocation(path=f"{CWD}/conf/app.toml", line=3)],
            content=[text_item("```toml\na = 1\nb = 2\n```\n")],
        ),
        ToolCallUpdate(
            tool_call_id="grep", title="grep TODO", kind="search", status="completed", content=[text_item("no matches")]
        ),
        ToolCallUpdate(
            tool_call_id="far",
            title="Read notes",
            kind="read",
            status="completed",
            locations=[ToolCallLocation(path="/etc/hosts"), ToolCallLocation(path="/etc/passwd")],
        ),
        TerminalUpdate(terminal_id="t1", command="pytest -q", cwd=CWD),
        ToolCallUpdate(
            tool_call_id="run",
            title="Run the tests",
            kind="execute",
            status="in_progress",
            content=[TerminalRef(terminal_id="t1")],
        ),
        ToolCallUpdate(
            tool_call_id="fail",
            title="Fetch the page",
            kind="fetch",
            status="failed",
            content=[text_item("Error: no network")],
        ),
        ToolCallUpdate(tool_call_id="named", title="echo hi", kind="execute", status="completed", name="Bash"),
        ToolCallUpdate(tool_call_id="said", title="Write hello.txt", kind="edit", status="completed", name="write"),
        ToolCallUpdate(tool_call_id="refused", title="Modify config.json", kind="edit"),
    )
    found(state.tool_call("refused")).rejected = True  # the user rejected its permission; the agent said nothing
    context = ViewContext(CWD)

    def factory(terminal_id: str) -> Widget | None:
        terminal = state.terminal(terminal_id)
        return TerminalView(terminal, context=context) if terminal is not None else None

    cards = {
        key: ToolCallCard(found(state.tool_call(key)), context=context, terminal_factory=factory)
        for key in ("edit", "read", "grep", "far", "run", "fail", "named", "said", "refused")
    }
    app = WidgetApp(*cards.values())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert card_line(app, cards["edit"]) == "✓ ✎ Edit src/app.py · +2 −1 ▸"  # relative, once
        assert card_line(app, cards["read"]) == "✓ ▤ Read the config · conf/app.toml:3 · 2 lines ▸"
        assert card_line(app, cards["grep"]) == "✓ ⌕ grep TODO · no matches ▸"
        assert card_line(app, cards["far"]) == "✓ ▤ Read notes · /etc/hosts +1 ▸"
        assert card_line(app, cards["fail"]) == "✗ ⇣ Fetch the page · failed ▾"
        assert card_line(app, cards["named"]) == "✓ ▶ echo hi · Bash"  # the tool's name, when the title lacks it
        assert card_line(app, cards["said"]) == "✓ ✎ Write hello.txt"  # …and not twice
        assert card_line(app, cards["refused"]) == "⊘ ✎ Modify config.json · rejected"  # not "○ … · pending"
        assert cards["fail"].expanded and "Error: no network" in screen_text(app)
        # running: the body shows (the terminal, its folder unsaid: it is the session's)
        assert cards["run"].expanded and "$ pytest -q\n" in screen_text(app) + "\n"
        assert not any(card.expanded for key, card in cards.items() if key not in ("run", "fail"))
        # done: its line says how the command ended, the body folds away
        drive(cards["run"], run(state, ToolCallUpdate(tool_call_id="run", status="completed")))
        run(state, TerminalUpdate(terminal_id="t1", exit_status=TerminalExitStatus(exit_code=0)))
        cards["run"].query_one(TerminalView).apply_fields(frozenset({"exit_status"}))
        cards["run"].terminal_changed()
        await pilot.pause()
        assert card_line(app, cards["run"]) == "✓ ▶ Run the tests · exit 0 ▸" and not cards["run"].expanded
        # nothing is boxed: no border on the card or the terminal inside it
        for card in cards.values():
            assert not any(edge for edge, _ in card.styles.border)
        assert not any(edge for edge, _ in cards["run"].query_one(TerminalView).styles.border)


# -- the plan panel -------------------------------------------------------------------------------


async def test_plan_panel_shows_the_plan_in_progress_and_folds_to_one_line() -> None:
    state = SessionState()
    entries = [
        PlanEntry(content="Read the code", priority="high", status="completed"),
        PlanEntry(content="Fix [b]it[/b]", priority="high", status="in_progress"),
        PlanEntry(content="Run the tests", priority="low", status="pending"),
    ]
    run(state, PlanUpdate(plan=PlanItems(plan_id="p", entries=entries)))
    panel = PlanPanel()
    app = WidgetApp(panel)
    async with app.run_test(size=(80, 45)) as pilot:
        assert not panel.shown
        panel.show(found(state.plan("p")))
        await pilot.pause()
        assert panel.shown and panel.expanded  # a tall screen has room for the checklist
        text = screen_text(app)
        assert "Plan 1/3 · Fix [b]it[/b] ▾" in text and "◐ Fix [b]it[/b]" in text and "○ Run the tests" in text
        assert "high" not in text  # the panel is the checklist, without priorities
        panel.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert not panel.expanded and panel.line_text == "Plan 1/3 · Fix [b]it[/b] ▸"
        assert "Run the tests" not in screen_text(app)
        # every entry done: the panel goes (the timeline keeps the plan)
        run(
            state,
            PlanUpdate(
                plan=PlanItems(
                    plan_id="p",
                    entries=[PlanEntry(content=e.content, priority=e.priority, status="completed") for e in entries],
                )
            ),
        )
        panel.show(found(state.plan("p")))
        await pilot.pause()
        assert not panel.shown


# -- colour ---------------------------------------------------------------------------------------


def no_tmux(environ: Mapping[str, str]) -> str:
    raise AssertionError("tmux asked without need")


@pytest.mark.parametrize(
    ("environ", "features", "expected"),
    [
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "", "truecolor"),
        ({"TERM": "tmux-256color", "TMUX": "/tmp/t,1,0", "COLORTERM": "truecolor"}, "", "truecolor"),
        ({"TERM": "tmux-256color", "TMUX": "/tmp/t,1,0"}, "RGB,title,focus", "truecolor"),
        ({"TERM": "tmux-256color", "TMUX": "/tmp/t,1,0"}, "title,focus", None),  # tmux keeps 256: Rich's choice
        ({"TERM": "xterm-kitty"}, "", "truecolor"),
        ({"TERM": "xterm-ghostty"}, "", "truecolor"),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, "", "truecolor"),
        ({"TERM": "screen-256color"}, "", None),
        ({"TERM": "xterm"}, "", None),
        ({"TERM": "dumb", "COLORTERM": "truecolor"}, "", None),
        ({"TERM": "xterm", "COLORTERM": "truecolor", "TEXTUAL_COLOR_SYSTEM": "256"}, "", None),  # the user chose
    ],
)
def test_colour_system(environ: dict[str, str], features: str, expected: str | None) -> None:
    asked = environ.get("TMUX") and "COLORTERM" not in environ
    assert colour_system(environ, (lambda _env: features) if asked else no_tmux) == expected


def demo_app(tmp_path: Path, theme: str | None = None) -> AcpApp:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return AcpApp(replace(demo_launch(project, 2), theme=theme), arm_delay=0.1)


def test_sixteen_colours_start_with_the_ansi_palette_unless_a_theme_was_chosen(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    app.use_terminal_colours({"TERM": "xterm"})
    assert app.console.color_system == "standard" and app.theme == ANSI_THEME
    chosen = demo_app(tmp_path, theme="acp-light")
    chosen.use_terminal_colours({"TERM": "xterm"})
    assert chosen.theme == "acp-light"
    inside_tmux = demo_app(tmp_path)
    inside_tmux.use_terminal_colours({"TERM": "tmux-256color", "TMUX": "/tmp/t,1,0", "COLORTERM": "truecolor"})
    assert inside_tmux.console.color_system == "truecolor" and inside_tmux.theme == "acp-dark"


def test_no_color_is_respected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = demo_app(tmp_path)
    app.use_terminal_colours({"TERM": "xterm", "NO_COLOR": "1"})
    assert app.no_color and app.theme == "acp-dark"  # greys from Textual, not the ANSI palette


async def test_the_ansi_palette_sends_only_the_terminals_own_colours(tmp_path: Path) -> None:
    app = demo_app(tmp_path, theme=ANSI_THEME)
    async with app.run_test(size=(100, 40)) as pilot:
        demo = DemoRun(app, pilot)
        await demo.ready()
        await demo.turn("tools")
        colours: set[Any] = set()
        for strip in app.screen._compositor.render_strips():
            for segment in strip:
                style = segment.style
                if style is not None:
                    colours.update(c for c in (style.color, style.bgcolor) if c is not None)
        rgb = {str(colour) for colour in colours if colour.triplet is not None and not colour.is_system_defined}
        assert not rgb, f"truecolor under the ANSI palette: {sorted(rgb)[:5]}"


# -- the whole screen -----------------------------------------------------------------------------


async def test_the_demos_tools_answer_fits_160x50(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    app = AcpApp(demo_launch(project, 2), arm_delay=0.1)
    async with app.run_test(size=(160, 50)) as pilot:
        demo = DemoRun(app, pilot)
        await demo.ready()
        await demo.turn("tools")
        await pilot.pause()
        conversation = demo.chat.conversation
        shown = demo.screen_text()
        # the question, every tool call and the closing words are on screen at once
        [question] = [view for view in demo.views(UserMessageView) if view.text.strip() == "tools"]
        answer = demo.views(AgentMessageView)[-2:]
        for widget in [question, *demo.cards(), *answer]:
            assert widget.region.height > 0 and conversation.region.contains_region(widget.region), widget
        assert "Three tool calls worked" in shown and "Let me read the file" in shown
        assert [card.header_text().split(" ")[0] for card in demo.cards()] == ["✓", "✓", "✓", "✗"]
