"""Every JSON example of the v2 "Prompt Lifecycle" spec page decodes to its type and re-encodes equal.

The examples live in `tests/support/fixtures/lifecycle/prompt-lifecycle-v2.json`, each with the title of the
section of the public page it was copied from.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from acp_tui.protocol import codec, methods, v2
from tests.support.paths import FIXTURES

LIFECYCLE = FIXTURES / "lifecycle" / "prompt-lifecycle-v2.json"


def _load_examples() -> list[tuple[str, dict[str, Any]]]:
    """(section title, JSON-RPC message) for every example, in page order."""
    document = json.loads(LIFECYCLE.read_text(encoding="utf-8"))
    return [(entry["section"], entry["message"]) for entry in document["examples"]]


_ENTRIES = _load_examples()
SECTIONS: list[str] = [section for section, _ in _ENTRIES]
EXAMPLES: list[dict[str, Any]] = [message for _, message in _ENTRIES]


def _raw(value: Any) -> bytes:
    return msgspec.json.encode(value)


def _roundtrip(obj: Any) -> Any:
    return json.loads(msgspec.json.encode(codec.to_builtins(obj)))


def test_examples_were_found() -> None:
    methods_seen = {example.get("method") for example in EXAMPLES}
    assert {"session/update", "session/prompt", "session/cancel"} <= methods_seen
    assert len(EXAMPLES) >= 20
    assert all(isinstance(example, dict) for example in EXAMPLES)
    assert {"1. User Message", "2. Prompt Accepted", "Failures", "Cancellation"} <= set(SECTIONS)


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
