"""Regenerate the README's screenshots from the demo agent: `python screenshots/make_screenshots.py`.

Each picture is the real app (headless, 140x42) talking to the real demo agent, driven by the same
keys a person would press; the SVGs land beside this script.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from acp_tui.cli import Launch
from acp_tui.ui.app import AcpApp

HERE = Path(__file__).resolve().parent
SIZE = (140, 42)


def launch(theme: str | None = None) -> Launch:
    """The demo in ~/src/greeter (HOME points into a temporary folder, so the path is the same everywhere)."""
    return Launch(
        agent_argv=(sys.executable, "-m", "acp_tui.demo"),
        agent_name="demo",
        env={},
        cwd=Path.home() / "src" / "greeter",
        protocol="auto",
        theme=theme,
        log_path=None,
        init_timeout=30,
        warnings=(),
        is_demo=True,
    )


async def wait_idle(app: AcpApp, timeout: float = 20.0) -> None:
    """Until the agent has finished the turn (no spinner, no queue)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    await asyncio.sleep(0.3)
    while loop.time() < deadline:
        chat = app.chat
        if chat is not None and chat.session is not None and chat.session.session_id is not None:
            fg = chat.session.state.foreground
            if not fg.busy and not chat.session.state.submissions and not chat.session.state.permissions:
                await asyncio.sleep(0.3)
                return
        await asyncio.sleep(0.05)
    raise TimeoutError("the demo agent did not finish in time")


async def send(pilot: object, app: AcpApp, text: str) -> None:
    await pilot.press(*text)  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]


async def shoot(name: str, words: list[str], *, theme: str | None = None, approve: bool = True,
                dialog: bool = False, show: str | None = None) -> None:
    app = AcpApp(launch(theme), arm_delay=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app)
        for word in words:
            await send(pilot, app, word)
            if word in ("edit", "everything"):
                while not app.chat.session.state.permissions:  # type: ignore[union-attr]
                    await pilot.pause(0.05)
                await pilot.pause(0.6)
                if dialog:
                    app.save_screenshot(str(HERE / f"{name}.svg"))
                    return
                await pilot.press("a" if approve else "r")
            await wait_idle(app)
        await pilot.press("escape")
        if show is not None:  # bring the first widget of this type into view (e.g. the plan)
            chat = app.chat
            assert chat is not None
            chat.conversation.scroll_to_widget(chat.conversation.query(show).first(), top=True, animate=False)
        await pilot.pause(0.2)
        app.save_screenshot(str(HERE / f"{name}.svg"))


async def main() -> None:
    os.environ["ACP_TUI_DEMO_SPEED"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("ACP_TUI_DATA_DIR", "ACP_TUI_STATE_DIR", "ACP_TUI_CONFIG_DIR"):
            os.environ[var] = str(Path(tmp) / var)
        os.environ["HOME"] = str(Path(tmp) / "home")
        (Path.home() / "src" / "greeter").mkdir(parents=True)
        await shoot("streamed-answer", ["markdown"])
        await shoot("tool-diff", ["edit"])
        await shoot("permission-dialog", ["edit"], dialog=True)
        await shoot("plan-usage", ["plan"], show="PlanView")
        await shoot("light-theme", ["think", "tools"], theme="acp-light")
    print("screenshots written to", HERE)


if __name__ == "__main__":
    asyncio.run(main())
