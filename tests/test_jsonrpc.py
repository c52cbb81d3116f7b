"""JSON-RPC envelopes: decoding every shape without exceptions, exact id echo, compact encoders."""

from __future__ import annotations

import json

import msgspec
import pytest

from acp_tui.protocol import jsonrpc
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.jsonrpc import (
    ErrorResponse,
    FrameError,
    Notification,
    Request,
    Response,
    decode_frame,
    encode_batch,
    encode_error,
    encode_notification,
    encode_request,
    encode_response,
)


def test_request_keeps_params_raw_and_id_type() -> None:
    msg = decode_frame(b'{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"a":[1,2]}}')
    assert isinstance(msg, Request)
    assert msg.id == 0 and type(msg.id) is int
    assert bytes(msg.params) == b'{"a":[1,2]}'
    string_id = decode_frame(b'{"jsonrpc":"2.0","id":"0","method":"m","params":{}}')
    assert isinstance(string_id, Request) and string_id.id == "0" and type(string_id.id) is str


def test_notification_response_error_shapes() -> None:
    note = decode_frame(b'{"jsonrpc":"2.0","method":"session/update","params":{"x":1}}')
    assert isinstance(note, Notification) and note.method == "session/update"
    resp = decode_frame(b'{"jsonrpc":"2.0","id":7,"result":null}')
    assert isinstance(resp, Response) and resp.id == 7 and bytes(resp.result) == b"null"
    err = decode_frame(b'{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"auth","data":{"k":1}}}')
    assert isinstance(err, ErrorResponse)
    assert err.error == ErrorObject(-32000, "auth", {"k": 1})
    null_id = decode_frame(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
    assert isinstance(null_id, ErrorResponse) and null_id.id is None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"jsonrpc":"2.0","method":"x","params":{"t":"\xff"}}', "invalid UTF-8"),
        (b"this is not json", "invalid JSON"),
        (b'{"jsonrpc":"2.0","id":1,"result":', "invalid JSON"),
        (b"42", "not JSON-RPC"),
        (b'{"jsonrpc":"2.0"}', "not JSON-RPC"),
        (b'{"jsonrpc":"2.0","id":1}', "not JSON-RPC"),
        (b'{"jsonrpc":"1.0","id":1,"result":1}', "not JSON-RPC"),
        (b'{"jsonrpc":"2.0","id":1.5,"result":1}', "not JSON-RPC"),
        (b"[]", "empty batch"),
        (b"[1,", "invalid JSON"),
    ],
)
def test_bad_frames_become_frame_errors(line: bytes, reason: str) -> None:
    result = decode_frame(line)
    assert isinstance(result, FrameError)
    assert reason in result.reason
    assert result.raw == line


def test_batch_decodes_each_entry() -> None:
    batch = decode_frame(b'[{"jsonrpc":"2.0","id":"a","method":"m","params":{}},{"jsonrpc":"2.0","method":"n"},7]')
    assert isinstance(batch, list) and len(batch) == 3
    assert isinstance(batch[0], Request) and batch[0].id == "a"
    assert isinstance(batch[1], Notification) and bytes(batch[1].params) == b""
    assert isinstance(batch[2], FrameError) and batch[2].raw == b"7"


def test_encoders_are_compact_single_lines() -> None:
    line = encode_request(1, "session/prompt", {"text": "a\nb"})
    assert b"\n" not in line and b" " not in line
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"text": "a\nb"}}
    pre = encode_request(2, "m", b'{"already":"encoded"}')
    assert json.loads(pre)["params"] == {"already": "encoded"}
    assert json.loads(encode_notification("session/cancel", {"sessionId": "s"})) == {
        "jsonrpc": "2.0",
        "method": "session/cancel",
        "params": {"sessionId": "s"},
    }
    assert json.loads(encode_response("0", {"outcome": {"outcome": "cancelled"}}))["id"] == "0"
    assert json.loads(encode_response(0, None)) == {"jsonrpc": "2.0", "id": 0, "result": None}
    assert json.loads(encode_error(0, jsonrpc.METHOD_NOT_FOUND, "nope")) == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": -32601, "message": "nope"},
    }


def test_encoded_struct_params_round_trip() -> None:
    class Params(msgspec.Struct, rename="camel"):
        session_id: str

    assert json.loads(encode_request(5, "session/new", Params("s1")))["params"] == {"sessionId": "s1"}


def test_batch_encoder_refuses_empty() -> None:
    assert encode_batch([b"1", b"2"]) == b"[1,2]"
    with pytest.raises(ValueError):
        encode_batch([])


def test_error_codes() -> None:
    assert (jsonrpc.PARSE_ERROR, jsonrpc.INVALID_REQUEST, jsonrpc.METHOD_NOT_FOUND) == (-32700, -32600, -32601)
    assert (jsonrpc.INVALID_PARAMS, jsonrpc.INTERNAL_ERROR, jsonrpc.REQUEST_CANCELLED) == (-32602, -32603, -32800)
    assert (jsonrpc.AUTH_REQUIRED, jsonrpc.RESOURCE_NOT_FOUND) == (-32000, -32002)
