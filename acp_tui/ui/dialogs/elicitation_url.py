"""The elicitation URL dialog: where the agent wants to send the user, shown so it cannot deceive.

A `ModalScreen[UrlOutcome]` over a `UrlQuestion` (docs/protocol.md §10.1). The host is shown on its
own line and highlighted inside the full URL; every invisible, bidirectional or control character
of the URL is written out as an escape (`elicitation_url.describe_url`), never sent to the terminal
and never made a terminal hyperlink. Nothing opens by itself: `o` opens it in the system browser,
`c` copies it (OSC 52), `d` declines, Escape cancels. Opening is offered only when the URL is a
plain http(s) address with a host; anything else can still be copied.

Opening runs in a thread (`open_in_browser`) after the dialog has closed. Console browsers (lynx,
w3m, ...), which would take over this terminal, are never started; command-line openers (`xdg-open`,
`$BROWSER`) are started detached with their output discarded so they cannot scribble over the TUI.
When no browser can be started the URL is copied instead and the app says so.

The same typing guard as the permission dialog: keys and clicks count only after `arm_delay`
seconds on screen with no key pressed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import webbrowser
from collections.abc import Callable
from typing import Any, ClassVar, Final

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Static

from acp_tui.sanitize import multiline, plain
from acp_tui.services.elicitation import Cancelled, Declined, UrlAccepted, UrlOutcome, UrlQuestion
from acp_tui.services.elicitation_url import SegmentKind
from acp_tui.ui.dialogs.guarded import ARM_DELAY, GuardedDialog, key_hints
from acp_tui.ui.widgets.content_blocks import head_lines, more_lines_text

__all__ = ["ARM_DELAY", "ElicitationUrlScreen", "open_in_browser"]

MAX_MESSAGE_LINES: Final = 20
#: Browsers that run inside the terminal: starting one would take over the TUI.
CONSOLE_BROWSERS: Final = frozenset({"www-browser", "links", "links2", "elinks", "lynx", "w3m", "browsh", "carbonyl"})

#: Opens a URL and says whether a browser was started (runs in a worker thread).
Opener = Callable[[str], bool]


def open_in_browser(url: str) -> bool:
    """Open `url` in the system's graphical browser; False when none can be started safely.

    Blocking (it may look up the default browser): call it from a thread.
    """
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    name = os.path.basename(getattr(browser, "name", "") or "")
    if name in CONSOLE_BROWSERS:
        return False
    if type(browser) in (webbrowser.GenericBrowser, webbrowser.BackgroundBrowser):
        # A command line ($BROWSER, xdg-open): run it detached and silent; webbrowser would share our
        # terminal's output (and GenericBrowser would even wait for the browser to exit).
        args = [arg.replace("%s", url) for arg in getattr(browser, "args", ["%s"])]
        try:
            subprocess.Popen(
                [browser.name, *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            return False
        return True
    try:
        return bool(browser.open(url))  # the other launchers already keep off the terminal
    except Exception:  # noqa: BLE001 - a broken browser setup only means "copy it instead"
        return False


def _style_for(kind: SegmentKind) -> str:
    match kind:
        case "host":
            return "bold reverse"
        case "hidden":
            return "bold italic underline"
        case "text":
            return ""


class ElicitationUrlScreen(GuardedDialog[UrlOutcome]):
    """Show the URL; open or copy it only when asked; dismiss with the user's answer."""

    CSS_PATH = "elicitation_url.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open", "Open in browser", show=False),
        Binding("c", "copy", "Copy", show=False),
        Binding("d", "decline", "Decline", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("left,shift+tab", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    def __init__(
        self,
        question: UrlQuestion,
        *,
        agent: str = "the agent",
        tool_call: str | None = None,
        arm_delay: float = ARM_DELAY,
        opener: Opener = open_in_browser,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """`opener` opens the URL in a worker thread (injected by tests)."""
        super().__init__(arm_delay=arm_delay, name=name, id=id)
        self.question = question
        self.view = question.view
        self._opener = opener
        self._agent = plain(agent) or "the agent"
        self._tool_call = plain(tool_call) if tool_call else None
        self._dialog = Vertical(id="dialog")
        self._buttons = [
            # no Open button at all for a URL that cannot be opened: a disabled one reads as the default
            *(
                [Button("Open in browser  o", id="open", variant="primary", compact=True, disabled=True)]
                if question.view.can_open
                else []
            ),
            Button(
                "Copy  c",
                id="copy",
                compact=True,
                disabled=True,
                variant="default" if question.view.can_open else "primary",
            ),
            Button("Decline  d", id="decline", compact=True, disabled=True),
            Button("Cancel  esc", id="cancel", compact=True, disabled=True),
        ]

    # -- layout ------------------------------------------------------------------------------

    def url_text(self) -> Text:
        """The full URL, host highlighted, hidden characters as visible escapes (never a link)."""
        text = Text(overflow="fold")
        for segment, kind in self.view.segments:
            text.append(segment, _style_for(kind))
        return text

    def host_text(self) -> Text:
        text = Text("Opens ")
        if self.view.host:
            text.append(self.view.host, "bold")
            if self.view.host_unicode and self.view.host_unicode != self.view.host:
                text.append(f"  (written {self.view.host_unicode})")
        else:
            text.append("no web host", "bold")
        return text

    def compose(self) -> ComposeResult:
        with self._dialog:
            if self._tool_call:
                yield Static(Text(f"For the tool call: {self._tool_call}"), id="context")
            elif self.question.before_session:
                yield Static(Text("Before the session starts (for a request in progress)"), id="context")
            with VerticalScroll(id="body", can_focus=False):
                if self.question.message:
                    head, more = head_lines(multiline(self.question.message).rstrip("\n"), MAX_MESSAGE_LINES)
                    message = Text(head)
                    if more:
                        message.append("\n").append_text(more_lines_text(more))
                    yield Static(message, id="message")
                yield Static(self.host_text(), id="host")
                yield Static(self.url_text(), id="url")
                if self.view.warnings or not self.view.can_open:
                    with Vertical(id="warnings"):
                        for warning in self.view.warnings:
                            yield Static(Text(f"⚠ {warning}"), classes="warning")
                        if not self.view.can_open:
                            note = "This link cannot be opened from here; copy it if you trust it."
                            yield Static(Text(note), classes="note")
            with Horizontal(id="buttons"):
                yield from self._buttons
            yield self._hint

    def on_mount(self) -> None:
        self._dialog.border_title = Content(f"Link from {self._agent}")  # plain: never markup

    # -- the typing guard (guarded.py) -----------------------------------------------------

    def _controls(self) -> list[Widget]:
        return list(self._buttons)

    def _armed_hints(self) -> Text:
        hints = [("c", "copy"), ("d", "decline"), ("esc", "cancel")]
        if self.view.can_open:
            hints.insert(0, ("o", "open in browser"))
        return key_hints(hints)

    # -- deciding ------------------------------------------------------------------------------

    def action_open(self) -> None:
        """Open in the browser (in a thread, after the dialog closes); copy instead if that fails."""
        if not self._armed or not self.view.can_open or self._decided:
            return
        app, url, opener = self.app, self.question.url, self._opener
        self._finish(UrlAccepted("open"))
        future = asyncio.get_running_loop().run_in_executor(None, opener, url)
        future.add_done_callback(lambda done: _opened(app, url, done))

    def action_copy(self) -> None:
        if not self._armed or self._decided:
            return
        self.app.copy_to_clipboard(self.question.url)
        self.app.notify("The link was copied to the clipboard.", markup=False)
        self._finish(UrlAccepted("copy"))

    def action_decline(self) -> None:
        if self._armed:
            self._finish(Declined())

    def action_cancel(self) -> None:
        if self._armed:
            self._finish(Cancelled("dismissed"))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        match event.button.id:
            case "open":
                self.action_open()
            case "copy":
                self.action_copy()
            case "decline":
                self.action_decline()
            case "cancel":
                self.action_cancel()

    def close_because(self, reason: str) -> None:
        """Close without the user (the agent withdrew or completed it, the turn was cancelled)."""
        self._finish(Cancelled(reason))


def _opened(app: App[Any], url: str, done: asyncio.Future[bool]) -> None:
    """After the opener ran: when no browser started, copy the URL and say so."""
    if not done.cancelled() and done.exception() is None and done.result():
        return
    if not app.is_running:
        return
    app.copy_to_clipboard(url)
    app.notify(
        "No browser could be opened; the link was copied to the clipboard instead.", severity="warning", markup=False
    )
