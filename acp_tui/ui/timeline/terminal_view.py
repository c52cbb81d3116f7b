"""A terminal (docs/protocol.md §6.4, §10.2): `$ command  (cwd)`, coloured output, exit status, run time.

The command line is shown exactly: a control character in it is written out as an escape (`\x1b`, `\t`,
`sanitize.escape_controls`), never dropped. The same widget shows a v2 agent's display-only terminal, a v1 tool call's `_meta.terminal_*` output,
and a command the client runs for a v1 agent (`terminal/create`, whose start and end times are known,
so its footer also says how long it ran). A terminal that advertises `capabilities.cancel` can be
stopped with the key the tool card uses to cancel a tool call: the view posts `CancelRequested`, and
the footer says "stopping…" until the exit status arrives.

Output bytes go through `acp_tui.ansi.TerminalDecoder`, which keeps SGR colours and drops every other
control sequence, so agent bytes never reach the real terminal. Decoded text is kept as one Rich
`Text` per line, bounded to the newest `MAX_LINES` lines (the rest are counted), and drawn with the
line API in a scrollable box of at most ~15 rows that follows the end while the user is at the bottom.
"""

from __future__ import annotations

from collections import deque
from itertools import islice
from typing import ClassVar, Final

from rich.segment import Segment as RichSegment
from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from acp_tui.ansi import PLAIN, Segment, TerminalDecoder
from acp_tui.path_text import NO_CONTEXT, ViewContext
from acp_tui.sanitize import escape_controls, multiline, plain
from acp_tui.session.model import Terminal
from acp_tui.ui.timeline.ansi_text import rich_style
from acp_tui.ui.timeline.card_requests import CANCEL_CALL_KEY
from acp_tui.ui.timeline.output_tail import FAILED_TAIL_LINES, Tail, tail_of_lines
from acp_tui.ui.widgets.content_blocks import TextStatic
from acp_tui.ui.widgets.exit_status import elapsed_text, exit_text

__all__ = ["MAX_LINES", "MAX_LINE_CHARS", "TerminalOutputView", "TerminalView", "elapsed_text", "exit_text"]

#: Newest output lines kept for display; older ones are counted in `dropped_lines`.
MAX_LINES: Final = 2000
#: A line longer than this is broken, so one huge line cannot cost a huge render.
MAX_LINE_CHARS: Final = 4000


class TerminalOutputView(ScrollView, can_focus=True):
    """The decoded output lines, drawn lazily (only visible lines are rendered)."""

    DEFAULT_CSS = """
    TerminalOutputView {
        height: auto;
        max-height: 15;
        width: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
    }
    """

    def __init__(self, max_lines: int = MAX_LINES) -> None:
        super().__init__()
        self._decoder = TerminalDecoder()
        self._max_lines = max_lines
        self._lines: deque[Text] = deque(maxlen=max_lines)
        self._current = Text(end="")
        self._width = 0
        #: completed lines discarded from the front to honour the bound
        self.dropped_lines = 0
        #: lines break at this many characters: the agent's terminal width (`TerminalUpdate.size`) when known
        self.columns = MAX_LINE_CHARS

    # -- feeding -----------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget all output and the decoder state (before replaying a snapshot)."""
        self._decoder.reset()
        self._lines.clear()
        self._current = Text(end="")
        self._width = 0
        self.dropped_lines = 0
        self._changed()

    def feed(self, data: bytes) -> None:
        """Decode and append raw output bytes."""
        if not data:
            return
        for segment in self._decoder.feed(data):
            self._append_segment(segment)
        self._changed()

    def _push_line(self, line: Text) -> None:
        if len(self._lines) == self._max_lines:
            self.dropped_lines += 1
        line.expand_tabs(8)
        self._width = max(self._width, line.cell_len)
        self._lines.append(line)

    def _append_text(self, text: str, segment: Segment) -> None:
        """Append text without newlines to the current line, breaking overlong lines."""
        style = None if segment.style == PLAIN else rich_style(segment.style)
        # The decoder removed escape sequences; bidi overrides and invisible characters go too.
        text = multiline(text).replace("\n", "")
        while text:
            room = self.columns - len(self._current)
            piece, text = text[:room], text[room:]
            self._current.append(piece, style)
            if text:
                self._push_line(self._current)
                self._current = Text(end="")

    def _append_segment(self, segment: Segment) -> None:
        parts = segment.text.split("\n")
        self._append_text(parts[0], segment)
        if len(parts) == 1:
            return
        self._push_line(self._current)
        middle = parts[1:-1]
        # Lines that the bound would drop at once are only counted, never built.
        skip = max(0, len(middle) - self._max_lines)
        if skip:
            self.dropped_lines += skip
            middle = middle[skip:]
        for part in middle:
            self._current = Text(end="")
            self._append_text(part, segment)
            self._push_line(self._current)
        self._current = Text(end="")
        self._append_text(parts[-1], segment)

    # -- reading -----------------------------------------------------------------------------

    @property
    def line_count(self) -> int:
        """Retained lines, counting a non-empty unfinished last line."""
        return len(self._lines) + (1 if self._current else 0)

    def lines(self) -> list[Text]:
        """The retained lines (the unfinished last line included when not empty)."""
        out = list(self._lines)
        if self._current:
            out.append(self._current)
        return out

    def last_lines(self, count: int) -> list[Text]:
        """The newest `count` retained lines (the unfinished last line included when not empty)."""
        out = list(islice(reversed(self._lines), max(0, count - (1 if self._current else 0))))[::-1]
        if self._current:
            out.append(self._current)
        return out

    def plain_text(self) -> str:
        """The retained output as plain text."""
        return "\n".join(line.plain for line in self.lines())

    # -- drawing -----------------------------------------------------------------------------

    def _changed(self) -> None:
        if not self.is_mounted:
            return
        following = self.scroll_y >= self.max_scroll_y
        width = max(self._width, self._current.cell_len)
        self.virtual_size = Size(width, self.line_count)
        self.refresh()
        if following:
            self.call_after_refresh(self.scroll_end, animate=False)

    def on_mount(self) -> None:
        self.virtual_size = Size(max(self._width, self._current.cell_len), self.line_count)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index < len(self._lines):
            line = self._lines[index]
        elif index == len(self._lines) and self._current:
            line = self._current.copy()
            line.expand_tabs(8)
        else:
            return Strip.blank(width, base)
        segments: list[RichSegment] = list(line.render(self.app.console, end=""))
        strip = Strip(segments, line.cell_len).crop_extend(scroll_x, scroll_x + width, base)
        return strip.apply_style(base)


class TerminalView(Vertical):
    """One terminal: header, bounded output, exit footer; updated by the methods below."""

    class CancelRequested(Message):
        """The user asked to stop this terminal (v2 `terminal/cancel`, or a command the client runs):
        the screen calls `AgentSession.cancel_terminal(view.terminal_id)`."""

        def __init__(self, view: TerminalView) -> None:
            super().__init__()
            self.view = view

        @property
        def terminal_id(self) -> str:
            return self.view.terminal_id

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(CANCEL_CALL_KEY, "stop_terminal", "Stop this command", show=False),  # the tool card's cancel key
    ]

    DEFAULT_CSS = """
    TerminalView {
        height: auto;
        width: 1fr;
        padding: 0 1;
    }
    TerminalView > .terminal--header {
        color: $text-muted;
    }
    TerminalView > .terminal--footer {
        color: $text-muted;
    }
    TerminalView > .terminal--footer.-success { color: $success; }
    TerminalView > .terminal--footer.-error { color: $error; }
    TerminalView > .terminal--footer.-running { color: $warning; }
    """

    def __init__(self, terminal: Terminal, *, max_lines: int = MAX_LINES, context: ViewContext = NO_CONTEXT) -> None:
        super().__init__()
        self.terminal = terminal
        self.context = context
        self._header = TextStatic(self._header_text(), classes="terminal--header")
        self.output = TerminalOutputView(max_lines)
        self._footer = TextStatic(classes="terminal--footer")
        self._footer_plain = ""
        self._ticker: Timer | None = None
        self._set_columns()
        self.output.feed(bytes(terminal.output))
        self._update_footer()

    def on_mount(self) -> None:
        self._sync_ticker()

    def _sync_ticker(self) -> None:
        """While a timed command runs, its footer counts the seconds."""
        running = self.terminal.started_at is not None and self.terminal.ended_at is None
        if running and self._ticker is None and self.is_mounted:
            self._ticker = self.set_interval(1.0, self._update_footer)
        elif not running and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    @property
    def terminal_id(self) -> str:
        return self.terminal.id

    def compose(self) -> ComposeResult:
        yield self._header
        yield self.output
        yield self._footer

    def _header_text(self) -> Text:
        command = self.terminal.command
        header = Text("$ ")
        # A control character in a command line is part of what runs: written out (`\x1b`, `\t`), never dropped.
        header.append(plain(escape_controls(command)) if command else f"terminal {plain(self.terminal.id)}")
        where = self.context.path(self.terminal.cwd) if self.terminal.cwd else "."
        if where != ".":  # the session folder goes without saying
            header.append(f"  ({where})", style="not bold")
        return header

    def _update_footer(self) -> None:
        text, variant = exit_text(self.terminal)
        footer = Text(text)
        elapsed = elapsed_text(self.terminal)
        if elapsed:
            footer.append(f"  · {elapsed}", style="dim")
        dropped = self.output.dropped_lines
        more = ""
        if dropped or self.terminal.dropped:
            more = f"  · {dropped} earlier lines not shown" if dropped else "  · earlier output not kept"
            footer.append(more, style="dim")
        self._footer_plain = text + more
        self._footer.update(footer)
        self._footer.set_classes(f"terminal--footer -{variant}")

    # -- updates from the model --------------------------------------------------------------

    def append_bytes(self, data: bytes) -> None:
        """New output (a `BytesAppended` change)."""
        before = self.output.dropped_lines
        self.output.feed(data)
        if self.output.dropped_lines != before:
            self._update_footer()

    def reset_and_replay(self) -> None:
        """The output was replaced by a snapshot (`ContentReplaced`): decode it all from scratch."""
        self.output.reset()
        self.output.feed(bytes(self.terminal.output))
        self._update_footer()

    def _set_columns(self) -> None:
        """Output is laid out at the width the agent's program writes for, so its columns line up."""
        size = self.terminal.size
        self.output.columns = min(size[0], MAX_LINE_CHARS) if size is not None else MAX_LINE_CHARS

    def apply_fields(self, fields: frozenset[str]) -> None:
        """Re-render the parts that show the changed fields (`EntityChanged`)."""
        if "size" in fields:
            self._set_columns()
            self.reset_and_replay()
        if fields & {"command", "cwd"}:
            self._header.update(self._header_text())
        if fields & {"exit_status", "cancelling", "started_at", "ended_at"}:
            self._update_footer()
        if fields & {"started_at", "ended_at"}:
            self._sync_ticker()

    # -- stopping ----------------------------------------------------------------------------

    def request_cancel(self) -> bool:
        """Ask to stop this terminal if it can be stopped now (posts `CancelRequested`); False otherwise."""
        terminal = self.terminal
        if not terminal.cancellable or terminal.cancelling:
            return False
        self.post_message(self.CancelRequested(self))
        return True

    def action_stop_terminal(self) -> None:
        if not self.request_cancel():
            raise SkipAction()  # not stoppable: the key goes on to the card (cancel the tool call)

    # -- reading -----------------------------------------------------------------------------

    def header_text(self) -> str:
        return self._header_text().plain

    def footer_text(self) -> str:
        """The exit status (or "running…"/"stopping…") and any note on dropped output; not the run time."""
        return self._footer_plain

    def elapsed_text(self) -> str:
        return elapsed_text(self.terminal)

    def output_tail(self, failed: bool) -> Tail | None:
        """The newest output lines for a closed card's title (longer when `failed` or it exited non-zero)."""
        failed = failed or exit_text(self.terminal)[1] == "error"
        window = 4 * FAILED_TAIL_LINES  # room for the blank lines the tail skips
        lines = self.output.last_lines(window)
        earlier = self.output.dropped_lines + self.output.line_count - len(lines)
        return tail_of_lines(lines, failed, earlier)

    def full_text(self) -> str:
        """Header, retained output and footer as plain text (for saving)."""
        return f"{self.header_text()}\n{self.output.plain_text()}\n{exit_text(self.terminal)[0]}"
