"""The one wait of the suite: poll a condition until it holds, letting the app (or the loop) run between.

Tests wait for what they need to see, never for a tuned time: `until` returns as soon as the condition
holds and fails naming what it waited for once `timeout` seconds of wall clock have passed (a loaded
machine makes a test slower, never wrong). `armed` is the same wait for a dialog past its arm delay.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.screen import Screen

S = TypeVar("S", bound=Screen[Any])

#: Between two looks at the condition: short, so a test waits about as long as the app takes.
POLL = 0.02


async def until(
    condition: Callable[[], object], what: str = "", *, pilot: Pilot[Any] | None = None, timeout: float = 10.0
) -> None:
    """Poll `condition` until it is true: between looks the pilot's app runs (or, without one, the loop)."""
    loop = asyncio.get_running_loop()
    deadline, looks = loop.time() + timeout, int(timeout / POLL)
    while not condition():
        # Out of time only when both the clock and the count of looks say so: a starved loop still looks.
        looks -= 1
        if loop.time() >= deadline and looks < 0:
            assert condition(), f"timed out after {timeout} s waiting for {what or condition}"
            return
        if pilot is not None:
            await pilot.pause(POLL)
        else:
            await asyncio.sleep(POLL)


def until_sync(condition: Callable[[], object], what: str = "", *, timeout: float = 10.0) -> None:
    """`until` for code outside an event loop (processes, threads): poll between short sleeps."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what or condition}"
        time.sleep(POLL / 2)


async def armed(pilot: Pilot[Any], kind: type[S], *, what: str = "", timeout: float = 10.0) -> S:
    """Wait until the app's current screen is a `kind` dialog that takes keys (its arm delay over); return it."""

    def current() -> S | None:
        screen = pilot.app.screen
        return screen if isinstance(screen, kind) and getattr(screen, "armed", False) else None

    await until(lambda: current() is not None, what or f"an armed {kind.__name__}", pilot=pilot, timeout=timeout)
    screen = current()
    assert screen is not None
    return screen


async def armed_screen(pilot: Pilot[Any], screen: S, *, what: str = "", timeout: float = 10.0) -> S:
    """Wait until this dialog `screen` takes keys (its arm delay over); return it."""
    await until(
        lambda: bool(getattr(screen, "armed", False)), what or "the dialog to arm", pilot=pilot, timeout=timeout
    )
    return screen
