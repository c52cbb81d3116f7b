"""A scripted subagent: the frames Claude's ACP adapter sends for one (tests/support/fixtures/traffic/
claude-v2-subagent.log), as scripted-agent steps, for the session, controller and pilot tests."""

from __future__ import annotations

from typing import Any

CHILD = "child-explore-1"
TITLE = "Explore the tests"

Step = dict[str, Any]


def _text(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


def parent(update: dict[str, Any]) -> Step:
    return {"op": "update", "update": update}


def child(update: dict[str, Any], session: str = CHILD) -> Step:
    return {"op": "update", "session": session, "update": update}


def announce(state: str = "running", **fields: Any) -> Step:
    update: dict[str, Any] = {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {"state": state}}
    if state == "idle":
        update["state"]["stopReason"] = "end_turn"
    return parent({**update, **fields})


def child_permission(request_id: int, *, session: str = CHILD, wait: bool = True) -> Step:
    """The child's `session/request_permission` for its Write call `c-2`, named by its own session id."""
    return {
        "op": "request",
        "method": "session/request_permission",
        "id": request_id,
        "params": {
            "sessionId": session,
            "title": "Write notes.md",
            "subject": {
                "type": "tool_call",
                "toolCall": {"toolCallId": "c-2", "title": "Write notes.md", "kind": "edit", "status": "pending"},
            },
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            ],
        },
        "wait": wait,
        "timeout": 30,
    }


def subagent_steps(*, ask: bool = False, end: bool = True) -> list[Step]:
    """The child's whole life inside one parent turn: announced, prompted, two tool calls (the second asks
    permission when `ask`), an answer with markup-like text, idle, and its reply to the parent."""
    steps: list[Step] = [
        announce(title=TITLE, description="general-purpose", capabilities={"cancel": {}}),
        parent(
            {
                "sessionUpdate": "session_message",
                "messageId": "toolu_1",
                "senderSessionId": "$SESSION",
                "recipientSessionId": CHILD,
                "content": _text("Find the tests"),
                "recipientMessageId": "toolu_1",
            }
        ),
        child(
            {
                "sessionUpdate": "session_message",
                "messageId": "toolu_1",
                "senderSessionId": "$SESSION",
                "recipientSessionId": CHILD,
                "content": _text("Find the tests"),
                "senderMessageId": "toolu_1",
            }
        ),
        child({"sessionUpdate": "state_update", "state": "running"}),
        child(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c-1",
                "title": "grep -rn def test",
                "kind": "search",
                "status": "completed",
            }
        ),
        child(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c-2",
                "title": "Write notes.md",
                "kind": "edit",
                "status": "pending",
            }
        ),
    ]
    if ask:
        steps.append(child_permission(40))
    steps.append(child({"sessionUpdate": "tool_call_update", "toolCallId": "c-2", "status": "completed"}))
    steps.append(
        child({"sessionUpdate": "agent_message", "messageId": "cm-1", "content": _text("Found [bold]3[/] tests")})
    )
    return steps + subagent_end() if end else steps


def subagent_end() -> list[Step]:
    """The child goes idle, the parent mirrors it, and the child's reply reaches the parent."""
    return [
        child({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
        announce("idle"),
        parent(
            {
                "sessionUpdate": "session_message",
                "messageId": "toolu_1:reply",
                "senderSessionId": CHILD,
                "recipientSessionId": "$SESSION",
                "content": _text("3 tests found"),
            }
        ),
    ]


__all__ = ["CHILD", "TITLE", "announce", "child", "child_permission", "parent", "subagent_end", "subagent_steps"]
