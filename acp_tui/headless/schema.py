"""The official ACP JSON Schemas (package data, schemas/PROVENANCE) judging what an agent sent.

`x-method`/`x-side` on a `$defs` entry name the method it types and the side that handles it: the params of
a request or notification the agent sends are checked against that method's entry, a response against the
result entry of the method it answers (the caller says which: the frame log pairs ids), an error against
`Error`. Each frame yields the violations found, each quoting the offending value and where it sits.

jsonschema rather than fastjsonschema, by measurement (README, "Checking an agent"): fastjsonschema knows
drafts 4 to 7 only, and the schemas are Draft 2020-12.

v2's enums are open: each has a "Custom or future ..." string that takes any value, so a client accepts what a
later ACP adds. An agent speaking v2 today may use only the listed values and custom ones, which begin with `_`
(the rest "are reserved for future ACP variants"; docs/protocol.md §11). The check therefore also
validates v2 frames against a closed copy of the schema, where each such string must begin with `_`, and names a
value it alone refuses (an unknown tool-call status, stop reason or update kind) as reserved.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

_KIND = re.compile(r"(Request|Response|Notification)$")
_ENVELOPE = frozenset({"jsonrpc", "id", "method", "params", "result", "error"})
#: how much of an offending value a violation quotes
QUOTE = 300
#: the sentence by which the schema marks an open enum's fallback string (a custom value begins with `_`)
_OPEN_ENUM_NOTE = "Values beginning with `_` are reserved for implementation-specific"
#: what the closed copy asks of such a string
_CUSTOM = "^_"


@dataclass(frozen=True, slots=True)
class MethodDefs:
    """The `$defs` names typing one method's params and result, and who handles it."""

    handled_by: str
    params_def: str
    result_def: str | None
    is_notification: bool


@cache
def load_schema(version: int) -> dict[str, Any]:
    """The shipped schema of ACP `version` (1 or 2)."""
    text = (resources.files("acp_tui.headless") / "schemas" / f"acp-v{version}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _closed(node: Any) -> Any:
    """A copy of a schema in which an open enum's fallback string takes custom values only (`^_`)."""
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: _closed(value) for key, value in node.items()}
    description = node.get("description")
    if (
        node.get("type") == "string"
        and "const" not in node
        and "enum" not in node
        and isinstance(description, str)
        and _OPEN_ENUM_NOTE in " ".join(description.split())
    ):
        copy["pattern"] = _CUSTOM
    return copy


@cache
def _registry(version: int, closed: bool = False) -> Registry:
    schema = _closed(load_schema(version)) if closed else load_schema(version)
    resource = Resource.from_contents(schema, default_specification=DRAFT202012)
    return Registry().with_resource(f"urn:acp:v{version}", resource)


@cache
def _validator(version: int, def_name: str, closed: bool = False) -> Draft202012Validator:
    reference = {"$ref": f"urn:acp:v{version}#/$defs/{def_name}"}
    return Draft202012Validator(reference, registry=_registry(version, closed))


@cache
def method_index(version: int) -> dict[str, MethodDefs]:
    """Every method the schema names (`x-method`), with its params and result entries."""
    params: dict[str, tuple[str, str, bool]] = {}
    results: dict[str, str] = {}
    for name, definition in load_schema(version)["$defs"].items():
        method, side = definition.get("x-method"), definition.get("x-side")
        kind = _KIND.search(name)
        if not isinstance(method, str) or not isinstance(side, str) or kind is None:
            continue
        if kind.group(1) == "Response":
            results[method] = name
        else:
            params[method] = (name, side, kind.group(1) == "Notification")
    return {m: MethodDefs(side, d, results.get(m), notification) for m, (d, side, notification) in params.items()}


def quote(value: Any, limit: int = QUOTE) -> str:
    """A value as compact ASCII JSON (escapes, never raw control characters), cut at `limit`."""
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = repr(value).encode("ascii", "backslashreplace").decode()
    return text if len(text) <= limit else text[:limit] + "..."


def _where(prefix: str, error: ValidationError) -> str:
    for part in error.absolute_path:
        prefix += f"[{part}]" if isinstance(part, int) else f".{part}"
    return prefix


def _check(instance: Any, version: int, def_name: str, where: str, limit: int = 3) -> list[str]:
    """Each independent error (at most `limit`), pinned to the alternative that applied where there is one; where
    the schema takes the value, each value its closed copy refuses (v2: reserved for future versions)."""
    found: list[str] = []
    for error in _errors(version, def_name, instance):
        error = _deepest(error)
        message = "it matches none of the allowed shapes" if error.validator in ("anyOf", "oneOf") else error.message
        found.append(
            f"{_where(where, error)} is not a valid v{version} {def_name}: {message[:QUOTE]}; value {quote(error.instance)}"
        )
    if not found and version >= 2:
        for error in _errors(version, def_name, instance, closed=True):
            reserved = _reserved(error)
            if reserved is None:  # cannot happen while the copy only adds `^_`: said plainly all the same
                found.append(f"{_where(where, error)}: {error.message[:QUOTE]}; value {quote(error.instance)}")
                continue
            found.append(
                f'{_where(where, reserved)} is no ACP v{version} value: a custom one begins with "_", the others '
                f"are reserved for future versions of ACP; value {quote(reserved.instance)}"
            )
    return found[:limit]


def _errors(version: int, def_name: str, instance: Any, *, closed: bool = False) -> list[ValidationError]:
    errors = _validator(version, def_name, closed).iter_errors(instance)
    return sorted(errors, key=lambda e: list(map(str, e.path)))


def _reserved(error: ValidationError) -> ValidationError | None:
    """The `^_` error that alone failed its alternative: the value an open enum takes only as a future one.

    In an anyOf, the alternative a value belongs to fails only there (`tool_call` with status "exploded" fails
    on the status); the others fail on their tag or their `not` of the known tags."""
    if error.validator == "pattern" and error.validator_value == _CUSTOM:
        return error
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return None
    by_branch: dict[object, list[ValidationError]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    for subs in by_branch.values():
        found = [_reserved(sub) for sub in subs]
        if found and all(item is not None for item in found):
            return found[0]
    return None


def _deepest(error: ValidationError) -> ValidationError:
    """Within an anyOf/oneOf, the alternatives that got past their tag (`sessionUpdate`, `type`): their error.

    An unknown v1 tool-call status is then reported as the status, not as "none of the eleven updates"."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        by_branch: dict[object, list[ValidationError]] = {}
        for sub in error.context:
            by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
        past_tag = [
            sub
            for subs in by_branch.values()
            if not any(
                sub.validator in ("const", "required", "type", "enum") and len(sub.relative_path) <= 1 for sub in subs
            )
            for sub in subs
        ]
        if not past_tag:
            break
        error = best_match(past_tag)
    return error


def agent_frame_violations(message: Any, version: int, answering: str | None) -> list[str]:
    """What is wrong with one frame the agent sent, by ACP `version`'s schema (empty: nothing).

    `answering` is the method of our request a response answers (None: not one of ours, or unknown)."""
    if not isinstance(message, dict):
        return [f"a JSON-RPC message must be an object; value {quote(message)}"]
    found: list[str] = []
    if message.get("jsonrpc") != "2.0":
        found.append(f'jsonrpc must be "2.0"; value {quote(message.get("jsonrpc"))}')
    extra = sorted(set(message) - _ENVELOPE)
    if extra:
        found.append(f"unexpected top-level member(s) {quote(extra)}")
    if "method" in message:
        found += _call(message, version)
    elif "result" in message or "error" in message:
        found += _response(message, version, answering)
    else:
        found.append("neither a request, a notification nor a response")
    return found


def _call(message: dict[str, Any], version: int) -> list[str]:
    method = message["method"]
    if not isinstance(method, str):
        return [f"method must be a string; value {quote(method)}"]
    is_request = "id" in message
    if is_request and (isinstance(message["id"], bool) or not isinstance(message["id"], (int, str))):
        return [f"a request id must be an integer or a string; value {quote(message['id'])}"]
    if method.startswith("_"):  # an extension method: only its shape is ACP's
        params = message.get("params", {})
        return [] if isinstance(params, dict) else [f"params of {method} must be an object; value {quote(params)}"]
    defs = method_index(version).get(method)
    if defs is None:
        return [f"unknown ACP v{version} method {quote(method)}"]
    if defs.handled_by == "agent":
        return [f"{quote(method)} is the agent's to handle: an agent must not send it"]
    if defs.is_notification and is_request:
        return [f"{quote(method)} is a notification and must not carry an id; id {quote(message['id'])}"]
    if not defs.is_notification and not is_request:
        return [f"{quote(method)} is a request and needs an id"]
    if "params" not in message:
        return ["params is missing"]
    return _check(message["params"], version, defs.params_def, "params")


def _response(message: dict[str, Any], version: int, answering: str | None) -> list[str]:
    if "result" in message and "error" in message:
        return ["a response carries both result and error"]
    if "error" in message:
        return _check(message["error"], version, "Error", "error")
    if answering is None:
        return [f"a result for no request of ours; id {quote(message.get('id'))}"]
    if answering.startswith("_"):
        return []
    defs = method_index(version).get(answering)
    if defs is None or defs.result_def is None:
        return []
    return _check(message["result"], version, defs.result_def, "result")


__all__ = ["MethodDefs", "agent_frame_violations", "load_schema", "method_index", "quote"]
