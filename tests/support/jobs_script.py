"""The scripted v2 agent's jobs turns: a dev server and a watcher left running, then both gone (v2 `state_update.background`)."""

from __future__ import annotations

from typing import Any

from tests.support.app_run import b64, text, tool, update
from tests.support.subagents import CHILD, announce

#: the watcher's title carries an escape sequence and a bidi override: the tray shows neither
HOSTILE_TITLE = "Watch tests\x1b[31m\u202e"


def state(name: str, background: list[dict[str, str]], stop: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"sessionUpdate": "state_update", "state": name, "background": background}
    if stop is not None:
        body["stopReason"] = stop
    return update(body)


JOBS = [{"type": "terminal", "terminalId": "dev"}, {"type": "tool_call", "toolCallId": "watch"}]


def start_jobs() -> dict[str, Any]:
    """A turn that starts a dev server (a cancellable terminal, 40 columns wide) and a paused watcher."""
    return {
        "match": "start",
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            state("running", []),
            tool("run-dev", title="Start the dev server", kind="execute", status="in_progress"),
            update(
                {
                    "sessionUpdate": "terminal_update",
                    "terminalId": "dev",
                    "command": "npm run dev",
                    "size": {"cols": 40, "rows": 10},
                    "capabilities": {"cancel": {}},
                }
            ),
            update({"sessionUpdate": "terminal_output_chunk", "terminalId": "dev", "data": b64(b"ready on :3000\n")}),
            tool("run-dev", status="completed", content=[{"type": "terminal", "terminalId": "dev"}]),
            tool("watch", title=HOSTILE_TITLE, kind="other", status="paused"),
            update({"sessionUpdate": "agent_message", "messageId": "a1", "content": [text("Both run.")]}),
            state("idle", JOBS, stop="end_turn"),
        ],
    }


def stop_jobs() -> dict[str, Any]:
    """The next turn: the server has exited and the watcher finished, so the snapshot is empty."""
    return {
        "match": "done",
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            update({"sessionUpdate": "terminal_update", "terminalId": "dev", "exitStatus": {"signal": "SIGTERM"}}),
            tool("watch", status="completed"),
            state("running", []),
            state("idle", [], stop="end_turn"),
        ],
    }


def background_subagent_turn() -> dict[str, Any]:
    """A turn that leaves a subagent working in the background (the unstable `BackgroundSubagent` item);
    its title carries an escape sequence the tray must not draw."""
    return {
        "match": "delegate",
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            state("running", []),
            announce(title="Explore the tests\x1b[2J", state="running"),
            state("idle", [{"type": "subagent", "sessionId": CHILD}], stop="end_turn"),
        ],
    }


def cancellable_watcher_turn() -> dict[str, Any]:
    """A turn that leaves one tool call running in the background, advertising `capabilities.cancel`."""
    return {
        "match": "watch",
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            state("running", []),
            tool("watch", title="Watch tests", kind="other", status="in_progress", capabilities={"cancel": {}}),
            state("idle", [{"type": "tool_call", "toolCallId": "watch"}], stop="end_turn"),
        ],
    }


def script() -> dict[str, Any]:
    return {
        "version": 2,
        "turns": [start_jobs(), stop_jobs()],
        "responses": {"terminal/cancel": {"result": {}}, "tool_call/cancel": {"result": {}}},
    }
