"""The agent starts as its chat screen is built, before the screen is mounted (issue 27's start-up): what the
controller reports meanwhile waits in the event pump (acp_tui/ui/chat/event_pump.py) and is applied once the
screen attaches its widgets, never dropped and never applied to widgets that are not there yet. The file index
for `@` and Markdown's warm-up (acp_tui/ui/chat/warm_up.py) start once the session is up, so their threads do not
compete with start-up."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.controller.controller_events import LifecycleChanged, Note
from acp_tui.session.model import SessionState
from acp_tui.ui.chat import event_pump
from acp_tui.ui.chat.event_pump import EventPump
from tests.app.test_hidden_pump import Timers


def test_what_the_controller_says_before_the_screen_is_mounted_waits_for_it() -> None:
    owner = Timers()
    pump = EventPump(owner)  # type: ignore[arg-type]
    pump.controller_event(Note("the agent is starting"))
    owner.fire()  # a frame before the widgets are attached: nothing is applied, nothing is dropped
    assert pump.pending and not owner.pending
    pump.controller_event(Note("still starting"))
    owner.fire()
    assert list(pump._events) == [Note("the agent is starting"), Note("still starting")]
    added: list[Any] = []
    conversation = SimpleNamespace(context=None, add_entry=added.append)
    controller = SimpleNamespace(launch=SimpleNamespace(cwd="/project"), state=SessionState())
    pump.attach(
        controller,  # type: ignore[arg-type]
        conversation=conversation,  # type: ignore[arg-type]
        renderer=SimpleNamespace(),  # type: ignore[arg-type]
        stderr=SimpleNamespace(),  # type: ignore[arg-type]
        files=SimpleNamespace(),  # type: ignore[arg-type]
        transcript_error=lambda error: None,
    )
    assert len(owner.pending) == 1  # attaching asks for the frame that applies what waited


def test_the_file_index_and_markdown_are_warmed_once_the_session_is_up_not_during_start_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = Timers()
    pump = EventPump(owner)  # type: ignore[arg-type]
    warmed: list[str] = []
    monkeypatch.setattr(event_pump, "warm_up_markdown", lambda node: warmed.append("markdown"))
    applied: list[object] = []
    pump.attach(
        SimpleNamespace(launch=SimpleNamespace(cwd="/project"), state=SessionState()),  # type: ignore[arg-type]
        conversation=SimpleNamespace(context=None),  # type: ignore[arg-type]
        renderer=SimpleNamespace(apply_event=lambda state, event: applied.append(event)),  # type: ignore[arg-type]
        stderr=SimpleNamespace(),  # type: ignore[arg-type]
        files=SimpleNamespace(warm=lambda: warmed.append("warm")),  # type: ignore[arg-type]
        transcript_error=lambda error: None,
    )
    pump.controller_event(LifecycleChanged("starting"))
    owner.fire()
    assert warmed == [] and applied == [LifecycleChanged("starting")]
    pump.controller_event(LifecycleChanged("ready"))
    owner.fire()
    assert warmed == ["warm", "markdown"] and applied[-1] == LifecycleChanged("ready")
