"""A subagent's lane (docs/protocol.md §10.6): a child session's work, under the line that names it.

The line reads `◐ ◇ Explore the tests · general-purpose · 2 tool calls ▾`: the child's state as a tool
call's status glyph, its name and description as the agent labelled it, how many tool calls it made, and
the arrow. Open, its work follows indented: its messages (the parent's task first), one line per tool
call as a card's line reads (status glyph, kind icon, title), a nested subagent as one line, and its
reply to the parent. A lane is open while its child works and closes once it ended, unless the user
chose (Enter or a click). Everything shown is agent data: sanitized and drawn as plain `Text`, never
markup; each message is cut at `MAX_MESSAGE_LINES` and the lane at `MAX_BODY_LINES`.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.path_text import NO_CONTEXT, ViewContext
from acp_tui.sanitize import multiline, plain
from acp_tui.session.model import AGENT_MESSAGE, AGENT_THOUGHT, USER_MESSAGE, Message, Subagent, ToolCall
from acp_tui.ui.timeline.tool_call_line import status_style
from acp_tui.ui.widgets.icons import GLYPHS, Pill, kind_icon, status_pill

__all__ = ["MAX_BODY_LINES", "MAX_MESSAGE_LINES", "SubagentLane", "lane_pill"]

MAX_MESSAGE_LINES: Final = 12
MAX_BODY_LINES: Final = 200


def lane_pill(child: Subagent) -> Pill:
    """The child's state as a tool call's status: running, done, failed or cancelled."""
    if not child.ended:
        return status_pill("pending" if child.state == "requires_action" else "in_progress")
    match child.stop_reason:
        case "cancelled":
            return status_pill("cancelled")
        case "error" | "refusal":
            return status_pill("failed")
        case _:
            return status_pill("completed")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class SubagentLane(Widget, can_focus=True):
    """One subagent: its line, and below it (while open) its work. Cheap: the body is one `Static`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Expand", show=False)]

    DEFAULT_CSS = Path(__file__).with_name("subagent_lane.tcss").read_text(encoding="utf-8")

    def __init__(self, child: Subagent, *, context: ViewContext = NO_CONTEXT) -> None:
        super().__init__()
        self.child = child
        self.context = context  # the session folder: paths in tool-call titles read relative to it
        self._user_expanded: bool | None = None
        self._header = _LaneHeader(self)
        self._body = Static(classes="lane--body")
        self.set_class(self.expanded, "-expanded")

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._body

    def on_mount(self) -> None:
        self._refresh_body()

    # -- open and closed ---------------------------------------------------------------------------

    @property
    def expanded(self) -> bool:
        """Open while the child works; closed once it ended; the user's choice wins."""
        return self._user_expanded if self._user_expanded is not None else not self.child.ended

    def toggle(self) -> None:
        self._user_expanded = not self.expanded
        self._apply_expanded()

    def action_toggle_open(self) -> None:
        self.toggle()

    def _apply_expanded(self) -> None:
        self.set_class(self.expanded, "-expanded")
        self._header.refresh()
        self._refresh_body()

    # -- the model changed -------------------------------------------------------------------------

    def apply_fields(self, fields: frozenset[str]) -> None:
        """Anything in the child changed (`subagents.LANE`): the line, and the body when open."""
        self._apply_expanded()

    # -- the line ------------------------------------------------------------------------------------

    def header_text(self) -> Text:
        child = self.child
        pill = lane_pill(child)
        text = Text(pill.text.split(" ", 1)[0])
        text.append(f" {GLYPHS['subagent']} ")
        text.append(plain(child.name), style="bold")
        if child.description and child.description != child.name:
            text.append(f" · {plain(child.description)}", style="dim")
        text.append(f" · {_count(len(child.tool_calls), 'tool call')}", style="dim")
        text.append(f" {GLYPHS['open'] if self.expanded else GLYPHS['closed']}", style="dim")
        return text

    def header_render(self, width: int, background: Color) -> Text:
        text = self.header_text()
        text.stylize(status_style(self.app.theme_variables, background, lane_pill(self.child).variant), 0, 1)
        text.truncate(max(width, 1), overflow="ellipsis")
        return text

    # -- the body -------------------------------------------------------------------------------------

    def _refresh_body(self) -> None:
        if self.expanded and self._body.is_mounted:
            self._body.update(self.body_text())

    def body_text(self) -> Text:
        """The child's work as plain lines (agent text is data: sanitized, never parsed as markup)."""
        lines: list[Text] = []
        child = self.child
        for entity in child.model.entities.values():
            if len(lines) >= MAX_BODY_LINES:
                break
            if type(entity) is ToolCall:
                line = Text(status_pill(entity.status, interrupted=entity.interrupted).text.split(" ", 1)[0])
                title = self.context.text(entity.title) if entity.title else plain(entity.name or entity.id)
                line.append(f" {kind_icon(entity.kind)} {title}")
                lines.append(line)
            elif type(entity) is Message and entity.key[0] in (USER_MESSAGE, AGENT_MESSAGE, AGENT_THOUGHT):
                lines.extend(_message_lines(entity))
            elif type(entity) is Subagent:
                n = len(entity.tool_calls)
                line = Text(f"{lane_pill(entity).text.split(' ', 1)[0]} {GLYPHS['subagent']} ")
                line.append(f"{plain(entity.name)} · {_count(n, 'tool call')}")
                lines.append(line)
        hidden = child.dropped + max(0, len(lines) - MAX_BODY_LINES)
        lines = lines[:MAX_BODY_LINES]
        if child.reply:
            lines.append(Text(f"↩ {plain(child.reply)[:300]}", style="italic"))
        if hidden:
            lines.append(Text(f"… {hidden} more not shown", style="dim"))
        if not lines:
            lines.append(Text("starting…", style="dim"))
        return Text("\n").join(lines)


class _LaneHeader(Widget):
    """The lane's line; a click opens or closes the lane."""

    def __init__(self, lane: SubagentLane) -> None:
        super().__init__(classes="lane--title")
        self._lane = lane

    def render(self) -> Text:
        return self._lane.header_render(self.content_size.width, self.background_colors[1])

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self._lane.focus()
        self._lane.toggle()


def _message_lines(message: Message) -> list[Text]:
    text = multiline(message.text[: MAX_MESSAGE_LINES * 500]).strip()  # only what can be shown is read
    if not text:
        return []
    rows = text.split("\n")
    shown = rows[:MAX_MESSAGE_LINES]
    style = "dim italic" if message.key[0] == AGENT_THOUGHT else ""
    prefix = "› " if message.key[0] == USER_MESSAGE else ""
    out = [Text(f"{prefix if i == 0 else '  ' if prefix else ''}{row}", style=style) for i, row in enumerate(shown)]
    if len(rows) > len(shown):
        out.append(Text(f"  … {len(rows) - len(shown)} more lines", style="dim"))
    return out
