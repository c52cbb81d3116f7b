"""Several conversations at once: the app's tabs, each a chat screen with its own controller and agent.

`TabHost` is the app's, composed, not inherited: it opens, shows and closes tabs and keeps the tab bar
true. Each tab is a Textual mode (its own screen stack), so a dialog stays with the conversation that asked
it: switching away from an open question leaves it where it was, and a hidden tab's questions wait for the
tab to be shown (`Presence`, acp_tui/ui/chat/presence.py) — never over the tab the user looks at. A hidden
tab keeps streaming into its model; its widgets catch up when it is shown (acp_tui/ui/chat/event_pump.py).

Nothing is shared between tabs but the app's configuration, theme and the history files: each tab's screen
builds its own controller from its own `Launch` (for a second tab on `--log FILE`, its own log file).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from itertools import count
from pathlib import Path
from typing import Any, Protocol

from textual.app import App

from acp_tui.controller.sessions import prompt_title
from acp_tui.launch import Launch, new_session
from acp_tui.session.model import SessionState
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.chat.terminal_title import show_window_title
from acp_tui.ui.widgets.tab_bar import TabBar, TabLabel, TabState, tab_state, tab_title

__all__ = ["FIRST_MODE", "TAB_PROMPT_TITLE", "Tab", "TabHost", "TabScreens", "fresh_launch", "tab_log"]

#: A tab named from its first prompt shows this much of it (the bar cuts titles further when they do not fit).
TAB_PROMPT_TITLE = 30
#: The first tab's mode: the one the app starts in (its `DEFAULT_MODE`), named as `TabHost` names the first tab's.
FIRST_MODE = "tab-1"


class TabScreens(Protocol):
    """How the host gets a chat screen for a launch (the app's: its arm delay, its controller factory)."""

    def __call__(self, launch: Launch) -> ChatScreen: ...


@dataclass(eq=False)
class Tab:
    """One conversation: its Textual mode (screen stack) and its chat screen."""

    mode: str
    screen: ChatScreen
    #: opened to pick a past session (*New tab from session…*) and none picked yet
    picking: bool = False
    #: its screen's tab bar, once the screen is mounted (found once: the bar is redrawn every frame)
    bar: TabBar | None = field(default=None, init=False)

    #: the session whose first prompt names the tab, and that name (found once: the bar asks every frame)
    _named_by_prompt: tuple[SessionState, str] | None = field(default=None, init=False)

    @property
    def title(self) -> str:
        """The session's title, else the start of its first prompt (so two tabs of one agent read apart), else the
        agent's name (the agent's own once it said it)."""
        controller = self.screen.controller
        state = controller.state
        if state.info.title:
            return state.info.title
        named = self._named_by_prompt
        if named is None or named[0] is not state:
            found = prompt_title(state, TAB_PROMPT_TITLE)
            if found is None:
                return controller.agent_name
            named = self._named_by_prompt = (state, found)
        return named[1]

    @property
    def state(self) -> TabState:
        controller = self.screen.controller
        return tab_state(
            waiting=self.screen.presence.waiting > 0 or controller.waiting_for_user,
            working=controller.busy or controller.phase == "starting",
            failed=(controller.stopped and controller.session is not None)
            or (not controller.busy and controller.state.foreground.stop_reason == "error"),
        )

    @property
    def working(self) -> bool:
        """Would closing it lose work (a turn running, a question waiting)?"""
        controller = self.screen.controller
        return not controller.stopped and (
            controller.busy or controller.waiting_for_user or self.screen.presence.waiting > 0
        )


def fresh_launch(base: Launch, number: int) -> Launch:
    """The same agent in the same folder, for a new session, logging to tab `number`'s own file."""
    return replace(new_session(base), log_path=tab_log(base.log_path, number))


def tab_log(path: Path | None, number: int) -> Path | None:
    """Tab N's `--log` file: `acp.jsonl` → `acp.tab2.jsonl` (one connection per file, so replay reads one)."""
    if path is None or number <= 1:
        return path
    return path.with_name(f"{path.stem}.tab{number}{path.suffix}")


class TabHost:
    """The app's open tabs, in order; the shown one is `current`."""

    def __init__(self, app: App[Any], screens: TabScreens) -> None:
        self.app = app
        self._screens = screens
        self.tabs: list[Tab] = []
        self.current: Tab | None = None
        self._ids = count(1)
        self._numbers = count(1)  # a tab's log file keeps its number for the whole run
        self._retiring: set[asyncio.Task[None]] = set()
        #: when each working tab began (a hidden tab's long turn rings when it ends: its screen draws nothing)
        self._working_since: dict[Tab, float] = {}

    # -- opening and showing ---------------------------------------------------------------------

    def open(self, launch: Launch, *, fresh: bool = True, pick: bool = False) -> Tab:
        """A tab for `launch`, shown: a new session of its agent when `fresh` (else `launch` as it is: a launch
        made for this tab); with its session list open when `pick`."""
        tab = self._new_tab(launch, fresh=fresh, pick=pick)
        self.app.add_mode(tab.mode, lambda: tab.screen)
        self.tabs.append(tab)
        self.show(tab)
        return tab

    def first_screen(self, launch: Launch) -> ChatScreen:
        """The first tab (`launch` as the command line asked), shown as the app starts: its screen is the base of
        the mode the app starts in (`FIRST_MODE`), which Textual builds as it composes the app, so start-up
        pays no switch to a new mode (a second style pass over the whole screen, and a stylesheet reparse)."""
        tab = self._new_tab(launch, fresh=False, pick=False)
        self.tabs.append(tab)
        self.current = tab
        self._shown(tab)
        return tab.screen

    def _new_tab(self, launch: Launch, *, fresh: bool, pick: bool) -> Tab:
        number = next(self._numbers)
        prepared = fresh_launch(launch, number) if fresh else replace(launch, log_path=tab_log(launch.log_path, number))
        screen = self._screens(replace(prepared, pick_session=True) if pick else prepared)
        tab = Tab(f"tab-{next(self._ids)}", screen, picking=pick)
        screen.presence.changed = self.redraw
        screen.sessions.elsewhere = _Elsewhere(self, tab)
        screen.presence.hide()  # shown by `show`, after its mode is on screen
        return tab

    def show(self, tab: Tab) -> None:
        """Put `tab` on the terminal: its screen stack, its waiting output, then its waiting questions."""
        if tab is self.current or tab not in self.tabs:
            return
        previous, self.current = self.current, tab
        if previous is not None:
            previous.screen.presence.hide()
        self.app.switch_mode(tab.mode)
        self._shown(tab)

    def _shown(self, tab: Tab) -> None:
        tab.screen.presence.show()  # dialogs held for it open now, on its own stack
        show_window_title(self.app, tab.screen.controller.state.info.title, tab.screen.controller.agent_name)
        self.redraw()

    def holding(self, session_id: str, besides: Tab) -> Tab | None:
        """The other tab whose session this is, if any."""
        for tab in self.tabs:
            session = tab.screen.controller.session
            if tab is not besides and session is not None and session.session_id == session_id:
                return tab
        return None

    def show_elsewhere(self, asking: Tab, session_id: str) -> None:
        """A session picked in `asking` is open in another tab: show that one (a tab opened only to pick it
        closes), and say so."""
        tab = self.holding(session_id, asking)
        if tab is None:
            return
        picking, asking.picking = asking.picking, False
        self.show(tab)
        if picking:
            self.close(asking)
        self.app.notify(f"That session is open in tab {self.tabs.index(tab) + 1}.", markup=False, timeout=3)

    def show_number(self, number: int) -> bool:
        """Alt+N: show tab N (1-based); False when there is none."""
        if not 1 <= number <= len(self.tabs):
            return False
        self.show(self.tabs[number - 1])
        return True

    def step(self, by: int) -> None:
        """Ctrl+PageDown / Ctrl+PageUp: the next or previous tab, round the end."""
        if self.current is None or len(self.tabs) < 2:
            return
        index = self.tabs.index(self.current)
        self.show(self.tabs[(index + by) % len(self.tabs)])

    # -- closing ---------------------------------------------------------------------------------

    def close(self, tab: Tab) -> None:
        """Close `tab` (never the last one): show a neighbour at once, then end its session and agent."""
        if tab not in self.tabs or len(self.tabs) < 2:
            return
        index = self.tabs.index(tab)
        self.tabs.remove(tab)
        self._working_since.pop(tab, None)
        if tab is self.current:
            self.show(self.tabs[min(index, len(self.tabs) - 1)])
        # The mode goes at once (an app quitting meanwhile must not find it half gone); its screens are removed
        # as Textual schedules it, and the chat screen's unmount shuts its agent down as well.
        removal = self.app.remove_mode(tab.mode)
        task = asyncio.get_running_loop().create_task(self._retire(tab, removal))
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)
        self.redraw()

    @staticmethod
    async def _retire(tab: Tab, removal: Awaitable[object]) -> None:
        """Its session closed (`session/close` where offered), its agent and terminals stopped, its screens gone."""
        try:
            await tab.screen.shutdown()
        finally:
            await removal

    async def shutdown(self) -> None:
        """Ctrl+Q: every tab's session closed and agent stopped, together; and every tab already closing."""
        await asyncio.gather(
            *(tab.screen.shutdown() for tab in self.tabs), *list(self._retiring), return_exceptions=True
        )

    def working_elsewhere(self) -> str:
        """What quitting would end besides the shown tab: `tab 2 is working`, `tabs 2 and 4 are working` ("")."""
        numbers = [str(n) for n, tab in enumerate(self.tabs, 1) if tab is not self.current and tab.working]
        if not numbers:
            return ""
        if len(numbers) == 1:
            return f"tab {numbers[0]} is working"
        return f"tabs {', '.join(numbers[:-1])} and {numbers[-1]} are working"

    # -- the bar ---------------------------------------------------------------------------------

    def labels(self) -> tuple[TabLabel, ...]:
        return tuple(
            TabLabel(
                number=number,
                title=tab.title,
                state=tab.state,
                unseen=tab.screen.presence.unseen,
                current=tab is self.current,
            )
            for number, tab in enumerate(self.tabs, 1)
        )

    def redraw(self) -> None:
        """Bring the shown tab's bar up to date (a tab's state, title or unseen output changed)."""
        if self.current is None:
            return
        labels = self.labels()
        self._note_turn_ends(labels)
        bar = self._bar()
        if bar is not None:
            bar.show_tabs(labels)  # nothing to do when they are the same

    def _note_turn_ends(self, labels: tuple[TabLabel, ...]) -> None:
        """A hidden tab whose long turn ended alerts as the shown one's does (its status renderer waits for it
        to be shown, and then the user is looking)."""
        now = time.monotonic()
        for tab, label in zip(self.tabs, labels, strict=True):
            started = self._working_since.get(tab)
            if label.state == "working":
                if started is None:
                    self._working_since[tab] = now
                continue
            if started is None:
                continue
            del self._working_since[tab]
            if tab is not self.current and label.state != "waiting":
                tab.screen.attention.turn_ended(now - started, f"{tab_title(tab.title)} finished")

    def _bar(self) -> TabBar | None:
        tab = self.current
        if tab is not None and tab.bar is None and tab.screen.is_mounted:
            bars = tab.screen.query(TabBar)
            tab.bar = bars.first() if bars else None
        return tab.bar if tab is not None else None


class _Elsewhere:
    """One tab's view of the sessions the others hold (acp_tui/ui/chat/session_actions.py, `SessionsElsewhere`)."""

    def __init__(self, host: TabHost, tab: Tab) -> None:
        self._host, self._tab = host, tab

    def holds(self, session_id: str) -> bool:
        return self._host.holding(session_id, self._tab) is not None

    def show(self, session_id: str) -> None:
        self._host.show_elsewhere(self._tab, session_id)
