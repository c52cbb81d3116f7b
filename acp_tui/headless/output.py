"""What print mode writes: the agent's answer on stdout, the rest in a compact form on stderr.

Agent text is data (docs/architecture.md, "Attacker mindset"): every escape sequence and control character
is removed before it reaches a terminal (`sanitize.multiline`), in every format; JSON lines escape C1
controls too. A reader that goes away (`| head`) closes the sink quietly: `closed` says so, nothing raises.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, Literal, TextIO, TypeAlias

import msgspec

from acp_tui.sanitize import multiline, plain
from acp_tui.session.changes import (
    Change,
    ContentReplaced,
    EntityAdded,
    EntityChanged,
    InfoChanged,
    StateChanged,
    SubmissionChanged,
    TextAppended,
    UsageChanged,
)
from acp_tui.session.model import (
    AGENT_MESSAGE,
    AGENT_THOUGHT,
    FINISHED_TOOL_STATUSES,
    TOOL_CALL,
    USER_MESSAGE,
    EntityKey,
    Message,
    SessionState,
    ToolCall,
)

OutputFormat: TypeAlias = Literal["text", "markdown", "jsonl", "json"]
OUTPUT_CHOICES: tuple[OutputFormat, ...] = ("text", "markdown", "jsonl", "json")

#: one thought on stderr is cut to this many characters (the model has it whole; jsonl carries it whole)
THOUGHT_LIMIT = 300


class Sink:
    """One output stream; a closed pipe marks it `closed` (and points the descriptor at /dev/null, so the
    interpreter's last flush cannot fail either) instead of raising."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.closed = False

    def write(self, text: str) -> None:
        if self.closed or not text:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):
            self.closed = True
            _silence(self.stream)

    def isatty(self) -> bool:
        try:
            return self.stream.isatty()
        except ValueError:
            return False


def _silence(stream: TextIO) -> None:
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass


def colour_allowed(sink: Sink, environ: Mapping[str, str]) -> bool:
    """Colour only on a terminal, and never with `NO_COLOR` set (no-color.org) or `TERM=dumb`."""
    return sink.isatty() and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"


# -- markdown as plain text ----------------------------------------------------------------------------

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_QUOTE = re.compile(r"^\s{0,3}>\s?")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])")
_CODE = re.compile(r"(`+)(.+?)\1")


class PlainMarkdown:
    """Markdown to plain text, a line at a time (so it streams): fences dropped and code kept as written,
    headings' and quotes' marks, emphasis and inline-code marks removed, links as `text (url)`."""

    def __init__(self) -> None:
        self._in_code = False
        self._pending = ""

    def feed(self, text: str) -> str:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        return "".join(plain + "\n" for plain in map(self._line, lines) if plain is not None)

    def finish(self) -> str:
        rest, self._pending = self._pending, ""
        return (self._line(rest) or "") if rest else ""

    def _line(self, line: str) -> str | None:
        """The line as plain text; None for a fence line, which is left out whole."""
        if _FENCE.match(line):
            self._in_code = not self._in_code
            return None
        if self._in_code:
            return line
        line = _HEADING.sub("", line)
        line = _QUOTE.sub("", line)
        line = _CODE.sub(lambda m: m.group(2), line)
        line = _IMAGE_OR_LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2) else m.group(1), line)
        line = _STRONG.sub(lambda m: m.group(2), line)
        return _EMPHASIS.sub(lambda m: m.group(1), line)


# -- stdout ------------------------------------------------------------------------------------------


class AnswerWriter:
    """The agent's message text on stdout as it streams: plain text or the markdown as sent.

    A chunk is written as it comes; a message the model created or replaced whole (its first chunk, a v2
    `agent_message`) is read from the model, and only what was not written yet goes out.
    """

    def __init__(self, sink: Sink, fmt: Literal["text", "markdown"]) -> None:
        self.sink = sink
        self._plain = PlainMarkdown() if fmt == "text" else None
        self._written: dict[EntityKey, int] = {}  # characters of each message's raw text written so far
        self._last_key: EntityKey | None = None
        self._ends_with_newline = True
        self._wrote = False
        #: our prompt is in the timeline: messages from now on answer it (one the agent sent on its own
        #: before, such as a welcome after `session/new`, is not the answer and is never written)
        self._prompted = False
        self._ignored: set[EntityKey] = set()

    def changes(self, changes: list[Change], state: SessionState) -> None:
        stale: EntityKey | None = None  # a message to read whole from the model before the next change
        for change in changes:
            if (isinstance(change, EntityAdded) and change.key[0] == USER_MESSAGE) or (
                isinstance(change, StateChanged) and change.busy and state.submissions
            ):
                self._prompted = True  # the prompt was accepted, or the agent works while it is pending
            if not isinstance(change, (EntityAdded, ContentReplaced, TextAppended)) or change.key[0] != AGENT_MESSAGE:
                continue
            if change.key in self._ignored or (not self._prompted and change.key not in self._written):
                self._ignored.add(change.key)
                continue
            if stale is not None and stale != change.key:
                self._catch_up(stale, state)
                stale = None
            if isinstance(change, TextAppended) and stale is None and change.key in self._written:
                self._written[change.key] += len(change.text)
                self._text(change.key, change.text)
            else:
                stale = change.key
        if stale is not None:
            self._catch_up(stale, state)

    def _catch_up(self, key: EntityKey, state: SessionState) -> None:
        message = state.message(AGENT_MESSAGE, key[1])
        if message is None:
            return
        text = message.text
        done = self._written.get(key, 0)
        self._written[key] = len(text)
        if len(text) >= done:
            self._text(key, text[done:])  # a replacement that rewrote written text cannot be unwritten

    def _text(self, key: EntityKey, text: str) -> None:
        if self._last_key is not None and key != self._last_key:
            self._out(self._finish() + ("" if self._ends_with_newline else "\n") + "\n")  # a new message
        self._last_key = key
        clean = multiline(text)
        self._out(self._plain.feed(clean) if self._plain is not None else clean)

    def _finish(self) -> str:
        return self._plain.finish() if self._plain is not None else ""

    def _out(self, text: str) -> None:
        if text:
            self._wrote = True
            self._ends_with_newline = text.endswith("\n")
            self.sink.write(text)

    def close(self) -> None:
        """The turn is over: the last line ends with a newline."""
        self._out(self._finish())
        if self._wrote and not self._ends_with_newline:
            self._out("\n")


_C1 = re.compile("[\x7f-\x9f\u2028\u2029]")


def json_line(value: object) -> str:
    """One JSON line, with DEL, C1 controls and line separators escaped (JSON escapes only C0 itself)."""
    text = msgspec.json.encode(value).decode("utf-8")
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def usage_record(state: SessionState) -> dict[str, Any] | None:
    """The context window's use as the agent last reported it (`usage_update`), or None."""
    usage = state.usage
    if usage is None:
        return None
    return {"used": usage.used, "size": usage.size}


def cost_record(state: SessionState) -> dict[str, Any] | None:
    """The session's cost so far as the agent reported it, or None."""
    cost = state.usage.cost if state.usage is not None else None
    return None if cost is None else {"amount": cost.amount, "currency": cost.currency}


def tokens_record(state: SessionState) -> dict[str, Any] | None:
    """The last turn's tokens where the agent reports them (codex-acp's `_meta.quota`), or None."""
    tokens = state.turn_tokens
    if tokens is None or tokens.total is None:
        return None
    total = tokens.total
    return {
        "total": total.total,
        "input": total.input,
        "cached": total.cached,
        "output": total.output,
        "reasoning": total.reasoning,
    }


class JsonLinesWriter:
    """One JSON object per model change (`{"change": "TextAppended", ...its fields}`) and per client fact
    (`{"event": "note" | "end", ...}`); a tool call's change carries the card's title, kind and status, a
    submission's its status, a usage or info change the values it changed to."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    def changes(self, changes: list[Change], state: SessionState) -> None:
        for change in changes:
            record: dict[str, Any] = {"change": type(change).__name__, **msgspec.to_builtins(change)}
            if isinstance(change, (EntityAdded, EntityChanged)):
                entity = state.entities.get(change.key)
                if isinstance(entity, ToolCall):
                    record["toolCall"] = {"title": entity.title, "kind": entity.kind, "status": entity.status}
            if isinstance(change, (EntityAdded, ContentReplaced)):
                entity = state.entities.get(change.key)
                if isinstance(entity, Message):
                    record["text"] = entity.text  # a message created or replaced whole: its text so far
            elif isinstance(change, SubmissionChanged):
                submission = state.submissions.get(change.request_id)
                # added "pending"; "accepted" once the agent took it (a user message now), or how it failed
                record["status"] = submission.status if submission is not None else "accepted"
            elif isinstance(change, UsageChanged):
                record["usage"] = usage_record(state)
                record["cost"] = cost_record(state)
            elif isinstance(change, InfoChanged):
                record["fields"] = sorted(change.fields)
                record["info"] = {"title": state.info.title, "updatedAt": state.info.updated_at}
            self.sink.write(json_line(record))

    def event(self, name: str, **fields: object) -> None:
        self.sink.write(json_line({"event": name, **fields}))

    def close(self) -> None:
        pass


# -- stderr ------------------------------------------------------------------------------------------


class Commentary:
    """Thoughts, tool calls and notes on stderr, one short line each (`--quiet` drops them)."""

    def __init__(self, sink: Sink, *, quiet: bool, colour: bool) -> None:
        self.sink = sink
        self.quiet = quiet
        self._dim = ("\x1b[2m", "\x1b[0m") if colour else ("", "")
        self._thought: EntityKey | None = None
        self._state: SessionState | None = None
        self._shown_status: dict[tuple[str, str], str] = {}
        self._flushed: dict[EntityKey, int] = {}  # how much of each thought is on stderr already

    def line(self, text: str) -> None:
        """A client line (a note, a policy answer): always one line, sanitised."""
        if not self.quiet:
            self._flush_thought()
            self.sink.write(f"acp-tui: {plain(text)}\n")

    def error(self, text: str) -> None:
        """A line that says why the run failed: written even with `--quiet`."""
        self._flush_thought()
        self.sink.write(f"acp-tui: {plain(text)}\n")

    def changes(self, changes: list[Change], state: SessionState) -> None:
        if self.quiet:
            return
        self._state = state
        for change in changes:
            if isinstance(change, (EntityAdded, TextAppended, ContentReplaced)) and change.key[0] == AGENT_THOUGHT:
                if self._thought != change.key:
                    self._flush_thought()
                    self._thought = change.key
            elif isinstance(change, (EntityAdded, TextAppended, ContentReplaced)) and change.key[0] == AGENT_MESSAGE:
                self._flush_thought()  # the answer begins: the thought before it is said first, not at the end
            elif isinstance(change, (EntityAdded, EntityChanged)) and change.key[0] == TOOL_CALL:
                entity = state.entities.get(change.key)
                if isinstance(entity, ToolCall):
                    self._tool_call(change.key, entity)

    def _tool_call(self, key: tuple[str, str], call: ToolCall) -> None:
        status = call.status
        if self._shown_status.get(key) == status or (
            key in self._shown_status and status not in FINISHED_TOOL_STATUSES
        ):
            return  # a new line when it starts and when it ends, not per update
        self._shown_status[key] = status
        self._flush_thought()
        title = plain(call.title or call.kind)
        mark = {"completed": "done", "failed": "failed", "cancelled": "cancelled"}.get(status, plain(status))
        self.sink.write(f"{self._dim[0]}tool: {title} [{mark}]{self._dim[1]}\n")

    def _flush_thought(self) -> None:
        thought, self._thought = self._thought, None
        message = self._state.message(AGENT_THOUGHT, thought[1]) if thought is not None and self._state else None
        if message is None:
            return
        done = self._flushed.get(thought, 0) if thought is not None else 0
        if thought is not None:
            self._flushed[thought] = len(message.text)  # a thought that goes on later: only what is new then
        text = plain(message.text[done:]).strip()
        if len(text) > THOUGHT_LIMIT:
            text = text[: THOUGHT_LIMIT - 1] + "…"
        if text:
            self.sink.write(f"{self._dim[0]}thinking: {text}{self._dim[1]}\n")

    def close(self) -> None:
        if not self.quiet:
            self._flush_thought()


__all__ = [
    "AnswerWriter",
    "cost_record",
    "tokens_record",
    "usage_record",
    "Commentary",
    "JsonLinesWriter",
    "OUTPUT_CHOICES",
    "OutputFormat",
    "PlainMarkdown",
    "Sink",
    "colour_allowed",
    "json_line",
]
