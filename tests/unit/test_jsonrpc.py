"""JSON-RPC envelopes: decoding every shape without exceptions, exact id echo, compact encoders."""

from __future__ import annotations

import json

import msgspec
import pytest

from acp_tui.protocol import jsonrpc
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.jsonrpc import (
    INVALID_PARAMS,
    PARSE_ERROR,
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
from acp_tui.protocol.salvage import MAX_SCAN_TOKENS, salvage


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


# -- lines the decoder cannot read (issue 21: hostile agent) ----------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'[{"jsonrpc":"2.0","id":1,"method":"m","params":' + b"[" * 50_000 + b"]" * 50_000 + b"}]",
    ],
    ids=["array", "object", "params", "batch"],
)
def test_nesting_deeper_than_the_decoder_recurses_is_a_frame_error(line: bytes) -> None:
    result = decode_frame(line)
    assert isinstance(result, FrameError) and "nested too deeply" in result.reason


def test_a_lone_surrogate_is_named_and_its_request_salvaged() -> None:
    line = b'{"jsonrpc":"2.0","id":3,"method":"fs/write_text_file","params":{"content":"\\ud800"}}'
    result = decode_frame(line)
    assert isinstance(result, FrameError) and "lone UTF-16 surrogate (\\ud800)" in result.reason
    (found,) = result.salvaged
    assert found.is_request and found.request_id == 3 and found.method == "fs/write_text_file"
    assert result.code == INVALID_PARAMS  # the envelope is fine, only the params cannot be read


def test_a_broken_envelope_is_a_parse_error_with_the_id_still_known() -> None:
    result = decode_frame(b'{"id":"x\\ud800y","method":"m"}')
    assert isinstance(result, FrameError) and result.code == PARSE_ERROR
    (found,) = result.salvaged
    assert found.is_request and found.has_id and found.request_id is None  # answered with id null


def test_salvage_finds_top_level_keys_only_in_any_order() -> None:
    (found,) = salvage(b'{"params":{"id":9,"method":"inner"},"method":"outer","id":"late"}')
    assert (found.request_id, found.method) == ("late", "outer")
    (response,) = salvage(b'{"jsonrpc":"2.0","result":{"id":1},"id":12}')
    assert response.is_response and response.request_id == 12
    (notification,) = salvage(b'{"method":"session/update","params":{"x":"\\"id\\":1"}}')
    assert not notification.is_request and not notification.has_id
    assert salvage(b"not json") == [] and salvage(b"42") == []


def test_salvage_stops_after_its_token_budget() -> None:
    line = b'{"method":"m","params":' + b"[" * (MAX_SCAN_TOKENS + 10) + b'],"id":5}'
    (found,) = salvage(line)
    assert not found.complete and not found.has_id
    assert found.is_request  # an id may lie past the scan: answered with id null rather than never
