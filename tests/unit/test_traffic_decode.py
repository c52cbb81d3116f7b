"""Every agent frame in the recorded traffic decodes to known types, in the version that file negotiated.

The recordings are `tests/support/fixtures/traffic/*.log`; their README says where and how each was made.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.protocol import codec
from tests.support.paths import TRAFFIC

_FRAME = re.compile(r"\s*[\d.]+ (->|<-) (\{.*\})\s*$")
LOGS = sorted(TRAFFIC.glob("*.log"))
#: The recordings the replay tests rely on; a missing one fails here rather than shrinking the suite.
RECORDINGS = {
    "claude-v1-subagent.log",
    "claude-v1-tool.log",
    "claude-v2-cancel.log",
    "claude-v2-plan.log",
    "claude-v2-resume.log",
    "claude-v2-subagent.log",
    "claude-v2-tool.log",
    "claude-v2.log",
    "dual-v1.log",
    "dual-v2-cancel.log",
    "dual-v2.log",
    "py-echo-pv2.log",
    "py-echo-v1.log",
    "sdk-agent-cancel.log",
    "sdk-agent-v1.log",
}
#: A home directory other than the placeholder `/home/user` (what scrubbing replaced).
_HOME = re.compile(r"/root\b|/Users/|/home/(?!user\b)[\w.-]+")


def test_every_recording_is_present_and_documented() -> None:
    names = {path.name for path in LOGS}
    assert RECORDINGS <= names, sorted(RECORDINGS - names)
    readme = (TRAFFIC / "README.md").read_text(encoding="utf-8")
    undocumented = sorted(name for name in names if f"`{name}`" not in readme)
    assert not undocumented, f"say in {TRAFFIC / 'README.md'} how these were recorded: {undocumented}"


@pytest.mark.parametrize("log", LOGS, ids=[p.name for p in LOGS])
def test_recordings_carry_no_home_path(log: Path) -> None:
    found = _HOME.findall(log.read_text(encoding="utf-8"))
    assert not found, (log.name, sorted(set(found)))


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
