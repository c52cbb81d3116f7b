"""At 80x24 the header and the status bar fit: what matters stays, lower-priority parts give way.

The status bar always shows the state (with its error) and `^Q quit`; counts and the usage meter
shorten or drop by priority, and so do the other key hints, by theirs: while the agent works `^C cancel`
outranks `⏎ send`, once it stopped `^R restart` does. The header always shows the agent, then the
protocol and the tail of a long directory; the title and version give way first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.app import App, ComposeResult

from acp_tui.ui.chat.screen import KEY_HINTS
from acp_tui.ui.widgets.session_header import HeaderValues, SessionHeader, tail
from acp_tui.ui.widgets.status_bar import HINT_SEPARATOR, PINNED, HintMode, KeyHint, StatusBar, fit_hints
from tests.support.app_run import SHOWN_CWD, project_dir, running_app, screen_text, text, update, v2_turn

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

NARROW = (80, 24)
HINTS = "⏎ send · ⏎ queue · ^J newline · ^C cancel · F2 stderr · ^R restart · ^Q quit"
assert HINT_SEPARATOR.join(hint.text for hint in KEY_HINTS) == HINTS


class BarsApp(App[None]):
    """The header and the status bar alone, for exact line checks."""

    def __init__(self, header: HeaderValues) -> None:
        super().__init__()
        self._header = header

    def compose(self) -> ComposeResult:
        yield SessionHeader(self._header)
        yield StatusBar()


async def bar_lines(header: HeaderValues, width: int = 80, **status: Any) -> tuple[str, str]:
    """The header's and the status bar's lines (padding included) at `width` columns."""
    app = BarsApp(header)
    async with app.run_test(size=(width, 5)) as pilot:
        app.query_one(StatusBar).update_values(hints=KEY_HINTS, **status)
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
    return lines[0], lines[-1]


async def test_an_error_and_every_count_fit_80_columns_with_the_state_and_quit() -> None:
    message = "the model is overloaded right now, please try again in a few minutes (code 529)"
    _, status = await bar_lines(
        HeaderValues(agent="Agent"),
        state="idle",
        stop_reason="error",
        error_message=message,
        queued=2,
        used=53_200,
        size=200_000,
        cost="$0.120",
        problems=3,
        stderr_unseen=12,
    )
    assert cell_len(status) == 80
    assert status.startswith(" ✗ error: the model is overloaded")
    assert "…" in status  # the message is cut short, not the way out
    assert status.rstrip().endswith("^Q quit")


async def test_counts_shorten_and_drop_by_priority_before_the_state_or_quit() -> None:
    _, status = await bar_lines(
        HeaderValues(agent="Agent"),
        state="idle",
        queued=2,
        used=53_200,
        size=200_000,
        cost="$0.120",
        problems=3,
        stderr_unseen=12,
    )
    # the meter is shortened to its percentage and the cost goes before any count does
    assert status.rstrip() == " ● ready  · 2 queued  · 27%  · ⚑ 3 protocol problems  · stderr +12      ^Q quit"
    _, status = await bar_lines(
        HeaderValues(agent="Agent"),
        width=50,
        state="idle",
        queued=2,
        used=53_200,
        size=200_000,
        cost="$0.120",
        problems=3,
        stderr_unseen=12,
    )
    assert status.rstrip() == " ● ready  · 2 queued  · 27%  · ⚑ 3        ^Q quit"  # what fits, by priority


async def test_with_room_the_hints_come_back_in_their_order() -> None:
    _, status = await bar_lines(HeaderValues(agent="Agent"), state="idle")
    assert status.rstrip().endswith("⏎ send · ^J newline · F2 stderr · ^Q quit")  # idle: nothing to cancel or restart
    _, status = await bar_lines(HeaderValues(agent="Agent"), width=100, state="running", busy=True)
    assert status.rstrip().endswith("⏎ send · ^J newline · ^C cancel · F2 stderr · ^Q quit")
    _, status = await bar_lines(HeaderValues(agent="Agent"), width=60, state="idle", used=53_200, size=200_000)
    assert status.rstrip() == " ● ready  · 53.2k / 200.0k (27%)           ⏎ send · ^Q quit"


async def test_the_header_keeps_agent_protocol_and_the_directory_tail_at_80_columns() -> None:
    long_cwd = "~/src/clients/a-rather-long-directory-name/with/several/levels/project"
    header, _ = await bar_lines(
        HeaderValues(
            agent="Scripted Agent",
            agent_version="1.0.0",
            protocol=2,
            session_title="Make the greeting friendlier for everyone",
            cwd=long_cwd,
        )
    )
    assert cell_len(header) == 80
    assert header.startswith(" ◆ Scripted Agent 1.0.0  —  Make the")
    assert header.rstrip().endswith("ACP v2  ·  …th/several/levels/project")  # a third of the line
    header, _ = await bar_lines(HeaderValues(agent="A" * 70, protocol=2, cwd=long_cwd))
    assert header.startswith(" ◆ AAAA") and "…" in header and header.rstrip().endswith("levels/project")


def test_a_long_directory_keeps_its_tail() -> None:
    assert tail("~/src/project", 20) == "~/src/project"
    assert tail("~/src/clients/project", 12) == "…nts/project"
    assert cell_len(tail("~/src/客户/project", 10)) <= 10


async def test_the_real_app_at_80x24_shows_agent_protocol_directory_state_error_and_quit(tmp_path: Path) -> None:
    cwd = tmp_path / "src" / "clients" / "a-rather-long-directory-name" / "with" / "several" / "levels" / "project"
    cwd.mkdir(parents=True)
    usage = update(
        {"sessionUpdate": "usage_update", "used": 53_200, "size": 200_000, "cost": {"amount": 0.12, "currency": "USD"}}
    )
    failing = {
        "match": "fail",
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            usage,
            update({"sessionUpdate": "agent_message", "messageId": "m", "content": [text("Trying…")]}),
            update(
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "error",
                    "error": {"code": -32603, "message": "model overloaded, try again in a few minutes please"},
                }
            ),
        ],
    }
    script = {
        "version": 2,
        "turns": [failing],
        "initialize": {
            "protocolVersion": 2,
            "capabilities": {"session": {}},
            "info": {"name": "scripted", "title": "Scripted Agent", "version": "1.0.0"},
        },
    }
    async with running_app(tmp_path, script, size=NARROW, cwd=cwd) as run:
        await run.send("fail")
        await run.idle()
        await run.wait(lambda: run.chat.status.values.stop_reason == "error", "the error state")
        await run.pilot.pause()
        lines = screen_text(run).splitlines()
        header, status = lines[0].rstrip(), lines[-1].rstrip()
        assert header.startswith(" ◆ Scripted Agent") and "ACP v2" in header and header.endswith("levels/project")
        assert status.startswith(" ✗ error: model overloaded")
        assert status.endswith("^Q quit")
        assert max(cell_len(line) for line in lines) == 80


async def test_the_real_app_at_80x24_idle_header_and_hints(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}, size=NARROW, cwd=project_dir(tmp_path)) as run:
        await run.pilot.pause()
        lines = screen_text(run).splitlines()
        assert lines[0].rstrip().endswith(f"ACP v2  ·  {SHOWN_CWD}")
        assert lines[-1].startswith(" ● ready") and lines[-1].rstrip().endswith("^Q quit")


# -- which key hints stay: explicit priorities, by what the agent is doing -----------------------------------


def test_each_mode_drops_its_least_useful_hint_first_and_never_quit() -> None:
    def drops(mode: HintMode) -> list[str]:
        """The hints in the order they drop as the room shrinks."""
        gone: list[str] = []
        for room in range(len(HINTS), 0, -1):
            shown = fit_hints(KEY_HINTS, room, mode)
            gone += [hint.text for hint in KEY_HINTS if hint.text not in shown and hint.text not in gone]
            assert shown.endswith("^Q quit")
            assert shown == HINT_SEPARATOR.join(h.text for h in KEY_HINTS if h.text in shown.split(HINT_SEPARATOR))
        return gone

    # ^C cancel and ^R restart are not there at all where they do nothing (see the next test)
    assert drops("idle") == ["⏎ queue", "^C cancel", "^R restart", "F2 stderr", "^J newline", "⏎ send"]
    assert drops("busy") == ["⏎ queue", "^R restart", "F2 stderr", "^J newline", "⏎ send"]  # ^C cancel is pinned
    assert drops("stopped") == ["⏎ send", "^C cancel", "F2 stderr", "^J newline", "⏎ queue"]  # and here ^R restart


def test_cancel_and_restart_are_hinted_only_where_the_key_does_that() -> None:
    """Idle, Ctrl+C copies, clears or quits and Ctrl+R does nothing: a `^C cancel · ^R restart` there
    promised what the keys do not do."""
    assert fit_hints(KEY_HINTS, 200, "idle") == "⏎ send · ^J newline · F2 stderr · ^Q quit"
    assert fit_hints(KEY_HINTS, 200, "busy") == "⏎ send · ^J newline · ^C cancel · F2 stderr · ^Q quit"
    assert fit_hints(KEY_HINTS, 200, "stopped") == "⏎ queue · ^J newline · F2 stderr · ^R restart · ^Q quit"


def test_equal_priorities_drop_the_later_hint_first_and_text_hints_rank_by_order() -> None:
    hints = (KeyHint("a", "one", 1), KeyHint("b", "two", 1), KeyHint("q", "quit", PINNED))
    assert fit_hints(hints, 14) == "a one · q quit"
    assert fit_hints("x one · y two · ^Q quit", 15) == "x one · ^Q quit"


async def test_while_the_agent_works_80_columns_keep_cancel_before_send() -> None:
    _, status = await bar_lines(
        HeaderValues(agent="Agent"), state="running", busy=True, used=53_200, size=200_000, cost="$0.120"
    )
    assert cell_len(status) == 80
    assert status.rstrip().endswith("⏎ send · ^C cancel · ^Q quit")  # ^J newline went first
    _, status = await bar_lines(
        HeaderValues(agent="Agent"),
        state="running",
        busy=True,
        used=53_200,
        size=200_000,
        cost="$0.120",
        queued=2,
        problems=3,
        stderr_unseen=12,
    )
    assert status.rstrip().endswith("^C cancel · ^Q quit") and "⏎ send" not in status
    _, idle = await bar_lines(
        HeaderValues(agent="Agent"),
        state="idle",
        used=53_200,
        size=200_000,
        cost="$0.120",
        queued=2,
        problems=3,
        stderr_unseen=12,
    )
    assert "^C cancel" not in idle  # idle, the prompt's keys come first


async def test_once_the_agent_stopped_80_columns_keep_restart() -> None:
    _, status = await bar_lines(
        HeaderValues(agent="Agent"), state="stopped", used=53_200, size=200_000, cost="$0.120", problems=3
    )
    assert status.startswith(" ■ agent stopped") and status.rstrip().endswith("^R restart · ^Q quit")


async def test_the_real_app_at_80x24_while_working_shows_cancel_and_quit(tmp_path: Path) -> None:
    usage = update(
        {"sessionUpdate": "usage_update", "used": 53_200, "size": 200_000, "cost": {"amount": 0.12, "currency": "USD"}}
    )
    held = v2_turn(usage, {"op": "wait_for", "method": "session/cancel"}, stop="cancelled")
    async with running_app(tmp_path, {"version": 2, "turns": [held]}, size=NARROW, cwd=project_dir(tmp_path)) as run:
        await run.send("work")
        await run.wait(
            lambda: run.chat.status.values.busy and run.chat.status.values.used == 53_200,
            "the agent working, with its usage",
        )
        await run.pilot.pause()
        status = screen_text(run).splitlines()[-1].rstrip()
        assert "working…" in status and "53.2k / 200.0k" in status
        assert status.endswith("⏎ send · ^C cancel · ^Q quit")  # ^J newline, F2 and ^R gave way first
        await run.pilot.press("ctrl+c")
        await run.idle()
