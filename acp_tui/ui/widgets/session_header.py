"""The header line: which agent, which session, which protocol, which directory."""

from __future__ import annotations

from typing import ClassVar, Final

import msgspec
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from acp_tui.sanitize import plain

#: The agent's name is cut to half the line, but never below this many cells.
MIN_NAME: Final = 12
#: Shorter than this, the directory is left out rather than shown as a stub.
MIN_CWD: Final = 10
#: Shorter than this, the title is left out rather than shown as a stub.
MIN_TITLE: Final = 6
#: Cells kept free between the left and the right part.
GAP: Final = 2
SEPARATOR: Final = "  ·  "
TITLE_SEPARATOR: Final = "  —  "


class HeaderValues(msgspec.Struct, frozen=True):
    """What the header shows; every string here may come from the agent and is sanitized on render."""

    agent: str = ""
    agent_version: str | None = None
    session_title: str | None = None
    protocol: int | None = None
    cwd: str = ""
    #: the account the agent acts as (`_auth/status_update`'s label, "Claude Max"), where it says
    account: str | None = None


class SessionHeader(Widget):
    """`◆ Agent 1.2 — Session title            ACP v2 · ~/src/project`

    The directory keeps at most a third of the line (its tail, `…/src/project`, when longer). In a
    narrow terminal the parts give way in order: the title is cut short and goes, then the version,
    then the directory, then the protocol; the agent's name always stays (cut to half the line at most).
    """

    DEFAULT_CSS = """
    SessionHeader {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    SessionHeader > .session-header--mark {
        color: $primary;
    }
    SessionHeader > .session-header--meta {
        color: $text-muted;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"session-header--mark", "session-header--meta"}

    def __init__(self, values: HeaderValues, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._values = values

    @property
    def values(self) -> HeaderValues:
        return self._values

    def update_values(self, **changes: object) -> None:
        values = msgspec.structs.replace(self._values, **changes)
        if values != self._values:
            self._values = values
            self.refresh()

    def _style(self, component: str) -> Style:
        """A component's colours resolved against the header's background (`auto` colours included)."""
        return self.get_visual_style(component).rich_style if self.is_mounted else Style.null()

    def render(self) -> Text:
        v = self._values
        width = self.content_size.width or 160
        meta = self._style("session-header--meta")
        left = Text.assemble(("◆ ", self._style("session-header--mark")), (plain(v.agent) or "agent", "bold"))
        left.truncate(max(MIN_NAME, width // 2), overflow="ellipsis")
        right = Text(style=meta)
        if v.protocol is not None:
            right.append("ACP v2" if v.protocol == 2 else "ACP v1 (legacy)")
        cwd = plain(v.cwd)
        if cwd:
            room = width - left.cell_len - GAP - right.cell_len - (len(SEPARATOR) if right else 0)
            room = min(room, max(MIN_CWD, width // 3))  # leave the title some room too
            if room >= MIN_CWD:
                right.append(f"{SEPARATOR if right else ''}{tail(cwd, room)}")
        account = plain(v.account or "")[:40]
        if account and left.cell_len + GAP + cell_len(account) + len(SEPARATOR) + right.cell_len + MIN_TITLE < width:
            right = Text.assemble(account, SEPARATOR if right else "", right, style=meta)  # the first to go
        if left.cell_len + GAP + right.cell_len > width:
            right = Text()
        room = width - left.cell_len - (GAP + right.cell_len if right else 0)
        version = f" {plain(v.agent_version)}" if v.agent_version else ""
        if version and cell_len(version) <= room:
            left.append(version, style=meta)
            room -= cell_len(version)
        if v.session_title and room >= len(TITLE_SEPARATOR) + MIN_TITLE:
            # A long (agent-chosen) title is cut short rather than pushing the protocol and cwd away.
            title = Text(TITLE_SEPARATOR + plain(v.session_title))
            title.truncate(room, overflow="ellipsis")
            left.append_text(title)
        if right:
            left.append(" " * (width - left.cell_len - right.cell_len))
            left.append_text(right)
        left.no_wrap = True
        left.overflow = "ellipsis"
        return left


def tail(path: str, room: int) -> str:
    """`path` in at most `room` cells: its end, after an ellipsis, when it is longer (the end names the
    project; the start is usually the same home directory)."""
    if cell_len(path) <= room:
        return path
    kept = path[-(room - 1) :] if room > 1 else ""
    while kept and cell_len(kept) > room - 1:
        kept = kept[1:]
    return "…" + kept
