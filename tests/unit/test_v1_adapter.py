"""v1 updates mapped onto the v2 model (docs/protocol.md §5.6, §4.2); each docstring quotes the rule."""

from __future__ import annotations

import json
from typing import Any

from msgspec import UNSET

from acp_tui.protocol import codec
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import Diff, SessionConfigBoolean, StateUpdate, TextContent
from acp_tui.session.local_events import PromptSubmitted
from acp_tui.session.model import AGENT_MESSAGE, AGENT_THOUGHT, USER_MESSAGE, Message, SessionState, ToolCall
from acp_tui.session.reducer import apply
from acp_tui.session.v1_adapter import V1_MODE_CONFIG_ID, V1Adapter

SID = "s1"


def v1(update: dict[str, Any]) -> Any:
    _, decoded = codec.decode_update(json.dumps({"sessionId": SID, "update": update}).encode(), 1)
    return decoded


class Session:
    def __init__(self, **kwargs: Any) -> None:
        self.state = SessionState()
        self.adapter = V1Adapter(**kwargs)
        self.feed(self.adapter.initial_updates())

    def feed(self, items: list[Any]) -> None:
        for item in items:
            apply(self.state, item)

    def send(self, update: dict[str, Any]) -> None:
        self.feed(self.adapter.update(v1(update)))

    def prompt(self, request_id: int, text: str) -> None:
        self.feed([PromptSubmitted(request_id, [TextContent(text=text)])])
        self.feed(self.adapter.turn_started(request_id))

    def texts(self, kind: str) -> list[tuple[str, str]]:
        return [(e.id, e.text) for e in self.state.entities.values() if isinstance(e, Message) and e.key[0] == kind]


def chunk(kind: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}, **extra}


def test_chunks_without_message_id_get_local_ids_and_continue_while_same_kind() -> None:
    """§5.6: "Missing ID → synthesize local:<type>:<n>, continuing while the previous timeline entity is the
    same type in the same turn, otherwise a new ID" """
    s = Session()
    s.prompt(1, "hi")
    s.send(chunk("agent_thought_chunk", "hmm"))
    s.send(chunk("agent_message_chunk", "Hel"))
    s.send({"sessionUpdate": "usage_update", "used": 1, "size": 10})  # not a timeline entity
    s.send(chunk("agent_message_chunk", "lo"))
    s.send({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read"})
    s.send(chunk("agent_message_chunk", "after tool"))
    s.feed(s.adapter.turn_ended("end_turn"))
    s.prompt(2, "again")
    s.send(chunk("agent_message_chunk", "second turn"))
    assert s.texts(AGENT_MESSAGE) == [
        ("local:agent_message:1", "Hello"),
        ("local:agent_message:2", "after tool"),
        ("local:agent_message:3", "second turn"),
    ]
    assert s.texts(AGENT_THOUGHT) == [("local:agent_thought:1", "hmm")]
    assert s.texts(USER_MESSAGE) == [("local:user_message:1", "hi"), ("local:user_message:2", "again")]


def test_chunk_with_message_id_keeps_it() -> None:
    """§5.6: "messageId? (optional; null = absent)" — present ids are used as sent."""
    s = Session()
    s.prompt(1, "x")
    s.send(chunk("agent_message_chunk", "a", messageId="msg_9"))
    s.send(chunk("agent_message_chunk", "b", messageId="msg_9"))
    s.send(chunk("agent_message_chunk", "c", messageId=None))
    assert s.texts(AGENT_MESSAGE) == [("msg_9", "ab"), ("local:agent_message:1", "c")]


def test_prompt_rendered_at_send_and_agent_echo_does_not_duplicate() -> None:
    """§4.2: "The user message is implicit (the request itself) ... rec: render the prompt locally at send
    time." """
    s = Session()
    s.prompt(4, "Please WRITEFILE now")
    assert s.texts(USER_MESSAGE) == [("local:user_message:1", "Please WRITEFILE now")]
    assert not s.state.submissions
    s.send(chunk("user_message_chunk", "Please WRITEFILE now"))
    assert s.texts(USER_MESSAGE) == [("local:user_message:1", "Please WRITEFILE now")]


def test_turn_synthesises_running_then_idle_with_stop_reason() -> None:
    """§4.2: "Internal mapping: on send, synthesize running. On response, synthesize idle + stopReason." """
    s = Session()
    s.prompt(1, "x")
    assert s.state.foreground.state == "running" and s.state.foreground.busy
    s.feed(s.adapter.turn_ended("max_tokens"))
    assert (s.state.foreground.state, s.state.foreground.stop_reason) == ("idle", "max_tokens")


def test_error_response_is_idle_error_or_cancelled_after_cancel() -> None:
    """§4.2: "On error, synthesize idle with stopReason:"error" + the error object"; "rec: treat an error
    response after session/cancel as cancelled" """
    s = Session()
    s.prompt(1, "x")
    err = ErrorObject(code=-32603, message="boom")
    s.feed(s.adapter.turn_failed(err))
    assert (s.state.foreground.stop_reason, s.state.foreground.error) == ("error", err)
    s.prompt(2, "y")
    s.feed(s.adapter.turn_failed(err, after_cancel=True))
    assert (s.state.foreground.stop_reason, s.state.foreground.error) == ("cancelled", None)


def test_permission_request_blocks_then_resumes() -> None:
    """§8: "The agent SHOULD report requires_action while foreground work is blocked, and MUST report
    running when work resumes" — v1 has no state updates, so the adapter synthesises both."""
    s = Session()
    s.prompt(1, "x")
    assert s.adapter.permission_requested() == [StateUpdate(state="requires_action")]
    assert s.adapter.permission_requested() == []
    assert s.adapter.permission_resolved() == []
    assert s.adapter.permission_resolved() == [StateUpdate(state="running")]
    s.feed(s.adapter.turn_ended("end_turn"))
    assert s.adapter.permission_requested() == []  # outside a turn: background, no state change


def test_tool_call_create_defaults_and_null_means_unchanged() -> None:
    """§5.6: tool_call "Defaults: status: pending, kind: other"; tool_call_update "In v1, null == omitted ==
    unchanged (no clear). Arrays replace." """
    s = Session()
    s.send({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Read README", "rawInput": {"p": 1}})
    call = s.state.tool_call("c")
    assert isinstance(call, ToolCall) and (call.status, call.kind, call.title) == ("pending", "other", "Read README")
    s.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "title": None,
            "rawInput": None,
            "status": "completed",
            "content": [{"type": "content", "content": {"type": "text", "text": "done"}}],
        }
    )
    assert (call.title, call.raw_input, call.status) == ("Read README", {"p": 1}, "completed")
    assert call.content[0].content.text == "done"  # type: ignore[union-attr]


def test_v1_diff_becomes_a_v2_diff_with_a_patch() -> None:
    """§6.3: "v1: {type:"diff", path, oldText?, newText}. oldText null ⇒ new file" ; "compute a unified diff
    locally (difflib)" """
    s = Session()
    s.send(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "Edit",
            "content": [
                {"type": "diff", "path": "/p/a.txt", "oldText": "one\n", "newText": "two\n"},
                {"type": "diff", "path": "/p/new.txt", "oldText": None, "newText": "fresh\n"},
            ],
        }
    )
    call = s.state.tool_call("c")
    assert call is not None
    modify, add = call.content
    assert isinstance(modify, Diff) and isinstance(add, Diff)
    assert (modify.changes[0].operation, modify.changes[0].path) == ("modify", "/p/a.txt")
    assert "-one\n+two\n" in modify.patch.text  # type: ignore[union-attr]
    assert add.changes[0].operation == "add" and "+fresh\n" in add.patch.text  # type: ignore[union-attr]


def test_a_v1_diff_keeps_a_missing_final_line_break_and_stays_bounded() -> None:
    """§6.3: the patch is the hunk model's (session/diffs.py): git's note where a side ends without a line
    break, and two large texts that differ everywhere are one replaced block, not a quadratic match."""
    old = "".join(f"{i}\n" for i in range(50_000))
    s = Session()
    s.send(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "Edit",
            "content": [
                {"type": "diff", "path": "/p/a.txt", "oldText": "one\n", "newText": "one\ntwo"},
                {"type": "diff", "path": "/p/big.txt", "oldText": old, "newText": old.replace("\n", "!\n")},
            ],
        }
    )
    call = s.state.tool_call("c")
    assert call is not None
    small, big = call.content
    assert isinstance(small, Diff) and isinstance(big, Diff)
    assert small.patch.text.endswith("+two\n\\ No newline at end of file\n")  # type: ignore[union-attr]
    patch = big.patch.text  # type: ignore[union-attr]
    assert patch.count("\n-") - 1 == patch.count("\n+") - 1 == 50_000  # the rows, past the `---`, `+++` lines


def test_plan_maps_to_plan_main_and_replaces() -> None:
    """§5.6: plan → "plan_update {type:"items", planId:"main", entries}"; replace."""
    s = Session()
    s.send({"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "high", "status": "pending"}]})
    s.send({"sessionUpdate": "plan", "entries": [{"content": "b", "priority": "low", "status": "completed"}]})
    plan = s.state.plan("main")
    assert plan is not None and [e.content for e in plan.plan.entries] == ["b"]  # type: ignore[union-attr]
    assert len(s.state.entities) == 1


MODES = {
    "currentModeId": "ask",
    "availableModes": [
        {"id": "ask", "name": "Ask", "description": "Ask first"},
        {"id": "code", "name": "Code"},
    ],
}


def test_modes_become_a_mode_select_and_current_mode_update_sets_it() -> None:
    """§5.6: current_mode_update "Update the synthetic mode selector: rec, represent v1 modes as a select
    with category:"mode" ". The doc example uses modeId: accept both."""
    s = Session(modes=MODES)
    (option,) = s.state.config_options
    assert (option.config_id, option.category, option.current_value) == (V1_MODE_CONFIG_ID, "mode", "ask")  # type: ignore[union-attr]
    assert [o.value for o in option.options] == ["ask", "code"]  # type: ignore[union-attr]
    assert s.adapter.synthetic_modes
    s.send({"sessionUpdate": "current_mode_update", "currentModeId": "code"})
    assert s.state.config_options[0].current_value == "code"  # type: ignore[union-attr]
    s.send({"sessionUpdate": "current_mode_update", "modeId": "ask"})
    assert s.state.config_options[0].current_value == "ask"  # type: ignore[union-attr]


def test_config_options_win_over_modes() -> None:
    """§10.4: "If configOptions exist, use them and ignore modes (V1 SHOULD)." v1 options use `id`."""
    s = Session(modes=MODES)
    s.send(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": True},
            ],
        }
    )
    (option,) = s.state.config_options
    assert isinstance(option, SessionConfigBoolean) and option.config_id == "fast"
    assert not s.adapter.synthetic_modes
    s.send({"sessionUpdate": "current_mode_update", "currentModeId": "code"})
    assert [o.config_id for o in s.state.config_options] == ["fast"]


def test_command_input_hint_becomes_text_input() -> None:
    """§5.6: available_commands_update "input?: {hint} (untagged) — Treat as {type:"text", hint}." """
    s = Session()
    s.send(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [
                {"name": "web", "description": "Search", "input": {"hint": "query"}},
                {"name": "plain", "description": "No input"},
            ],
        }
    )
    assert s.state.commands[0].input == {"type": "text", "hint": "query"}
    assert s.state.commands[1].input is UNSET and s.state.commands[1].name == "plain"


def test_unknown_v1_update_is_kept_and_breaks_message_continuation() -> None:
    """§5.6: "Still decode unknown variants as raw: never fail the session" """
    s = Session()
    s.send(chunk("agent_message_chunk", "a"))
    s.send({"sessionUpdate": "_x_custom", "v": 1})
    s.send(chunk("agent_message_chunk", "b"))
    kinds = [k[0] for k in s.state.entities]
    assert kinds == [AGENT_MESSAGE, "unknown", AGENT_MESSAGE]


def test_v1_permission_tool_call_patches_the_tool_call() -> None:
    """§8: v1 "Display toolCall.title as the prompt. It also patches the tool call, since v1 agents put the
    prompt text there." """
    s = Session()
    s.prompt(1, "x")
    s.send({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Preparing…", "kind": "edit"})
    request = codec.decode_permission_request(
        json.dumps(
            {
                "sessionId": SID,
                "toolCall": {"toolCallId": "c", "title": "Write hello.txt", "kind": None},
                "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
            }
        ).encode(),
        1,
    )
    s.feed(s.adapter.permission_requested(request))
    call = s.state.tool_call("c")
    assert call is not None and (call.title, call.kind) == ("Write hello.txt", "edit")
    assert s.state.foreground.state == "requires_action"
