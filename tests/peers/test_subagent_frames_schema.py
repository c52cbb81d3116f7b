"""The subagent frames the tests play, and those Claude's adapter sent, against the official unstable v2
schema (`schema/v2/schema.unstable.json` of the pinned TypeScript SDK, installed with the SDK peers):
`subagent_update` and `session_message` are unstable, so the stable schema the other tests use lacks them."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support.jobs_script import background_subagent_turn
from tests.support.paths import TRAFFIC
from tests.support.peers import TS_SDK_DIR, TsSdkPeers
from tests.support.replay import frames
from tests.support.subagents import subagent_steps

URI = "urn:acp:schema:v2-unstable"


@cache
def validator(name: str) -> Draft202012Validator:
    path = TS_SDK_DIR / "node_modules" / "@agentclientprotocol" / "sdk" / "schema" / "v2" / "schema.unstable.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    registry = Registry().with_resource(URI, Resource.from_contents(schema, default_specification=DRAFT202012))
    return Draft202012Validator({"$ref": f"{URI}#/$defs/{name}"}, registry=registry)


def check(name: str, instance: Any) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator(name).iter_errors(instance)]
    assert not errors, (name, json.dumps(instance)[:300], errors[:3])


def fill(value: Any) -> Any:
    return json.loads(json.dumps(value).replace("$SESSION", "scripted-session-1"))


@pytest.fixture
def unstable_schema(ts_sdk_peers: TsSdkPeers) -> None:
    """The SDK peers' install brings the schema; this fixture only makes sure it is there."""


@pytest.mark.usefixtures("unstable_schema")
def test_the_scripted_subagent_frames_are_valid() -> None:
    checked = 0
    for step in fill(subagent_steps(ask=True)):
        if step["op"] == "update":
            check("UpdateSessionNotification", {"sessionId": step.get("session", "s"), "update": step["update"]})
            checked += 1
        elif step["op"] == "request":
            check("RequestPermissionRequest", step["params"])
            checked += 1
    assert checked == 12


@pytest.mark.usefixtures("unstable_schema")
def test_the_background_subagent_frames_are_valid() -> None:
    updates = [step["update"] for step in background_subagent_turn()["steps"] if step["op"] == "update"]
    for update in updates:
        check("UpdateSessionNotification", {"sessionId": "s", "update": update})
    assert [u["sessionUpdate"] for u in updates] == ["state_update", "subagent_update", "state_update"]
    assert updates[-1]["background"] == [{"type": "subagent", "sessionId": "child-explore-1"}]


@pytest.mark.usefixtures("unstable_schema")
def test_claudes_subagent_frames_are_valid() -> None:
    kinds = set()
    for direction, msg in frames(TRAFFIC / "claude-v2-subagent.log"):
        params = msg.get("params", {})
        kind = params.get("update", {}).get("sessionUpdate") if msg.get("method") == "session/update" else None
        if direction == "<-" and kind in ("subagent_update", "session_message"):
            check("UpdateSessionNotification", params)
            kinds.add(kind)
    assert kinds == {"subagent_update", "session_message"}
