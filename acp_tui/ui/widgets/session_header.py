"""The header line: which agent, which session, which protocol, which directory."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual.widget import Widget

from acp_tui.sanitize import plain


@dataclass(frozen=True, slots=True)
class HeaderValues:
    """What the header shows; every string here may come from the agent and is sanitized on render."""

    agent: str = ""
    agent_version: str | None = None
    session_title: str | None = None
    protocol: int | None = None
    cwd: str = ""


class SessionHeader(Widget):
    """`● Agent 1.2 — Session title            ACP v2 · ~/src/project`"""

    DEFAULT_CSS = """
    SessionHeader {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    def __init__(self, values: HeaderValues, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._values = values

    @property
    def values(self) -> HeaderValues:
        return self._values

    def update_values(self, **changes: object) -> None:
        values = replace(self._values, **changes)  # type: ignore[arg-type]
        if values != self._values:
            self._values = values
            self.refresh()

    def render(self) -> Text:
        v = self._values
        primary = self.app.theme_variables.get("primary", "blue") if self.is_mounted else "blue"
        left = Text("◆ ", style=primary)
        left.append(plain(v.agent) or "agent", style="bold")
        if v.agent_version:
            left.append(f" {plain(v.agent_version)}", style="dim")
        if v.session_title:
            left.append("  —  ")
            left.append(plain(v.session_title))
        right = Text()
        if v.protocol is not None:
            right.append("ACP v2" if v.protocol == 2 else "ACP v1 (legacy)", style="dim")
        if v.cwd:
            right.append(f"  ·  {plain(v.cwd)}", style="dim")
        width = self.content_size.width or 160
        room = width - right.cell_len - 2
        if right.cell_len and room >= 12:
            # A long (agent-chosen) title is cut short rather than pushing the protocol and cwd away.
            left.truncate(room, overflow="ellipsis")
            left.append(" " * (width - left.cell_len - right.cell_len))
            left.append_text(right)
        left.no_wrap = True
        left.overflow = "ellipsis"
        return left
