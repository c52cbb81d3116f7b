"""Whether a chat screen is the tab on screen, and what waits for it to be.

With several tabs (acp_tui/ui/tabs), a chat screen may run hidden: its agent streams, asks, logs in.
A question it asks must never open over the tab the user looks at, so every dialog the screen's askers
open goes through `Presence.when_shown`: at once when the screen is shown, else held (in order) until the
tab host shows it. Meanwhile the tab reads `waiting` (its `⚠`) and `unseen` (output arrived while hidden),
and the host hears `changed` to redraw the tab bar. A screen outside any tab host is always shown.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

__all__ = ["Presence", "Ticket"]


class Ticket:
    """One dialog that waits for its screen, or is open on it; `done()` once it is answered or withdrawn."""

    __slots__ = ("_presence", "_open", "opened", "finished")

    def __init__(self, presence: Presence, open_dialog: Callable[[], object]) -> None:
        self._presence = presence
        self._open = open_dialog
        self.opened = False
        self.finished = False

    def _show(self) -> None:
        if self.finished or self.opened:
            return
        self.opened = True
        self._open()

    def done(self) -> None:
        """The question is over: a dialog not yet opened never opens; the tab stops saying it waits."""
        if self.finished:
            return
        self.finished = True
        self._presence._finished(self)


class Presence:
    """The screen's side of its tab: shown or hidden, and the dialogs held until it is shown."""

    def __init__(self) -> None:
        self.shown = True
        #: output arrived while hidden (the tab bar's dot); cleared when shown
        self.unseen = False
        self._held: deque[Ticket] = deque()
        self._unfinished: set[Ticket] = set()  # held or open
        #: told whenever `waiting`, `unseen` or `shown` may have changed (the tab host redraws its bar)
        self.changed: Callable[[], None] = lambda: None
        #: the screen's own: its event pump draws again (before held dialogs open), or stops drawing
        self.on_show: Callable[[], None] = lambda: None
        self.on_hide: Callable[[], None] = lambda: None

    @property
    def waiting(self) -> int:
        """Dialogs that wait for the user: held for this tab, or open on it."""
        return len(self._unfinished)

    def when_shown(self, open_dialog: Callable[[], object]) -> Ticket:
        """Open a dialog now if this screen is shown, else as soon as it is (in the order asked)."""
        ticket = Ticket(self, open_dialog)
        self._unfinished.add(ticket)
        if self.shown and not self._held:
            ticket._show()
        else:
            self._held.append(ticket)
        self.changed()
        return ticket

    def show(self) -> None:
        """The tab host put this screen on the terminal: open what waited for it, oldest first."""
        self.shown = True
        self.unseen = False
        self.on_show()
        while self._held and self.shown:
            ticket = self._held.popleft()
            ticket._show()
        self.changed()

    def hide(self) -> None:
        """Another tab is on the terminal now."""
        self.shown = False
        self.on_hide()
        self.changed()

    def activity(self, output: bool) -> None:
        """The event pump applied (or, hidden, kept) a frame's events, with new output or not: the tab bar
        follows this tab's state, and output that came while hidden is marked unseen."""
        if output and not self.shown:
            self.unseen = True
        self.changed()

    def _finished(self, ticket: Ticket) -> None:
        self._unfinished.discard(ticket)
        if ticket in self._held:
            self._held.remove(ticket)
        self.changed()
