"""Validate JSON-RPC messages against the official ACP JSON Schemas, independently of our code.

The protocol layer could agree with itself and still be wrong on the wire; these checks judge
every message against the published schema instead. The method of a request or notification
selects its params type through the schema's ``x-method``/``x-side`` annotations; a response
is checked against the result type of the method it answers (``answering=``), an error
response against ``Error``. ``x-side`` names the side that *handles* a method: ``agent``
methods are requests/notifications the client sends and responses the agent sends.

The schemas are the official ones published in the ACP TypeScript SDK package, at the version pinned in
``tests/support/peers.py`` (``ensure_acp_schemas``); they are fetched once into ``tests/.peers/``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support.peers import PeerUnavailable, ensure_acp_schemas

Sender = Literal["client", "agent"]
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
ENVELOPE_KEYS = frozenset({"jsonrpc", "id", "method", "params", "result", "error"})
DEF_SUFFIX = re.compile(r"(Request|Response|Notification)$")


@dataclass(frozen=True)
class MethodDefs:
    """The ``$defs`` names that type one method's params and result in one schema version."""

    method: str
    handled_by: str
    params_def: str
    result_def: str | None
    is_notification: bool


@cache
def _schema_files() -> dict[int, Path] | str:
    """The schema files, or why they could not be had (remembered: one failed fetch is tried once)."""
    try:
        return ensure_acp_schemas()
    except PeerUnavailable as exc:
        return f"the official ACP JSON Schemas are unavailable: {exc}"


def schema_path(version: int) -> Path:
    """The official JSON Schema file of ACP ``version`` (1 or 2), fetched on first use."""
    files = _schema_files()
    if isinstance(files, str):
        raise AssertionError(files)
    if version not in files:
        raise AssertionError(f"no ACP schema for protocol version {version!r}")
    return files[version]


@cache
def load_schema(version: int) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_path(version).read_text(encoding="utf-8"))
    declared = schema.get("$schema")
    if declared != DRAFT_2020_12:
        raise AssertionError(f"ACP v{version} schema declares {declared!r}, expected Draft 2020-12")
    return schema


@cache
def _registry(version: int) -> Registry:
    resource = Resource.from_contents(load_schema(version), default_specification=DRAFT202012)
    return Registry().with_resource(_base_uri(version), resource)


def _base_uri(version: int) -> str:
    return f"urn:acp:schema:v{version}"


@cache
def def_validator(version: int, def_name: str) -> Draft202012Validator:
    """A validator for one ``$defs`` entry, built once and resolving ``#/$defs/...`` refs."""
    if def_name not in load_schema(version)["$defs"]:
        raise AssertionError(f"ACP v{version} schema has no $defs/{def_name}")
    return Draft202012Validator({"$ref": f"{_base_uri(version)}#/$defs/{def_name}"}, registry=_registry(version))


@cache
def method_index(version: int) -> dict[str, MethodDefs]:
    """Every method named by ``x-method`` in the schema, with its params and result defs."""
    params: dict[str, tuple[str, str, bool]] = {}
    results: dict[str, str] = {}
    for name, definition in load_schema(version)["$defs"].items():
        method = definition.get("x-method")
        side = definition.get("x-side")
        if not isinstance(method, str) or not isinstance(side, str):
            continue
        suffix = DEF_SUFFIX.search(name)
        if suffix is None:
            raise AssertionError(f"v{version} $defs/{name} has x-method but an unknown kind")
        if suffix.group(1) == "Response":
            results[method] = name
        else:
            params[method] = (name, side, suffix.group(1) == "Notification")
    return {
        method: MethodDefs(method, side, def_name, results.get(method), is_notification)
        for method, (def_name, side, is_notification) in params.items()
    }


def _sends(sender: Sender, handled_by: str) -> bool:
    """Whether ``sender`` may send requests/notifications of a method handled by ``handled_by``."""
    return handled_by == "protocol" or handled_by != sender


def _format_path(prefix: str, error: ValidationError) -> str:
    path = prefix
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _check(instance: Any, version: int, def_name: str, where: str, context: str) -> None:
    validator = def_validator(version, def_name)
    errors = list(validator.iter_errors(instance))
    if not errors:
        return
    best = best_match(errors)
    raise AssertionError(
        f"{context}: {_format_path(where, best)} is not a valid v{version} {def_name}: "
        f"{best.message}{_alternatives(where, best)} ({len(errors)} error(s)); "
        f"value: {_preview(best.instance)}"
    )


def _alternatives(where: str, error: ValidationError, limit: int = 6) -> str:
    """For an anyOf/oneOf failure, why each alternative failed (best_match alone can mislead)."""
    branch: ValidationError | None = error
    while branch is not None and branch.validator not in ("anyOf", "oneOf"):
        branch = branch.parent
    if branch is None:
        return ""
    reasons: list[str] = []
    for sub in sorted(branch.context or [], key=lambda e: -len(e.absolute_path)):
        reason = f"{_format_path(where, sub)}: {sub.message}"[:200]
        if reason not in reasons:
            reasons.append(reason)
    if not reasons:
        return ""
    return " [alternatives: " + "; ".join(reasons[:limit]) + "]"


def _preview(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def _check_id(msg: dict[str, Any], version: int, context: str, *, allow_null: bool) -> None:
    if "id" not in msg:
        raise AssertionError(f"{context}: id is missing")
    value = msg["id"]
    if value is None:
        if allow_null or version == 1:
            return
        raise AssertionError(f"{context}: id is null, which ACP v{version} forbids here")
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise AssertionError(f"{context}: id must be an integer or a string, got {_preview(value)}")


def _validate(msg: dict[str, Any], version: int, sender: Sender, answering: str | None) -> None:
    context = f"{sender} message {_preview(msg, 160)}"
    if not isinstance(msg, dict):
        raise AssertionError(f"{context}: a JSON-RPC message must be an object")
    if msg.get("jsonrpc") != "2.0":
        raise AssertionError(f'{context}: jsonrpc must be "2.0", got {_preview(msg.get("jsonrpc"))}')
    extra = sorted(set(msg) - ENVELOPE_KEYS)
    if extra:
        raise AssertionError(f"{context}: unexpected top-level member(s) {extra}")
    if "method" in msg:
        _validate_call(msg, version, sender, context)
    elif "result" in msg or "error" in msg:
        _validate_response(msg, version, sender, answering, context)
    else:
        raise AssertionError(f"{context}: neither a request, a notification nor a response")


def _validate_call(msg: dict[str, Any], version: int, sender: Sender, context: str) -> None:
    method = msg["method"]
    if not isinstance(method, str):
        raise AssertionError(f"{context}: method must be a string")
    if "result" in msg or "error" in msg:
        raise AssertionError(f"{context}: a request cannot carry result or error")
    is_request = "id" in msg
    if is_request:
        _check_id(msg, version, context, allow_null=False)
    if method.startswith("_"):
        params = msg.get("params", {})
        if not isinstance(params, dict):
            raise AssertionError(f"{context}: params of extension method {method!r} must be an object")
        return
    defs = method_index(version).get(method)
    if defs is None:
        raise AssertionError(f"{context}: unknown ACP v{version} method {method!r}")
    if not _sends(sender, defs.handled_by):
        raise AssertionError(
            f"{context}: {method!r} is handled by the {defs.handled_by}; the {sender} must not send it"
        )
    if defs.is_notification and is_request:
        raise AssertionError(f"{context}: {method!r} is a notification and must not carry an id")
    if not defs.is_notification and not is_request:
        raise AssertionError(f"{context}: {method!r} is a request and needs an id")
    if "params" not in msg:
        raise AssertionError(f"{context}: params is missing")
    _check(msg["params"], version, defs.params_def, "params", context)


def _validate_response(msg: dict[str, Any], version: int, sender: Sender, answering: str | None, context: str) -> None:
    if "result" in msg and "error" in msg:
        raise AssertionError(f"{context}: a response carries both result and error")
    if "error" in msg:
        _check_id(msg, version, context, allow_null=True)
        _check(msg["error"], version, "Error", "error", context)
        return
    _check_id(msg, version, context, allow_null=False)
    if answering is None:
        raise AssertionError(f"{context}: pass answering=<method> to validate a result")
    if answering.startswith("_"):
        return
    defs = method_index(version).get(answering)
    if defs is None or defs.result_def is None:
        raise AssertionError(f"{context}: ACP v{version} has no request {answering!r} to answer")
    if defs.handled_by == sender or defs.handled_by == "protocol":
        _check(msg["result"], version, defs.result_def, "result", context)
        return
    raise AssertionError(f"{context}: {answering!r} is answered by the {defs.handled_by}, not the {sender}")


def validate_client_message(msg: dict[str, Any], version: int, *, answering: str | None = None) -> None:
    """Assert ``msg`` is a valid ACP message for the client to send (AssertionError with a path)."""
    _validate(msg, version, "client", answering)


def validate_agent_message(msg: dict[str, Any], version: int, *, answering: str | None = None) -> None:
    """Assert ``msg`` is a valid ACP message for an agent to send (AssertionError with a path)."""
    _validate(msg, version, "agent", answering)
