"""Regenerate the README's screenshots from the demo agent: `python screenshots/make_screenshots.py`.

Each picture is the real app (headless, 140x42) talking to the real demo agent, driven by the same
keys a person would press; the SVGs land beside this script.

`python screenshots/make_screenshots.py tabs` takes only the tabs picture.
`python screenshots/make_screenshots.py --look DIR` takes the design-review set instead: the demo's
`tools`, `edit` (its permission dialog, then the applied edit), `plan`, `error` and `everything`
answers at 80x24 and 160x50 in both shipped themes, as SVG plus a PNG (made with `rsvg-convert`).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp_tui.launch import Launch
from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.widgets.plan_panel import PlanPanel

HERE = Path(__file__).resolve().parent
SIZE = (140, 42)


def launch(theme: str | None = None, speed: str | None = None) -> Launch:
    """The demo in ~/src/greeter (HOME points into a temporary folder, so the path is the same everywhere);
    `speed` scales the demo's pace for this run (the default is no delays)."""
    return Launch(
        agent_argv=(sys.executable, "-m", "acp_tui.demo"),
        agent_name="demo",
        env={} if speed is None else {"ACP_TUI_DEMO_SPEED": speed},
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
        if chat is not None and chat.controller.session is not None and chat.controller.session.session_id is not None:
            fg = chat.controller.session.state.foreground
            if not fg.busy and not chat.controller.state.submissions and not chat.controller.state.permissions:
                await asyncio.sleep(0.3)
                return
        await asyncio.sleep(0.05)
    raise TimeoutError("the demo agent did not finish in time")


async def send(pilot: object, app: AcpApp, text: str) -> None:
    await pilot.press(*text)  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]


def plan_half_done(app: AcpApp) -> bool:
    """The plan panel shows a plan with its first entry done (the demo is working on the next)."""
    panels = app.screen.query(PlanPanel)
    return bool(panels) and panels.first().shown and panels.first().line_text.startswith("Plan 1/")


async def shoot(
    name: str,
    words: list[str],
    *,
    theme: str | None = None,
    approve: bool = True,
    dialog: bool = False,
    show: str | None = None,
    size: tuple[int, int] = SIZE,
    folder: Path = HERE,
    open_card: str | None = None,
    speed: str | None = None,
    until: Callable[[AcpApp], bool] | None = None,
) -> Path:
    """`open_card`: open the tool card whose title starts so (a finished call is one line);
    `until`: take the picture while the last word's turn runs, once this holds."""
    app = AcpApp(launch(theme, speed), arm_delay=0.2)
    path = folder / f"{name}.svg"
    async with app.run_test(size=size) as pilot:
        await wait_idle(app)
        for word in words:
            await send(pilot, app, word)
            if until is not None and word == words[-1]:
                while not until(app):
                    await pilot.pause(0.02)
                await pilot.pause(0.1)
                app.save_screenshot(str(path))
                return path
            if word in ("edit", "everything"):
                while not app.chat.controller.state.permissions:  # type: ignore[union-attr]
                    await pilot.pause(0.05)
                await pilot.pause(0.6)
                if dialog:
                    app.save_screenshot(str(path))
                    return path
                await pilot.press("a" if approve else "r")
            await wait_idle(app)
        await pilot.press("escape")
        if open_card is not None:
            chat = app.chat
            assert chat is not None
            card = next(c for c in reversed(chat.query(ToolCallCard)) if (c.call.title or "").startswith(open_card))
            card.toggle()
            await pilot.pause(0.2)
        if show is not None:  # bring the first widget of this type into view (e.g. the plan)
            chat = app.chat
            assert chat is not None
            chat.conversation.scroll_to_widget(chat.conversation.query(show).first(), top=True, animate=False)
        await pilot.pause(0.2)
        app.save_screenshot(str(path))
    return path


async def shoot_tabs(folder: Path = HERE) -> Path:
    """Three tabs: tab 1 asks for permission while hidden (⚠), tab 2 counts on while hidden (◐ and the unseen
    dot), tab 3 shown with its answer. The demo at human pace, so the count is still running."""
    app = AcpApp(launch(speed="1"), arm_delay=0.2)
    path = folder / "tabs.svg"
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, timeout=60)
        await send(pilot, app, "tools")
        await wait_idle(app, timeout=60)
        for word in ("slow", "markdown"):
            count = len(app.tabs.tabs)
            await pilot.press("ctrl+t")
            while len(app.tabs.tabs) == count:
                await pilot.pause(0.05)
            await wait_idle(app, timeout=60)
            await send(pilot, app, word)
        await wait_idle(app, timeout=60)
        app.tabs.tabs[0].screen.controller.submit("edit")
        while [label.state for label in app.tabs.labels()][:2] != ["waiting", "working"] or not app.tabs.labels()[
            1
        ].unseen:
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        app.save_screenshot(str(path))
    return path


#: The design-review scenes: file name, the words sent, and how the dialog and the picture are taken.
LOOK_SCENES: list[tuple[str, list[str], dict[str, Any]]] = [
    ("tools", ["tools"], {}),
    ("edit-dialog", ["edit"], {"dialog": True}),
    ("edit", ["edit"], {}),
    ("edit-open", ["edit"], {"open_card": "Edit"}),
    ("plan", ["plan"], {}),
    ("plan-running", ["plan"], {"speed": "1", "until": plan_half_done}),
    ("error", ["error"], {}),
    ("everything-dialog", ["everything"], {"dialog": True}),
    ("everything", ["everything"], {}),
]
LOOK_SIZES = [(80, 24), (160, 50)]
LOOK_THEMES = ["acp-dark", "acp-light"]


def to_png(svg: Path) -> None:
    """A PNG beside the SVG (for viewers that do not draw SVG), when `rsvg-convert` is installed.

    The SVG asks for Fira Code; where it is missing, fontconfig may substitute a proportional font,
    which smears the cell grid, so the PNG is drawn from a copy that asks for a monospace font first;
    and librsvg drops the spaces that open a text run unless told to preserve them.
    """
    if shutil.which("rsvg-convert") is None:
        return
    text = svg.read_text(encoding="utf-8").replace(
        "font-family: Fira Code, monospace;", "font-family: monospace, Fira Code;"
    )
    text = text.replace('<svg class="rich-terminal"', '<svg xml:space="preserve" class="rich-terminal"', 1)
    subprocess.run(
        ["rsvg-convert", "--background-color=white", "-o", str(svg.with_suffix(".png"))],
        input=text.encode("utf-8"),
        check=True,
    )


async def look(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for width, height in LOOK_SIZES:
        for theme in LOOK_THEMES:
            for scene, words, options in LOOK_SCENES:
                name = f"{scene}-{width}x{height}-{theme.removeprefix('acp-')}"
                to_png(await shoot(name, words, theme=theme, size=(width, height), folder=folder, **options))
                print("  ", name)


async def main() -> None:
    os.environ["ACP_TUI_DEMO_SPEED"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("ACP_TUI_DATA_DIR", "ACP_TUI_STATE_DIR", "ACP_TUI_CONFIG_DIR"):
            os.environ[var] = str(Path(tmp) / var)
        os.environ["HOME"] = str(Path(tmp) / "home")
        (Path.home() / "src" / "greeter").mkdir(parents=True)
        if sys.argv[1:] == ["tabs"]:
            await shoot_tabs()
            print("screenshots written to", HERE)
            return
        if len(sys.argv) == 3 and sys.argv[1] == "--look":
            await look(Path(sys.argv[2]).resolve())
            print("screenshots written to", sys.argv[2])
            return
        await shoot("streamed-answer", ["markdown"])
        await shoot("tool-diff", ["tools", "edit"], open_card="Edit")
        await shoot("permission-dialog", ["edit"], dialog=True)
        await shoot("plan-usage", ["markdown", "plan"], speed="1", until=plan_half_done)
        await shoot("light-theme", ["think", "tools"], theme="acp-light")
        await shoot_tabs()
    print("screenshots written to", HERE)


if __name__ == "__main__":
    asyncio.run(main())
