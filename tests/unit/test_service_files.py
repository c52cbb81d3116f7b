"""The file service (v1 `fs/read_text_file`, `fs/write_text_file`; docs/protocol.md §10.2).

Three levels: the service's handlers called directly (every rule: ranges, binary, huge, missing inside
and outside, symlinks and `..`, atomic writes keeping the mode, the outside-the-folder question and the
refusal setting); a scripted v1 agent through `AgentSession`, with every frame we send validated
against the official v1 schema; and the real Gemini CLI 0.61.0 in v1 with `fs` advertised, driven by the
project's loopback fake of the Gemini API, creating a file through our `fs/write_text_file`.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    REQUEST_CANCELLED,
    RESOURCE_NOT_FOUND,
)
from acp_tui.protocol.v2 import DiffPatch
from acp_tui.services.base import merge_capabilities
from acp_tui.services.files import MAX_READ_BYTES, FileService, OutsideRead, OutsideWrite
from acp_tui.session.local_events import FileAccessed
from tests.support.agents import AGENTS_DIR
from tests.support.files import SESSION, ScriptedAsker, make, read, request, rpc_error, write

# -- a context and an asker for the service alone ------------------------------------------------------


# -- capabilities ------------------------------------------------------------------------------------


def test_advertised_in_v1_only_and_not_when_turned_off() -> None:
    caps = merge_capabilities([FileService()])
    assert caps.v1 == {"fs": {"readTextFile": True, "writeTextFile": True}}
    assert caps.v2 == {}  # v2 has no client file system (docs/protocol.md §10.2)
    off = merge_capabilities([FileService(offer=False)])
    assert off.v1 == {} and off.v2 == {}
    assert set(FileService(offer=False).methods()) == {"fs/read_text_file", "fs/write_text_file"}


# -- fs/read_text_file -------------------------------------------------------------------------------


async def test_read_whole_file_and_ranges(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    source = cwd / "src" / "app.py"
    source.parent.mkdir()
    lines = [f"line {n}\n" for n in range(1, 101)]
    source.write_text("".join(lines))
    assert await read(service, source) == "".join(lines)
    assert await read(service, source, line=10, limit=51) == "".join(lines[9:60])
    assert await read(service, source, line=99) == "line 99\nline 100\n"
    assert await read(service, source, limit=2) == "line 1\nline 2\n"
    assert await read(service, source, line=0, limit=1) == "line 1\n"  # line 0 counts as the first
    assert await read(service, source, line=500, limit=3) == ""
    assert await read(service, source, line=3, limit=0) == ""
    assert await read(service, source, line=None, limit=None) == "".join(lines)
    accesses = context.accesses
    assert [a.kind for a in accesses] == ["read"] * 8 and all(a.status == "done" for a in accesses)
    assert accesses[0].first_line is None and accesses[0].path == str(source)
    assert (accesses[1].first_line, accesses[1].line_count) == (10, 51)
    assert (accesses[2].first_line, accesses[2].line_count) == (99, 2)
    assert context.reports == []


async def test_read_keeps_line_endings_and_a_last_line_without_newline(tmp_path: Path) -> None:
    service, _, cwd = make(tmp_path)
    (cwd / "crlf.txt").write_bytes(b"a\r\nb\r\nc")
    assert await read(service, cwd / "crlf.txt") == "a\r\nb\r\nc"
    assert await read(service, cwd / "crlf.txt", line=2, limit=5) == "b\r\nc"
    (cwd / "unicode.txt").write_text("héllo ✓\n", encoding="utf-8")
    assert await read(service, cwd / "unicode.txt") == "héllo ✓\n"


async def test_read_needs_an_absolute_path_and_this_session(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    (cwd / "a.txt").write_text("x")
    error = await rpc_error(read(service, "a.txt"))
    assert error.code == INVALID_PARAMS and "absolute" in error.message
    error = await rpc_error(read(service, cwd / "a.txt", sessionId="other"))
    assert error.code == INVALID_PARAMS and "unknown session" in error.message
    handler = service.methods()["fs/read_text_file"]
    error = await rpc_error(handler(request("fs/read_text_file", {"sessionId": SESSION})))
    assert error.code == INVALID_PARAMS
    error = await rpc_error(read(service, cwd / "a.txt", line=-1))
    assert error.code == INVALID_PARAMS
    assert len(context.reports) == 4 and context.accesses == []
    # a malformed _meta is dropped, as the schema says (x-deserialize-default-on-error)
    assert await read(service, cwd / "a.txt", _meta="not an object") == "x"


async def test_read_refuses_binary_and_non_utf8_text(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    (cwd / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (cwd / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    error = await rpc_error(read(service, cwd / "image.png"))
    assert error.code == INVALID_PARAMS and "binary" in error.message
    error = await rpc_error(read(service, cwd / "latin1.txt"))
    assert error.code == INVALID_PARAMS and "not UTF-8" in error.message
    assert [(a.status, "NUL bytes" in a.detail) for a in context.accesses] == [("failed", True), ("failed", False)]


async def test_read_of_a_huge_file_is_refused_whole_and_streamed_by_range(tmp_path: Path) -> None:
    service, _, cwd = make(tmp_path)
    huge = cwd / "huge.log"
    with open(huge, "wb") as out:  # 2 GB, sparse: costs no disk, and must never be read into memory
        out.write(b"first line\nsecond line\n")
        out.truncate(2 * 1024**3)
    error = await rpc_error(read(service, huge))
    assert error.code == INVALID_PARAMS and "too large" in error.message and "line and limit" in error.message
    assert await read(service, huge, line=2, limit=1) == "second line\n"
    # the third "line" is 2 GB of NUL bytes: a range reaching it stops at the cap, never reads it whole
    error = await rpc_error(read(service, huge, line=3, limit=1))
    assert error.code == INVALID_PARAMS and f"{MAX_READ_BYTES / 1024 / 1024:.1f} MB" in error.message


async def test_read_cap_applies_to_the_lines_asked(tmp_path: Path) -> None:
    service, _, cwd = make(tmp_path, max_read_bytes=1000)
    big = cwd / "big.txt"
    big.write_text("".join(f"{n:09d}\n" for n in range(1000)))  # 10 000 bytes
    assert "too large" in (await rpc_error(read(service, big))).message
    assert await read(service, big, line=501, limit=2) == "000000500\n000000501\n"
    assert "ask for fewer lines" in (await rpc_error(read(service, big, line=1, limit=500))).message


async def test_read_of_a_missing_file_inside_is_empty_outside_is_an_error(tmp_path: Path) -> None:
    """Gemini CLI reads a file before creating it and takes any error as a failure (module docstring)."""
    service, context, cwd = make(tmp_path)
    assert await read(service, cwd / "notes" / "new.md") == ""
    outside = tmp_path / "elsewhere" / "new.md"
    error = await rpc_error(read(service, outside))
    assert error.code == RESOURCE_NOT_FOUND and str(outside) in error.message
    first, second = context.accesses
    assert first.status == "done" and "does not exist" in first.detail
    assert second.status == "failed"


async def test_read_refuses_directories_and_fifos_without_blocking(tmp_path: Path) -> None:
    service, _, cwd = make(tmp_path)
    (cwd / "folder").mkdir()
    os.mkfifo(cwd / "pipe")
    assert "directory" in (await rpc_error(read(service, cwd / "folder"))).message
    error = await asyncio.wait_for(rpc_error(read(service, cwd / "pipe")), 5)
    assert "not a regular file" in error.message


async def test_read_of_an_unreadable_file_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service, _, cwd = make(tmp_path)
    secret = cwd / "secret.txt"
    secret.write_text("x")
    real_open = os.open

    def denied(path: Any, *args: Any, **kwargs: Any) -> int:  # chmod 000 does not stop root: simulate it
        if Path(path).name == secret.name:  # opened by name in its folder (acp_tui/services/beneath.py)
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    error = await rpc_error(read(service, secret))
    assert error.code == INTERNAL_ERROR and "Permission denied" in error.message


async def test_read_outside_is_allowed_and_shown_with_the_resolved_path(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    outside = tmp_path / "shared.txt"
    outside.write_text("shared\n")
    (cwd / "link.txt").symlink_to(outside)
    assert await read(service, cwd / "link.txt") == "shared\n"
    assert await read(service, cwd / ".." / "shared.txt") == "shared\n"
    assert [a.path for a in context.accesses] == [str(outside), str(outside)]
    assert context.accesses[0].requested_path == str(cwd / "link.txt")


# -- fs/write_text_file: inside the folder -------------------------------------------------------------


async def test_write_creates_the_file_and_its_parents(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    target = cwd / "a" / "b" / "c.txt"
    assert msgspec.json.encode(await write(service, target, "hello\nworld\n")) == b"{}"
    assert target.read_text() == "hello\nworld\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    (access,) = context.accesses
    assert access.kind == "write" and access.status == "done" and access.created
    assert (access.added, access.removed) == (2, 0)
    assert access.diff is not None and access.diff.changes[0].path == "a/b/c.txt"
    assert isinstance(access.diff.patch, DiffPatch) and access.diff.patch.text.startswith(
        "diff --git a/a/b/c.txt b/a/b/c.txt\n--- /dev/null\n+++ b/a/b/c.txt\n"
    )
    assert list(cwd.rglob("*.acp-tmp")) == []


async def test_write_replaces_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    target = cwd / "run.sh"
    target.write_text("echo hi\n")
    target.chmod(0o750)
    before = target.stat().st_ino
    await write(service, target, "echo hello\necho world\n")
    after = target.stat()
    assert target.read_text() == "echo hello\necho world\n"
    assert stat.S_IMODE(after.st_mode) == 0o750
    assert after.st_ino != before  # a new file renamed into place, never a half-written one
    assert sorted(p.name for p in cwd.iterdir()) == ["run.sh"]
    (access,) = context.accesses
    assert not access.created and (access.added, access.removed) == (2, 1)
    assert "-echo hi\n+echo hello\n+echo world\n" in access.diff.patch.text  # type: ignore[union-attr]


async def test_write_through_a_symlink_inside_replaces_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    service, _, cwd = make(tmp_path)
    (cwd / "real.txt").write_text("old\n")
    (cwd / "alias.txt").symlink_to(cwd / "real.txt")
    await write(service, cwd / "alias.txt", "new\n")
    assert (cwd / "alias.txt").is_symlink() and (cwd / "real.txt").read_text() == "new\n"


async def test_write_notes_binary_unchanged_and_too_large(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    (cwd / "blob.bin").write_bytes(b"\x00\x01")
    (cwd / "same.txt").write_text("same\n")
    await write(service, cwd / "blob.bin", "text now\n")
    await write(service, cwd / "same.txt", "same\n")
    await write(service, cwd / "big.txt", "x\n" * 300_000)
    binary, same, big = context.accesses
    assert binary.detail == "replaced a binary file" and binary.diff is None
    assert same.detail == "unchanged"
    assert big.detail == "too large to show the change" and big.diff is None
    assert (cwd / "big.txt").stat().st_size == 600_000


async def test_write_refuses_directories_relative_paths_and_bad_params(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    (cwd / "folder").mkdir()
    error = await rpc_error(write(service, cwd / "folder", "x"))
    assert error.code == INVALID_PARAMS and "directory" in error.message
    error = await rpc_error(write(service, "relative.txt", "x"))
    assert error.code == INVALID_PARAMS and "absolute" in error.message
    handler = service.methods()["fs/write_text_file"]
    error = await rpc_error(handler(request("fs/write_text_file", {"sessionId": SESSION, "path": str(cwd / "x")})))
    assert error.code == INVALID_PARAMS and "content" in error.message
    (cwd / "file").write_text("x")
    error = await rpc_error(write(service, cwd / "file" / "below.txt", "x"))
    assert error.code == INTERNAL_ERROR
    assert not (cwd / "relative.txt").exists() and len(context.reports) == 2


# -- fs/write_text_file: outside the folder, never silently ---------------------------------------------


async def test_write_outside_asks_the_user_yes(tmp_path: Path) -> None:
    asker = ScriptedAsker(True)
    service, context, cwd = make(tmp_path, asker=asker)
    outside = tmp_path / "elsewhere" / "notes.txt"
    await write(service, outside, "hi\n")
    assert outside.read_text() == "hi\n"
    (asked,) = asker.asked
    assert asked.path == outside and asked.reason == "outside" and asked.created and asked.cwd == cwd
    assert asked.diff is not None and asked.diff.changes[0].path == str(outside)
    assert context.accesses[0].status == "done"


async def test_write_outside_asks_the_user_no(tmp_path: Path) -> None:
    asker = ScriptedAsker(False)
    service, context, _ = make(tmp_path, asker=asker)
    outside = tmp_path / "notes.txt"
    outside.write_text("mine\n")
    error = await rpc_error(write(service, outside, "theirs\n"))
    assert error.code == INVALID_PARAMS and "declined" in error.message and str(outside) in error.message
    assert outside.read_text() == "mine\n"
    assert asker.asked[0].old_text == "mine\n" and not asker.asked[0].created
    (access,) = context.accesses
    assert access.status == "refused" and "declined" in access.detail


async def test_a_symlink_escaping_the_folder_is_outside(tmp_path: Path) -> None:
    asker = ScriptedAsker(False, False)
    service, _, cwd = make(tmp_path, asker=asker)
    (tmp_path / "other").mkdir()
    (cwd / "escape").symlink_to(tmp_path / "other")
    (cwd / "dangling.txt").symlink_to(tmp_path / "other" / "planted.txt")
    await rpc_error(write(service, cwd / "escape" / "new.txt", "x"))
    await rpc_error(write(service, cwd / "dangling.txt", "x"))
    assert [a.path for a in asker.asked] == [tmp_path / "other" / "new.txt", tmp_path / "other" / "planted.txt"]
    assert list((tmp_path / "other").iterdir()) == []


async def test_dot_dot_is_resolved_before_judging(tmp_path: Path) -> None:
    asker = ScriptedAsker(False)
    service, _, cwd = make(tmp_path, asker=asker)
    await rpc_error(write(service, cwd / "sub" / ".." / ".." / "evil.txt", "x"))
    await write(service, cwd / "sub" / ".." / "fine.txt", "ok")
    assert [a.path for a in asker.asked] == [tmp_path / "evil.txt"]
    assert not (tmp_path / "evil.txt").exists() and (cwd / "fine.txt").read_text() == "ok"


async def test_write_outside_refused_by_setting_never_asks(tmp_path: Path) -> None:
    asker = ScriptedAsker()
    service, context, _ = make(tmp_path, asker=asker, outside_writes="refuse")
    error = await rpc_error(write(service, tmp_path / "x.txt", "x"))
    assert error.code == INVALID_PARAMS and 'outside_writes = "refuse"' in error.message
    assert asker.asked == [] and not (tmp_path / "x.txt").exists()
    assert context.accesses[0].status == "refused"


async def test_write_outside_without_an_asker_is_refused(tmp_path: Path) -> None:
    service, _, _ = make(tmp_path)
    error = await rpc_error(write(service, tmp_path / "x.txt", "x"))
    assert "consent" in error.message and not (tmp_path / "x.txt").exists()


async def test_a_write_not_offered_is_reported_and_asked_even_inside(tmp_path: Path) -> None:
    """opencode writes without the capability; a v2 agent has none to be offered (docs/protocol.md §10.2)."""
    for version, offer in ((1, False), (2, True)):
        asker = ScriptedAsker(True, False)
        service, context, cwd = make(tmp_path, version=version, offer=offer, asker=asker)
        await write(service, cwd / "ok.txt", "yes")
        await rpc_error(write(service, cwd / "no.txt", "no"))
        assert [a.reason for a in asker.asked] == ["not_offered", "not_offered"]
        assert (cwd / "ok.txt").read_text() == "yes" and not (cwd / "no.txt").exists()
        assert len(context.reports) == 2 and "did not offer" in context.reports[0]
        (cwd / "ok.txt").unlink()


async def test_cancelling_the_turn_withdraws_the_question(tmp_path: Path) -> None:
    asker = ScriptedAsker(None)
    service, context, _ = make(tmp_path, asker=asker)
    pending = asyncio.ensure_future(write(service, tmp_path / "x.txt", "x"))
    await asyncio.wait_for(asker.waiting.wait(), 5)
    service.turn_cancelled()
    error = await rpc_error(pending)
    assert error.code == REQUEST_CANCELLED and not (tmp_path / "x.txt").exists()
    assert context.accesses[0].status == "cancelled"


async def test_the_agent_withdrawing_its_request_closes_the_question(tmp_path: Path) -> None:
    asker = ScriptedAsker(None)
    service, context, _ = make(tmp_path, asker=asker)
    pending = asyncio.ensure_future(write(service, tmp_path / "x.txt", "x"))
    await asyncio.wait_for(asker.waiting.wait(), 5)
    pending.cancel()  # what `$/cancel_request` does to the handler's task
    with pytest.raises(asyncio.CancelledError):
        await pending
    assert context.accesses[0].status == "cancelled" and not (tmp_path / "x.txt").exists()
    await service.close()
    await service.close()  # idempotent


# -- the timeline: a line of its own, or listed in its tool call ---------------------------------------


def _call(state: Any, tool_call_id: str, path: str, status: str = "in_progress") -> None:
    from acp_tui.protocol.v2 import StateUpdate, ToolCallLocation, ToolCallUpdate
    from acp_tui.session.reducer import apply

    if state.foreground.state != "running":
        apply(state, StateUpdate(state="running"))
    apply(state, ToolCallUpdate(tool_call_id=tool_call_id, status=status, locations=[ToolCallLocation(path=path)]))


def test_reducer_lists_an_access_in_its_tool_call_or_alone() -> None:
    from acp_tui.session.changes import EntityAdded, EntityChanged
    from acp_tui.session.model import FILE_ACCESS, FileAccess, SessionState
    from acp_tui.session.reducer import apply

    state = SessionState()
    alone = apply(state, FileAccessed(kind="read", path="/p/a.py", cwd="/p"))
    assert alone == [EntityAdded((FILE_ACCESS, "1"), 0)]
    _call(state, "edit-1", "/p/b.py")
    changes = apply(state, FileAccessed(kind="write", path="/p/b.py", cwd="/p", requested_path="/p/./b.py"))
    call = state.tool_call("edit-1")
    assert call is not None and changes == [EntityChanged(call.key, frozenset({"files"}))]
    assert [f.path for f in call.files] == ["/p/b.py"] and call.files[0].tool_call_id == "edit-1"
    # named in _meta: that card, whatever its locations
    apply(state, FileAccessed(kind="read", path="/p/z.py", cwd="/p", tool_call_id="edit-1"))
    assert len(call.files) == 2
    # two unfinished calls naming the same file: no telling, so a line of its own
    _call(state, "edit-2", "/p/b.py")
    apply(state, FileAccessed(kind="read", path="/p/b.py", cwd="/p"))
    assert isinstance(state.entities.get((FILE_ACCESS, "4")), FileAccess)
    # a finished call claims nothing
    _call(state, "edit-2", "/p/b.py", status="completed")
    apply(state, FileAccessed(kind="read", path="/p/b.py", cwd="/p"))
    assert len(call.files) == 3


# -- a scripted v1 agent through AgentSession, every frame checked against the v1 schema -----------------


SCRIPTED_AGENT = AGENTS_DIR / "scripted_agent.py"


class Wire:
    """A trace sink keeping both directions, to validate what we sent against what it answers."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, dict[str, Any]]] = []

    def record(self, direction: str, payload: Any) -> None:
        if direction in ("->", "<-"):
            self.frames.append((direction, json.loads(bytes(payload))))

    def validate_sent(self) -> int:
        from tests.support.schema_check import validate_client_message

        methods: dict[Any, str] = {}
        checked = 0
        for direction, msg in self.frames:
            if direction == "<-" and "method" in msg and "id" in msg:
                methods[msg["id"]] = msg["method"]
            elif direction == "->":
                if msg.get("method") == "initialize":
                    validate_client_message(msg, 2)  # the hybrid initialize (docs/protocol.md §2.2)
                elif "method" in msg:
                    validate_client_message(msg, 1)
                else:
                    validate_client_message(msg, 1, answering=methods.get(msg.get("id"), "?"))
                checked += 1
        return checked

    def answer(self, request_id: int) -> dict[str, Any]:
        for direction, msg in self.frames:
            if direction == "->" and msg.get("id") == request_id and "method" not in msg:
                return msg
        raise AssertionError(f"no answer to {request_id}")


def _fs_request(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {"op": "request", "id": request_id, "method": method, "params": {"sessionId": "$SESSION", **params}}


async def test_a_scripted_v1_agent_reads_and_writes_through_the_session(tmp_path: Path) -> None:
    from acp_tui.agent.session import AgentSession

    project = (tmp_path / "project").resolve()
    project.mkdir()
    (project / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 21)))
    (project / "blob.bin").write_bytes(b"\0\0")
    outside = tmp_path / "outside.txt"
    steps = [
        _fs_request(100, "fs/read_text_file", path=str(project / "app.py")),
        _fs_request(101, "fs/read_text_file", path=str(project / "app.py"), line=10, limit=3),
        _fs_request(102, "fs/read_text_file", path=str(project / "new" / "file.md")),
        _fs_request(103, "fs/read_text_file", path="app.py"),
        _fs_request(104, "fs/read_text_file", path=str(project / "blob.bin")),
        _fs_request(105, "fs/write_text_file", path=str(project / "new" / "file.md"), content="# New\n"),
        _fs_request(106, "fs/write_text_file", path=str(outside), content="no\n"),
        _fs_request(107, "fs/write_text_file", path=str(outside), content="yes\n"),
        {"op": "respond_prompt", "stopReason": "end_turn"},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 1, "turns": [{"steps": steps}]}))
    wire = Wire()
    asker = ScriptedAsker(False, True)
    session = AgentSession(
        [sys.executable, str(SCRIPTED_AGENT), str(script)],
        cwd=project,
        trace=wire,
        services=[FileService(asker)],
    )
    try:
        await session.start()
        assert session.version == 1
        init = next(msg for direction, msg in wire.frames if msg.get("method") == "initialize")
        assert init["params"]["clientCapabilities"]["fs"] == {"readTextFile": True, "writeTextFile": True}
        from acp_tui.protocol.v2 import TextContent

        await session.prompt([TextContent(text="go")])
        deadline = asyncio.get_running_loop().time() + 30
        while not any(msg.get("id") == 107 and direction == "->" for direction, msg in wire.frames):
            assert asyncio.get_running_loop().time() < deadline, "the agent's requests were not all answered"
            await asyncio.sleep(0.02)
    finally:
        await session.shutdown()
    assert wire.answer(100)["result"]["content"].startswith("line 1\n")
    assert wire.answer(101)["result"] == {"content": "line 10\nline 11\nline 12\n"}
    assert wire.answer(102)["result"] == {"content": ""}
    assert wire.answer(103)["error"]["code"] == INVALID_PARAMS
    assert "binary" in wire.answer(104)["error"]["message"]
    assert wire.answer(105)["result"] == {}
    assert wire.answer(106)["error"]["code"] == INVALID_PARAMS
    assert wire.answer(107)["result"] == {}
    assert (project / "new" / "file.md").read_text() == "# New\n" and outside.read_text() == "yes\n"
    assert wire.validate_sent() >= 11
    from acp_tui.session.model import FileAccess

    lines = [e for e in session.state.entities.values() if isinstance(e, FileAccess)]
    assert [(e.kind, e.status) for e in lines] == [
        ("read", "done"),
        ("read", "done"),
        ("read", "done"),
        ("read", "failed"),
        ("write", "done"),
        ("write", "refused"),
        ("write", "done"),
    ]


# -- the real Gemini CLI, v1 with fs advertised --------------------------------------------------------


@pytest.fixture(scope="session")
def gemini_cli() -> list[str]:
    """Gemini CLI 0.61.0 (~100 MB, installed once into tests/.peers/); fails, never skips, without it."""
    from tests.support.peer_gemini import ensure_gemini_cli
    from tests.support.peers import PeerUnavailable

    try:
        return ensure_gemini_cli()
    except PeerUnavailable as exc:
        pytest.fail(f"Gemini CLI is unavailable: {exc}", pytrace=False)


@pytest.fixture
def fake_gemini(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """The project's loopback fake of the Gemini API: (port, its request log)."""
    from tests.support.paths import FAKES

    log = tmp_path / "fake-gemini.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(FAKES / "fake_gemini.py"), "0", "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        assert first[:1] == [b"PORT"], f"the fake did not start: {first!r}"
        yield int(first[1]), log
    finally:
        proc.terminate()
        proc.wait(timeout=5)


class PermissionScript:
    """Answers the agent's permission requests with the first option of a kind, recording them."""

    def __init__(self, kind: str = "allow_once") -> None:
        self.kind = kind
        self.asked: list[Any] = []

    async def ask_permission(self, question: Any) -> str | None:
        self.asked.append(question)
        return next((o.option_id for o in question.request.options if o.kind == self.kind), None)

    def permissions_waiting(self, count: int) -> None:
        pass


@pytest.mark.timeout(90)
async def test_gemini_cli_creates_a_file_through_our_fs_write(
    tmp_path: Path, gemini_cli: list[str], fake_gemini: tuple[int, Path]
) -> None:
    from acp_tui.agent.session import AgentSession
    from acp_tui.protocol.v2 import TextContent
    from acp_tui.services.permission import PermissionService
    from acp_tui.session.model import FileAccess, ToolCall
    from tests.support.peer_gemini import gemini_env

    port, log = fake_gemini
    project = (tmp_path / "project").resolve()
    project.mkdir()
    target = project / "notes" / "hello.txt"
    wire = Wire()
    permissions = PermissionScript()
    files = FileService()
    session = AgentSession(
        gemini_cli,
        cwd=project,
        env=gemini_env(tmp_path / "home", port),
        trace=wire,
        handshake_timeout=60,
        services=[PermissionService(permissions), files],
    )
    try:
        await session.start()
        assert session.version == 1
        await session.prompt([TextContent(text=f"WRITEFILE {target} :: hello from gemini\n")])
        fg = session.state.foreground
        deadline = asyncio.get_running_loop().time() + 45
        while not (fg.state == "idle" and session.state.turn == 1):
            assert asyncio.get_running_loop().time() < deadline, f"no end of turn; fake saw: {log.read_text()[-2000:]}"
            await asyncio.sleep(0.05)
    finally:
        await session.shutdown()
    assert target.read_text() == "hello from gemini\n"
    sent = [msg for direction, msg in wire.frames if direction == "<-" and "method" in msg]
    order = [
        msg["method"]
        for msg in sent
        if msg["method"] in ("session/request_permission", "fs/read_text_file", "fs/write_text_file")
    ]
    # Gemini reads before creating (answered with empty text), asks, then writes through us
    assert order[0] == "fs/read_text_file" and "session/request_permission" in order
    assert order.index("fs/write_text_file") > order.index("session/request_permission")
    assert len(permissions.asked) == 1
    write = next(msg for msg in sent if msg["method"] == "fs/write_text_file")
    assert write["params"]["path"] == str(target)
    calls = [e for e in session.state.entities.values() if isinstance(e, ToolCall)]
    assert len(calls) == 1 and calls[0].status == "completed"
    assert [(f.kind, f.status) for f in calls[0].files][-1] == ("write", "done")  # listed in its card
    assert calls[0].files[-1].created
    standalone = [e for e in session.state.entities.values() if isinstance(e, FileAccess)]
    assert [(e.kind, e.detail) for e in standalone] == [("read", "does not exist: read as empty")]
    assert session.state.problem_count == 0, list(session.state.problems)
    assert wire.validate_sent() > 5


# -- settings -----------------------------------------------------------------------------------------


def test_settings_turn_file_access_off_and_refuse_outside_writes() -> None:
    from acp_tui.config import Settings, parse_settings

    assert (Settings().client_files, Settings().outside_writes) == (True, "ask")
    settings, warnings = parse_settings('client_files = false\noutside_writes = "refuse"\n', "config.toml")
    assert (settings.client_files, settings.outside_writes, warnings) == (False, "refuse", [])
    settings, warnings = parse_settings('client_files = "no"\noutside_writes = "never"\n', "config.toml")
    assert (settings.client_files, settings.outside_writes) == (True, "ask")
    assert warnings == [
        "config.toml:1: 'client_files' must be true or false, not a string; ignoring it",
        "config.toml:2: 'outside_writes' must be \"ask\" or \"refuse\", not 'never'; asking",
    ]


async def test_a_question_that_fails_refuses_the_write(tmp_path: Path) -> None:
    class Broken:
        async def confirm_outside_write(self, write: OutsideWrite) -> bool:
            raise RuntimeError("the screen went away")

        async def confirm_outside_read(self, read: OutsideRead) -> bool:
            raise RuntimeError("the screen went away")

    service, context, _ = make(tmp_path, asker=Broken())
    error = await rpc_error(write(service, tmp_path / "x.txt", "x"))
    assert error.code == INTERNAL_ERROR and "could not ask" in error.message
    assert not (tmp_path / "x.txt").exists() and context.accesses[0].status == "refused"
