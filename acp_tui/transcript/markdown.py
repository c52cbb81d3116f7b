"""A transcript as Markdown: the conversation as a chat log, not the event records.

The records are replayed into the timeline the user saw (entities at their first-seen position, each
as it last was) with the client's lines where they happened. Then: `### User` before each prompt and
`### Agent` before the agent's part of a turn (once: the session title, a notice or a note within the answer
does not start another part); the files the user @-mentioned listed under the prompt by
name and size (as the screen's chips show them), never their text; thoughts quoted; a tool call one line (title, status,
kind, locations) with its result below it, text in a fence (unless it is one already) and a diff in a
`diff` fence; a terminal a tool call shows inside that call, as the timeline does; plans as task
lists; file accesses as the line the timeline shows; notes, notices, the session title and prompts
that were never answered as lines of their own. Foreground states, usage, commands, config,
permissions and protocol problems are left out: they are the status bar's, not the conversation's; so
is the agent's exit record (the client's note says how it ended).

Both record formats render; a format 1 tool call's content was flattened to text, so it shows in one
plain fence. The result passes `sanitize.multiline` once more, so even a hand-edited transcript cannot
put an escape sequence into the output.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final, assert_never
from urllib.parse import unquote, urlsplit

import msgspec
from msgspec import UNSET

from acp_tui.path_text import ViewContext
from acp_tui.sanitize import multiline
from acp_tui.session.model import read_range_text
from acp_tui.sizes import human_size
from acp_tui.transcript.reader import iter_records
from acp_tui.transcript.records import (
    AddedRecord,
    ChangedRecord,
    CommandsRecord,
    ConfigRecord,
    ContentItem,
    ContentRecord,
    DiffItem,
    EntityFields,
    ExitRecord,
    FileAccessValue,
    FileRecord,
    InfoRecord,
    NoteRecord,
    NoticeRecord,
    OpenRecord,
    OutputRecord,
    PermissionsRecord,
    ProblemRecord,
    Record,
    RemovedRecord,
    ReplacedRecord,
    StateRecord,
    SubmissionRecord,
    TerminalItem,
    TextRecord,
    ToolItem,
    TurnEndRecord,
    UnknownItem,
    UsageRecord,
)

__all__ = ["render_markdown", "access_line"]

_ENTITY_FIELDS: Final = EntityFields.__struct_fields__
#: Tool-call status as the timeline's pill says it (docs/protocol.md §6.1); unknown ones are shown as sent.
_STATUS_TEXT: Final = {
    "pending": "◌ pending",
    "in_progress": "◐ running",
    "paused": "‖ paused",
    "completed": "✓ completed",
    "failed": "✗ failed",
    "cancelled": "⊘ cancelled",
}
_FINISHED: Final = frozenset({"completed", "failed", "cancelled"})
_PLAN_MARKS: Final = {"completed": "[x]", "in_progress": "[~]"}
_ACCESS_ICONS: Final = {"read": "▤", "write": "✎"}
_ACCESS_STATUS_ICONS: Final = {"refused": "⊘", "failed": "✗", "cancelled": "⊘"}
_PATCH_FORMATS: Final = frozenset({"git_patch", "unified"})
_AGENT_SIDE: Final = frozenset(
    {
        "agent_message",
        "agent_thought",
        "tool_call",
        "terminal",
        "plan",
        "compaction",
        "unknown",
        "file_access",
        "subagent",
    }
)


class _Block:
    """One timeline entity, as its records leave it."""

    __slots__ = ("entity", "parts", "items", "files", "removed", "epoch")

    def __init__(self, added: AddedRecord, epoch: int) -> None:
        #: the `added` snapshot with every later `changed` applied
        self.entity: AddedRecord = added
        #: streamed text: a message, thought, compaction summary, terminal output, a format 1 tool call's content
        self.parts: list[str] = [added.text] if isinstance(added.text, str) and added.text else []
        #: a tool call's content items (format 2)
        self.items: list[ToolItem] = list(added.content) if isinstance(added.content, list) else []
        self.files: list[FileAccessValue] = list(added.files) if isinstance(added.files, list) else []
        self.removed = False
        #: which agent process the entity belongs to (ids are reused after a restart)
        self.epoch = epoch

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _Replay:
    """The timeline and the client's lines, in order, rebuilt from the records."""

    def __init__(self) -> None:
        self.items: list[_Block | str] = []
        #: the lines after which the next agent output is a new part (`### Agent` again): a prompt that was not
        #: answered, a restart; the session title, notices and other notes happen within an answer
        self.breaks: set[int] = set()
        self.blocks: dict[tuple[str, str], _Block] = {}
        self.positions: dict[int, int] = {}  # id(block) -> its index in `items`
        self.epoch = 0

    def feed(self, record: Record) -> None:
        match record:
            case AddedRecord():
                self._added(record)
            case TextRecord() | OutputRecord():
                block = self.blocks.get((record.type, record.id))
                if block is not None:
                    block.parts.append(record.text)
            case ContentRecord():
                block = self.blocks.get((record.type, record.id))
                if block is not None:
                    if not isinstance(record.item, msgspec.UnsetType):
                        block.items.append(record.item)
                    elif isinstance(record.text, str):
                        block.parts.append(record.text)
            case ReplacedRecord():
                block = self.blocks.get((record.type, record.id))
                if block is not None:
                    block.items = list(record.content) if isinstance(record.content, list) else []
                    block.parts = [record.text] if isinstance(record.text, str) else []
            case ChangedRecord():
                block = self.blocks.get((record.type, record.id))
                if block is not None:
                    block.entity = msgspec.structs.replace(block.entity, **_set_fields(record.fields))
            case RemovedRecord():
                block = self.blocks.pop((record.type, record.id), None)
                if block is not None:
                    block.removed = True
            case FileRecord():
                block = self.blocks.get((record.type, record.id))
                if block is not None:
                    block.files.append(record.access)
            case NoteRecord():
                if record.kind == "restart":
                    self.blocks = {}  # a new agent process: its ids (often reused) name new entities
                    self.epoch += 1
                self._line(_emphasis(record.text), ends_part=record.kind == "restart")
            case NoticeRecord():
                line = f"> **Notice ({record.severity}):** {record.title}"
                self._line(line + (f" — {record.description}" if record.description else ""))
            case InfoRecord():
                if isinstance(record.fields.title, str) and record.fields.title:
                    self._line(f"*Session title: {record.fields.title}*")
            case SubmissionRecord():
                self._line(_submission_line(record), ends_part=True)
            case (
                OpenRecord()
                | StateRecord()
                | TurnEndRecord()
                | UsageRecord()
                | CommandsRecord()
                | ConfigRecord()
                | PermissionsRecord()
                | ProblemRecord()
                | ExitRecord()
            ):
                pass  # beside the conversation (see the module docstring)
            case _:
                assert_never(record)

    def _added(self, record: AddedRecord) -> None:
        key = (record.type, record.id)
        fresh = _Block(record, self.epoch)
        previous = self.blocks.get(key)
        if previous is None:
            self.positions[id(fresh)] = len(self.items)
            self.items.append(fresh)
        else:  # added again without a removal: the new snapshot takes the old one's place
            position = self.positions.pop(id(previous))
            self.items[position] = fresh
            self.positions[id(fresh)] = position
        self.blocks[key] = fresh

    def _line(self, line: str, *, ends_part: bool = False) -> None:
        if line:
            if ends_part:
                self.breaks.add(len(self.items))
            self.items.append(line)


def render_markdown(path: Path) -> str:
    """The transcript at `path` as a readable Markdown conversation; tolerates a torn last line."""
    replay = _Replay()
    for record in iter_records(path):
        replay.feed(record)
    blocks = [item for item in replay.items if isinstance(item, _Block) and not item.removed]
    terminals = {(b.epoch, b.entity.id): b for b in blocks if b.entity.type == "terminal"}
    embedded = {
        (b.epoch, item.terminal_id)
        for b in blocks
        if b.entity.type == "tool_call"
        for item in b.items
        if isinstance(item, TerminalItem)
    }
    out: list[str] = []
    speaker: str | None = None
    for index, item in enumerate(replay.items):
        if isinstance(item, str):
            out.append(item)
            if index in replay.breaks:
                speaker = None
            continue
        entity = item.entity
        if item.removed or (entity.type == "terminal" and (item.epoch, entity.id) in embedded):
            continue  # a removed plan; a terminal its tool call shows
        if entity.type == "user_message" and _text(entity.resend_of):
            continue  # sent again after a login: the words are above already
        body = _render_block(item, terminals)
        if not body:
            continue
        if entity.type == "user_message":
            out.append("### User")
            speaker = "user"
        elif entity.type in _AGENT_SIDE and speaker != "agent":
            out.append("### Agent")
            speaker = "agent"
        out.append(body)
    return multiline("\n\n".join(out) + "\n")


# -- entities ----------------------------------------------------------------------------------------------


def _render_block(block: _Block, terminals: dict[tuple[int, str], _Block]) -> str:
    entity = block.entity
    match entity.type:
        case "user_message":
            return _user_text(block.text)
        case "agent_message":
            return block.text.rstrip("\n")
        case "agent_thought":
            text = block.text.strip("\n")
            return _quote(f"*Thought:*\n{text}") if text else ""
        case "tool_call":
            return _render_tool_call(block, terminals)
        case "terminal":
            return _render_terminal(block)
        case "plan":
            return _render_plan(entity)
        case "compaction":
            status = _text(entity.status)
            head = "**Context compaction**" + (f" — {status}" if status else "")
            if _text(entity.error):
                head += f" (error: {_text(entity.error)})"
            summary = block.text.strip("\n")
            return head + ("\n\n" + _quote(summary) if summary else "")
        case "unknown":
            return f"*Unsupported update {_code(_text(entity.kind) or '?')}*"
        case "file_access":
            return _render_access(entity.access) if isinstance(entity.access, FileAccessValue) else ""
        case "subagent":  # the lane's line; the child's own work stays in the agent's record of the child
            status = _text(entity.status)
            return f"**Subagent** {_text(entity.title) or 'subagent'}" + (f" — {status}" if status else "")
        case _:
            return block.text  # an entity type of a newer writer: its text, if any


#: An embedded text resource in a message's text, as the writer puts it (`[resource URI]` on its own line,
#: then the resource's text): the files the user @-mentioned.
_RESOURCE: Final = re.compile(r"\n\[resource ([^\]\n]*)\]\n")


def _user_text(text: str) -> str:
    """The user's words, then the files they attached listed by name and size as the screen's chips show
    them, never their text (a mentioned file's whole content is the agent's context, not the chat)."""
    parts = _RESOURCE.split(text)
    words = parts[0].rstrip("\n")
    attached = [
        f"- {_code(_uri_name(uri))} · {human_size(len(content.removesuffix(chr(10)).encode('utf-8', 'replace')))}"
        for uri, content in zip(parts[1::2], parts[2::2], strict=False)
    ]
    return "\n\n".join(part for part in (words, "\n".join(attached)) if part)


def _uri_name(uri: str) -> str:
    """The last path component of a resource's URI (the whole URI when it has none)."""
    try:
        path = unquote(urlsplit(uri).path, errors="replace").rstrip("/")
    except ValueError:  # not a URI at all (a hand-edited transcript)
        return uri
    return path.rpartition("/")[2] or uri


def _render_tool_call(block: _Block, terminals: dict[tuple[int, str], _Block]) -> str:
    """One line for the call, then its result: text fenced, diffs as `diff` fences, its terminals, its files."""
    entity = block.entity
    parts = [_tool_line(entity)]
    run: list[str] = []  # consecutive text items stream into one fence, as in the timeline's card
    for item in block.items:
        if isinstance(item, ContentItem) and item.block == "text":
            run.append(item.text)
            continue
        if run:
            parts.append(_tool_text("".join(run)))
            run = []
        match item:
            case ContentItem():
                parts.append(f"*{item.text.strip()}*")
            case DiffItem():
                parts.append(_render_diff(item))
            case TerminalItem():
                terminal = terminals.get((block.epoch, item.terminal_id))
                parts.append(
                    _render_terminal(terminal) if terminal is not None else f"*terminal {_code(item.terminal_id)}*"
                )
            case UnknownItem():
                parts.append(f"*unsupported tool content {_code(item.kind)}*")
            case _:
                assert_never(item)
    if run:
        parts.append(_tool_text("".join(run)))
    if block.text:  # format 1: the content flattened to text
        parts.append(_fence(block.text))
    if block.files:
        parts.append(_render_accesses(block.files))
    return "\n\n".join(p for p in parts if p)


def _tool_line(entity: AddedRecord) -> str:
    title = entity.title if isinstance(entity.title, str) and entity.title else "(untitled)"
    status = entity.status if isinstance(entity.status, str) else "pending"
    if status not in _FINISHED and entity.interrupted is True:
        status_text = "⊘ interrupted"
    elif status not in _FINISHED and entity.cancelling is True:
        status_text = "⊘ cancelling"
    elif status == "pending" and entity.rejected is True:
        status_text = "⊘ rejected"
    else:
        status_text = _STATUS_TEXT.get(status, f"◐ {status}")
    line = f"**Tool call:** {title} — {status_text}"
    if isinstance(entity.kind, str) and entity.kind not in ("", "other"):
        line += f" ({entity.kind})"
    if isinstance(entity.locations, list) and entity.locations:
        where = (loc.path + (f":{loc.line}" if loc.line is not None else "") for loc in entity.locations)
        line += " · " + ", ".join(_code(w) for w in where)
    return line


def _render_terminal(block: _Block) -> str:
    entity = block.entity
    head = f"**Terminal:** {_code(_text(entity.command) or '?')}"
    exit_status = entity.exit_status
    if not isinstance(exit_status, msgspec.UnsetType) and exit_status is not None:
        how = " ".join(
            part
            for part in (
                str(exit_status.exit_code) if exit_status.exit_code is not None else "",
                f"({exit_status.signal})" if exit_status.signal else "",
            )
            if part
        )
        head += f" — exited {how}".rstrip()
    text = block.text
    return head + ("\n\n" + _fence(text) if text.strip("\n") else "")


def _render_plan(entity: AddedRecord) -> str:
    plan = entity.plan
    if isinstance(plan, msgspec.UnsetType) or isinstance(plan.entries, msgspec.UnsetType):
        kind = plan.unsupported if not isinstance(plan, msgspec.UnsetType) else "?"
        return f"**Plan:** unsupported plan type {kind or '?'}"
    lines = [f"- {_PLAN_MARKS.get(e.status, '[ ]')} {e.content}" for e in plan.entries]
    if isinstance(plan.more, int) and plan.more:
        lines.append(f"- … {plan.more:,} more entries not kept")
    return "**Plan:**\n" + "\n".join(lines)


def _render_diff(item: DiffItem) -> str:
    """A diff (docs/protocol.md §6.3): its patch in a `diff` fence; without one, the list of files."""
    if item.patch:
        return _fence(item.patch, "diff" if item.format in _PATCH_FORMATS else "")
    lines = []
    for change in item.files:
        line = f"- {change.operation} {_code(change.path)}"
        if change.old_path:
            line += f" (from {_code(change.old_path)})"
        if change.file_type and change.file_type != "text":
            line += f" ({change.file_type})"
        lines.append(line)
    return "\n".join(lines) or "*empty diff*"


# -- file accesses (docs/protocol.md §10.2), as the timeline's line says them ---------------------------


def access_line(access: FileAccessValue) -> str:
    """The one line for an access: icon, verb, path, then the range, the change or why it failed."""
    status = access.status
    icon = _ACCESS_STATUS_ICONS.get(status) or ("⚠" if access.outside else _ACCESS_ICONS.get(access.kind, "•"))
    verb = "read" if access.kind == "read" else ("created" if access.created else "wrote")
    if status != "done":
        verb = f"{access.kind} {status}"
    line = f"{icon} {verb} {_code(ViewContext(access.cwd).path(access.path))}"
    if status == "done":
        if access.kind == "read":
            line += read_range_text(access.first_line, access.line_count)
        elif access.diff is not None and (access.lines_added or access.lines_removed):
            removed = f" −{access.lines_removed}" if access.lines_removed or not access.created else ""
            line += f" (+{access.lines_added}{removed})"
    outside = ""
    if access.outside:
        outside = "" if access.detail.startswith("outside the session folder") else "outside the session folder"
        if access.requested_path:
            outside += (
                f"{' ' if outside else ''}(asked for {_code(ViewContext(access.cwd).path(access.requested_path))})"
            )
        line += f" — **{outside}**" if outside else ""
    if access.detail:
        line += f"{'; ' if outside else ' — '}{access.detail}"
    return line


def _access_diff(access: FileAccessValue) -> DiffItem | None:
    """The change a completed write made, when there is one to show."""
    if access.kind != "write" or access.status != "done":
        return None
    if not access.created and not access.lines_added and not access.lines_removed:
        return None
    return access.diff


def _render_access(access: FileAccessValue) -> str:
    diff = _access_diff(access)
    return access_line(access) + ("\n\n" + _render_diff(diff) if diff is not None else "")


def _render_accesses(accesses: list[FileAccessValue]) -> str:
    """A tool call's files: a list of lines, each write's change below its line."""
    chunks: list[str] = []
    bullets: list[str] = []
    for access in accesses:
        bullets.append(f"- {access_line(access)}")
        diff = _access_diff(access)
        if diff is not None:
            chunks.append("\n".join(bullets))
            chunks.append(_render_diff(diff))
            bullets = []
    if bullets:
        chunks.append("\n".join(bullets))
    return "\n\n".join(chunks)


# -- lines beside the timeline ---------------------------------------------------------------------------


def _submission_line(record: SubmissionRecord) -> str:
    """A prompt that never became a user message (docs/protocol.md §4.1): failed, not sent, or unanswered."""
    text = record.text if isinstance(record.text, str) else ""
    match record.status:
        case "failed":
            line = f"*Prompt failed:* {text}"
        case "cancelled":
            line = f"*Prompt not sent (cancelled):* {text}"
        case "unknown":
            line = f"*Prompt unanswered (the agent went away):* {text}"
        case _:
            return ""  # pending, settled: the user message (if any) is in the timeline
    error = record.error
    if not isinstance(error, msgspec.UnsetType) and error is not None and error.message:
        line += f" — {error.message}"
    return line


# -- Markdown helpers ------------------------------------------------------------------------------------


def _text(value: object) -> str:
    """A record's optional string field, "" when it is null or absent."""
    return value if isinstance(value, str) else ""


def _set_fields(fields: EntityFields) -> dict[str, Any]:
    """The fields a `changed` record sets (everything not UNSET)."""
    return {name: value for name in _ENTITY_FIELDS if (value := getattr(fields, name)) is not UNSET}


def _tool_text(text: str) -> str:
    """A tool's text output in a fence, unless it already is one fenced block (agents often send that)."""
    stripped = text.strip("\n")
    opening = re.match(r"(`{3,}|~{3,})[^\n`]*\n", stripped)
    if opening is not None:
        fence = opening.group(1)
        body = stripped[opening.end() :]
        if body.endswith("\n" + fence) and ("\n" + fence) not in body[: -len(fence) - 1]:
            return stripped
    return _fence(text)


def _fence(text: str, info: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _code(text: str) -> str:
    """An inline code span that survives backticks inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _emphasis(text: str) -> str:
    stripped = text.strip()
    return f"*{stripped}*" if stripped else ""
