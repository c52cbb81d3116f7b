"""Logging in inside the app (docs/protocol.md §2.4): the dialogs on the chat screen, a terminal login with
the TUI stepped aside, a key typed into a masked field that never reaches a file or the screen, and Claude's
ACP adapter listing its terminal login methods once acp-tui advertises terminal auth.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from textual.widgets import Input, Static

from acp_tui import secrets
from acp_tui.launch import Launch
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.login import LoginScreen, SecretScreen, TerminalLoginScreen, command_line
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.timeline.user_message import UserMessageView
from acp_tui.ui.widgets.stderr_panel import StderrPanel
from tests.support.agents import AGENTS_DIR
from tests.support.app_run import AppRun, project_dir
from tests.support.claude import serve_mock_model
from tests.support.peers import peer_env
from tests.support.wait import armed
from tests.support.widgets import screen_text, shown_text

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("private_dirs")]

AGENT = AGENTS_DIR / "auth_agent.py"
KEY = "sk-proj-never-shown-9f8e7d6c5b4a"


@pytest.fixture(autouse=True)
def _secrets() -> Iterator[None]:
    secrets.clear()
    yield
    secrets.clear()


def auth_launch(tmp_path: Path, script: dict[str, Any], *, log: Path | None = None) -> tuple[Launch, Path]:
    record = tmp_path / "record.jsonl"
    path = tmp_path / "auth-script.json"
    path.write_text(json.dumps({"record": str(record), "state": str(tmp_path / "auth-state.json"), **script}))
    launch = Launch(
        agent_argv=(sys.executable, str(AGENT), str(path)),
        agent_name="auth-agent",
        env={},
        cwd=project_dir(tmp_path),
        protocol="auto",
        theme=None,
        log_path=log,
        init_timeout=20,
        warnings=(),
    )
    return launch, record


async def dialog(run: AppRun, kind: type[Any]) -> Any:
    return await armed(run.pilot, kind, what=f"the {kind.__name__}")


def browser_login(version: int) -> dict[str, Any]:
    """An agent login method ("Log in with a browser") as each version spells it."""
    method: dict[str, Any] = {"name": "Log in with a browser"}
    method.update({"type": "agent", "methodId": "web"} if version == 2 else {"id": "web"})
    return method


@contextlib.contextmanager
def no_suspend() -> Iterator[None]:
    """The headless driver cannot hand the terminal over; the program runs all the same."""
    yield


@pytest.mark.parametrize("version", [2, 1])
async def test_terminal_login_from_the_dialog_then_the_prompt_is_answered(
    tmp_path: Path, version: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    method: dict[str, Any] = {"type": "terminal", "name": "Log in here", "args": ["--cli", "login"]}
    method.update({"methodId": "tui"} if version == 2 else {"id": "tui"})
    launch, record = auth_launch(tmp_path, {"version": version, "auth_methods": [method]})
    app = AcpApp(launch, arm_delay=0.05)
    monkeypatch.setattr(app, "suspend", no_suspend)
    async with app.run_test(size=(120, 40)) as pilot:
        run = AppRun(app, pilot, record)
        await dialog(run, LoginScreen)
        # named as `initialize` names the agent: v2 `info.title`, v1 `agentInfo.name` (no title there)
        assert f"{'Auth Agent' if version == 2 else 'auth-agent'} needs you to log in" in screen_text(app)
        await pilot.press("1")
        await dialog(run, TerminalLoginScreen)
        assert "--cli login" in shown_text(app.screen)  # the command line wraps where the clone's path decides
        await pilot.press("y")
        await run.ready()
        assert run.received("initialize") and len(run.received("initialize")) == 2  # restarted after the login
        assert not run.received("authenticate") and not run.received("auth/login")
        await run.send("hello after login")
        await run.idle()
        assert any("echo: hello after login" in view.text for view in run.views(AgentMessageView))


@pytest.mark.parametrize("version", [2, 1])
async def test_ctrl_c_cancels_a_login_the_agent_does_not_answer(tmp_path: Path, version: int) -> None:
    method = browser_login(version)
    login = "auth/login" if version == 2 else "authenticate"
    launch, record = auth_launch(
        tmp_path,
        {
            "version": version,
            "auth_methods": [method],
            "require": "prompt_idle" if version == 2 else "prompt",
            "login_hangs": 1,
        },
    )
    app = AcpApp(launch, arm_delay=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        run = AppRun(app, pilot, record)
        await run.ready()
        await run.send("keep me")
        await dialog(run, LoginScreen)
        await pilot.press("1")
        await run.wait(lambda: run.received(login), "the login request")
        await run.wait(lambda: "^C cancel" in (run.chat.status.values.waiting_label or ""), "how to cancel, shown")
        run.chat.prompt_input.focus()
        await pilot.press("ctrl+c")
        await run.wait(lambda: run.received("$/cancel_request"), "the login request withdrawn")
        assert run.received("$/cancel_request")[0]["params"] == {"requestId": run.received(login)[0]["id"]}
        await run.wait(lambda: run.chat.controller.queue.items == ("keep me",), "the prompt back in the queue")
        await run.wait(lambda: "login cancelled" in screen_text(app), "the line saying so")
        text = screen_text(app)
        assert "your prompt waits in the queue" in text and "command palette" in text
        assert not run.received("session/cancel")
        await run.wait(lambda: not run.chat.status.values.waiting_label, "the status line back to normal")
        assert not run.chat.controller.busy
        assert (
            run.chat.stop_keys.quit_armed_at is None
        )  # the Ctrl-C was the login's cancel, not a step towards quitting


@pytest.mark.parametrize("version", [2, 1])
async def test_ctrl_c_at_the_login_dialog_closes_it_and_leaves_nothing_cancelling(tmp_path: Path, version: int) -> None:
    method = browser_login(version)
    launch, record = auth_launch(
        tmp_path, {"version": version, "auth_methods": [method], "require": "prompt_idle" if version == 2 else "prompt"}
    )
    app = AcpApp(launch, arm_delay=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        run = AppRun(app, pilot, record)
        await run.ready()
        await run.send("keep me")
        await dialog(run, LoginScreen)
        await pilot.press("ctrl+c")
        await run.wait(lambda: not isinstance(app.screen, LoginScreen), "the login dialog closed")
        await run.wait(lambda: run.chat.controller.queue.items == ("keep me",), "the prompt back in the queue")
        await run.wait(lambda: "login cancelled" in screen_text(app), "the line saying so")
        controller = run.chat.controller
        await run.wait(lambda: not controller.busy, "nothing left working")
        assert controller.cancel_sent_at is None and not run.chat.status.values.cancelling
        assert run.chat.stop_keys.quit_armed_at is None
        assert not run.received("authenticate") and not run.received("auth/login")
        # the agent's turn had already ended (the failed prompt); there is nothing of it to cancel
        assert len(run.received("session/cancel")) == 0


@pytest.mark.parametrize("version,require", [(2, "prompt_idle"), (2, "prompt"), (1, "prompt")])
async def test_a_prompt_sent_again_after_the_login_dialog_shows_one_bubble(
    tmp_path: Path, version: int, require: str
) -> None:
    method = browser_login(version)
    launch, record = auth_launch(tmp_path, {"version": version, "auth_methods": [method], "require": require})
    app = AcpApp(launch, arm_delay=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        run = AppRun(app, pilot, record)
        await run.ready()
        await run.send("what I typed")
        await dialog(run, LoginScreen)
        await pilot.press("1")
        await run.wait(lambda: len(run.received("session/prompt")) == 2, "the prompt sent again")
        await run.wait(
            lambda: any("echo: what I typed" in view.text for view in run.views(AgentMessageView)),
            "the answer after the login",
        )
        await run.wait(lambda: not run.chat.pump.pending, "every event applied")
        await pilot.pause()
        bubbles = [view for view in run.views(UserMessageView) if view.display]
        assert [view.status_text for view in bubbles] == [""]  # one bubble, shown as sent
        assert screen_text(app).count("what I typed") == 2  # the bubble and the answer's echo


async def test_a_typed_key_never_reaches_a_file_the_screen_or_the_stderr_panel(tmp_path: Path) -> None:
    method = {
        "type": "env_var",
        "id": "openai-api-key",
        "name": "Use OPENAI_API_KEY",
        "vars": [{"name": "OPENAI_API_KEY"}],
    }
    log = tmp_path / "wire.log"
    launch, record = auth_launch(
        tmp_path, {"version": 1, "auth_methods": [method], "env_key": "OPENAI_API_KEY", "leak_key": True}, log=log
    )
    app = AcpApp(launch, arm_delay=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        run = AppRun(app, pilot, record)
        await dialog(run, LoginScreen)
        await pilot.press("1")
        screen = await dialog(run, SecretScreen)
        assert isinstance(screen.focused, Input) and screen.focused.password
        await pilot.press(*KEY)
        assert KEY not in screen_text(app)
        await pilot.press("enter")
        await run.ready()
        await run.send(f"my key is {KEY}, keep it safe")  # pasted into the prompt by mistake
        await run.idle()
        answers = " ".join(view.text for view in run.views(AgentMessageView))
        assert "your key is" in answers and KEY not in answers  # the agent echoed it; the screen shows dots
        run.chat.action_panel("stderr")
        await pilot.pause()
        panel = run.chat.query_one(StderrPanel)
        assert "using key" in screen_text(app) and KEY not in screen_text(app)
        assert panel is not None
        assert KEY not in app.export_screenshot()
        run.chat.action_panel("problems")
        await pilot.pause()
        assert KEY not in screen_text(app)
    assert "OPENAI_API_KEY" not in os.environ
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != record and "auth-script" not in p.name]
    assert log in written and any("transcript" in str(p) or p.suffix == ".md" for p in written), written
    for path in written:
        assert KEY.encode() not in path.read_bytes(), f"the key reached {path}"
    assert "using key" in log.read_text() and "your key is" in log.read_text()  # the echoes were logged, redacted
    transcripts = [p for p in written if p != log and "your key is" in p.read_text(errors="replace")]
    assert transcripts, "the transcript holds the agent's (redacted) answer"
    assert KEY in record.read_text()  # the prompt itself went to the agent unchanged


# -- Claude's ACP adapter -------------------------------------------------------------------------------------


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [2, 1], ids=["v2", "v1"])
async def test_claude_adapter_lists_its_terminal_logins_in_the_dialog(
    tmp_path: Path,
    claude_adapter: list[str],
    protocol: Literal[1, 2],
) -> None:
    home = tmp_path / "claude-home"
    env = {
        **peer_env(home),
        "IS_SANDBOX": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    }  # nothing listens: no model is ever reached
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        env.pop(name, None)
    launch = Launch(
        agent_argv=tuple(claude_adapter),
        agent_name="claude",
        env=env,
        cwd=project_dir(tmp_path),
        protocol=protocol,
        theme=None,
        log_path=None,
        init_timeout=60,
        warnings=(),
    )
    app = AcpApp(launch, arm_delay=0.05)
    async with app.run_test(size=(140, 45)) as pilot:
        run = AppRun(app, pilot, tmp_path / "no-record.jsonl")
        await run.wait(
            lambda: run.chat.controller.session is not None and run.chat.controller.session.session_id is not None,
            "the session",
            60,
        )
        session = run.chat.controller.session
        assert session is not None and session.init is not None
        methods = session.init.auth_methods
        assert isinstance(methods, list) and {m.get("type") for m in methods} == {"terminal"}
        await run.send("hello without a login")
        login = await dialog_within(run, LoginScreen, 60)
        text = screen_text(app)
        assert "Claude Subscription" in text and "Anthropic Console" in text
        assert "runs a program in this terminal" in text
        assert login.request.reason is not None
        await pilot.press("1")
        confirm = await dialog(run, TerminalLoginScreen)
        shown = str(confirm.query_one("#command", Static).render())  # unwrapped: the program's path may be long
        assert shown.endswith("--cli auth login --claudeai") and os.path.isabs(confirm.command.argv[0])
        assert shown == f"$ {command_line(confirm.command)}"
        await pilot.press("n")  # back: the real login never runs here
        await dialog(run, LoginScreen)
        await pilot.press("escape")
        await run.wait(lambda: run.chat.controller.queue.items, "the prompt back in the queue")
        assert [getattr(item, "text", item) for item in run.chat.controller.queue.items] == ["hello without a login"]


async def dialog_within(run: AppRun, kind: type[Any], timeout: float) -> Any:
    return await armed(run.pilot, kind, what=f"the {kind.__name__}", timeout=timeout)


@pytest.mark.timeout(240)
async def test_claude_without_a_key_suggests_its_variable_and_the_prompt_reaches_the_model_once(
    tmp_path: Path,
    claude_adapter: list[str],
) -> None:
    """Claude's adapter with no key: *Set an API key…* suggested OPENAI_API_KEY, and once the key was set the
    prompt reached the model twice ("You said: hello hello")."""
    with serve_mock_model(tmp_path) as port:
        home = tmp_path / "claude-home"
        env = {
            **peer_env(home),
            "IS_SANDBOX": "1",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        }
        for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
            env.pop(name, None)
        launch = Launch(
            agent_argv=("env", f"HOME={home}", *claude_adapter),  # as the report ran it: not by a catalogue name
            agent_name="env",
            env=env,
            cwd=project_dir(tmp_path),
            protocol=2,
            theme=None,
            log_path=tmp_path / "wire.log",
            init_timeout=60,
            warnings=(),
        )
        app = AcpApp(launch, arm_delay=0.05)
        async with app.run_test(size=(140, 45)) as pilot:
            run = AppRun(app, pilot, tmp_path / "no-record.jsonl")
            await run.wait(
                lambda: run.chat.controller.session is not None and run.chat.controller.session.session_id is not None,
                "the session",
                60,
            )
            await run.send("hello")
            login = await dialog_within(run, LoginScreen, 60)
            assert "Set ANTHROPIC_API_KEY for the agent…" in screen_text(app)
            assert "OPENAI_API_KEY" not in screen_text(app)
            await pilot.press(str(len(login.choices)))  # the client's own key entry comes last
            secret = await dialog(run, SecretScreen)
            assert secret.query_one("#name", Input).value == "ANTHROPIC_API_KEY"
            await pilot.press(*"sk-ant-dummy", "enter")
            await run.wait(
                lambda: any("You said" in view.text for view in run.views(AgentMessageView)), "the model's answer", 90
            )
            await run.wait(lambda: not run.chat.controller.busy and not run.chat.pump.pending, "the turn's end", 60)
            answer = next(view.text for view in run.views(AgentMessageView) if "You said" in view.text)
            assert answer.rstrip().endswith("You said: hello"), answer
            bubbles = [view for view in run.views(UserMessageView) if view.display]
            assert [view.text for view in bubbles] == ["hello"]  # the prompt shows once too
            app.save_screenshot(filename="login-resend.svg", path=str(tmp_path))
    asked = [json.loads(line)["body"] for line in (tmp_path / "model-requests.jsonl").read_text().splitlines()]
    [first, *_] = [body for body in asked if body.get("messages")]
    said = [
        block["text"].strip()
        for message in first["messages"]
        if message["role"] == "user"
        for block in (message["content"] if isinstance(message["content"], list) else [])
        if block.get("type") == "text" and not block["text"].startswith("<system-reminder>")
    ]
    assert said == ["hello"]  # the model got the prompt once
