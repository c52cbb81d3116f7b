"""The transcript writer: what the reducer reports, appended to disk as records, flushed per call.

`TranscriptWriter.write_changes(state, changes)` is called by whoever owns the session (the controller,
once per frame with coalesced changes) and appends one record per thing that happened, flushing after
every call, so a crash of acp-tui loses nothing that was on screen. It keeps no copy of the
conversation: values are read from the `SessionState` (the change says what changed, the model holds the
value); only each terminal's incremental decoder and each tool call's count of written file accesses
survive between calls.

Every string is sanitized (`acp_tui.sanitize`) before it is written and JSON escapes what control
characters remain, so `cat transcript.jsonl` never meets a raw escape sequence. A writing error (disk
full, permission) never reaches the caller: the writer disables itself and sets `.error` once.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Final, assert_never

import msgspec
from msgspec import UNSET

from acp_tui import paths
from acp_tui.ansi import TerminalDecoder
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import (
    AudioContent,
    BlobResourceContents,
    Diff,
    DiffPatch,
    EmbeddedResource,
    ImageContent,
    PlanItems,
    ResourceLink,
    TerminalExitStatus,
    TerminalRef,
    TextContent,
    TextResourceContents,
    ToolContent,
    UnknownContent,
    UnknownPlan,
    UnknownToolContent,
)
from acp_tui.sanitize import multiline, plain
from acp_tui.session import changes as ch
from acp_tui.session.model import (
    Compaction,
    Entity,
    EntityKey,
    FileAccess,
    Message,
    Plan,
    SessionState,
    Subagent,
    Terminal,
    ToolCall,
    UnknownEntry,
)
from acp_tui.transcript.records import (
    FORMAT_VERSION,
    AddedRecord,
    ChangedRecord,
    CommandsRecord,
    ConfigRecord,
    ContentItem,
    ContentRecord,
    CostValue,
    DiffFile,
    DiffItem,
    EntityFields,
    ErrorValue,
    ExitRecord,
    ExitStatusValue,
    FileAccessValue,
    FileRecord,
    InfoFields,
    InfoRecord,
    Location,
    NoteRecord,
    NoticeRecord,
    OpenRecord,
    OutputRecord,
    PermissionsRecord,
    PlanEntryValue,
    PlanValue,
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

__all__ = ["TranscriptWriter", "transcript_path", "RAW_LIMIT"]

#: Raw tool input/output and unknown payloads longer than this (as JSON) are stored as truncated text.
RAW_LIMIT: Final = 64 * 1024

_encoder = msgspec.json.Encoder()


def transcript_path(session_label: str, started: datetime) -> Path:
    """`<transcripts dir>/<YYYYmmdd-HHMMSS>-<short session id>.jsonl`; the label is reduced to a safe slug."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "", plain(session_label))[:16] or "session"
    return paths.transcripts_dir() / f"{started:%Y%m%d-%H%M%S}-{slug}.jsonl"


# -- agent values as plain, safe text and JSON -----------------------------------------------------------


def _clean(value: Any) -> Any:
    """Plain JSON builtins with every string (keys too) sanitized; Structs become their builtins."""
    if isinstance(value, str):
        return multiline(value)
    if isinstance(value, dict):
        return {plain(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if value is UNSET:
        return None
    if isinstance(value, msgspec.Struct):
        return _clean(msgspec.to_builtins(value))
    if isinstance(value, (bytes, bytearray)):
        return multiline(bytes(value).decode("utf-8", "replace"))
    return plain(repr(value))


def _raw(value: Any) -> Any:
    """An agent-supplied raw JSON value, sanitized, stored as a truncated string if it is very large."""
    cleaned = _clean(value)
    encoded = _encoder.encode(cleaned)
    if len(encoded) <= RAW_LIMIT:
        return cleaned
    return {"truncated": True, "json": encoded[:RAW_LIMIT].decode("utf-8", "ignore")}


def _opt_plain(value: object) -> str | None:
    return plain(value) if isinstance(value, str) else None


def _block_text(block: object) -> str:
    """One content block (docs/protocol.md §5.3) as text: text verbatim, anything else a bracketed placeholder.

    `block` is typed `object`: a value that is none of the known blocks still gets a placeholder.
    """
    match block:
        case TextContent():
            return multiline(block.text)
        case ImageContent():
            return f"[image {plain(block.mime_type)}]"
        case AudioContent():
            return f"[audio {plain(block.mime_type)}]"
        case ResourceLink():
            return f"[resource link {plain(block.name)} <{plain(block.uri)}>]"
        case EmbeddedResource():
            res = block.resource
            if isinstance(res, TextResourceContents):
                return f"[resource {plain(res.uri)}]\n{multiline(res.text)}"
            if isinstance(res, BlobResourceContents):
                return f"[binary resource {plain(res.uri)}]"
            return "[resource]"
        case UnknownContent():
            return f"[unsupported content {plain(block.type)}]"
        case _:
            return f"[{plain(type(block).__name__)}]"


def _block_kind(block: object) -> str:
    """The wire type of a content block ("text", "image", ...), for the tool-call item that holds it."""
    match block:
        case TextContent():
            return "text"
        case UnknownContent():
            return plain(block.type)
        case msgspec.Struct():
            tag = block.__struct_config__.tag
            return plain(tag) if isinstance(tag, str) else "unknown"
        case _:
            return "unknown"


def _appended_block_text(block: object) -> str:
    """A non-text block appended to a stream: on its own line, so it never glues onto the prose."""
    return f"\n{_block_text(block)}\n"


def _blocks_text(blocks: Iterable[object]) -> str:
    """A message's blocks as it streams: text blocks joined as they are, others on their own lines."""
    return "".join(_block_text(b) if isinstance(b, TextContent) else _appended_block_text(b) for b in blocks)


def _diff_item(diff: Diff) -> DiffItem:
    """A diff (docs/protocol.md §6.3): the file list is authoritative, the patch optional."""
    files = [
        DiffFile(
            operation=plain(change.operation),
            path=plain(change.path),
            old_path=_opt_plain(change.old_path),
            file_type=_opt_plain(change.file_type),
        )
        for change in diff.changes
    ]
    patch = diff.patch if isinstance(diff.patch, DiffPatch) else None
    if patch is None:
        return DiffItem(files=files)
    return DiffItem(files=files, patch=multiline(patch.text), format=plain(patch.format))


def _tool_item(item: object) -> ToolItem:
    """One tool-call content item (docs/protocol.md §6.2); typed `object`: anything unknown is named, not dropped."""
    match item:
        case ToolContent():
            return ContentItem(text=_block_text(item.content), block=_block_kind(item.content))
        case Diff():
            return _diff_item(item)
        case TerminalRef():
            return TerminalItem(terminal_id=plain(item.terminal_id))
        case UnknownToolContent():
            return UnknownItem(kind=plain(item.type))
        case _:
            return UnknownItem(kind=plain(type(item).__name__))


def _plan_value(entity: Plan) -> PlanValue:
    """The plan as the model keeps it (bounded there: `Plan.more` entries left out are only counted)."""
    plan = entity.plan
    match plan:
        case PlanItems():
            return PlanValue(
                entries=[
                    PlanEntryValue(content=multiline(e.content), priority=plain(e.priority), status=plain(e.status))
                    for e in plan.entries
                ],
                more=entity.more if entity.more else UNSET,
            )
        case UnknownPlan():
            return PlanValue(unsupported=plain(plan.type), raw=_raw(plan.raw))
        case _:
            assert_never(plan)


def _exit_value(exit_status: TerminalExitStatus | None) -> ExitStatusValue | None:
    if exit_status is None:
        return None
    return ExitStatusValue(
        exit_code=exit_status.exit_code if isinstance(exit_status.exit_code, int) else None,
        signal=plain(exit_status.signal) if isinstance(exit_status.signal, str) else None,
    )


def _error_value(error: ErrorObject | None) -> ErrorValue | None:
    if error is None:
        return None
    code = getattr(error, "code", None)
    return ErrorValue(
        code=code if isinstance(code, int) else None, message=multiline(str(getattr(error, "message", "")))
    )


def _id_value(request_id: int | str) -> int | str:
    return request_id if isinstance(request_id, int) else plain(str(request_id))


def _access_value(access: FileAccess) -> FileAccessValue:
    """A file access (docs/protocol.md §10.2), sanitized; it never changes once made."""
    return FileAccessValue(
        kind=plain(access.kind),
        path=plain(access.path),
        cwd=plain(access.cwd),
        status=plain(access.status),
        detail=plain(access.detail),
        requested_path=plain(access.requested_path) if access.requested_path != access.path else None,
        first_line=access.first_line,
        line_count=access.line_count,
        created=access.created,
        lines_added=access.added,
        lines_removed=access.removed,
        diff=_diff_item(access.diff) if access.diff is not None else None,
        outside=access.outside,
    )


def _terminal_text(decoder: TerminalDecoder, data: bytes) -> str:
    return multiline("".join(segment.text for segment in decoder.feed(data)))


def _tool_fields(call: ToolCall, names: Iterable[str]) -> dict[str, Any]:
    """The named tool-call fields that the transcript keeps (meta, turn and files are not among them)."""
    values: dict[str, Any] = {}
    for name in names:
        match name:
            case "title":
                values[name] = _opt_plain(call.title)
            case "kind":
                values[name] = _opt_plain(call.kind)
            case "status":
                values[name] = _opt_plain(call.status)
            case "name":
                values[name] = _opt_plain(call.name)
            case "locations":
                values[name] = [
                    Location(path=plain(loc.path), line=loc.line if isinstance(loc.line, int) else None)
                    for loc in call.locations or []
                ]
            case "raw_input":
                values[name] = _raw(call.raw_input)
            case "raw_output":
                values[name] = _raw(call.raw_output)
            case "cancelling":
                values[name] = call.cancelling
            case "interrupted":
                values[name] = call.interrupted
            case "rejected":
                values[name] = call.rejected
    return values


def _changed_fields(entity: Entity, names: Iterable[str]) -> dict[str, Any]:
    """The named fields of an entity as record values (fields with no transcript value are left out)."""
    match entity:
        case ToolCall():
            return _tool_fields(entity, names)
        case Terminal():
            values: dict[str, Any] = {}
            for name in names:
                if name in ("command", "cwd"):
                    values[name] = _opt_plain(getattr(entity, name))
                elif name == "exit_status":
                    values[name] = _exit_value(entity.exit_status)
            return values
        case Compaction():
            values = {}
            for name in names:
                if name == "status":
                    values[name] = plain(entity.status)
                elif name == "error":
                    values[name] = _opt_plain(entity.error)
            return values
        case Plan():
            return {"plan": _plan_value(entity)} if "plan" in names else {}
        case Message():
            values = {"local_echo": entity.local_echo} if "local_echo" in names else {}
            if "resend_of" in names:
                values["resend_of"] = _opt_plain(entity.resend_of)
            return values
        case UnknownEntry() | FileAccess():
            return {}  # never changed once made
        case Subagent():
            return _subagent_fields(entity)  # its inner work stays in the agent's own record of the child
        case _:
            assert_never(entity)


def _subagent_fields(entity: Subagent) -> dict[str, Any]:
    return {"title": plain(entity.name), "status": "ended" if entity.ended else plain(entity.state)}


class _Batch:
    """The records of one `write_changes` call; consecutive appends to one entity merge into one record."""

    __slots__ = ("records", "_run", "_run_key", "_parts")

    def __init__(self) -> None:
        self.records: list[Record] = []
        self._run: TextRecord | OutputRecord | None = None
        self._run_key: EntityKey | None = None
        self._parts: list[str] = []

    def add(self, record: Record | None) -> None:
        self._end_run()
        if record is not None:
            self.records.append(record)

    def append(self, kind: type[TextRecord] | type[OutputRecord], key: EntityKey, text: str) -> None:
        """Text for the entity's stream: joins the open run when it is the same kind and entity."""
        if self._run is None or type(self._run) is not kind or self._run_key != key:
            self._end_run()
            self._run, self._run_key = kind(type=key[0], id=plain(key[1])), key
        self._parts.append(text)

    def finish(self) -> list[Record]:
        self._end_run()
        return self.records

    def _end_run(self) -> None:
        """Close the open run: its parts joined once, or nothing if it turned out empty."""
        run, parts = self._run, self._parts
        if run is None:
            return
        self._run, self._run_key, self._parts = None, None, []
        text = "".join(parts)
        if text:
            run.text = text
            self.records.append(run)


class TranscriptWriter:
    """Appends the records of one session to `path`; never raises into its caller.

    The file (and its directory) is created on the first write, private to the user. After any
    error `enabled` is false, `error` says why, and every later call does nothing.
    """

    __slots__ = ("path", "label", "error", "_file", "_decoders", "_files_written", "_closed")

    def __init__(self, path: Path, label: str = "") -> None:
        self.path: Path = path
        self.label: str = label
        #: why the writer stopped (first error only); `None` while it works
        self.error: str | None = None
        self._file: IO[bytes] | None = None
        #: one incremental decoder per terminal, so escape sequences and UTF-8 split across chunks decode whole
        self._decoders: dict[EntityKey, TerminalDecoder] = {}
        #: per tool call, how many of its file accesses are on disk (each later one gets a `file` record)
        self._files_written: dict[EntityKey, int] = {}
        self._closed = False

    @property
    def enabled(self) -> bool:
        return self.error is None and not self._closed

    # -- public API ------------------------------------------------------------------------------

    def write_changes(self, state: SessionState, changes: Iterable[ch.Change]) -> None:
        """Record one batch of reducer changes (values read from `state`), then flush."""
        if not self.enabled:
            return
        try:
            batch = _Batch()
            added: set[EntityKey] = set()
            for change in changes:
                self._record(batch, state, change, added)
            records = batch.finish()
            if records:
                self._write(records)
        except Exception as exc:  # noqa: BLE001 - the transcript must never take the session down
            self._fail(exc)

    def note(self, text: str, kind: str = "note") -> None:
        """Record a client line (agent exited/restarted, session resumed, ...) that no change reports.

        `kind` "restart" says a new agent process follows: its ids name new entities.
        """
        if not self.enabled:
            return
        if kind == "restart":
            self._decoders.clear()
            self._files_written.clear()
        try:
            self._write([NoteRecord(kind=plain(kind), text=multiline(text))])
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)

    def close(self) -> None:
        """Flush and close the file; later calls do nothing."""
        self._closed = True
        file, self._file = self._file, None
        self._decoders.clear()
        self._files_written.clear()
        if file is not None:
            try:
                file.close()
            except OSError as exc:
                if self.error is None:
                    self.error = _describe(exc)

    # -- records ---------------------------------------------------------------------------------

    def _record(self, batch: _Batch, state: SessionState, change: ch.Change, added: set[EntityKey]) -> None:
        """The record(s) for one change. A key added in this batch was rendered whole by its `added`
        record, from the model as it is now, so its later changes in the batch are skipped."""
        match change:
            case ch.TextAppended():
                if change.key not in added:
                    batch.append(TextRecord, change.key, multiline(change.text))
            case ch.BytesAppended():
                if change.key not in added:
                    batch.append(OutputRecord, change.key, _terminal_text(self._decoder(change.key), change.data))
            case ch.EntityAdded():
                entity = state.entities.get(change.key)
                if entity is not None:
                    added.add(change.key)
                    batch.add(self._added(entity))
            case ch.ContentAppended():
                entity = state.entities.get(change.key)
                if entity is not None and change.key not in added:
                    key = change.key
                    if isinstance(entity, ToolCall):
                        batch.add(ContentRecord(type=key[0], id=plain(key[1]), item=_tool_item(change.item)))
                    else:
                        batch.add(ContentRecord(type=key[0], id=plain(key[1]), text=_appended_block_text(change.item)))
            case ch.ContentReplaced():
                entity = state.entities.get(change.key)
                if entity is not None and change.key not in added:
                    batch.add(self._replaced(entity))
            case ch.EntityChanged():
                entity = state.entities.get(change.key)
                if entity is not None and change.key not in added:
                    self._changed(batch, entity, change.fields)
            case ch.EntityRemoved():
                added.discard(change.key)
                self._decoders.pop(change.key, None)
                self._files_written.pop(change.key, None)
                batch.add(RemovedRecord(type=change.key[0], id=plain(change.key[1])))
            case ch.StateChanged():
                fg = state.foreground
                batch.add(
                    StateRecord(
                        state=plain(fg.state),
                        busy=fg.busy,
                        stop_reason=_opt_plain(fg.stop_reason),
                        error=_error_value(fg.error),
                    )
                )
            case ch.TurnEnded():
                batch.add(
                    TurnEndRecord(
                        turn=change.turn,
                        stop_reason=_opt_plain(change.stop_reason),
                        error=_error_value(change.error),
                        cancel_requested=change.cancel_requested,
                    )
                )
            case ch.NoticeRaised():
                notice = change.notice
                description = notice.description if isinstance(notice.description, str) else None
                batch.add(
                    NoticeRecord(
                        severity=plain(notice.severity),
                        title=plain(notice.title),
                        description=multiline(description) if description is not None else None,
                    )
                )
            case ch.UsageChanged():
                usage = state.usage
                if usage is not None:
                    cost = usage.cost
                    batch.add(
                        UsageRecord(
                            used=usage.used,
                            size=usage.size,
                            cost=CostValue(amount=cost.amount, currency=plain(cost.currency))
                            if cost is not None
                            else None,
                        )
                    )
            case ch.AccountChanged():
                pass  # the account and its limits are live, not history (nor an e-mail address in a file)
            case ch.InfoChanged():
                info = state.info
                fields = {
                    name: _opt_plain(getattr(info, name)) for name in change.fields if name in ("title", "updated_at")
                }
                if fields:
                    batch.add(InfoRecord(fields=InfoFields(**fields)))
            case ch.CommandsChanged():
                batch.add(CommandsRecord(names=[plain(c.name) for c in state.commands]))
            case ch.ConfigChanged():
                batch.add(
                    ConfigRecord(
                        options={
                            plain(str(getattr(o, "config_id", ""))): _clean(getattr(o, "current_value", None))
                            for o in state.config_options
                        }
                    )
                )
            case ch.PermissionsChanged():
                # What changed, never what is open: a flood of requests writes its length, not its square.
                batch.add(
                    PermissionsRecord(
                        opened=[_id_value(rid) for rid in change.opened] if change.opened else UNSET,
                        resolved=[(_id_value(rid), plain(outcome)) for rid, outcome in change.resolved]
                        if change.resolved
                        else UNSET,
                        dropped=[_id_value(rid) for rid in change.dropped] if change.dropped else UNSET,
                    )
                )
            case ch.SubmissionChanged():
                rid = _id_value(change.request_id)
                submission = state.submissions.get(change.request_id)
                if submission is None:
                    batch.add(SubmissionRecord(request_id=rid, status="settled"))
                else:
                    batch.add(
                        SubmissionRecord(
                            request_id=rid,
                            status=plain(submission.status),
                            text=_blocks_text(submission.blocks),
                            error=_error_value(submission.error),
                        )
                    )
            case ch.ProblemAdded():
                batch.add(ProblemRecord(reason=plain(change.reason), detail=multiline(change.detail)))
            case ch.AgentGone():
                batch.add(ExitRecord(detail=plain(change.detail)))
            case _:
                assert_never(change)

    def _added(self, entity: Entity) -> AddedRecord:
        """An `added` record: the entity rendered whole, as it is now."""
        key = entity.key
        kind, ident = key[0], plain(key[1])
        match entity:
            case Message():
                return AddedRecord(
                    type=kind,
                    id=ident,
                    text=_blocks_text(entity.content.blocks),
                    local_echo=entity.local_echo,
                    resend_of=_opt_plain(entity.resend_of) if entity.resend_of is not None else UNSET,
                )
            case ToolCall():
                files = entity.files
                self._files_written[key] = len(files)
                return AddedRecord(
                    type=kind,
                    id=ident,
                    **_tool_fields(entity, ("kind", "locations", "name", "status", "title")),
                    content=[_tool_item(item) for item in entity.content],
                    files=[_access_value(access) for access in files] if files else UNSET,
                )
            case Terminal():
                # Continue decoding the live stream from where this snapshot ends.
                decoder = self._decoders[key] = TerminalDecoder()
                return AddedRecord(
                    type=kind,
                    id=ident,
                    command=_opt_plain(entity.command),
                    cwd=_opt_plain(entity.cwd),
                    exit_status=_exit_value(entity.exit_status),
                    text=_terminal_text(decoder, bytes(entity.output)),
                )
            case Plan():
                return AddedRecord(type=kind, id=ident, plan=_plan_value(entity))
            case Compaction():
                return AddedRecord(
                    type=kind,
                    id=ident,
                    error=_opt_plain(entity.error),
                    status=plain(entity.status),
                    text=_blocks_text(entity.summary.blocks),
                )
            case UnknownEntry():
                return AddedRecord(type=kind, id=ident, kind=plain(entity.kind), raw=_raw(entity.raw))
            case FileAccess():
                return AddedRecord(type=kind, id=ident, access=_access_value(entity))
            case Subagent():
                return AddedRecord(type=kind, id=ident, **_subagent_fields(entity))
            case _:
                assert_never(entity)

    def _replaced(self, entity: Entity) -> ReplacedRecord:
        """A `replaced` record: the entity's whole new content."""
        key = entity.key
        kind, ident = key[0], plain(key[1])
        match entity:
            case Message():
                return ReplacedRecord(type=kind, id=ident, text=_blocks_text(entity.content.blocks))
            case ToolCall():
                return ReplacedRecord(type=kind, id=ident, content=[_tool_item(item) for item in entity.content])
            case Compaction():
                return ReplacedRecord(type=kind, id=ident, text=_blocks_text(entity.summary.blocks))
            case Terminal():
                decoder = self._decoders[key] = TerminalDecoder()  # a snapshot: decoding starts afresh
                return ReplacedRecord(type=kind, id=ident, text=_terminal_text(decoder, bytes(entity.output)))
            case Plan() | UnknownEntry() | FileAccess() | Subagent():
                return ReplacedRecord(
                    type=kind, id=ident, text=""
                )  # no content to replace; not reported by the reducer
            case _:
                assert_never(entity)

    def _changed(self, batch: _Batch, entity: Entity, names: frozenset[str]) -> None:
        """A `changed` record for the fields the transcript keeps, and a `file` record per new file access."""
        key = entity.key
        values = _changed_fields(entity, sorted(names))
        if values:
            batch.add(ChangedRecord(type=key[0], id=plain(key[1]), fields=EntityFields(**values)))
        if "files" in names and isinstance(entity, ToolCall):
            written = self._files_written.get(key, 0)
            for access in entity.files[written:]:
                batch.add(FileRecord(type=key[0], id=plain(key[1]), access=_access_value(access)))
            self._files_written[key] = len(entity.files)

    def _decoder(self, key: EntityKey) -> TerminalDecoder:
        """The terminal's decoder; made on first use when the writer started after the terminal did."""
        decoder = self._decoders.get(key)
        if decoder is None:
            decoder = self._decoders[key] = TerminalDecoder()
        return decoder

    # -- the file --------------------------------------------------------------------------------

    def _fail(self, exc: BaseException) -> None:
        if self.error is None:
            self.error = _describe(exc)
        file, self._file = self._file, None
        self._decoders.clear()
        self._files_written.clear()
        if file is not None:
            try:
                file.close()
            except Exception:  # noqa: BLE001 - already failed; closing is best effort
                pass

    def _open(self) -> IO[bytes]:
        paths.ensure_dir(self.path.parent)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        file = os.fdopen(fd, "ab")
        header = OpenRecord(at=round(time.time(), 3), format=FORMAT_VERSION, label=plain(self.label))
        file.write(_encoder.encode(header) + b"\n")
        return file

    def _write(self, records: list[Record]) -> None:
        file = self._file
        if file is None:
            file = self._file = self._open()
        now = round(time.time(), 3)
        for record in records:
            record.at = now
        file.write(_encoder.encode_lines(records))
        file.flush()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"transcript disabled: {exc.strerror}{where}"
    return f"transcript disabled: {type(exc).__name__}: {exc}"
