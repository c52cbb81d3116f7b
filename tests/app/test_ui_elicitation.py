"""The elicitation dialogs: the form (keyboard, inline validation, defaults, typing guard) and the URL.

Pilot tests drive each dialog over a themed host app; SVG snapshots pin both at 80×24 and 160×50,
dark and light (baselines in tests/app/__snapshots__/; regenerate with --snapshot-update and look at them).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import webbrowser
from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from acp_tui.services.elicitation import (
    Cancelled,
    Declined,
    FormAccepted,
    UrlAccepted,
)
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen, FieldRow
from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlScreen, open_in_browser
from tests.support.elicitation_form import EVERY_TYPE
from tests.support.elicitation_ui import Host, form_question, open_dialog, url_question
from tests.support.wait import until as wait_until

ARM = 0.1
HOSTILE = (
    "[bold red]Name[/] [@click=app.quit]q[/] \x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\ \x1b]52;c;aGk=\x07\u202eevil"
)


async def result(app: Host, pilot: Pilot[None]) -> Any:
    for _ in range(300):
        if app.results:
            return app.results[0]
        await pilot.pause(0.01)
    raise AssertionError("the dialog gave no result")


def recorder(opened: list[str]) -> Callable[[str], bool]:
    """An opener that records the URL and says no browser started (so nothing is opened)."""

    def opener(url: str) -> bool:
        opened.append(url)
        return False

    return opener


def row(screen: ElicitationFormScreen, name: str) -> FieldRow:
    return next(r for r in screen.rows if r.field.name == name)


# --- the form ------------------------------------------------------------------------------------------


async def test_keyboard_fills_in_and_enter_on_the_last_field_submits() -> None:
    question = form_question(
        {
            "name": {"type": "string", "title": "Name", "minLength": 1},
            "years": {"type": "integer", "minimum": 0},
            "ok": {"type": "boolean"},
            "branch": {"type": "string", "default": "main"},
        },
        ["name"],
    )
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(question, agent="Claude", arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        assert screen.focused is row(screen, "name").control  # armed: the first field takes the keys
        await pilot.press(*"Ada", "enter", *"36", "enter")  # Enter moves on
        assert isinstance(screen.focused, Checkbox)
        await pilot.press("space", "enter")  # space ticks, Enter moves on
        assert isinstance(screen.focused, Input) and screen.focused.value == "main"
        await pilot.press("enter")  # the last field: submit
        assert await result(app, pilot) == FormAccepted({"name": "Ada", "years": 36, "ok": True, "branch": "main"})


async def test_defaults_fill_in_and_an_untouched_form_submits_them() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(form_question(EVERY_TYPE), arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        assert screen.values["name"] == "Ada" and screen.values["size"] == "M" and screen.values["pets"] == ("dog",)
        assert row(screen, "subscribe").control.value is True  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        outcome = await result(app, pilot)
        assert outcome == FormAccepted({"name": "Ada", "rating": 4.5, "subscribe": True, "size": "M", "pets": ["dog"]})


async def test_inline_validation_on_leaving_a_field_and_while_fixing_it() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(
            form_question({"email": {"type": "string", "format": "email"}, "n": {"type": "number"}}), arm_delay=ARM
        )
        await open_dialog(app, pilot, screen)
        await pilot.press(*"ada", "tab")
        email = row(screen, "email")
        assert email.error is not None and email.error.startswith("Not an email address")
        assert email.has_class("-invalid")
        await pilot.press("shift+tab", *"@example.com")
        assert email.error is None and not email.has_class("-invalid")


async def test_submit_with_errors_shows_them_all_and_focuses_the_first() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(form_question(EVERY_TYPE, ["name", "langs", "email"]), arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        await pilot.press("ctrl+a", "ctrl+k", "ctrl+s")
        await pilot.pause()
        assert app.results == []
        assert [r.field.name for r in screen.rows if r.error] == ["name", "email", "langs"]
        assert screen.focused is row(screen, "name").control
        assert "3 fields to fix" in str(screen.query_one("#hint", Static).render())


@pytest.mark.parametrize(("keys", "expected"), [(["ctrl+n"], Declined()), (["escape"], Cancelled("dismissed"))])
async def test_decline_and_cancel_keys(keys: list[str], expected: Any) -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        await open_dialog(app, pilot, ElicitationFormScreen(form_question(EVERY_TYPE), arm_delay=ARM))
        await pilot.press(*keys)
        assert await result(app, pilot) == expected


async def test_decline_button() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(form_question(EVERY_TYPE), arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        await pilot.click(screen.query_one("#decline", Button))
        assert await result(app, pilot) == Declined()


async def test_select_and_selection_list_by_keyboard() -> None:
    question = form_question(
        {
            "colour": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
            "langs": {"type": "array", "items": {"type": "string", "enum": ["py", "rs", "go"]}},
        }
    )
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(question, arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        assert isinstance(screen.focused, Select)
        await pilot.press("enter", "down", "down", "enter")
        await pilot.pause()
        assert screen.values["colour"] == "g"
        await pilot.press("tab")
        assert isinstance(screen.focused, SelectionList)
        await pilot.press("space", "down", "down", "space")
        await pilot.pause()
        assert screen.values["langs"] == ("py", "go")
        await pilot.press("ctrl+s")
        assert await result(app, pilot) == FormAccepted({"colour": "g", "langs": ["py", "go"]})


async def test_keys_before_arming_are_ignored_and_typing_restarts_the_countdown() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(form_question(EVERY_TYPE), arm_delay=1.0)
        await open_dialog(app, pilot, screen, arm=False)
        assert "ignored" in str(screen.query_one("#hint", Static).render())
        loop = asyncio.get_running_loop()
        until = loop.time() + 1.6
        while loop.time() < until:
            await pilot.press("x", "tab", "enter", "escape", "ctrl+s")
            assert not screen.armed and app.results == []
            await pilot.pause(0.05)
        assert screen.focused is None and screen.values["name"] == "Ada"
        for _ in range(300):
            if screen.armed:
                break
            await pilot.pause(0.01)
        await pilot.press("escape")
        assert await result(app, pilot) == Cancelled("dismissed")


async def test_the_first_field_takes_the_keys_once_armed_and_keys_typed_before_are_owned_up_to() -> None:
    """Issue 22: v1 accepted `name: " 999"`, `subscribe: false` from a user who typed "Zed Tester", Space, "999"."""
    question = form_question(
        {
            "name": {"type": "string", "title": "Name"},
            "subscribe": {"type": "boolean", "title": "Subscribe", "default": True},
        }
    )
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(question, arm_delay=ARM)
        await open_dialog(app, pilot, screen, arm=False)
        await pilot.press(*"Zed")  # while arming: dropped, and the countdown restarts
        await until(pilot, lambda: screen.armed)
        hint = str(screen.query_one("#hint", Static).render())
        assert "3 keys typed before the form was ready went nowhere" in hint and "“Name”" in hint
        assert screen.focused is row(screen, "name").control
        await pilot.press(*"Zed Tester")
        assert screen.values == {"name": "Zed Tester", "subscribe": True}
        assert "went nowhere" not in str(screen.query_one("#hint", Static).render())  # typing clears the note
        await pilot.press("tab", "space", "ctrl+s")
        assert await result(app, pilot) == FormAccepted({"name": "Zed Tester", "subscribe": False})


async def test_close_because_answers_cancelled_once() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(form_question(EVERY_TYPE), arm_delay=ARM)
        await open_dialog(app, pilot, screen, arm=False)
        screen.close_because("the agent withdrew the question")
        assert await result(app, pilot) == Cancelled("the agent withdrew the question")
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert len(app.results) == 1


async def test_hostile_text_renders_literally_and_triggers_nothing() -> None:
    params_title = {"f": {"type": "string", "title": HOSTILE, "description": HOSTILE}}
    question = form_question(params_title)
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = ElicitationFormScreen(question, agent=HOSTILE, tool_call=HOSTILE, arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        head = str(screen.query_one(".field .head", Static).render())
        assert (
            head
            == "[bold red]Name[/] [@click=app.quit]q[/] link evil\n[bold red]Name[/] [@click=app.quit]q[/] link evil"
        )
        title = Content("Question from [bold red]Name[/] [@click=app.quit]q[/] link evil")
        assert screen.query_one("#dialog").border_title == title.markup
        context = str(screen.query_one("#context", Static).render())
        assert context == "For the tool call: [bold red]Name[/] [@click=app.quit]q[/] link evil"
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "aGk=" not in svg and "\u202e" not in svg
        await pilot.click(".field .head")
        await pilot.pause()
        assert app.is_running and app.results == []


async def test_two_hundred_fields_scroll_and_submit() -> None:
    properties = {f"f{n:03}": {"type": "string", "title": f"Field {n}", "default": str(n)} for n in range(200)}
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = ElicitationFormScreen(form_question(properties, list(properties)), arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        body = screen.query_one("#body", VerticalScroll)
        assert body.max_scroll_y > 100
        dialog = screen.query_one("#dialog")
        assert dialog.region.contains_region(screen.query_one("#submit").region)
        assert dialog.region.contains_region(screen.query_one("#hint").region)
        for _ in range(5):  # backwards past the buttons to the last field
            await pilot.press("shift+tab")
            if screen.focused is screen.rows[-1].control:
                break
        assert screen.focused is screen.rows[-1].control
        await pilot.pause()
        assert body.scroll_y > 100  # scrolled to the focused field
        await pilot.press("enter")
        outcome = await result(app, pilot)
        assert isinstance(outcome, FormAccepted) and len(outcome.content) == 200


async def test_tool_call_and_before_session_context() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(
            form_question(EVERY_TYPE), agent="Claude", tool_call="Fetch issues", arm_delay=ARM
        )
        await open_dialog(app, pilot, screen)
        assert str(screen.query_one("#context", Static).render()) == "For the tool call: Fetch issues"
        assert screen.query_one("#dialog").border_title == "Question from Claude"


# --- the URL dialog ----------------------------------------------------------------------------------------


async def test_open_runs_the_opener_in_a_thread_with_the_exact_url() -> None:
    opened: list[tuple[str, bool]] = []
    import threading

    def opener(url: str) -> bool:
        opened.append((url, threading.current_thread() is threading.main_thread()))
        return True

    url = "https://github.com/login/device?user_code=WDJB-MJHT"
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ElicitationUrlScreen(url_question(url), arm_delay=ARM, opener=opener)
        await open_dialog(app, pilot, screen)
        assert screen.focused is None
        await pilot.press("o")
        assert await result(app, pilot) == UrlAccepted("open")
        for _ in range(100):
            if opened:
                break
            await pilot.pause(0.01)
        assert opened == [(url, False)]


async def test_when_no_browser_opens_the_url_is_copied() -> None:
    url = "https://example.com/login"
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot, ElicitationUrlScreen(url_question(url), arm_delay=ARM, opener=lambda u: False))
        await pilot.press("o")
        assert await result(app, pilot) == UrlAccepted("open")
        for _ in range(100):
            if app.clipboard == url:
                break
            await pilot.pause(0.01)
        assert app.clipboard == url


@pytest.mark.parametrize(
    ("key", "expected"), [("c", UrlAccepted("copy")), ("d", Declined()), ("escape", Cancelled("dismissed"))]
)
async def test_copy_decline_cancel(key: str, expected: Any) -> None:
    opened: list[str] = []
    url = "https://example.com/a?b=c"
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot, ElicitationUrlScreen(url_question(url), arm_delay=ARM, opener=recorder(opened)))
        await pilot.press(key)
        assert await result(app, pilot) == expected
        assert opened == []  # never opened without being asked
        assert (app.clipboard == url) is (key == "c")


async def test_keys_before_arming_open_nothing() -> None:
    opened: list[str] = []
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ElicitationUrlScreen(url_question("https://example.com"), arm_delay=1.0, opener=recorder(opened))
        await open_dialog(app, pilot, screen, arm=False)
        await pilot.press("o", "c", "enter", "escape")
        await pilot.pause()
        assert app.results == [] and opened == [] and not screen.armed


@pytest.mark.parametrize(
    "url",
    [
        "https://good.example.com\u202e/moc.live",
        "https://example.com/\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\",
        "https://example.com/\x1b]52;c;aGk=\x07",
        "javascript:alert(1)",
    ],
)
async def test_hostile_urls_are_shown_inert_and_cannot_be_opened(url: str) -> None:
    opened: list[str] = []
    app = Host()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = ElicitationUrlScreen(url_question(url, HOSTILE), agent=HOSTILE, arm_delay=ARM, opener=recorder(opened))
        await open_dialog(app, pilot, screen)
        assert not screen.query("#open")
        svg = app.export_screenshot()
        # the URL is shown literally, its controls as visible escapes; none reaches the terminal
        assert not any(char in svg for char in "\x1b\x07\u202e")
        title = Content("Link from [bold red]Name[/] [@click=app.quit]q[/] link evil")
        assert screen.query_one("#dialog").border_title == title.markup  # plain text, escaped as markup
        assert "[bold red]Name[/]" in str(screen.query_one("#message", Static).render())
        await pilot.press("o")
        await pilot.pause()
        assert app.results == [] and opened == []
        await pilot.press("c")
        assert await result(app, pilot) == UrlAccepted("copy") and app.clipboard == url


async def test_the_host_is_shown_on_its_own_line() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ElicitationUrlScreen(url_question("https://user@xn--80ak6aa92e.com/x"), agent="Claude", arm_delay=ARM)
        await open_dialog(app, pilot, screen)
        host = str(screen.query_one("#host", Static).render())
        assert host == "Opens xn--80ak6aa92e.com  (written аррӏе.com)"
        warnings = " ".join(str(w.render()) for w in screen.query(".warning").results(Static))
        assert "international name" in warnings and "user name" in warnings
        assert screen.query_one("#dialog").border_title == "Link from Claude"


# --- opening safely -----------------------------------------------------------------------------------------


def test_open_in_browser_never_starts_a_console_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webbrowser, "get", lambda: webbrowser.GenericBrowser("lynx"))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("started a console browser"))
    assert open_in_browser("https://example.com") is False


def test_open_in_browser_runs_command_line_openers_detached_and_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(webbrowser, "get", lambda: webbrowser.BackgroundBrowser("xdg-open"))
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kwargs: calls.append((args, kwargs)))
    assert open_in_browser("https://example.com/?a=1;b") is True
    ((args, kwargs),) = calls
    assert args == ["xdg-open", "https://example.com/?a=1;b"]
    assert kwargs["stdout"] is kwargs["stderr"] is kwargs["stdin"] is subprocess.DEVNULL and kwargs["start_new_session"]


def test_open_in_browser_uses_other_launchers_and_survives_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    class Launcher(webbrowser.BaseBrowser):
        def __init__(self, ok: bool) -> None:
            super().__init__("launcher")
            self.ok = ok

        def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
            if not self.ok:
                raise OSError("broken")
            return True

    monkeypatch.setattr(webbrowser, "get", lambda: Launcher(True))
    assert open_in_browser("https://example.com") is True
    monkeypatch.setattr(webbrowser, "get", lambda: Launcher(False))
    assert open_in_browser("https://example.com") is False

    def no_browser() -> webbrowser.BaseBrowser:
        raise webbrowser.Error("none")

    monkeypatch.setattr(webbrowser, "get", no_browser)
    assert open_in_browser("https://example.com") is False


# --- snapshots ------------------------------------------------------------------------------------------


SIZES = [(80, 24), (160, 50)]
THEMES = ["acp-dark", "acp-light"]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_snapshot_form(snap_compare: Any, size: tuple[int, int], theme: str) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        question = form_question(EVERY_TYPE, ["name", "langs"], toolCallId="call-1")
        screen = ElicitationFormScreen(question, agent="Claude", tool_call="Configure the project", arm_delay=0.05)
        pilot.app.push_screen(screen)
        for _ in range(500):
            if screen.armed:
                break
            await pilot.pause(0.01)
        for field_input in screen.query(Input):
            field_input.cursor_blink = False  # a blinking cursor would make the picture depend on timing
        await pilot.press("ctrl+a", "ctrl+k", "tab", *"ada", "tab")  # two fields with errors shown
        await pilot.pause()

    assert snap_compare(Host(theme), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_snapshot_url(snap_compare: Any, size: tuple[int, int], theme: str) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        url = (  # the small one shows every warning; the large one a plain link that can be opened
            "https://user@xn--80ak6aa92e.com/login/oauth?client=acp-tui\u202e&next=%2Fsettings"
            if size == (80, 24)
            else "https://github.com/login/device?user_code=WDJB-MJHT"
        )
        screen = ElicitationUrlScreen(url_question(url), agent="Claude", arm_delay=0.05)
        pilot.app.push_screen(screen)
        for _ in range(500):
            if screen.armed:
                break
            await pilot.pause(0.01)
        await pilot.pause()

    assert snap_compare(Host(theme), terminal_size=size, run_before=run_before)


# --- the dialogs as the service's asker -----------------------------------------------------------------


class FakeAttention:
    def __init__(self) -> None:
        self.said: list[str] = []

    def waiting(self, what: str) -> bool:
        self.said.append(what)
        return True


async def test_dialogs_answer_a_form_and_say_which_tool_call() -> None:
    from acp_tui.ui.chat.elicitation_asker import ElicitationDialogs

    attention = FakeAttention()
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        dialogs = ElicitationDialogs(
            app,
            arm_delay=ARM,
            agent_name="Claude",
            tool_title={"call-1": "Configure"}.get,
            attention=attention,
        )
        task = asyncio.create_task(dialogs.ask_form(form_question(EVERY_TYPE, toolCallId="call-1")))
        for _ in range(300):
            if isinstance(app.screen, ElicitationFormScreen) and app.screen.armed:
                break
            await pilot.pause(0.01)
        screen = app.screen
        assert isinstance(screen, ElicitationFormScreen)
        assert str(screen.query_one("#context", Static).render()) == "For the tool call: Configure"
        assert attention.said == ["Claude asks you a question"]
        await pilot.press("ctrl+n")
        assert await asyncio.wait_for(task, 5) == Declined()


async def test_dialogs_close_when_the_question_is_withdrawn() -> None:
    from acp_tui.ui.chat.elicitation_asker import ElicitationDialogs

    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        dialogs = ElicitationDialogs(app, arm_delay=ARM)
        task = asyncio.create_task(dialogs.ask_url(url_question("https://example.com/login")))
        for _ in range(300):
            if isinstance(app.screen, ElicitationUrlScreen):
                break
            await pilot.pause(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(300):
            if not isinstance(app.screen, ElicitationUrlScreen):
                break
            await pilot.pause(0.01)
        assert not isinstance(app.screen, ElicitationUrlScreen)


async def test_a_refused_question_shows_why_and_the_raw_request() -> None:
    from acp_tui.protocol.elicitation import ElicitationSessionScope
    from acp_tui.services.elicitation import RefusedElicitation
    from acp_tui.ui.chat.elicitation_asker import ElicitationDialogs
    from acp_tui.ui.dialogs.elicitation_refused import ElicitationRefusedScreen

    raw = json.dumps({"message": HOSTILE, "requestedSchema": {"properties": {"a": {"type": "object"}}}}).encode()
    refusal = RefusedElicitation(
        7, HOSTILE, ("'a': a field of type 'object'",), ElicitationSessionScope(session_id="s"), raw
    )
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        ElicitationDialogs(app, arm_delay=ARM, agent_name="Claude").elicitation_refused(refusal)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ElicitationRefusedScreen) and not screen.raw_shown
        assert "'a': a field of type 'object'" in str(screen.query_one("#reasons", Static).render())
        await pilot.press("r")
        assert screen.raw_shown
        raw_text = str(screen.query_one("#raw", Static).render())
        assert '"type": "object"' in raw_text
        await pilot.press("pagedown")
        svg = app.export_screenshot()
        assert not any(char in svg for char in "\x1b\x07\u202e")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ElicitationRefusedScreen)


class PromptHost(App[None]):
    """A prompt under the dialogs: after every question the keys must reach it again."""

    def compose(self) -> ComposeResult:
        yield Input(id="prompt")

    def on_mount(self) -> None:
        self.query_one("#prompt", Input).focus()


async def until(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    await wait_until(condition, pilot=pilot)


@pytest.mark.parametrize("second_id", ["dup", "other"])
async def test_complete_closes_exactly_the_dialog_it_names_and_the_prompt_gets_the_keys_back(second_id: str) -> None:
    """Issue 21.3: a second link question (same or another id) on top, then `complete` for the first."""
    from acp_tui.services.elicitation import ElicitationService
    from acp_tui.ui.chat.elicitation_asker import ElicitationDialogs
    from tests.support.elicitation_service import Agent, url_params

    app = PromptHost()
    async with app.run_test(size=(100, 30)) as pilot:
        dialogs = ElicitationDialogs(app, arm_delay=ARM)
        service = ElicitationService(dialogs)
        agent = Agent(2, service, None)  # type: ignore[arg-type]  # the dialogs are the asker
        first = agent.ask(url_params("dup"))
        await until(pilot, lambda: isinstance(app.screen, ElicitationUrlScreen))
        lower = app.screen
        second = agent.ask(url_params(second_id))
        if second_id == "dup":  # refused at once; the first dialog stays and still answers
            assert (await agent.answer(second))["error"]["code"] == -32602
        else:
            await until(pilot, lambda: isinstance(app.screen, ElicitationUrlScreen) and app.screen is not lower)
        upper = app.screen
        agent.notify("elicitation/complete", {"elicitationId": "dup"})
        assert (await agent.answer(first))["result"] == {"action": "cancel"}
        await until(pilot, lambda: lower not in app.screen_stack)
        if second_id == "other":
            assert app.screen is upper  # the dialog on top stays, and still answers
            await until(pilot, lambda: isinstance(upper, ElicitationUrlScreen) and upper.armed)
            await pilot.press("d")
            assert (await agent.answer(second))["result"] == {"action": "decline"}
        await until(pilot, lambda: len(app.screen_stack) == 1)
        await pilot.press("h", "i")
        assert app.query_one("#prompt", Input).value == "hi"
        agent.validate_sent()
        await service.close()


async def test_a_key_the_user_typed_is_masked_in_the_link_dialog_and_the_link_cannot_be_opened() -> None:
    """Issue 21.9: the agent echoed a typed API key inside a link; the dialog showed it in clear."""
    from acp_tui import secrets
    from tests.support.widgets import screen_text

    key = "sk-typed-into-the-mask-4242"
    secrets.register(key)
    try:
        opened: list[str] = []
        url = f"https://collect.example.com/k?key={key}&next=%2F"
        app = Host()
        async with app.run_test(size=(120, 30)) as pilot:
            screen = ElicitationUrlScreen(url_question(url, message="Confirm"), arm_delay=ARM, opener=recorder(opened))
            await open_dialog(app, pilot, screen)
            text = screen_text(app)
            assert key not in text and f"key={secrets.REDACTED}&next" in text
            assert "contains a key you typed here" in text and "collect.example.com" in text
            await pilot.press("o")  # cannot be opened: that would hand the key over
            await pilot.pause()
            assert opened == [] and app.results == []
            await pilot.press("c")
            assert await result(app, pilot) == UrlAccepted("copy") and app.clipboard == url  # copied exactly
    finally:
        secrets.forget(key)
