"""The v1 terminal-output extension (docs/protocol.md §6.4): a tool call's `_meta.terminal_info`,
`terminal_output`, `terminal_output_delta` and `terminal_exit` become a live terminal in its card.

The shapes are the ones Claude's ACP adapter and codex-acp send to a client that advertises
`clientCapabilities._meta.terminal_output(_delta)`; the adapter's output is applied to a session model
the way the agent layer does.
"""

from __future__ import annotations

from typing import Any

import msgspec

from acp_tui.protocol import codec
from acp_tui.protocol.v2 import TerminalOutputChunk, TerminalRef, TerminalUpdate, ToolCallContentChunk
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply
from acp_tui.session.v1_adapter import V1Adapter


class Run:
    """A v1 adapter feeding a session model, as the agent layer does."""

    def __init__(self) -> None:
        self.adapter = V1Adapter()
        self.state = SessionState()
        for item in self.adapter.turn_started(1):
            apply(self.state, item)

    def send(self, update: dict[str, Any]) -> list[Any]:
        raw = msgspec.json.encode({"sessionId": "s", "update": update})
        _, decoded = codec.decode_update(raw, 1)
        out = self.adapter.update(decoded)
        for item in out:
            assert not [c for c in apply(self.state, item) if type(c).__name__ == "ProblemAdded"], item
        return out


def claude_bash(run: Run, delta: bool = True) -> None:
    """What Claude's adapter sends for `echo hi` (tool-calls/renderer.js: toolCall, then result)."""
    run.send(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "toolu_1",
            "title": "echo hi",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"command": "echo hi"},
            "content": [{"type": "terminal", "terminalId": "toolu_1"}],
            "_meta": {"claudeCode": {"toolName": "Bash"}, "terminal_info": {"terminal_id": "toolu_1"}},
        }
    )
    key = "terminal_output_delta" if delta else "terminal_output"
    run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "toolu_1",
            "_meta": {key: {"terminal_id": "toolu_1", "data": "hi\n"}},
        }
    )
    run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "toolu_1",
            "status": "completed",
            "_meta": {
                "claudeCode": {"toolName": "Bash"},
                "terminal_exit": {"terminal_id": "toolu_1", "exit_code": 0, "signal": None},
            },
        }
    )


def test_claude_bash_output_streams_into_the_card() -> None:
    run = Run()
    claude_bash(run)
    call = run.state.tool_call("toolu_1")
    term = run.state.terminal("toolu_1")
    assert call is not None and term is not None
    assert call.status == "completed" and call.content == [TerminalRef(terminal_id="toolu_1")]
    assert call.meta == {"claudeCode": {"toolName": "Bash"}}  # the extension's keys are not kept twice
    assert term.command == "echo hi" and bytes(term.output) == b"hi\n"
    assert term.exit_status is not None and term.exit_status.exit_code == 0
    assert run.state.problem_count == 0


def test_an_output_only_report_is_just_a_chunk() -> None:
    run = Run()
    run.send(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "_meta": {"terminal_info": {"terminal_id": "c"}},
        }
    )
    out = run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "_meta": {"terminal_output_delta": {"terminal_id": "c", "data": "é\n"}},
        }
    )
    assert [type(item) for item in out] == [TerminalOutputChunk]  # no tool-call change per chunk
    term = run.state.terminal("c")
    assert term is not None and bytes(term.output) == "é\n".encode()


def test_terminal_output_is_a_snapshot() -> None:
    run = Run()
    claude_bash(run, delta=False)
    run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "toolu_1",
            "_meta": {"terminal_output": {"terminal_id": "toolu_1", "data": "all of it\n"}},
        }
    )
    term = run.state.terminal("toolu_1")
    assert term is not None and bytes(term.output) == b"all of it\n"


def test_codex_style_argv_command_and_no_terminal_content() -> None:
    run = Run()
    out = run.send(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "call_1",
            "title": "ls",
            "kind": "execute",
            "rawInput": {"command": ["bash", "-lc", "ls -la"]},
            "_meta": {"terminal_info": {"terminal_id": "term-9", "cwd": "/repo"}},
        }
    )
    assert isinstance(out[1], TerminalUpdate) and out[1].command == "bash -lc 'ls -la'" and out[1].cwd == "/repo"
    call = run.state.tool_call("call_1")
    assert call is not None and call.content == [TerminalRef(terminal_id="term-9")]
    run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "call_1",
            "_meta": {"terminal_output_delta": {"terminal_id": "term-9", "data": "a\n"}},
        }
    )
    run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "call_1",
            "status": "failed",
            "_meta": {"terminal_exit": {"terminal_id": "term-9", "exit_code": None, "signal": "SIGINT"}},
        }
    )
    term = run.state.terminal("term-9")
    assert term is not None and bytes(term.output) == b"a\n"
    assert (
        term.exit_status is not None
        and term.exit_status.signal == "SIGINT"
        and term.exit_status.exit_code is msgspec.UNSET
    )


def test_the_terminal_stays_in_its_card() -> None:
    run = Run()
    run.send({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t"})
    out = run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "rawInput": {"command": "make"},
            "_meta": {"terminal_info": {"terminal_id": "c"}},
        }
    )
    assert ToolCallContentChunk(tool_call_id="c", content=TerminalRef(terminal_id="c")) in out
    # content replaced later without it (a denial text): the terminal is still the call's
    run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "content": [{"type": "content", "content": {"type": "text", "text": "denied"}}],
        }
    )
    call = run.state.tool_call("c")
    assert call is not None and [type(item).__name__ for item in call.content] == ["TerminalRef", "ToolContent"]
    term = run.state.terminal("c")
    assert term is not None and term.command == "make"


def test_malformed_extension_values_are_left_alone() -> None:
    run = Run()
    out = run.send(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "_meta": {"terminal_output": "not an object", "other": 1},
        }
    )
    assert len(out) == 1 and run.state.terminal("c") is None
    call = run.state.tool_call("c")
    assert call is not None and call.meta == {"terminal_output": "not an object", "other": 1}


def test_exit_without_a_code_still_ends_it() -> None:
    run = Run()
    run.send(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "_meta": {"terminal_info": {"terminal_id": "c"}},
        }
    )
    run.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "_meta": {"terminal_exit": {"terminal_id": "c", "exit_code": None, "signal": None}},
        }
    )
    term = run.state.terminal("c")
    assert term is not None and term.exit_status is not None  # "exited", code unknown
