"""The session controller drives whole turns with no terminal: the built-in demo agent, a scripted asker.

The controller is the UI-free core's top (docs/architecture.md): a prompt streams, a permission is
answered by a script, a cancel ends a slow turn and pauses the queue, a restart resumes, and the agent's
exit is reported once. One test runs the same in a fresh interpreter to prove no Textual is imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import ControllerEvent, LifecycleChanged, ModelChanged, Note, QueueChanged
from acp_tui.launch import Launch
from acp_tui.launch_resolve import demo_argv
from acp_tui.session.changes import AgentGone
from acp_tui.session.model import AGENT_MESSAGE, TOOL_CALL, USER_MESSAGE, Message, ToolCall
from tests.support.agents import AGENTS_DIR
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.launches import make_launch
from tests.support.paths import REPO
from tests.support.wait import until as wait_until

pytestmark = pytest.mark.timeout(60)


def demo_launch(tmp_path: Path) -> Launch:
    return make_launch(demo_argv(), tmp_path, name="demo", env={"ACP_TUI_DEMO_SPEED": "0.05"}, init_timeout=20)


@pytest.fixture
async def controller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[SessionController, list[ControllerEvent], ScriptedUser]]:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    events = ControllerEvents()
    user = ScriptedUser(["allow_once"])
    ctl = SessionController(demo_launch(tmp_path), asker=user, listener=events)
    try:
        yield ctl, events, user
    finally:
        await ctl.shutdown()


async def until(condition: Callable[[], object], timeout: float = 20) -> None:
    await wait_until(condition, timeout=timeout)


def agent_text(ctl: SessionController) -> str:
    return "".join(e.text for k, e in ctl.state.entities.items() if k[0] == AGENT_MESSAGE and isinstance(e, Message))


def notes(events: list[ControllerEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, Note)]


async def test_a_whole_turn_with_a_permission_answered_by_the_script(
    controller: tuple[SessionController, list[ControllerEvent], ScriptedUser],
) -> None:
    ctl, events, user = controller
    assert await ctl.start()
    assert ctl.phase == "ready" and LifecycleChanged("ready") in events
    assert ctl.submit("edit")
    await until(lambda: ctl.state.turn >= 1 and not ctl.busy and user.asked)
    [question] = user.asked
    assert question.request.title and question.request.options  # v2-shaped, whatever the version
    calls = [e for k, e in ctl.state.entities.items() if k[0] == TOOL_CALL and isinstance(e, ToolCall)]
    assert calls and calls[-1].status == "completed"
    assert "greet" in agent_text(ctl)
    assert any(isinstance(e, ModelChanged) for e in events)
    assert ctl.transcript.writer is not None and ctl.transcript.writer.path.exists()


async def test_cancel_ends_a_slow_turn_and_pauses_what_is_queued(
    controller: tuple[SessionController, list[ControllerEvent], ScriptedUser],
) -> None:
    ctl, events, _user = controller
    assert await ctl.start()
    assert ctl.submit("slow")
    await until(lambda: ctl.state.foreground.busy)
    assert not ctl.submit("after")  # queued while the agent works
    assert QueueChanged(("after",), False) in events
    assert ctl.cancel()
    assert not ctl.cancel()  # one cancel at a time
    await until(lambda: not ctl.busy and ctl.cancel_sent_at is None)
    assert ctl.state.foreground.stop_reason == "cancelled"
    assert "⊘ cancelled" in notes(events)
    assert ctl.queue.paused and ctl.queue.items == ("after",)  # waits for the user
    assert QueueChanged(("after",), True) in events
    assert ctl.prompts.send_next()
    await until(lambda: ctl.state.turn >= 2 and not ctl.busy)
    assert not ctl.queue.items


async def test_a_cancel_while_mentioned_files_are_read_keeps_the_prompt_unsent_and_queued(
    controller: tuple[SessionController, list[ControllerEvent], ScriptedUser], tmp_path: Path
) -> None:
    ctl, events, _user = controller
    assert await ctl.start()
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    assert ctl.submit("summarise @notes.txt")
    assert ctl.cancel()  # before the mentioned file was read: the prompt must not go out
    await until(lambda: not ctl.busy and ctl.cancel_sent_at is None)
    assert ctl.state.turn == 0 and not ctl.state.submissions
    assert ctl.queue.paused and ctl.queue.items == ("summarise @notes.txt",)
    assert any(text.startswith("not sent: cancelled") for text in notes(events))
    assert ctl.prompts.send_next()  # the user sends it after all
    await until(lambda: ctl.state.turn >= 1 and not ctl.busy)
    assert not ctl.queue.items and ctl.state.foreground.stop_reason == "end_turn"


async def test_the_agent_exit_is_reported_once_and_restart_resumes(
    controller: tuple[SessionController, list[ControllerEvent], ScriptedUser],
) -> None:
    ctl, events, _user = controller
    assert await ctl.start()
    first = ctl.session
    assert first is not None and first.session_id is not None
    await ctl.stop()
    await until(lambda: ctl.stopped)
    gone = [c for e in events if isinstance(e, ModelChanged) for c in e.changes if isinstance(c, AgentGone)]
    assert len(gone) == 1
    assert sum("you stopped the agent" in text for text in notes(events)) == 1
    assert await ctl.restart()
    assert ctl.session is not first and ctl.session is not None
    assert ctl.session.session_id == first.session_id  # the demo resumes sessions
    assert any("session resumed" in text for text in notes(events))


def test_the_controller_runs_a_turn_with_no_textual_imported(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import asyncio, sys
        from pathlib import Path
        from acp_tui.launch_resolve import demo_argv
        from acp_tui.controller.controller import SessionController
        from acp_tui.launch import Launch

        class Yes:
            async def ask_permission(self, question):
                return question.request.options[0].option_id
            def permissions_waiting(self, count):
                pass

        class Quiet:
            def controller_event(self, event):
                pass

        async def main():
            launch = Launch(tuple(demo_argv()), "demo", {"ACP_TUI_DEMO_SPEED": "0"}, Path(sys.argv[1]), "auto",
                            None, None, 20, ())
            ctl = SessionController(launch, asker=Yes(), listener=Quiet(), transcripts=False)
            assert await ctl.start()
            ctl.submit("edit")
            for _ in range(1000):
                await asyncio.sleep(0.02)
                if ctl.state.turn >= 1 and not ctl.busy:
                    break
            await ctl.shutdown()
            assert ctl.state.turn >= 1
            assert "textual" not in sys.modules and "rich" not in sys.modules, sorted(sys.modules)
            print("ok")

        asyncio.run(main())
    """)
    env = {**os.environ, "ACP_TUI_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


async def test_a_hundred_thousand_replayed_updates_open_through_the_controller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: a 100,000-update history is replayed, recorded and reported without a per-update event."""
    from acp_tui.controller.controller_events import SessionOpened

    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    agent = AGENTS_DIR / "rpc_v2_agent.py"
    launch = Launch(
        agent_argv=(sys.executable, str(agent)),
        agent_name="rpc-v2",
        env={},
        cwd=tmp_path,
        protocol="auto",
        theme=None,
        log_path=None,
        init_timeout=20,
        warnings=(),
    )
    events = ControllerEvents()
    ctl = SessionController(launch, asker=ScriptedUser([]), listener=events)
    try:
        assert await ctl.start()
        before = len(events)
        assert await ctl.sessions.open_session("replay-100000")
        assert ctl.sessions.current_session_id == "replay-100000"
        assert any(isinstance(e, SessionOpened) for e in events[before:])
        assert len(events) - before < 1_000  # progress is throttled: no event per replayed update
        assert sum(1 for key in ctl.state.entities if key[0] == USER_MESSAGE) == 1_000
    finally:
        await ctl.shutdown()


async def test_a_hung_initialize_names_the_option_that_gives_more_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hung-init message did not say how to give a slow agent longer."""
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    hang = make_launch([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path, init_timeout=0.3)
    events = ControllerEvents()
    ctl = SessionController(hang, asker=ScriptedUser([]), listener=events)
    try:
        assert not await ctl.start()
    finally:
        await ctl.shutdown()
    [line] = [text for text in notes(events) if "did not answer initialize" in text]
    assert "--init-timeout SECONDS, or init_timeout in config.toml" in line and line.endswith(
        "press Ctrl-R to restart it"
    )
