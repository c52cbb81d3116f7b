"""A stop and continue from outside starts no second reader of the terminal (acp_tui/ui/stop_resume.py).

Textual's Linux driver restarts application mode (a new input thread) on every SIGCONT; the wrapped handlers let
it restart only after its own SIGTSTP handler suspended it. The driver's handlers are stood in for by recorders.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest

from acp_tui.ui.stop_resume import resume_only_after_suspend


@pytest.fixture
def driver_handlers() -> Iterator[list[str]]:
    """What Textual's driver installs, recorded: each call of its SIGTSTP and SIGCONT handlers."""
    calls: list[str] = []
    saved = {number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)}

    def on_stop(number: int, frame: FrameType | None) -> None:
        calls.append("suspend")

    def on_continue(number: int, frame: FrameType | None) -> None:
        calls.append("resume")

    signal.signal(signal.SIGTSTP, on_stop)
    signal.signal(signal.SIGCONT, on_continue)
    yield calls
    for number, handler in saved.items():
        signal.signal(number, handler)


def call(number: int) -> None:
    installed = signal.getsignal(number)
    assert callable(installed)
    installed(number, None)


def test_a_continue_without_a_suspend_restarts_nothing(driver_handlers: list[str]) -> None:
    assert resume_only_after_suspend()
    call(signal.SIGCONT)  # kill -STOP, then kill -CONT: application mode never stopped
    call(signal.SIGCONT)
    assert driver_handlers == []


def test_a_continue_after_the_drivers_suspend_resumes_once(driver_handlers: list[str]) -> None:
    assert resume_only_after_suspend()
    call(signal.SIGTSTP)
    call(signal.SIGCONT)
    call(signal.SIGCONT)  # a second, plain continue
    assert driver_handlers == ["suspend", "resume"]


def test_wrapping_twice_wraps_once(driver_handlers: list[str]) -> None:
    assert resume_only_after_suspend()
    assert not resume_only_after_suspend()
    call(signal.SIGTSTP)
    call(signal.SIGCONT)
    assert driver_handlers == ["suspend", "resume"]


def test_default_handlers_are_left_alone() -> None:
    saved = {number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        signal.signal(signal.SIGCONT, signal.SIG_DFL)
        assert not resume_only_after_suspend()
        assert signal.getsignal(signal.SIGCONT) is signal.SIG_DFL
    finally:
        for number, previous in saved.items():
            signal.signal(number, previous)
