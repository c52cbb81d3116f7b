"""The transcript writer: everything shown is on disk, safely encoded, readable back; errors never raise."""

from __future__ import annotations

import base64
import errno
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui import paths
from acp_tui.protocol import codec
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import TextContent
from acp_tui.session.changes import Change
from acp_tui.session.events import AgentExited, PromptAccepted, PromptRejected, PromptSubmitted
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply
from acp_tui.transcript import TranscriptWriter, load_records, render_markdown, transcript_path

ANSWER = (
    "Here is the plan.\n\n## Steps\n\n1. Read `main.py`\n2. Fix the **bug**\n\n"
    "```python\nprint('héllo wörld ✓')\n```\n\nDone — with émojis 🎉 and tabs\tinside.\n"
)
HOSTILE = [
    "\x1b[2J\x1b[H",
    "\x1b]52;c;aGk=\x07",
    "\x1b]0;pwned\x07",
    "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",
    "\u202eevil\u202c",
    "\u2066iso\u2069",
    "nul\x00byte",
    "c1\x9b31mred",
    "bell\x07",
    "\x1bPdcs payload\x1b\\",
]


def params(update: dict[str, Any], session_id: str = "s1") -> bytes:
    return json.dumps({"sessionId": session_id, "update": update}).encode()


class Session:
    """A reducer-driven session that records every `apply` through a writer, like the agent layer will."""

    def __init__(self, writer: TranscriptWriter) -> None:
        self.state = SessionState()
        self.writer = writer

    def update(self, update: dict[str, Any]) -> list[Change]:
        _, decoded = codec.decode_update(params(update), 2)
        return self.event(decoded)

    def event(self, item: object) -> list[Change]:
        changes = apply(self.state, item)
        self.writer.write_changes(self.state, changes)
        return changes


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def run_realistic_turn(session: Session) -> None:
    session.event(PromptSubmitted(1, [TextContent(text="Please fix the bug")]))
    session.update({"sessionUpdate": "state_update", "state": "running"})
    session.update({"sessionUpdate": "user_message", "messageId": "u1",
                    "content": [{"type": "text", "text": "Please fix the bug"}]})
    session.event(PromptAccepted(1, "u1"))
    for piece in chunks("Let me think about the bug first.", 5):
        session.update({"sessionUpdate": "agent_thought_chunk", "messageId": "t1",
                        "content": {"type": "text", "text": piece}})
    session.update({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": [
        {"content": "Read main.py", "priority": "high", "status": "in_progress"},
        {"content": "Fix the bug", "priority": "high", "status": "pending"}]}})
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Read main.py",
                    "kind": "read", "status": "pending", "locations": [{"path": "/w/main.py", "line": 3}]})
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"})
    session.update({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1",
                    "content": {"type": "content", "content": {"type": "text", "text": "def main(): ..."}}})
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"})
    session.update({"sessionUpdate": "terminal_update", "terminalId": "term1", "command": "pytest -q"})
    output = "\x1b[32m3 passed\x1b[0m in 0.1s ✓\n".encode()
    for piece in (output[:3], output[3:22], output[22:23], output[23:]):  # splits ESC[ and the UTF-8 of ✓
        session.update({"sessionUpdate": "terminal_output_chunk", "terminalId": "term1",
                        "data": base64.b64encode(piece).decode()})
    session.update({"sessionUpdate": "terminal_update", "terminalId": "term1", "exitStatus": {"exitCode": 0}})
    session.update({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": [
        {"content": "Read main.py", "priority": "high", "status": "completed"},
        {"content": "Fix the bug", "priority": "high", "status": "completed"}]}})
    session.update({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "in_progress"})
    session.update({"sessionUpdate": "compaction_summary_chunk", "compactionId": "k1",
                    "content": {"type": "text", "text": "Earlier: user asked to fix a bug."}})
    session.update({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "completed"})
    for piece in chunks(ANSWER, 7):
        session.update({"sessionUpdate": "agent_message_chunk", "messageId": "a1",
                        "content": {"type": "text", "text": piece}})
    session.update({"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited",
                    "description": "retrying in 2s"})
    session.update({"sessionUpdate": "usage_update", "used": 1200, "size": 200000,
                    "cost": {"amount": 0.02, "currency": "USD"}})
    session.update({"sessionUpdate": "session_info_update", "title": "Fixing the bug"})
    session.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def test_realistic_turn_is_fully_recorded_and_renders(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="s1"))
    run_realistic_turn(session)
    assert session.writer.error is None

    records = load_records(path)
    assert records[0]["ev"] == "open" and records[0]["label"] == "s1"
    agent_text = "".join(r["text"] for r in records if r["ev"] in ("added", "text") and r.get("id") == "a1")
    assert agent_text == ANSWER
    states = [r for r in records if r["ev"] == "state"]
    assert (states[-1]["state"], states[-1]["stop_reason"], states[-1]["busy"]) == ("idle", "end_turn", False)
    tool = [r for r in records if r.get("type") == "tool_call"]
    assert tool[0]["ev"] == "added" and tool[0]["title"] == "Read main.py" and tool[0]["kind"] == "read"
    assert tool[0]["locations"] == [{"path": "/w/main.py", "line": 3}]
    assert [r["fields"]["status"] for r in tool if r["ev"] == "changed"] == ["in_progress", "completed"]
    notice = next(r for r in records if r["ev"] == "notice")
    assert notice["live"] is True and notice["title"] == "Rate limited"
    usage = next(r for r in records if r["ev"] == "usage")
    assert (usage["used"], usage["size"], usage["cost"]) == (1200, 200000, {"amount": 0.02, "currency": "USD"})
    assert any(r["ev"] == "info" and r["fields"] == {"title": "Fixing the bug"} for r in records)

    md = render_markdown(path)
    assert "### User\n\nPlease fix the bug" in md
    assert f"### Agent\n\n{ANSWER}" in md  # the streamed answer, reconstructed exactly
    assert "Let me think about the bug first." in md
    assert "**Tool call:** Read main.py — completed (read)" in md
    assert "def main(): ..." in md
    assert "- [x] Read main.py\n- [x] Fix the bug" in md  # the plan as last replaced
    assert "**Terminal:** `pytest -q` — exited 0" in md
    assert "3 passed in 0.1s ✓" in md  # colours gone, split escape and UTF-8 decoded whole
    assert "**Context compaction** — completed" in md and "Earlier: user asked to fix a bug." in md
    assert "**Notice (warning):** Rate limited — retrying in 2s" in md
    assert "*Session title: Fixing the bug*" in md
    assert md.rstrip().endswith("*State: idle (end_turn)*")
    # Timeline order: user, thought, plan, tool call, terminal, compaction, answer.
    order = ["### User", "*Thought:*", "**Plan:**", "**Tool call:**", "**Terminal:**", "**Context compaction**", "### Agent"]
    positions = [md.index(marker) for marker in order]
    assert positions == sorted(positions)


def test_consecutive_appends_in_one_call_coalesce(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    state = SessionState()
    first = apply(state, codec.decode_update(params(
        {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "x"}}), 2)[1])
    writer.write_changes(state, first)
    batch: list[Change] = []
    for piece in ["one ", "two ", "three"]:
        _, update = codec.decode_update(params(
            {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": piece}}), 2)
        batch += apply(state, update)
    _, other = codec.decode_update(params(
        {"sessionUpdate": "agent_thought_chunk", "messageId": "a", "content": {"type": "text", "text": "hm"}}), 2)
    batch += apply(state, other)
    _, more = codec.decode_update(params(
        {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "!"}}), 2)
    batch += apply(state, more)
    writer.write_changes(state, batch)
    records = [r for r in load_records(path) if r["ev"] in ("added", "text")]
    assert [(r["ev"], r["type"], r["text"]) for r in records] == [
        ("added", "agent_message", "x"),
        ("text", "agent_message", "one two three"),
        ("added", "agent_thought", "hm"),
        ("text", "agent_message", "!"),
    ]


def test_batch_that_adds_an_entity_skips_its_later_changes(tmp_path: Path) -> None:
    """The model already holds them when the `added` record is rendered, so they must not repeat."""
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    state = SessionState()
    batch: list[Change] = []
    for piece in ["al", "pha"]:
        _, update = codec.decode_update(params(
            {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": piece}}), 2)
        batch += apply(state, update)
    writer.write_changes(state, batch)
    assert f"### Agent\n\nalpha\n" == render_markdown(path)


def test_hostile_strings_never_reach_the_file_raw(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="\x1b]0;label\x07"))
    evil = "".join(HOSTILE)
    session.event(PromptSubmitted("r\x1b1", [TextContent(text=evil)]))
    session.event(PromptRejected("r\x1b1", ErrorObject(code=-32603, message=evil)))
    session.update({"sessionUpdate": "agent_message_chunk", "messageId": "m" + evil,
                    "content": {"type": "text", "text": "start "}})
    for piece in HOSTILE:
        session.update({"sessionUpdate": "agent_message_chunk", "messageId": "m" + evil,
                        "content": {"type": "text", "text": piece}})
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": evil, "title": evil, "kind": evil,
                    "status": evil, "locations": [{"path": evil}], "rawInput": {evil: [evil, {"k": evil}]}})
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": evil, "title": "t" + evil,
                    "rawOutput": evil})
    session.update({"sessionUpdate": "tool_call_content_chunk", "toolCallId": evil, "content": {
        "type": "diff", "changes": [{"operation": "modify", "path": evil}], "patch": {"format": "git_patch", "text": evil}}})
    session.update({"sessionUpdate": "terminal_update", "terminalId": "t", "command": evil, "cwd": evil})
    data = evil.encode()
    for i in range(0, len(data), 3):
        session.update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t",
                        "data": base64.b64encode(data[i : i + 3]).decode()})
    session.update({"sessionUpdate": "terminal_update", "terminalId": "t",
                    "output": {"data": base64.b64encode(data).decode()}, "exitStatus": {"signal": evil}})
    session.update({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": evil, "entries": [
        {"content": evil, "priority": evil, "status": evil}]}})
    session.update({"sessionUpdate": "notice", "severity": evil, "title": evil, "description": evil})
    session.update({"sessionUpdate": "session_info_update", "title": evil})
    session.update({"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": {"amount": 1.0, "currency": evil}})
    session.update({"sessionUpdate": "brand_new" + evil, "payload": {evil: evil}})
    session.update({"sessionUpdate": "compaction_update", "compactionId": evil, "status": evil,
                    "summary": [{"type": "text", "text": evil}, {"type": "image", "data": "", "mimeType": evil}],
                    "error": evil})
    session.update({"sessionUpdate": "available_commands_update", "availableCommands": [
        {"name": evil, "description": evil}]})
    session.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": evil,
                    "error": {"code": 1, "message": evil}})
    session.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error",
                    "error": {"code": 1, "message": evil}})
    session.event(AgentExited(returncode=1, reason=evil))
    session.writer.note(evil, kind=evil)
    assert session.writer.error is None

    raw = path.read_bytes()
    for needle in [b"\x1b", b"\x07", b"\x00", b"\x9b", "\x9b".encode(), "\u202e".encode(), "\u2066".encode(),
                   b"\\u001b", b"\\u0007", b"\\u0000", b"\\u009b", b"\\u202e", b"\\u2066"]:
        assert needle not in raw, needle
    assert b"aGk=" not in raw  # the OSC 52 payload is removed whole, not just its introducer
    md = render_markdown(path)
    assert "\x1b" not in md and "\u202e" not in md and "\x00" not in md
    assert "start 2J" not in md and "start evil" not in md.replace("\n", "")  # sequences removed whole
    assert "*Prompt failed:*" in md
    assert "agent exited" in md


def test_truncated_last_line_is_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    for piece in chunks(ANSWER, 11):
        session.update({"sessionUpdate": "agent_message_chunk", "messageId": "a",
                        "content": {"type": "text", "text": piece}})
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Half written"})
    session.writer.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 15])  # a crash in the middle of the last record
    md = render_markdown(path)
    assert f"### Agent\n\n{ANSWER}" in md
    assert "Half written" not in md
    path.write_bytes(data + b'{"ev": "text", "type": "agent_mes')
    assert f"### Agent\n\n{ANSWER}" in render_markdown(path)


def test_unwritable_path_disables_without_raising(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    writer = TranscriptWriter(blocker / "sub" / "t.jsonl")
    session = Session(writer)
    session.update({"sessionUpdate": "agent_message_chunk", "messageId": "a",
                    "content": {"type": "text", "text": "hello"}})
    assert not writer.enabled and writer.error is not None and writer.error.startswith("transcript disabled")
    first_error = writer.error
    session.update({"sessionUpdate": "agent_message_chunk", "messageId": "a",
                    "content": {"type": "text", "text": " again"}})
    writer.note("agent restarted")
    assert writer.error == first_error  # reported once, never replaced
    assert session.state.message("agent_message", "a").text == "hello again"  # the session went on


class FullDisk:
    """A file whose writes fail like a full disk."""

    def __init__(self) -> None:
        self.closed = False

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_disk_full_mid_session_disables_without_raising(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    session.update({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "ok"}})
    assert session.writer.enabled
    full = FullDisk()
    session.writer._file = full  # type: ignore[assignment]  # the disk fills up
    session.update({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "lost"}})
    assert session.writer.error is not None and "No space left" in session.writer.error
    assert full.closed and not session.writer.enabled
    session.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    assert "### Agent\n\nok" in render_markdown(path)


def test_transcript_file_is_private_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "t.jsonl"
    writer = TranscriptWriter(path, label="one")
    writer.note("first")
    writer.close()
    writer.note("ignored after close")
    assert path.stat().st_mode & 0o777 == 0o600
    again = TranscriptWriter(path, label="two")
    again.note("second")
    again.close()
    notes = [r["text"] for r in load_records(path) if r["ev"] == "note"]
    assert notes == ["first", "second"]
    assert render_markdown(path) == "*first*\n\n*second*\n"


def test_transcript_path_is_under_data_dir_with_a_safe_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    started = datetime(2026, 11, 3, 14, 5, 9)
    path = transcript_path("../../etc/\x1b]0;x\x07sess-1234567890abcdefghij", started)
    assert path.parent == paths.transcripts_dir() == tmp_path / "data" / "transcripts"
    assert path.name == "20261103-140509-etcsess-12345678.jsonl"
    assert transcript_path("\u202e/../", started).name == "20261103-140509-session.jsonl"


def test_submissions_and_agent_exit_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    session.event(PromptSubmitted(7, [TextContent(text="will it work?")]))
    session.event(AgentExited(returncode=137, reason="killed"))
    session.writer.note("agent restarted", kind="restart")
    records = load_records(path)
    subs = [(r["request_id"], r["status"]) for r in records if r["ev"] == "submission"]
    assert subs == [(7, "pending"), (7, "unknown")]
    exit_record = next(r for r in records if r["ev"] == "exit")
    assert "137" in exit_record["detail"] and not any(r["ev"] == "problem" for r in records)
    md = render_markdown(path)
    assert "*Prompt unknown:* will it work?" in md
    assert md.index("agent exited") < md.index("*agent restarted*")


def test_records_are_valid_json_lines_even_with_odd_values(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    big = {"blob": "x" * 200_000}
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawInput": big,
                    "rawOutput": [1, 2.5, None, True, {"a": []}]})
    session.update({"sessionUpdate": "agent_message", "messageId": "m", "content": [
        {"type": "text", "text": "see "}, {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
        {"type": "mystery", "x": 1}]})
    lines = path.read_bytes().splitlines()
    for line in lines:
        msgspec.json.decode(line)
    added_tool = next(r for r in load_records(path) if r["ev"] == "added" and r["type"] == "tool_call")
    assert "raw_input" not in added_tool  # raw payloads ride on `changed` records only
    md = render_markdown(path)
    assert "see \n[image image/png]\n" in md and "[resource file:///a.txt]\ninside" in md
    assert "[unsupported content mystery]" in md
    assert len(path.read_bytes()) < 150_000  # the huge raw input was not stored whole


def test_removed_plan_leaves_the_export_and_can_return(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    plan = {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p", "entries": [
        {"content": "first try", "priority": "low", "status": "pending"}]}}
    session.update(plan)
    session.update({"sessionUpdate": "plan_removed", "planId": "p"})
    assert not any(r["ev"] == "added" and r["type"] == "unknown" for r in load_records(path))
    assert any(r["ev"] == "removed" and r["id"] == "p" for r in load_records(path))
    assert "first try" not in render_markdown(path)
    plan["plan"]["entries"][0]["content"] = "second try"  # type: ignore[index]
    session.update(plan)
    assert "**Plan:**\n- [ ] second try" in render_markdown(path)


def test_transcript_module_pulls_in_no_ui() -> None:
    import subprocess
    import sys

    code = "import sys, acp_tui.transcript; print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
