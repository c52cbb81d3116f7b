"""A host app for single widgets and readers of what the screen shows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.protocol.v2 import (
    TextContent,
    ToolContent,
)
from acp_tui.session.changes import (
    BytesAppended,
    Change,
    ContentAppended,
    ContentReplaced,
    EntityChanged,
    TextAppended,
)
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import ModelInput, apply
from acp_tui.ui.key_order import KeysInOrderApp
from acp_tui.ui.themes import load_shipped_themes
from acp_tui.ui.timeline.card_requests import Card
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.widgets.icons import EXTRA_THEME_VARIABLES
from tests.support.wait import until as wait_until


class WidgetApp(KeysInOrderApp[None]):
    """Mounts the given widgets in a scrolling column, with the shipped acp-dark theme."""

    def __init__(self, *widgets: Widget) -> None:
        super().__init__()
        self._widgets = widgets
        self.quit_called = False
        self.saved: list[Card] = []  # the cards that asked to be saved
        for theme in load_shipped_themes():
            self.register_theme(theme)
        self.theme = "acp-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **EXTRA_THEME_VARIABLES}

    def compose(self) -> ComposeResult:
        yield VerticalScroll(*self._widgets)

    async def action_quit(self) -> None:  # a hostile "@click=app.quit" must never get here
        self.quit_called = True

    def on_tool_call_card_save_requested(self, event: ToolCallCard.SaveRequested) -> None:
        self.saved.append(event.card)


def screen_lines(app: App[Any]) -> list[str]:
    """What the terminal shows, one string per row."""
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


def screen_text(app: App[Any]) -> str:
    return "\n".join(screen_lines(app))


def shown_text(root: Widget) -> str:
    """What the `Static`s under `root` (a dialog, a screen) say, as plain text with the wrapping undone: one
    line per line they were given, whatever the width. An assertion on text that holds a path (a command
    line, a folder) must not pass or fail by how long the clone's folder is, which decides where it wraps."""
    shown = []
    for static in root.query(Static):
        visual = static.visual
        shown.append(visual.plain if isinstance(visual, (Content, Text)) else str(static.content))
    return "\n".join(shown)


async def until(pilot: Any, predicate: Any, tries: int = 100) -> bool:
    """Let the app process messages until `predicate()` holds (fails the test after `tries` looks)."""
    await wait_until(predicate, pilot=pilot, timeout=tries * 0.01)
    return True


def shows(app: App[Any], needle: str) -> Any:
    return lambda: needle in screen_text(app)


Found = TypeVar("Found")


def found(entity: Found | None) -> Found:
    """What a model lookup must find: a test fails here, not later on an attribute of None."""
    assert entity is not None
    return entity


def run(state: SessionState, *updates: ModelInput) -> list[Change]:
    changes: list[Change] = []
    for update in updates:
        changes.extend(apply(state, update))
    return changes


def drive(widget: Any, changes: Iterable[Change]) -> None:
    """Route changes to one widget the way the app will."""
    for change in changes:
        if isinstance(change, EntityChanged):
            widget.apply_fields(change.fields)
        elif isinstance(change, ContentAppended):
            widget.append_content(change.item)
        elif isinstance(change, ContentReplaced):
            if isinstance(widget, TerminalView):
                widget.reset_and_replay()
            else:
                widget.replace_content()
        elif isinstance(change, TextAppended):
            widget.append_text(change.text)
        elif isinstance(change, BytesAppended):
            widget.append_bytes(change.data)


def text_item(text: str) -> ToolContent:
    return ToolContent(content=TextContent(text=text))


GIT_PATCH = (
    "diff --git /src/app.py /src/app.py\n"
    "index 1111111..2222222 100644\n"
    "--- /src/app.py\n"
    "+++ /src/app.py\n"
    "@@ -1,3 +1,3 @@\n"
    " import os\n"
    "-print('old line')\n"
    "+print('new line')\n"
    " done()\n"
)


def card_line(app: App[Any], card: ToolCallCard) -> str:
    """The card's first row on screen, as text."""
    return screen_lines(app)[card.region.y].strip()
