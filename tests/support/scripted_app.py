"""Drive the real `AcpApp` against the scripted agent in pilot tests, and read what the agent got.

`ScriptedRun` writes a script for `tests/support/agents/scripted_agent.py`, builds the `Launch` that runs
it with a record file, and reads back every JSON line the client sent. Waiting is always on a
condition (`wait_until`), polled with short pilot pauses and bounded by a timeout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.launch import Launch
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.dialogs.permission import PermissionScreen
from acp_tui.ui.timeline.system_line import SystemLine
from tests.support import launches
from tests.support.agents import AGENTS_DIR
from tests.support.schema_check import validate_client_message
from tests.support.wait import armed, until

SCRIPTED_AGENT = AGENTS_DIR / "scripted_agent.py"
#: Arm delay used by every pilot test: long enough to test the typing guard, short for speed.
ARM_DELAY = 0.2
SIZE = (120, 45)


def isolate_user_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Point the app's data, state and config dirs at tmp so tests never touch the real ones."""
    for name in ("DATA", "STATE", "CONFIG"):
        folder = tmp_path / f"user-{name.lower()}"
        folder.mkdir(exist_ok=True)
        monkeypatch.setenv(f"ACP_TUI_{name}_DIR", str(folder))


def make_launch(
    argv: list[str] | tuple[str, ...],
    cwd: Path,
    *,
    env: dict[str, str] | None = None,
    protocol: str = "auto",
    name: str = "scripted",
    log_path: Path | None = None,
) -> Launch:
    return launches.make_launch(argv, cwd, name=name, env=env, protocol=protocol, log_path=log_path)


class ScriptedRun:
    """One scripted agent: its script, its record of client messages, and the Launch that runs it."""

    def __init__(self, tmp_path: Path, script: dict[str, Any], *, protocol: str = "auto") -> None:
        self.version = int(script.get("version", 2))
        self.script_path = tmp_path / "script.json"
        self.record_path = tmp_path / "record.jsonl"
        self.script_path.write_text(json.dumps(script), encoding="utf-8")
        argv = [sys.executable, str(SCRIPTED_AGENT), str(self.script_path), "--record", str(self.record_path)]
        self.launch = make_launch(argv, tmp_path, protocol=protocol)

    def records(self) -> list[dict[str, Any]]:
        """Every message the client sent so far, in order."""
        if not self.record_path.exists():
            return []
        text = self.record_path.read_text(encoding="utf-8")
        # Polled while the agent writes: a last line without its newline is still being written.
        lines = text[: text.rfind("\n") + 1].splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def methods(self) -> list[str]:
        return [m["method"] for m in self.records() if "method" in m]

    def answer_to(self, request_id: Any) -> dict[str, Any] | None:
        """The client's response to the agent's request `request_id`, if it has answered."""
        for message in self.records():
            if "method" not in message and message.get("id") == request_id:
                return message
        return None

    def validate_all(self, answering: dict[Any, str] | None = None) -> None:
        """Validate every recorded client message against the negotiated version's schema.

        `answering` maps the ids of agent→client requests to their method, for the responses.
        """
        answering = answering or {}
        for message in self.records():
            if "method" in message:
                validate_client_message(message, self.version)
            else:
                validate_client_message(message, self.version, answering=answering.get(message.get("id")))


async def wait_until(pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    """Poll `condition` between short pilot pauses until it holds; fail naming `what` on timeout."""
    await until(condition, what, pilot=pilot, timeout=timeout)


def permission_request(
    request_id: Any, options: list[dict[str, str]], *, title: str = "Edit main.py", wait: bool = True, version: int = 2
) -> dict[str, Any]:
    """A scripted `session/request_permission` step (v2 with a tool_call subject, or v1)."""
    if version >= 2:
        params: dict[str, Any] = {
            "sessionId": "$SESSION",
            "title": title,
            "description": "The agent wants to change a file.",
            "subject": {
                "type": "tool_call",
                "toolCall": {
                    "toolCallId": f"call-{request_id}",
                    "title": title,
                    "kind": "edit",
                    "status": "pending",
                },
            },
            "options": options,
        }
    else:
        params = {
            "sessionId": "$SESSION",
            "toolCall": {"toolCallId": f"call-{request_id}", "title": title, "kind": "edit", "status": "pending"},
            "options": options,
        }
    return {"op": "request", "method": "session/request_permission", "id": request_id, "params": params, "wait": wait}


#: The four standard options, plus ids that make the choice obvious in assertions.
STANDARD_OPTIONS = [
    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject-always", "name": "Never", "kind": "reject_always"},
]


def v2_turn(*steps: dict[str, Any], stop_reason: str | None = "end_turn") -> list[dict[str, Any]]:
    """A v2 turn: insert the prompt, go running, play `steps`, go idle (unless `stop_reason` is None)."""
    head: list[dict[str, Any]] = [{"op": "respond_prompt"}, {"op": "user_message"}, {"op": "state", "state": "running"}]
    tail: list[dict[str, Any]] = (
        [] if stop_reason is None else [{"op": "state", "state": "idle", "stopReason": stop_reason}]
    )
    return [*head, *steps, *tail]


def v1_turn(*steps: dict[str, Any], stop_reason: str | None = "end_turn") -> list[dict[str, Any]]:
    """A v1 turn: play `steps`, then answer the prompt with `stop_reason` (unless None)."""
    tail: list[dict[str, Any]] = [] if stop_reason is None else [{"op": "respond_prompt", "stopReason": stop_reason}]
    return [*steps, *tail]


def dialog(app: Any) -> PermissionScreen | None:
    """The permission dialog on top of the app, if one is showing."""
    screen = app.screen
    return screen if isinstance(screen, PermissionScreen) else None


async def ready(pilot: Pilot[Any], app: Any) -> ChatScreen:
    """Wait for the chat screen to have a session and be idle."""
    await wait_until(pilot, lambda: app.chat is not None, "the chat screen")
    chat: ChatScreen = app.chat
    await wait_until(
        pilot,
        lambda: (
            chat.controller.session is not None
            and chat.controller.session.session_id is not None
            and chat.status.values.state == "idle"
        ),
        "the session to be ready",
    )
    return chat


async def submit(pilot: Pilot[Any], chat: ChatScreen, text: str) -> None:
    """Type `text` into the prompt (as one paste-like load) and press Enter."""
    chat.prompt_input.focus()
    chat.prompt_input.load_text(text)
    await pilot.press("enter")


async def armed_dialog(pilot: Pilot[Any], app: Any) -> PermissionScreen:
    """Wait for a permission dialog to show and accept keys."""
    return await armed(pilot, PermissionScreen, what="an armed permission dialog")


def conversation_text(chat: ChatScreen) -> str:
    """Every system line in the conversation, as plain text (for "the conversation says why")."""
    return "\n".join(str(line.message) for line in chat.query(SystemLine))
