"""The one line of a tool call card: status glyph, kind icon, title, path, result, arrow, and the output tail
of a finished command under it (docs/protocol.md §6).

A part composed into `ToolCallCard` (tool_call.py): it reads the card through `LineHost` and keeps what the
line needs between frames (the wrapped rows for one width, the rows of the tail's gutter, the diff counts),
so the card itself only says when the line changed (`forget`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Protocol

from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.widget import Widget

from acp_tui.path_text import ViewContext
from acp_tui.protocol.v2 import Diff, TextContent, ToolContent
from acp_tui.sanitize import escape_controls, multiline, plain
from acp_tui.session.model import ToolCall
from acp_tui.ui.themes import theme_colour
from acp_tui.ui.timeline.diff_view import diff_stats
from acp_tui.ui.timeline.output_tail import CommandReport, Tail, command_report, tail_of_text
from acp_tui.ui.widgets.exit_status import elapsed_text, exit_text, span_text
from acp_tui.ui.widgets.icons import GLYPHS, Pill, kind_icon, status_pill

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["CardLine", "LineHost", "pill_of", "status_style"]

#: A text result this short (one line) is the card's result itself; longer ones are counted.
_SHORT_RESULT: Final = 48
#: A call other than a command shows how long it ran from this many seconds (a slow fetch, a long search).
_WORTH_TIMING: Final = 1.0

#: Status glyph colours per variant (theme variables). They are read from the theme's variables (not
#: CSS) so a card needs no styled node for its glyph.
_STATUS_COLOURS: Final[dict[str, str]] = {
    "pending": "text-muted",
    "running": "warning",
    "success": "success",
    "error": "error",
    "cancelled": "text-muted",
    "cancelling": "warning",
    "unknown": "secondary",
}
_status_styles: dict[tuple[str, str, str], Style] = {}


def status_style(variables: dict[str, str], background: Color, variant: str) -> Style:
    """The Rich style of a status glyph of `variant` drawn over `background` (cached per theme)."""
    value = variables.get(_STATUS_COLOURS.get(variant, "secondary"), "auto 60%")
    key = (value, background.hex, variant)
    style = _status_styles.get(key)
    if style is None:
        style = Style(color=theme_colour(value, background).rich_color, bold=variant == "error")
        _status_styles[key] = style
    return style


def pill_of(call: ToolCall) -> Pill:
    """The status pill, with the display-only flags (cancelling, interrupted, rejected) taken into account."""
    return status_pill(call.status, call.cancelling, call.interrupted, call.rejected)


def _names_word(title: str, word: str) -> bool:
    """Does the title already say `word` (the tool's name), as a word of its own, in any case?"""
    return bool(word) and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", title, re.IGNORECASE) is not None


def _names_path(title: str, path: str) -> bool:
    """Does the title already name this path (whole, or by a word that is its end: `notes/a.txt`)?"""
    if not path:
        return False
    if path in title:
        return True
    for word in title.split():
        word = word.strip("`'\"()[]{},:;")
        if ("/" in word or "." in word) and path.endswith("/" + word.removeprefix("./")):
            return True
    return False


def strip_fence(text: str) -> str:
    """A text result without the Markdown fence around it (a read tool's "```python … ```")."""
    lines = text.strip("\n").split("\n")
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        lines = lines[1:-1]
    return "\n".join(lines)


class TerminalSlotLike(Protocol):
    """A terminal slot of the card: the view it shows, once attached."""

    @property
    def view(self) -> Widget | None: ...


class LineHost(Protocol):
    """What the line reads from its card."""

    @property
    def call(self) -> ToolCall: ...
    @property
    def context(self) -> ViewContext: ...
    @property
    def app(self) -> App[object]: ...
    @property
    def expanded(self) -> bool: ...
    @property
    def slots(self) -> Sequence[TerminalSlotLike]: ...
    def has_details(self) -> bool: ...
    def took(self) -> float | None: ...


class CardLine:
    """The card's line, wrapped to a width and drawn with the status glyph coloured from the theme."""

    def __init__(self, card: LineHost) -> None:
        self._card = card
        self._cache: tuple[int, list[Text]] | None = None
        #: whether the arrow was drawn (there is a body to open)
        self.details_drawn = False
        self._tail_rows: tuple[int, int, bool] = (0, 0, False)  # output tail rows in the layout: first, count, failed
        self._stats: dict[int, tuple[Diff, tuple[int, int] | None]] = {}  # by diff, kept with it

    def forget(self) -> None:
        """The title, arrow, pill or result changed: wrap the line again on the next draw."""
        self._cache = None

    def recount(self) -> None:
        """The content was replaced: count its diffs again when the line next shows them."""
        self._stats.clear()

    def layout(self, width: int) -> list[Text]:
        """The line at `width` cells, wrapped under the title when it does not fit (unstyled glyph,
        so measuring needs no styles)."""
        cached = self._cache
        if cached is not None and cached[0] == width:
            return cached[1]
        self.details_drawn = self._card.has_details()
        glyph = pill_of(self._card.call).text.split(" ", 1)[0]
        lines = []
        for index, line in enumerate(self.title_text().wrap(self._card.app.console, max(1, width - 2))):
            row = Text(f"{glyph} " if index == 0 else "  ")
            row.append_text(line)
            lines.append(row)
        tail = self.output_tail()
        if tail is not None:
            self._tail_rows = (len(lines) + (1 if tail.hidden else 0), len(tail.lines), tail.failed)  # the gutter rows
            lines.extend(tail.rows(width))
        else:
            self._tail_rows = (0, 0, False)
        self._cache = (width, lines)
        return lines

    def height(self, width: int) -> int:
        return len(self.layout(width)) if width > 0 else 1

    def render(self, width: int, variables: dict[str, str], background: Color) -> Text:
        """The line with the status glyph coloured from the theme."""
        rows = self.layout(width)
        text = Text("\n").join(rows)
        variant = pill_of(self._card.call).variant
        text.stylize(status_style(variables, background, variant), 0, 1)
        first, count, failed = self._tail_rows
        if failed:  # a failed command's output is marked by its gutter, in the error colour
            error = status_style(variables, background, "error")
            offset = sum(len(row) + 1 for row in rows[:first])
            for row in rows[first : first + count]:
                text.stylize(error, offset + 2, offset + 3)
                offset += len(row) + 1
        return text

    def title_text(self) -> Text:
        """Kind icon, title, path, result and arrow (everything after the status glyph)."""
        call = self._card.call
        text = Text()
        text.append(kind_icon(call.kind), style="dim")
        text.append(" ")
        title = self._shown_title()
        if title:
            text.append(title)
        else:
            text.append(f"tool call {plain(call.id)}", style="italic")
        if call.name and not _names_word(title, plain(call.name)):
            text.append(f" · {plain(call.name)}", style="dim")  # `echo hi · Bash`, not `Write a.txt · Write`
        path = self._path_text(title)
        if path:
            text.append(f" · {path}", style="dim")
        result = self.result_text()
        if result:
            text.append(f" · {result}", style="dim")
        if self._card.has_details():
            text.append(f" {GLYPHS['open'] if self._card.expanded else GLYPHS['closed']}", style="dim")
        return text

    def _diff_stats(self, diff: Diff) -> tuple[int, int] | None:
        """(added, removed) of one of this call's diffs, counted once (a patch can be long)."""
        cached = self._stats.get(id(diff))
        if cached is None or cached[0] is not diff:
            cached = (diff, diff_stats(diff))
            self._stats[id(diff)] = cached
        return cached[1]

    def _shown_title(self) -> str:
        """The title as shown: an `execute` call's title is its command line, so a control character in it is
        written out (`\x1b`, `\t`) rather than dropped, and what is shown is what runs."""
        call = self._card.call
        if not call.title:
            return ""
        return self._card.context.text(escape_controls(call.title) if call.kind == "execute" else call.title)

    def _path_text(self, title: str) -> str:
        """The path the call works on, once: nothing when the title already names it."""
        locations = self._card.call.locations
        if not locations:
            return ""
        first = locations[0]
        path = self._card.context.path(first.path)
        more = f" +{len(locations) - 1}" if len(locations) > 1 else ""
        if _names_path(title, path) or _names_path(title, plain(first.path)):
            return more.strip()
        line = f":{first.line}" if isinstance(first.line, int) else ""
        return f"{path}{line}{more}"

    def result_text(self) -> str:
        """The short result after the title: the status in words unless the call completed or runs,
        else what it did (`+12 −3`, `exit 0 · 1.2 s`, `12 lines`, or its one short line of text)."""
        call = self._card.call
        pill = pill_of(call)
        if pill.variant == "running":
            return ""
        if pill.variant != "success":
            word = pill.text.split(" ", 1)[1]
            took = self._duration() if pill.variant == "error" and call.status == "failed" else ""
            return f"{word} · {took}" if took else word
        parts: list[str] = []
        diffs = [item for item in call.content if isinstance(item, Diff)]
        if diffs:
            added = removed = files = 0
            for diff in diffs:
                files += len(diff.changes)
                stats = self._diff_stats(diff)
                if stats is not None:
                    added, removed = added + stats[0], removed + stats[1]
            if files > 1:
                parts.append(f"{files} files")
            if added or removed:
                parts.append(f"+{added} −{removed}")
        timed = False
        for slot in self._card.slots:
            terminal = getattr(slot.view, "terminal", None)
            if terminal is not None:
                status = exit_text(terminal)[0]
                elapsed = elapsed_text(terminal)
                parts.append(f"{status} · {elapsed}" if elapsed else status)
                timed = timed or bool(elapsed)
        report = self.command_report()
        if report is not None and report.status_text():
            parts.append(report.status_text())  # the tail shows the output; how it ended goes here
        if not parts and not self._shows_text_tail():
            texts = self._content_text()
            if texts.strip():
                body = strip_fence(multiline(texts))
                lines = body.split("\n")
                first = plain(lines[0]).strip()
                if len(lines) == 1 and len(first) <= _SHORT_RESULT:
                    parts.append(first)
                else:
                    parts.append(f"{len(lines)} lines")
        if not timed and (took := self._duration()):
            parts.append(took)
        return " · ".join(parts)

    def _duration(self) -> str:
        """How long the call ran, as the timeline measured it: always for a command (`exit 0 · 1.2 s`), for
        other calls only when they were slow enough to wonder about (a read's 0.0 s is noise)."""
        took = self._card.took()
        if took is None:
            return ""
        command = self._card.call.kind == "execute" or bool(self._card.slots)
        return span_text(took) if command or took >= _WORTH_TIMING else ""

    def _content_text(self) -> str:
        """The call's text content items, joined (a command's output, a read tool's file)."""
        return "".join(
            item.content.text
            for item in self._card.call.content
            if isinstance(item, ToolContent) and isinstance(item.content, TextContent)
        )

    def command_report(self) -> CommandReport | None:
        """A command's text content as a shell tool's labelled report (Gemini CLI, Qwen Code), if it is one."""
        call = self._card.call
        if call.kind != "execute" or self._card.slots or not call.finished:
            return None
        text = self._content_text()
        if "\n" not in text:  # a report has a trailer line at least
            return None
        return command_report(strip_fence(multiline(text)))

    def _shows_tail(self) -> bool:
        """A finished call, closed: its command output (if any) shows under the line."""
        return self._card.call.finished and not self._card.expanded

    def _shows_text_tail(self) -> bool:
        """Does the tail come from the text content (a command without a terminal)?"""
        return self._shows_tail() and self._card.call.kind == "execute" and not self._card.slots

    def output_tail(self) -> Tail | None:
        """The last lines of a finished command's output, shown under its closed card's line: those of
        the terminal it shows, else (an `execute` call) of its text content."""
        if not self._shows_tail():
            return None
        failed = self._card.call.status == "failed"
        for slot in reversed(self._card.slots):
            tail_of = getattr(slot.view, "output_tail", None)
            tail: Tail | None = tail_of(failed) if callable(tail_of) else None
            if tail is not None:
                return tail
        if not self._shows_text_tail():
            return None
        report = self.command_report()
        if report is not None:  # what the command printed, not the agent's lines around it
            return tail_of_text(report.output, failed or report.failed)
        return tail_of_text(strip_fence(self._content_text()), failed)
