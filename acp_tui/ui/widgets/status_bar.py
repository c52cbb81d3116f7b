"""The status bar: what the agent is doing, how full its context is, and which keys matter now.

It holds plain values (set by the chat screen from the session model) and renders one line; only a
running state animates, with a timer that stops when work ends. In a narrow terminal (80 columns)
the line is fitted, never wrapped or cut blindly: the state (with its error) and `^Q quit` always
show, the counts and the usage meter shorten or drop by priority, and the other key hints drop by
theirs (`KeyHint`): the lowest first, and what matters depends on what the agent is doing (while it
works `^C cancel` is pinned like `^Q quit`, so it outranks `⏎ send` and the counts; once it stopped,
`^R restart` is). A hint shows only while its key does what it says: `^C cancel` while the agent works,
`^R restart` once it stopped. The hints keep their order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

import msgspec
from rich.cells import cell_len
from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.sanitize import plain
from acp_tui.ui.themes.markdown_styles import rich_colour_name
from acp_tui.ui.widgets.icons import GLYPHS

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

#: How each known stop reason reads after work ended (`end_turn` says nothing).
STOP_REASON_TEXT: Final = {
    "cancelled": "cancelled",
    "refusal": "the agent refused",
    "max_tokens": "stopped: token limit",
    "max_turn_requests": "stopped: request limit",
    "error": "error",
}


#: What the agent is doing, as far as the key hints care: each mode may rank the hints differently.
HintMode = Literal["idle", "busy", "stopped"]


#: A key hint with this priority (or more) in a mode is kept like the state: the bar reserves its room
#: before the counts, and it never drops however narrow the terminal (`^Q quit`, the way out).
PINNED: Final = 100


class KeyHint(msgspec.Struct, frozen=True):
    """One key hint, `^C cancel`: when the bar is narrow the hint with the lowest priority drops first
    (of two equal, the later one). `busy` and `stopped` are its priority while the agent works and once
    it stopped, when they differ from `priority`; from `PINNED` up it never drops."""

    key: str
    label: str
    priority: int = 0
    busy: int | None = None
    stopped: int | None = None
    #: the modes in which the key does what the hint says (`^C cancel` only while the agent works, `^R
    #: restart` only once it stopped); in the others the hint is not shown at all
    modes: tuple[HintMode, ...] = ("idle", "busy", "stopped")

    @property
    def text(self) -> str:
        return f"{self.key} {self.label}"

    def rank(self, mode: HintMode) -> int:
        """The priority in `mode`."""
        override = self.busy if mode == "busy" else self.stopped if mode == "stopped" else None
        return self.priority if override is None else override

    def pinned(self, mode: HintMode) -> bool:
        """Kept in `mode` whatever the width?"""
        return self.rank(mode) >= PINNED


class StatusValues(msgspec.Struct, frozen=True):
    """Everything the status bar shows; the screen replaces it whole on any change."""

    state: str = "starting"
    busy: bool = False
    stop_reason: str | None = None
    error_message: str | None = None
    cancelling: bool = False
    waiting_for_user: int = 0
    queued: int = 0
    #: background jobs the agent lists (v2 `state_update.background`); the tray above shows them
    jobs: int = 0
    used: int | None = None
    size: int | None = None
    cost: str | None = None
    #: the plan's windows (`5h 42% · 7d 80% ⚠`), the worst alone for a narrow bar, and whether one is near
    limits: str | None = None
    limits_short: str | None = None
    limits_warn: bool = False
    problems: int = 0
    stderr_unseen: int = 0
    waiting_label: str | None = None  # e.g. "waiting for initialize 12s"
    hints: tuple[KeyHint, ...] = ()

    @property
    def mode(self) -> HintMode:
        """Which key hints matter most now (see `KeyHint`)."""
        if self.state == "stopped":
            return "stopped"
        if self.busy or self.cancelling or self.waiting_for_user:
            return "busy"
        return "idle"


def format_tokens(count: int) -> str:
    """12,345 → "12.3k"; 1,234,567 → "1.2M"."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1_000:
        return f"{count / 1_000:.1f}k"
    return str(count)


def format_cost(amount: float, currency: str) -> str:
    """`$0.045` for USD, `0.05 EUR` otherwise."""
    symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency.upper())
    digits = 3 if amount < 1 else 2
    return f"{symbol}{amount:.{digits}f}" if symbol else f"{amount:.{digits}f} {plain(currency)}"


class InfoPart(msgspec.Struct, frozen=True):
    """One count or meter in the middle of the bar; `short` is shown when `text` does not fit."""

    name: str
    text: str
    short: str | None = None
    separator: str = "  · "
    #: drawn in the theme's warning colour (a plan window near its limit)
    warn: bool = False


#: Which middle parts stay longest when the bar is narrow (first stays longest): what needs the user
#: (queued prompts, problems, unseen stderr) before the usage meter and its cost. The state and the
#: pinned hints come before all of them; the other key hints after.
INFO_PRIORITY: Final = ("queued", "jobs", "problems", "stderr", "limits", "usage", "cost")
#: Hints pinned when given as text (`fit_hints("… · ^Q quit", …)`): the way out.
PINNED_HINTS: Final = frozenset({"^Q quit"})
HINT_SEPARATOR: Final = " · "
#: Cells kept between the left part and the hints.
GAP: Final = 2


def parse_hints(text: str) -> tuple[KeyHint, ...]:
    """`"⏎ send · ^Q quit"` as key hints ranked by their order (the first stays longest; `PINNED_HINTS` never drop)."""
    parts = text.split(HINT_SEPARATOR) if text else []
    hints = []
    for index, part in enumerate(parts):
        key, _, label = part.partition(" ")
        hints.append(KeyHint(key, label, PINNED if part in PINNED_HINTS else len(parts) - index))
    return tuple(hints)


def fit_hints(hints: str | Sequence[KeyHint], room: int, mode: HintMode = "idle") -> str:
    """The key hints that fit in `room` cells, in their order: whole hints drop, the lowest priority in
    `mode` first, except the pinned ones (`^Q quit`), which stay even when they do not fit (the status
    bar reserves their room before anything else)."""
    shown = [hint for hint in (parse_hints(hints) if isinstance(hints, str) else hints) if mode in hint.modes]
    droppable = sorted(
        (hint for hint in shown if not hint.pinned(mode)), key=lambda hint: (hint.rank(mode), -shown.index(hint))
    )
    while droppable and cell_len(HINT_SEPARATOR.join(hint.text for hint in shown)) > room:
        shown.remove(droppable.pop(0))
    return HINT_SEPARATOR.join(hint.text for hint in shown)


class StatusBar(Widget):
    """One line at the bottom: state · usage · problems · stderr · key hints."""

    DEFAULT_CSS = """
    StatusBar {
        dock: bottom;
        height: 1;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._values = StatusValues()
        self._frame = 0
        self._timer: Timer | None = None

    @property
    def values(self) -> StatusValues:
        return self._values

    def update_values(self, **changes: object) -> None:
        """Change some fields; the spinner runs only while the agent is busy."""
        values = msgspec.structs.replace(self._values, **changes)
        if values == self._values:
            return
        self._values = values
        animate = (values.busy or values.waiting_label is not None) and not values.waiting_for_user
        if animate and self._timer is None and self.is_mounted:
            self._timer = self.set_interval(1 / 10, self._tick)
        elif not animate and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.refresh()

    def on_mount(self) -> None:
        self.update_values()
        if (self._values.busy or self._values.waiting_label) and self._timer is None:
            self._timer = self.set_interval(1 / 10, self._tick)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self.refresh()

    def state_text(self) -> Text:
        """The left part: the foreground state in words."""
        v = self._values
        variables = self.app.theme_variables if self.is_mounted else {}
        styles = {name: rich_colour_name(value) for name, value in variables.items()}  # ANSI themes too
        warning = styles.get("warning", "yellow")
        error = styles.get("error", "red")
        accent = styles.get("primary", "blue")
        spinner = SPINNER[self._frame]
        if v.waiting_label:
            return Text(f"{spinner} {v.waiting_label}", style=accent)
        if v.waiting_for_user:
            count = f" ({v.waiting_for_user})" if v.waiting_for_user > 1 else ""
            return Text(f"⚠ waiting for you{count}", style=f"bold {warning}")
        if v.cancelling:
            return Text(f"{spinner} cancelling…", style=warning)
        if v.state == "requires_action":
            return Text("⚠ waiting for you", style=f"bold {warning}")
        if v.busy:
            label = "working…" if v.state in ("running", "unknown") else f"{plain(v.state)}…"
            return Text(f"{spinner} {label}", style=accent)
        if v.state == "starting":
            return Text("starting…")
        if v.state == "stopped":
            return Text("■ agent stopped", style=f"bold {error}")
        reason = v.stop_reason
        if reason is None or reason == "end_turn":
            return Text("● ready", style=styles.get("success", "green"))
        if reason == "error":
            message = plain(v.error_message or "unknown error")
            return Text(f"✗ error: {message}", style=error)
        label = STOP_REASON_TEXT.get(reason, f"stopped ({plain(reason)})")
        if reason == "cancelled":
            return Text(f"{GLYPHS['cancelled']} {label}")
        return Text(f"{GLYPHS['attention']} {label}", style=warning)

    def info_parts(self) -> list[InfoPart]:
        """The middle of the bar, in the order shown."""
        v = self._values
        parts: list[InfoPart] = []
        if v.queued:
            parts.append(InfoPart("queued", f"{v.queued} queued"))
        if v.jobs:
            parts.append(InfoPart("jobs", f"{v.jobs} {'job' if v.jobs == 1 else 'jobs'}"))
        if v.used is not None and v.size:
            percent = f"{100 * v.used / v.size:.0f}%"
            parts.append(InfoPart("usage", f"{format_tokens(v.used)} / {format_tokens(v.size)} ({percent})", percent))
        if v.cost:
            parts.append(InfoPart("cost", v.cost, separator=" · "))  # reads as part of the usage
        if v.limits:
            parts.append(InfoPart("limits", v.limits, v.limits_short, warn=v.limits_warn))
        if v.problems:
            noun = "problem" if v.problems == 1 else "problems"
            parts.append(InfoPart("problems", f"⚑ {v.problems} protocol {noun}", f"⚑ {v.problems}"))
        if v.stderr_unseen:
            parts.append(InfoPart("stderr", f"stderr +{v.stderr_unseen}"))
        return parts

    def render(self) -> Text:
        """state · info · hints, fitted to the width (see `INFO_PRIORITY` and `KeyHint`)."""
        v = self._values
        width = self.content_size.width or 160
        pinned = HINT_SEPARATOR.join(hint.text for hint in v.hints if hint.pinned(v.mode) and v.mode in hint.modes)
        reserved = cell_len(pinned) + GAP if pinned else 0
        state = self.state_text()
        if state.cell_len > width - reserved:  # a long error message is cut, never the way out
            state.truncate(max(width - reserved, 1), overflow="ellipsis")
        line = Text()
        line.append_text(state)  # its colour stays its own (a Text's base style would colour the whole line)
        parts = self.info_parts()
        shown: dict[int, str] = {}
        room = width - reserved - line.cell_len
        for index in sorted(range(len(parts)), key=lambda i: INFO_PRIORITY.index(parts[i].name)):
            part = parts[index]
            for text in (part.text, part.short):
                if text is not None and cell_len(part.separator + text) <= room:
                    shown[index] = part.separator + text
                    room -= cell_len(shown[index])
                    break
        warning = rich_colour_name(self.app.theme_variables.get("warning", "yellow")) if self.is_mounted else "yellow"
        for index in sorted(shown):
            separator = parts[index].separator
            line.append(separator)
            line.append(shown[index][len(separator) :], style=warning if parts[index].warn else "")
        hints = fit_hints(v.hints, width - line.cell_len - GAP, v.mode)
        if hints:
            line.append(" " * max(GAP, width - line.cell_len - cell_len(hints)))
            line.append(hints)
        line.no_wrap = True
        line.overflow = "ellipsis"
        return line
