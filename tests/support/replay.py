"""Replaying recorded agent traffic (frames from a wire log) into the session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from acp_tui.protocol import codec
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import ContentBlock
from acp_tui.session.local_events import (
    CancelRequested,
    ChildUpdate,
    PermissionRequested,
    PermissionResolved,
    PromptAccepted,
    PromptRejected,
    PromptSubmitted,
    ProtocolProblem,
)
from acp_tui.session.model import (
    SessionState,
)
from acp_tui.session.reducer import apply
from acp_tui.session.v1_adapter import V1Adapter

_blocks = msgspec.json.Decoder(list[ContentBlock])


def frames(path: Path) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for line in path.read_text().splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in ("->", "<-") and parts[2].startswith("{"):
            out.append((parts[1], json.loads(parts[2])))
    return out


class Replay:
    """Drives the model like the agent layer would, from one recorded log."""

    def __init__(self, path: Path) -> None:
        self.state = SessionState()
        self.version = 2
        self.adapter: V1Adapter | None = None
        self.sent: dict[Any, str] = {}  # our request id -> method
        self.agent_requests: set[Any] = set()
        self.cancelled = False
        self.cancel_changes: list[Any] = []
        self.session_id: str | None = None  # the root session, from `session/new`
        self.asked_by: dict[Any, str] = {}  # permission request id -> the session that asked
        self.child_adapters: dict[str, V1Adapter] = {}  # v1: each subagent session's own adapter
        for direction, msg in frames(path):
            if direction == "->":
                self.outgoing(msg)
            else:
                self.incoming(msg)

    def feed(self, items: list[Any], session_id: str | None = None) -> None:
        """Apply `items`; those of a subagent's session (not the root's) go to it as the agent layer sends them."""
        child = session_id is not None and self.session_id is not None and session_id != self.session_id
        for item in items:
            apply(self.state, ChildUpdate(session_id, item) if child and session_id is not None else item)

    def outgoing(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method is None:  # our answer to an agent request
            if msg["id"] in self.agent_requests:
                outcome = msg["result"]["outcome"]
                resolved = PermissionResolved(msg["id"], outcome.get("optionId", outcome["outcome"]))
                asker = self.asked_by.get(msg["id"])
                self.feed([resolved], asker)
                adapter = self.child_adapters.get(asker or "", self.adapter)
                if adapter:
                    self.feed(adapter.permission_resolved(), asker)
            return
        if "id" in msg:
            self.sent[msg["id"]] = method
        if method == "session/prompt":
            self.cancelled = False
            blocks = _blocks.decode(json.dumps(msg["params"]["prompt"]).encode())
            self.feed([PromptSubmitted(msg["id"], blocks)])
            if self.adapter:
                self.feed(self.adapter.turn_started(msg["id"]))
        elif method == "session/cancel":
            self.cancelled = True
            self.cancel_changes = apply(self.state, CancelRequested())

    def incoming(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method == "session/update":
            try:
                _, update = codec.decode_update(json.dumps(msg["params"]).encode(), self.version)
            except codec.MalformedMessage as exc:
                self.feed([ProtocolProblem("malformed update", exc.reason)])
                return
            session_id = msg["params"].get("sessionId")
            adapter = self.adapter
            if adapter is not None and session_id != self.session_id:  # a subagent: its own v1 adapter
                adapter = self.child_adapters.setdefault(session_id, V1Adapter())
            self.feed(adapter.update(update) if adapter else [update], session_id)
        elif method == "session/request_permission":
            self.agent_requests.add(msg["id"])
            request = codec.decode_permission_request(json.dumps(msg["params"]).encode(), self.version)
            self.feed([PermissionRequested(msg["id"], request)], request.session_id)
            self.asked_by[msg["id"]] = request.session_id
            adapter = self.child_adapters.get(request.session_id, self.adapter)
            if adapter:
                self.feed(adapter.permission_requested(request), request.session_id)
        elif method is None and msg.get("id") in self.sent:
            self.response(self.sent.pop(msg["id"]), msg)

    def response(self, method: str, msg: dict[str, Any]) -> None:
        request_id = msg["id"]
        if "error" in msg:
            error = msgspec.convert(msg["error"], ErrorObject)
            if method == "session/prompt":
                self.feed([PromptRejected(request_id, error, cancelled=error.code == -32800)])
                if self.adapter:
                    self.feed(self.adapter.turn_failed(error, after_cancel=self.cancelled))
            return
        result = json.dumps(msg["result"]).encode()
        if method == "session/new" and self.session_id is None:
            self.session_id = msg["result"].get("sessionId")
        if method == "initialize":
            self.version, _ = codec.negotiated_version(result)
        elif method in ("session/new", "session/resume", "session/load") and self.version == 1:
            decoded = (
                codec.decode_new_session_result(result)
                if method == "session/new"
                else codec.decode_resume_session_result(result)
            )
            options = decoded.config_options if isinstance(decoded.config_options, list) else None
            self.adapter = V1Adapter(modes=decoded.modes, config_options=options)
            self.feed(self.adapter.initial_updates())
        elif method == "session/prompt":
            response = codec.decode_prompt_result(result, self.version)
            if self.adapter is not None:
                self.feed(self.adapter.turn_ended(getattr(response, "stop_reason", None)))
            else:
                self.feed([PromptAccepted(request_id, response.message_id)])  # type: ignore[union-attr]
