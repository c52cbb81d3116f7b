"""Every JSON example in the v2 prompt-lifecycle text decodes to its type and re-encodes equal."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from acp_tui.protocol import codec, methods, v2
from tests.paths import LIFECYCLE


def _json_blocks(text: str) -> list[dict[str, Any]]:
    """Top-level balanced `{...}` blocks of `text` that parse as JSON objects."""
    blocks: list[dict[str, Any]] = []
    depth, start, in_string, escaped = 0, -1, False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"' and depth > 0:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                try:
                    value = json.loads(text[start : index + 1])
                except json.JSONDecodeError:
                    continue
                if isinstance(value, dict):
                    blocks.append(value)
    return blocks


EXAMPLES = _json_blocks(LIFECYCLE.read_text())


def _raw(value: Any) -> bytes:
    return msgspec.json.encode(value)


def _roundtrip(obj: Any) -> Any:
    return json.loads(msgspec.json.encode(codec.to_builtins(obj)))


def test_examples_were_found() -> None:
    methods_seen = {example.get("method") for example in EXAMPLES}
    assert {"session/update", "session/prompt", "session/cancel"} <= methods_seen
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize("example", EXAMPLES, ids=[str(i) for i in range(len(EXAMPLES))])
def test_example_decodes_and_reencodes(example: dict[str, Any]) -> None:
    method = example.get("method")
    if method == "session/update":
        session_id, update = codec.decode_update(_raw(example["params"]), 2)
        assert session_id == example["params"]["sessionId"]
        assert not isinstance(update, v2.UnknownUpdate)
        assert "Unknown" not in repr(update)
        assert _roundtrip(update) == example["params"]["update"]
    elif method == "session/prompt":
        request = codec.decode_prompt_request(_raw(example["params"]))
        assert _roundtrip(request) == example["params"]
    elif method == "session/cancel":
        cancel = codec.decode_cancel_notification(_raw(example["params"]))
        assert _roundtrip(cancel) == example["params"]
    elif method == "session/request_permission":
        permission = codec.decode_permission_request(_raw(example["params"]), 2)
        assert isinstance(permission, methods.RequestPermissionRequest)
    elif "result" in example and isinstance(example["result"], dict) and "messageId" in example["result"]:
        response = codec.decode_prompt_result(_raw(example["result"]), 2)
        assert isinstance(response, methods.PromptResponse)
        assert _roundtrip(response) == example["result"]
    elif "result" in example and isinstance(example["result"], dict) and "outcome" in example["result"]:
        answer = codec.decode_permission_response(_raw(example["result"]))
        assert _roundtrip(answer) == example["result"]
    else:
        pytest.skip(f"example without a client-side decoder: {sorted(example)}")
