"""Every agent frame in the recorded traffic decodes to known types, in the version that file negotiated."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.protocol import codec
from tests.paths import TRAFFIC

_FRAME = re.compile(r"\s*[\d.]+ (->|<-) (\{.*\})\s*$")
LOGS = sorted(TRAFFIC.glob("*.log"))


def _has_unknown(value: Any) -> bool:
    return "Unknown" in repr(value)


@pytest.mark.parametrize("log", LOGS, ids=[p.name for p in LOGS])
def test_agent_frames_decode_without_unknowns(log: Path) -> None:
    version = 0
    pending: dict[Any, str] = {}
    decoded = 0
    for line in log.read_text().splitlines():
        match = _FRAME.match(line)
        if match is None:
            continue  # stderr tail
        direction, text = match.groups()
        frame = json.loads(text)
        if direction == "->":
            if "method" in frame and "id" in frame:
                pending[frame["id"]] = frame["method"]
            continue
        if "result" in frame and frame.get("id") in pending:
            method = pending.pop(frame["id"])
            result = msgspec.json.encode(frame["result"])
            if method == "initialize":
                version, _ = codec.negotiated_version(result)
                value: Any = version
            elif method == "session/new":
                value = codec.decode_new_session_result(result)
            elif method == "session/prompt":
                value = codec.decode_prompt_result(result, version)
            else:
                continue
        elif frame.get("method") == "session/update":
            value = codec.decode_update(msgspec.json.encode(frame["params"]), version)
        elif frame.get("method") == "session/request_permission":
            value = codec.decode_permission_request(msgspec.json.encode(frame["params"]), version)
        else:
            continue
        assert not _has_unknown(value), (log.name, text[:200])
        decoded += 1
    assert version in (1, 2)
    assert decoded >= 3


def test_python_echo_agent_claiming_v2_is_spoken_to_in_v1() -> None:
    result = b'{"protocolVersion":2}'
    version, _ = codec.negotiated_version(result)
    assert version == 1
    assert codec.is_v1_prompt_result(b'{"stopReason":"end_turn"}')
    assert not codec.is_v1_prompt_result(b'{"messageId":"m1"}')
