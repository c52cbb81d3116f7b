"""A stdlib ACP v2 agent for session tests: one turn with a permission request, honouring cancel.

Prompt text "ask" asks permission for a tool call (request id 0); "ask twice" asks two at once;
"ask N" asks N at once (a flood); "hang" never answers `initialize`; anything else is answered with one
agent message. `session/resume` of a session id "replay-N" replays N updates before it answers (a
flood of history: a user message, then agent message chunks and tool calls); of "with-subagent", its
subagent `kid` and the kid's tool call, under the kid's own session id.
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
            send(
                {
                    "id": msg["id"],
                    "result": {
                        "protocolVersion": 2,
                        "info": {"name": "rpc-v2", "version": "1"},
                        "capabilities": {"session": {}},
                    },
                }
            )
        elif method == "session/new":
            # An update racing ahead of the session/new answer must be buffered, not lost.
            update(
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": [{"name": "help", "description": "Help"}],
                }
            )
            send({"id": msg["id"], "result": {"sessionId": SID}})
        elif method == "session/prompt":
            text = params["prompt"][0]["text"]
            send({"id": msg["id"], "result": {"messageId": "u1"}})
            update({"sessionUpdate": "user_message", "messageId": "u1", "content": params["prompt"]})
            update({"sessionUpdate": "state_update", "state": "running"})
            if text.startswith("ask"):
                turn_open = True
                words = text.split()
                count = 2 if text == "ask twice" else int(words[1]) if len(words) == 2 and words[1].isdigit() else 1
                for n in range(count):
                    call = f"call-{n}"
                    update(
                        {
                            "sessionUpdate": "tool_call_update",
                            "toolCallId": call,
                            "title": "Write file",
                            "kind": "edit",
                            "status": "pending",
                        }
                    )
                    pending_permissions[n] = call
                    send(
                        {
                            "id": n,
                            "method": "session/request_permission",
                            "params": {
                                "sessionId": SID,
                                "title": "Allow writing?",
                                "subject": {"type": "tool_call", "toolCall": {"toolCallId": call}},
                                "options": [
                                    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                                    {"optionId": "deny", "name": "Deny", "kind": "reject_once"},
                                ],
                            },
                        }
                    )
                update({"sessionUpdate": "state_update", "state": "requires_action"})
            else:
                update(
                    {
                        "sessionUpdate": "agent_message_chunk",
                        "messageId": "a1",
                        "content": {"type": "text", "text": "Hello"},
                    }
                )
                update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        elif method == "session/resume":
            sid = params["sessionId"]
            count = int(sid.split("-")[1]) if sid.startswith("replay-") else 0
            lines = []
            for n in range(count):
                if n % 100 == 0:
                    body: dict[str, Any] = {
                        "sessionUpdate": "user_message",
                        "messageId": f"r-u{n}",
                        "content": [{"type": "text", "text": f"question {n}"}],
                    }
                elif n % 100 == 50:
                    body = {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": f"r-t{n}",
                        "title": f"Read {n}",
                        "kind": "read",
                        "status": "completed",
                    }
                else:
                    body = {
                        "sessionUpdate": "agent_message_chunk",
                        "messageId": f"r-a{n - n % 100}",
                        "content": {"type": "text", "text": f"chunk {n} "},
                    }
                lines.append(
                    json.dumps(
                        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": body}},
                        separators=(",", ":"),
                    )
                )
                if len(lines) == 1000:
                    out.write(("\n".join(lines) + "\n").encode())
                    lines = []
            if lines:
                out.write(("\n".join(lines) + "\n").encode())
            if sid == "with-subagent":
                for session_id, body in (
                    (sid, {"sessionUpdate": "subagent_update", "sessionId": "kid", "title": "Kid"}),
                    ("kid", {"sessionUpdate": "tool_call_update", "toolCallId": "k1", "status": "completed"}),
                ):
                    send({"method": "session/update", "params": {"sessionId": session_id, "update": body}})
            out.flush()
            send({"id": msg["id"], "result": {}})
        elif method == "session/cancel":
            update(
                {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": "a2",
                    "content": {"type": "text", "text": "cancel seen"},
                }
            )
        elif "method" not in msg and msg.get("id") in pending_permissions:
            call = pending_permissions.pop(msg["id"])
            outcome = msg["result"]["outcome"]
            status = "completed" if outcome.get("optionId") == "allow" else "cancelled"
            update({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": status})
            if turn_open and not pending_permissions:
                turn_open = False
                reason = "cancelled" if outcome["outcome"] == "cancelled" else "end_turn"
                update({"sessionUpdate": "state_update", "state": "idle", "stopReason": reason})
        elif method is not None and "id" in msg:
            send({"id": msg["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    main()
