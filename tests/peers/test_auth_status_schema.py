"""The unstable v2 `auth/status` frames against the official unstable v2 schema that defines them: the one
bundled with Claude's ACP adapter 0.101 (`@agentclientprotocol/sdk` 2.4.0, `schema/v2/schema.unstable.json`;
the TypeScript SDK 1.9.0 the other unstable checks use predates `auth/status`). What we send (the request,
`{}`) and what the scripted agent plays (the capability, the answer, the push) are all checked."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support.auth_status import ANSWER, SIGNED_OUT, initialize
from tests.support.claude import CLAUDE_DIR

URI = "urn:acp:schema:v2-unstable-sdk-2.4"
SCHEMA = CLAUDE_DIR / "node_modules" / "@agentclientprotocol" / "sdk" / "schema" / "v2" / "schema.unstable.json"


@cache
def validator(name: str) -> Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    registry = Registry().with_resource(URI, Resource.from_contents(schema, default_specification=DRAFT202012))
    return Draft202012Validator({"$ref": f"{URI}#/$defs/{name}"}, registry=registry)


def check(name: str, instance: Any) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator(name).iter_errors(instance)]
    assert not errors, (name, json.dumps(instance)[:300], errors[:3])


@pytest.mark.usefixtures("claude_adapter")
def test_what_we_send_and_what_the_script_plays_are_valid() -> None:
    check("AuthStatusRequest", {})  # the params services/account.py sends (test_auth_status_v2 reads them)
    check("AuthStatusResponse", ANSWER)
    check("AuthStatusUpdateNotification", SIGNED_OUT)
    check("InitializeResponse", initialize())
