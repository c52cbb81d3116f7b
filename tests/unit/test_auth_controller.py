"""Logging in through the session controller, no UI (docs/protocol.md §2.4): a fake agent that needs a login.

`tests/support/agents/auth_agent.py` answers `session/new` (or a prompt, or its idle) with -32000 until the user
logs in; a scripted user picks methods, confirms programs and types keys. Every frame the client sends
validates against the official schema of the negotiated version (the hybrid `initialize` against v2).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from acp_tui import secrets
from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import ControllerEvent, Note, Waiting
from acp_tui.launch import Launch
from acp_tui.protocol.auth import AgentLogin, EnvVarLogin, TerminalLogin, UnsupportedLogin
from acp_tui.services.auth import KeyEntry, LoginChoice, LoginRequest, SecretRequest, TerminalCommand, TerminalOutcome
from acp_tui.services.files import OutsideRead, OutsideWrite
from acp_tui.services.permission import PermissionQuestion
from acp_tui.session.model import AGENT_MESSAGE, USER_MESSAGE, Message
from acp_tui.transcript import render_markdown
from tests.support.agents import AGENTS_DIR
from tests.support.askers import NoElicitation
from tests.support.controller import ControllerEvents
from tests.support.schema_check import validate_client_message

pytestmark = pytest.mark.timeout(60)

AGENT = AGENTS_DIR / "auth_agent.py"

AGENT_METHOD_V1 = {"id": "agent-login", "name": "Log in with a browser", "description": "Opens your browser"}
AGENT_METHOD_V2 = {
    "type": "agent",
    "methodId": "agent-login",
    "name": "Log in with a browser",
    "description": "Opens your browser",
}
TERMINAL_V1 = {
    "type": "terminal",
    "id": "tui-login",
    "name": "Log in in the terminal",
    "args": ["--cli", "login", "--fast"],
    "env": {"AUTH_AGENT_MODE": "tui"},
}
TERMINAL_V2 = {
    "type": "terminal",
    "methodId": "tui-login",
    "name": "Log in in the terminal",
    "args": ["--cli", "login", "--fast"],
    "env": [{"name": "AUTH_AGENT_MODE", "value": "tui"}],
}
ENV_VAR = {
    "type": "env_var",
    "id": "openai-api-key",
    "name": "Use OPENAI_API_KEY",
    "vars": [{"name": "OPENAI_API_KEY"}],
}
UNKNOWN_V2 = {"type": "_carrier_pigeon", "methodId": "pigeon", "name": "Send a pigeon"}
KEY = "sk-test-4f9c2a7e1b3d5f60"


@dataclass
class User(NoElicitation):
    """A scripted user: what to pick in each login dialog, whether to run programs, which keys to type."""

    choices: list[str | None] = field(default_factory=list)  # method id, "key", or None (not now)
    run: bool = True
    values: dict[str, str] = field(default_factory=dict)
    asked: list[LoginRequest] = field(default_factory=list)
    confirmed: list[TerminalCommand] = field(default_factory=list)
    secrets_asked: list[SecretRequest] = field(default_factory=list)

    async def ask_permission(self, question: PermissionQuestion) -> str | None:
        return None

    def permissions_waiting(self, count: int) -> None:
        pass

    async def confirm_outside_write(self, write: OutsideWrite) -> bool:
        return False

    async def confirm_outside_read(self, read: OutsideRead) -> bool:
        return False

    async def choose_login(self, request: LoginRequest) -> LoginChoice | None:
        self.asked.append(request)
        wanted = self.choices.pop(0) if self.choices else None
        if wanted == "key":
            return request.key_entry
        if wanted is None:
            return None  # not now (never a listed-only row whose id is None)
        return next((m for m in request.methods if getattr(m, "method_id", None) == wanted), None)

    async def confirm_terminal_login(self, command: TerminalCommand) -> bool:
        self.confirmed.append(command)
        return self.run

    async def ask_secrets(self, request: SecretRequest) -> dict[str, str] | None:
        self.secrets_asked.append(request)
        for value in self.values.values():
            secrets.register(value)  # what the masked field does
        return dict(self.values) or None

    async def run_terminal_login(self, command: TerminalCommand) -> TerminalOutcome:
        """The stand-in for the real terminal: the program runs (no TTY), its exit status counts."""
        done = await asyncio.to_thread(
            subprocess.run, list(command.argv), env=dict(command.env), cwd=command.cwd, capture_output=True, check=False
        )
        return TerminalOutcome(done.returncode)


@dataclass
class Run:
    ctl: SessionController
    user: User
    events: list[ControllerEvent]
    record: Path
    state: Path
    version: int

    def notes(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, Note)]

    def received(self) -> list[dict[str, Any]]:
        """Every frame the agent received from us (across restarts)."""
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines() if line.strip()]

    def methods_sent(self) -> list[str]:
        return [m["method"] for m in self.received() if "method" in m]

    def validate_frames(self) -> int:
        frames = self.received()
        for msg in frames:
            validate_client_message(msg, 2 if msg.get("method") == "initialize" else self.version)
        return len(frames)

    def answers(self) -> list[str]:
        return [
            "".join(e.text for e in [entity])
            for key, entity in self.ctl.state.entities.items()
            if key[0] == AGENT_MESSAGE and isinstance(entity, Message)
        ]

    async def until(self, condition: Callable[[], object], what: str, timeout: float = 20) -> None:
        for _ in range(int(timeout / 0.02)):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}; notes: {self.notes()}")


@pytest.fixture(autouse=True)
def _private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ACP_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    secrets.clear()
    yield
    secrets.clear()  # the registry is process-wide: no test leaves a secret behind


RunFactory = Callable[..., Run]


@pytest.fixture
async def make(tmp_path: Path) -> AsyncIterator[RunFactory]:
    runs: list[Run] = []

    def build(script: dict[str, Any], user: User, *, log: Path | None = None, transcripts: bool = False) -> Run:
        record, state = tmp_path / "record.jsonl", tmp_path / "state.json"
        script = {"record": str(record), "state": str(state), **script}
        path = tmp_path / "script.json"
        path.write_text(json.dumps(script))
        launch = Launch(
            agent_argv=(sys.executable, str(AGENT), str(path)),
            agent_name="auth-agent",
            env={},
            cwd=tmp_path,
            protocol="auto",
            theme=None,
            log_path=log,
            init_timeout=20,
            warnings=(),
        )
        events = ControllerEvents()
        ctl = SessionController(launch, asker=user, listener=events, transcripts=transcripts)
        run = Run(ctl, user, events, record, state, int(script.get("version", 2)))
        runs.append(run)
        return run

    yield build
    for run in runs:
        await run.ctl.shutdown()


# -- the capability and the first contact ------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
async def test_terminal_auth_is_advertised_in_each_schemas_shape(make: RunFactory, version: int) -> None:
    run = make({"version": version, "auth_methods": [], "require": "prompt"}, User())
    assert await run.ctl.start()
    init = run.received()[0]["params"]
    assert init["capabilities"]["auth"] == {"terminal": {}}
    assert init["clientCapabilities"]["auth"] == {"terminal": True}
    validate_client_message(run.received()[0], 2)
    validate_client_message(
        {
            **run.received()[0],
            "params": {k: v for k, v in init.items() if k in ("protocolVersion", "clientInfo", "clientCapabilities")},
        },
        1,
    )


@pytest.mark.parametrize("version", [1, 2])
async def test_agent_method_logs_in_then_the_session_opens_and_the_prompt_is_answered(
    make: RunFactory, version: int
) -> None:
    method = AGENT_METHOD_V2 if version == 2 else AGENT_METHOD_V1
    run = make({"version": version, "auth_methods": [method]}, User(["agent-login"]))
    assert await run.ctl.start()
    [request] = run.user.asked
    assert [m.method_id for m in request.offered if not isinstance(m, UnsupportedLogin)] == ["agent-login"]
    assert request.reason is not None and "Authentication required" in request.reason
    login = "auth/login" if version == 2 else "authenticate"
    assert run.methods_sent() == ["initialize", "session/new", login, "session/new"]
    assert [m for m in run.received() if m.get("method") == login][0]["params"] == {"methodId": "agent-login"}
    assert any(note.startswith("logged in: Log in with a browser") for note in run.notes())
    run.ctl.submit("hello")
    await run.until(lambda: "echo: hello" in run.answers(), "the answer")
    assert run.validate_frames() >= 5


@pytest.mark.parametrize("version", [1, 2])
async def test_a_failed_login_is_shown_and_the_list_offered_again(make: RunFactory, version: int) -> None:
    method = AGENT_METHOD_V2 if version == 2 else AGENT_METHOD_V1
    run = make(
        {"version": version, "auth_methods": [method], "login_failures": {"agent-login": 1}},
        User(["agent-login", "agent-login"]),
    )
    assert await run.ctl.start()
    first, second = run.user.asked
    assert first.failure is None
    assert second.failure is not None and "the browser window was closed" in second.failure
    assert any("login failed" in note and "browser window was closed" in note for note in run.notes())
    login = "auth/login" if version == 2 else "authenticate"
    assert run.methods_sent().count(login) == 2
    run.validate_frames()


async def test_not_logging_in_stops_the_agent_with_a_clear_line(make: RunFactory) -> None:
    run = make({"version": 2, "auth_methods": [AGENT_METHOD_V2]}, User([None]))
    assert not await run.ctl.start()
    assert run.ctl.stopped
    assert any("not logged in" in note and "Ctrl-R" in note for note in run.notes())
    assert "auth/login" not in run.methods_sent()
    await run.until(
        lambda: run.ctl.session is not None and run.ctl.session.connection.exit_info is not None,
        "the agent to be stopped",
    )


async def test_no_methods_no_dialog_and_never_login_or_logout(make: RunFactory) -> None:
    run = make({"version": 2, "auth_methods": []}, User(["anything"]))
    assert not await run.ctl.start()
    assert not run.user.asked
    assert any("log in with the agent's own command" in note for note in run.notes())
    sent = run.methods_sent()
    assert "auth/login" not in sent and "auth/logout" not in sent


# -- terminal methods ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
async def test_terminal_method_runs_the_agent_program_then_restarts(
    make: RunFactory, version: int, tmp_path: Path
) -> None:
    method = TERMINAL_V2 if version == 2 else TERMINAL_V1
    run = make({"version": version, "auth_methods": [method]}, User(["tui-login"]))
    assert await run.ctl.start()
    [command] = run.user.confirmed
    assert command.argv[-3:] == ("--cli", "login", "--fast")
    assert command.argv[:3] == run.ctl.launch.agent_argv
    assert command.added_env == (("AUTH_AGENT_MODE", "tui"),)
    state = json.loads(run.state.read_text())
    assert state["terminal_args"] == ["login", "--fast"] and state["terminal_env"] == {"AUTH_AGENT_MODE": "tui"}
    assert Path(state["terminal_cwd"]).resolve() == tmp_path.resolve()
    sent = run.methods_sent()
    assert "authenticate" not in sent and "auth/login" not in sent  # never for a terminal method
    assert sent == ["initialize", "session/new", "initialize", "session/new"]  # a fresh agent after the login
    assert any("restarting the agent" in note for note in run.notes())
    run.ctl.submit("after login")
    await run.until(lambda: "echo: after login" in run.answers(), "the answer")
    run.validate_frames()


async def test_terminal_method_that_fails_is_shown_and_nothing_runs_without_consent(make: RunFactory) -> None:
    run = make(
        {"version": 2, "auth_methods": [TERMINAL_V2], "terminal_exit": 3}, User(["tui-login", "tui-login", None])
    )
    run.user.run = True
    assert not await run.ctl.start()
    first, second, third = run.user.asked
    assert second.failure is not None and "exited with status 3" in second.failure
    assert len(run.user.confirmed) == 2
    # declining the confirmation runs nothing and shows the list again
    run2_user = User(["tui-login", None], run=False)
    run.ctl.asker = run2_user
    run.state.unlink()
    assert not await run.ctl.restart()
    assert len(run2_user.confirmed) == 1 and len(run2_user.asked) == 2
    assert not run.state.exists()  # the program never ran


def _hostile_terminal_method(trap: Path) -> TerminalLogin:
    """Issue 21.2: 80 harmless variables, then ones that choose the program or what it loads."""
    env = [(f"HARMLESS_{n:02d}", "x") for n in range(80)]
    env += [
        ("PATH", str(trap)),
        ("LD_PRELOAD", str(trap / "evil.so")),
        ("PYTHONSTARTUP", str(trap / "x.py")),
        ("NODE_OPTIONS", "--require /tmp/x.js"),
        ("DYLD_INSERT_LIBRARIES", "x"),
        ("GIT_SSH_COMMAND", "x"),
        ("HOME", str(trap)),
        ("LOGIN_MODE", "tui"),
    ]
    return TerminalLogin("tui", "Log in", None, ("-c", "import os; print(os.environ.get('LOGIN_MODE'))"), tuple(env))


def test_a_terminal_method_cannot_choose_the_program_or_what_it_loads(tmp_path: Path) -> None:
    from acp_tui.services.auth import AuthService

    trap = tmp_path / "agents-folder"
    trap.mkdir()
    (trap / "python3").write_text("#!/bin/sh\necho trapped\n")
    (trap / "python3").chmod(0o755)
    user_path = os.environ.get("PATH", os.defpath)
    service = AuthService(User(), agent_name="a", agent_argv=("python3",), cwd=tmp_path)
    command = service.terminal_command(_hostile_terminal_method(trap), {"PATH": user_path, "HOME": "/home/me"})
    assert isinstance(command, TerminalCommand)
    expected = shutil.which("python3", path=user_path)
    assert expected is not None and command.argv[0] == os.path.abspath(expected)  # the user's PATH, absolute
    assert command.refused_env == (
        "PATH",
        "LD_PRELOAD",
        "PYTHONSTARTUP",
        "NODE_OPTIONS",
        "DYLD_INSERT_LIBRARIES",
        "GIT_SSH_COMMAND",
        "HOME",
    )
    assert command.env["PATH"] == user_path and command.env["HOME"] == "/home/me"
    assert not any(name in command.env for name in ("LD_PRELOAD", "PYTHONSTARTUP", "NODE_OPTIONS"))
    assert dict(command.added_env) == {**{f"HARMLESS_{n:02d}": "x" for n in range(80)}, "LOGIN_MODE": "tui"}
    # what runs is what is shown
    done = subprocess.run(
        list(command.argv), env=dict(command.env), cwd=command.cwd, capture_output=True, text=True, check=False
    )
    assert done.stdout.split() == ["tui"]  # the real python3, not the agent's folder's


def test_a_terminal_program_not_on_the_users_path_is_not_run(tmp_path: Path) -> None:
    from acp_tui.services.auth import AuthService

    service = AuthService(User(), agent_name="a", agent_argv=("acp-tui-no-such-program",), cwd=tmp_path)
    trap = tmp_path / "agents-folder"
    trap.mkdir()
    (trap / "acp-tui-no-such-program").write_text("#!/bin/sh\n")
    (trap / "acp-tui-no-such-program").chmod(0o755)
    method = TerminalLogin("tui", "Log in", None, (), (("PATH", str(trap)),))
    why = service.terminal_command(method, {"PATH": "/nonexistent"})
    assert why == "acp-tui-no-such-program was not found on your PATH"


# -- environment-variable methods and keys -------------------------------------------------------------------


async def test_env_var_method_restarts_the_agent_with_the_key(make: RunFactory) -> None:
    run = make(
        {"version": 1, "auth_methods": [ENV_VAR], "env_key": "OPENAI_API_KEY"},
        User(["openai-api-key"], values={"OPENAI_API_KEY": KEY}),
    )
    assert await run.ctl.start()
    [asked] = run.user.secrets_asked
    assert [v.name for v in asked.variables] == ["OPENAI_API_KEY"]
    assert run.methods_sent() == ["initialize", "session/new", "initialize", "session/new"]
    assert "OPENAI_API_KEY" not in os.environ  # for the agent's process only
    assert secrets.is_secret(KEY)
    assert not any(KEY in note for note in run.notes())


async def test_env_var_method_authenticates_when_the_fresh_agent_still_asks(make: RunFactory) -> None:
    run = make(
        {"version": 1, "auth_methods": [ENV_VAR], "env_key": "OPENAI_API_KEY", "env_needs_login": True},
        User(["openai-api-key"], values={"OPENAI_API_KEY": KEY}),
    )
    assert await run.ctl.start()
    assert len(run.user.asked) == 1  # the retry needed no second question
    assert run.methods_sent() == [
        "initialize",
        "session/new",
        "initialize",
        "session/new",
        "authenticate",
        "session/new",
    ]
    authenticate = [m for m in run.received() if m.get("method") == "authenticate"][0]
    assert authenticate["params"] == {"methodId": "openai-api-key"}
    run.validate_frames()


async def test_a_missing_key_the_agent_names_is_offered_without_methods(make: RunFactory) -> None:
    run = make(
        {
            "version": 2,
            "auth_methods": [],
            "env_key": "OPENAI_API_KEY",
            "message": "OPENAI_API_KEY is missing or not configured",
        },
        User(["key"], values={"OPENAI_API_KEY": KEY}),
    )
    assert await run.ctl.start()
    [request] = run.user.asked
    assert request.methods == () and request.key_entry == KeyEntry("OPENAI_API_KEY")
    assert run.user.secrets_asked[0].suggested == "OPENAI_API_KEY"
    assert "auth/login" not in run.methods_sent()


# -- a prompt that needs a login -----------------------------------------------------------------------------


@pytest.mark.parametrize("version,require", [(2, "prompt_idle"), (2, "prompt"), (1, "prompt")])
async def test_a_prompt_that_needs_a_login_is_sent_again_after_it(make: RunFactory, version: int, require: str) -> None:
    method = AGENT_METHOD_V2 if version == 2 else AGENT_METHOD_V1
    run = make({"version": version, "auth_methods": [method], "require": require}, User(["agent-login"]))
    assert await run.ctl.start()
    run.ctl.submit("what I typed")
    await run.until(lambda: "echo: what I typed" in run.answers(), "the prompt answered after the login")
    assert len(run.user.asked) == 1
    prompts = [m for m in run.received() if m.get("method") == "session/prompt"]
    assert [p["params"]["prompt"] for p in prompts] == [[{"type": "text", "text": "what I typed"}]] * 2
    assert "sending your prompt again" in run.notes()
    run.validate_frames()


@pytest.mark.parametrize("version,require", [(2, "prompt_idle"), (2, "prompt"), (1, "prompt")])
async def test_a_prompt_sent_again_after_a_login_shows_the_users_words_once(
    make: RunFactory, version: int, require: str
) -> None:
    """v2 idle error (Claude's adapter) and v1: the agent inserted the first try, so it holds two user messages;
    the repeat is marked and neither the conversation nor the Markdown shows the words twice. v2 refused: the
    refused try (never inserted) goes when the prompt is sent again."""
    method = AGENT_METHOD_V2 if version == 2 else AGENT_METHOD_V1
    run = make(
        {"version": version, "auth_methods": [method], "require": require}, User(["agent-login"]), transcripts=True
    )
    assert await run.ctl.start()
    run.ctl.submit("what I typed")
    await run.until(lambda: "echo: what I typed" in run.answers(), "the prompt answered after the login")
    state = run.ctl.state
    messages = [e for key, e in state.entities.items() if key[0] == USER_MESSAGE and isinstance(e, Message)]
    shown = [m.text for m in messages if m.resend_of is None] + [
        "".join(getattr(b, "text", "") for b in sub.blocks) for sub in state.submissions.values()
    ]
    assert shown == ["what I typed"]  # once: the first try's bubble, or the message the resend became
    if (version, require) == (2, "prompt"):
        assert len(messages) == 1 and not state.submissions  # refused before insertion: one message only
    else:
        first, again = messages  # the agent did insert two messages: the model keeps both, honestly
        assert again.resend_of == first.id and first.resend_of is None
    transcript = run.ctl.transcript.writer
    assert transcript is not None
    await run.ctl.shutdown()
    markdown = render_markdown(transcript.path)
    lines = markdown.splitlines()
    assert lines.count("what I typed") == 1 and lines.count("### User") == 1, markdown
    assert lines.index("what I typed") < lines.index("echo: what I typed")
    run.validate_frames()


async def test_a_prompt_waits_in_the_queue_when_the_user_does_not_log_in(make: RunFactory) -> None:
    run = make({"version": 2, "auth_methods": [AGENT_METHOD_V2], "require": "prompt"}, User([None]))
    assert await run.ctl.start()
    run.ctl.submit("keep me")
    await run.until(lambda: run.ctl.queue.items == ("keep me",), "the prompt back in the queue")
    assert run.ctl.queue.paused
    assert any("your prompt waits in the queue" in note for note in run.notes())


@pytest.mark.parametrize("version,require", [(2, "prompt_idle"), (2, "prompt"), (1, "prompt")])
async def test_a_login_the_agent_does_not_answer_is_cancelled_with_ctrl_c_and_the_prompt_waits(
    make: RunFactory, version: int, require: str
) -> None:
    method = AGENT_METHOD_V2 if version == 2 else AGENT_METHOD_V1
    login = "auth/login" if version == 2 else "authenticate"
    run = make(
        {"version": version, "auth_methods": [method], "require": require, "login_hangs": 1},
        User(["agent-login", "agent-login"]),
    )
    assert await run.ctl.start()
    run.ctl.submit("keep me")
    await run.until(lambda: login in run.methods_sent(), "the login request to reach the agent")
    assert run.ctl.login_pending and run.ctl.busy
    progress = [e.what for e in run.events if isinstance(e, Waiting) and e.what and e.what.startswith("logging in")]
    assert progress == ["logging in: Log in with a browser… · ^C cancel"]  # the status line says how to stop it
    assert run.ctl.cancel()  # Ctrl-C
    await run.until(lambda: run.ctl.queue.items == ("keep me",), "the prompt back in the queue")
    assert run.ctl.queue.paused and not run.ctl.login_pending and run.ctl.cancel_sent_at is None
    notes = run.notes()
    assert any(note.startswith("⊘ login cancelled") for note in notes)
    assert any("your prompt waits in the queue" in note and "command palette" in note for note in notes)
    [request] = [m for m in run.received() if m.get("method") == login]
    await run.until(lambda: "$/cancel_request" in run.methods_sent(), "the request withdrawn")
    [withdrawn] = [m for m in run.received() if m.get("method") == "$/cancel_request"]
    assert withdrawn["params"] == {"requestId": request["id"]}
    assert "session/cancel" not in run.methods_sent()  # a login is not a turn
    # the way back the note gives: log in from the palette, then Enter sends the prompt
    assert await run.ctl.logins.login()
    assert run.ctl.prompts.send_next()
    await run.until(lambda: "echo: keep me" in run.answers(), "the prompt answered after logging in")
    assert run.validate_frames() >= 6


async def test_terminal_login_during_a_conversation_restarts_resumes_and_resends(make: RunFactory) -> None:
    run = make({"version": 2, "auth_methods": [TERMINAL_V2], "require": "prompt_idle"}, User(["tui-login"]))
    run.state.write_text(json.dumps({"logged_in": True}))
    assert await run.ctl.start()
    run.ctl.submit("first question")
    await run.until(lambda: "echo: first question" in run.answers(), "the first answer")
    run.state.write_text(json.dumps({"logged_in": False}))  # the login ran out
    run.ctl.submit("second question")
    await run.until(lambda: "echo: second question" in run.answers(), "the answer after the restart")
    sent = run.methods_sent()
    assert sent.count("initialize") == 2 and "session/resume" in sent
    resume = [m for m in run.received() if m.get("method") == "session/resume"][0]
    assert resume["params"]["sessionId"] == "auth-session-1"
    run.validate_frames()


async def test_a_first_prompt_the_agent_kept_goes_to_a_new_session_after_the_login(make: RunFactory) -> None:
    """Claude's adapter inserts the prompt, then fails the turn: resumed, its session held the prompt and the
    resend added it again (the model answered "hello hello"). With nothing else in it, a new session takes it."""
    run = make({"version": 2, "auth_methods": [TERMINAL_V2], "require": "prompt_idle"}, User(["tui-login"]))
    assert await run.ctl.start()
    run.ctl.submit("hello")
    await run.until(lambda: "echo: hello" in run.answers(), "the answer after the restart")
    sent = run.methods_sent()
    assert sent.count("initialize") == 2 and "session/resume" not in sent
    assert sent.count("session/new") == 2 and sent.count("session/prompt") == 2  # the failed try, and once after
    assert any("a new session takes it" in note for note in run.notes())
    run.validate_frames()


# -- the palette's login and logout -----------------------------------------------------------------------------


async def test_login_from_the_palette_and_logout_v2(make: RunFactory) -> None:
    run = make(
        {"version": 2, "auth_methods": [AGENT_METHOD_V2, UNKNOWN_V2], "require": "prompt"}, User(["agent-login"])
    )
    assert await run.ctl.start()
    assert await run.ctl.logins.login()
    [request] = run.user.asked
    assert isinstance(request.methods[1], UnsupportedLogin) and request.methods[1].type == "_carrier_pigeon"
    assert [type(m) for m in request.offered] == [AgentLogin]
    assert await run.ctl.logins.logout()
    assert run.methods_sent()[-2:] == ["auth/login", "auth/logout"]
    assert [m for m in run.received() if m.get("method") == "auth/logout"][0]["params"] == {}
    assert any(note.startswith("logged out") for note in run.notes())
    run.validate_frames()


@pytest.mark.parametrize("capability", [True, False])
async def test_v1_logout_only_when_advertised(make: RunFactory, capability: bool) -> None:
    run = make(
        {"version": 1, "auth_methods": [AGENT_METHOD_V1], "require": "prompt", "logout_capability": capability}, User()
    )
    assert await run.ctl.start()
    assert await run.ctl.logins.logout() is capability
    assert ("logout" in run.methods_sent()) is capability
    if not capability:
        assert any("offers no way to log out" in note for note in run.notes())
    run.validate_frames()


async def test_logout_is_never_sent_without_methods(make: RunFactory) -> None:
    run = make({"version": 2, "auth_methods": [], "require": "prompt"}, User())
    assert await run.ctl.start()
    assert not await run.ctl.logins.logout()
    assert not await run.ctl.logins.login()  # the key entry is offered; the scripted user declines
    assert "auth/logout" not in run.methods_sent() and "auth/login" not in run.methods_sent()


# -- hostile method names --------------------------------------------------------------------------------------


async def test_hostile_method_text_is_data(make: RunFactory) -> None:
    hostile = {
        "type": "agent",
        "methodId": "evil",
        "name": "[bold red]Pay[/] \x1b]52;c;aGk=\x07now\u202e",
        "description": "\x1b[2J[link=file:///etc]x[/link]",
    }
    run = make(
        {
            "version": 2,
            "auth_methods": [hostile],
            "login_failures": {"evil": 1},
            "message": "denied \x1b]0;title\x07[b]x[/b]",
        },
        User(["evil", None]),
    )
    assert not await run.ctl.start()
    failure = run.user.asked[1].failure
    assert failure is not None and "\x1b" not in failure and "\u202e" not in failure
    assert "[bold red]Pay[/]" in failure  # markup stays literal text
    for note in run.notes():
        assert "\x1b" not in note and "\x07" not in note and "\u202e" not in note


# -- a flood of methods (issue 21: hostile agent) ---------------------------------------------------------------


async def test_ten_thousand_methods_and_a_megabyte_name_are_cut_before_anything_sees_them(make: RunFactory) -> None:
    """10,000 `authMethods` and a 1 MB name stalled start-up ~20 s at 640 MB; the name buried the others."""
    from acp_tui.protocol.auth import MAX_AUTH_METHODS, MAX_AUTH_NAME

    flood = [{"type": "agent", "methodId": f"m{i}", "name": f"Method {i}"} for i in range(10_000)]
    flood[0] = {"type": "agent", "methodId": "m0", "name": "N" * 1_000_000, "description": "d" * 1_000_000}
    run = make({"version": 2, "auth_methods": flood}, User([None]))
    assert not await run.ctl.start()
    [request] = run.user.asked
    assert len(request.methods) == MAX_AUTH_METHODS + 1
    first = request.methods[0]
    assert isinstance(first, AgentLogin)
    assert first.name == "N" * MAX_AUTH_NAME + f"… (name cut at {MAX_AUTH_NAME} characters)"
    assert first.description is not None and first.description.endswith("(description cut at 1,000 characters)")
    more = request.methods[-1]
    assert isinstance(more, UnsupportedLogin) and more.name == f"… {10_000 - MAX_AUTH_METHODS:,} more methods not shown"
    assert more not in request.offered
    session = run.ctl.session
    assert session is not None and session.init is not None and isinstance(session.init.auth_methods, list)
    assert len(session.init.auth_methods) == MAX_AUTH_METHODS + 1  # the raw list is bounded too
    assert all(len(note) < 20_000 for note in run.notes())  # "not logged in: … (names)" stays a line


# -- decoding -------------------------------------------------------------------------------------------------


def test_auth_methods_decode_tolerantly_in_both_versions() -> None:
    from acp_tui.protocol.auth import decode_auth_methods

    v1 = decode_auth_methods(
        [
            AGENT_METHOD_V1,
            TERMINAL_V1,
            ENV_VAR,
            {"type": "agent", "id": "a2", "name": "A2"},
            {"type": "weird", "id": "w", "name": "W"},
            {"name": "no id"},
            7,
        ],
        1,
    )
    assert v1[0] == AgentLogin("agent-login", "Log in with a browser", "Opens your browser")
    assert v1[1] == TerminalLogin(
        "tui-login", "Log in in the terminal", None, ("--cli", "login", "--fast"), (("AUTH_AGENT_MODE", "tui"),)
    )
    assert isinstance(v1[2], EnvVarLogin) and v1[2].variables[0].name == "OPENAI_API_KEY" and v1[2].variables[0].secret
    assert v1[3] == AgentLogin("a2", "A2")
    assert isinstance(v1[4], UnsupportedLogin) and v1[4].raw == {"type": "weird", "id": "w", "name": "W"}
    assert isinstance(v1[5], UnsupportedLogin) and "malformed" in v1[5].why
    assert isinstance(v1[6], UnsupportedLogin)
    v2 = decode_auth_methods([AGENT_METHOD_V2, TERMINAL_V2, UNKNOWN_V2], 2)
    assert v2[0] == AgentLogin("agent-login", "Log in with a browser", "Opens your browser")
    assert isinstance(v2[1], TerminalLogin) and v2[1].env == (("AUTH_AGENT_MODE", "tui"),)
    assert isinstance(v2[2], UnsupportedLogin) and v2[2].method_id == "pigeon" and "_carrier_pigeon" in v2[2].why
    assert decode_auth_methods(None, 2) == () and decode_auth_methods({"x": 1}, 1) == ()


def test_a_terminal_method_that_cannot_be_shown_as_it_runs_is_refused() -> None:
    from acp_tui.protocol.auth import MAX_TERMINAL_ARGS, MAX_TERMINAL_TEXT, decode_auth_methods

    hidden = {**TERMINAL_V2, "args": ["login", "--x\u202e"]}
    control = {**TERMINAL_V2, "args": ["login\x1b[2J"]}
    bad_env = {**TERMINAL_V2, "env": [{"name": "A=B", "value": "1"}]}
    many = {**TERMINAL_V2, "args": ["a"] * (MAX_TERMINAL_ARGS + 1)}  # cutting them would change what runs
    long = {**TERMINAL_V2, "args": ["a" * (MAX_TERMINAL_TEXT + 1)]}
    for method in decode_auth_methods([hidden, control, bad_env, many, long], 2):
        assert isinstance(method, UnsupportedLogin) and method.type == "terminal"


def test_bounding_the_methods_twice_changes_nothing() -> None:
    from acp_tui.protocol.auth import MAX_AUTH_METHODS, bound_auth_methods, decode_auth_methods

    raw = [{"type": "agent", "methodId": f"m{i}", "name": "x" * 500} for i in range(MAX_AUTH_METHODS + 3)]
    once = bound_auth_methods(raw)
    assert bound_auth_methods(once) == once and len(once) == MAX_AUTH_METHODS + 1
    assert decode_auth_methods(once, 2) == decode_auth_methods(raw, 2)
    assert bound_auth_methods(raw[:2]) == [{**m, "name": "x" * 200 + "… (name cut at 200 characters)"} for m in raw[:2]]


# -- Gemini CLI: four methods, and a key it does not name ------------------------------------------------------


@pytest.mark.timeout(120)
async def test_gemini_cli_missing_key_is_set_through_the_key_entry(tmp_path: Path) -> None:
    from tests.support.peer_gemini import ensure_gemini_cli, gemini_env
    from tests.support.peers import PeerUnavailable

    try:
        argv = ensure_gemini_cli()
    except PeerUnavailable as exc:
        pytest.fail(f"Gemini CLI is unavailable: {exc}")
    env = gemini_env(tmp_path / "home", 9)
    env.pop("GEMINI_API_KEY")
    env.pop("GOOGLE_GEMINI_BASE_URL")  # with a base URL of its own it needs no key; without, it asks
    log = tmp_path / "wire.log"
    launch = Launch(
        agent_argv=tuple(argv),
        agent_name="gemini",
        env=env,
        cwd=tmp_path,
        protocol="auto",
        theme=None,
        log_path=log,
        init_timeout=60,
        warnings=(),
    )
    user = User(["key"], values={"GEMINI_API_KEY": KEY})
    events = ControllerEvents()
    ctl = SessionController(launch, asker=user, listener=events, transcripts=False)
    try:
        assert await ctl.start(), [e.text for e in events if isinstance(e, Note)]
        [request] = user.asked
        assert request.reason is not None and "API key is missing" in request.reason
        assert [m.method_id for m in request.methods if isinstance(m, AgentLogin)] == [
            "oauth-personal",
            "gemini-api-key",
            "vertex-ai",
            "gateway",
        ]  # `_meta` hints never required
        assert request.key_entry == KeyEntry("GEMINI_API_KEY")  # the message names none: the method's hint does
        assert ctl.session is not None and ctl.session.session_id is not None
    finally:
        await ctl.shutdown()
    frames = [json.loads(line)["msg"] for line in log.read_text().splitlines() if json.loads(line)["dir"] == "->"]
    assert [f.get("method") for f in frames] == ["initialize", "session/new", "initialize", "session/new"]
    for frame in frames:
        validate_client_message(frame, 2 if frame.get("method") == "initialize" else 1)
    assert KEY not in log.read_text()


#: Gemini CLI 0.61.0's `initialize` authMethods, as its bundle (tests/.peers/gemini-cli-0.61.0, `initialize`) sends them.
GEMINI_METHODS: list[dict[str, Any]] = [
    {"id": "oauth-personal", "name": "Log in with Google", "description": "Log in with your Google account"},
    {
        "id": "gemini-api-key",
        "name": "Gemini API key",
        "description": "Use an API key with Gemini Developer API",
        "_meta": {"api-key": {"provider": "google"}},
    },
    {"id": "vertex-ai", "name": "Vertex AI", "description": "Use an API key with Vertex AI GenAI API"},
    {
        "id": "gateway",
        "name": "AI API Gateway",
        "description": "Use a custom AI API Gateway",
        "_meta": {"gateway": {"protocol": "google", "restartRequired": "false"}},
    },
]


def test_an_agent_method_wanting_a_key_names_its_variable() -> None:
    from acp_tui.protocol.auth import ApiKeyHint, decode_auth_methods

    methods = decode_auth_methods(GEMINI_METHODS, 1)
    assert [m.api_key for m in methods if isinstance(m, AgentLogin)] == [
        None,
        ApiKeyHint("GEMINI_API_KEY", "google"),
        None,
        None,
    ]
    named = {"id": "k", "name": "K", "_meta": {"api-key": {"provider": "acme", "env": "ACME_KEY"}}}
    unknown = {"id": "u", "name": "U", "_meta": {"api-key": True}}
    assert [m.api_key for m in decode_auth_methods([named, unknown], 1) if isinstance(m, AgentLogin)] == [
        ApiKeyHint("ACME_KEY", "acme"),
        ApiKeyHint(None, None),
    ]


async def test_the_gemini_api_key_method_asks_for_its_variable_and_restarts_instead_of_saying_logged_in() -> None:
    """Issue 22: `authenticate` with gemini-api-key answered "logged in", and the same error came back."""
    from acp_tui.protocol.auth import LoginVariable, decode_auth_methods
    from acp_tui.services.auth import AuthService, LoginAttempt, RestartNeeded

    async def request(method: str, params: Any) -> object:
        raise AssertionError(f"{method} must not be sent before the key is set")

    user = User(["gemini-api-key"], values={"GEMINI_API_KEY": KEY})
    service = AuthService(user, agent_name="gemini", agent_argv=("gemini", "--acp"), cwd=Path("/"))
    attempt = LoginAttempt("API key is missing", decode_auth_methods(GEMINI_METHODS, 1), request, {})
    outcome = await service.log_in(attempt)
    assert outcome == RestartNeeded(
        "GEMINI_API_KEY set for the agent; restarting it", {"GEMINI_API_KEY": KEY}, "gemini-api-key"
    )
    [asked] = user.secrets_asked
    assert asked.variables == (LoginVariable("GEMINI_API_KEY"),)
    assert secrets.is_secret(KEY)


@pytest.mark.timeout(120)
async def test_gemini_cli_api_key_method_sets_the_key_and_restarts(tmp_path: Path) -> None:
    from tests.support.peer_gemini import ensure_gemini_cli, gemini_env
    from tests.support.peers import PeerUnavailable

    try:
        argv = ensure_gemini_cli()
    except PeerUnavailable as exc:
        pytest.fail(f"Gemini CLI is unavailable: {exc}")
    env = gemini_env(tmp_path / "home", 9)
    env.pop("GEMINI_API_KEY")
    env.pop("GOOGLE_GEMINI_BASE_URL")
    log = tmp_path / "wire.log"
    launch = Launch(
        agent_argv=tuple(argv),
        agent_name="gemini",
        env=env,
        cwd=tmp_path,
        protocol="auto",
        theme=None,
        log_path=log,
        init_timeout=60,
        warnings=(),
    )
    user = User(["gemini-api-key"], values={"GEMINI_API_KEY": KEY})
    events = ControllerEvents()
    ctl = SessionController(launch, asker=user, listener=events, transcripts=False)
    try:
        assert await ctl.start(), [e.text for e in events if isinstance(e, Note)]
        assert len(user.asked) == 1  # not the same error again
        assert [v.name for v in user.secrets_asked[0].variables] == ["GEMINI_API_KEY"]
        assert ctl.session is not None and ctl.session.session_id is not None
    finally:
        await ctl.shutdown()
    frames = [json.loads(line)["msg"] for line in log.read_text().splitlines() if json.loads(line)["dir"] == "->"]
    assert [f.get("method") for f in frames][:4] == ["initialize", "session/new", "initialize", "session/new"]
    for frame in frames:
        validate_client_message(frame, 2 if frame.get("method") == "initialize" else 1)
    assert KEY not in log.read_text()


# -- the TypeScript SDK example agents: terminal auth advertised, no methods listed ---------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize("which,protocol", [("dual_version_agent", "auto"), ("dual_version_agent", 1), ("agent", 1)])
async def test_sdk_agents_list_no_methods_so_login_and_logout_are_never_sent(
    tmp_path: Path, ts_sdk_peers: Any, which: str, protocol: Any
) -> None:
    log = tmp_path / "wire.log"
    launch = Launch(
        agent_argv=tuple(getattr(ts_sdk_peers, which)),
        agent_name="sdk",
        env={},
        cwd=tmp_path,
        protocol=protocol,
        theme=None,
        log_path=log,
        init_timeout=30,
        warnings=(),
    )
    user = User()
    events = ControllerEvents()
    ctl = SessionController(launch, asker=user, listener=events, transcripts=False)
    try:
        assert await ctl.start()
        assert not await ctl.logins.logout()
        assert not await ctl.logins.login()  # only the key entry is offered; the scripted user declines
        assert [request.methods for request in user.asked] == [()]
        version = ctl.session.version if ctl.session is not None else None
    finally:
        await ctl.shutdown()
    frames = [json.loads(line)["msg"] for line in log.read_text().splitlines() if json.loads(line)["dir"] == "->"]
    sent = [f.get("method") for f in frames]
    assert not {"authenticate", "auth/login", "logout", "auth/logout"} & set(sent)
    assert version in (1, 2)
    for frame in frames:
        if "method" in frame:
            hybrid = frame["method"] == "initialize" and frame["params"]["protocolVersion"] == 2
            validate_client_message(frame, 2 if hybrid else version)
