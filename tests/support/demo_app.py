"""The real app against the demo agent (`DemoRun`, `demo_app`), in both protocol versions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.launch import Launch
from acp_tui.launch_resolve import demo_argv
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.dialogs.permission import PermissionScreen
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.wait import armed, until

W = TypeVar("W", bound=Widget)


VERSIONS = pytest.mark.parametrize("version", [2, 1], ids=["v2", "v1"])


@pytest.fixture
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the user's real data, state or config directories."""
    for name in ("DATA", "STATE", "CONFIG"):
        folder = tmp_path / f"user-{name.lower()}"
        folder.mkdir()
        monkeypatch.setenv(f"ACP_TUI_{name}_DIR", str(folder))


class DemoRun:
    """One app talking to the demo agent: the pilot, the chat screen, and every toast shown."""

    def __init__(self, app: AcpApp, pilot: Pilot[Any]) -> None:
        self.app = app
        self.pilot = pilot
        self.toasts: list[tuple[str, str, str]] = []  # (title, message, severity)
        original = app.notify

        def notify(message: str, *args: Any, **kwargs: Any) -> None:
            self.toasts.append((str(kwargs.get("title", "")), message, str(kwargs.get("severity", "information"))))
            original(message, *args, **kwargs)

        app.notify = notify  # type: ignore[method-assign]

    @property
    def chat(self) -> ChatScreen:
        chat = self.app.chat
        assert chat is not None
        return chat

    async def wait(self, condition: Callable[[], object], what: str, timeout: float = 15.0) -> None:
        """Poll `condition` between short pauses until it holds; fail naming `what`."""
        await until(condition, what, pilot=self.pilot, timeout=timeout)

    async def ready(self) -> None:
        await self.wait(
            lambda: (
                self.chat.controller.session is not None
                and self.chat.controller.session.session_id is not None
                and self.chat.status.values.state == "idle"
                and self.views(AgentMessageView)
            ),
            "the demo session to open and greet",
        )

    async def send(self, text: str) -> None:
        prompt = self.chat.prompt_input
        prompt.focus()
        prompt.load_text(text)
        await self.pilot.press("enter")

    async def idle(self, what: str = "the turn to end") -> None:
        """Wait until the turn is over and every queued event is on screen."""
        await self.pilot.pause()
        await self.wait(
            lambda: not self.chat.controller.busy and not self.chat.pump.pending and self.dialog() is None, what
        )
        await self.pilot.pause()

    async def turn(self, text: str) -> None:
        await self.send(text)
        await self.idle(f"the {text!r} turn to end")

    def views(self, kind: type[W]) -> list[W]:
        return [w for w in self.chat.conversation.entries if isinstance(w, kind)]

    def cards(self) -> list[ToolCallCard]:
        return self.views(ToolCallCard)

    def last_message(self) -> str:
        return self.views(AgentMessageView)[-1].text

    def messages(self) -> str:
        return "\n".join(view.text for view in self.views(AgentMessageView))

    def dialog(self) -> PermissionScreen | None:
        screen = self.app.screen
        return screen if isinstance(screen, PermissionScreen) else None

    async def armed_dialog(self) -> PermissionScreen:
        return await armed(self.pilot, PermissionScreen, what="an armed permission dialog", timeout=15.0)

    def status_text(self) -> str:
        return self.chat.status.render().plain

    def screen_text(self) -> str:
        """What the terminal shows now, as plain text."""
        return "\n".join(strip.text for strip in self.app.screen._compositor.render_strips())


def demo_launch(cwd: Path, version: int, speed: str = "0") -> Launch:
    """What `acp-tui` with no agent builds, with the demo's delays scaled by `speed`."""
    return Launch(
        agent_argv=tuple(demo_argv()),
        agent_name="demo",
        env={"ACP_TUI_DEMO_SPEED": speed},
        cwd=cwd,
        protocol=version,  # type: ignore[arg-type]
        theme=None,
        log_path=None,
        init_timeout=10,
        warnings=(),
        is_demo=True,
    )


@asynccontextmanager
async def demo_app(tmp_path: Path, version: int, *, speed: str = "0") -> AsyncIterator[DemoRun]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    app = AcpApp(demo_launch(project, version, speed), arm_delay=0.1)
    async with app.run_test(size=(120, 45)) as pilot:
        run = DemoRun(app, pilot)
        await run.ready()
        yield run
