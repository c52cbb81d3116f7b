#!/usr/bin/env python3
"""Sessions: opening a long history, and a session browser of thousands of rows (issue 15). Run by hand:

    .venv/bin/python bench/session_history.py --repeat 5
    .venv/bin/python bench/session_history.py --turns 2000 --sessions 5000 --versions 2 1

1. **History.** The demo agent (a real subprocess, its store prepared on disk) holds a session of
   `--turns` turns of five updates each: the prompt, the answer, a tool call, its completion with
   output, and a plan (2,000 turns = 10,000 updates). The app (headless, 120x45) opens it the way the
   browser does (`SessionSwitcher.open_session`: v2 `session/resume` with `replayFrom`, v1
   `session/load`); the time is from the request to the last answer's widget mounted and drawn.
   Budget: 1.0 s.
2. **Browser.** A session browser over `--sessions` listed sessions (one page, so the whole list is
   merged and sorted at once): the time to its first drawn rows (budget 0.3 s), then each keystroke of
   a typed filter to the list redrawn (budget 30 ms a keystroke).

Medians of `--repeat` runs are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402

from acp_tui.agent.dialect import SessionAbilities  # noqa: E402
from acp_tui.controller.sessions import SessionListing, SessionPage, listing  # noqa: E402
from acp_tui.demo.store import StoredSession, write_sessions  # noqa: E402
from acp_tui.launch import Launch  # noqa: E402
from acp_tui.launch_resolve import demo_argv  # noqa: E402
from acp_tui.ui.app import AcpApp  # noqa: E402
from acp_tui.ui.browsers.sessions import SessionBrowser  # noqa: E402
from acp_tui.ui.timeline.agent_message import AgentMessageView  # noqa: E402
from acp_tui.ui.widgets.session_list import SessionList  # noqa: E402

SESSION = "bench-history"


def history(turns: int, version: int) -> list[dict[str, Any]]:
    """Five updates a turn, shaped for `version`."""
    out: list[dict[str, Any]] = []
    for turn in range(turns):
        text = {"type": "text", "text": f"Question {turn}: how does part {turn} of the system work?"}
        answer = {"type": "text", "text": f"Answer {turn}. It reads the **input**, checks it and writes `out-{turn}`."}
        if version == 2:
            out.append({"sessionUpdate": "user_message", "messageId": f"u{turn}", "content": [text]})
            out.append({"sessionUpdate": "agent_message_chunk", "messageId": f"a{turn}", "content": answer})
            out.append(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": f"t{turn}",
                    "title": f"Read part{turn}.py",
                    "kind": "read",
                    "status": "in_progress",
                }
            )
            out.append(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": f"t{turn}",
                    "status": "completed",
                    "content": [{"type": "content", "content": {"type": "text", "text": f"{turn} lines read"}}],
                }
            )
            out.append(
                {
                    "sessionUpdate": "plan_update",
                    "plan": {
                        "planId": f"p{turn}",
                        "entries": [{"content": f"step {turn}", "priority": "medium", "status": "completed"}],
                    },
                }
            )
        else:
            out.append({"sessionUpdate": "user_message_chunk", "content": text})
            out.append({"sessionUpdate": "agent_message_chunk", "content": answer})
            out.append(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": f"t{turn}",
                    "title": f"Read part{turn}.py",
                    "kind": "read",
                    "status": "in_progress",
                }
            )
            out.append(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": f"t{turn}",
                    "status": "completed",
                    "content": [{"type": "content", "content": {"type": "text", "text": f"{turn} lines read"}}],
                }
            )
            out.append(
                {
                    "sessionUpdate": "plan",
                    "entries": [{"content": f"step {turn}", "priority": "medium", "status": "completed"}],
                }
            )
    return out


async def open_history(store: Path, project: Path, version: int, turns: int) -> float:
    launch = Launch(
        agent_argv=tuple(demo_argv()),
        agent_name="demo",
        cwd=project,
        protocol=version,  # type: ignore[arg-type]
        env={"ACP_TUI_DEMO_SPEED": "0", "ACP_TUI_DEMO_STORE": str(store)},
        theme=None,
        log_path=None,
        init_timeout=30,
        warnings=(),
    )
    app = AcpApp(launch, arm_delay=0.1)
    last = f"Answer {turns - 1}."
    async with app.run_test(size=(120, 45)) as pilot:
        chat = app.chat
        assert chat is not None
        while chat.controller.sessions.current_session_id is None or chat.controller.phase != "ready":
            await pilot.pause(0.02)
        await pilot.pause(0.2)
        started = time.perf_counter()
        task = asyncio.ensure_future(chat.controller.sessions.open_session(SESSION, cwd=str(project)))

        def shown() -> bool:
            views = [w for w in chat.conversation.entries if isinstance(w, AgentMessageView)]
            return bool(views) and views[-1].text.startswith(last) and views[-1].is_attached

        while not shown():
            await pilot.pause(0)
        await pilot.pause(0)  # one refresh: drawn
        elapsed = time.perf_counter() - started
        assert await task
    return elapsed


class Source:
    def __init__(self, count: int) -> None:
        now = datetime.now(UTC)
        self.rows = [
            listing(
                f"s{i:05d}",
                "/home/user/project",
                f"Session {i}: refactor module {i % 97}",
                now - timedelta(minutes=i * 7),
                listed=True,
            )
            for i in range(count)
        ]
        self.current_session_id: str | None = None

    async def session_abilities(self) -> SessionAbilities:
        return SessionAbilities(list=True, load=True, delete=True)

    async def list_sessions(self, cursor: str | None = None, *, all_dirs: bool = False) -> SessionPage:
        return SessionPage(list(self.rows), None)

    def transcript_sessions(self, *, all_dirs: bool = False) -> list[SessionListing]:
        return []

    async def delete_session(self, session_id: str) -> None:
        pass


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("chat")


async def browser(count: int, query: str) -> tuple[float, list[float]]:
    app = Host()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        source = Source(count)
        started = time.perf_counter()
        screen = SessionBrowser(source, "/home/user/project")
        await app.push_screen(screen)
        view = screen.query_one(SessionList)
        while len(screen.rows) < count:
            await pilot.pause(0)
        await pilot.pause(0)
        opened = time.perf_counter() - started
        assert view.shown
        keys: list[float] = []
        for i in range(1, len(query) + 1):
            started = time.perf_counter()
            screen.filter_input.value = query[:i]
            await pilot.pause(0)
            keys.append(time.perf_counter() - started)
    return opened, keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--versions", type=int, nargs="+", default=[2, 1])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("DATA", "STATE", "CONFIG"):
            (root / name).mkdir()
            os.environ[f"ACP_TUI_{name}_DIR"] = str(root / name)
        for version in args.versions:
            project = root / f"project-v{version}"
            project.mkdir()
            store = root / f"store-v{version}"
            write_sessions(
                store, [(StoredSession(SESSION, str(project), version, "A long session"), history(args.turns, version))]
            )
            times = [asyncio.run(open_history(store, project, version, args.turns)) for _ in range(args.repeat)]
            print(
                f"history v{version}: {args.turns * 5:,} updates to the last answer on screen: "
                f"median {statistics.median(times):.3f} s (runs: {', '.join(f'{t:.3f}' for t in times)})"
            )
    opens: list[float] = []
    keys: list[float] = []
    for _ in range(args.repeat):
        opened, per_key = asyncio.run(browser(args.sessions, "module 4"))
        opens.append(opened)
        keys.extend(per_key)
    print(
        f"browser of {args.sessions:,} sessions: opens in median {statistics.median(opens) * 1000:.0f} ms; "
        f"a filter keystroke median {statistics.median(keys) * 1000:.1f} ms, worst {max(keys) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
