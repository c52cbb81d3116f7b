"""Hostile and broken agents: random bytes, schema-shaped garbage and odd JSON-RPC never crash the core.

The pure core is the path every agent byte takes: `LineFramer` -> `jsonrpc.decode_frame` ->
`codec.decode_update` -> (v1 adapter) -> `reducer.apply` -> transcript. Each stage may refuse input
only in its documented way (a `FrameError`, a `MalformedMessage`, a `ProblemAdded`), never by raising.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.protocol import codec, jsonrpc
from acp_tui.protocol.framing import LineFramer
from acp_tui.session.changes import Change, EntityAdded, EntityRemoved
from acp_tui.session.model import (
    AGENT_MESSAGE,
    AGENT_THOUGHT,
    COMPACTION,
    PLAN,
    TERMINAL,
    TOOL_CALL,
    UNKNOWN,
    USER_MESSAGE,
    Compaction,
    Message,
    Plan,
    SessionState,
    Terminal,
    ToolCall,
    UnknownEntry,
)
from acp_tui.session.reducer import apply
from acp_tui.session.v1_adapter import V1Adapter
from acp_tui.transcript import TranscriptWriter, load_records, render_markdown
from acp_tui.transcript.records import OpenRecord

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- bytes -> frames -----------------------------------------------------------------------------------

_json_line = st.sampled_from(
    [
        b'{"jsonrpc":"2.0","id":1,"result":{}}',
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{}}}',
        b'[{"jsonrpc":"2.0","id":"a","method":"x"},{"id":null,"error":{"code":1,"message":"m"}}]',
        b"[]",
        b'{"id":1}',
    ]
)
_byte_pieces = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b"\n", b"\r\n", b"\r", b"\xff\xfe", b"\xc3", b"\xe2\x82", b"\x00", b" \t\n", b"\n\n"]),
    _json_line,
    st.builds(lambda b, n: b * n, st.sampled_from([b"a", b"\n", b"{", b"\x80"]), st.integers(1, 5000)),
)


def frames_of(pieces: list[bytes]) -> list[bytes]:
    framer = LineFramer()
    lines: list[bytes] = []
    for piece in pieces:
        lines += framer.feed(piece)
    return lines + framer.finish()


@FAST
@given(st.lists(_byte_pieces, max_size=30), st.data())
def test_random_bytes_frame_and_decode_without_raising(pieces: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(pieces)
    whole = frames_of([stream])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=12)))
    bounds = [0, *cuts, len(stream)]
    split = frames_of([stream[a:b] for a, b in zip(bounds, bounds[1:], strict=False)])
    assert split == whole
    assert frames_of(pieces) == whole
    for line in whole:
        # One CR of a CRLF ending is stripped; any other CR is JSON whitespace and stays.
        assert b"\n" not in line and line.strip()
        decoded = jsonrpc.decode_frame(line)
        entries = decoded if isinstance(decoded, list) else [decoded]
        assert entries, "an empty batch must be a FrameError, not an empty list"
        for entry in entries:
            assert isinstance(
                entry,
                (jsonrpc.Request, jsonrpc.Notification, jsonrpc.Response, jsonrpc.ErrorResponse, jsonrpc.FrameError),
            )


# -- random JSON-RPC-ish frames ----------------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
_json = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_ids = st.one_of(_scalars, st.lists(_scalars, max_size=2), st.dictionaries(st.text(max_size=3), _scalars, max_size=2))
_envelope = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), st.just("1.0"), _scalars),
        "id": _ids,
        "method": st.one_of(st.sampled_from(["session/update", "session/request_permission", ""]), _scalars),
        "params": _json,
        "result": _json,
        "error": st.one_of(
            st.fixed_dictionaries(
                {"code": st.integers(-40000, 40000), "message": st.text(max_size=8)}, optional={"data": _json}
            ),
            _json,
        ),
    },
)
_frame = st.one_of(_envelope, st.lists(st.one_of(_envelope, _json), max_size=4), _json)


@FAST
@given(_frame, st.sampled_from(["compact", "spaced", "indented"]))
def test_jsonrpc_ish_frames_never_raise(frame: Any, style: str) -> None:
    if style == "compact":
        line = msgspec.json.encode(frame)
    else:
        line = json.dumps(frame, separators=(", ", ": ") if style == "spaced" else None).encode()
    decoded = jsonrpc.decode_frame(line)
    if isinstance(decoded, list):
        assert isinstance(frame, list) and len(decoded) == len(frame) > 0
        entries = decoded
    else:
        entries = [decoded]
        if isinstance(frame, list):
            assert isinstance(decoded, jsonrpc.FrameError)  # only the empty batch stays a single error
    for entry in entries:
        assert isinstance(
            entry, (jsonrpc.Request, jsonrpc.Notification, jsonrpc.Response, jsonrpc.ErrorResponse, jsonrpc.FrameError)
        )
        if isinstance(entry, (jsonrpc.Request, jsonrpc.Response, jsonrpc.ErrorResponse)):
            assert entry.id is None or isinstance(entry.id, (int, str))


def test_empty_batch_and_truncated_frames_are_frame_errors() -> None:
    for line in [b"[]", b"[ ]", b'{"jsonrpc":"2.0","id":1,"res', b"[{", b"\xff\xfe", b"nul\x00", b"{}"]:
        assert isinstance(jsonrpc.decode_frame(line), jsonrpc.FrameError), line


# -- schema-shaped session/update params -------------------------------------------------------------

#: Few ids, so random updates collide on the same entities (and across types).
_ident = st.sampled_from(["a", "b", "1", "", "x\x1b"])
_small_text = st.one_of(st.text(max_size=10), st.sampled_from(["\x1b]52;c;aGk=\x07", "\u202e", "\x00", "\r\n"]))


def _maybe(right: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually `right`, sometimes null, sometimes something of another type entirely."""
    return st.one_of(right, right, right, st.none(), _scalars, st.lists(_scalars, max_size=2))


_b64 = st.one_of(
    st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode()),
    st.sampled_from(["!!", "abc", "", "G1szMW0="]),
)
_content_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": _maybe(_small_text)}),
    st.fixed_dictionaries({"type": st.just("image"), "data": _maybe(_b64), "mimeType": _maybe(_small_text)}),
    st.fixed_dictionaries({"type": st.just("resource_link"), "uri": _maybe(_small_text), "name": _maybe(_small_text)}),
    st.fixed_dictionaries(
        {
            "type": st.just("resource"),
            "resource": _maybe(
                st.one_of(
                    st.fixed_dictionaries({"uri": _small_text, "text": _maybe(_small_text)}),
                    st.fixed_dictionaries({"uri": _small_text, "blob": _maybe(_b64)}),
                )
            ),
        }
    ),
    st.fixed_dictionaries({"type": st.one_of(st.text(max_size=6), _scalars)}, optional={"text": _json}),
    _json,
)
_tool_content = st.one_of(
    st.fixed_dictionaries({"type": st.just("content"), "content": _maybe(_content_block)}),
    st.fixed_dictionaries(
        {
            "type": st.just("diff"),
            "changes": _maybe(
                st.lists(
                    st.fixed_dictionaries({"operation": _maybe(_small_text), "path": _maybe(_small_text)}), max_size=2
                )
            ),
        },
        optional={
            "patch": _maybe(st.fixed_dictionaries({"format": _small_text, "text": _maybe(_small_text)})),
            "path": _small_text,
            "newText": _maybe(_small_text),
            "oldText": _maybe(_small_text),
        },
    ),
    st.fixed_dictionaries({"type": st.just("terminal"), "terminalId": _maybe(_ident)}),
    st.fixed_dictionaries({"type": st.one_of(st.text(max_size=6), _scalars)}),
    _json,
)
_plan_entry = st.fixed_dictionaries(
    {
        "content": _maybe(_small_text),
        "priority": _maybe(st.sampled_from(["high", "low"])),
        "status": _maybe(st.sampled_from(["pending", "in_progress", "completed", "weird"])),
    }
)
_config_option = st.fixed_dictionaries(
    {"type": _maybe(st.sampled_from(["select", "boolean", "slider"])), "name": _maybe(_small_text)},
    optional={
        "configId": _maybe(_ident),
        "id": _maybe(_ident),
        "currentValue": _json,
        "options": _maybe(
            st.lists(st.fixed_dictionaries({"value": _maybe(_ident), "name": _maybe(_small_text)}), max_size=2)
        ),
    },
)
#: Every field any known variant has, with a plausible (or deliberately wrong) value.
_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "messageId": _maybe(_ident),
    "content": st.one_of(
        _maybe(_content_block),
        _maybe(st.lists(_content_block, max_size=3)),
        _maybe(_tool_content),
        _maybe(st.lists(_tool_content, max_size=3)),
    ),
    "state": _maybe(st.sampled_from(["running", "requires_action", "idle", "paused"])),
    "stopReason": _maybe(st.sampled_from(["end_turn", "cancelled", "error", "max_tokens"])),
    "error": _maybe(st.fixed_dictionaries({"code": _maybe(st.integers()), "message": _maybe(_small_text)})),
    "background": _maybe(
        st.lists(
            st.fixed_dictionaries(
                {"type": _maybe(st.sampled_from(["terminal", "x"]))}, optional={"terminalId": _ident}
            ),
            max_size=2,
        )
    ),
    "toolCallId": _maybe(_ident),
    "title": _maybe(_small_text),
    "kind": _maybe(st.sampled_from(["read", "edit", "other", "???"])),
    "status": _maybe(st.sampled_from(["pending", "in_progress", "completed", "failed", "cancelled", "odd"])),
    "locations": _maybe(
        st.lists(
            st.fixed_dictionaries({"path": _maybe(_small_text)}, optional={"line": _maybe(st.integers(-5, 10**12))}),
            max_size=2,
        )
    ),
    "rawInput": _json,
    "rawOutput": _json,
    "terminalId": _maybe(_ident),
    "command": _maybe(_small_text),
    "cwd": _maybe(_small_text),
    "output": _maybe(st.fixed_dictionaries({"data": _maybe(_b64)})),
    "exitStatus": _maybe(
        st.fixed_dictionaries({}, optional={"exitCode": _maybe(st.integers(-1, 300)), "signal": _maybe(_small_text)})
    ),
    "data": _maybe(_b64),
    "plan": _maybe(
        st.one_of(
            st.fixed_dictionaries(
                {
                    "type": st.just("items"),
                    "planId": _maybe(_ident),
                    "entries": _maybe(st.lists(_plan_entry, max_size=3)),
                }
            ),
            st.fixed_dictionaries({"type": _maybe(st.text(max_size=5)), "planId": _maybe(_ident)}),
        )
    ),
    "entries": _maybe(st.lists(_plan_entry, max_size=3)),
    "availableCommands": _maybe(
        st.lists(
            st.fixed_dictionaries(
                {"name": _maybe(_small_text), "description": _maybe(_small_text)},
                optional={"input": _json, "type": _maybe(st.just("command"))},
            ),
            max_size=3,
        )
    ),
    "configOptions": _maybe(st.lists(_config_option, max_size=3)),
    "currentModeId": _maybe(_ident),
    "modeId": _maybe(_ident),
    "updatedAt": _maybe(_small_text),
    "used": _maybe(st.integers(-10, 10**15)),
    "size": _maybe(st.integers(-10, 10**15)),
    "cost": _maybe(
        st.fixed_dictionaries({"amount": _maybe(st.floats(allow_nan=False)), "currency": _maybe(_small_text)})
    ),
    "severity": _maybe(st.sampled_from(["info", "warning", "error"])),
    "description": _maybe(_small_text),
    "compactionId": _maybe(_ident),
    "summary": _maybe(st.lists(_content_block, max_size=2)),
    "_meta": _json,
}
_field_subset = st.lists(st.sampled_from(sorted(_FIELDS)), max_size=3, unique=True)

# Well-formed values, so most generated updates of a known kind decode (and reach the reducer).
_good_text = st.one_of(st.text(max_size=12), st.sampled_from(["\x1b]52;c;aGk=\x07", "\u202eabc", "a\x00b", "l1\r\nl2"]))
_good_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": _good_text}),
    st.fixed_dictionaries({"type": st.just("image"), "data": _b64, "mimeType": st.just("image/png")}),
    st.fixed_dictionaries({"type": st.just("resource_link"), "uri": _good_text, "name": _good_text}),
    st.fixed_dictionaries(
        {
            "type": st.just("resource"),
            "resource": st.one_of(
                st.fixed_dictionaries({"uri": _good_text, "text": _good_text}),
                st.fixed_dictionaries({"uri": _good_text, "blob": _b64}),
            ),
        }
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["video", "hologram"]), "x": _json}),
)
_good_tool_content = st.one_of(
    st.fixed_dictionaries({"type": st.just("content"), "content": _good_block}),
    st.fixed_dictionaries(
        {
            "type": st.just("diff"),
            "changes": st.lists(
                st.fixed_dictionaries(
                    {"operation": st.sampled_from(["add", "modify", "delete", "move"]), "path": _good_text}
                ),
                max_size=2,
            ),
        },
        optional={"patch": st.fixed_dictionaries({"format": st.just("git_patch"), "text": _good_text})},
    ),
    st.fixed_dictionaries(
        {"type": st.just("diff"), "path": _good_text, "newText": _good_text},
        optional={"oldText": st.one_of(st.none(), _good_text)},
    ),
    st.fixed_dictionaries({"type": st.just("terminal"), "terminalId": _ident}),
    st.fixed_dictionaries({"type": st.just("widget"), "x": _json}),
)
_good_plan_entry = st.fixed_dictionaries(
    {
        "content": _good_text,
        "priority": st.sampled_from(["high", "low"]),
        "status": st.sampled_from(["pending", "in_progress", "completed", "weird"]),
    }
)
_GOOD: dict[str, st.SearchStrategy[Any]] = {
    "messageId": _ident,
    "block": _good_block,
    "blocks": st.lists(_good_block, max_size=3),
    "toolContent": _good_tool_content,
    "toolContents": st.lists(_good_tool_content, max_size=3),
    "state": st.sampled_from(["running", "requires_action", "idle", "paused"]),
    "stopReason": st.sampled_from(["end_turn", "cancelled", "error", "max_tokens"]),
    "error": st.fixed_dictionaries({"code": st.integers(-32800, 0), "message": _good_text}),
    "background": st.lists(
        st.fixed_dictionaries({"type": st.sampled_from(["terminal", "tool_call"])}, optional={"terminalId": _ident}),
        max_size=2,
    ),
    "toolCallId": _ident,
    "title": _good_text,
    "kind": st.sampled_from(["read", "edit", "other", "???"]),
    "status": st.sampled_from(["pending", "in_progress", "completed", "failed", "cancelled", "odd"]),
    "locations": st.lists(
        st.fixed_dictionaries({"path": _good_text}, optional={"line": st.integers(0, 999)}), max_size=2
    ),
    "rawInput": _json,
    "rawOutput": _json,
    "terminalId": _ident,
    "command": _good_text,
    "cwd": _good_text,
    "output": st.fixed_dictionaries({"data": _b64}),
    "exitStatus": st.fixed_dictionaries({}, optional={"exitCode": st.integers(-1, 300), "signal": _good_text}),
    "data": _b64,
    "plan": st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("items"), "planId": _ident, "entries": st.lists(_good_plan_entry, max_size=3)}
        ),
        st.fixed_dictionaries({"type": st.just("markdown"), "planId": _ident, "text": _good_text}),
    ),
    "entries": st.lists(_good_plan_entry, max_size=3),
    "availableCommands": st.lists(
        st.fixed_dictionaries(
            {"name": _good_text, "description": _good_text}, optional={"input": st.just({"hint": "h"})}
        ),
        max_size=3,
    ),
    "configOptions": st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {
                    "type": st.just("select"),
                    "configId": _ident,
                    "name": _good_text,
                    "currentValue": _ident,
                    "options": st.lists(st.fixed_dictionaries({"value": _ident, "name": _good_text}), max_size=2),
                }
            ),
            st.fixed_dictionaries(
                {"type": st.just("boolean"), "id": _ident, "name": _good_text, "currentValue": st.booleans()}
            ),
            st.fixed_dictionaries({"type": st.just("slider"), "configId": _ident, "name": _good_text}),
        ),
        max_size=3,
    ),
    "currentModeId": _ident,
    "updatedAt": _good_text,
    "used": st.integers(0, 10**9),
    "size": st.integers(0, 10**9),
    "cost": st.fixed_dictionaries({"amount": st.floats(0, 100), "currency": st.just("USD")}),
    "severity": st.sampled_from(["info", "warning", "error"]),
    "description": _good_text,
    "compactionId": _ident,
    "summary": st.lists(_good_block, max_size=2),
    "_meta": st.dictionaries(st.text(max_size=4), _json, max_size=2),
}
#: Each known kind's fields: (wire name, key in `_GOOD`); the first ones are the required ones.
_SHAPES: dict[str, list[tuple[str, str]]] = {
    **{
        k: [("messageId", "messageId"), ("content", "block"), ("_meta", "_meta")]
        for k in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
    },
    **{
        k: [("messageId", "messageId"), ("content", "blocks"), ("_meta", "_meta")]
        for k in ("user_message", "agent_message", "agent_thought")
    },
    "state_update": [
        ("state", "state"),
        ("stopReason", "stopReason"),
        ("error", "error"),
        ("background", "background"),
    ],
    "tool_call_update": [
        ("toolCallId", "toolCallId"),
        ("title", "title"),
        ("kind", "kind"),
        ("status", "status"),
        ("content", "toolContents"),
        ("locations", "locations"),
        ("rawInput", "rawInput"),
        ("rawOutput", "rawOutput"),
    ],
    "tool_call": [
        ("toolCallId", "toolCallId"),
        ("title", "title"),
        ("kind", "kind"),
        ("status", "status"),
        ("content", "toolContents"),
        ("locations", "locations"),
    ],
    "tool_call_content_chunk": [("toolCallId", "toolCallId"), ("content", "toolContent")],
    "terminal_update": [
        ("terminalId", "terminalId"),
        ("command", "command"),
        ("cwd", "cwd"),
        ("output", "output"),
        ("exitStatus", "exitStatus"),
    ],
    "terminal_output_chunk": [("terminalId", "terminalId"), ("data", "data")],
    "plan_update": [("plan", "plan")],
    "plan": [("entries", "entries")],
    "available_commands_update": [("availableCommands", "availableCommands")],
    "config_option_update": [("configOptions", "configOptions")],
    "current_mode_update": [("currentModeId", "currentModeId")],
    "session_info_update": [("title", "title"), ("updatedAt", "updatedAt")],
    "usage_update": [("used", "used"), ("size", "size"), ("cost", "cost")],
    "notice": [("severity", "severity"), ("title", "title"), ("description", "description")],
    "compaction_update": [
        ("compactionId", "compactionId"),
        ("status", "status"),
        ("summary", "summary"),
        ("error", "title"),
    ],
    "compaction_summary_chunk": [("compactionId", "compactionId"), ("content", "block")],
    "plan_removed": [("planId", "messageId")],
}


@st.composite
def update_params(draw: st.DrawFn) -> bytes:
    """`session/update` params: mostly a known kind with plausible fields (some missing, null or of the
    wrong type), sometimes an unknown tag, extra fields, or not an update at all."""
    kind = (
        draw(st.sampled_from(sorted(_SHAPES)))
        if draw(st.integers(0, 9))
        else draw(st.one_of(st.text(max_size=8), _scalars))
    )
    update: dict[str, Any] = {"sessionUpdate": kind}
    shape = _SHAPES.get(kind, []) if isinstance(kind, str) else []
    clean = draw(st.integers(0, 9)) < 6  # most updates are well-formed, with optional fields left out
    for position, (name, good) in enumerate(shape):
        roll = draw(st.integers(0, 19))
        if clean:
            if position == 0 or roll < 14:
                update[name] = draw(_GOOD[good])
        elif roll < 12:
            update[name] = draw(_GOOD[good])
        elif roll < 17:
            update[name] = draw(_maybe(_GOOD[good]))
        elif roll == 17 and name in _FIELDS:
            update[name] = draw(_FIELDS[name])
    if not clean:
        for name in draw(_field_subset):
            update[name] = draw(_FIELDS[name])
    session_id = "s1" if draw(st.integers(0, 19)) else draw(_scalars)
    envelope: Any = {"sessionId": session_id, "update": update} if draw(st.integers(0, 19)) else draw(_json)
    return msgspec.json.encode(envelope)


_TYPES = {
    USER_MESSAGE: Message,
    AGENT_MESSAGE: Message,
    AGENT_THOUGHT: Message,
    TOOL_CALL: ToolCall,
    TERMINAL: Terminal,
    PLAN: Plan,
    COMPACTION: Compaction,
    UNKNOWN: UnknownEntry,
}


def check_invariants(state: SessionState) -> None:
    seen = set()
    for key, entity in state.entities.items():
        assert isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str)
        assert type(entity) is _TYPES[key[0]], key
        assert entity.key == key
        assert key not in seen
        seen.add(key)
        if type(entity) is Message:
            assert isinstance(entity.text, str)
        elif type(entity) is Terminal:
            assert len(entity.output) <= entity.limit
        elif type(entity) is ToolCall:
            assert isinstance(entity.kind, str) and isinstance(entity.status, str)
    assert isinstance(state.foreground.busy, bool)
    assert state.problem_count >= len(state.problems)


def check_changes(state: SessionState, changes: list[Any], added: set[Any]) -> None:
    """Each entity is added once, at its permanent position; every change names an existing entity."""
    order = list(state.entities)
    for change in changes:
        assert isinstance(change, Change.__args__)
        key = getattr(change, "key", None)
        if isinstance(change, EntityRemoved):
            assert key in added and key not in state.entities
            added.discard(key)
        elif key is not None:
            assert key in state.entities
        if isinstance(change, EntityAdded):
            assert change.key not in added
            added.add(change.key)
            assert order[change.index] == change.key


def decode_all(params: list[bytes], version: int) -> list[Any]:
    decoded = []
    for raw in params:
        try:
            _, update = codec.decode_update(raw, version)
        except codec.MalformedMessage as exc:
            assert exc.raw == raw and isinstance(exc.reason, str)
            continue
        decoded.append(update)
    return decoded


@FAST
@given(st.lists(update_params(), min_size=1, max_size=25), st.randoms(use_true_random=False))
def test_schema_shaped_updates_decode_and_apply_v2(params: list[bytes], rnd: Any) -> None:
    updates = decode_all(params, 2)
    for order in (updates, rnd.sample(updates, len(updates))):
        state = SessionState(terminal_limit=64)
        added: set[Any] = set()
        for update in order:
            changes = apply(state, update)
            check_invariants(state)
            check_changes(state, changes, added)


@FAST
@given(
    st.lists(update_params(), min_size=1, max_size=25),
    st.randoms(use_true_random=False),
    st.lists(st.sampled_from(["start", "end", "fail", "perm", "resolved"]), max_size=4),
)
def test_schema_shaped_updates_decode_and_apply_v1(params: list[bytes], rnd: Any, turns: list[str]) -> None:
    updates = decode_all(params, 1)
    for order in (updates, rnd.sample(updates, len(updates))):
        state = SessionState(terminal_limit=64)
        adapter = V1Adapter(modes={"currentModeId": "a", "availableModes": [{"id": "a", "name": "A"}]})
        items: list[Any] = list(adapter.initial_updates())
        steps = list(order)
        for i, turn in enumerate(turns):  # turn events interleaved at fixed points
            steps.insert(min(i * 3, len(steps)), turn)
        for step in steps:
            if step == "start":
                items += adapter.turn_started(len(items))
            elif step == "end":
                items += adapter.turn_ended("end_turn")
            elif step == "fail":
                items += adapter.turn_failed(None)
            elif step == "perm":
                items += adapter.permission_requested(None)
            elif step == "resolved":
                items += adapter.permission_resolved()
            else:
                items += adapter.update(step)
        added: set[Any] = set()
        for item in items:
            changes = apply(state, item)
            check_invariants(state)
            check_changes(state, changes, added)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(st.lists(update_params(), min_size=1, max_size=20))
def test_transcript_survives_whatever_the_reducer_reports(tmp_path: Path, params: list[bytes]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.unlink(missing_ok=True)
    writer = TranscriptWriter(path)
    state = SessionState(terminal_limit=64)
    for update in decode_all(params, 2):
        writer.write_changes(state, apply(state, update))
    assert writer.error is None
    writer.close()
    if path.exists():
        raw = path.read_bytes()
        assert b"\x1b" not in raw and b"\\u001b" not in raw and b"\x00" not in raw
        for line in raw.splitlines():
            msgspec.json.decode(line)
        records = load_records(path)
        assert isinstance(records[0], OpenRecord) and len(records) == len(raw.splitlines())  # each line reads back
        assert "\x1b" not in render_markdown(path)
