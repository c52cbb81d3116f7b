"""Unknown variants survive with their raw payload, malformed known ones raise, patches keep three states."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from acp_tui.protocol import codec, methods, v1, v2


def _update(update: dict[str, Any], version: int = 2) -> Any:
    session_id, decoded = codec.decode_update(msgspec.json.encode({"sessionId": "s1", "update": update}), version)
    assert session_id == "s1"
    return decoded


@pytest.mark.parametrize("version", [1, 2])
def test_unknown_update_kind_keeps_raw_payload(version: int) -> None:
    raw = {"sessionUpdate": "hologram_update", "beam": {"x": 1}}
    decoded = _update(raw, version)
    assert decoded == v2.UnknownUpdate(kind="hologram_update", raw=raw)


def test_unknown_content_type_inside_known_update() -> None:
    block = {"type": "smell", "scent": "rose"}
    decoded = _update({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": block})
    assert isinstance(decoded, v2.AgentMessageChunk)
    assert decoded.content == v2.UnknownContent(type="smell", raw=block)
    message = _update(
        {"sessionUpdate": "agent_message", "messageId": "m1", "content": [{"type": "text", "text": "a"}, block]}
    )
    assert message.content == [v2.TextContent(text="a"), v2.UnknownContent(type="smell", raw=block)]


def test_unknown_tool_content_and_nested_unknown_block() -> None:
    decoded = _update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "status": "teleporting",
            "content": [{"type": "hologram", "z": 1}, {"type": "content", "content": {"type": "smell"}}],
        }
    )
    assert decoded.status == "teleporting"
    assert decoded.content[0] == v2.UnknownToolContent(type="hologram", raw={"type": "hologram", "z": 1})
    assert decoded.content[1] == v2.ToolContent(content=v2.UnknownContent(type="smell", raw={"type": "smell"}))


def test_unknown_plan_type_and_unknown_entry_status() -> None:
    plan = {"type": "graph", "planId": "p1", "nodes": []}
    decoded = _update({"sessionUpdate": "plan_update", "plan": plan})
    assert decoded.plan == v2.UnknownPlan(type="graph", plan_id="p1", raw=plan)
    items = _update(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p1",
                "entries": [{"content": "a", "priority": "urgent", "status": "blocked"}],
            },
        }
    )
    assert items.plan.entries[0].status == "blocked"
    assert items.plan.entries[0].priority == "urgent"


def test_unknown_config_option_type_and_id_key_of_v1() -> None:
    decoded = _update(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {"type": "slider", "configId": "temp", "name": "Temperature", "min": 0},
                {"type": "boolean", "id": "fast", "name": "Fast", "currentValue": True},
            ],
        }
    )
    unknown, boolean = decoded.config_options
    assert isinstance(unknown, v2.UnknownConfigOption) and unknown.type == "slider" and unknown.config_id == "temp"
    assert isinstance(boolean, v2.SessionConfigBoolean) and boolean.config_id == "fast"


def test_grouped_select_options() -> None:
    decoded = _update(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {
                    "type": "select",
                    "configId": "model",
                    "name": "Model",
                    "currentValue": "a",
                    "options": [{"groupId": "g", "name": "G", "options": [{"value": "a", "name": "A"}]}],
                }
            ],
        }
    )
    select = decoded.config_options[0]
    assert select.grouped
    assert [o.value for o in select.all_options()] == ["a"]


def test_unknown_state_and_stop_reason_strings_survive() -> None:
    decoded = _update({"sessionUpdate": "state_update", "state": "dreaming", "stopReason": "sleepy"})
    assert decoded == v2.StateUpdate(state="dreaming", stop_reason="sleepy")


def test_invalid_items_of_skip_lists_are_dropped() -> None:
    decoded = _update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "locations": [{"path": "/a"}, {"line": 3}]}
    )
    assert decoded.locations == [v2.ToolCallLocation(path="/a")]


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1"},
        {"sessionUpdate": "agent_message_chunk", "messageId": 5, "content": {"type": "text", "text": "a"}},
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text"}},
        {"sessionUpdate": "usage_update", "used": "lots", "size": 10},
        {"sessionUpdate": "tool_call_update"},
    ],
)
def test_malformed_known_variant_raises(update: dict[str, Any]) -> None:
    params = msgspec.json.encode({"sessionId": "s1", "update": update})
    with pytest.raises(codec.MalformedMessage) as info:
        codec.decode_update(params, 2)
    assert info.value.raw == params


def test_invalid_json_and_missing_session_id_raise() -> None:
    with pytest.raises(codec.MalformedMessage):
        codec.decode_update(b"{not json", 2)
    with pytest.raises(codec.MalformedMessage):
        codec.decode_update(b'{"update": {"sessionUpdate": "x"}}', 2)


def test_patch_fields_keep_omitted_null_and_value_apart() -> None:
    omitted = _update({"sessionUpdate": "tool_call_update", "toolCallId": "t1"})
    cleared = _update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": None, "content": None})
    replaced = _update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Read", "content": []})
    assert omitted.title is UNSET and omitted.content is UNSET
    assert cleared.title is None and cleared.content is None
    assert replaced.title == "Read" and replaced.content == []
    assert (
        codec.encode(cleared) == b'{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":null,"content":null}'
    )
    info = _update({"sessionUpdate": "session_info_update", "title": None})
    assert info.title is None and info.updated_at is UNSET


def test_meta_is_kept() -> None:
    decoded = _update({"sessionUpdate": "state_update", "state": "idle", "background": [], "_meta": {"k": 1}})
    assert decoded.meta == {"k": 1} and decoded.background == []


def test_v1_shapes() -> None:
    chunk = _update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}, 1)
    assert chunk == v1.V1AgentMessageChunk(content=v2.TextContent(text="hi"))
    call = _update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Write",
            "content": [{"type": "diff", "path": "/a", "oldText": None, "newText": "x"}],
        },
        1,
    )
    assert call.content == [v1.V1Diff(path="/a", new_text="x", old_text=None)]
    mode = _update({"sessionUpdate": "current_mode_update", "modeId": "plan"}, 1)
    assert mode.current_mode_id == "plan"
    plan = _update({"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "high", "status": "pending"}]}, 1)
    assert isinstance(plan, v1.V1Plan)


def test_permission_subjects() -> None:
    base = {"sessionId": "s1", "title": "Run?", "options": [{"optionId": "o", "name": "OK", "kind": "allow_once"}]}
    command = codec.decode_permission_request(
        msgspec.json.encode({**base, "subject": {"type": "command", "command": "ls", "cwd": "/"}}), 2
    )
    assert isinstance(command, methods.RequestPermissionRequest)
    assert isinstance(command.subject, methods.CommandPermissionSubject)
    unknown = codec.decode_permission_request(msgspec.json.encode({**base, "subject": {"type": "vibe"}}), 2)
    assert isinstance(unknown, methods.RequestPermissionRequest)
    assert unknown.subject == methods.UnknownPermissionSubject(type="vibe", raw={"type": "vibe"})


def test_version_negotiation() -> None:
    assert (
        codec.negotiated_version(b'{"protocolVersion":2,"info":{"name":"a","version":"1"},"capabilities":{}}')[0] == 2
    )
    assert codec.negotiated_version(b'{"protocolVersion":1,"agentCapabilities":{}}')[0] == 1
    assert codec.negotiated_version(b'{"protocolVersion":2,"agentCapabilities":{}}')[0] == 1
    with pytest.raises(codec.UnsupportedVersion, match=r"protocolVersion 7.*v2 and v1"):
        codec.negotiated_version(b'{"protocolVersion":7}')


def test_prompt_result_by_shape() -> None:
    assert isinstance(codec.decode_prompt_result(b'{"messageId":"m"}', 2), methods.PromptResponse)
    v1_answer = codec.decode_prompt_result(b'{"stopReason":"end_turn","usage":{"totalTokens":3}}', 2)
    assert isinstance(v1_answer, methods.V1PromptResponse) and v1_answer.stop_reason == "end_turn"
