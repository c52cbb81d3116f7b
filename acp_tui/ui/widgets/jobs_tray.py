"""The jobs tray: the agent's background work (v2 `state_update.background`), one line above the status bar.

It shows only while the latest snapshot lists something (session/background.py): closed, one line, the
count and the first jobs; open (a click, or F9), one row per job: a terminal with its command and
how long it has run, a tool call with its title and status, a subagent (unstable `BackgroundSubagent`)
with its name. Enter shows the selected terminal's newest output (at the width the agent runs it with,
`TerminalUpdate.size`); `Ctrl+X`, the key a card cancels with, stops the selected job, only where its
`capabilities.cancel` allows and it is not already stopping (the screen then asks the controller, which
checks again); a subagent is not stopped from here (its lane shows its work). Agent text is data: every
command and title is `plain`, capped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Final, assert_never

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.ansi import TerminalDecoder
from acp_tui.sanitize import multiline, plain
from acp_tui.session.background import Job, JobKind
from acp_tui.session.model import SessionState, Subagent, Terminal, ToolCall
from acp_tui.ui.key_order import hold_keys
from acp_tui.ui.widgets.exit_status import duration_text
from acp_tui.ui.widgets.icons import GLYPHS
from acp_tui.ui.widgets.prompt_return import FocusPrompt

#: a command or a title is cut to this many characters before it is laid out
MAX_LABEL_CHARS: Final = 200
#: rows shown when open (the rest: "+N more")
MAX_ROWS: Final = 8
#: lines of a terminal's newest output shown on demand, and the bytes they are read from
TAIL_LINES: Final = 6
TAIL_BYTES: Final = 8192


def elapsed(seconds: float) -> str:
    """ "12 s", "3 min 05 s", "2 h 07 min"; "" under a second (just started)."""
    if seconds < 1:
        return ""
    return duration_text(seconds)


def tail_lines(term: Terminal, count: int = TAIL_LINES) -> list[str]:
    """The newest non-blank output lines, decoded and plain, cut to the agent's columns when known."""
    decoder = TerminalDecoder()
    text = multiline("".join(segment.text for segment in decoder.feed(bytes(term.output[-TAIL_BYTES:]))))
    width = term.size[0] if term.size is not None else MAX_LABEL_CHARS
    lines = [plain(line)[:width] for line in text.split("\n") if line.strip()]
    return lines[-count:]


class JobsTray(Widget, can_focus=True):
    """Background jobs above the status bar; hidden while nothing runs in the background."""

    class StopRequested(Message):
        """Stop one background job: the screen calls `cancel_terminal` or `cancel_tool_call`."""

        def __init__(self, kind: JobKind, job_id: str) -> None:
            super().__init__()
            self.kind: JobKind = kind
            self.job_id = job_id

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous job", show=False),
        Binding("down", "move(1)", "Next job", show=False),
        Binding("enter", "toggle_tail", "Show output", show=False),
        Binding("ctrl+x", "stop", "Stop this job", show=False),
        Binding("escape", "close", "Close", show=False),
    ]

    #: the clock elapsed times are read from (tests fix it)
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state: SessionState | None = None
        self._jobs: tuple[Job, ...] = ()
        self._first_seen: dict[Job, float] = {}
        self._selected = 0
        self._tail: Job | None = None
        self._timer: Timer | None = None
        self.display = False

    # -- the model -------------------------------------------------------------------------------

    @property
    def jobs(self) -> tuple[Job, ...]:
        return self._jobs

    @property
    def count(self) -> int:
        return self._state.background.count if self._state is not None else 0

    def show(self, state: SessionState | None) -> None:
        """The latest snapshot (a state change) or none at all (the agent is gone)."""
        self._state = state
        self._jobs = state.background.jobs if state is not None else ()
        now = self.clock()
        self._first_seen = {job: self._first_seen.get(job, now) for job in self._jobs}
        self._selected = min(self._selected, max(len(self._jobs) - 1, 0))
        if self._tail not in self._first_seen:
            self._tail = None
        self.display = self.count > 0
        self.set_class(not self.display, "-empty")
        if self.display and self._timer is None and self.is_mounted:
            self._timer = self.set_interval(1, self.refresh)
        elif not self.display and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.refresh(layout=True)

    def touches(self, key: tuple[str, str]) -> bool:
        """Does an entity change concern a listed job (its command, status, output)?"""
        return any(job.ident == key or (job.kind == "tool_call" and key[1] == job.id) for job in self._jobs)

    def entity_changed(self) -> None:
        self.refresh(layout=self._tail is not None)

    def _entity(self, job: Job) -> Terminal | ToolCall | Subagent | None:
        if self._state is None:
            return None
        match job.kind:
            case "terminal":
                return self._state.terminal(job.id)
            case "tool_call":
                return self._state.tool_call(job.id)
            case "subagent":
                return self._state.subagents.get(job.id)
            case unreachable:
                assert_never(unreachable)

    def stoppable(self, job: Job) -> bool:
        """May the user stop it now? The same rule as a card's cancel: advertised, running, not stopping."""
        entity = self._entity(job)
        if isinstance(entity, Terminal):
            return entity.cancellable and not entity.cancelling
        return isinstance(entity, ToolCall) and entity.cancellable and not entity.finished and not entity.cancelling

    # -- rendering -------------------------------------------------------------------------------

    def _label(self, job: Job) -> tuple[str, str]:
        """(glyph, label) of one job: a terminal's command, a tool call's title, a subagent's name, else its id."""
        entity = self._entity(job)
        if isinstance(entity, Subagent):
            return GLYPHS["subagent"], plain(entity.name[:MAX_LABEL_CHARS])
        if isinstance(entity, Terminal):
            return "$", plain((entity.command or job.id)[:MAX_LABEL_CHARS])
        if isinstance(entity, ToolCall):
            glyph = GLYPHS.get(entity.status, GLYPHS["running"])
            return glyph, plain((entity.title or entity.name or job.id)[:MAX_LABEL_CHARS])
        return "?", plain(job.id[:MAX_LABEL_CHARS])

    def _when(self, job: Job, now: float) -> str:
        entity = self._entity(job)
        if isinstance(entity, Terminal):
            if entity.cancelling:
                return "stopping…"
            if entity.exit_status is not None:
                return "exited"
            start = entity.started_at if entity.started_at is not None else self._first_seen.get(job, now)
            return elapsed(now - start)
        if isinstance(entity, Subagent):
            if entity.ended:
                return "ended"
            since = elapsed(now - self._first_seen.get(job, now))
            return since if entity.state == "running" else f"{plain(entity.state[:40])} {since}".strip()
        if isinstance(entity, ToolCall):
            if entity.cancelling:
                return "stopping…"
            status = plain(entity.status[:40])
            since = elapsed(now - self._first_seen.get(job, now))
            return f"{status} {since}".strip() if status not in ("in_progress", "pending") else since
        return ""

    def allow_focus(self) -> bool:
        """Only while it shows (F9, a click): a hidden tray never takes the keys."""
        return bool(self.display)

    def summary(self) -> str:
        """The closed line: `⚙ 2 jobs · npm run dev 1 min 20 s · Watch tests`."""
        now = self.clock()
        count = self.count
        parts = [f"{GLYPHS['running']} {count} {'job' if count == 1 else 'jobs'}"]
        for job in self._jobs[:3]:
            _, label = self._label(job)
            when = self._when(job, now)
            parts.append(f"{label} {when}".strip())
        extra = count - min(len(self._jobs), 3)
        if extra > 0:
            parts.append(f"+{extra} more")
        return " · ".join(parts)

    def rows(self) -> list[str]:
        """The open tray as plain lines (what `render` draws, without colour)."""
        return [line.plain for line in self._lines(self.size.width or 80)]

    def _lines(self, width: int) -> list[Text]:
        now = self.clock()
        head = Text(self.summary(), style="bold")
        if not self.has_focus:
            head.append("   click or F9 to open", style="dim")
            return [head]
        head.append("   ↑↓ select · ⏎ output · ^X stop · Esc close", style="dim")
        lines = [head]
        for index, job in enumerate(self._jobs[:MAX_ROWS]):
            glyph, label = self._label(job)
            mark = "▸" if index == self._selected else " "
            row = Text(f"{mark} {glyph} ")
            row.append(label, style="bold" if index == self._selected else "")
            when = self._when(job, now)
            if when:
                row.append(f"  {when}", style="dim")
            if self.stoppable(job):
                row.append("  ^X stop", style="dim")
            lines.append(row)
            entity = self._entity(job)
            if self._tail == job and isinstance(entity, Terminal):
                lines.extend(Text(f"    {line}", style="dim") for line in tail_lines(entity) or ["(no output yet)"])
        hidden = len(self._jobs) - MAX_ROWS
        others = self.count - len(self._jobs)
        if hidden > 0 or others > 0:
            more = [f"+{hidden} more"] if hidden > 0 else []
            more += [f"{others} not shown (of a kind acp-tui does not know)"] if others > 0 else []
            lines.append(Text("  " + " · ".join(more), style="dim"))
        for line in lines:
            line.no_wrap = True
            line.overflow = "ellipsis"
            line.truncate(max(width, 1), overflow="ellipsis")
        return lines

    def render(self) -> Text:
        return Text("\n").join(self._lines(self.content_size.width or 80))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    # -- keys ------------------------------------------------------------------------------------

    def on_focus(self) -> None:
        self.refresh(layout=True)

    def on_blur(self) -> None:
        self.refresh(layout=True)

    def on_click(self, event: events.Click) -> None:
        self.focus()

    def action_move(self, step: int) -> None:
        if self._jobs:
            self._selected = (self._selected + step) % min(len(self._jobs), MAX_ROWS)
            self.refresh()

    def _current(self) -> Job | None:
        return self._jobs[self._selected] if self._selected < len(self._jobs) else None

    def action_toggle_tail(self) -> None:
        job = self._current()
        if job is not None and job.kind == "terminal":
            self._tail = None if self._tail == job else job
            self.refresh(layout=True)

    def action_stop(self) -> None:
        job = self._current()
        if job is None or not self.stoppable(job):
            self.app.bell()
            return
        self.post_message(self.StopRequested(job.kind, job.id))

    def action_close(self) -> None:
        self._tail = None
        hold_keys(self.app)  # the keys typed behind this one are the prompt's
        self.post_message(FocusPrompt())
