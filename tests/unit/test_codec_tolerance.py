"""The codec's fallback is as tolerant as the spec requires, and no more.

The v2 spec's "Prompt Lifecycle", section "Stop Reasons": idle ends foreground work whatever the stop
reason looks like. docs/protocol.md §1.2: a malformed `x-deserialize-default-on-error` field is absent
(a patch: no change); a known variant with a malformed *required* field is still malformed.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from acp_tui.protocol import codec, methods, v1, v2
from acp_tui.protocol.common import ErrorObject
from tests.support.schema_check import load_schema


def _update(update: dict[str, Any], version: int = 2) -> Any:
    session_id, decoded = codec.decode_update(msgspec.json.encode({"sessionId": "s1", "update": update}), version)
    assert session_id == "s1"
    return decoded


# --- fix 1: idle survives a malformed stop reason, error or background ------------------------------

BAD_VALUES = [42, True, ["end_turn"], {"reason": "end_turn"}]


@pytest.mark.parametrize("bad", BAD_VALUES)
def test_idle_with_malformed_stop_reason_keeps_the_idle(bad: Any) -> None:
    decoded = _update({"sessionUpdate": "state_update", "state": "idle", "stopReason": bad})
    assert decoded == v2.StateUpdate(state="idle")
    assert decoded.stop_reason is UNSET


@pytest.mark.parametrize("bad", ["boom", 7, {"code": "x", "message": "m"}, {"message": "no code"}, [1]])
def test_idle_with_malformed_error_keeps_stop_reason(bad: Any) -> None:
    decoded = _update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": bad})
    assert isinstance(decoded, v2.StateUpdate)
    assert (decoded.state, decoded.stop_reason, decoded.error) == ("idle", "error", UNSET)


@pytest.mark.parametrize("bad", ["terminal", {"type": "terminal"}, [{"terminalId": "t1"}], [1]])
def test_malformed_background_is_not_reported(bad: Any) -> None:
    decoded = _update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn", "background": bad})
    assert (decoded.state, decoded.stop_reason, decoded.background) == ("idle", "end_turn", UNSET)


def test_everything_malformed_at_once_still_idles() -> None:
    decoded = _update(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": None, "error": 3, "background": 4, "_meta": 5}
    )
    assert decoded == v2.StateUpdate(state="idle", stop_reason=None)


def test_valid_idle_is_unchanged_by_tolerance() -> None:
    error = {"code": -32603, "message": "Internal error", "data": {"x": 1}}
    decoded = _update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": error})
    assert decoded.error == ErrorObject(code=-32603, message="Internal error", data={"x": 1})


@pytest.mark.parametrize("state", [None, 42, {"s": "idle"}])
def test_state_itself_is_required(state: Any) -> None:
    with pytest.raises(codec.MalformedMessage):
        _update({"sessionUpdate": "state_update", "state": state, "stopReason": "end_turn"})


# --- fix 2: v1 grouped select options use `group` ---------------------------------------------------

GROUPED_OPTION: dict[str, Any] = {
    "type": "select",
    "name": "Model",
    "currentValue": "sonnet",
    "options": [
        {"name": "Anthropic", "options": [{"value": "sonnet", "name": "Sonnet"}, {"value": "opus", "name": "Opus"}]},
        {"name": "Local", "options": [{"value": "llama", "name": "Llama"}]},
    ],
}


@pytest.mark.parametrize(
    ("version", "key_field", "group_field"),
    [(1, "id", "group"), (2, "configId", "groupId"), (2, "configId", "group"), (1, "id", "groupId")],
)
def test_grouped_select_keeps_its_groups(version: int, key_field: str, group_field: str) -> None:
    option = {**GROUPED_OPTION, key_field: "model"}
    option["options"] = [{group_field: f"g{i}", **group} for i, group in enumerate(GROUPED_OPTION["options"])]
    decoded = _update({"sessionUpdate": "config_option_update", "configOptions": [option]}, version)
    assert isinstance(decoded, v2.ConfigOptionUpdate)
    (select,) = decoded.config_options
    assert isinstance(select, v2.SessionConfigSelect)
    assert select.config_id == "model" and select.grouped
    assert [group.group_id for group in select.options] == ["g0", "g1"]
    assert [group.name for group in select.options] == ["Anthropic", "Local"]
    assert [opt.value for opt in select.all_options()] == ["sonnet", "opus", "llama"]


def test_v1_grouped_select_in_new_session_result() -> None:
    option = {**GROUPED_OPTION, "id": "model"}
    option["options"] = [{"group": "anthropic", **GROUPED_OPTION["options"][0]}]
    result = codec.decode_new_session_result(msgspec.json.encode({"sessionId": "s1", "configOptions": [option]}))
    assert result.config_options is not UNSET and result.config_options is not None
    (select,) = result.config_options
    assert isinstance(select, v2.SessionConfigSelect)
    assert [group.group_id for group in select.options] == ["anthropic"]


def test_group_without_any_key_is_dropped_not_fatal() -> None:
    option = {**GROUPED_OPTION, "configId": "model"}
    good = {"groupId": "ok", **GROUPED_OPTION["options"][0]}
    option["options"] = [good, GROUPED_OPTION["options"][1]]
    decoded = _update(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [option, {**option, "configId": "x", "options": [good]}],
        }
    )
    # The option with a key-less group is malformed (groupId is required) and skipped as an invalid item.
    assert [opt.config_id for opt in decoded.config_options] == ["x"]


# --- fix 3: x-deserialize-default-on-error --------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(
    ("field", "bad", "attr"),
    [
        ("title", 5, "title"),
        ("kind", ["read"], "kind"),
        ("status", {"s": 1}, "status"),
        ("locations", "here", "locations"),
        ("content", {"type": "content"}, "content"),
        ("name", 3, "name"),
        ("_meta", "m", "meta"),
    ],
)
def test_tool_call_update_malformed_optional_field_is_unset(version: int, field: str, bad: Any, attr: str) -> None:
    decoded = _update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", field: bad}, version
    )
    assert isinstance(decoded, v2.ToolCallUpdate if version == 2 else v1.V1ToolCallUpdate)
    assert decoded.tool_call_id == "t1"
    assert getattr(decoded, attr) is UNSET
    if field != "status":
        assert decoded.status == "completed"


@pytest.mark.parametrize("version", [1, 2])
def test_tool_call_update_malformed_id_stays_malformed(version: int) -> None:
    with pytest.raises(codec.MalformedMessage):
        _update({"sessionUpdate": "tool_call_update", "toolCallId": 7, "title": "x"}, version)


def test_v2_capabilities_malformed_is_unset() -> None:
    decoded = _update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "capabilities": "cancel", "title": "T"})
    assert (decoded.capabilities, decoded.title) == (UNSET, "T")


def test_nested_default_on_error_fields_are_dropped() -> None:
    """A malformed optional field deep inside (annotations, line, diff patch) costs only that field."""
    decoded = _update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "locations": [{"path": "/a.py", "line": "twelve"}, {"line": 3}],
            "content": [
                {"type": "content", "content": {"type": "text", "text": "hi", "annotations": 9}},
                {"type": "diff", "changes": [{"operation": "modify", "path": "/a.py", "fileType": 1}], "patch": "no"},
                {
                    "type": "content",
                    "content": {"type": "resource", "resource": {"uri": "u", "text": "t", "mimeType": 2}},
                },
            ],
        }
    )
    assert decoded.locations == [v2.ToolCallLocation(path="/a.py")]
    assert decoded.content == [
        v2.ToolContent(content=v2.TextContent(text="hi")),
        v2.Diff(changes=[v2.DiffChange(operation="modify", path="/a.py")]),
        v2.ToolContent(content=v2.EmbeddedResource(resource=v2.TextResourceContents(uri="u", text="t"))),
    ]


def test_malformed_nested_optional_field_keeps_its_parent() -> None:
    decoded = _update(
        {"sessionUpdate": "terminal_update", "terminalId": "t", "exitStatus": {"exitCode": "0", "signal": "TERM"}}
    )
    assert decoded.exit_status == v2.TerminalExitStatus(signal="TERM")


@pytest.mark.parametrize("version", [1, 2])
def test_chunk_with_malformed_annotations_keeps_its_text(version: int) -> None:
    decoded = _update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m1",
            "content": {"type": "text", "text": "hi", "annotations": [1]},
        },
        version,
    )
    assert decoded.content == v2.TextContent(text="hi")


@pytest.mark.parametrize(
    ("update", "attr"),
    [
        ({"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": {"amount": "lots"}}, "cost"),
        ({"sessionUpdate": "notice", "severity": "info", "title": "T", "description": 4}, "description"),
        ({"sessionUpdate": "session_info_update", "title": ["x"]}, "title"),
        ({"sessionUpdate": "terminal_update", "terminalId": "t", "exitStatus": "0"}, "exit_status"),
        ({"sessionUpdate": "compaction_update", "compactionId": "c", "status": "done", "error": 1}, "error"),
    ],
)
def test_other_updates_drop_malformed_optional_fields(update: dict[str, Any], attr: str) -> None:
    decoded = _update(update)
    assert not isinstance(decoded, v2.UnknownUpdate)
    assert getattr(decoded, attr) is UNSET


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "usage_update", "used": "1", "size": 2},
        {"sessionUpdate": "notice", "severity": "info"},
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": 5}},
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": 1, "entries": []}},
    ],
)
def test_malformed_required_fields_stay_malformed(update: dict[str, Any]) -> None:
    with pytest.raises(codec.MalformedMessage):
        _update(update)


def test_permission_request_malformed_description_is_dropped() -> None:
    params = {
        "sessionId": "s1",
        "title": "Run?",
        "description": 12,
        "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}],
        "subject": {"type": "command", "command": "ls", "cwd": "/", "toolCallId": 3},
    }
    decoded = codec.decode_permission_request(msgspec.json.encode(params), 2)
    assert isinstance(decoded, methods.RequestPermissionRequest)
    assert decoded.description is UNSET
    assert decoded.subject == methods.CommandPermissionSubject(command="ls", cwd="/")


# --- the tolerant fields match the schemas --------------------------------------------------------

V1_SCHEMA, V2_SCHEMA = 1, 2  # protocol versions, each naming its official schema (tests/support/schema_check.py)

#: Struct -> (schema, definition) it models, for the update payloads this client decodes.
MODELLED: list[tuple[type, int, str]] = [
    (v2.ToolCallUpdate, V2_SCHEMA, "ToolCallUpdate"),
    (v2.Annotations, V2_SCHEMA, "Annotations"),
    (v2.TextContent, V2_SCHEMA, "TextContent"),
    (v2.ImageContent, V2_SCHEMA, "ImageContent"),
    (v2.AudioContent, V2_SCHEMA, "AudioContent"),
    (v2.ResourceLink, V2_SCHEMA, "ResourceLink"),
    (v2.TextResourceContents, V2_SCHEMA, "TextResourceContents"),
    (v2.EmbeddedResource, V2_SCHEMA, "EmbeddedResource"),
    (v2.DiffChange, V2_SCHEMA, "DiffChange"),
    (v2.Diff, V2_SCHEMA, "Diff"),
    (v2.ToolCallLocation, V2_SCHEMA, "ToolCallLocation"),
    (v2.TerminalUpdate, V2_SCHEMA, "TerminalUpdate"),
    (v2.TerminalExitStatus, V2_SCHEMA, "TerminalExitStatus"),
    (v2.UsageUpdate, V2_SCHEMA, "UsageUpdate"),
    (v2.Notice, V2_SCHEMA, "Notice"),
    (v2.CompactionUpdate, V2_SCHEMA, "CompactionUpdate"),
    (v2.SessionInfoUpdate, V2_SCHEMA, "SessionInfoUpdate"),
    (v2.SessionConfigSelectOption, V2_SCHEMA, "SessionConfigSelectOption"),
    (v2.SessionConfigSelectGroup, V2_SCHEMA, "SessionConfigSelectGroup"),
    (v2.SessionConfigSelectGroup, V1_SCHEMA, "SessionConfigSelectGroup"),
    (v2.UserMessage, V2_SCHEMA, "UserMessage"),
    (methods.RequestPermissionRequest, V2_SCHEMA, "RequestPermissionRequest"),
    (methods.CommandPermissionSubject, V2_SCHEMA, "CommandPermissionSubject"),
    (v1.V1ToolCallUpdate, V1_SCHEMA, "ToolCallUpdate"),
    (v1.V1ToolCall, V1_SCHEMA, "ToolCall"),
    (v1.V1Diff, V1_SCHEMA, "Diff"),
]


def _schema_defs(version: int) -> dict[str, Any]:
    schema = load_schema(version)
    defs: dict[str, Any] = schema.get("$defs") or schema["definitions"]
    return defs


def _modelled_id(value: object) -> str:
    if isinstance(value, int):
        return f"v{value}.schema"
    return str(getattr(value, "__name__", value))


@pytest.mark.parametrize(("struct", "schema", "name"), MODELLED, ids=_modelled_id)
def test_default_on_error_fields_match_schema(struct: type, schema: int, name: str) -> None:
    definition = _schema_defs(schema)[name]
    properties: dict[str, Any] = definition["properties"]
    required = set(definition.get("required", []))
    fields = {field.encode_name for field in msgspec.structs.fields(struct)}
    expected = {
        key
        for key, spec in properties.items()
        if key in fields and key not in required and spec.get("x-deserialize-default-on-error")
    }
    assert codec.default_on_error_fields(struct) & properties.keys() == expected


def test_state_update_fields_match_schema() -> None:
    defs = _schema_defs(V2_SCHEMA)
    marked = {
        key
        for name in ("RunningStateUpdate", "IdleStateUpdate", "RequiresActionStateUpdate", "ErrorStopReason")
        for key, spec in defs[name]["properties"].items()
        if spec.get("x-deserialize-default-on-error")
    }
    assert codec.default_on_error_fields(v2.StateUpdate) == marked == {"stopReason", "error", "background", "_meta"}


# --- the fallback never raises anything but MalformedMessage ---------------------------------------

_JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "text", "groupId", "options", "value", "name"]), inner, max_size=3)
    ),
    max_leaves=6,
)
_SEEDS: list[dict[str, Any]] = [
    {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
        "background": [{"type": "terminal", "terminalId": "t"}],
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "content": [{"type": "content", "content": {"type": "text", "text": "x"}}],
        "locations": [{"path": "/a"}],
    },
    {"sessionUpdate": "config_option_update", "configOptions": [{**GROUPED_OPTION, "configId": "m", "id": "m"}]},
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "resource", "resource": {"uri": "u", "text": "t"}},
    },
]


@settings(max_examples=300, deadline=None)
@given(
    seed=st.sampled_from(_SEEDS),
    key=st.sampled_from(
        [
            "stopReason",
            "background",
            "content",
            "locations",
            "configOptions",
            "state",
            "toolCallId",
            "messageId",
            "_meta",
        ]
    ),
    junk=_JUNK,
    version=st.sampled_from([1, 2]),
)
def test_junk_in_any_field_decodes_or_is_malformed(seed: dict[str, Any], key: str, junk: Any, version: int) -> None:
    try:
        _update({**seed, key: junk}, version)
    except codec.MalformedMessage:
        pass


def test_params_nested_deeper_than_the_decoder_recurses_are_malformed_not_a_crash() -> None:
    deep = b"[" * 3000 + b"]" * 3000  # inside the envelope's reach when it arrives as raw params
    with pytest.raises(codec.MalformedMessage, match="nested too deeply"):
        codec.decode_update(b'{"sessionId":"s","update":{"sessionUpdate":"x","a":' + deep + b"}}", 2)
    with pytest.raises(codec.MalformedMessage, match="nested too deeply"):
        codec.decode_list_sessions_result(b'{"sessions":' + deep + b"}")


_LAZY_DECODERS = """
import json, msgspec
built = []
real = msgspec.json.Decoder
def counting(*args, **kwargs):
    built.append(getattr(args[0], "__name__", "any") if args else "any")
    return real(*args, **kwargs)
msgspec.json.Decoder = counting
from acp_tui.protocol import codec
at_import = list(built)
update = {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "hi"}}
params = json.dumps({"sessionId": "s1", "update": update}).encode()
codec.decode_update(params, 2)
codec.decode_update(params, 2)
codec.decode_initialize_result(b'{"protocolVersion": 2}')
print(json.dumps([at_import, built[len(at_import):]]))
"""


def test_the_codec_builds_each_decoder_when_it_is_first_needed() -> None:
    """Start-up (issue 27) builds no decoder for a message not yet seen: importing the codec built twenty, ~6 ms
    (v2's session/update alone ~4 ms; a v2 session never needs v1's)."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _LAZY_DECODERS], capture_output=True, text=True, check=True).stdout
    at_import, later = json.loads(out.strip().splitlines()[-1])
    assert "_V2UpdateParams" not in at_import and "_V1UpdateParams" not in at_import
    assert "InitializeResponse" not in at_import
    assert later == ["_V2UpdateParams", "InitializeResponse"]  # once each, v1's never
