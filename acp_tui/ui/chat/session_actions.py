"""What the chat screen does for the session keys and palette commands: browse, start anew, save as Markdown.

The screen keeps one `SessionActions` and forwards `action_sessions(what)` to it (Ctrl-O browses, Ctrl-N
starts a new session), so the screen stays thin. Opening and starting anew are the controller's intents
(docs/protocol.md §3); they run as workers, and the controller's events show what happened (a fresh
timeline on `SessionOpened`, a note when it could not). `SessionCommands` puts the three in the palette.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal, Protocol

from textual.screen import Screen

from acp_tui.controller.controller import SessionController
from acp_tui.controller.errors import ControllerError
from acp_tui.controller.sessions import SessionListing
from acp_tui.path_text import display_path
from acp_tui.paths import saves_dir
from acp_tui.sanitize import plain
from acp_tui.ui.browsers.sessions import SessionBrowser
from acp_tui.ui.widgets.palette import PaletteEntry, ScreenActionCommands

SessionAction = Literal["browse", "new", "export"]

#: Keys the lead binds on the chat screen (`Binding(key, "sessions('browse')")` ...).
BROWSE_KEY: Final = "ctrl+o"
NEW_KEY: Final = "ctrl+n"

#: Palette entries: (action, name, help).
COMMANDS: Final[tuple[tuple[SessionAction, str, str], ...]] = (
    ("browse", "Sessions", "Open a past session of this agent, or read its transcript (Ctrl-O)"),
    ("new", "New session", "Start a new session with the same agent; this one is closed (Ctrl-N)"),
    ("export", "Export conversation as Markdown", "Save this conversation as a readable Markdown file"),
)


class SessionsElsewhere(Protocol):
    """The sessions other tabs hold (acp_tui/ui/tabs): picking one shows its tab instead of opening it again."""

    def holds(self, session_id: str) -> bool: ...

    def show(self, session_id: str) -> None: ...


class _Nowhere:
    """No other tabs: every session is this screen's to open."""

    def holds(self, session_id: str) -> bool:
        return False

    def show(self, session_id: str) -> None:
        return None


_NOWHERE: Final = _Nowhere()


class SessionActions:
    """The session intents of one chat screen, with the dialogs they need."""

    def __init__(self, screen: Screen[None], controller: SessionController) -> None:
        self.screen = screen
        self.controller = controller
        #: a tab host's: which sessions other tabs hold, and showing one (a session is never opened twice)
        self.elsewhere: SessionsElsewhere = _NOWHERE

    def run(self, what: str) -> None:
        """One of `SessionAction` (from a key binding or the palette)."""
        match what:
            case "browse":
                self.browse()
            case "new":
                self.new()
            case "export":
                self.export()
            case _:
                raise ValueError(f"unknown session action {what!r}")

    def browse(self) -> None:
        """The session browser; the session chosen is opened (with its history) when it closes."""
        browser = SessionBrowser(self.controller.sessions, self.controller.launch.cwd, elsewhere=self.elsewhere.holds)
        self.screen.app.push_screen(browser, self._chosen)

    def _chosen(self, row: SessionListing | None) -> None:
        if row is not None and self.elsewhere.holds(row.session_id):
            self.elsewhere.show(row.session_id)
        elif row is not None:
            self.screen.run_worker(
                self.controller.sessions.open_session(row.session_id, cwd=row.cwd), group="session-open", exclusive=True
            )

    def new(self) -> None:
        self.screen.run_worker(self.controller.sessions.new_session(), group="session-open", exclusive=True)

    def export(self) -> None:
        """Save the conversation so far as Markdown, to a file the user confirms."""
        app = self.screen.app
        try:
            markdown, transcript = self.controller.sessions.export_markdown()
        except ControllerError as exc:
            app.notify(plain(str(exc)), title="export", severity="warning", markup=False)
            return
        suggested = saves_dir() / f"{transcript.stem}.md"  # not the session's folder: that is often a repository

        def saved(path: Path | None) -> None:
            if path is not None:
                app.notify(f"saved to {display_path(str(path))}", title="export", markup=False)

        from acp_tui.ui.browsers.transcript_view import ExportScreen  # on first use: it is not start-up's

        app.push_screen(ExportScreen(markdown, suggested), saved)


class SessionCommands(ScreenActionCommands):
    """Palette entries for the session actions, on screens with an `action_sessions(what)`."""

    ENTRIES = tuple(PaletteEntry(name, f"sessions('{what}')", help_text) for what, name, help_text in COMMANDS)


__all__ = [
    "BROWSE_KEY",
    "COMMANDS",
    "NEW_KEY",
    "SessionAction",
    "SessionActions",
    "SessionCommands",
    "SessionsElsewhere",
]
