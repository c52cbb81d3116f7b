"""A stdlib ACP v2 agent for session tests: one turn with a permission request, honouring cancel.

Prompt text "ask" asks permission for a tool call (request id 0); "ask twice" asks two at once;
"hang" never answers `initialize`; anything else is answered with one agent message.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SID = "sess-1"
out = sys.stdout.buffer
pending_permissions: dict[object, str] = {}


def send(message: dict[str, Any]) -> None:
    message["jsonrpc"] = "2.0"
    out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    out.flush()


def update(body: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": SID, "update": body}})


def main() -> None:
    hang = "--hang" in sys.argv
    turn_open = False
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        msg = json.loads(line)
        method = msg.get("method")
        params = msg.get("params") or {}
        if method == "initialize":
            if hang:
                continue
            send({"id": msg["id"], "result": {"protocolVersion": 2, "info": {"name": "rpc-v2", "version": "1"},
                                              "capabilities": {"session": {}}}})
        elif method == "session/new":
            # An update racing ahead of the session/new answer must be buffered, not lost.
            update({"sessionUpdate": "available_commands_update",
                    "availableCommands": [{"name": "help", "description": "Help"}]})
            send({"id": msg["id"], "result": {"sessionId": SID}})
        elif method == "session/prompt":
            text = params["prompt"][0]["text"]
            send({"id": msg["id"], "result": {"messageId": "u1"}})
            update({"sessionUpdate": "user_message", "messageId": "u1", "content": params["prompt"]})
            update({"sessionUpdate": "state_update", "state": "running"})
            if text.startswith("ask"):
                turn_open = True
                count = 2 if text == "ask twice" else 1
                for n in range(count):
                    call = f"call-{n}"
                    update({"sessionUpdate": "tool_call_update", "toolCallId": call, "title": "Write file",
                            "kind": "edit", "status": "pending"})
                    pending_permissions[n] = call
                    send({"id": n, "method": "session/request_permission", "params": {
                        "sessionId": SID, "title": "Allow writing?",
                        "subject": {"type": "tool_call", "toolCall": {"toolCallId": call}},
                        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                                    {"optionId": "deny", "name": "Deny", "kind": "reject_once"}]}})
                update({"sessionUpdate": "state_update", "state": "requires_action"})
            else:
                update({"sessionUpdate": "agent_message_chunk", "messageId": "a1",
                        "content": {"type": "text", "text": "Hello"}})
                update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        elif method == "session/cancel":
            update({"sessionUpdate": "agent_message_chunk", "messageId": "a2",
                    "content": {"type": "text", "text": "cancel seen"}})
        elif "method" not in msg and msg.get("id") in pending_permissions:
            call = pending_permissions.pop(msg["id"])
            outcome = msg["result"]["outcome"]
            status = "completed" if outcome.get("optionId") == "allow" else "cancelled"
            update({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": status})
            if turn_open and not pending_permissions:
                turn_open = False
                reason = "cancelled" if outcome["outcome"] == "cancelled" else "end_turn"
                update({"sessionUpdate": "state_update", "state": "idle", "stopReason": reason})


if __name__ == "__main__":
    main()
