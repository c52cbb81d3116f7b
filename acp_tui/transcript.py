"""The crash-proof session transcript: JSON Lines appended as the conversation grows, read back as Markdown.

`TranscriptWriter` is fed what the reducer reports (`write_changes(state, changes)`) and appends one
record per thing that happened, flushing after every call, so a crash of acp-tui itself loses nothing
that was on screen. It keeps no copy of the conversation: new values are read from the `SessionState`
(the change says what changed, the model holds the value) and only each terminal's small incremental
decoder survives between calls.

Every string is sanitized (`acp_tui.sanitize`) before it is written and JSON escapes what control
characters remain, so `cat transcript.jsonl` never emits a raw escape sequence. A writing error (disk
full, permission) never reaches the caller: the writer disables itself and exposes `.error` once.

Record shapes (`"ev"` names the record; `"at"` is the Unix time; entity records carry `"type"`/`"id"`):
`open` (label), `added` (entity rendered whole), `text` (appended text), `content` (an appended
non-text item rendered to text), `output` (terminal text), `replaced` (the entity's whole new
content), `changed` (`fields`: new values as plain JSON), `removed`, `state`, `notice` (`live: true`),
`usage`, `info`, `commands`, `config`, `permissions`, `submission`, `problem`, `note` (agent
exit/restart and other client lines).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Final

import msgspec
from msgspec import UNSET

from acp_tui import paths
from acp_tui.ansi import TerminalDecoder
from acp_tui.protocol.v2 import (
    AudioContent,
    BlobResourceContents,
    Diff,
    EmbeddedResource,
    ImageContent,
    PlanItems,
    ResourceLink,
    TerminalRef,
    TextContent,
    TextResourceContents,
    ToolContent,
    UnknownContent,
    UnknownToolContent,
)
from acp_tui.sanitize import multiline, plain
from acp_tui.session.changes import (
    BytesAppended,
    Change,
    CommandsChanged,
    ConfigChanged,
    ContentAppended,
    ContentReplaced,
    EntityAdded,
    EntityChanged,
    EntityRemoved,
    InfoChanged,
    NoticeRaised,
    PermissionsChanged,
    AgentGone,
    ProblemAdded,
    StateChanged,
    SubmissionChanged,
    TextAppended,
    UsageChanged,
)
from acp_tui.session.model import (
    Compaction,
    Entity,
    EntityKey,
    Message,
    Plan,
    SessionState,
    Terminal,
    ToolCall,
    UnknownEntry,
)

__all__ = ["TranscriptWriter", "transcript_path", "load_records", "render_markdown", "FORMAT_VERSION"]

#: Bumped when a record shape changes incompatibly.
FORMAT_VERSION: Final = 1
#: Raw tool input/output and unknown payloads longer than this (as JSON) are stored as truncated text.
RAW_LIMIT: Final = 64 * 1024

_encoder = msgspec.json.Encoder()


# -- file naming ---------------------------------------------------------------------------------------


def transcript_path(session_label: str, started: datetime) -> Path:
    """`<transcripts dir>/<YYYYmmdd-HHMMSS>-<short session id>.jsonl`; the label is reduced to a safe slug."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "", plain(session_label))[:16] or "session"
    return paths.transcripts_dir() / f"{started:%Y%m%d-%H%M%S}-{slug}.jsonl"


# -- rendering values to plain, safe text / JSON ---------------------------------------------------------


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


def _block_text(block: Any) -> str:
    """One content block as text: text verbatim, anything else as a one-line bracketed placeholder."""
    kind = type(block)
    if kind is TextContent:
        return multiline(block.text)
    if kind is ImageContent:
        return f"[image {plain(block.mime_type)}]"
    if kind is AudioContent:
        return f"[audio {plain(block.mime_type)}]"
    if kind is ResourceLink:
        return f"[resource link {plain(block.name)} <{plain(block.uri)}>]"
    if kind is EmbeddedResource:
        res = block.resource
        if type(res) is TextResourceContents:
            return f"[resource {plain(res.uri)}]\n{multiline(res.text)}"
        if type(res) is BlobResourceContents:
            return f"[binary resource {plain(res.uri)}]"
        return "[resource]"
    if kind is UnknownContent:
        return f"[unsupported content {plain(block.type)}]"
    return f"[{plain(kind.__name__)}]"


def _appended_block_text(block: Any) -> str:
    """A non-text block appended to a stream: on its own line, so it never glues onto the prose."""
    return f"\n{_block_text(block)}\n"


def _blocks_text(blocks: Iterable[Any]) -> str:
    """A message's blocks as it streams: text blocks joined as they are, others on their own lines."""
    return "".join(_block_text(b) if type(b) is TextContent else _appended_block_text(b) for b in blocks)


def _tool_content_text(item: Any) -> str:
    kind = type(item)
    if kind is ToolContent:
        return _block_text(item.content)
    if kind is Diff:
        if item.patch is not UNSET and item.patch is not None:
            return multiline(item.patch.text)
        return "\n".join(f"[{plain(c.operation)} {plain(c.path)}]" for c in item.changes)
    if kind is TerminalRef:
        return f"[terminal {plain(item.terminal_id)}]"
    if kind is UnknownToolContent:
        return f"[unsupported tool content {plain(item.type)}]"
    diff_path = getattr(item, "path", None)  # a v1 diff that bypassed the adapter
    if isinstance(diff_path, str):
        return f"[diff {plain(diff_path)}]"
    return f"[{plain(kind.__name__)}]"


def _tool_contents_text(items: Iterable[Any]) -> str:
    return "\n".join(_tool_content_text(item) for item in items)


def _plan_json(plan: Any) -> dict[str, Any]:
    if type(plan) is PlanItems:
        return {
            "entries": [
                {"content": multiline(e.content), "priority": plain(e.priority), "status": plain(e.status)}
                for e in plan.entries
            ]
        }
    return {"unsupported": plain(str(getattr(plan, "type", "?"))), "raw": _raw(getattr(plan, "raw", None))}


def _exit_json(exit_status: Any) -> Any:
    if exit_status is None or exit_status is UNSET:
        return None
    return {
        "exit_code": exit_status.exit_code if isinstance(exit_status.exit_code, int) else None,
        "signal": plain(exit_status.signal) if isinstance(exit_status.signal, str) else None,
    }


def _opt_plain(value: Any) -> str | None:
    return plain(value) if isinstance(value, str) else None


def _tool_field(call: ToolCall, name: str) -> Any:
    if name == "title":
        return _opt_plain(call.title)
    if name in ("kind", "status", "name"):
        return _opt_plain(getattr(call, name))
    if name == "locations":
        return [
            {"path": plain(loc.path), "line": loc.line if isinstance(loc.line, int) else None}
            for loc in call.locations or []
        ]
    if name in ("raw_input", "raw_output"):
        return _raw(getattr(call, name))
    if name == "cancelling":
        return call.cancelling
    return UNSET  # meta and anything unknown: not part of the transcript


def _entity_fields(entity: Entity, names: Iterable[str]) -> dict[str, Any]:
    """The named fields of an entity as plain JSON (fields with no transcript value are left out)."""
    out: dict[str, Any] = {}
    for name in sorted(names):
        value: Any = UNSET
        if type(entity) is ToolCall:
            value = _tool_field(entity, name)
        elif type(entity) is Terminal:
            if name in ("command", "cwd"):
                value = _opt_plain(getattr(entity, name))
            elif name == "exit_status":
                value = _exit_json(entity.exit_status)
        elif type(entity) is Compaction:
            if name == "status":
                value = plain(entity.status)
            elif name == "error":
                value = _opt_plain(entity.error)
        elif type(entity) is Plan and name == "plan":
            value = _plan_json(entity.plan)
        elif type(entity) is Message and name == "local_echo":
            value = entity.local_echo
        if value is not UNSET:
            out[name] = value
    return out


def _entity_content_text(entity: Entity) -> str:
    """The entity's whole content as text (what a `replaced` record carries)."""
    if type(entity) is Message:
        return _blocks_text(entity.content.blocks)
    if type(entity) is ToolCall:
        return _tool_contents_text(entity.content)
    if type(entity) is Compaction:
        return _blocks_text(entity.summary.blocks)
    if type(entity) is Terminal:
        return _terminal_text(TerminalDecoder(), bytes(entity.output))
    return ""


def _terminal_text(decoder: TerminalDecoder, data: bytes) -> str:
    return multiline("".join(segment.text for segment in decoder.feed(data)))


def _entity_record(entity: Entity) -> dict[str, Any]:
    """An `added` record: the entity rendered whole, as it is now."""
    record: dict[str, Any] = {}
    if type(entity) is Message:
        record["text"] = _blocks_text(entity.content.blocks)
        record["local_echo"] = entity.local_echo
    elif type(entity) is ToolCall:
        record.update(_entity_fields(entity, ("title", "kind", "status", "locations", "name")))
        record["text"] = _tool_contents_text(entity.content)
    elif type(entity) is Terminal:
        record.update(_entity_fields(entity, ("command", "cwd", "exit_status")))
        record["text"] = _entity_content_text(entity)
    elif type(entity) is Plan:
        record["plan"] = _plan_json(entity.plan)
    elif type(entity) is Compaction:
        record.update(_entity_fields(entity, ("status", "error")))
        record["text"] = _blocks_text(entity.summary.blocks)
    elif type(entity) is UnknownEntry:
        record["kind"] = plain(entity.kind)
        record["raw"] = _raw(entity.raw)
    return record


def _error_json(error: Any) -> Any:
    if error is None or error is UNSET:
        return None
    return {"code": getattr(error, "code", None), "message": multiline(str(getattr(error, "message", "")))}


def _id_json(request_id: Any) -> Any:
    return request_id if isinstance(request_id, int) else plain(str(request_id))


# -- the writer --------------------------------------------------------------------------------------


class TranscriptWriter:
    """Appends JSON Lines records for one session to `path`; never raises into its caller.

    The file (and its directory) is created on the first write, private to the user. After any
    error `enabled` is false, `error` says why, and every later call does nothing.
    """

    __slots__ = ("path", "label", "error", "_file", "_decoders", "_closed")

    def __init__(self, path: Path, label: str = "") -> None:
        self.path: Path = path
        self.label: str = label
        #: why the writer stopped (first error only); `None` while it works
        self.error: str | None = None
        self._file: IO[bytes] | None = None
        #: one incremental decoder per terminal, so escape sequences and UTF-8 split across chunks decode whole
        self._decoders: dict[EntityKey, TerminalDecoder] = {}
        self._closed = False

    @property
    def enabled(self) -> bool:
        return self.error is None and not self._closed

    # -- public API ------------------------------------------------------------------------------

    def write_changes(self, state: SessionState, changes: Iterable[Change]) -> None:
        """Record one batch of reducer changes (values read from `state`), then flush."""
        if not self.enabled:
            return
        try:
            records = self._records(state, changes)
            if records:
                self._write(records)
        except Exception as exc:  # noqa: BLE001 - the transcript must never take the session down
            self._fail(exc)

    def note(self, text: str, kind: str = "note") -> None:
        """Record a client line (agent exited/restarted, session resumed, ...) that no change reports."""
        if not self.enabled:
            return
        try:
            self._write([{"ev": "note", "kind": plain(kind), "text": multiline(text)}])
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)

    def close(self) -> None:
        """Flush and close the file; later calls do nothing."""
        self._closed = True
        file, self._file = self._file, None
        self._decoders.clear()
        if file is not None:
            try:
                file.close()
            except OSError as exc:
                if self.error is None:
                    self.error = _describe(exc)

    # -- internals -------------------------------------------------------------------------------

    def _fail(self, exc: BaseException) -> None:
        if self.error is None:
            self.error = _describe(exc)
        file, self._file = self._file, None
        self._decoders.clear()
        if file is not None:
            try:
                file.close()
            except Exception:  # noqa: BLE001 - already failed; closing is best effort
                pass

    def _open(self) -> IO[bytes]:
        paths.ensure_dir(self.path.parent)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        file = os.fdopen(fd, "ab")
        header = {"ev": "open", "at": round(time.time(), 3), "format": FORMAT_VERSION, "label": plain(self.label)}
        file.write(_encoder.encode(header) + b"\n")
        return file

    def _write(self, records: list[dict[str, Any]]) -> None:
        file = self._file
        if file is None:
            file = self._file = self._open()
        now = round(time.time(), 3)
        lines = []
        for record in records:
            record["at"] = now
            lines.append(_encoder.encode(record))
        lines.append(b"")
        file.write(b"\n".join(lines))
        file.flush()

    def _records(self, state: SessionState, changes: Iterable[Change]) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        added: set[EntityKey] = set()
        # Consecutive appends to one key merge into one record; their parts are joined once at the end.
        run: tuple[type, EntityKey] | None = None
        parts: list[str] = []
        for change in changes:
            kind = type(change)
            if kind is TextAppended or kind is BytesAppended:
                key = change.key  # type: ignore[union-attr]
                if key in added:
                    continue
                if kind is TextAppended:
                    text = multiline(change.text)  # type: ignore[union-attr]
                else:
                    text = _terminal_text(self._decoder(key), change.data)  # type: ignore[union-attr]
                if run != (kind, key):
                    _end_run(records, parts)
                    parts = []
                    ev = "text" if kind is TextAppended else "output"
                    records.append({"ev": ev, "type": key[0], "id": plain(key[1]), "text": parts})
                    run = (kind, key)
                parts.append(text)
                continue
            if run is not None:
                _end_run(records, parts)
                run, parts = None, []
            record = self._record(state, change, added)
            if record is not None:
                records.append(record)
        if run is not None:
            _end_run(records, parts)
        return records

    def _decoder(self, key: EntityKey) -> TerminalDecoder:
        """The terminal's decoder; made on first use when the writer started after the terminal did."""
        decoder = self._decoders.get(key)
        if decoder is None:
            decoder = self._decoders[key] = TerminalDecoder()
        return decoder

    def _record(self, state: SessionState, change: Change, added: set[EntityKey]) -> dict[str, Any] | None:
        kind = type(change)
        if kind is EntityAdded:
            key = change.key  # type: ignore[union-attr]
            entity = state.entities.get(key)
            if entity is None:
                return None
            added.add(key)
            record = {"ev": "added", "type": key[0], "id": plain(key[1])}
            if type(entity) is Terminal:
                # Continue decoding the live stream from where this snapshot ends.
                decoder = self._decoders[key] = TerminalDecoder()
                record.update(_entity_record(entity))
                record["text"] = _terminal_text(decoder, bytes(entity.output))
            else:
                record.update(_entity_record(entity))
            return record
        if kind is ContentAppended or kind is ContentReplaced or kind is EntityChanged:
            key = change.key  # type: ignore[union-attr]
            entity = state.entities.get(key)
            if key in added or entity is None:
                return None
            base = {"type": key[0], "id": plain(key[1])}
            if kind is ContentAppended:
                item = change.item  # type: ignore[union-attr]
                text = _tool_content_text(item) if type(entity) is ToolCall else _appended_block_text(item)
                return {"ev": "content", **base, "text": text}
            if kind is ContentReplaced:
                if type(entity) is Terminal:
                    decoder = self._decoders[key] = TerminalDecoder()
                    return {"ev": "replaced", **base, "text": _terminal_text(decoder, bytes(entity.output))}
                return {"ev": "replaced", **base, "text": _entity_content_text(entity)}
            fields = _entity_fields(entity, change.fields)  # type: ignore[union-attr]
            return {"ev": "changed", **base, "fields": fields} if fields else None
        if kind is EntityRemoved:
            key = change.key  # type: ignore[union-attr]
            added.discard(key)
            self._decoders.pop(key, None)
            return {"ev": "removed", "type": key[0], "id": plain(key[1])}
        if kind is StateChanged:
            fg = state.foreground
            return {
                "ev": "state", "state": plain(fg.state), "busy": fg.busy,
                "stop_reason": _opt_plain(fg.stop_reason), "error": _error_json(fg.error),
            }
        if kind is NoticeRaised:
            notice = change.notice  # type: ignore[union-attr]
            description = notice.description if isinstance(notice.description, str) else None
            return {
                "ev": "notice", "live": True, "severity": plain(notice.severity), "title": plain(notice.title),
                "description": multiline(description) if description is not None else None,
            }
        if kind is UsageChanged:
            usage = state.usage
            if usage is None:
                return None
            cost = None
            if usage.cost is not None:
                cost = {"amount": usage.cost.amount, "currency": plain(usage.cost.currency)}
            return {"ev": "usage", "used": usage.used, "size": usage.size, "cost": cost}
        if kind is InfoChanged:
            info = state.info
            info_fields: dict[str, Any] = {}
            for name in sorted(change.fields):  # type: ignore[union-attr]
                if name in ("title", "updated_at"):
                    info_fields[name] = _opt_plain(getattr(info, name))
            return {"ev": "info", "fields": info_fields} if info_fields else None
        if kind is CommandsChanged:
            return {"ev": "commands", "names": [plain(c.name) for c in state.commands]}
        if kind is ConfigChanged:
            options = {
                plain(str(getattr(o, "config_id", ""))): _clean(getattr(o, "current_value", None))
                for o in state.config_options
            }
            return {"ev": "config", "options": options}
        if kind is PermissionsChanged:
            return {
                "ev": "permissions",
                "open": [_id_json(rid) for rid in state.permissions],
                "resolved": [[_id_json(rid), plain(outcome)] for rid, outcome in change.resolved],  # type: ignore[union-attr]
            }
        if kind is SubmissionChanged:
            rid = change.request_id  # type: ignore[union-attr]
            submission = state.submissions.get(rid)
            if submission is None:
                return {"ev": "submission", "request_id": _id_json(rid), "status": "settled"}
            return {
                "ev": "submission", "request_id": _id_json(rid), "status": plain(submission.status),
                "text": _blocks_text(submission.blocks), "error": _error_json(submission.error),
            }
        if kind is AgentGone:
            return {"ev": "exit", "detail": plain(change.detail)}  # type: ignore[union-attr]
        if kind is ProblemAdded:
            return {
                "ev": "problem", "reason": plain(change.reason),  # type: ignore[union-attr]
                "detail": multiline(change.detail),  # type: ignore[union-attr]
            }
        return {"ev": "unhandled", "change": plain(kind.__name__)}


def _end_run(records: list[dict[str, Any]], parts: list[str]) -> None:
    """Finish the open append record: join its parts, or drop it if it turned out empty."""
    if records and isinstance(records[-1].get("text"), list):
        text = "".join(parts)
        if text:
            records[-1]["text"] = text
        else:
            records.pop()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"transcript disabled: {exc.strerror}{where}"
    return f"transcript disabled: {type(exc).__name__}: {exc}"


# -- reading back ---------------------------------------------------------------------------------------


def load_records(path: Path) -> list[dict[str, Any]]:
    """Every complete record in a transcript; undecodable lines (a crash mid-write) are skipped."""
    records: list[dict[str, Any]] = []
    with open(path, "rb") as file:
        for line in file:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("ev"), str):
                records.append(record)
    return records


class _Block:
    """One entity of the Markdown export, filled in as its records are replayed."""

    __slots__ = ("type", "text", "fields", "removed")

    def __init__(self, entity_type: str) -> None:
        self.type = entity_type
        self.text = ""
        self.fields: dict[str, Any] = {}
        self.removed = False


_HEADINGS: Final = {"user_message": "User", "agent_message": "Agent"}


def render_markdown(path: Path) -> str:
    """The transcript as a readable Markdown conversation (for export and tests); tolerates a torn last line."""
    items: list[_Block | str] = []
    blocks: dict[tuple[str, str], _Block] = {}
    for rec in load_records(path):
        ev = rec["ev"]
        key = (str(rec.get("type", "")), str(rec.get("id", "")))
        if ev == "added":
            fresh = _Block(key[0])
            fresh.text = str(rec.get("text", ""))
            fresh.fields = {k: v for k, v in rec.items() if k not in ("ev", "type", "id", "text", "at")}
            previous = blocks.get(key)
            if previous is None:
                items.append(fresh)
            else:  # added again without a removal: the new snapshot takes the old one's place
                items[items.index(previous)] = fresh
            blocks[key] = fresh
            continue
        if ev == "note" and rec.get("kind") == "restart":
            blocks = {}  # a new agent process: its ids (often reused, e.g. "user-msg-1") name new entities
        block = blocks.get(key)
        if ev == "removed" and block is not None:
            block.removed = True
            del blocks[key]
        elif ev in ("text", "content", "output") and block is not None:
            block.text += str(rec.get("text", ""))
        elif ev == "replaced" and block is not None:
            block.text = str(rec.get("text", ""))
        elif ev == "changed" and block is not None and isinstance(rec.get("fields"), dict):
            block.fields.update(rec["fields"])
        elif ev not in ("text", "content", "output", "replaced", "changed", "removed"):
            line = _event_line(rec)
            if line:
                items.append(line)
    parts = [item if isinstance(item, str) else _render_block(item) for item in items
             if isinstance(item, str) or not item.removed]
    return "\n\n".join(p for p in parts if p) + "\n"


def _fence(text: str, info: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _render_block(block: _Block) -> str:
    f = block.fields
    if block.type in _HEADINGS:
        return f"### {_HEADINGS[block.type]}\n\n{block.text}"
    if block.type == "agent_thought":
        return _quote(f"*Thought:*\n{block.text}")
    if block.type == "tool_call":
        head = f"**Tool call:** {f.get('title') or '(untitled)'} — {f.get('status', 'pending')}"
        if f.get("kind") and f.get("kind") != "other":
            head += f" ({f['kind']})"
        if f.get("cancelling") and f.get("status") not in ("completed", "failed", "cancelled"):
            head += " (cancelling)"
        locations = f.get("locations") or []
        if locations:
            head += "\n" + "\n".join(
                f"- `{loc.get('path')}`" + (f":{loc['line']}" if loc.get("line") is not None else "")
                for loc in locations if isinstance(loc, dict)
            )
        return head + ("\n\n" + _fence(block.text) if block.text else "")
    if block.type == "terminal":
        head = f"**Terminal:** `{f.get('command') or '?'}`"
        exit_status = f.get("exit_status")
        if isinstance(exit_status, dict):
            code, signal = exit_status.get("exit_code"), exit_status.get("signal")
            how = " ".join(part for part in (str(code) if code is not None else "", f"({signal})" if signal else "") if part)
            head += f" — exited {how}".rstrip()
        return head + ("\n\n" + _fence(block.text) if block.text else "")
    if block.type == "plan":
        raw_plan = f.get("plan")
        plan = raw_plan if isinstance(raw_plan, dict) else {}
        entries = plan.get("entries")
        if not isinstance(entries, list):
            return f"**Plan:** unsupported plan type {plan.get('unsupported', '?')}"
        marks = {"completed": "[x]", "in_progress": "[~]"}
        lines = [
            f"- {marks.get(str(e.get('status')), '[ ]')} {e.get('content', '')}"
            for e in entries if isinstance(e, dict)
        ]
        return "**Plan:**\n" + "\n".join(lines)
    if block.type == "compaction":
        head = f"**Context compaction** — {f.get('status', '')}"
        if f.get("error"):
            head += f" (error: {f['error']})"
        summary = block.text.strip("\n")
        return head + ("\n\n" + _quote(summary) if summary else "")
    if block.type == "unknown":
        return f"*Unsupported update `{f.get('kind', '?')}`*"
    return block.text


def _event_line(rec: dict[str, Any]) -> str:
    """The Markdown for a record beside the timeline ('' for ones the export leaves out)."""
    ev = rec["ev"]
    if ev == "state":
        line = f"*State: {rec.get('state')}"
        if rec.get("stop_reason"):
            line += f" ({rec['stop_reason']})"
        error = rec.get("error")
        if isinstance(error, dict) and error.get("message"):
            line += f" — error {error.get('code')}: {error['message']}"
        return line + "*"
    if ev == "notice":
        line = f"> **Notice ({rec.get('severity')}):** {rec.get('title')}"
        if rec.get("description"):
            line += f" — {rec['description']}"
        return line
    if ev == "exit":
        return f"*agent exited: {rec.get('detail', '')}*"
    if ev == "problem":
        return f"*Protocol problem: {rec.get('reason')}" + (f" — {rec['detail']}*" if rec.get("detail") else "*")
    if ev == "note":
        return f"*{rec.get('text')}*"
    if ev == "info" and isinstance(rec.get("fields"), dict) and rec["fields"].get("title"):
        return f"*Session title: {rec['fields']['title']}*"
    if ev == "submission" and rec.get("status") in ("failed", "cancelled", "unknown"):
        line = f"*Prompt {rec['status']}:* {rec.get('text', '')}"
        error = rec.get("error")
        if isinstance(error, dict) and error.get("message"):
            line += f" — {error['message']}"
        return line
    return ""
