"""The session's title as the terminal window's title (docs/protocol.md §10.5), safely.

The title is the agent's text, so it is data: `plain` removes escape sequences whole, then every
character that is not printable goes too, so nothing the agent wrote can end our OSC string or start
another sequence. Written as OSC 2 through Textual's driver (no public API; Textual writes its OSC 52
clipboard sequence the same way). The terminal's own title is saved first (XTWINOPS 22) and restored
on the way out (23); terminals without a title stack ignore both. Headless runs (tests) write nothing.
"""

from __future__ import annotations

from typing import Protocol
from weakref import WeakKeyDictionary

from acp_tui.sanitize import plain

#: Longer titles are cut: a window title is a label.
TITLE_LIMIT = 80
_SAVE = "\x1b[22;2t"
_RESTORE = "\x1b[23;2t"


class _Driver(Protocol):
    def write(self, data: str) -> None: ...


def window_title(title: str | None, agent: str) -> str | None:
    """`title — agent` with nothing unprintable left; None when there is no title to show."""
    clean = _printable(title or "")
    if not clean:
        return None
    name = _printable(agent)
    text = f"{clean} — {name}" if name else clean
    return text if len(text) <= TITLE_LIMIT else text[: TITLE_LIMIT - 1] + "…"


def osc_title(text: str) -> str:
    """The OSC 2 sequence that sets the window title to `text` (made printable again, to be sure)."""
    return f"\x1b]2;{_printable(text)}\x1b\\"


def _printable(text: str) -> str:
    return "".join(ch for ch in plain(text) if ch.isprintable()).strip()


class WindowTitle:
    """Sets and restores the terminal window title for one app."""

    def __init__(self) -> None:
        self._saved = False
        self._current: str | None = None

    def show(self, driver: _Driver | None, title: str | None, agent: str) -> None:
        """Show the session title (None: give the terminal its own title back)."""
        text = window_title(title, agent)
        if driver is None or text == self._current:
            return
        if text is None:
            self.restore(driver)
            return
        if not self._saved:
            driver.write(_SAVE)
            self._saved = True
        driver.write(osc_title(text))
        self._current = text

    def restore(self, driver: _Driver | None) -> None:
        """The terminal's own title again (on quit, or for an untitled session)."""
        if driver is not None and self._saved:
            driver.write(_RESTORE)
        self._saved = False
        self._current = None


_TITLES: WeakKeyDictionary[object, WindowTitle] = WeakKeyDictionary()


def title_for(app: object) -> WindowTitle:
    """The window title of one app (one terminal)."""
    title = _TITLES.get(app)
    if title is None:
        title = _TITLES[app] = WindowTitle()
    return title


def show_window_title(app: object, title: str | None, agent: str) -> None:
    """Show a session's title as the window title of the app's terminal."""
    title_for(app).show(app_driver(app), title, agent)


def restore_window_title(app: object) -> None:
    """Give the terminal its own title back (on quit)."""
    title_for(app).restore(app_driver(app))


def app_driver(app: object) -> _Driver | None:
    """The app's terminal driver, or None when there is no real terminal (headless, web)."""
    if getattr(app, "is_headless", True) or getattr(app, "is_web", False):
        return None
    driver = getattr(app, "_driver", None)
    return driver if driver is not None and hasattr(driver, "write") else None


__all__ = [
    "TITLE_LIMIT",
    "WindowTitle",
    "app_driver",
    "osc_title",
    "restore_window_title",
    "show_window_title",
    "title_for",
    "window_title",
]
