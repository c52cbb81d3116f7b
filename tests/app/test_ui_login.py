"""The login dialogs (docs/protocol.md §2.4): choose a method, confirm a program, type a key in a masked field.

Agent text is inert data (markup literal, escapes gone); keys do nothing until the dialog is armed (the
permission dialog's typing guard); a masked value never shows and is a secret from the moment it is
submitted. Snapshots pin 80×24 and 160×50 with acp-dark; regenerate with `pytest --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from acp_tui import secrets
from acp_tui.protocol.auth import LoginVariable, TerminalLogin, decode_auth_methods
from acp_tui.services.auth import KeyEntry, LoginRequest, SecretRequest, TerminalCommand
from acp_tui.ui.dialogs.login import LoginScreen, SecretScreen, TerminalLoginScreen
from acp_tui.ui.themes import load_shipped_themes
from acp_tui.ui.widgets.icons import EXTRA_THEME_VARIABLES
from tests.support.login import terminal_command
from tests.support.wait import until
from tests.support.widgets import screen_text

ARM = 0.2
#: For a test that must act before a dialog arms (a press and a render can take ARM on a loaded machine).
SLOW_ARM = 1.0
KEY = "sk-proj-typed-into-the-mask-1234"

CLAUDE_METHODS = [  # what Claude's ACP adapter 0.101.0 lists once terminal auth is advertised (v2)
    {
        "description": "Use Claude subscription ",
        "name": "Claude Subscription",
        "type": "terminal",
        "args": ["--cli", "auth", "login", "--claudeai"],
        "methodId": "claude-ai-login",
    },
    {
        "description": "Use Anthropic Console (API usage billing)",
        "name": "Anthropic Console",
        "type": "terminal",
        "args": ["--cli", "auth", "login", "--console"],
        "methodId": "console-login",
    },
]
MIXED_METHODS: list[dict[str, Any]] = [
    {"type": "agent", "methodId": "browser", "name": "Log in with a browser", "description": "Opens your browser"},
    *CLAUDE_METHODS[:1],
    {
        "type": "env_var",
        "methodId": "openai-api-key",
        "name": "Use OPENAI_API_KEY",
        "vars": [{"name": "OPENAI_API_KEY"}],
    },
    {"type": "_carrier_pigeon", "methodId": "pigeon", "name": "Send a pigeon"},
]


def login_request(methods: list[dict[str, Any]], **changes: Any) -> LoginRequest:
    fields: dict[str, Any] = {
        "agent": "Claude Agent",
        "reason": "Authentication required",
        "methods": decode_auth_methods(methods, 2),
    }
    fields.update(changes)
    return LoginRequest(**fields)


class DialogApp(App[None]):
    """A conversation-like scroller under the dialog, themed like the real app."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[Any] = []
        for theme in load_shipped_themes():
            self.register_theme(theme)
        self.theme = "acp-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **EXTRA_THEME_VARIABLES}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="chat"):
            for n in range(60):
                yield Static(f"conversation line {n}")

    def ask(self, screen: ModalScreen[Any]) -> ModalScreen[Any]:
        self.push_screen(screen, callback=self.results.append)
        return screen


async def wait_for(pilot: Pilot[None], condition: Any, what: str) -> None:
    await until(condition, what, pilot=pilot)


@pytest.fixture(autouse=True)
def _clean_secrets() -> Iterator[None]:
    secrets.clear()
    yield
    secrets.clear()


# -- the method list ----------------------------------------------------------------------------------------


async def test_methods_are_listed_by_name_and_description_and_chosen_by_number() -> None:
    app = DialogApp()
    async with app.run_test(size=(120, 40)) as pilot:
        # A generous delay: the render and the key before arming must land within it on a loaded machine.
        screen = app.ask(
            LoginScreen(
                login_request(MIXED_METHODS, failure="Log in with a browser: denied (-32603)"), arm_delay=SLOW_ARM
            )
        )
        assert isinstance(screen, LoginScreen)
        await pilot.pause()
        text = screen_text(app)
        for shown in (
            "Claude Agent needs you to log in",
            "Authentication required",
            "✗ Log in with a browser: denied",
            "1 Log in with a browser",
            "the agent logs you in",
            "Opens your browser",
            "2 Claude Subscription",
            "runs a program in this terminal",
            "Use Claude subscription",
            "3 Use OPENAI_API_KEY",
            "asks for OPENAI_API_KEY",
            "4 Set an API key for the agent",
            "✗ Send a pigeon — cannot be used: acp-tui does not know '_carrier_pigeon' logins",
        ):
            assert shown in text, shown
        await pilot.press("2")  # before arming: ignored (and restarts the count)
        await pilot.pause(ARM / 2)
        assert not app.results and not screen.armed
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        await pilot.press("2")
        await wait_for(pilot, lambda: app.results, "the choice")
        assert isinstance(app.results[0], TerminalLogin) and app.results[0].method_id == "claude-ai-login"


async def test_escape_is_not_now_and_arrows_then_enter_choose() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.ask(LoginScreen(login_request(CLAUDE_METHODS), arm_delay=ARM))
        assert isinstance(screen, LoginScreen)
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        assert screen.focused is None  # a stray Enter decides nothing
        await pilot.press("enter")
        await pilot.pause()
        assert not app.results
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: app.results, "the choice")
        assert getattr(app.results[0], "method_id", None) == "console-login"
        screen = app.ask(LoginScreen(login_request(CLAUDE_METHODS), arm_delay=ARM))
        assert isinstance(screen, LoginScreen)
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.results) == 2, "the dismissal")
        assert app.results[1] is None


async def test_the_key_entry_names_the_variable_the_agent_asked_for() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        request = login_request([], reason="OPENAI_API_KEY is missing", key_entry=KeyEntry("OPENAI_API_KEY"))
        screen = app.ask(LoginScreen(request, arm_delay=ARM))
        assert isinstance(screen, LoginScreen)
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        assert "1 Set OPENAI_API_KEY for the agent…" in screen_text(app)
        await pilot.press("1")
        await wait_for(pilot, lambda: app.results, "the choice")
        assert app.results == [KeyEntry("OPENAI_API_KEY")]


async def test_hostile_method_text_is_inert() -> None:
    hostile = [
        {
            "type": "agent",
            "methodId": "x",
            "name": "[bold red]Pay[/] [@click=app.quit]now[/]\x1b]0;t\x07",
            "description": "\x1b[2Jwipe\u202eevil [link=file:///etc/passwd]here[/link]",
        }
    ]
    app = DialogApp()
    async with app.run_test(size=(120, 30)) as pilot:
        request = login_request(hostile, agent="\x1b]52;c;aGk=\x07Agent [b]X[/b]", reason="no \x1b[31mred")
        screen = app.ask(LoginScreen(request, arm_delay=ARM))
        await wait_for(pilot, lambda: getattr(screen, "armed", False), "the dialog to arm")
        text = screen_text(app)
        assert "[bold red]Pay[/] [@click=app.quit]now[/]" in text
        assert "wipeevil [link=file:///etc/passwd]here[/link]" in text
        assert "Agent [b]X[/b] needs you to log in" in text and "no red" in text
        assert "\x1b" not in text and "\u202e" not in text


# -- the program to run -------------------------------------------------------------------------------------


async def test_the_terminal_method_is_shown_as_it_will_run() -> None:
    app = DialogApp()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.ask(TerminalLoginScreen(terminal_command(), arm_delay=ARM))
        assert isinstance(screen, TerminalLoginScreen)
        await pilot.press("y")  # before arming: ignored
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        assert not app.results
        text = screen_text(app)
        assert "$ node /opt/claude-agent-acp/dist/index.js --cli auth login --claudeai" in text
        assert "CLAUDE_LOGIN_MODE=subscription" in text and "/work/project" in text
        assert "PATH=" not in text  # only what the agent adds is listed
        await pilot.press("y")
        await wait_for(pilot, lambda: app.results, "the answer")
        assert app.results == [True]
        screen = app.ask(TerminalLoginScreen(terminal_command(), arm_delay=ARM))
        assert isinstance(screen, TerminalLoginScreen)
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.results) == 2, "the answer")
        assert app.results[1] is False


def hostile_terminal_command() -> TerminalCommand:
    """Issue 21.2, after the service built it: 80 harmless variables, PATH and LD_PRELOAD refused."""
    env = tuple((f"HARMLESS_{n:02d}", "x") for n in range(80)) + (
        ("PATH", "/tmp/agent"),
        ("LD_PRELOAD", "/tmp/agent/x.so"),
    )
    method = TerminalLogin("tui", "Log in", None, ("login", "--tty\x1b[2J"), env)
    return TerminalCommand(
        method,
        ("/usr/bin/agent", *method.args),
        {"PATH": "/usr/bin"},
        Path("/work/project"),
        refused_env=("PATH", "LD_PRELOAD"),
    )


async def test_a_long_terminal_command_scrolls_keeps_its_buttons_and_names_what_is_not_set() -> None:
    app = DialogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.ask(TerminalLoginScreen(hostile_terminal_command(), arm_delay=ARM))
        assert isinstance(screen, TerminalLoginScreen)
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        await pilot.pause()
        run = screen.query_one("#run", Button)
        assert screen.region.contains_region(run.region) and screen.buttons_visible
        hint = screen.query_one("#hint", Static)
        assert screen.region.contains_region(hint.region)
        text = screen_text(app)
        assert "⚠ Not set, although the agent asked: PATH, LD_PRELOAD" in text  # first, on screen
        assert "$ /usr/bin/agent login '--tty\\x1b[2J'" in text  # the control written out, never sent
        assert "PATH=/tmp/agent" not in text and "LD_PRELOAD=" not in text
        body = screen.query_one("#body")
        assert body.max_scroll_y > 0  # 80 variables scroll
        await pilot.press("y")
        await wait_for(pilot, lambda: app.results, "the answer")
        assert app.results == [True]


# -- the masked key -----------------------------------------------------------------------------------------


async def test_a_masked_value_never_shows_and_becomes_a_secret() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        request = SecretRequest(
            "Use OPENAI_API_KEY", (LoginVariable("OPENAI_API_KEY"),), link="https://example.test/keys"
        )
        screen = app.ask(SecretScreen(request, arm_delay=ARM))
        assert isinstance(screen, SecretScreen)
        await pilot.press("x")  # typed before arming: goes nowhere
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        field = screen.query_one(Input)
        assert field.value == "" and field.password and screen.focused is field
        await pilot.press(*KEY)
        text = screen_text(app)
        assert KEY not in text and "OPENAI_API_KEY" in text and "https://example.test/keys" in text
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results, "the values")
        assert app.results == [{"OPENAI_API_KEY": KEY}]
        assert secrets.is_secret(KEY)


async def test_the_key_entry_asks_for_a_name_and_checks_it() -> None:
    app = DialogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.ask(SecretScreen(SecretRequest("API key", suggested="GEMINI_API_KEY"), arm_delay=ARM))
        assert isinstance(screen, SecretScreen)
        await wait_for(pilot, lambda: screen.armed, "the dialog to arm")
        name, value = screen.query(Input).results(Input)
        assert name.value == "GEMINI_API_KEY" and not name.password and value.password
        await wait_for(pilot, lambda: screen.focused is value, "the value focused (the name is already there)")
        await pilot.press("enter")
        await pilot.pause()
        assert not app.results and "is empty" in screen_text(app)
        await pilot.press(*KEY, "enter")
        await wait_for(pilot, lambda: app.results, "the values")
        assert app.results == [{"GEMINI_API_KEY": KEY}]
        screen = app.ask(SecretScreen(SecretRequest("API key"), arm_delay=ARM))
        await wait_for(pilot, lambda: getattr(screen, "armed", False), "the dialog to arm")
        await pilot.press(*"BAD NAME", "tab", *KEY, "enter")
        await pilot.pause()
        assert len(app.results) == 1 and "letters, digits and _" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.results) == 2, "the dismissal")
        assert app.results[1] is None


# -- snapshots ------------------------------------------------------------------------------------------------


async def _open_login(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, DialogApp)
    screen = app.ask(
        LoginScreen(
            login_request(MIXED_METHODS, failure="Claude Subscription: it exited with status 1"), arm_delay=0.05
        )
    )
    await wait_for(pilot, lambda: getattr(screen, "armed", False), "the dialog to arm")


async def _open_terminal(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, DialogApp)
    screen = app.ask(TerminalLoginScreen(terminal_command(), arm_delay=0.05))
    await wait_for(pilot, lambda: getattr(screen, "armed", False), "the dialog to arm")


async def _open_secret(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, DialogApp)
    screen = app.ask(SecretScreen(SecretRequest("API key", suggested="OPENAI_API_KEY"), arm_delay=0.05))
    await wait_for(pilot, lambda: getattr(screen, "armed", False), "the dialog to arm")
    await pilot.press(*KEY)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_snapshot_login(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(DialogApp(), terminal_size=size, run_before=_open_login)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_snapshot_terminal_login(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(DialogApp(), terminal_size=size, run_before=_open_terminal)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_snapshot_secret(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(DialogApp(), terminal_size=size, run_before=_open_secret)


# -- the command palette --------------------------------------------------------------------------------------


async def test_the_palette_offers_log_in_and_log_out() -> None:
    from textual.screen import Screen

    from acp_tui.ui.dialogs.login import LoginCommands

    class Chat(Screen[None]):
        COMMANDS = {LoginCommands}

        def __init__(self) -> None:
            super().__init__()
            self.ran: list[str] = []

        def compose(self) -> ComposeResult:
            yield Static("chat")

        def action_log_in(self) -> None:
            self.ran.append("log_in")

        def action_log_out(self) -> None:
            self.ran.append("log_out")

    class PaletteApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(Chat())

    app = PaletteApp()
    async with app.run_test(size=(100, 30)) as pilot:
        chat = app.screen
        assert isinstance(chat, Chat)
        for typed, action in (("log in", "log_in"), ("log out", "log_out")):
            app.action_command_palette()
            await pilot.pause()
            await pilot.press(*typed)
            await wait_for(pilot, lambda: "Log" in screen_text(app), "the palette's hits")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await wait_for(pilot, lambda: action in chat.ran, f"{action} to run")
        assert chat.ran == ["log_in", "log_out"]
