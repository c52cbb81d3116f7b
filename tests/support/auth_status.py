"""The unstable v2 `auth/status` as a scripted agent plays it: advertised in `capabilities.auth.status`,
answered `{state, accounts}`, pushed as `auth/status_update` when it changes (schema `AuthStatusResponse`,
`AuthStatusUpdateNotification`; docs/protocol.md §10.7)."""

from __future__ import annotations

from typing import Any

ANSWER: dict[str, Any] = {
    "state": "authenticated",
    "accounts": [
        {"label": "OpenAI API key", "active": False},
        {"label": "ChatGPT Pro", "active": True, "name": "Ada", "email": "ada@example.com", "organization": "AE"},
    ],
}
SIGNED_OUT: dict[str, Any] = {"state": "unauthenticated"}


def initialize(*, offered: bool = True) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"session": {}}
    if offered:
        capabilities["auth"] = {"status": {}}
    return {"protocolVersion": 2, "info": {"name": "scripted-agent", "version": "1.0.0"}, "capabilities": capabilities}


def push(params: dict[str, Any]) -> dict[str, Any]:
    """A step: the agent's `auth/status_update` notification."""
    return {"op": "send", "message": {"jsonrpc": "2.0", "method": "auth/status_update", "params": params}}


def script(*, offered: bool = True, answer: dict[str, Any] | None = None) -> dict[str, Any]:
    """A v2 agent whose `auth/status` answers `answer` (or an error when None) and that signs out on `logout`."""
    reply: dict[str, Any] = (
        {"result": answer} if answer is not None else {"error": {"code": -32603, "message": "keychain locked"}}
    )
    steps = [{"op": "respond_prompt"}, {"op": "user_message"}, {"op": "state", "state": "running"}, push(SIGNED_OUT)]
    turn = {"match": "logout", "steps": [*steps, {"op": "state", "state": "idle", "stopReason": "end_turn"}]}
    return {
        "version": 2,
        "initialize": initialize(offered=offered),
        "responses": {"auth/status": reply},
        "turns": [turn],
    }
