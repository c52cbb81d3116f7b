"""One base for the command-palette providers: a table of entries, each running a screen action.

Every palette entry of acp-tui runs an action of the screen the palette was opened on, and is offered only
where that screen has the action (so a dialog's palette does not list the chat screen's commands). The
providers differ only in their tables, so the matching lives here once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import ClassVar

import msgspec
from textual.command import DiscoveryHit, Hit, Hits, Provider


class PaletteEntry(msgspec.Struct, frozen=True):
    """One command: its name, the screen action it runs (`"sessions('browse')"`), and its help line."""

    name: str
    action: str
    help: str
    #: other names it is found and shown by; the first that matches the query is the one shown
    aliases: tuple[str, ...] = ()
    #: words that find it without being shown ("authenticate" finds "Log in")
    keywords: str = ""

    @property
    def action_name(self) -> str:
        """The action's bare name (`sessions` for `sessions('browse')`), for `action_<name>`."""
        return self.action.split("(", 1)[0]


class ScreenActionCommands(Provider):
    """Offers `ENTRIES` whose action the current screen has; subclasses give the table alone."""

    ENTRIES: ClassVar[tuple[PaletteEntry, ...]] = ()

    def _available(self) -> Iterator[tuple[PaletteEntry, Callable[[], object]]]:
        for entry in self.ENTRIES:
            if hasattr(self.screen, f"action_{entry.action_name}"):
                yield entry, partial(self.screen.run_action, entry.action)

    async def discover(self) -> Hits:
        for entry, command in self._available():
            yield DiscoveryHit(entry.name, command, help=entry.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry, command in self._available():
            for shown in (entry.name, *entry.aliases):
                score = matcher.match(shown)
                if entry.keywords:
                    score = max(score, matcher.match(f"{shown} {entry.keywords}"))
                if score > 0:
                    yield Hit(score, matcher.highlight(shown), command, help=entry.help)
                    break


__all__ = ["PaletteEntry", "ScreenActionCommands"]
