"""The command palette's tab entries: new tabs (same agent, another agent, from a past session), *Add an agent…*
(the registry's agents: one installed ends in a new tab), close, and one entry per open tab to show it. Offered
on the chat screen (the app's actions)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING

from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.widgets.palette import PaletteEntry, ScreenActionCommands
from acp_tui.ui.widgets.tab_bar import tab_title

if TYPE_CHECKING:
    from acp_tui.ui.tabs.host import TabHost

__all__ = ["TabCommands", "tab_entry"]

ENTRIES = (
    PaletteEntry("New tab", "app.new_tab", "Ctrl+T: the same agent and folder, a new session", keywords="open"),
    PaletteEntry(
        "New tab with agent…",
        "app.new_tab_with_agent",
        "Another agent (config.toml, the catalogue, a command) or another folder",
        keywords="open start run",
    ),
    PaletteEntry(
        "Add an agent…",
        "app.add_agent",
        "Every agent acp-tui knows and the ACP registry's: install one, open it in a new tab",
        keywords="install registry agents browse new",
    ),
    PaletteEntry(
        "New tab from session…",
        "app.new_tab_from_session",
        "Pick a past session of this agent and open it in a new tab",
        keywords="open resume load history",
    ),
    PaletteEntry("Close tab", "app.close_tab", "Ctrl+W: end this tab's session and stop its agent"),
)


class TabCommands(ScreenActionCommands):
    """Tab entries, offered where the palette was opened on a chat screen of an app with tabs."""

    ENTRIES = ENTRIES

    def _host(self) -> TabHost | None:
        host: TabHost | None = getattr(self.app, "tabs", None)
        return host if isinstance(self.screen, ChatScreen) else None

    def _available(self) -> Iterable[tuple[PaletteEntry, Callable[[], object]]]:  # type: ignore[override]
        host = self._host()
        if host is None:
            return
        for entry in self.ENTRIES:
            if entry.action == "app.close_tab" and len(host.tabs) < 2:
                continue
            yield entry, partial(self.screen.run_action, entry.action)
        for number, tab in enumerate(host.tabs, 1):
            if tab is not host.current:
                entry = tab_entry(number, tab.title)
                yield entry, partial(self.screen.run_action, entry.action)


def tab_entry(number: int, title: str) -> PaletteEntry:
    """Tab `number`'s entry: its title (the agent's text, one plain line) and the key that shows it, if any —
    Alt+1…Alt+9 exist, Alt+10 does not."""
    hint = f"Alt+{number}: show it" if number <= 9 else "show it (Ctrl+PageUp / Ctrl+PageDown step to it)"
    return PaletteEntry(f"Tab {number}: {tab_title(title)}", f"app.show_tab({number})", hint)
