"""The last lines of a finished command's output, shown under its collapsed tool card's title.

A command the agent ran is judged by its output, so a finished execute card does not hide it behind
Enter: it shows the newest `TAIL_LINES` lines (`FAILED_TAIL_LINES` when it failed or exited non-zero,
where the error is usually at the end), each behind a gutter, under a "… N earlier lines" row when there
is more (Enter opens the card with everything). Blank lines are skipped: the rows are few. The output is the card's text content (a fence around it
removed) or the lines of the terminal it shows (their colours kept). Pure: a `Tail` is plain Rich
`Text`s; the card draws them.

Some agents send the model's view of a shell call as its content: Gemini CLI's shell tool, and Qwen Code's
(a fork of it), wrap what the command printed in labelled lines, `Command: …`, `Directory: …` and
`Output: …` (or `Stdout: …` and `Stderr: …`) before it and `Error: (none)`, `Exit Code: 0`, `Signal: (none)`,
`Background PIDs: (none)` and `Process Group PGID: 12345` after it (newer versions only the lines that say
something). The last three lines would then be that trailer, not the output. `command_report` takes the
block apart, conservatively: only a trailer of those labels, in that order, with values of their shape, at
the very end (and then the header at the very start); anything else is the command's own output.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec
from rich.text import Text

from acp_tui.sanitize import multiline

__all__ = [
    "FAILED_TAIL_LINES",
    "TAIL_LINES",
    "CommandReport",
    "Tail",
    "command_report",
    "tail_of_lines",
    "tail_of_text",
]

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


#: The trailer's labels in the order the agents write them, each with the shape of its value.
_TRAILER: Final = (
    ("Error", re.compile(r".*")),
    ("Exit Code", re.compile(r"-?\d+|\(none\)")),
    ("Signal", re.compile(r"-?\d+|SIG[A-Z0-9]+|\(none\)")),
    ("Background PIDs", re.compile(r"\(none\)|\d+(, \d+)*")),
    ("Process Group PGID", re.compile(r"\d+|\(none\)")),
    ("PGID", re.compile(r"\d+|\(none\)")),
)
#: Labels that only a shell tool's report ends with (an output's own last line may well say `Error: …`).
_REPORT_ONLY: Final = frozenset({"Exit Code", "Signal", "Background PIDs", "Process Group PGID", "PGID"})
_EMPTY: Final = "(empty)"
#: Lines looked at for a trailer: its labels and blank lines after them.
_TRAILER_ROOM: Final = 16


class CommandReport(msgspec.Struct, frozen=True):
    """A shell tool's report taken apart: what the command printed, and how it ended where it says."""

    output: str
    exit_code: int | None = None
    signal: str | None = None

    @property
    def failed(self) -> bool:
        """A non-zero exit or a signal: the tail shows more lines, marked."""
        return bool(self.exit_code) or self.signal is not None

    def status_text(self) -> str:
        """`exit 0`, `exit 2`, `killed by SIGTERM`, `killed by signal 15`, or "" when it does not say."""
        if self.signal is not None:
            return f"killed by {self.signal}" if self.signal.startswith("SIG") else f"killed by signal {self.signal}"
        return "" if self.exit_code is None else f"exit {self.exit_code}"


def _trailer(lines: list[str]) -> tuple[int, dict[str, str]] | None:
    """Where the trailer starts in `lines` (blank lines at the end ignored) and its values by label."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    found: dict[str, str] = {}
    order = len(_TRAILER)  # labels are read backwards, so each must come before the one read last
    start = end
    while start:
        line = lines[start - 1]
        for position, (label, shape) in enumerate(_TRAILER[:order]):
            prefix = f"{label}: "
            if line.startswith(prefix) and shape.fullmatch(line[len(prefix) :].strip()):
                found[label] = line[len(prefix) :].strip()
                order = position
                start -= 1
                break
        else:
            break
    if not found:
        return None
    return start, found


def _header_end(lines: list[str]) -> int | None:
    """The index of the `Output: …`/`Stdout: …` line that opens the output (after `Command:`/`Directory:`)."""
    if lines and lines[0].startswith(("Output: ", "Stdout: ")):
        return 0
    if not lines or not lines[0].startswith("Command: "):
        return None
    for index in range(1, len(lines) - 1):  # a command may span lines; `Directory:` ends it
        if lines[index].startswith("Directory: ") and lines[index + 1].startswith(("Output: ", "Stdout: ")):
            return index + 1
    return None


def command_report(text: str) -> CommandReport | None:
    """`text` as a shell tool's labelled report, or `None` when it is not one (then it is all output)."""
    last = text.rsplit("\n", _TRAILER_ROOM)  # the trailer is a few lines at the end: a long output is not split
    trailer = _trailer(last)
    if trailer is None:
        return None
    lines = text.split("\n")
    start, found = trailer[0] + len(lines) - len(last), trailer[1]
    opening = _header_end(lines[:start])
    said = _REPORT_ONLY.intersection(found)
    pgid = bool({"PGID", "Process Group PGID"} & said)
    if not (pgid or len(said) >= 2 or (said and opening is not None)):
        return None  # `Error: …` (or one lone label) closing a command's own output is output
    body = lines[opening if opening is not None else 0 : start]
    if opening is not None:
        label, body[0] = body[0].split(": ", 1)
        empties = [0]
        if label == "Stdout":
            for index in range(len(body) - 1, 0, -1):  # the stderr section follows the stdout one
                if body[index].startswith("Stderr: "):
                    body[index] = body[index][len("Stderr: ") :]
                    empties.append(index)
                    break
        for index in reversed(empties):  # `(empty)` stands for no output
            if body[index].strip() == _EMPTY:
                del body[index]
    code = found.get("Exit Code", "(none)")
    signal = found.get("Signal", "(none)")
    return CommandReport(
        "\n".join(body),
        exit_code=None if code == "(none)" else int(code),
        signal=None if signal == "(none)" else signal,
    )
