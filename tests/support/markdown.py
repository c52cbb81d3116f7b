"""Mounting a streamed markdown widget and reading the screen it draws."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.pilot import Pilot

from acp_tui.ui.timeline.thought import Thought
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_stream import MarkdownStream
from tests.support.wait import until


async def wait_for(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until `condition()` holds (fails the test after `timeout` seconds)."""
    await until(condition, pilot=pilot, timeout=timeout)


def screen_text(app: App[None]) -> str:
    """What the terminal shows now (the composited screen)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def mount_stream(app: App[None], widget: MarkdownStream | Thought) -> None:
    await app.query_one(Conversation).add_entry(widget)
