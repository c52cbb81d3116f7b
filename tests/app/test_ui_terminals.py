"""The terminal widget for every kind of terminal (docs/protocol.md §6.4, §10.2): the run time of a command
the client runs, the stop key on the card (v2 `terminal/cancel`, or the client's own command) and
"stopping…" until the exit status arrives."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widget import Widget

from acp_tui.protocol.v2 import TerminalExitStatus, TerminalRef, TerminalUpdate, ToolCallUpdate
from acp_tui.session.local_events import TerminalCancelFailed, TerminalCancelRequested, TerminalTimed
from acp_tui.session.model import SessionState
from acp_tui.ui.timeline.terminal_view import TerminalView, elapsed_text
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.widgets import WidgetApp, drive, run, screen_text, shows, until


def cancel_key() -> str:
    """The card's cancel key (whatever it is: the terminal is stopped with the same one)."""
    binding = next(b for b in ToolCallCard.BINDINGS if isinstance(b, Binding) and b.action == "cancel_call")
    return binding.key.split(",")[0]


class StopApp(WidgetApp):
    """Records the stop and cancel requests the widgets post."""

    def __init__(self, *widgets: Widget) -> None:
        super().__init__(*widgets)
        self.stops: list[str] = []
        self.cancels: list[str] = []

    def on_terminal_view_cancel_requested(self, event: TerminalView.CancelRequested) -> None:
        self.stops.append(event.terminal_id)

    def on_tool_call_card_cancel_requested(self, event: ToolCallCard.CancelRequested) -> None:
        self.cancels.append(event.card.call.id)


def test_elapsed_text() -> None:
    state = SessionState()
    run(state, TerminalUpdate(terminal_id="t"))
    term = state.terminal("t")
    assert term is not None and elapsed_text(term) == ""  # not a command we timed
    run(state, TerminalTimed("t", started_at=100.0))
    assert elapsed_text(term, now=100.5) == ""  # just started
    assert elapsed_text(term, now=103.25) == "3.2 s"
    assert elapsed_text(term, now=142.0) == "42 s"
    assert elapsed_text(term, now=100.0 + 185) == "3 min 05 s"
    assert elapsed_text(term, now=100.0 + 3 * 3600 + 120) == "3 h 02 min"
    run(state, TerminalTimed("t", ended_at=100.4))
    assert elapsed_text(term, now=999.0) == "0.4 s"


async def test_a_timed_command_shows_how_long_it_ran() -> None:
    state = SessionState()
    run(state, TerminalUpdate(terminal_id="t", command="make", cwd="/src"), TerminalTimed("t", started_at=10.0))
    view = TerminalView(state.terminal("t"))  # type: ignore[arg-type]
    app = WidgetApp(view)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        drive(
            view,
            run(
                state,
                TerminalTimed("t", ended_at=11.5),
                TerminalUpdate(terminal_id="t", exit_status=TerminalExitStatus(exit_code=2)),
            ),
        )
        assert await until(pilot, shows(app, "exit 2  · 1.5 s"))
        assert view.footer_text() == "exit 2" and view.elapsed_text() == "1.5 s"


async def test_the_card_key_stops_a_cancellable_terminal_and_shows_stopping() -> None:
    state = SessionState()
    run(
        state,
        TerminalUpdate(terminal_id="t1", command="npm run dev", capabilities={"cancel": {}}),
        ToolCallUpdate(
            tool_call_id="c",
            title="dev server",
            kind="execute",
            status="in_progress",
            content=[TerminalRef(terminal_id="t1")],
        ),
    )
    views: list[TerminalView] = []

    def factory(terminal_id: str) -> Widget | None:
        views.append(TerminalView(state.terminal(terminal_id)))  # type: ignore[arg-type]
        return views[-1]

    card = ToolCallCard(state.tool_call("c"), terminal_factory=factory)  # type: ignore[arg-type]
    app = StopApp(card)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        [view] = views
        card.focus()
        await pilot.press(cancel_key())
        assert await until(pilot, lambda: app.stops == ["t1"])
        assert app.cancels == []  # the terminal, not the tool call
        drive(view, run(state, TerminalCancelRequested("t1")))
        assert await until(pilot, shows(app, "stopping…"))
        await pilot.press(cancel_key())  # already stopping: the key cancels the tool call instead
        assert await until(pilot, lambda: app.cancels == ["c"]) and app.stops == ["t1"]
        drive(view, run(state, TerminalCancelFailed("t1")))  # refused: back to running
        assert await until(pilot, shows(app, "running…"))
        view.output.focus()  # from inside the terminal, too
        await pilot.press(cancel_key())
        assert await until(pilot, lambda: app.stops == ["t1", "t1"])
        drive(
            view,
            run(
                state,
                TerminalCancelRequested("t1"),
                TerminalUpdate(terminal_id="t1", exit_status=TerminalExitStatus(signal="SIGTERM")),
            ),
        )
        assert await until(pilot, shows(app, "killed by SIGTERM"))
        assert not state.terminal("t1").cancelling  # type: ignore[union-attr]


async def test_a_terminal_without_the_capability_leaves_the_key_to_the_card() -> None:
    state = SessionState()
    run(
        state,
        TerminalUpdate(terminal_id="t1", command="pytest"),
        ToolCallUpdate(
            tool_call_id="c",
            title="tests",
            kind="execute",
            status="in_progress",
            content=[TerminalRef(terminal_id="t1")],
        ),
    )

    def factory(terminal_id: str) -> Widget | None:
        return TerminalView(state.terminal(terminal_id))  # type: ignore[arg-type]

    card = ToolCallCard(state.tool_call("c"), terminal_factory=factory)  # type: ignore[arg-type]
    app = StopApp(card)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        card.query_one(TerminalView).output.focus()
        await pilot.press(cancel_key())
        assert await until(pilot, lambda: app.cancels == ["c"])
        assert app.stops == []


async def test_a_standalone_terminal_is_stopped_with_the_same_key() -> None:
    state = SessionState()
    run(state, TerminalUpdate(terminal_id="t1", command="tail -f log", capabilities={"cancel": {}}))
    view = TerminalView(state.terminal("t1"))  # type: ignore[arg-type]
    app: Any = StopApp(view)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        view.output.focus()
        await pilot.press(cancel_key())
        assert await until(pilot, lambda: app.stops == ["t1"])
        assert "stopping" not in screen_text(app)  # only the model's word makes it "stopping…"
