"""A hidden tab's event pump (acp_tui/ui/chat/event_pump.py): it draws nothing, keeps what comes folded so a
long stream costs memory per entity and not per chunk, tells its owner once a frame, and on `show` applies
everything with the same effect as if it had been shown all along."""

from __future__ import annotations

from typing import Any

from acp_tui.agent.session_events import ModelChanged, StderrLine
from acp_tui.controller.controller_events import Note
from acp_tui.session.changes import BytesAppended, ContentReplaced, EntityAdded, EntityChanged, TextAppended
from acp_tui.ui.chat.event_pump import FOLD_AT, FOLD_BYTES, HIDDEN_STDERR, EventPump

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


def waiting_changes(pump: EventPump) -> list[Any]:
    return [change for event in pump._events if isinstance(event, ModelChanged) for change in event.changes]


def held_bytes(pump: EventPump) -> int:
    """The streamed text and output the waiting events hold (what a hidden tab keeps beside its model)."""
    return sum(
        len(change.text) if isinstance(change, TextAppended) else len(change.data)
        for change in waiting_changes(pump)
        if isinstance(change, (TextAppended, BytesAppended))
    )


def test_a_long_hidden_stream_is_kept_folded_not_chunk_by_chunk() -> None:
    pump, _owner, _told = hidden_pump()
    pump.controller_event(ModelChanged([EntityAdded(KEY, 0)]))
    pump.controller_event(ModelChanged([EntityChanged(OTHER, frozenset({"status"}))]))
    for n in range(50_000):
        pump.controller_event(ModelChanged([TextAppended(OTHER, f"{n} ")]))
        pump.controller_event(ModelChanged([EntityChanged(OTHER, frozenset({"status"}))]))
    assert len(pump._events) < 2 * FOLD_AT  # 100,002 events came
    changes = waiting_changes(pump)
    # The appends folded into one replacement: on `show` the view renders the model's text, which holds them all.
    assert ContentReplaced(OTHER) in changes
    assert held_bytes(pump) <= FOLD_BYTES
    assert any(isinstance(change, EntityAdded) and change.key == KEY for change in changes)


def test_a_hidden_tab_that_receives_a_hundred_megabytes_holds_at_most_fold_bytes_of_it() -> None:
    """Issue 38: 123 MB into a hidden tab held 350-430 MB; what waits is now bounded by `FOLD_BYTES` and
    `FOLD_AT`, whatever the chunk size, and each entity's appends end as one `ContentReplaced` after the rest."""
    pump, _owner, _told = hidden_pump()
    terminal = ("terminal", "t")
    pump.controller_event(ModelChanged([EntityAdded(KEY, 0)]))
    megabyte = "x" * (1 << 20)
    most = 0
    for _ in range(100):  # 100 MB in one-megabyte chunks
        pump.controller_event(ModelChanged([TextAppended(OTHER, megabyte)]))
        most = max(most, held_bytes(pump))
    for n in range(20_000):  # 20 MB more in small chunks, text and terminal bytes interleaved
        pump.controller_event(ModelChanged([TextAppended(OTHER, "y" * 500), BytesAppended(terminal, b"z" * 500)]))
        if n % 97 == 0:
            most = max(most, held_bytes(pump))
        assert pump.waiting_bytes < FOLD_BYTES
    assert most <= FOLD_BYTES + 1000  # a fold runs as soon as the bound is reached
    assert len(pump._events) < 2 * FOLD_AT
    changes = waiting_changes(pump)
    assert changes.count(ContentReplaced(OTHER)) == 1 and changes.count(ContentReplaced(terminal)) == 1
    replaced_at = changes.index(ContentReplaced(OTHER))
    assert not any(isinstance(c, TextAppended) and c.key == OTHER for c in changes[:replaced_at])  # no double text


def test_a_hidden_fold_keeps_a_short_stream_as_it_came() -> None:
    """Below both bounds nothing is folded: a short hidden stream is applied chunk by chunk on `show`."""
    pump, _owner, _told = hidden_pump()
    for n in range(100):
        pump.controller_event(ModelChanged([TextAppended(OTHER, f"{n} ")]))
    assert "".join(c.text for c in waiting_changes(pump)) == "".join(f"{n} " for n in range(100))


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
