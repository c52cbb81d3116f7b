"""The real app against the scripted agent (`AppRun`, `running_app`) and the turns the scripted agent plays."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.launch import Launch
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.agents import scripted_agent_argv
from tests.support.wait import until

W = TypeVar("W", bound=Widget)


#: The working directory under the test's HOME (set by `private_dirs`), so the header shows this.
SHOWN_CWD = "~/src/project"


class AppRun:
    """One running app with the scripted agent: the pilot, the chat screen and the agent's record."""

    def __init__(self, app: AcpApp, pilot: Pilot[Any], record: Path) -> None:
        self.app = app
        self.pilot = pilot
        self.record = record
        self._turns_before = 0  # foreground runs seen before the last `send`

    @property
    def chat(self) -> ChatScreen:
        chat = self.app.chat
        assert chat is not None
        return chat

    async def wait(self, condition: Callable[[], object], what: str = "", timeout: float = 10.0) -> None:
        """Poll `condition` between frames until it holds (bounded)."""
        await until(condition, what, pilot=self.pilot, timeout=timeout)

    async def ready(self) -> None:
        """Wait until the session is open and idle."""
        await self.wait(
            lambda: (
                self.chat.controller.session is not None
                and self.chat.controller.session.session_id is not None
                and self.chat.status.values.state == "idle"
            ),
            "the session to open",
        )

    def _turns(self) -> int:
        session = self.chat.controller.session
        return session.state.turn if session is not None else 0

    async def idle(self, *, ran: bool = True) -> None:
        """Wait until the last prompt's turn is over: it ran (unless `ran` is False: a rejected prompt),
        nothing is sending or pending, the agent is not busy and every event has been applied."""
        await self.pilot.pause()
        await self.wait(
            lambda: (
                (not ran or self._turns() > self._turns_before)
                and not self.chat.controller.busy
                and not self.chat.pump.pending
            ),
            "the agent to go idle",
        )
        await self.pilot.pause()

    async def send(self, text: str) -> None:
        """Type `text` into the prompt (as one paste) and press Enter."""
        self._turns_before = self._turns()
        prompt = self.chat.prompt_input
        prompt.focus()
        prompt.load_text(text)
        await self.pilot.press("enter")

    def views(self, kind: type[W]) -> list[W]:
        return [w for w in self.chat.conversation.entries if isinstance(w, kind)]

    def received(self, method: str) -> list[dict[str, Any]]:
        """Messages with `method` that the agent received, in order."""
        if not self.record.exists():
            return []
        text = self.record.read_text(encoding="utf-8")
        # Polled while the agent writes: a last line without its newline is still being written.
        lines = text[: text.rfind("\n") + 1].splitlines()
        return [m for m in map(json.loads, lines) if m.get("method") == method]

    def prompts_received(self) -> list[str]:
        return ["".join(b.get("text", "") for b in m["params"]["prompt"]) for m in self.received("session/prompt")]


def make_launch(argv: list[str], *, cwd: Path, theme: str | None = None, demo: bool = False) -> Launch:
    return Launch(
        agent_argv=tuple(argv),
        agent_name="scripted",
        env={},
        cwd=cwd,
        protocol="auto",
        theme=theme,
        log_path=None,
        init_timeout=10,
        warnings=(),
        is_demo=demo,
    )


@pytest.fixture
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the user's real data, state or config directories; HOME is the test's own."""
    for name in ("DATA", "STATE", "CONFIG"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(f"ACP_TUI_{name}_DIR", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "src" / "project").mkdir(parents=True)


def project_dir(tmp_path: Path) -> Path:
    """The agent's working directory, shown as `SHOWN_CWD` in the header."""
    return tmp_path / "src" / "project"


@asynccontextmanager
async def running_app(
    tmp_path: Path,
    script: dict[str, Any],
    *,
    size: tuple[int, int] = (120, 45),
    cwd: Path | None = None,
    theme: str | None = None,
    wait_ready: bool = True,
    notifications: bool = False,
) -> AsyncIterator[AppRun]:
    """Start the app on the scripted agent playing `script`; the agent's inbox is recorded."""
    script_path = tmp_path / f"script-{id(script)}.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    record = tmp_path / f"record-{id(script)}.jsonl"
    app = AcpApp(
        make_launch(scripted_agent_argv(script_path, record), cwd=cwd or project_dir(tmp_path), theme=theme),
        arm_delay=0.1,
    )
    async with app.run_test(size=size, notifications=notifications) as pilot:
        run = AppRun(app, pilot, record)
        if wait_ready:
            await run.ready()
        yield run


def update(body: dict[str, Any]) -> dict[str, Any]:
    return {"op": "update", "update": body}


def v2_turn(*steps: dict[str, Any], stop: str = "end_turn", match: str | None = None) -> dict[str, Any]:
    """A v2 turn: answer, echo the user message, run, `steps`, idle with `stop`."""
    turn: dict[str, Any] = {
        "steps": [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            *steps,
            {"op": "state", "state": "idle", "stopReason": stop},
        ]
    }
    if match is not None:
        turn["match"] = match
    return turn


def v1_turn(*steps: dict[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    return {"steps": [*steps, {"op": "respond_prompt", "stopReason": stop}]}


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def screen_text(run: AppRun) -> str:
    """Everything the terminal shows now, as plain text."""
    return "\n".join(strip.text for strip in run.app.screen._compositor.render_strips())


GIT_DIFF = (
    "diff --git a/src/greet.py b/src/greet.py\n--- a/src/greet.py\n+++ b/src/greet.py\n@@ -1,2 +1,2 @@\n"
    ' def greet(name: str) -> str:\n-    return "Hello " + name\n+    return f"Hello, {name}!"\n'
)


def tool(tool_call_id: str, **fields: Any) -> dict[str, Any]:
    return update({"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id, **fields})


def card_for(run: AppRun, tool_call_id: str) -> ToolCallCard:
    [card] = [c for c in run.views(ToolCallCard) if c.call.id == tool_call_id]
    return card


def plan_update(plan_id: str, *entries: tuple[str, str]) -> dict[str, Any]:
    return update(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": plan_id,
                "entries": [
                    {"content": content, "priority": "medium", "status": status} for content, status in entries
                ],
            },
        }
    )
