"""A question the client could not show: which agent asked, why it could not be shown, the raw request.

The agent has already been answered (`-32602` with the reasons, docs/protocol.md §10.1); this screen
only tells the user, so nothing here decides anything and no typing guard is needed. The raw request
is shown on demand (`r`), pretty-printed and sanitised like every other agent text.
"""

from __future__ import annotations

import json
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.sanitize import multiline, plain
from acp_tui.services.elicitation import RefusedElicitation
from acp_tui.ui.widgets.content_blocks import head_lines, more_lines_text, pretty_json

__all__ = ["ElicitationRefusedScreen", "raw_request_text"]

#: Lines of the raw request shown before "… N more lines".
MAX_RAW_LINES = 400


def raw_request_text(raw: bytes) -> str:
    """The request's params as indented JSON, sanitised (as received when it is not JSON)."""
    try:
        return pretty_json(json.loads(raw))
    except (ValueError, UnicodeDecodeError):
        return multiline(raw.decode("utf-8", "replace"))


class ElicitationRefusedScreen(ModalScreen[None]):
    """Tell the user a question went unanswered and why; `r` shows the raw request, Escape closes."""

    CSS_PATH = "elicitation_refused.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "toggle_raw", "Raw request", show=False),
        Binding("escape,enter,q", "dismiss", "Close", show=False),
        Binding("up", "scroll_body(-1)", show=False),
        Binding("down", "scroll_body(1)", show=False),
        Binding("pageup", "scroll_body(-10)", show=False),
        Binding("pagedown", "scroll_body(10)", show=False),
    ]

    def __init__(self, refusal: RefusedElicitation, *, agent: str = "the agent") -> None:
        super().__init__()
        self.refusal = refusal
        self._agent = plain(agent) or "the agent"
        head, more = head_lines(raw_request_text(refusal.raw), MAX_RAW_LINES)
        raw = Text(head)
        if more:
            raw.append("\n").append_text(more_lines_text(more))
        self._raw = Static(raw, id="raw")
        self._raw.display = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="body", can_focus=False):
                yield Static(
                    Text(f"{self._agent} asked a question this client cannot show, so the agent was told so."),
                    id="summary",
                )
                message = multiline(self.refusal.message).strip()
                if message:
                    yield Static(Text(message), id="message")
                reasons = "\n".join(f"• {plain(reason)}" for reason in self.refusal.reasons)
                yield Static(Text(reasons), id="reasons")
                yield self._raw
            hint = Text()
            for key, label in (("r", "raw request"), ("esc", "close")):
                if hint:
                    hint.append("  ")
                hint.append(key, "bold")
                hint.append(f" {label}")
            yield Static(hint, id="hint")

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = Content(f"Question from {self._agent} not shown")

    def action_toggle_raw(self) -> None:
        self._raw.display = not self._raw.display
        self.query_one("#dialog").set_class(self._raw.display, "-raw")

    def action_scroll_body(self, lines: int) -> None:
        """Arrows and PageUp/PageDown scroll the text (nothing here takes focus)."""
        body = self.query_one("#body", VerticalScroll)
        body.scroll_relative(y=lines, animate=False)

    @property
    def raw_shown(self) -> bool:
        return bool(self._raw.display)
