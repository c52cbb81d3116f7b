"""The last lines of a finished command's output, shown under its collapsed tool card's title.

A command the agent ran is judged by its output, so a finished execute card does not hide it behind
Enter: it shows the newest `TAIL_LINES` lines (`FAILED_TAIL_LINES` when it failed or exited non-zero,
where the error is usually at the end), each behind a gutter, under a "… N earlier lines" row when there
is more (Enter opens the card with everything). Blank lines are skipped: the rows are few. The output is the card's text content (a fence around it
removed) or the lines of the terminal it shows (their colours kept). Pure: a `Tail` is plain Rich
`Text`s; the card draws them.
"""

from __future__ import annotations

from typing import Final

import msgspec
from rich.text import Text

from acp_tui.sanitize import multiline

__all__ = ["FAILED_TAIL_LINES", "TAIL_LINES", "Tail", "tail_of_lines", "tail_of_text"]

#: Output lines under a finished command's title.
TAIL_LINES: Final = 3
#: ... and when it failed (non-zero exit, a signal, or a failed call).
FAILED_TAIL_LINES: Final = 10


class Tail(msgspec.Struct, frozen=True):
    """The newest output lines (oldest first), how many earlier ones are not shown, and whether it failed."""

    lines: tuple[Text, ...]
    hidden: int
    failed: bool

    def rows(self, width: int) -> list[Text]:
        """The rows under the title at `width` cells: `  … N earlier lines`, then `  │ line` (cut with `…`)."""
        rows: list[Text] = []
        if self.hidden:
            noun = "line" if self.hidden == 1 else "lines"
            rows.append(Text(f"  … {self.hidden:,} earlier {noun} (Enter)", style="dim italic"))
        room = max(1, width - 4)
        for line in self.lines:
            body = line.copy()
            body.expand_tabs(8)
            body.truncate(room, overflow="ellipsis")
            row = Text("  ")
            row.append("│ ", style="dim")
            row.append_text(body)
            rows.append(row)
        return rows


def tail_of_lines(lines: list[Text], failed: bool, earlier: int = 0) -> Tail | None:
    """The tail of already decoded lines (a terminal's); `earlier` counts lines before `lines`.
    `None` when there is no output (blank lines at the end do not count). A row saying one line is hidden
    would take the row that line needs, so one line more than the limit is shown whole."""
    limit = FAILED_TAIL_LINES if failed else TAIL_LINES
    found: list[int] = []  # indices of non-blank lines, newest first
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].plain.strip():
            found.append(index)
            if len(found) == limit + 2:
                break
    if not found:
        return None
    if len(found) > limit + 1 or (len(found) == limit + 1 and earlier):
        found = found[:limit]
    first = found[-1]
    before = earlier + first if any(line.plain.strip() for line in lines[:first]) or earlier else 0
    return Tail(tuple(lines[index] for index in reversed(found)), before, failed)


def tail_of_text(text: str, failed: bool) -> Tail | None:
    """The tail of a text result (agent data: sanitized, shown as plain text)."""
    body = multiline(text).rstrip()
    if not body:
        return None
    limit = FAILED_TAIL_LINES if failed else TAIL_LINES
    window = body.rsplit("\n", limit * 4)  # a long output is split only near its end
    tail = tail_of_lines([Text(line) for line in window], failed, body.count("\n") + 1 - len(window))
    return tail
