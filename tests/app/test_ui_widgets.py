"""Pilot tests of the timeline widgets: each is mounted from a model entity built by the reducer and
then patched through its update methods, exactly as the app will drive it."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from rich.text import Text
from textual.app import App
from textual.containers import VerticalScroll
from textual.widget import Widget

from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v1 import V1Diff, V1ToolCall
from acp_tui.protocol.v2 import (
    AudioContent,
    CompactionSummaryChunk,
    CompactionUpdate,
    Diff,
    DiffChange,
    DiffPatch,
    EmbeddedResource,
    ImageContent,
    PlanEntry,
    PlanItems,
    PlanUpdate,
    ResourceLink,
    StateUpdate,
    TerminalExitStatus,
    TerminalOutput,
    TerminalOutputChunk,
    TerminalRef,
    TerminalUpdate,
    TextContent,
    TextResourceContents,
    ToolCallContentChunk,
    ToolCallLocation,
    ToolCallUpdate,
    ToolContent,
    UnknownContent,
    UnknownPlan,
    UnknownToolContent,
    UnknownUpdate,
    UserMessage,
    UserMessageChunk,
)
from acp_tui.session.local_events import AgentExited, CancelRequested
from acp_tui.session.model import SessionState, Submission, UnknownEntry
from acp_tui.session.v1_adapter import V1Adapter
from acp_tui.ui.timeline.compaction import CompactionView
from acp_tui.ui.timeline.diff_view import DiffView
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.timeline.unknown_update import UnknownUpdateView
from acp_tui.ui.timeline.user_message import UserMessageView
from acp_tui.ui.widgets.content_blocks import ContentChip, EmbeddedResourceView, block_chip, head_lines
from acp_tui.ui.widgets.icons import kind_icon, status_pill
from acp_tui.ui.widgets.markdown_stream import MarkdownStream
from acp_tui.ui.widgets.plan_view import PlanView
from tests.support.widgets import (
    GIT_PATCH,
    WidgetApp,
    card_line,
    drive,
    found,
    run,
    screen_lines,
    screen_text,
    shows,
    text_item,
    until,
)

HOSTILE = [
    "[bold red]x[/]",
    "[@click=app.quit]q[/]",
    "\x1b]0;pwned\x07",
    "\u202eevil",
    "nul\x00here",
    "[ Allow always ]",
]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# -- pure helpers -----------------------------------------------------------------------------------


def test_icons_and_pills_cover_known_and_unknown_values() -> None:
    assert kind_icon("edit") != kind_icon("read")
    assert kind_icon("_custom") == kind_icon("other") == kind_icon(None)
    assert status_pill("completed").variant == "success"
    assert status_pill("failed").variant == "error"
    assert status_pill("in_progress", cancelling=True).text == "⊘ cancelling…"
    assert status_pill("completed", cancelling=True).text == "✓ completed"
    unknown = status_pill("_waiting\x1b[2J")
    assert unknown.variant == "unknown" and "_waiting" in unknown.text and "\x1b" not in unknown.text


def test_head_lines_counts_what_it_leaves_out() -> None:
    assert head_lines("a\nb\nc", 2) == ("a\nb", 1)
    assert head_lines("a\nb\n", 2) == ("a\nb", 0)
    assert head_lines("a\nb", 5) == ("a\nb", 0)
    text = "".join(f"{i}\n" for i in range(100_000))
    head, more = head_lines(text, 500)
    assert head.count("\n") == 499 and more == 99_500


def test_content_chips() -> None:
    image = ImageContent(data=b64(b"x" * 34 * 1024), mime_type="image/png")
    assert block_chip(image).plain == "[image png 34 KB]"
    assert block_chip(AudioContent(data=b64(b"y" * 2000), mime_type="audio/wav")).plain == "[audio wav 2 KB]"
    link = ResourceLink(uri="file:///a/b.txt", name="[b]b.txt[/b]")
    assert block_chip(link).plain == "↗ [b]b.txt[/b] (file:///a/b.txt)"
    assert block_chip(UnknownContent(type="hologram\x1b]0;x\x07")).plain == "[unsupported content: hologram]"


# -- user message -----------------------------------------------------------------------------------


async def test_user_message_renders_text_chips_and_delivery_states() -> None:
    state = SessionState()
    run(
        state,
        UserMessage(
            message_id="m1",
            content=[
                TextContent(text="fix [bold]this[/] please\x1b]52;c;aGk=\x07"),
                ImageContent(data=b64(b"p" * 2048), mime_type="image/png"),
            ],
        ),
    )
    view = UserMessageView(state.message("user_message", "m1"))
    app = WidgetApp(view)
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "fix [bold]this[/] please" in text
        assert "▣ image · png · 2 KB" in text  # what was attached, not its bytes
        assert "52;" not in text and "aGk" not in text
        drive(view, run(state, UserMessageChunk(message_id="m1", content=TextContent(text=" now"))))
        await pilot.pause()
        assert "please now" in screen_text(app)
        assert view.state == "sent"

        submission = Submission(7, [TextContent(text="second")])
        pending = UserMessageView.from_submission(submission)
        await app.query_one(VerticalScroll).mount(pending)
        await pilot.pause()
        assert pending.has_class("-pending") and "sending…" in screen_text(app)
        submission.status = "failed"
        submission.error = ErrorObject(code=-32603, message="boom [red]x[/]")
        pending.apply_submission(submission)
        await pilot.pause()
        assert pending.has_class("-failed") and not pending.has_class("-pending")
        assert "not sent: boom [red]x[/]" in screen_text(app)
        pending.set_cancelled()
        await pilot.pause()
        assert "not sent (cancelled)" in screen_text(app)
        pending.set_sent()
        await pilot.pause()
        assert "not sent" not in screen_text(app)


# -- tool call card ---------------------------------------------------------------------------------


async def test_tool_card_status_transitions_update_pill_without_recompose() -> None:
    state = SessionState()
    run(state, StateUpdate(state="running"))
    run(state, ToolCallUpdate(tool_call_id="t1", title="Run tests", kind="execute", status="pending"))
    card = ToolCallCard(found(state.tool_call("t1")))
    app = WidgetApp(card)
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        assert card_line(app, card) == "○ ▶ Run tests · pending"
        assert list(card.walk_children()) == []  # nothing to show: the card draws its own line
        running_glyph = None
        # the glyph says the status; the words follow unless the call runs or completed
        for status, expected in [
            ("in_progress", "◐ ▶ Run tests"),
            ("completed", "✓ ▶ Run tests"),
            ("failed", "✗ ▶ Run tests · failed"),
            ("cancelled", "⊘ ▶ Run tests · cancelled"),
            ("_later", "◐ ▶ Run tests · _later"),
        ]:
            drive(card, run(state, ToolCallUpdate(tool_call_id="t1", status=status)))
            await pilot.pause()
            assert card_line(app, card) == expected, status
            if status == "in_progress":
                running_glyph = glyph_style_at(app, card)
        assert list(card.walk_children()) == []
        # the glyph takes its colour from the theme: running is drawn unlike an unknown status
        assert running_glyph is not None and running_glyph != glyph_style_at(app, card)
        drive(card, run(state, ToolCallUpdate(tool_call_id="t1", status="in_progress")))
        drive(card, run(state, CancelRequested()))
        await pilot.pause()
        assert card_line(app, card) == "⊘ ▶ Run tests · cancelling…"
        drive(card, run(state, ToolCallUpdate(tool_call_id="t1", status="cancelled")))
        await pilot.pause()
        assert card_line(app, card) == "⊘ ▶ Run tests · cancelled" and "cancelling" not in screen_text(app)


async def test_tool_card_shows_interrupted_when_the_agent_dies_mid_call() -> None:
    state = SessionState()
    run(state, StateUpdate(state="running"))
    run(state, ToolCallUpdate(tool_call_id="t1", title="Run tests", kind="execute", status="in_progress"))
    card = ToolCallCard(found(state.tool_call("t1")))
    app = WidgetApp(card)
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        assert card_line(app, card) == "◐ ▶ Run tests" and card.pill_text == "◐ running"
        drive(card, run(state, AgentExited(returncode=1, reason="crashed")))
        await pilot.pause()
        assert card_line(app, card) == "⊘ ▶ Run tests · interrupted"


def glyph_style_at(app: App[Any], card: ToolCallCard) -> Any:
    """The style of the status glyph (the first cell of the card's line, after its padding)."""
    return app.screen._compositor.get_style_at(card.region.x + 1, card.region.y)


async def test_tool_card_hostile_title_is_literal_and_inert() -> None:
    state = SessionState()
    cards = []
    for index, title in enumerate(HOSTILE):
        run(
            state,
            ToolCallUpdate(
                tool_call_id=f"h{index}",
                title=title,
                kind="_weird",
                locations=[
                    ToolCallLocation(path=f"/p/{title}", line=3),
                ],
            ),
        )
        cards.append(ToolCallCard(found(state.tool_call(f"h{index}"))))
    app = WidgetApp(*cards)
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "[bold red]x[/]" in text
        assert "[@click=app.quit]q[/]" in text
        assert "[ Allow always ]" in text
        assert "pwned" not in text and "\x1b" not in text and "\x00" not in text and "\u202e" not in text
        assert "evil" in text and "nulhere" in text
        # every title sits after the status glyph and the generic kind icon, on the card's own line
        assert text.count(f"○ {kind_icon('_weird')} [ Allow always ]") == 1
        # the path is shown once, after the title, as plain text too
        assert "/p/[ Allow always ]:3" in text
        # clicking a hostile title toggles the card and nothing else
        await pilot.click(cards[1])
        await pilot.pause()
        assert not app.quit_called
        for card in cards:
            for y in range(card.region.height):
                style = app.screen._compositor.get_style_at(card.region.x + 3, card.region.y + y)
                assert not style.meta.get("@click")


async def test_tool_card_expand_collapse_by_kind_status_and_user() -> None:
    state = SessionState()
    run(
        state,
        ToolCallUpdate(
            tool_call_id="r",
            title="Read file",
            kind="read",
            status="completed",
            content=[text_item("file body line\nand another")],
        ),
        ToolCallUpdate(
            tool_call_id="e",
            title="Edit",
            kind="edit",
            status="in_progress",
            content=[
                Diff(
                    changes=[DiffChange(operation="modify", path="/src/app.py")],
                    patch=DiffPatch(format="git_patch", text=GIT_PATCH),
                )
            ],
        ),
        ToolCallUpdate(
            tool_call_id="f", title="Search", kind="search", status="failed", content=[text_item("search exploded")]
        ),
    )
    read, edit, failed = (ToolCallCard(found(state.tool_call(i))) for i in "ref")
    app = WidgetApp(read, edit, failed)
    async with app.run_test(size=(90, 50)) as pilot:
        assert await until(pilot, shows(app, "search exploded"))
        assert not read.expanded and edit.expanded and failed.expanded
        text = screen_text(app)
        assert "file body line" not in text and "search exploded" in text and "+ print('new line')" in text
        assert card_line(app, read) == "✓ ▤ Read file · 2 lines ▸"  # done: one line, its result counted
        assert list(read.walk_children()) == []  # collapsed: no body built until it is opened
        read.focus()
        await pilot.press("enter")
        assert await until(pilot, shows(app, "file body line"))
        assert read.expanded
        await pilot.click(read.query_one(".card--title"))
        await pilot.pause()
        assert not read.expanded
        # a user's choice outlives later status changes
        drive(read, run(state, ToolCallUpdate(tool_call_id="r", status="in_progress")))
        assert not read.expanded


async def test_tool_card_body_is_built_from_the_model_when_first_opened() -> None:
    state = SessionState()
    run(state, ToolCallUpdate(tool_call_id="g", title="grep", kind="search", status="completed"))
    card = ToolCallCard(found(state.tool_call("g")))
    app = WidgetApp(card)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert not card.expanded and "▸" not in screen_text(app)  # nothing to open: no arrow
        drive(
            card,
            run(
                state,
                ToolCallContentChunk(tool_call_id="g", content=text_item("hit one\n")),
                ToolCallContentChunk(tool_call_id="g", content=text_item("hit two\n")),
                ToolCallUpdate(tool_call_id="g", locations=[ToolCallLocation(path="/a.py", line=7)]),
            ),
        )
        await pilot.pause()
        assert list(card.walk_children()) == [] and "▸" in screen_text(app)  # closed: still one widget
        card.toggle()
        assert await until(pilot, shows(app, "hit two"))
        drive(card, run(state, ToolCallContentChunk(tool_call_id="g", content=text_item("hit three\n"))))
        assert await until(pilot, shows(app, "hit three"))
        text = screen_text(app)
        assert text.index("/a.py:7") < text.index("hit one") < text.index("hit three")  # the path is on the line
        assert card_line(app, card) == "✓ ⌕ grep · /a.py:7 · 3 lines ▾"
        assert len(card.query("MarkdownStream")) == 1  # one text run, however many chunks


async def test_tool_card_v2_diff_binary_move_and_unknown_format() -> None:
    state = SessionState()
    diff = Diff(
        changes=[
            DiffChange(operation="modify", path="/src/app.py"),
            DiffChange(operation="add", path="/img/logo.png", file_type="binary"),
            DiffChange(operation="move", path="/new/name.py", old_path="/old/name.py"),
            DiffChange(operation="delete", path="/tmp/dir", file_type="directory"),
            DiffChange(operation="_chmod", path="/bin/x[/]"),
        ],
        patch=DiffPatch(format="git_patch", text=GIT_PATCH),
    )
    odd = Diff(
        changes=[DiffChange(operation="copy", path="/b", old_path="/a")],
        patch=DiffPatch(format="_fancy", text="+ not coloured\n- either"),
    )
    bare = Diff(changes=[DiffChange(operation="modify", path="/link", file_type="symlink")], patch=None)
    run(
        state,
        ToolCallUpdate(tool_call_id="d", title="Edit", kind="edit", status="in_progress", content=[diff, odd, bare]),
    )
    card = ToolCallCard(found(state.tool_call("d")))
    app = WidgetApp(card)
    async with app.run_test(size=(90, 50)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        # each file once, by its path; the operation in words where it is not a plain change
        assert "/src/app.py\n" in text and "diff --git" not in text and "+++" not in text and "index " not in text
        assert "/img/logo.png  (new file, binary file)" in text
        assert "/old/name.py → /new/name.py" in text
        assert "/tmp/dir  (deleted, directory)" in text
        assert "/bin/x[/]  (_chmod)" in text
        assert "/a → /b" in text and "patch (_fancy):" in text and "+ not coloured" in text
        assert "/link  (symlink)" in text
        # old and new line numbers, the sign, the code
        assert "1 1   import os" in text
        assert "2   - print('old line')" in text and "  2 + print('new line')" in text
        assert "3 3   done()" in text
        views = list(card.query(DiffView))
        rendered = views[0].render()

        def background_of(text_obj: Text, needle: str) -> Any:
            start = text_obj.plain.index(needle)
            colours = [
                span.style.bgcolor
                for span in text_obj.spans
                if span.start <= start < span.end and not isinstance(span.style, str)
            ]
            base = text_obj.get_style_at_offset(app.console, start).bgcolor
            return next((colour for colour in reversed(colours) if colour is not None), base)

        added, removed = background_of(rendered, "print('new line')"), background_of(rendered, "print('old line')")
        assert added is not None and removed is not None and added != removed  # tinted, each its own way
        assert background_of(rendered, "import os") not in (added, removed)  # context lines are not tinted
        # an unknown patch format is raw text: nothing tinted as added
        assert background_of(views[1].render(), "+ not coloured") not in (added, removed)


async def test_tool_card_v1_diff_with_difflib() -> None:
    """v1 whole-file diffs reach the card as v2 diffs, with the patch the v1 adapter computed."""
    state = SessionState()
    new_file = V1Diff(path="/new.txt", new_text="hello\nworld\n")
    changed = V1Diff(path="/cfg.toml", old_text="a = 1\nb = 2\n", new_text="a = 1\nb = 3\n")
    created = V1ToolCall(tool_call_id="v", title="Write", kind="edit", content=[new_file, changed])
    run(state, *V1Adapter().update(created))
    card = ToolCallCard(found(state.tool_call("v")))
    app = WidgetApp(card)
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        card.toggle()  # pending: one line until opened
        await pilot.pause()
        text = screen_text(app)
        assert "/new.txt  (new file)" in text and "/dev/null" not in text and "  1 + hello" in text
        assert "  2 + world" in text
        assert "/cfg.toml\n" in text and "2   - b = 2" in text and "  2 + b = 3" in text and "1 1   a = 1" in text


async def test_tool_card_streams_text_bounds_output_and_saves_everything() -> None:
    state = SessionState()
    run(state, ToolCallUpdate(tool_call_id="x", title="cat big", kind="execute", status="in_progress"))
    card = ToolCallCard(found(state.tool_call("x")), max_text_lines=50)
    app = WidgetApp(card)
    async with app.run_test(size=(80, 80)) as pilot:
        await pilot.pause()
        drive(card, run(state, ToolCallContentChunk(tool_call_id="x", content=text_item("first "))))
        drive(card, run(state, ToolCallContentChunk(tool_call_id="x", content=text_item("chunk\n\n"))))
        assert await until(pilot, shows(app, "first chunk"))
        big = "".join(f"line {i}\n\n" for i in range(100_000))
        drive(card, run(state, ToolCallContentChunk(tool_call_id="x", content=text_item(big))))
        assert await until(pilot, shows(app, "more lines (press s to save)"))  # shown while it runs
        drive(card, run(state, ToolCallUpdate(tool_call_id="x", status="completed")))
        assert await until(pilot, lambda: not card.expanded)  # done: one line
        card.toggle()
        assert await until(pilot, shows(app, "more lines (press s to save)"))
        text = screen_text(app)
        assert "line 0" in text and "line 99999" not in text
        assert "more lines (press s to save)" in text
        stream = card.query_one(MarkdownStream)
        assert len(stream.text.splitlines()) <= 50
        saved = card.full_text()
        assert "line 99999" in saved and "first chunk" in saved
        card.focus()
        await pilot.press("s")
        assert await until(pilot, lambda: app.saved == [card])


async def test_tool_card_many_items_are_bounded() -> None:
    state = SessionState()
    run(
        state,
        ToolCallUpdate(
            tool_call_id="m",
            title="many",
            kind="other",
            status="in_progress",
            content=[ToolContent(content=ResourceLink(uri=f"file:///{i}", name=f"f{i}")) for i in range(30)],
        ),
    )
    card = ToolCallCard(found(state.tool_call("m")), max_items=10)
    app = WidgetApp(card)
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        assert len(card.query(ContentChip)) == 10
        assert "… 20 more items" in screen_text(app)


async def test_tool_card_locations_raw_json_terminals_and_replace() -> None:
    state = SessionState()
    run(
        state,
        ToolCallUpdate(
            tool_call_id="t",
            title="Run",
            kind="execute",
            status="in_progress",
            locations=[ToolCallLocation(path="/src/main.py", line=42), ToolCallLocation(path="/README")],
            raw_input={"command": "[bold]ls[/]", "lines": list(range(1000))},
            content=[TerminalRef(terminal_id="term-1"), UnknownToolContent(type="hologram")],
        ),
    )
    card = ToolCallCard(found(state.tool_call("t")))
    app = WidgetApp(card)
    async with app.run_test(size=(80, 60)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "/src/main.py:42" in text and "/README" in text
        assert "terminal term-1" in text and "[unsupported tool content: hologram]" in text
        assert '"[bold]ls[/]"' not in text
        assert card.terminal_ids == ["term-1"]
        card.focus()
        await pilot.press("i")
        await pilot.pause()
        text = screen_text(app)
        assert '"command": "[bold]ls[/]"' in text
        raw = card.query_one(".card--raw")
        assert "more lines" in str(raw.render())

        run(state, TerminalUpdate(terminal_id="term-1", command="make", output=TerminalOutput(data=b64(b"ok\n"))))
        terminal = TerminalView(found(state.terminal("term-1")))
        assert card.attach_terminal(terminal)
        await pilot.pause()
        assert "$ make" in screen_text(app) and "ok" in screen_text(app)
        assert not card.attach_terminal(TerminalView(found(state.terminal("term-1"))))

        drive(card, run(state, ToolCallUpdate(tool_call_id="t", content=[text_item("replaced body")])))
        assert await until(pilot, shows(app, "replaced body"))
        text = screen_text(app)
        assert "replaced body" in text and "hologram" not in text and "$ make" not in text
        drive(card, run(state, ToolCallUpdate(tool_call_id="t", locations=None, title="Renamed [x]")))
        await pilot.pause()
        text = screen_text(app)
        assert "/src/main.py:42" not in text and "Renamed [x]" in text


async def test_tool_card_terminal_factory_fills_slots() -> None:
    state = SessionState()
    run(
        state,
        TerminalUpdate(terminal_id="t9", command="pytest", cwd="/repo"),
        ToolCallUpdate(
            tool_call_id="c",
            title="Test",
            kind="execute",
            status="in_progress",
            content=[TerminalRef(terminal_id="t9")],
        ),
    )

    def factory(terminal_id: str) -> Widget | None:
        term = state.terminal(terminal_id)
        return TerminalView(term) if term is not None else None

    card = ToolCallCard(found(state.tool_call("c")), terminal_factory=factory)
    app = WidgetApp(card)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert "$ pytest  (/repo)" in screen_text(app)
        first = card.query_one(TerminalView)
        drive(
            card,
            run(
                state,
                ToolCallUpdate(
                    tool_call_id="c",
                    content=[
                        text_item("rerun"),
                        TerminalRef(terminal_id="t9"),
                    ],
                ),
            ),
        )
        assert await until(pilot, lambda: len(card.query(TerminalView)) == 1 and first not in card.query(TerminalView))
        assert await until(pilot, shows(app, "rerun"))
        assert screen_text(app).count("$ pytest  (/repo)") == 1


# -- terminal view ----------------------------------------------------------------------------------


async def test_terminal_keeps_colours_drops_output_controls_and_shows_its_command_exactly() -> None:
    state = SessionState()
    run(state, TerminalUpdate(terminal_id="t", command="ls --color\x1b]0;x\x07", cwd="/home/u"))
    view = TerminalView(found(state.terminal("t")))
    app = WidgetApp(view)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        assert "$ ls --color\\x1b]0;x\\x07  (/home/u)" in screen_text(app)  # what runs: controls written out
        assert "running…" in screen_text(app)
        data = b"\x1b[2J\x1b]52;c;cHduZWQ=\x07plain \x1b[31mred\x1b[0m \x1b[1;32mgre"
        drive(view, run(state, TerminalOutputChunk(terminal_id="t", data=b64(data))))
        drive(view, run(state, TerminalOutputChunk(terminal_id="t", data=b64(b"en\x1b[0m\n\xe2\x9c"))))
        drive(view, run(state, TerminalOutputChunk(terminal_id="t", data=b64(b"\x93 done\n"))))
        await pilot.pause()
        text = screen_text(app)
        assert "plain red green" in text and "✓ done" in text
        assert "52;" not in text and "cHdu" not in text
        lines = view.output.lines()
        red = lines[0]
        colours = [span.style.color for span in red.spans if not isinstance(span.style, str) and span.style.color]
        assert [colour.number for colour in colours] == [1, 2, 2]  # red; green split across two chunks
        assert all("\x1b" not in line.plain for line in lines)
        # on screen, the red word has a different colour from the plain one
        row = next(y for y, line in enumerate(screen_lines(app)) if "plain red" in line)
        col = screen_lines(app)[row].index("red")
        compositor = app.screen._compositor
        assert compositor.get_style_at(col, row).color != compositor.get_style_at(col - 3, row).color

        drive(view, run(state, TerminalUpdate(terminal_id="t", exit_status=TerminalExitStatus(exit_code=0))))
        await pilot.pause()
        assert "exit 0" in screen_text(app)
        drive(view, run(state, TerminalUpdate(terminal_id="t", exit_status=TerminalExitStatus(exit_code=1))))
        await pilot.pause()
        footer = view.query_one(".terminal--footer")
        assert "exit 1" in screen_text(app) and footer.has_class("-error")
        drive(view, run(state, TerminalUpdate(terminal_id="t", exit_status=TerminalExitStatus(signal="SIGTERM"))))
        await pilot.pause()
        assert "killed by SIGTERM" in screen_text(app)

        drive(view, run(state, TerminalUpdate(terminal_id="t", output=TerminalOutput(data=b64(b"snapshot\n")))))
        await pilot.pause()
        text = screen_text(app)
        assert "snapshot" in text and "plain red" not in text


async def test_terminal_output_is_bounded_and_scrollable() -> None:
    state = SessionState()
    run(state, TerminalUpdate(terminal_id="t", command="seq 100000"))
    view = TerminalView(found(state.terminal("t")))
    app = WidgetApp(view)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        payload = "".join(f"{i}\n" for i in range(100_000)).encode()
        drive(view, run(state, TerminalOutputChunk(terminal_id="t", data=b64(payload))))
        assert view.output.line_count == 2000
        assert view.output.dropped_lines == 98_000
        assert view.output.lines()[0].plain == "98000"
        assert await until(pilot, shows(app, "99999"))  # following the end
        assert view.output.region.height <= 15
        assert "98000 earlier lines not shown" in screen_text(app)
        drive(view, run(state, TerminalOutputChunk(terminal_id="t", data=b64(b"x" * 10_000))))
        assert all(len(line) <= 4000 for line in view.output.lines())


# -- plan -------------------------------------------------------------------------------------------


async def test_plan_entries_glyphs_priorities_and_in_place_replace() -> None:
    state = SessionState()
    entries = [
        PlanEntry(content="Read the code", priority="high", status="completed"),
        PlanEntry(content="Write [bold]tests[/]\x1b]0;t\x07", priority="medium", status="in_progress"),
        PlanEntry(content="Ship", priority="low", status="pending"),
        PlanEntry(content="Party", priority="_urgent", status="cancelled"),
        PlanEntry(content="Think", priority="low", status="_blocked"),
    ]
    run(state, PlanUpdate(plan=PlanItems(plan_id="p1", entries=entries)))
    view = PlanView(found(state.plan("p1")))
    app = WidgetApp(view)
    async with app.run_test(size=(70, 14)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Plan 1/5" in text
        assert "✓ Read the code\n" in text  # done: no priority any more
        assert "◐ Write [bold]tests[/]  medium" in text
        assert "○ Ship  low" in text
        assert "⊘ Party\n" in text
        assert "? _blocked Think  low" in text
        high = view.entries.get_component_rich_style("plan--high", partial=True)
        assert high.color is not None
        entries_widget = view.entries
        drive(
            view,
            run(
                state,
                PlanUpdate(
                    plan=PlanItems(
                        plan_id="p1",
                        entries=[
                            PlanEntry(content="Only step", priority="high", status="completed"),
                        ],
                    )
                ),
            ),
        )
        await pilot.pause()
        text = screen_text(app)
        assert "✓ Only step" in text and "Ship" not in text and "Plan 1/1" in text
        assert view.entries is entries_widget


async def test_unknown_plan_expands_to_raw_json() -> None:
    state = SessionState()
    run(
        state,
        PlanUpdate(
            plan=UnknownPlan(
                type="markdown", plan_id="p2", raw={"type": "markdown", "planId": "p2", "content": "[b]# hi[/b]"}
            )
        ),
    )
    view = PlanView(found(state.plan("p2")))
    app = WidgetApp(view)
    async with app.run_test(size=(70, 14)) as pilot:
        await pilot.pause()
        assert "plan (unsupported format: markdown)" in screen_text(app)
        assert "[b]# hi[/b]" not in screen_text(app)
        view.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert '"content": "[b]# hi[/b]"' in screen_text(app)


# -- compaction -------------------------------------------------------------------------------------


async def test_compaction_states_and_summary() -> None:
    state = SessionState()
    run(state, CompactionUpdate(compaction_id="c", status="in_progress"))
    view = CompactionView(found(state.compaction("c")))
    app = WidgetApp(view)
    async with app.run_test(size=(70, 16)) as pilot:
        await pilot.pause()
        assert "◐ compacting context…" in screen_text(app)
        drive(view, run(state, CompactionSummaryChunk(compaction_id="c", content=TextContent(text="We **fixed** "))))
        drive(view, run(state, CompactionSummaryChunk(compaction_id="c", content=TextContent(text="the bug."))))
        assert await until(pilot, shows(app, "We fixed the bug."))
        drive(view, run(state, CompactionUpdate(compaction_id="c", status="completed")))
        await pilot.pause()
        text = screen_text(app)
        # the spec's user-displayable summary stays shown once the compaction completed (issue 22)
        assert "✓ context compacted" in text and "summary ▾" in text and "the bug." in text
        view.focus()
        await pilot.press("enter")
        assert await until(pilot, lambda: "the bug." not in screen_text(app) and "summary ▸" in screen_text(app))
        await pilot.press("enter")
        assert await until(pilot, shows(app, "the bug."))
        drive(view, run(state, CompactionUpdate(compaction_id="c", status="failed", error="[red]oops[/]\x07")))
        await pilot.pause()
        assert "✗ compaction failed: [red]oops[/]" in screen_text(app)
        drive(view, run(state, CompactionUpdate(compaction_id="c", status="_paused")))
        await pilot.pause()
        assert "compaction: _paused" in screen_text(app)
        drive(view, run(state, CompactionUpdate(compaction_id="c", status="_paused", summary=None)))
        assert await until(pilot, lambda: "summary" not in screen_text(app))
        assert view.summary.text == "" and "the bug." not in screen_text(app)


# -- unknown update ---------------------------------------------------------------------------------


async def test_unknown_update_row_expands_to_bounded_sanitized_json() -> None:
    state = SessionState()
    raw = {
        "sessionUpdate": "hologram[/]",
        "payload": "\x1b]52;c;aGk=\x07[@click=app.quit]x[/]",
        "big": list(range(2000)),
    }
    run(state, UnknownUpdate(kind="hologram[/]\u202e", raw=raw))
    entry = state.get("unknown", "1")
    assert isinstance(entry, UnknownEntry)
    view = UnknownUpdateView(entry)
    app = WidgetApp(view)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "the agent sent hologram[/], which this client does not understand" in text
        assert "payload" not in text
        await pilot.click(view)
        await pilot.pause()
        text = screen_text(app)
        # JSON escapes the control characters: they show as inert text, never act
        assert '"payload": "\\u001b]52;c;aGk=\\u0007[@click=app.quit]x[/]"' in text
        assert "\x1b" not in text and not app.quit_called
        assert "more lines" in view.raw_text().plain


# -- embedded resource ------------------------------------------------------------------------------


async def test_embedded_resource_in_the_users_message_shows_its_name_and_size_not_its_text() -> None:
    state = SessionState()
    resource = EmbeddedResource(resource=TextResourceContents(uri="file:///notes.md", text="secret [b]notes[/b]"))
    run(state, UserMessage(message_id="u", content=[TextContent(text="see @notes.md"), resource]))
    view = UserMessageView(state.message("user_message", "u"))
    app = WidgetApp(view)
    async with app.run_test(size=(70, 12)) as pilot:
        await pilot.pause()
        assert "▤ notes.md · 19 B" in screen_text(app)
        assert "secret" not in screen_text(app)
        assert not view.query(EmbeddedResourceView)


async def test_embedded_resource_chip_opens_to_text() -> None:
    resource = EmbeddedResource(resource=TextResourceContents(uri="file:///notes.md", text="secret [b]notes[/b]"))
    app = WidgetApp(EmbeddedResourceView(resource))
    async with app.run_test(size=(70, 12)) as pilot:
        await pilot.pause()
        assert "▸ [resource file:///notes.md]" in screen_text(app)
        assert "secret" not in screen_text(app)
        await pilot.click("EmbeddedResourceView")
        await pilot.pause()
        assert "secret [b]notes[/b]" in screen_text(app)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_strings_never_reach_text_raw(hostile: str) -> None:
    """Every rendering helper returns sanitized plain Text: no controls, no bidi overrides."""
    chip = block_chip(ResourceLink(uri=hostile, name=hostile)).plain
    pill = status_pill(hostile).text
    for rendered in (chip, pill):
        assert "\x1b" not in rendered and "\x00" not in rendered and "\u202e" not in rendered
