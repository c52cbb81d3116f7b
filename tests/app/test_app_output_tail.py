"""A finished command shows the last lines of its output under its closed card's line (issue 22: a
new user saw `✓ ▶ echo LIVE-OUT-ZQ  Bash · exit 0 ▸` and no output). Up to 3 lines; up to 10, with the
gutter in the error colour, when it exited non-zero; the rest on Enter. The output may be the call's
text content, a v2 display terminal, or the v1 `_meta.terminal_output` extension (docs/protocol.md §6.4).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rich.text import Text

from acp_tui.ui.timeline.output_tail import FAILED_TAIL_LINES, TAIL_LINES, command_report, tail_of_lines, tail_of_text
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.timeline.tool_call_line import status_style
from tests.support.app_run import AppRun, b64, card_for, running_app, screen_text, text, tool, update, v1_turn, v2_turn
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

SMALL = (80, 24)
#: Shell tool reports as Gemini CLI and Qwen Code send them (tests/support/fixtures/README.md).
REPORTS = json.loads((FIXTURES / "shell_reports" / "reports.json").read_text(encoding="utf-8"))["cases"]


def tail_rows(run: AppRun) -> list[str]:
    """The screen's output-tail rows (`│ …` under a card's line), stripped."""
    return [line.strip()[2:] for line in screen_text(run).splitlines() if line.strip().startswith("│ ")]


async def test_text_output_tail_shows_the_last_lines_and_opens_on_enter(tmp_path: Any) -> None:
    output = "\n".join(f"line {i}" for i in range(1, 8)) + "\n"
    steps = [
        tool("c1", title="echo LIVE-OUT-ZQ", kind="execute", status="in_progress"),
        tool("c1", status="completed", content=[{"type": "content", "content": text(f"```console\n{output}```")}]),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}, size=SMALL) as run:
        await run.send("run")
        await run.idle()
        card = card_for(run, "c1")
        assert not card.expanded
        await run.wait(lambda: tail_rows(run) == ["line 5", "line 6", "line 7"], "the last three lines")
        assert TAIL_LINES == 3
        assert "… 4 earlier lines (Enter)" in screen_text(run)
        assert "LIVE-OUT-ZQ" in card.header_text() and "7 lines" not in card.header_text()
        card.focus()
        await run.pilot.press("enter")
        await run.wait(lambda: card.expanded and not tail_rows(run), "the whole output, without the tail")
        assert "line 1" in screen_text(run)


async def test_display_terminal_tail_and_a_failed_exit_shows_more_marked(tmp_path: Any) -> None:
    lines = b"".join(b"err %d\n" % i for i in range(1, 15))
    steps = [
        tool(
            "ok",
            title="echo LIVE-OUT-ZQ",
            kind="execute",
            status="in_progress",
            content=[{"type": "terminal", "terminalId": "t-ok"}],
        ),
        update({"sessionUpdate": "terminal_update", "terminalId": "t-ok", "command": "echo LIVE-OUT-ZQ"}),
        update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t-ok", "data": b64(b"LIVE-OUT-ZQ\n")}),
        update({"sessionUpdate": "terminal_update", "terminalId": "t-ok", "exitStatus": {"exitCode": 0}}),
        tool("ok", status="completed"),
        tool(
            "bad",
            title="make",
            kind="execute",
            status="in_progress",
            content=[{"type": "terminal", "terminalId": "t-bad"}],
        ),
        update({"sessionUpdate": "terminal_update", "terminalId": "t-bad", "command": "make"}),
        update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t-bad", "data": b64(lines)}),
        update({"sessionUpdate": "terminal_update", "terminalId": "t-bad", "exitStatus": {"exitCode": 2}}),
        tool("bad", status="completed"),
    ]
    async with running_app(tmp_path, {"version": 2, "turns": [v2_turn(*steps)]}, size=(80, 40)) as run:
        await run.send("run")
        await run.idle()
        ok, bad = card_for(run, "ok"), card_for(run, "bad")
        assert not ok.expanded and not bad.expanded
        expected = ["LIVE-OUT-ZQ", *(f"err {i}" for i in range(15 - FAILED_TAIL_LINES, 15))]
        await run.wait(lambda: tail_rows(run) == expected, "both tails")
        assert "… 4 earlier lines (Enter)" in screen_text(run)
        ok_tail, bad_tail = ok.output_tail(), bad.output_tail()
        assert ok_tail is not None and not ok_tail.failed
        assert bad_tail is not None and bad_tail.failed

        # the failed command's gutter is drawn in the error colour, the other one's is not
        def marked(card: ToolCallCard) -> int:
            error = status_style(run.app.theme_variables, card.background_colors[1], "error")
            text = card._header_render(card.size.width)
            spans = [span for span in text.spans if span.style == error]
            assert all(text.plain[span.start : span.end] == "│" for span in spans)  # the gutter, nothing else
            return len(spans)

        assert marked(bad) == FAILED_TAIL_LINES and marked(ok) == 0


async def test_v1_terminal_meta_output_tail(tmp_path: Any) -> None:
    """Claude's adapter in v1 reports Bash output through `_meta.terminal_output` (docs/protocol.md §6.4)."""
    meta_start = {"terminal_info": {"terminal_id": "term-9"}}
    steps = [
        {
            "op": "update",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "b1",
                "title": "echo LIVE-OUT-ZQ",
                "kind": "execute",
                "status": "in_progress",
                "rawInput": {"command": "echo LIVE-OUT-ZQ"},
                "_meta": meta_start,
            },
        },
        {
            "op": "update",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "b1",
                "_meta": {"terminal_output": {"terminal_id": "term-9", "data": "LIVE-OUT-ZQ\n"}},
            },
        },
        {
            "op": "update",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "b1",
                "status": "completed",
                "_meta": {"terminal_exit": {"terminal_id": "term-9", "exit_code": 0}},
            },
        },
    ]
    async with running_app(tmp_path, {"version": 1, "turns": [v1_turn(*steps)]}, size=SMALL) as run:
        await run.send("run")
        await run.idle()
        card = card_for(run, "b1")
        assert not card.expanded
        await run.wait(lambda: tail_rows(run) == ["LIVE-OUT-ZQ"], "the output under the line")


def test_blank_lines_are_skipped_and_counted_as_hidden_and_one_hidden_line_is_shown() -> None:
    tail = tail_of_text("collected 3 items\n\ntests/test_a.py ...\n\n\n=== 3 passed ===\n\n", failed=False)
    assert tail is not None
    assert [line.plain for line in tail.lines] == ["collected 3 items", "tests/test_a.py ...", "=== 3 passed ==="]
    assert tail.hidden == 0 and tail_of_text("\n \n", failed=False) is None  # nothing left unseen but blanks
    # one line more than the limit is shown rather than a row saying "1 earlier line"
    four = tail_of_text("one\ntwo\n\nthree\n\nfour\n", failed=False)
    assert four is not None and [line.plain for line in four.lines] == ["one", "two", "three", "four"]
    assert four.hidden == 0
    more = tail_of_text("zero\none\ntwo\n\nthree\n\nfour\n", failed=False)
    assert more is not None and [line.plain for line in more.lines] == ["two", "three", "four"] and more.hidden == 2
    lines = [Text(f"l{i}") if i % 2 else Text("") for i in range(30)]
    failed = tail_of_lines(lines, failed=True, earlier=5)
    assert failed is not None and len(failed.lines) == FAILED_TAIL_LINES and failed.lines[-1].plain == "l29"
    assert failed.hidden == 5 + 29 - 2 * (FAILED_TAIL_LINES - 1)  # the lines before l11


# -- an agent's own lines around the output (issue 37, item 6): Qwen Code, Gemini CLI ------------------------


@pytest.mark.parametrize("case", REPORTS, ids=[case["name"] for case in REPORTS])
def test_a_shell_tools_report_is_taken_apart_and_a_commands_own_lines_are_not(case: dict[str, Any]) -> None:
    report = command_report(case["text"])
    if case["output"] is None:
        assert report is None, case["shape"]
        return
    assert report is not None, case["shape"]
    assert (report.output, report.exit_code, report.signal) == (case["output"], case["exit_code"], case["signal"])


def _report(name: str) -> str:
    [case] = [case for case in REPORTS if case["name"] == name]
    text: str = case["text"]
    return text


def _qwen_call(call_id: str, command: str, report: str) -> list[dict[str, Any]]:
    """A v1 `run_shell_command` call as Qwen Code sends it: started, then completed with its report as text."""
    return [
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": call_id,
                "title": command,
                "kind": "execute",
                "status": "in_progress",
                "rawInput": {"command": command, "is_background": False},
            }
        ),
        tool(call_id, status="completed", content=[{"type": "content", "content": text(report)}]),
    ]


async def test_a_qwen_style_trailer_leaves_the_tail_to_what_the_command_printed(tmp_path: Any) -> None:
    steps = [
        *_qwen_call("ok", "ls -1 src", _report("qwen-code-full")),
        *_qwen_call("bad", "make test", _report("qwen-code-failed")),
    ]
    async with running_app(tmp_path, {"version": 1, "turns": [v1_turn(*steps)]}, size=(80, 30)) as run:
        await run.send("run")
        await run.idle()
        ok, bad = card_for(run, "ok"), card_for(run, "bad")
        expected = ["gamma.py", "delta.py", "epsilon.py", "cc -c main.c", "main.c:3:1: error: expected ';'"]
        expected.append("make: *** [main.o] Error 1")
        await run.wait(lambda: tail_rows(run) == expected, "both commands' own last lines")
        screen = screen_text(run)
        for label in ("Exit Code:", "Signal:", "PGID", "Background PIDs:", "Command:", "Output:"):
            assert label not in screen, f"the agent's {label!r} line shows in a tail"
        assert "… 2 earlier lines (Enter)" in screen
        # how each ended is on its line: the tail no longer says it
        assert "exit 0" in ok.header_text() and "exit 2" in bad.header_text()
        bad_tail = bad.output_tail()
        assert bad_tail is not None and bad_tail.failed  # the error gutter, and up to FAILED_TAIL_LINES lines
        # opened, the card shows the agent's text whole, trailer included
        ok.focus()
        await run.pilot.press("enter")
        await run.wait(lambda: "Process Group PGID: 48213" in screen_text(run), "the whole report in the open card")
