"""Attention: bell and desktop notification only when the agent waits and the window is not focused."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.app import App

from acp_tui.config import parse_settings
from acp_tui.ui.chat.attention import COOLDOWN, Attention, desktop_protocol, notification_sequence


class FakeDriver:
    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, data: str) -> None:
        self.written.append(data)


class FakeApp:
    """The parts of a Textual app `Attention` uses, with a driver that records what is written."""

    def __init__(self, *, focused: bool = False, headless: bool = False) -> None:
        self.app_focus = focused
        self.is_headless = headless
        self.is_web = False
        self.bells = 0
        self._driver = FakeDriver()

    def bell(self) -> None:
        self.bells += 1

    @property
    def written(self) -> list[str]:
        return self._driver.written


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def attention(app: FakeApp, env: dict[str, str] | None = None, **kwargs: Any) -> tuple[Attention, Clock]:
    clock = Clock()
    return Attention(app, env=env if env is not None else {"TERM_PROGRAM": "iTerm.app"}, clock=clock, **kwargs), clock


def test_unfocused_waiting_rings_and_notifies() -> None:
    app = FakeApp()
    alert, _ = attention(app)
    assert alert.waiting("Claude asks permission to edit main.py")
    assert app.bells == 1
    assert app.written == ["\x1b]9;acp-tui: Claude asks permission to edit main.py\x07"]


def test_never_while_focused() -> None:
    app = FakeApp(focused=True)
    alert, _ = attention(app)
    assert not alert.waiting("a question") and not alert.turn_ended(60)
    assert app.bells == 0 and app.written == []


def test_off_by_setting() -> None:
    app = FakeApp()
    alert, _ = attention(app, enabled=False)
    assert not alert.waiting("a question")
    assert app.bells == 0 and app.written == []
    settings, warnings = parse_settings("attention = false\n", "config.toml")
    assert settings.attention is False and warnings == []
    assert parse_settings("", "config.toml")[0].attention is True
    settings, warnings = parse_settings('attention = "no"\n', "config.toml")
    assert settings.attention is True and "'attention' must be true or false" in warnings[0]


def test_a_short_turn_is_not_worth_a_notification() -> None:
    app = FakeApp()
    alert, _ = attention(app)
    assert not alert.turn_ended(3.0)
    assert alert.turn_ended(83.4)
    assert app.written == ["\x1b]9;acp-tui: The agent finished (took 1 min 23 s)\x07"]


def test_one_alert_per_cooldown() -> None:
    app = FakeApp()
    alert, clock = attention(app)
    assert alert.waiting("first")
    clock.now += COOLDOWN / 2
    assert not alert.waiting("second")
    clock.now += COOLDOWN
    assert alert.waiting("third")
    assert app.bells == 2


def test_bell_only_where_notifications_are_unknown_or_swallowed() -> None:
    for env in ({}, {"TERM": "xterm-256color"}, {"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-1/default,1,0"}):
        app = FakeApp()
        alert, _ = attention(app, env)
        assert alert.waiting("x")
        assert app.bells == 1 and app.written == []


def test_nothing_is_written_in_a_headless_run() -> None:
    app = FakeApp(headless=True)
    alert, _ = attention(app)
    assert alert.waiting("x") and app.written == []


@pytest.mark.parametrize(
    ("env", "protocol"),
    [
        ({"TERM_PROGRAM": "iTerm.app"}, "osc9"),
        ({"TERM_PROGRAM": "WezTerm"}, "osc9"),
        ({"TERM_PROGRAM": "ghostty", "TERM": "xterm-ghostty"}, "osc9"),
        ({"TERM": "xterm-kitty"}, "osc99"),
        ({"TERM": "foot"}, "osc777"),
        ({"TERM": "xterm-256color", "VTE_VERSION": "7600"}, "osc777"),
        ({"TERM": "xterm-256color"}, None),
        ({"TERM": "screen-256color", "STY": "123.pts-0"}, None),
        ({"TERM_PROGRAM": "Apple_Terminal"}, None),
    ],
)
def test_desktop_protocol_from_the_environment(env: dict[str, str], protocol: str | None) -> None:
    assert desktop_protocol(env) == protocol


HOSTILE = "[bold]x[/] \x1b]8;;https://evil\x07link\x1b]8;;\x07 \x1b]52;c;aGk=\x07 a;b\u202e\x9c\x07\nnext line"


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [
        ("osc9", "\x1b]9;acp-tui, x: [bold]x[/] link a;b next line\x07"),
        ("osc777", "\x1b]777;notify;acp-tui, x;[bold]x[/] link a;b next line\x07"),
        ("osc99", "\x1b]99;;acp-tui, x: [bold]x[/] link a;b next line\x1b\\"),
    ],
)
def test_hostile_text_cannot_escape_the_sequence(protocol: Any, expected: str) -> None:
    sequence = notification_sequence(protocol, "acp-tui; x", HOSTILE)
    assert sequence == expected
    inner = sequence[2:-2] if protocol == "osc99" else sequence[2:-1]
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in inner)
    assert "\u202e" not in sequence


def test_long_text_is_cut() -> None:
    sequence = notification_sequence("osc9", "t", "word " * 100)
    assert len(sequence) < 140 and sequence.endswith("…\x07")


async def test_follows_the_apps_focus_events() -> None:
    """With a real app: AppBlur makes it alert, AppFocus stops it (headless: nothing is written)."""
    app: App[None] = App()
    async with app.run_test() as pilot:
        clock = Clock()
        alert = Attention(app, env={"TERM_PROGRAM": "iTerm.app"}, clock=clock)
        assert not alert.waiting("x")  # focused
        app.post_message(events.AppBlur())
        await pilot.pause()
        assert alert.waiting("x")
        app.post_message(events.AppFocus())
        await pilot.pause()
        clock.now += COOLDOWN
        assert not alert.waiting("x")
