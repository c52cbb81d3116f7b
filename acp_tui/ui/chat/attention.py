"""Getting the user's attention when the agent waits for them in a window they are not looking at.

When a permission, a question (elicitation) or a login is waiting, or a turn ends after more than a
few seconds, and the terminal window is not focused, `Attention` rings the terminal bell and, where
the terminal is known to show them, posts a desktop notification through the terminal itself:

* OSC 9 (`ESC ] 9 ; text BEL`): iTerm2, WezTerm, Ghostty;
* OSC 777 (`ESC ] 777 ; notify ; title ; body BEL`): foot, rxvt-unicode, VTE terminals that carry
  the notification patch (others ignore it);
* OSC 99 (`ESC ] 99 ; ; text ESC \\`): kitty.

Inside tmux or screen only the bell is used: they swallow these sequences unless told to pass them
through. Focus comes from Textual (`App.app_focus`, fed by the terminal's focus in/out reports);
a terminal that never reports focus counts as focused, so nothing rings needlessly. A conversation in a
hidden tab is not looked at even in a focused window, so its requests alert there too. Nothing happens
while the window is focused, nor when the `attention = false` setting turns it off, and at most one
alert goes out per `COOLDOWN` seconds so a burst of requests does not ring a dozen times.

The notification text is the agent's or the caller's words, so it is sanitised (`acp_tui.sanitize.plain`:
no controls can end the sequence early or start another), stripped of the separators the sequence
uses, and cut short. It is written through the app's driver like Textual's own OSC 52 clipboard
writes, between frames, and never in a headless or web run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Final, Literal, Protocol, TypeAlias, assert_never

from acp_tui.sanitize import plain

__all__ = ["Attention", "COOLDOWN", "DesktopProtocol", "TURN_THRESHOLD", "desktop_protocol", "notification_sequence"]

#: A turn that took longer than this (seconds) is worth a notification when it ends.
TURN_THRESHOLD: Final = 5.0
#: At most one alert per this many seconds.
COOLDOWN: Final = 2.0
#: Longest notification text, in characters.
MAX_TEXT: Final = 120

DesktopProtocol: TypeAlias = Literal["osc9", "osc777", "osc99"]

_OSC9_PROGRAMS: Final = frozenset({"iTerm.app", "WezTerm", "ghostty"})


def desktop_protocol(env: Mapping[str, str]) -> DesktopProtocol | None:
    """The notification sequence this terminal shows, judged from its environment; None when unknown."""
    if env.get("TMUX") or env.get("STY"):
        return None
    if env.get("TERM_PROGRAM", "") in _OSC9_PROGRAMS:
        return "osc9"
    term = env.get("TERM", "")
    if term == "xterm-kitty" or env.get("KITTY_WINDOW_ID"):
        return "osc99"
    if term.startswith(("foot", "rxvt-unicode")) or env.get("VTE_VERSION"):
        return "osc777"
    return None


def _short(text: str, limit: int = MAX_TEXT) -> str:
    """One line of safe text: no controls, collapsed spaces, at most `limit` characters."""
    line = " ".join(plain(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def notification_sequence(protocol: DesktopProtocol, title: str, body: str) -> str:
    """The escape sequence that posts `title` / `body` as a desktop notification."""
    title, body = _short(title, 40).replace(";", ","), _short(body)
    match protocol:
        case "osc9":
            return f"\x1b]9;{title}: {body}\x07"
        case "osc777":
            return f"\x1b]777;notify;{title};{body}\x07"
        case "osc99":
            return f"\x1b]99;;{title}: {body}\x1b\\"
        case _:
            assert_never(protocol)


class _Driver(Protocol):
    def write(self, data: str) -> None: ...


class AttentionApp(Protocol):
    """What `Attention` uses of the Textual app."""

    @property
    def app_focus(self) -> bool: ...

    @property
    def is_headless(self) -> bool: ...

    @property
    def is_web(self) -> bool: ...

    def bell(self) -> None: ...


class Attention:
    """Rings and notifies when the agent waits while the window is unfocused; see the module docstring.

    `Attention(app).waiting("Claude asks permission to edit main.py")` when a dialog opens;
    `.turn_ended(elapsed)` when a turn ends. Each returns whether it alerted.
    """

    def __init__(
        self,
        app: AttentionApp,
        *,
        enabled: bool = True,
        title: str = "acp-tui",
        env: Mapping[str, str] | None = None,
        turn_threshold: float = TURN_THRESHOLD,
        clock: Callable[[], float] = time.monotonic,
        looking: Callable[[], bool] = lambda: True,
    ) -> None:
        """`looking` says whether the user sees this conversation at all: a hidden tab's request alerts even
        while the window has the focus (the user is looking at another tab)."""
        self._app = app
        self._looking = looking
        self.enabled = enabled
        self.title = title
        self.protocol = desktop_protocol(os.environ if env is None else env)
        self.turn_threshold = turn_threshold
        self._clock = clock
        self._last: float | None = None

    def waiting(self, what: str) -> bool:
        """A permission, question or login is waiting for the user: alert if they are elsewhere."""
        return self._alert(what)

    def turn_ended(self, elapsed: float, what: str = "The agent finished") -> bool:
        """A turn ended after `elapsed` seconds: alert if it was long and the user is elsewhere."""
        if elapsed <= self.turn_threshold:
            return False
        return self._alert(f"{what} ({_duration(elapsed)})")

    def _alert(self, body: str) -> bool:
        if not self.enabled or (self._app.app_focus and self._looking()):
            return False
        now = self._clock()
        if self._last is not None and now - self._last < COOLDOWN:
            return False
        self._last = now
        self._app.bell()
        if self.protocol is not None:
            self._write(notification_sequence(self.protocol, self.title, body))
        return True

    def _write(self, sequence: str) -> None:
        """Through the driver, as `App.copy_to_clipboard` does; never in a headless or web run."""
        if self._app.is_headless or self._app.is_web:
            return
        driver: _Driver | None = getattr(self._app, "_driver", None)
        if driver is not None:
            driver.write(sequence)


def _duration(seconds: float) -> str:
    whole = int(round(seconds))
    minutes, secs = divmod(whole, 60)
    if minutes == 0:
        return f"took {secs} s"
    if minutes < 60:
        return f"took {minutes} min {secs} s" if secs else f"took {minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"took {hours} h {minutes} min"
