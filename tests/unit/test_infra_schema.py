"""The schema checker accepts known-good messages and rejects known-bad ones with a readable path."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.schema_check import method_index, validate_agent_message, validate_client_message

V2_INIT = {"protocolVersion": 2, "info": {"name": "t", "version": "1"}, "capabilities": {}}
V1_INIT = {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}}}
PROMPT = [{"type": "text", "text": "hi"}]
SELECTED = {"outcome": {"outcome": "selected", "optionId": "x"}}


def req(msg_id: Any, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


def note(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def result(msg_id: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": value}


@pytest.mark.parametrize("version", [1, 2])
def test_method_index_maps_core_methods(version: int) -> None:
    index = method_index(version)
    assert index["initialize"].params_def == "InitializeRequest"
    assert index["initialize"].result_def == "InitializeResponse"
    assert index["session/request_permission"].result_def == "RequestPermissionResponse"
    assert index["session/cancel"].is_notification
    cancel = {1: "CancelNotification", 2: "CancelSessionNotification"}[version]
    assert index["session/cancel"].params_def == cancel


GOOD_CLIENT: list[tuple[int, dict[str, Any], str | None]] = [
    (2, req(1, "initialize", V2_INIT), None),
    (2, req(2, "session/new", {"cwd": "/tmp", "mcpServers": []}), None),
    (2, req("p-3", "session/prompt", {"sessionId": "s", "prompt": PROMPT}), None),
    (2, note("session/cancel", {"sessionId": "s"}), None),
    (2, note("$/cancel_request", {"requestId": 0}), None),
    (2, result(0, SELECTED), "session/request_permission"),
    (2, result(0, {"outcome": {"outcome": "cancelled"}}), "session/request_permission"),
    (2, {"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "nope"}}, None),
    (2, note("_vendor/ping", {"a": 1}), None),
    (1, req(1, "initialize", V1_INIT), None),
    (1, req(3, "session/prompt", {"sessionId": "s", "prompt": PROMPT}), None),
    (1, note("session/cancel", {"sessionId": "s"}), None),
    (1, result(0, SELECTED), "session/request_permission"),
]


@pytest.mark.parametrize(("version", "msg", "answering"), GOOD_CLIENT)
def test_good_client_messages_pass(version: int, msg: dict[str, Any], answering: str | None) -> None:
    validate_client_message(msg, version, answering=answering)


BAD_CLIENT: list[tuple[int, dict[str, Any], str | None, str]] = [
    (2, req(3, "session/prompt", {"prompt": PROMPT}), None, "'sessionId' is a required property"),
    (
        2,
        req(3, "session/prompt", {"sessionId": "s", "prompt": [{"type": "text", "text": 5}]}),
        None,
        "params.prompt[0].text",
    ),
    (2, req(3, "session/prompt", {"sessionId": "s", "prompt": []}), None, "params.prompt"),
    (2, req(1, "initialize", {"protocolVersion": 2}), None, "'info' is a required property"),
    (2, req(9, "session/frobnicate", {}), None, "unknown ACP v2 method 'session/frobnicate'"),
    (2, note("session/update", {"sessionId": "s", "update": {}}), None, "handled by the client"),
    (2, req(5, "session/cancel", {"sessionId": "s"}), None, "must not carry an id"),
    (2, note("session/prompt", {"sessionId": "s", "prompt": PROMPT}), None, "needs an id"),
    (2, req(None, "session/new", {"cwd": "/", "mcpServers": []}), None, "null"),
    (2, req(True, "session/new", {"cwd": "/", "mcpServers": []}), None, "integer or a string"),
    (2, req(1.5, "session/new", {"cwd": "/", "mcpServers": []}), None, "integer or a string"),
    (2, {"jsonrpc": "1.0", "id": 1, "method": "initialize", "params": V2_INIT}, None, "jsonrpc"),
    (2, {**req(1, "initialize", V2_INIT), "extra": 1}, None, "unexpected top-level"),
    (2, {"jsonrpc": "2.0", "id": 1, "method": "session/new"}, None, "params is missing"),
    (2, result(0, {"outcome": {"outcome": "selected"}}), "session/request_permission", "optionId"),
    (2, result(0, SELECTED), None, "answering"),
    (2, result(0, {}), "session/prompt", "answered by the agent"),
    (2, {"jsonrpc": "2.0", "id": 0, "error": {"code": "x", "message": "m"}}, None, "error.code"),
    (2, {"jsonrpc": "2.0", "id": 0, "result": {}, "error": {"code": 1, "message": "m"}}, None, "both"),
    (1, req(3, "session/prompt", {"prompt": PROMPT}), None, "'sessionId' is a required property"),
    (1, req(2, "session/frobnicate", {}), None, "unknown ACP v1 method"),
]


@pytest.mark.parametrize(("version", "msg", "answering", "expected"), BAD_CLIENT)
def test_bad_client_messages_fail_clearly(
    version: int, msg: dict[str, Any], answering: str | None, expected: str
) -> None:
    with pytest.raises(AssertionError) as failure:
        validate_client_message(msg, version, answering=answering)
    assert expected in str(failure.value)


def test_agent_messages() -> None:
    init = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}, "capabilities": {}}
    validate_agent_message(result(1, init), 2, answering="initialize")
    validate_agent_message(result(3, {"messageId": "m"}), 2, answering="session/prompt")
    validate_agent_message(result(3, {"stopReason": "end_turn"}), 1, answering="session/prompt")
    update = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
    validate_agent_message(note("session/update", {"sessionId": "s", "update": update}), 2)
    with pytest.raises(AssertionError, match="messageId"):
        validate_agent_message(result(3, {}), 2, answering="session/prompt")
    with pytest.raises(AssertionError, match="handled by the agent"):
        validate_agent_message(req(1, "initialize", V2_INIT), 2)
    with pytest.raises(AssertionError, match="answered by the client"):
        validate_agent_message(result(0, SELECTED), 2, answering="session/request_permission")
