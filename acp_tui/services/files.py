"""The file service: v1 `fs/read_text_file` and `fs/write_text_file`, answered here, visibly and safely.

Advertised as v1 `clientCapabilities.fs.readTextFile` / `writeTextFile` (v2 has no client file system,
docs/protocol.md §10.2). Both methods are answered whenever the service is installed, even to an agent
we did not offer them to (opencode writes regardless; a v2 agent may too): that is noted as a protocol
problem, reads are served by the rules below, and every such write is put to the user (or refused by
setting) as if it were outside the folder — never written silently.

Reads take an absolute path, optionally from 1-based `line` for `limit` lines (`line` 0 counts as 1).
Only regular files are read (a FIFO or device could block or never end); a whole-file read is refused
above `max_read_bytes` (10 MB) and a ranged read streams lines, holding at most that much, so a 2 GB
file never enters memory. Text with a NUL byte or that is not UTF-8 is refused as binary.

**A file that does not exist.** The spec is silent. Gemini CLI 0.61 reads a file before creating it
and takes any JSON-RPC error as a failure ("Error checking existing file"), so it could never create
one. Inside the session's working directory a missing file therefore reads as empty text (a new,
empty buffer, as an editor would show it); outside it, it is an error (-32002).

Writes go inside the session's working directory, judged after resolving symlinks and `..` (for a
new file, of its deepest existing ancestor): written atomically (a temporary file in the same folder,
then `os.replace`), keeping the existing file's mode (and owner, where allowed), creating parent
folders as needed. A write outside the folder is asked of the user through `FileAsker` (the dialog
names the resolved path and shows the diff) or refused when `outside_writes = "refuse"`.

**Exactly the file judged.** Every read and write opens the resolved path one folder at a time with
O_NOFOLLOW and works by descriptor (`acp_tui.services.beneath`): the temporary file is made and renamed
relative to the folder's descriptor, after checking the folder is still where it was judged; it is
removed on every failure. A file made, removed or changed since it was looked at (while the dialog was
open, say) is not replaced: the change shown would not be the change made. An agent swapping a folder for a symlink meanwhile gets a clear error ("the
folder race changed while writing; nothing was written"), never a write or read elsewhere (issue 21).

Every access shows in the timeline (`acp_tui.session.local_events.FileAccessed`): a read as one line, a write
with its diff; in the tool call it belongs to when that is certain. Errors: -32602 for what the request
asks that cannot be served as text (relative path, directory, binary, too large, refused), -32002 for
a missing file outside the folder, -32603 for an operating-system failure (or a question that could
not be put), -32800 when the user cancels the turn while a write waits for an answer.
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, BinaryIO, Final, Literal, Protocol, assert_never

import msgspec

from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.fs import (
    READ_TEXT_FILE,
    WRITE_TEXT_FILE,
    ReadTextFileRequest,
    ReadTextFileResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
    decode_read_text_file,
    decode_write_text_file,
    meta_tool_call_id,
)
from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    REQUEST_CANCELLED,
    RESOURCE_NOT_FOUND,
    Request,
    RpcError,
)
from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch
from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler
from acp_tui.services.beneath import PathChanged, open_file, open_folder, still_at
from acp_tui.session.diffs import Limits, parse_patch, unified_diff
from acp_tui.session.local_events import FileAccessed, FileAccessStatus

__all__ = [
    "MAX_READ_BYTES",
    "MAX_DIFF_TEXT",
    "OutsideWrites",
    "OutsideReads",
    "OutsideReason",
    "OutsideWrite",
    "OutsideRead",
    "FileAsker",
    "FileService",
]

#: The most a read holds in memory (a whole file, or the lines of a range).
MAX_READ_BYTES: Final = 10 * 1024 * 1024
#: Texts longer than this are not read whole and diffed for the timeline or the dialog.
MAX_DIFF_TEXT: Final = 256 * 1024
#: Bytes read per step while streaming lines (a 2 GB line is read in steps, never whole).
_CHUNK: Final = 64 * 1024

#: What to do with a write outside the working directory: ask the user, or refuse it.
OutsideWrites = Literal["ask", "refuse"]
#: What to do with a read outside the working directory: serve it (shown as outside), ask, or refuse.
OutsideReads = Literal["allow", "ask", "refuse"]
#: Why a write is put to the user: it is outside the folder, or file access was never offered.
OutsideReason = Literal["outside", "not_offered"]


class OutsideWrite(msgspec.Struct, frozen=True):
    """A write the user must allow: where it goes (resolved) and what it changes."""

    #: the file that would be written: absolute, symlinks and `..` resolved
    path: Path
    #: the session's working directory (the dialog shows `path` relative to it, or with `~`)
    cwd: Path
    #: the previous text; `None` for a new file or when it is binary or too large to show
    old_text: str | None
    new_text: str
    #: the file does not exist yet
    created: bool
    reason: OutsideReason
    #: the change as a git-style patch (path relative to `cwd` or absolute); `None` when too large to show
    diff: Diff | None = None


class OutsideRead(msgspec.Struct, frozen=True):
    """A read outside the folder the user must allow (`outside_reads = "ask"`): the file, resolved."""

    #: the file that would be read: absolute, symlinks and `..` resolved
    path: Path
    #: the session's working directory
    cwd: Path
    #: the path as the agent sent it (differs from `path` when it went through a link or `..`)
    requested: str
    #: True: not the agent's read but the user's own @-mention, which leads outside through a link
    #: (controller/mention_guard.py); the same rule governs it
    mention: bool = False


class FileAsker(Protocol):
    """How the user is asked about a write (or, by setting, a read) outside the folder; the screen
    implements it with dialogs (`acp_tui.ui.dialogs.outside_write`, `outside_read`), tests with a script.
    Cancelled when the question is withdrawn (the turn was cancelled, the agent withdrew the request or
    went away)."""

    async def confirm_outside_write(self, write: OutsideWrite) -> bool:
        """True to write the file, False to refuse."""
        ...

    async def confirm_outside_read(self, read: OutsideRead) -> bool:
        """True to read the file, False to refuse."""
        ...


class _Refused(Exception):
    """A file request that cannot be served: the JSON-RPC error for the agent (naming the path), the
    short reason for the timeline's line (which shows the path already) and its status."""

    def __init__(self, code: int, message: str, detail: str, status: FileAccessStatus = "failed") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail
        self.status = status


class _Read(msgspec.Struct, frozen=True):
    text: str
    #: lines returned, when a range was asked
    line_count: int | None
    missing: bool = False


class _Existing(msgspec.Struct, frozen=True):
    """What a write would replace (nothing when `created`, else a regular file's text when small text,
    its mode and owner) and the change it makes, diffed off the event loop."""

    created: bool
    old_text: str | None
    mode: int | None
    owner: tuple[int, int] | None
    binary: bool = False
    diff: Diff | None = None
    added: int = 0
    removed: int = 0
    #: the file looked at (device, inode, size, modification time): what the diff and the dialog showed
    identity: tuple[int, int, int, int] | None = None


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


class FileService:
    """Answers v1 `fs/*` for one session's working directory (see the module docstring)."""

    name = "fs"

    def __init__(
        self,
        asker: FileAsker | None = None,
        *,
        offer: bool = True,
        outside_writes: OutsideWrites = "ask",
        outside_reads: OutsideReads = "allow",
        max_read_bytes: int = MAX_READ_BYTES,
    ) -> None:
        #: asks the user about writes (and reads, by setting) outside the folder; without one they are refused
        self.asker = asker
        #: advertise `fs` in v1 (the `client_files` setting); the methods are answered either way
        self.offer = offer
        self.outside_writes: OutsideWrites = outside_writes
        self.outside_reads: OutsideReads = outside_reads
        self.max_read_bytes = max_read_bytes
        self._context: ServiceContext | None = None
        self._asks: set[asyncio.Task[bool]] = set()
        #: writes go one at a time, question included: what was inspected is what gets replaced, in the
        #: agent's order, and the user sees one question at a time
        self._writing = asyncio.Lock()
        #: questions about reads go one at a time too
        self._asking_read = asyncio.Lock()

    # -- ClientService -------------------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        if not self.offer:
            return Capabilities()
        return Capabilities(v1={"fs": {"readTextFile": True, "writeTextFile": True}})

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {READ_TEXT_FILE: self._read_text_file, WRITE_TEXT_FILE: self._write_text_file}

    def bind(self, context: ServiceContext) -> None:
        self._context = context

    def turn_cancelled(self) -> None:
        self._withdraw()

    async def close(self) -> None:
        self._withdraw()

    def _withdraw(self) -> None:
        """Take every open question back from the user (its write is answered -32800, nothing written)."""
        for task in list(self._asks):
            task.cancel()

    # -- common --------------------------------------------------------------------------------------

    @property
    def context(self) -> ServiceContext:
        assert self._context is not None, "bound before the first request"
        return self._context

    def _advertised(self) -> bool:
        """Did this connection's `initialize` offer `fs`? Only v1 has it (docs/protocol.md §10.2)."""
        return self.offer and self.context.version == 1

    def _check_request(self, method: str, session_id: str, requested: str, raw: bytes) -> Path:
        """The absolute path asked for (not yet resolved); -32602 for a relative one or another session."""
        context = self.context
        current = context.session_id()
        if current is not None and session_id != current:
            context.report(f"{method} for unknown session {session_id!r}", raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: unknown session {session_id!r}")
        if "\0" in requested or not os.path.isabs(requested):
            context.report(f"{method} with a path that is not absolute: {requested!r}", raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: the path must be absolute, not {requested!r}")
        if not self._advertised():
            context.report(f"{method} although the client did not offer file access; answered anyway", raw)
        return Path(requested)

    def _inside(self, path: Path) -> bool:
        """In the session folder or one of the extra folders the agent was given (`additionalDirectories`)."""
        return any(path == root or path.is_relative_to(root) for root in (self.context.cwd, *self.context.roots))

    # -- fs/read_text_file ---------------------------------------------------------------------------

    async def _read_text_file(self, request: Request) -> ReadTextFileResponse:
        raw = bytes(request.params)
        try:
            params = decode_read_text_file(raw)
        except MalformedMessage as exc:
            self.context.report(f"malformed {READ_TEXT_FILE}: {exc.reason}", exc.raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc.reason}") from None
        requested = self._check_request(READ_TEXT_FILE, params.session_id, params.path, raw)
        line = params.line if isinstance(params.line, int) else None
        limit = params.limit if isinstance(params.limit, int) else None
        path = requested
        outside = False
        try:
            path = _resolve(requested, "reading", "nothing was read")
            outside = not self._inside(path)
            if outside:
                await self._allow_outside_read(OutsideRead(path=path, cwd=self.context.cwd, requested=params.path))
            result = await asyncio.to_thread(
                _read, path, line, limit, self.max_read_bytes, not outside, self.context.cwd
            )
        except _Refused as exc:
            self._show_read(params, path, status=exc.status, detail=exc.detail, outside=outside)
            raise RpcError(exc.code, exc.message) from None
        except asyncio.CancelledError:
            self._show_read(params, path, status="cancelled", detail="withdrawn by the agent", outside=outside)
            raise
        ranged = line is not None or limit is not None
        detail = "does not exist: read as empty" if result.missing else ""
        self._show_read(
            params,
            path,
            detail=detail,
            first_line=max(line or 1, 1) if ranged else None,
            line_count=result.line_count,
            outside=outside,
        )
        return ReadTextFileResponse(content=result.text)

    async def _allow_outside_read(self, read: OutsideRead) -> None:
        """Returns when a read outside the folder may go ahead: always (`allow`), when the user says yes
        (`ask`), never (`refuse`)."""
        where = "outside the session folder"
        match self.outside_reads:
            case "allow":
                return
            case "refuse":
                raise _Refused(
                    INVALID_PARAMS,
                    f'refused: reading {read.path} {where} is turned off (outside_reads = "refuse")',
                    f'{where}: turned off (outside_reads = "refuse")',
                    "refused",
                )
            case "ask":
                pass
            case _:
                assert_never(self.outside_reads)
        if self.asker is None:
            raise _Refused(
                INVALID_PARAMS,
                f"refused: reading {read.path} {where} needs the user's consent",
                f"{where}: nobody to ask",
                "refused",
            )
        async with self._asking_read:
            await self._put(self.asker.confirm_outside_read(read), "reading", read.path, where)

    def _show_read(
        self,
        params: ReadTextFileRequest,
        path: Path,
        *,
        status: FileAccessStatus = "done",
        detail: str = "",
        first_line: int | None = None,
        line_count: int | None = None,
        outside: bool = False,
    ) -> None:
        self.context.apply(
            FileAccessed(
                kind="read",
                path=str(path),
                cwd=str(self.context.cwd),
                status=status,
                detail=detail,
                requested_path=params.path,
                first_line=first_line,
                line_count=line_count,
                tool_call_id=meta_tool_call_id(params.meta),
                outside=outside,
            )
        )

    # -- fs/write_text_file --------------------------------------------------------------------------

    async def _write_text_file(self, request: Request) -> WriteTextFileResponse:
        raw = bytes(request.params)
        try:
            params = decode_write_text_file(raw)
        except MalformedMessage as exc:
            self.context.report(f"malformed {WRITE_TEXT_FILE}: {exc.reason}", exc.raw)
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc.reason}") from None
        requested = self._check_request(WRITE_TEXT_FILE, params.session_id, params.path, raw)
        target = requested
        existing: _Existing | None = None
        committing: asyncio.Future[None] | None = None
        try:
            target = _resolve(requested, "writing", "nothing was written")
            try:
                data = params.content.encode("utf-8")
            except UnicodeEncodeError:
                raise _Refused(
                    INVALID_PARAMS,
                    "Invalid params: the content is not valid Unicode text",
                    "content is not valid Unicode",
                ) from None
            async with self._writing:
                existing = await asyncio.to_thread(
                    _inspect, target, params.content, self._label(target), self.context.cwd
                )
                reason: OutsideReason | None = None
                if not self._advertised():
                    reason = "not_offered"
                elif not self._inside(target):
                    reason = "outside"
                if reason is not None:
                    await self._confirm(
                        OutsideWrite(
                            path=target,
                            cwd=self.context.cwd,
                            old_text=existing.old_text,
                            new_text=params.content,
                            created=existing.created,
                            reason=reason,
                            diff=existing.diff,
                        )
                    )
                committing = asyncio.ensure_future(asyncio.to_thread(_commit, target, data, existing, self.context.cwd))
                await asyncio.shield(committing)
        except _Refused as exc:
            self._show_write(params, target, existing, status=exc.status, detail=exc.detail)
            raise RpcError(exc.code, exc.message) from None
        except asyncio.CancelledError:
            if committing is not None:
                # Withdrawn while the bytes were being written: the (atomic) write still ends, one way or
                # the other; show what happened to the file before letting the cancellation through.
                await asyncio.wait([committing])
                failure = committing.exception()
                if failure is None:
                    self._show_write(params, target, existing, detail="written; the agent withdrew the request")
                else:
                    self._show_write(params, target, existing, status="failed", detail=str(failure))
                raise
            self._show_write(params, target, existing, status="cancelled", detail="withdrawn by the agent")
            raise
        self._show_write(params, target, existing)
        return WriteTextFileResponse()

    async def _confirm(self, write: OutsideWrite) -> None:
        """Ask the user or refuse by setting; returns only when allowed (called under `_writing`)."""
        match write.reason:
            case "outside":
                where = "outside the session folder"
            case "not_offered":
                where = "without having been offered file access"
            case _:
                assert_never(write.reason)
        match self.outside_writes:
            case "refuse":
                raise _Refused(
                    INVALID_PARAMS,
                    f'refused: writing {write.path} {where} is turned off (outside_writes = "refuse")',
                    f'{where}: turned off (outside_writes = "refuse")',
                    "refused",
                )
            case "ask":
                pass
            case _:
                assert_never(self.outside_writes)
        if self.asker is None:
            raise _Refused(
                INVALID_PARAMS,
                f"refused: writing {write.path} {where} needs the user's consent",
                f"{where}: nobody to ask",
                "refused",
            )
        await self._put(self.asker.confirm_outside_write(write), "writing", write.path, where)

    async def _put(self, question: Coroutine[Any, Any, bool], doing: str, path: Path, where: str) -> None:
        """Put one question to the user; returns only when the answer is yes. A question withdrawn with
        the turn refuses (-32800), one that fails refuses too, never allows."""
        ask = asyncio.ensure_future(question)
        self._asks.add(ask)
        done = "read" if doing == "reading" else "written"
        try:
            allowed = await ask
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # this request was withdrawn by the agent, or the connection closed
            raise _Refused(
                REQUEST_CANCELLED,
                f"cancelled: the turn was cancelled before {path} was {done}",
                "the turn was cancelled",
                "cancelled",
            ) from None
        except Exception as exc:  # noqa: BLE001 - a question that fails refuses the access, never allows it
            raise _Refused(
                INTERNAL_ERROR,
                f"refused: could not ask the user about {doing} {path} ({exc})",
                f"{where}: could not ask you",
                "refused",
            ) from None
        finally:
            self._asks.discard(ask)
            if not ask.done():
                ask.cancel()
        if not allowed:
            raise _Refused(
                INVALID_PARAMS,
                f"refused: the user declined {doing} {path} {where}",
                f"{where}: you declined",
                "refused",
            )

    def _label(self, path: Path) -> str:
        """How a diff names the file: relative to the working directory when inside it, else absolute."""
        cwd = self.context.cwd
        return str(path.relative_to(cwd)) if path != cwd and path.is_relative_to(cwd) else str(path)

    def _show_write(
        self,
        params: WriteTextFileRequest,
        target: Path,
        existing: _Existing | None,
        *,
        status: FileAccessStatus = "done",
        detail: str = "",
    ) -> None:
        if existing is None:
            existing = _Existing(created=False, old_text=None, mode=None, owner=None)
        if status == "done" and not detail:
            if existing.binary:
                detail = "replaced a binary file"
            elif existing.diff is None:
                detail = "too large to show the change"
            elif not existing.created and not existing.added and not existing.removed:
                detail = "unchanged"
        self.context.apply(
            FileAccessed(
                kind="write",
                path=str(target),
                cwd=str(self.context.cwd),
                status=status,
                detail=detail,
                requested_path=params.path,
                created=existing.created,
                diff=existing.diff,
                added=existing.added,
                removed=existing.removed,
                tool_call_id=meta_tool_call_id(params.meta),
                outside=not self._inside(target),
            )
        )


# -- blocking file work (run in a worker thread) ------------------------------------------------------


def _os_error(verb: str, path: Path, exc: OSError) -> _Refused:
    reason = exc.strerror or str(exc)
    return _Refused(INTERNAL_ERROR, f"cannot {verb} {path}: {reason}", reason)


def _resolve(requested: Path, doing: str, outcome: str) -> Path:
    """`requested` with symlinks and `..` resolved; a clear refusal when that cannot be done (a link
    swapped while it is followed makes `realpath` fail) or the result is still a link (a loop)."""
    try:
        resolved = Path(os.path.realpath(requested))
        looping = os.path.islink(resolved)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise _Refused(
            INTERNAL_ERROR,
            f"{requested} changed while {doing} ({reason}); {outcome}",
            f"changed while {doing}; {outcome}",
        ) from None
    if looping:
        raise _Refused(
            INVALID_PARAMS,
            f"Invalid params: {requested} is a symbolic link that does not resolve (a loop)",
            "a symbolic link loop",
        )
    return resolved


def _changed(exc: PathChanged, target: Path, cwd: Path, doing: str, outcome: str) -> _Refused:
    """The refusal for a path that changed between judging and using it (see acp_tui.services.beneath)."""
    where = exc.path
    shown = str(where.relative_to(cwd)) if where != cwd and where.is_relative_to(cwd) else str(where)
    what = "file" if where == target else "folder"
    reason = f"the {what} {shown} changed while {doing}"
    return _Refused(INTERNAL_ERROR, f"{reason}; {outcome}", f"{reason}; {outcome}")


_READ_FLAGS: Final = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)


def _open_regular(path: Path, cwd: Path) -> int:
    """A descriptor for reading `path`, which must be a regular file, opened along its resolved path
    (acp_tui.services.beneath: no link followed, so it is the file judged); a FIFO or device is refused
    before anything blocks: O_NONBLOCK makes opening a FIFO return at once."""
    try:
        fd = open_file(path, _READ_FLAGS)
    except PathChanged as exc:
        raise _changed(exc, path, cwd, "reading", "nothing was read") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise _Refused(INVALID_PARAMS, f"Invalid params: {path} is a directory", "a directory")
        if not stat.S_ISREG(mode):
            raise _Refused(INVALID_PARAMS, f"Invalid params: {path} is not a regular file", "not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _decode(data: bytes, path: Path) -> str:
    if b"\0" in data:
        raise _Refused(
            INVALID_PARAMS, f"Invalid params: {path} is a binary file (it contains NUL bytes)", "binary (NUL bytes)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Refused(
            INVALID_PARAMS,
            f"Invalid params: {path} is not UTF-8 text (invalid byte at offset {exc.start})",
            "not UTF-8 text",
        ) from None


def _read(path: Path, line: int | None, limit: int | None, cap: int, inside: bool, cwd: Path) -> _Read:
    try:
        fd = _open_regular(path, cwd)
    except FileNotFoundError:
        if inside:
            return _Read("", 0 if line is not None or limit is not None else None, missing=True)
        raise _Refused(RESOURCE_NOT_FOUND, f"file not found: {path}", "not found") from None
    except OSError as exc:
        raise _os_error("read", path, exc) from None
    with os.fdopen(fd, "rb") as file:
        try:
            if line is None and limit is None:
                size = os.fstat(fd).st_size
                data = file.read(cap + 1) if size <= cap else b""
                if size > cap or len(data) > cap:
                    found = _megabytes(max(size, len(data)))
                    raise _Refused(
                        INVALID_PARAMS,
                        f"Invalid params: {path} is too large to read whole ({found}, the limit is "
                        f"{_megabytes(cap)}); ask for a range with line and limit",
                        f"too large to read whole ({found})",
                    )
                return _Read(_decode(data, path), None)
            data, count = _read_lines(file, max(line or 1, 1), limit, cap, path)
        except OSError as exc:
            raise _os_error("read", path, exc) from None
    return _Read(_decode(data, path), count)


def _read_lines(file: BinaryIO, first: int, limit: int | None, cap: int, path: Path) -> tuple[bytes, int]:
    """Lines `first`.. (1-based), at most `limit` of them, streamed in `_CHUNK` steps; holds ≤ `cap` bytes."""
    readline = file.readline
    number = 1
    while number < first:  # skip whole lines without keeping them
        piece: bytes = readline(_CHUNK)
        if not piece:
            return b"", 0
        if piece.endswith(b"\n"):
            number += 1
    kept = bytearray()
    count = 0
    ended = True  # the previous piece ended a line
    while limit is None or count < limit or not ended:
        piece = readline(_CHUNK)
        if not piece:
            break
        if ended:
            count += 1
        kept += piece
        if len(kept) > cap:
            raise _Refused(
                INVALID_PARAMS,
                f"Invalid params: the lines asked of {path} exceed {_megabytes(cap)}; ask for fewer lines",
                f"the lines asked exceed {_megabytes(cap)}",
            )
        ended = piece.endswith(b"\n")
    return bytes(kept), count


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _inspect(target: Path, new_text: str, label: str, cwd: Path) -> _Existing:
    """What writing `new_text` to `target` replaces (nothing, or a regular file) and changes; refuses
    directories and devices. Looked at along the resolved path, as it is written (`_commit`)."""
    try:
        folder = open_folder(target.parent)
    except FileNotFoundError:
        return _with_diff(_Existing(created=True, old_text=None, mode=None, owner=None), new_text, label)
    except PathChanged as exc:
        raise _changed(exc, target, cwd, "writing", "nothing was written") from None
    except OSError as exc:
        raise _os_error("write", target, exc) from None
    try:
        return _inspect_in(folder, target, new_text, label, cwd)
    finally:
        os.close(folder)


def _inspect_in(folder: int, target: Path, new_text: str, label: str, cwd: Path) -> _Existing:
    try:
        info = os.stat(target.name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return _with_diff(_Existing(created=True, old_text=None, mode=None, owner=None), new_text, label)
    except OSError as exc:
        raise _os_error("write", target, exc) from None
    if stat.S_ISLNK(info.st_mode):
        raise _changed(PathChanged(target), target, cwd, "writing", "nothing was written")
    if stat.S_ISDIR(info.st_mode):
        raise _Refused(INVALID_PARAMS, f"Invalid params: {target} is a directory", "a directory")
    if not stat.S_ISREG(info.st_mode):
        raise _Refused(INVALID_PARAMS, f"Invalid params: {target} is not a regular file", "not a regular file")
    old_text: str | None = None
    binary = False
    if info.st_size <= MAX_DIFF_TEXT:
        try:
            fd = os.open(target.name, _READ_FLAGS | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            with os.fdopen(fd, "rb") as file:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise _changed(PathChanged(target), target, cwd, "writing", "nothing was written")
                data = file.read(MAX_DIFF_TEXT + 1)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _changed(PathChanged(target), target, cwd, "writing", "nothing was written") from None
            raise _os_error("write", target, exc) from None
        if len(data) <= MAX_DIFF_TEXT:
            try:
                old_text = None if b"\0" in data else data.decode("utf-8")
            except UnicodeDecodeError:
                old_text = None
            binary = old_text is None
    existing = _Existing(
        created=False,
        old_text=old_text,
        mode=stat.S_IMODE(info.st_mode),
        owner=(info.st_uid, info.st_gid),
        binary=binary,
        identity=_identity(info),
    )
    return _with_diff(existing, new_text, label) if old_text is not None else existing


def _with_diff(existing: _Existing, new_text: str, label: str) -> _Existing:
    """`existing` with the change to `new_text` as a git-style patch (the hunk model's, `session/diffs.py`),
    when both texts are small enough."""
    if len(new_text) > MAX_DIFF_TEXT:
        return existing
    text = unified_diff(label, None if existing.created else (existing.old_text or ""), new_text)
    counted = parse_patch(text, Limits(files=0, hunks=0, rows=0))  # counts only
    diff = Diff(
        changes=[DiffChange(operation="add" if existing.created else "modify", path=label)],
        patch=DiffPatch(format="git_patch", text=text),
    )
    return msgspec.structs.replace(existing, diff=diff, added=counted.added, removed=counted.removed)


def _commit(target: Path, data: bytes, existing: _Existing, cwd: Path) -> None:
    """Write atomically into exactly the folder judged: its resolved path opened one folder at a time
    without following links (missing ones made; acp_tui.services.beneath), a temporary file made in it
    by descriptor, then renamed over the target by descriptor once the folder is known to be still in
    place. The temporary file is removed on every failure."""
    try:
        folder = open_folder(target.parent, create=True)
    except PathChanged as exc:
        raise _changed(exc, target, cwd, "writing", "nothing was written") from None
    except OSError as exc:
        raise _os_error("create the folder for", target, exc) from None
    try:
        _commit_in(folder, target, data, existing, cwd)
    finally:
        os.close(folder)


def _commit_in(folder: int, target: Path, data: bytes, existing: _Existing, cwd: Path) -> None:
    try:
        info: os.stat_result | None = os.stat(target.name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _os_error("write", target, exc) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        # What is there now is no longer a file to replace (a link or a folder put there meanwhile).
        raise _changed(PathChanged(target), target, cwd, "writing", "nothing was written")
    if (None if info is None else _identity(info)) != existing.identity:
        # Made, removed or changed since it was looked at: the change shown (diff, dialog) is not the one
        # this write would make.
        raise _changed(PathChanged(target), target, cwd, "writing", "nothing was written")
    temporary = _temporary(folder, target)
    try:
        with os.fdopen(temporary[1], "wb") as file:
            file.write(data)
            file.flush()
            mode = existing.mode if existing.mode is not None else 0o666 & ~_umask()
            os.fchmod(file.fileno(), mode)
            if existing.owner is not None:
                try:
                    os.fchown(file.fileno(), *existing.owner)
                except OSError:
                    pass  # only root may give a file away; the mode is what matters
            os.fsync(file.fileno())
        if not still_at(folder, target.parent):
            raise _changed(PathChanged(target.parent), target, cwd, "writing", "nothing was written")
        os.replace(temporary[0], target.name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException as exc:
        try:
            os.unlink(temporary[0], dir_fd=folder)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise _os_error("write", target, exc) from None
        raise


def _temporary(folder: int, target: Path) -> tuple[str, int]:
    """A new, empty temporary file beside the target (name, descriptor), made in `folder` by descriptor."""
    stem = target.name
    while len(os.fsencode(stem)) > 96:  # room for the rest within the usual 255-byte name limit
        stem = stem[:-1]
    for _ in range(100):
        name = f".{stem}.{os.urandom(4).hex()}.acp-tmp"
        try:
            fd = os.open(
                name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder
            )
        except FileExistsError:
            continue
        except OSError as exc:
            raise _os_error("write", target, exc) from None
        return name, fd
    raise _Refused(INTERNAL_ERROR, f"cannot write {target}: no free temporary name", "no free temporary name")


def _umask() -> int:
    """The process umask, read without changing it (Linux: /proc; elsewhere the usual 022)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for entry in status:
                if entry.startswith("Umask:"):
                    return int(entry.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022
