"""The transcript: everything shown is on disk, safely encoded, read back typed, rendered as a chat log.

`tests/support/fixtures/transcripts/format1.jsonl` was written by the single-module writer (format 1); the reader
and the Markdown renderer must keep reading it, and `fixture_scenario` replays the session that wrote it,
so the format 2 writer is checked against it record by record.
"""

from __future__ import annotations

import base64
import errno
import json
import typing
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui import paths
from acp_tui.protocol import codec
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch, TextContent
from acp_tui.session.changes import Change
from acp_tui.session.coalesce import coalesce
from acp_tui.session.local_events import (
    AgentExited,
    CancelRequested,
    ChildUpdate,
    FileAccessed,
    PermissionRequested,
    PermissionResolved,
    PromptAccepted,
    PromptRejected,
    PromptSubmitted,
    ProtocolProblem,
)
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import ModelInput, apply
from acp_tui.transcript import FORMAT_VERSION, TranscriptWriter, load_records, render_markdown, transcript_path
from acp_tui.transcript.records import (
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
    TurnEndRecord,
    UnknownItem,
    UsageRecord,
)
from tests.support.paths import FIXTURES as SUPPORT_FIXTURES

FIXTURES = SUPPORT_FIXTURES / "transcripts"

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


@pytest.fixture(autouse=True)
def no_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """File-access paths outside the session folder show `~` for the home directory: pin it."""
    monkeypatch.setenv("HOME", "/home/tester")


def params(update: dict[str, Any], session_id: str = "s1") -> bytes:
    return json.dumps({"sessionId": session_id, "update": update}).encode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Session:
    """A reducer-driven session feeding a writer: per `apply` by default, or per frame like the controller."""

    def __init__(self, writer: TranscriptWriter, *, framed: bool = False) -> None:
        self.state = SessionState()
        self.writer = writer
        self.framed = framed
        self.pending: list[Change] = []

    def update(self, update: dict[str, Any]) -> list[Change]:
        _, decoded = codec.decode_update(params(update), 2)
        return self.event(decoded)

    def event(self, item: ModelInput) -> list[Change]:
        changes = apply(self.state, item)
        if self.framed:
            self.pending.extend(changes)
        else:
            self.writer.write_changes(self.state, changes)
        return changes

    def frame(self) -> None:
        """What the controller does once per frame: the pending changes, coalesced, in one call."""
        changes, self.pending = self.pending, []
        self.writer.write_changes(self.state, coalesce(changes))


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def of(records: list[Record], kind: type[Any]) -> list[Any]:
    return [r for r in records if isinstance(r, kind)]


# -- a realistic turn ---------------------------------------------------------------------------------


def run_realistic_turn(session: Session) -> None:
    session.event(PromptSubmitted(1, [TextContent(text="Please fix the bug")]))
    session.update({"sessionUpdate": "state_update", "state": "running"})
    session.update(
        {
            "sessionUpdate": "user_message",
            "messageId": "u1",
            "content": [{"type": "text", "text": "Please fix the bug"}],
        }
    )
    session.event(PromptAccepted(1, "u1"))
    for piece in chunks("Let me think about the bug first.", 5):
        session.update(
            {"sessionUpdate": "agent_thought_chunk", "messageId": "t1", "content": {"type": "text", "text": piece}}
        )
    session.update(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p1",
                "entries": [
                    {"content": "Read main.py", "priority": "high", "status": "in_progress"},
                    {"content": "Fix the bug", "priority": "high", "status": "pending"},
                ],
            },
        }
    )
    session.update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "title": "Read main.py",
            "kind": "read",
            "status": "pending",
            "locations": [{"path": "/w/main.py", "line": 3}],
        }
    )
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"})
    session.update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": {"type": "text", "text": "def main(): ..."}},
        }
    )
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"})
    session.update({"sessionUpdate": "terminal_update", "terminalId": "term1", "command": "pytest -q"})
    output = "\x1b[32m3 passed\x1b[0m in 0.1s ✓\n".encode()
    for data in (output[:3], output[3:22], output[22:23], output[23:]):  # splits ESC[ and the UTF-8 of ✓
        session.update({"sessionUpdate": "terminal_output_chunk", "terminalId": "term1", "data": b64(data)})
    session.update({"sessionUpdate": "terminal_update", "terminalId": "term1", "exitStatus": {"exitCode": 0}})
    session.update(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p1",
                "entries": [
                    {"content": "Read main.py", "priority": "high", "status": "completed"},
                    {"content": "Fix the bug", "priority": "high", "status": "completed"},
                ],
            },
        }
    )
    session.update({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "in_progress"})
    session.update(
        {
            "sessionUpdate": "compaction_summary_chunk",
            "compactionId": "k1",
            "content": {"type": "text", "text": "Earlier: user asked to fix a bug."},
        }
    )
    session.update({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "completed"})
    for piece in chunks(ANSWER, 7):
        session.update(
            {"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": piece}}
        )
    session.update(
        {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited", "description": "retrying in 2s"}
    )
    session.update(
        {"sessionUpdate": "usage_update", "used": 1200, "size": 200000, "cost": {"amount": 0.02, "currency": "USD"}}
    )
    session.update({"sessionUpdate": "session_info_update", "title": "Fixing the bug"})
    session.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def test_realistic_turn_is_fully_recorded_and_renders(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="s1"))
    run_realistic_turn(session)
    assert session.writer.error is None

    records = load_records(path)
    opened = records[0]
    assert isinstance(opened, OpenRecord) and opened.label == "s1" and opened.format == FORMAT_VERSION == 3
    agent_text = "".join(
        r.text for r in records if isinstance(r, (AddedRecord, TextRecord)) and r.id == "a1" and isinstance(r.text, str)
    )
    assert agent_text == ANSWER
    states = of(records, StateRecord)
    assert (states[-1].state, states[-1].stop_reason, states[-1].busy) == ("idle", "end_turn", False)
    assert of(records, TurnEndRecord) == [TurnEndRecord(turn=1, stop_reason="end_turn", at=states[-1].at)]
    tool = [r for r in records if getattr(r, "type", None) == "tool_call"]
    assert isinstance(tool[0], AddedRecord) and (tool[0].title, tool[0].kind) == ("Read main.py", "read")
    assert tool[0].locations == [Location(path="/w/main.py", line=3)]
    assert [r.fields.status for r in tool if isinstance(r, ChangedRecord)] == ["in_progress", "completed"]
    assert [r.item for r in tool if isinstance(r, ContentRecord)] == [ContentItem(text="def main(): ...")]
    notice = of(records, NoticeRecord)[0]
    assert notice.live is True and notice.title == "Rate limited"
    usage = of(records, UsageRecord)[0]
    assert (usage.used, usage.size, usage.cost) == (1200, 200000, CostValue(amount=0.02, currency="USD"))
    assert of(records, InfoRecord)[0].fields == InfoFields(title="Fixing the bug")

    md = render_markdown(path)
    assert "### User\n\nPlease fix the bug\n\n### Agent\n\n> *Thought:*\n> Let me think about the bug first." in md
    assert ANSWER.rstrip("\n") + "\n\n> **Notice" in md  # the streamed answer, reconstructed exactly
    assert "**Tool call:** Read main.py — ✓ completed (read) · `/w/main.py:3`\n\n```\ndef main(): ...\n```" in md
    assert "- [x] Read main.py\n- [x] Fix the bug" in md  # the plan as last replaced
    assert (
        "**Terminal:** `pytest -q` — exited 0\n\n```\n3 passed in 0.1s ✓\n```" in md
    )  # colours gone, split escape decoded whole
    assert "**Context compaction** — completed\n\n> Earlier: user asked to fix a bug." in md
    assert "> **Notice (warning):** Rate limited — retrying in 2s" in md
    assert md.endswith("*Session title: Fixing the bug*\n")
    assert md.count("### Agent") == 1 and "State" not in md and "1200" not in md  # the chat, not the records
    # Timeline order: user, thought, plan, tool call, terminal, compaction, answer.
    order = [
        "### User",
        "*Thought:*",
        "**Plan:**",
        "**Tool call:**",
        "**Terminal:**",
        "**Context compaction**",
        "Here is the plan.",
    ]
    positions = [md.index(marker) for marker in order]
    assert positions == sorted(positions)


# -- the exact Markdown of a small conversation --------------------------------------------------------

CONVERSATION_MD = """\
*agent demo; session s1; cwd /work/project*

### User

Fix the bug in `app.py`

### Agent

> *Thought:*
> Reading it first.

**Tool call:** Read app.py — ✓ completed (read) · `/work/project/app.py:3`

```
def main():
    return 1 / 0
```

- ▤ read `app.py` (lines 1–2)

**Tool call:** Edit app.py — ✓ completed (edit)

```diff
--- a/app.py
+++ b/app.py
@@ -1,2 +1,2 @@
 def main():
-    return 1 / 0
+    return 1
```

**Tool call:** Run tests — ✓ completed (execute)

**Terminal:** `pytest -q` — exited 0

```
1 passed
```

**Tool call:** Delete build/ — ✗ failed (delete)

- delete `build/` (directory)

**Plan:**
- [x] Read app.py
- [~] Fix the bug
- [ ] Celebrate

⊘ write refused `~/.bashrc` — outside the session folder

✎ created `NOTES.md` (+1)

```diff
+fixed
```

Fixed: no more division by zero.

*⊘ cancelled*

### User

Thanks!
"""


def test_markdown_of_a_small_conversation_reads_like_a_chat(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="s1"), framed=True)
    session.writer.note("agent demo; session s1; cwd /work/project")
    session.event(PromptSubmitted(1, [TextContent(text="Fix the bug in `app.py`")]))
    session.update({"sessionUpdate": "state_update", "state": "running"})
    session.update(
        {
            "sessionUpdate": "user_message",
            "messageId": "u1",
            "content": [{"type": "text", "text": "Fix the bug in `app.py`"}],
        }
    )
    session.event(PromptAccepted(1, "u1"))
    session.frame()
    session.update(
        {"sessionUpdate": "agent_thought_chunk", "messageId": "t1", "content": {"type": "text", "text": "Reading "}}
    )
    session.frame()
    session.update(
        {"sessionUpdate": "agent_thought_chunk", "messageId": "t1", "content": {"type": "text", "text": "it first."}}
    )
    session.update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "title": "Read app.py",
            "kind": "read",
            "status": "in_progress",
            "locations": [{"path": "/work/project/app.py", "line": 3}],
        }
    )
    session.frame()
    session.event(
        FileAccessed(
            kind="read", path="/work/project/app.py", cwd="/work/project", first_line=1, line_count=2, tool_call_id="c1"
        )
    )
    session.update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": {"type": "text", "text": "def main():\n"}},
        }
    )
    session.frame()
    session.update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": {"type": "text", "text": "    return 1 / 0\n"}},
        }
    )
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"})
    session.frame()
    session.update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c2",
            "title": "Edit app.py",
            "kind": "edit",
            "status": "in_progress",
        }
    )
    session.frame()
    session.update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c2",
            "content": {
                "type": "diff",
                "changes": [{"operation": "modify", "path": "/work/project/app.py"}],
                "patch": {
                    "format": "git_patch",
                    "text": "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def main():\n"
                    "-    return 1 / 0\n+    return 1\n",
                },
            },
        }
    )
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "completed"})
    session.frame()
    session.update({"sessionUpdate": "terminal_update", "terminalId": "t1", "command": "pytest -q"})
    session.update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": b64(b"\x1b[32m1 passed")})
    session.frame()
    session.update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c3",
            "title": "Run tests",
            "kind": "execute",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "t1"}],
        }
    )
    session.update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": b64(b"\x1b[0m\n")})
    session.frame()
    session.update({"sessionUpdate": "terminal_update", "terminalId": "t1", "exitStatus": {"exitCode": 0}})
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c3", "status": "completed"})
    session.update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c4",
            "title": "Delete build/",
            "kind": "delete",
            "status": "failed",
            "content": [
                {"type": "diff", "changes": [{"operation": "delete", "path": "build/", "fileType": "directory"}]}
            ],
        }
    )
    session.update(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p1",
                "entries": [
                    {"content": "Read app.py", "priority": "high", "status": "completed"},
                    {"content": "Fix the bug", "priority": "high", "status": "in_progress"},
                    {"content": "Celebrate", "priority": "low", "status": "pending"},
                ],
            },
        }
    )
    session.frame()
    session.event(
        FileAccessed(
            kind="write",
            path="/home/tester/.bashrc",
            cwd="/work/project",
            status="refused",
            detail="outside the session folder",
        )
    )
    note_diff = Diff(
        changes=[DiffChange(operation="add", path="/work/project/NOTES.md")],
        patch=DiffPatch(format="unified", text="+fixed\n"),
    )
    session.event(
        FileAccessed(
            kind="write", path="/work/project/NOTES.md", cwd="/work/project", created=True, diff=note_diff, added=1
        )
    )
    session.update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": {"type": "text", "text": "Fixed: no more division by zero.\n"},
        }
    )
    session.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"})
    session.frame()
    session.writer.note("⊘ cancelled")
    session.update(
        {"sessionUpdate": "user_message", "messageId": "u2", "content": [{"type": "text", "text": "Thanks!"}]}
    )
    session.frame()
    assert session.writer.error is None
    assert render_markdown(path) == CONVERSATION_MD
    files = of(load_records(path), FileRecord)
    assert [(r.id, r.access.kind, r.access.first_line) for r in files] == [("c1", "read", 1)]


def test_a_call_the_user_rejected_reads_rejected_in_the_markdown(tmp_path: Path) -> None:
    from acp_tui.protocol.methods import PermissionOption, RequestPermissionRequest, ToolCallPermissionSubject
    from acp_tui.protocol.v2 import ToolCallUpdate

    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="s1"))
    session.update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Modify config.json", "kind": "edit"}
    )
    request = RequestPermissionRequest(
        session_id="s1",
        title="Modify config.json?",
        options=[PermissionOption(option_id="skip", name="Skip this change", kind="reject_once")],
        subject=ToolCallPermissionSubject(tool_call=ToolCallUpdate(tool_call_id="c1")),
    )
    session.event(PermissionRequested(3, request))
    session.event(PermissionResolved(3, "skip"))
    assert "**Tool call:** Modify config.json — ⊘ rejected (edit)" in render_markdown(path)


# -- the record kinds -----------------------------------------------------------------------------------

ACCESS = FileAccessValue(
    kind="write",
    path="/p/a.py",
    cwd="/p",
    status="done",
    requested_path="/p/./a.py",
    created=True,
    lines_added=2,
    diff=DiffItem(files=[DiffFile(operation="add", path="/p/a.py")], patch="+a\n+b\n", format="git_patch"),
)
EVERY_RECORD: list[Record] = [
    OpenRecord(at=1.5, format=2, label="s"),
    NoteRecord(kind="restart", text="agent restarted", at=2.0),
    AddedRecord(type="agent_message", id="a", text="hi", local_echo=False, at=3.0),
    AddedRecord(
        type="tool_call",
        id="c",
        title=None,
        kind="edit",
        status="pending",
        name=None,
        locations=[Location(path="/p/a.py", line=None)],
        content=[
            ContentItem(text="x"),
            ContentItem(text="[image image/png]", block="image"),
            DiffItem(files=[DiffFile(operation="move", path="b", old_path="a", file_type="text")]),
            TerminalItem(terminal_id="t"),
            UnknownItem(kind="hologram"),
        ],
        files=[ACCESS],
    ),
    AddedRecord(
        type="terminal",
        id="t",
        command="ls",
        cwd=None,
        exit_status=ExitStatusValue(exit_code=None, signal="KILL"),
        text="out",
    ),
    AddedRecord(
        type="plan", id="p", plan=PlanValue(entries=[PlanEntryValue(content="c", priority="high", status="pending")])
    ),
    AddedRecord(type="plan", id="q", plan=PlanValue(unsupported="graph", raw={"nodes": []})),
    AddedRecord(type="compaction", id="k", status="in_progress", error=None, text=""),
    AddedRecord(type="unknown", id="1", kind="brand_new", raw={"x": [1, None]}),
    AddedRecord(type="file_access", id="2", access=ACCESS),
    TextRecord(type="agent_message", id="a", text=" there"),
    ContentRecord(type="agent_message", id="a", text="\n[audio audio/wav]\n"),
    ContentRecord(type="tool_call", id="c", item=DiffItem(files=[], patch=None)),
    OutputRecord(type="terminal", id="t", text="more"),
    ReplacedRecord(type="terminal", id="t", text="all new"),
    ReplacedRecord(type="tool_call", id="c", content=[]),
    ChangedRecord(
        type="tool_call",
        id="c",
        fields=EntityFields(
            status="completed",
            raw_input={"truncated": True, "json": "{"},
            raw_output=None,
            cancelling=False,
            interrupted=True,
        ),
    ),
    ChangedRecord(type="compaction", id="k", fields=EntityFields(error="boom", status="failed")),
    ChangedRecord(type="user_message", id="u", fields=EntityFields(local_echo=False)),
    RemovedRecord(type="plan", id="p"),
    FileRecord(
        type="tool_call", id="c", access=FileAccessValue(kind="read", path="/p/b.py", first_line=3, line_count=0)
    ),
    StateRecord(state="idle", busy=False, stop_reason="error", error=ErrorValue(code=-32603, message="m")),
    TurnEndRecord(turn=3, stop_reason="refusal", error=None, cancel_requested=True),
    NoticeRecord(severity="info", title="t", description=None),
    UsageRecord(used=1, size=2, cost=None),
    InfoRecord(fields=InfoFields(title=None, updated_at="2026-01-01")),
    CommandsRecord(names=["a", "b"]),
    ConfigRecord(options={"mode": "code", "fast": True}),
    PermissionsRecord(opened=[1, "x"], resolved=[(2, "allow"), ("y", "cancelled")], dropped=[3]),
    PermissionsRecord(open=[1, "x"]),  # format 2
    SubmissionRecord(request_id="r1", status="failed", text="hello", error=ErrorValue(code=None, message="no")),
    SubmissionRecord(request_id=4, status="settled"),
    ProblemRecord(reason="invalid base64", detail="terminal t"),
    ExitRecord(detail="exit code 1"),
]


def test_every_record_kind_round_trips_through_a_file(tmp_path: Path) -> None:
    kinds = {type(r) for r in EVERY_RECORD}
    assert kinds == set(typing.get_args(Record)), "a record kind is missing from EVERY_RECORD"
    path = tmp_path / "t.jsonl"
    path.write_bytes(msgspec.json.Encoder().encode_lines(EVERY_RECORD))
    assert load_records(path) == EVERY_RECORD
    render_markdown(path)  # every kind renders (or is left out) without error


def test_optional_fields_stay_off_the_line_and_null_stays_null() -> None:
    line = json.loads(msgspec.json.encode(AddedRecord(type="tool_call", id="c", title=None, at=1.0)))
    assert line == {"ev": "added", "title": None, "type": "tool_call", "id": "c", "at": 1.0}
    changed = json.loads(msgspec.json.encode(ChangedRecord(type="plan", id="p", fields=EntityFields(error=None))))
    assert changed["fields"] == {"error": None}


# -- format 1 -------------------------------------------------------------------------------------------

FORMAT1_MD = """\
*agent demo; session s; cwd /work/project*

### User

Fix the bug in `app.py`, please

### Agent

> *Thought:*
> Look at app.py first.

**Plan:**
- [x] Read app.py
- [x] Fix the bug

**Tool call:** Read app.py — ✓ completed (read) · `/work/project/app.py:3`

```
def main():
    return 1 / 0
```

**Tool call:** Edit app.py — ✓ completed (edit)

```
--- a/app.py
+++ b/app.py
@@ -1,2 +1,2 @@
 def main():
-    return 1 / 0
+    return 1
```

**Terminal:** `pytest -q` — exited 0

```
1 passed in 0.1s ✓
```

**Terminal:** `sleep 100` — exited (SIGTERM)

```
woke
```

**Context compaction** — completed

> Earlier: a bug was found.

Fixed: the division by zero is gone.

[image image/png]

*Unsupported update `brand_new_update`*

> **Notice (warning):** Rate limited — retrying in 2s

*Session title: Fixing the bug*

### User

And the tests?

### Agent

Running them now.

**Tool call:** Run tests — ⊘ cancelled (execute)

```
[terminal term1]
```

*⊘ cancelled*

*Prompt failed:* hello? — internal error

### Agent

**Tool call:** Think hard — ◐ running

*Prompt unanswered (the agent went away):* still there?

*the agent stopped (killed by SIGKILL) — press Ctrl-R to restart it*

*agent restarted; session s*

### Agent

Back again.
"""


def test_a_format1_transcript_reads_and_renders() -> None:
    path = FIXTURES / "format1.jsonl"
    records = load_records(path)
    lines = path.read_bytes().splitlines()
    assert len(records) == len(lines) - 2  # all but the two `unhandled` records format 1 wrote for TurnEnded
    assert isinstance(records[0], OpenRecord) and records[0].format == 1
    tool = next(r for r in records if isinstance(r, ContentRecord) and r.id == "c2")
    assert tool.item is msgspec.UNSET and isinstance(tool.text, str) and tool.text.startswith("--- a/app.py")
    assert render_markdown(path) == FORMAT1_MD


def fixture_scenario(writer: TranscriptWriter) -> None:
    """The session that wrote format1.jsonl, fed per frame as the controller does."""
    session = Session(writer, framed=True)
    u, e, frame = session.update, session.event, session.frame
    writer.note("agent demo; session s; cwd /work/project")
    e(PromptSubmitted(1, [TextContent(text="Fix the bug in `app.py`, please")]))
    frame()
    u({"sessionUpdate": "state_update", "state": "running"})
    u(
        {
            "sessionUpdate": "user_message",
            "messageId": "u1",
            "content": [{"type": "text", "text": "Fix the bug in `app.py`, please"}],
        }
    )
    e(PromptAccepted(1, "u1"))
    frame()
    u({"sessionUpdate": "agent_thought_chunk", "messageId": "t1", "content": {"type": "text", "text": "Look at "}})
    frame()
    u({"sessionUpdate": "agent_thought_chunk", "messageId": "t1", "content": {"type": "text", "text": "app.py first."}})
    frame()
    u(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p1",
                "entries": [
                    {"content": "Read app.py", "priority": "high", "status": "in_progress"},
                    {"content": "Fix the bug", "priority": "medium", "status": "pending"},
                ],
            },
        }
    )
    frame()
    u(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "title": "Read app.py",
            "kind": "read",
            "status": "pending",
            "locations": [{"path": "/work/project/app.py", "line": 3}],
            "rawInput": {"path": "app.py"},
        }
    )
    frame()
    u({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"})
    frame()
    e(
        FileAccessed(
            kind="read",
            path="/work/project/app.py",
            cwd="/work/project",
            first_line=1,
            line_count=40,
            tool_call_id="c1",
        )
    )
    frame()
    u(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": {"type": "text", "text": "def main():\n    return 1 / 0\n"}},
        }
    )
    u({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed", "rawOutput": {"lines": 40}})
    frame()
    u(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c2",
            "title": "Edit app.py",
            "kind": "edit",
            "status": "pending",
        }
    )
    frame()
    e(PermissionRequested(7, None))
    frame()
    e(PermissionResolved(7, "allow-once"))
    frame()
    u(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c2",
            "content": {
                "type": "diff",
                "changes": [{"operation": "modify", "path": "/work/project/app.py"}],
                "patch": {
                    "format": "git_patch",
                    "text": "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    return 1 / 0\n+    return 1\n",
                },
            },
        }
    )
    u({"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "completed"})
    frame()
    diff = Diff(
        changes=[DiffChange(operation="add", path="/work/project/NOTES.md")],
        patch=DiffPatch(format="git_patch", text="--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+fixed\n"),
    )
    e(FileAccessed(kind="write", path="/work/project/NOTES.md", cwd="/work/project", created=True, diff=diff, added=1))
    frame()
    e(
        FileAccessed(
            kind="write", path="/etc/passwd", cwd="/work/project", status="refused", detail="outside the session folder"
        )
    )
    frame()
    u({"sessionUpdate": "terminal_update", "terminalId": "term1", "command": "pytest -q", "cwd": "/work/project"})
    frame()
    out_bytes = "\x1b[32m1 passed\x1b[0m in 0.1s ✓\n".encode()
    for data in (out_bytes[:3], out_bytes[3:14]):
        u({"sessionUpdate": "terminal_output_chunk", "terminalId": "term1", "data": b64(data)})
    frame()
    u({"sessionUpdate": "terminal_output_chunk", "terminalId": "term1", "data": b64(out_bytes[14:])})
    frame()
    u({"sessionUpdate": "terminal_update", "terminalId": "term1", "exitStatus": {"exitCode": 0}})
    frame()
    u(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term2",
            "command": "sleep 100",
            "output": {"data": b64(b"zzz\n")},
        }
    )
    frame()
    u({"sessionUpdate": "terminal_update", "terminalId": "term2", "output": {"data": b64(b"woke\n")}})
    frame()
    u({"sessionUpdate": "terminal_update", "terminalId": "term2", "exitStatus": {"signal": "SIGTERM"}})
    frame()
    u(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p1",
                "entries": [
                    {"content": "Read app.py", "priority": "high", "status": "completed"},
                    {"content": "Fix the bug", "priority": "medium", "status": "completed"},
                ],
            },
        }
    )
    frame()
    u(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p2",
                "entries": [{"content": "temporary", "priority": "low", "status": "pending"}],
            },
        }
    )
    frame()
    u({"sessionUpdate": "plan_removed", "planId": "p2"})
    frame()
    u({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "in_progress"})
    frame()
    u(
        {
            "sessionUpdate": "compaction_summary_chunk",
            "compactionId": "k1",
            "content": {"type": "text", "text": "Earlier: a bug was found."},
        }
    )
    frame()
    u({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "completed"})
    frame()
    u({"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": "Fixed: "}})
    frame()
    for piece in ("the division ", "by zero ", "is gone.\n"):
        u({"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": piece}})
    u(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        }
    )
    frame()
    u({"sessionUpdate": "brand_new_update", "payload": {"x": 1}})
    frame()
    u({"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited", "description": "retrying in 2s"})
    frame()
    u({"sessionUpdate": "usage_update", "used": 1200, "size": 200000, "cost": {"amount": 0.02, "currency": "USD"}})
    frame()
    u({"sessionUpdate": "session_info_update", "title": "Fixing the bug"})
    frame()
    u(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "review", "description": "Review"}],
        }
    )
    frame()
    u(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {
                    "type": "select",
                    "configId": "mode",
                    "name": "Mode",
                    "currentValue": "code",
                    "options": [{"value": "code", "name": "Code"}],
                }
            ],
        }
    )
    frame()
    e(ProtocolProblem("invalid base64", "terminal x output chunk"))
    frame()
    u({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    frame()
    e(PromptSubmitted(2, [TextContent(text="And the tests?")]))
    frame()
    u({"sessionUpdate": "state_update", "state": "running"})
    u({"sessionUpdate": "user_message", "messageId": "u2", "content": [{"type": "text", "text": "And the tests?"}]})
    e(PromptAccepted(2, "u2"))
    frame()
    u({"sessionUpdate": "agent_message", "messageId": "a2", "content": [{"type": "text", "text": "Running them"}]})
    frame()
    u({"sessionUpdate": "agent_message", "messageId": "a2", "content": [{"type": "text", "text": "Running them now."}]})
    frame()
    u(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c3",
            "title": "Run tests",
            "kind": "execute",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "term1"}],
        }
    )
    frame()
    e(CancelRequested())
    frame()
    u({"sessionUpdate": "tool_call_update", "toolCallId": "c3", "status": "cancelled"})
    u({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"})
    frame()
    writer.note("⊘ cancelled")
    e(PromptSubmitted(3, [TextContent(text="hello?")]))
    frame()
    e(PromptRejected(3, ErrorObject(code=-32603, message="internal error")))
    frame()
    e(PromptSubmitted(4, [TextContent(text="still there?")]))
    frame()
    u({"sessionUpdate": "state_update", "state": "running"})
    frame()
    u({"sessionUpdate": "tool_call_update", "toolCallId": "c4", "title": "Think hard", "status": "in_progress"})
    frame()
    e(AgentExited(returncode=137, reason="killed by SIGKILL"))
    frame()
    writer.note("the agent stopped (killed by SIGKILL) — press Ctrl-R to restart it")
    writer.note("agent restarted; session s", kind="restart")
    session.state = SessionState()
    u({"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": "Back again."}})
    frame()
    writer.close()


def without_at(line: bytes) -> dict[str, Any]:
    record = json.loads(line)
    record.pop("at")
    return record


def test_format3_is_format1_with_typed_tool_content_files_turn_ends_and_permission_changes(tmp_path: Path) -> None:
    """Replaying the fixture's session, every record is the same except the documented changes."""
    path = tmp_path / "t.jsonl"
    fixture_scenario(TranscriptWriter(path, label="fixture-session"))
    old = [without_at(line) for line in (FIXTURES / "format1.jsonl").read_bytes().splitlines()]
    new = [without_at(line) for line in path.read_bytes().splitlines()]
    # Format 1 flattened a tool call's content to `text`; format 2 keeps the items.
    for record in old:
        if record.get("type") == "tool_call" and "text" in record:
            text = record.pop("text")
            if record["ev"] == "added":
                record["content"] = [{"type": "terminal", "terminal_id": "term1"}] if text else []
            else:
                record["item"] = (
                    {"type": "content", "text": text}
                    if record["id"] == "c1"
                    else {
                        "type": "diff",
                        "files": [{"operation": "modify", "path": "/work/project/app.py"}],
                        "patch": text,
                        "format": "git_patch",
                    }
                )
    old[0]["format"] = 3
    # Format 3's permission records say what changed (`opened`, `resolved`), not what is open.
    for record in old:
        if record["ev"] == "permissions":
            opened = [rid for rid in record.pop("open") if rid not in {r for r, _ in record["resolved"]}]
            record.update({"opened": opened} if opened else {})
            if not record["resolved"]:
                del record["resolved"]
    turn_ends = iter(
        [
            {"ev": "turn_end", "turn": 1, "stop_reason": "end_turn", "error": None, "cancel_requested": False},
            {"ev": "turn_end", "turn": 2, "stop_reason": "cancelled", "error": None, "cancel_requested": True},
        ]
    )
    old = [next(turn_ends) if r["ev"] == "unhandled" else r for r in old]
    # Format 1 wrote nothing about file accesses (an empty `added` for standalone ones) nor `interrupted`.
    extra = [r for r in new if r["ev"] == "file" or r.get("fields") == {"interrupted": True}]
    assert [r["ev"] for r in extra] == ["file", "changed"]
    new = [r for r in new if r not in extra]
    accesses = [r.pop("access") for r in new if r.get("type") == "file_access"]
    assert [(a["kind"], a.get("status", "done")) for a in accesses] == [("write", "done"), ("write", "refused")]
    assert new == old


# -- batches ------------------------------------------------------------------------------------------


def test_consecutive_appends_in_one_call_coalesce(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    state = SessionState()
    first = apply(
        state,
        codec.decode_update(
            params(
                {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "x"}}
            ),
            2,
        )[1],
    )
    writer.write_changes(state, first)
    batch: list[Change] = []
    for piece in ["one ", "two ", "three"]:
        _, update = codec.decode_update(
            params(
                {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": piece}}
            ),
            2,
        )
        batch += apply(state, update)
    _, other = codec.decode_update(
        params({"sessionUpdate": "agent_thought_chunk", "messageId": "a", "content": {"type": "text", "text": "hm"}}), 2
    )
    batch += apply(state, other)
    _, more = codec.decode_update(
        params({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "!"}}), 2
    )
    batch += apply(state, more)
    writer.write_changes(state, batch)
    records = [r for r in load_records(path) if isinstance(r, (AddedRecord, TextRecord))]
    assert [(type(r).__name__, r.type, r.text) for r in records] == [
        ("AddedRecord", "agent_message", "x"),
        ("TextRecord", "agent_message", "one two three"),
        ("AddedRecord", "agent_thought", "hm"),
        ("TextRecord", "agent_message", "!"),
    ]


def test_batch_that_adds_an_entity_skips_its_later_changes(tmp_path: Path) -> None:
    """The model already holds them when the `added` record is rendered, so they must not repeat."""
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    state = SessionState()
    batch: list[Change] = []
    for piece in ["al", "pha"]:
        _, update = codec.decode_update(
            params(
                {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": piece}}
            ),
            2,
        )
        batch += apply(state, update)
    writer.write_changes(state, batch)
    assert render_markdown(path) == "### Agent\n\nalpha\n"


def test_file_accesses_of_a_tool_call_are_written_once_each(tmp_path: Path) -> None:
    """A tool call's accesses are appended (one `file` record each), never the growing list again."""
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path), framed=True)
    session.update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Refactor", "status": "in_progress"}
    )
    session.event(FileAccessed(kind="read", path="/p/a.py", cwd="/p", tool_call_id="c"))
    session.frame()  # the call is added with its first access already in it
    session.event(FileAccessed(kind="read", path="/p/b.py", cwd="/p", tool_call_id="c"))
    session.event(
        FileAccessed(kind="write", path="/p/c.py", cwd="/p", status="failed", detail="disk full", tool_call_id="c")
    )
    session.frame()
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed"})
    session.frame()
    records = load_records(path)
    added = of(records, AddedRecord)[0]
    assert isinstance(added.files, list) and [a.path for a in added.files] == ["/p/a.py"]
    assert [r.access.path for r in of(records, FileRecord)] == ["/p/b.py", "/p/c.py"]
    assert (
        "**Tool call:** Refactor — ✓ completed\n\n- ▤ read `a.py`\n- ▤ read `b.py`\n- ✗ write failed `c.py` — disk full"
        in render_markdown(path)
    )


def test_tool_output_that_is_one_fenced_block_is_not_fenced_again(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    outputs = {"a": "```python\nprint(1)\n```\n", "b": "```\none\n```\nprose\n```\ntwo\n```"}
    for call_id, text in outputs.items():
        session.update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "title": call_id,
                "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": text}}],
            }
        )
    md = render_markdown(path)
    assert "**Tool call:** a — ✓ completed\n\n```python\nprint(1)\n```\n\n" in md
    assert md.endswith("**Tool call:** b — ✓ completed\n\n````\n```\none\n```\nprose\n```\ntwo\n```\n````\n")


# -- hostile input, broken files, broken disks -------------------------------------------------------------


def test_hostile_strings_never_reach_the_file_raw(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="\x1b]0;label\x07"))
    evil = "".join(HOSTILE)
    session.event(PromptSubmitted("r\x1b1", [TextContent(text=evil)]))
    session.event(PromptRejected("r\x1b1", ErrorObject(code=-32603, message=evil)))
    session.update(
        {"sessionUpdate": "agent_message_chunk", "messageId": "m" + evil, "content": {"type": "text", "text": "start "}}
    )
    for piece in HOSTILE:
        session.update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m" + evil,
                "content": {"type": "text", "text": piece},
            }
        )
    session.update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": evil,
            "title": evil,
            "kind": evil,
            "status": evil,
            "locations": [{"path": evil}],
            "rawInput": {evil: [evil, {"k": evil}]},
        }
    )
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": evil, "title": "t" + evil, "rawOutput": evil})
    session.update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": evil,
            "content": {
                "type": "diff",
                "changes": [{"operation": evil, "path": evil, "oldPath": evil, "fileType": evil}],
                "patch": {"format": evil, "text": evil},
            },
        }
    )
    session.update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": evil,
            "content": {"type": "content", "content": {"type": "image", "data": "", "mimeType": evil}},
        }
    )
    session.update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": evil,
            "content": {"type": "terminal", "terminalId": evil},
        }
    )
    session.update({"sessionUpdate": "tool_call_content_chunk", "toolCallId": evil, "content": {"type": evil}})
    session.event(
        FileAccessed(
            kind="write", path=evil, cwd=evil, status="failed", detail=evil, requested_path=evil, tool_call_id=evil
        )
    )
    evil_diff = Diff(changes=[DiffChange(operation=evil, path=evil)], patch=DiffPatch(format=evil, text=evil))
    session.event(FileAccessed(kind="write", path="/p/" + evil, cwd="/p", created=True, diff=evil_diff, added=1))
    session.update({"sessionUpdate": "terminal_update", "terminalId": "t", "command": evil, "cwd": evil})
    data = evil.encode()
    for i in range(0, len(data), 3):
        session.update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": b64(data[i : i + 3])})
    session.update(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t",
            "output": {"data": b64(data)},
            "exitStatus": {"signal": evil},
        }
    )
    session.update(
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": evil, "entries": [{"content": evil, "priority": evil, "status": evil}]},
        }
    )
    session.update({"sessionUpdate": "plan_update", "plan": {"type": evil, "planId": "q", "x": evil}})
    session.update({"sessionUpdate": "notice", "severity": evil, "title": evil, "description": evil})
    session.update({"sessionUpdate": "session_info_update", "title": evil})
    session.update({"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": {"amount": 1.0, "currency": evil}})
    session.update({"sessionUpdate": "brand_new" + evil, "payload": {evil: evil}})
    session.update(
        {
            "sessionUpdate": "compaction_update",
            "compactionId": evil,
            "status": evil,
            "summary": [{"type": "text", "text": evil}, {"type": "image", "data": "", "mimeType": evil}],
            "error": evil,
        }
    )
    session.update(
        {"sessionUpdate": "available_commands_update", "availableCommands": [{"name": evil, "description": evil}]}
    )
    session.update(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": evil, "error": {"code": 1, "message": evil}}
    )
    session.update(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": {"code": 1, "message": evil}}
    )
    session.event(ProtocolProblem(evil, evil))
    session.event(AgentExited(returncode=1, reason=evil))
    session.writer.note(evil, kind=evil)
    assert session.writer.error is None

    raw = path.read_bytes()
    for needle in [
        b"\x1b",
        b"\x07",
        b"\x00",
        b"\x9b",
        "\x9b".encode(),
        "\u202e".encode(),
        "\u2066".encode(),
        b"\\u001b",
        b"\\u0007",
        b"\\u0000",
        b"\\u009b",
        b"\\u202e",
        b"\\u2066",
    ]:
        assert needle not in raw, needle
    assert b"aGk=" not in raw  # the OSC 52 payload is removed whole, not just its introducer
    md = render_markdown(path)
    for needle_text in ("\x1b", "\x07", "\x00", "\x9b", "\u202e", "\u2066"):
        assert needle_text not in md
    assert "start 2J" not in md and "start evil" not in md.replace("\n", "")  # sequences removed whole
    assert "*Prompt failed:*" in md
    assert "write failed" in md and "✎ created" in md


def test_a_hand_edited_transcript_still_renders_clean_markdown(tmp_path: Path) -> None:
    """The writer sanitizes, but a file can be edited: the renderer sanitizes its output once more."""
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"ev":"added","type":"agent_message","id":"a","text":"hi \\u001b]0;pwned\\u0007 \\u202eyou"}\n'
        '{"ev":"note","text":"\\u001b[2Jbye"}\n'
    )
    assert render_markdown(path) == "### Agent\n\nhi  you\n\n*bye*\n"


def test_truncated_last_line_is_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    for piece in chunks(ANSWER, 11):
        session.update(
            {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": piece}}
        )
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Half written"})
    session.writer.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 15])  # a crash in the middle of the last record
    md = render_markdown(path)
    assert md == f"### Agent\n\n{ANSWER.rstrip()}\n"
    assert not any(isinstance(r, AddedRecord) and r.type == "tool_call" for r in load_records(path))
    path.write_bytes(data + b'{"ev": "text", "type": "agent_mes')
    assert f"### Agent\n\n{ANSWER.rstrip()}" in render_markdown(path)


def test_unknown_and_malformed_records_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                b'{"ev":"open","at":1,"format":9,"label":"future","new_field":[1,2]}',
                b'{"ev":"hologram","type":"agent_message","id":"a","text":"from a newer writer"}',
                b'{"ev":"unhandled","change":"TurnEnded"}',
                b'{"ev":"text","type":"agent_message"}',  # no id: not a record
                b'{"ev":"note","text":42}',  # wrong type
                b'["ev","note"]',
                b"not json at all",
                b"",
                b"   ",
                b'{"ev":"note","text":"kept","extra":{"a":1}}',
            ]
        )
    )
    records = load_records(path)
    assert records == [OpenRecord(at=1.0, format=9, label="future"), NoteRecord(text="kept")]
    assert render_markdown(path) == "*kept*\n"


def test_unwritable_path_disables_without_raising(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    writer = TranscriptWriter(blocker / "sub" / "t.jsonl")
    session = Session(writer)
    session.update(
        {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "hello"}}
    )
    assert not writer.enabled and writer.error is not None and writer.error.startswith("transcript disabled")
    first_error = writer.error
    session.update(
        {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": " again"}}
    )
    writer.note("agent restarted")
    assert writer.error == first_error  # reported once, never replaced
    message = session.state.message("agent_message", "a")
    assert message is not None and message.text == "hello again"  # the session went on


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
    session.update(
        {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "ok"}}
    )
    assert session.writer.enabled
    full = FullDisk()
    session.writer._file = full  # type: ignore[assignment]  # the disk fills up
    session.update(
        {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "lost"}}
    )
    assert session.writer.error is not None and "No space left" in session.writer.error
    assert full.closed and not session.writer.enabled
    session.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    session.writer.note("after the disk filled up")
    assert session.writer.error.startswith("transcript disabled: No space left")  # the first error stays
    assert render_markdown(path) == "### Agent\n\nok\n"


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
    records = load_records(path)
    assert [r.label for r in of(records, OpenRecord)] == ["one", "two"]
    assert [r.text for r in of(records, NoteRecord)] == ["first", "second"]
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
    assert [(r.request_id, r.status) for r in of(records, SubmissionRecord)] == [(7, "pending"), (7, "unknown")]
    exits = of(records, ExitRecord)
    assert len(exits) == 1 and "137" in exits[0].detail and not of(records, ProblemRecord)
    # The exit is said once in the chat: by the client's note, which the controller writes.
    assert render_markdown(path) == "*Prompt unanswered (the agent went away):* will it work?\n\n*agent restarted*\n"


def test_records_are_valid_json_lines_even_with_odd_values(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    big = {"blob": "x" * 200_000}
    session.update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "rawInput": big,
            "rawOutput": [1, 2.5, None, True, {"a": []}],
        }
    )
    session.update({"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawInput": big})
    session.update(
        {
            "sessionUpdate": "agent_message",
            "messageId": "m",
            "content": [
                {"type": "text", "text": "see "},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
                {"type": "mystery", "x": 1},
            ],
        }
    )
    lines = path.read_bytes().splitlines()
    for line in lines:
        msgspec.json.decode(line)
    records = load_records(path)
    added_tool = next(r for r in records if isinstance(r, AddedRecord) and r.type == "tool_call")
    assert added_tool.raw_input is msgspec.UNSET  # raw payloads ride on `changed` records only
    changed = of(records, ChangedRecord)[0]
    assert changed.fields.raw_input["truncated"] is True and len(changed.fields.raw_input["json"]) == 64 * 1024
    md = render_markdown(path)
    assert "see \n[image image/png]\n" in md and "[resource file:///a.txt]\ninside" in md
    assert "[unsupported content mystery]" in md
    assert len(path.read_bytes()) < 150_000  # the huge raw input was not stored whole


def test_export_lists_mentioned_files_by_name_and_size_never_their_text(tmp_path: Path) -> None:
    """An @-mentioned file travels as an embedded resource: the chat log names it and its size, as the
    screen's chip does, and does not paste the file's whole text into the conversation."""
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    secret = "API_KEY = 'hunter2'\n" * 100
    session.update(
        {
            "sessionUpdate": "user_message",
            "messageId": "u",
            "content": [
                {"type": "text", "text": "compare @src/a.py and @b%20c.txt"},
                {"type": "resource", "resource": {"uri": "file:///w/src/a.py", "text": secret}},
                {"type": "resource", "resource": {"uri": "file:///w/b%20c.txt", "text": "hi\n"}},
            ],
        }
    )
    md = render_markdown(path)
    assert "hunter2" not in md
    assert "### User\n\ncompare @src/a.py and @b%20c.txt\n\n- `a.py` · 2 KB\n- `b c.txt` · 3 B\n" in md


def test_removed_plan_leaves_the_export_and_can_return(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path))
    plan = {
        "sessionUpdate": "plan_update",
        "plan": {
            "type": "items",
            "planId": "p",
            "entries": [{"content": "first try", "priority": "low", "status": "pending"}],
        },
    }
    session.update(plan)
    session.update({"sessionUpdate": "plan_removed", "planId": "p"})
    records = load_records(path)
    assert not any(isinstance(r, AddedRecord) and r.type == "unknown" for r in records)
    assert [r.id for r in of(records, RemovedRecord)] == ["p"]
    assert "first try" not in render_markdown(path)
    plan["plan"]["entries"][0]["content"] = "second try"  # type: ignore[index]
    session.update(plan)
    assert render_markdown(path) == "### Agent\n\n**Plan:**\n- [ ] second try\n"


def test_transcript_package_pulls_in_no_ui() -> None:
    import subprocess
    import sys

    code = (
        "import sys, acp_tui.transcript, acp_tui.transcript.markdown; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_subagent_is_one_line_of_the_transcript_with_its_last_state(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="s1"), framed=True)
    announce = {"sessionUpdate": "subagent_update", "sessionId": "c1", "title": "Explore [b]x[/b]"}
    session.update({**announce, "state": {"state": "running"}})
    _, child_call = codec.decode_update(params({"sessionUpdate": "tool_call_update", "toolCallId": "k"}), 2)
    session.event(ChildUpdate("c1", child_call))
    session.frame()
    session.update({**announce, "state": {"state": "idle", "stopReason": "end_turn"}})
    session.frame()
    session.writer.close()
    markdown = render_markdown(path)
    assert "**Subagent** Explore [b]x[/b] — ended" in markdown
    assert markdown.count("Subagent") == 1  # the child's own calls are not the parent's


def test_one_agent_heading_per_answer_though_the_title_arrives_within_it(tmp_path: Path) -> None:
    """The newcomer report (2026-12-07, nits): `### Agent` came again after `*Session title: …*` mid-answer."""
    path = tmp_path / "t.jsonl"
    session = Session(TranscriptWriter(path, label="s1"), framed=True)
    session.update({"sessionUpdate": "user_message", "messageId": "u1", "content": [{"type": "text", "text": "hi"}]})
    session.update(
        {"sessionUpdate": "agent_message", "messageId": "a1", "content": [{"type": "text", "text": "Hello"}]}
    )
    session.frame()
    session.update({"sessionUpdate": "session_info_update", "title": "Greetings"})
    session.frame()
    session.update(
        {"sessionUpdate": "agent_message", "messageId": "a2", "content": [{"type": "text", "text": "again"}]}
    )
    session.frame()
    session.writer.note("the agent stopped; restarted", kind="restart")
    session.update({"sessionUpdate": "agent_message", "messageId": "a3", "content": [{"type": "text", "text": "back"}]})
    session.frame()
    session.writer.close()
    md = render_markdown(path)
    assert md.count("### Agent") == 2, md  # one for the answer, one after the restart
    assert "### Agent\n\nHello\n\n*Session title: Greetings*\n\nagain\n\n*the agent stopped; restarted*" in md, md
