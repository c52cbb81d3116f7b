"""Every message the client sends validates against the v2 and v1 JSON Schemas."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
import pytest

from acp_tui.protocol import codec
from tests.support.schema_check import load_schema

V1_SCHEMA, V2_SCHEMA = 1, 2  # protocol versions, each naming its official schema (tests/support/schema_check.py)


@cache
def _validator(version: int, definition: str) -> jsonschema.Draft202012Validator:
    schema = load_schema(version)
    return jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"})


def _validate(version: int, definition: str, obj: Any) -> None:
    """Validate `obj` against `$defs[definition]` of the official schema of ACP `version`."""
    _validator(version, definition).validate(obj)


def _wire(obj: Any) -> Any:
    return json.loads(codec.encode(obj))


BOTH = [(V2_SCHEMA, 2), (V1_SCHEMA, 1)]


def test_hybrid_initialize_validates_in_both_versions() -> None:
    params = _wire(codec.build_initialize())
    assert params["protocolVersion"] == 2
    assert params["info"] == {"name": "acp-tui", "title": "ACP TUI", "version": params["info"]["version"]}
    assert params["clientInfo"] == params["info"]
    for schema, _ in BOTH:
        _validate(schema, "InitializeRequest", params)
    _validate(V2_SCHEMA, "ClientRequest", {"id": 1, "method": "initialize", "params": params})


def test_initialize_advertises_nothing_unimplemented() -> None:
    params = _wire(codec.build_initialize())
    assert params["capabilities"] == {}
    assert params["clientCapabilities"]["terminal"] is False
    assert params["clientCapabilities"]["fs"] == {"readTextFile": False, "writeTextFile": False}
    assert "elicitation" not in params["clientCapabilities"]


def test_v1_initialize_advertises_the_v2_baseline_we_show() -> None:
    """v1 agents send notices, compactions and boolean options only when `clientCapabilities.session`
    says the client shows them (v1 `ClientSessionCapabilities`); we do, in both versions."""
    params = _wire(codec.build_initialize())
    v1_only = {
        "protocolVersion": 1,
        "clientInfo": params["clientInfo"],
        "clientCapabilities": params["clientCapabilities"],
    }
    _validate(V1_SCHEMA, "InitializeRequest", v1_only)
    _validate(V1_SCHEMA, "ClientRequest", {"id": 1, "method": "initialize", "params": v1_only})
    assert params["clientCapabilities"]["session"] == {
        "notices": {},
        "compaction": {},
        "configOptions": {"boolean": {}},
    }


@pytest.mark.parametrize(("schema", "version"), BOTH)
def test_session_requests_validate(schema: int, version: int) -> None:
    _validate(schema, "NewSessionRequest", _wire(codec.build_new_session("/home/user/project")))
    _validate(schema, "ResumeSessionRequest", _wire(codec.build_resume_session("s1", "/home/user/project", version)))
    _validate(schema, "PromptRequest", _wire(codec.build_prompt("s1", "hello")))
    resource = codec.resource_block("file:///home/user/a.py", "print(1)\n", "text/x-python")
    _validate(schema, "PromptRequest", _wire(codec.build_prompt("s1", "see file", [resource])))
    cancel = "CancelSessionNotification" if version == 2 else "CancelNotification"
    _validate(schema, cancel, _wire(codec.build_cancel("s1")))


@pytest.mark.parametrize(("schema", "version"), BOTH)
def test_set_config_option_validates(schema: int, version: int) -> None:
    select = _wire(codec.build_set_config_option("s1", "mode", "plan", version))
    boolean = _wire(codec.build_set_config_option("s1", "fast", True, version))
    _validate(schema, "SetSessionConfigOptionRequest", select)
    _validate(schema, "SetSessionConfigOptionRequest", boolean)
    assert boolean["type"] == "boolean"
    assert select.get("type") == ("id" if version == 2 else None)


def test_tool_call_cancel_validates_in_v2() -> None:
    _validate(V2_SCHEMA, "CancelToolCallRequest", _wire(codec.build_cancel_tool_call("s1", "t1")))


@pytest.mark.parametrize(("schema", "version"), BOTH)
def test_permission_answers_validate(schema: int, version: int) -> None:
    selected = _wire(codec.build_permission_selected("allow_once"))
    cancelled = _wire(codec.build_permission_cancelled())
    assert selected == {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
    assert cancelled == {"outcome": {"outcome": "cancelled"}}
    _validate(schema, "RequestPermissionResponse", selected)
    _validate(schema, "RequestPermissionResponse", cancelled)


@pytest.mark.parametrize(("schema", "version"), BOTH)
def test_error_answers_validate(schema: int, version: int) -> None:
    _validate(schema, "Error", _wire(codec.build_error(-32601, "Method not found")))
    _validate(schema, "Error", _wire(codec.build_error(-32603, "Internal error", {"detail": "x"})))


def test_validator_rejects_a_broken_message() -> None:
    with pytest.raises(jsonschema.ValidationError):
        _validate(V2_SCHEMA, "PromptRequest", {"sessionId": "s1", "prompt": []})
