"""The protocol inspector (F8, the palette): every JSON-RPC frame of this connection, newest last.

It reads the connection's frame log (acp_tui/agent/frames.py: the newest 10,000, the rest in the `--log` file)
and listens to it only while it is open, so nothing is rendered while it is closed. New frames are added a batch
per refresh. Every cell is a `Text` (agent text is data, never markup); Enter shows a frame as pretty JSON.
A `session/update` is labelled with its kind (`session/update · tool_call_update`), so the method filter finds
one kind; the word `answer` in that filter keeps the answers (their `↩` is not on a keyboard).
A filter applies once typing pauses (`FILTER_DELAY`, the timer reset per key; Enter in a filter applies it at
once): rebuilding 10,000 rows per keystroke would make typing lag. The selected frame stays selected when the
new filter keeps it; a table that followed the newest frame goes on following it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import ClassVar, Final

import msgspec
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static, TextArea
from textual.widgets.data_table import CellDoesNotExist

from acp_tui.agent.frames import Frame, FrameLog
from acp_tui.sanitize import multiline, plain
from acp_tui.ui.browsers.keys import INSPECTOR_KEY
from acp_tui.ui.widgets.palette import PaletteEntry, ScreenActionCommands

COMMAND_NAME: Final = "Protocol inspector"
COMMAND_HELP: Final = "Every JSON-RPC frame of this connection, filterable; Enter shows one as JSON (F8)"
_DIRECTION: Final = {"->": "→ agent", "<-": "← agent"}
#: seconds of no typing after which a filter is applied
FILTER_DELAY: Final = 0.15
#: words of the method filter that keep only the answers (and are not matched against the labels)
ANSWER_WORDS: Final = ("↩", "answers", "answer")


class _Update(msgspec.Struct):
    kind: str | None = msgspec.field(name="sessionUpdate", default=None)


class _Params(msgspec.Struct):
    update: _Update | None = None


class _Envelope(msgspec.Struct):
    params: _Params | None = None


_decode_envelope = msgspec.json.Decoder(_Envelope).decode


def frame_label(frame: Frame) -> str:
    """The method column: the frame's label, a `session/update` with its kind (agent text: sanitised when shown)."""
    if frame.method != "session/update":
        return frame.label
    try:
        params = _decode_envelope(frame.raw).params
    except (msgspec.DecodeError, msgspec.ValidationError):
        return frame.label
    kind = params.update.kind if params is not None and params.update is not None else None
    return f"session/update · {kind}" if kind else frame.label


def _row(frame: Frame) -> tuple[Text, ...]:
    clock = time.strftime("%H:%M:%S", time.localtime(frame.time)) + f".{int(frame.time * 1000) % 1000:03d}"
    problem = Text("⚑ " + plain(frame.problem)[:200], style="bold") if frame.problem is not None else Text("")
    return (
        Text(str(frame.seq)),
        Text(clock),
        Text(_DIRECTION[frame.direction]),
        Text(plain(frame_label(frame))[:80]),
        Text(f"{len(frame.raw):,}"),
        problem,
    )


def pretty(frame: Frame) -> str:
    """The frame as indented JSON (controls escaped by JSON itself, the rest made safe), or its raw text."""
    try:
        text = json.dumps(json.loads(frame.raw), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        text = frame.raw.decode("utf-8", "replace")
    return multiline(text)


class FrameScreen(ModalScreen[None]):
    """One frame, pretty, in a read-only text area (it shows text, never markup); Escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close")]
    DEFAULT_CSS = """
    FrameScreen { align: center middle; }
    FrameScreen > Vertical { width: 90%; height: 85%; border: round $accent; background: $surface; }
    FrameScreen TextArea { height: 1fr; }
    """

    def __init__(self, frame: Frame) -> None:
        super().__init__()
        self.frame = frame

    def compose(self) -> ComposeResult:
        frame = self.frame
        head = f"#{frame.seq} {_DIRECTION[frame.direction]} {plain(frame.label)} · {len(frame.raw):,} bytes"
        with Vertical():
            yield Static(Text(head, style="bold"))
            if frame.problem is not None:
                yield Static(Text("⚑ " + plain(frame.problem)))
            yield TextArea(pretty(frame), read_only=True, language=None, id="frame-json")
            yield Static(Text("Esc closes"))

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


class InspectorScreen(Screen[None]):
    """The frames in a table, a text filter and a method filter; the newest frames come in while it is open."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(f"escape,{INSPECTOR_KEY}", "dismiss", "Close"),
        Binding("slash", "filter", "Filter"),
    ]
    DEFAULT_CSS = """
    InspectorScreen #inspector-filters { height: 1; margin-bottom: 1; }
    /* one-row fields (compact), told apart from the dialog by their background */
    InspectorScreen #inspector-filters Input { width: 1fr; background: $panel; }
    InspectorScreen #inspector-filters Input:focus { background: $boost; }
    InspectorScreen #inspector-text { margin-right: 1; }
    InspectorScreen DataTable { height: 1fr; }
    """
    COLUMNS: ClassVar[tuple[str, ...]] = ("#", "time", "direction", "method / answers", "bytes", "problem")

    def __init__(self, frames: FrameLog, *, log_hint: str = "") -> None:
        super().__init__()
        self.frames = frames
        self.log_hint = log_hint
        self._pending: list[Frame] = []
        self._flush_queued = False
        self._shown: set[int] = set()
        #: the filters as applied to the table (what `_matches` uses), and as typed so far
        self._text = ""
        self._method = ""
        self._typed: dict[str, str] = {"inspector-text": "", "inspector-method": ""}
        self._filter_timer: Timer | None = None
        self.filter_delay = FILTER_DELAY
        #: how often the table was rebuilt (a filter applied), for the tests of the debounce
        self.rebuilds = 0

    def compose(self) -> ComposeResult:
        yield Static(id="inspector-summary")
        with Horizontal(id="inspector-filters"):
            yield Input(placeholder="filter: text in the frame", id="inspector-text", compact=True)
            yield Input(
                placeholder="method or kind (session/update, tool_call, answer)", id="inspector-method", compact=True
            )
        yield DataTable(cursor_type="row", zebra_stripes=True, id="inspector-table")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for column in self.COLUMNS:
            table.add_column(column, key=column)
        self._rebuild()
        self.frames.listener = self._on_frame
        table.focus()

    def on_unmount(self) -> None:
        if self.frames.listener == self._on_frame:
            self.frames.listener = None

    # -- frames in -------------------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        """Called by the frame log for every frame (O(1)): queued, added on the next refresh."""
        self._pending.append(frame)
        if not self._flush_queued:
            self._flush_queued = True
            self.call_after_refresh(self._flush)

    def _flush(self) -> None:
        self._flush_queued = False
        pending, self._pending = self._pending, []
        table = self.query_one(DataTable)
        oldest = self.frames.oldest_seq
        stale = [seq for seq in self._shown if seq < oldest]
        if len(stale) > 500:
            self._rebuild()
            return
        for seq in stale:
            table.remove_row(str(seq))
            self._shown.discard(seq)
        follow = table.cursor_row >= table.row_count - 1
        for frame in pending:
            if frame.seq < oldest:
                continue
            if frame.seq in self._shown:  # marked with a problem after it was shown
                table.update_cell(str(frame.seq), "problem", _row(frame)[-1])
            elif self._matches(frame):
                self._add(table, [frame])
        self._summarise()
        if follow and table.row_count:
            table.move_cursor(row=table.row_count - 1)

    # -- filters ---------------------------------------------------------------------------------

    @on(Input.Changed)
    def _filter(self, event: Input.Changed) -> None:
        event.stop()
        self._typed[event.input.id or "inspector-text"] = event.value
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(self.filter_delay, self._apply_filters)

    @on(Input.Submitted)
    def _filter_now(self, event: Input.Submitted) -> None:
        """Enter in a filter: apply it now and go to the table."""
        event.stop()
        self._typed[event.input.id or "inspector-text"] = event.value
        self._apply_filters()
        self.query_one(DataTable).focus()

    def _apply_filters(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        text, method = self._typed["inspector-text"], self._typed["inspector-method"].strip()
        if (text, method) != (self._text, self._method):
            self._text, self._method = text, method
            self._rebuild()

    def _matches(self, frame: Frame) -> bool:
        method = self._method.lower()
        for word in ANSWER_WORDS:
            if method.startswith(word):
                if frame.answers is None:
                    return False
                method = method.removeprefix(word).strip()
                break
        if method and method not in frame_label(frame).lower():
            return False
        if not self._text:
            return True
        needle = self._text.lower()
        return needle in frame.raw.decode("utf-8", "replace").lower() or (
            frame.problem is not None and needle in frame.problem.lower()
        )

    def _rebuild(self) -> None:
        table = self.query_one(DataTable)
        self.rebuilds += 1
        selected = self._selected(table)
        follow = selected is None or table.cursor_row >= table.row_count - 1
        table.clear()
        self._shown.clear()
        self._add(table, (frame for frame in self.frames if self._matches(frame)))
        self._summarise()
        if not table.row_count:
            return
        if follow or selected is None:
            table.move_cursor(row=table.row_count - 1)
            return
        # the selected frame if the filter kept it, else the nearest older one shown (or the oldest shown)
        keys = [int(str(row.key.value)) for row in table.ordered_rows]
        row = next((n for n in range(len(keys) - 1, -1, -1) if keys[n] <= selected), 0)
        table.move_cursor(row=row)

    @staticmethod
    def _selected(table: DataTable[Text]) -> int | None:
        if not table.row_count:
            return None
        try:
            return int(str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value))
        except CellDoesNotExist:  # a cursor off the rows: nothing selected
            return None

    def _add(self, table: DataTable[Text], frames: Iterable[Frame]) -> None:
        for frame in frames:
            table.add_row(*_row(frame), key=str(frame.seq))
            self._shown.add(frame.seq)

    def _summarise(self) -> None:
        log = self.frames
        line = f"{len(self._shown):,} of {len(log):,} frames shown"
        if log.dropped:
            line += f" · {log.dropped:,} older ones only in the log file{self.log_hint}"
        marked = log.marked
        if marked:
            line += f" · {marked:,} marked ⚑"
        self.query_one("#inspector-summary", Static).update(
            Text(line + " · Enter: the frame as JSON · /: filter · Esc closes")
        )

    # -- keys ------------------------------------------------------------------------------------

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        event.stop()
        frame = self.frames.find(int(str(event.row_key.value)))
        if frame is not None:
            self.app.push_screen(FrameScreen(frame))

    def action_filter(self) -> None:
        """`/` in the list: to the text filter (in a filter, `/` is typed)."""
        self.query_one("#inspector-text", Input).focus()

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


def log_hint(path: object) -> str:
    """Where the frames gone from memory are: ` (PATH)`, or a word on `--log` when there is no file."""
    return f" ({plain(str(path))})" if path is not None else " (run with --log FILE to keep them all)"


class InspectorCommands(ScreenActionCommands):
    """The palette entry for the inspector: the app's action, offered on the chat screen."""

    ENTRIES = (PaletteEntry(COMMAND_NAME, "app.show_inspector", COMMAND_HELP, keywords="wire frames json-rpc log"),)

    def _available(self) -> Iterable[tuple[PaletteEntry, Callable[[], object]]]:  # type: ignore[override]
        if hasattr(self.app, "action_show_inspector"):
            for entry in self.ENTRIES:
                yield entry, lambda entry=entry: self.screen.run_action(entry.action)  # type: ignore[misc]


__all__ = [
    "COMMAND_NAME",
    "INSPECTOR_KEY",
    "FrameScreen",
    "InspectorCommands",
    "InspectorScreen",
    "frame_label",
    "log_hint",
    "pretty",
]
