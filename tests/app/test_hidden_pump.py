"""A hidden tab's event pump (acp_tui/ui/chat/event_pump.py): it draws nothing, keeps what comes folded so a
long stream costs memory per entity and not per chunk, tells its owner once a frame, and on `show` applies
everything with the same effect as if it had been shown all along."""

from __future__ import annotations

from typing import Any

from acp_tui.agent.session_events import ModelChanged, StderrLine
from acp_tui.controller.controller_events import Note
from acp_tui.session.changes import EntityAdded, EntityChanged, TextAppended
from acp_tui.ui.chat.event_pump import FOLD_AT, HIDDEN_STDERR, EventPump

KEY = ("agent_message", "m1")
OTHER = ("tool_call", "t1")


class Timers:
    """Stands in for the owner widget: remembers the timers asked for, runs them when told."""

    def __init__(self) -> None:
        self.pending: list[Any] = []
        self.is_attached = True

    def set_timer(self, delay: float, callback: Any) -> Any:
        timer = _Timer(callback)
        self.pending.append(timer)
        return timer

    def fire(self) -> None:
        due, self.pending = self.pending, []
        for timer in due:
            if not timer.stopped:
                timer.callback()


class _Timer:
    def __init__(self, callback: Any) -> None:
        self.callback = callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def hidden_pump() -> tuple[EventPump, Timers, list[bool]]:
    owner = Timers()
    told: list[bool] = []
    pump = EventPump(owner, activity=told.append)  # type: ignore[arg-type]
    pump.hide()
    return pump, owner, told


def test_a_long_hidden_stream_is_kept_folded_not_chunk_by_chunk() -> None:
    pump, _owner, _told = hidden_pump()
    pump.controller_event(ModelChanged([EntityAdded(KEY, 0)]))
    pump.controller_event(ModelChanged([EntityChanged(OTHER, frozenset({"status"}))]))
    for n in range(50_000):
        pump.controller_event(ModelChanged([TextAppended(OTHER, f"{n} ")]))
        pump.controller_event(ModelChanged([EntityChanged(OTHER, frozenset({"status"}))]))
    assert len(pump._events) < 2 * FOLD_AT  # 100,002 events came
    changes = [change for event in pump._events if isinstance(event, ModelChanged) for change in event.changes]
    appended = "".join(change.text for change in changes if isinstance(change, TextAppended))
    assert appended == "".join(f"{n} " for n in range(50_000))  # nothing lost, in order
    assert any(isinstance(change, EntityAdded) and change.key == KEY for change in changes)


def test_folding_keeps_order_around_other_events_and_the_newest_stderr_lines() -> None:
    pump, _owner, _told = hidden_pump()
    pump.controller_event(ModelChanged([TextAppended(OTHER, "before ")]))
    pump.controller_event(Note("a line from acp-tui"))
    for n in range(FOLD_AT + HIDDEN_STDERR):
        pump.controller_event(StderrLine(f"log {n}"))
    pump.controller_event(ModelChanged([TextAppended(OTHER, "after")]))
    kinds = [type(event).__name__ for event in pump._events]
    assert kinds[0] == "ModelChanged" and kinds[1] == "Note" and kinds[-1] == "ModelChanged"
    lines = [event.text for event in pump._events if isinstance(event, StderrLine)]
    assert len(lines) <= HIDDEN_STDERR + FOLD_AT
    assert lines[-1] == f"log {FOLD_AT + HIDDEN_STDERR - 1}"  # the newest are the ones kept
    assert "log 0" not in lines


def test_hidden_it_only_tells_its_owner_once_a_frame_and_whether_output_came() -> None:
    pump, owner, told = hidden_pump()
    for _ in range(100):
        pump.controller_event(ModelChanged([TextAppended(OTHER, "x")]))
    assert len(owner.pending) == 1  # one timer for the whole burst
    owner.fire()
    assert told == [True]
    assert pump.pending  # nothing was applied: the events wait for `show`
    pump.controller_event(StderrLine("quiet"))
    owner.fire()
    assert told == [True, False]  # a stderr line is no output of the conversation


def test_closed_it_keeps_nothing() -> None:
    pump, owner, _told = hidden_pump()
    pump.closed = True
    pump.controller_event(ModelChanged([TextAppended(OTHER, "x")]))
    assert not pump.pending and not owner.pending
