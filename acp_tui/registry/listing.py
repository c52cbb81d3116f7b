"""One list of every agent acp-tui knows: config.toml's, the installed registry agents, the registry's others,
its unusable entries, and the well-known agents (acp_tui/catalogue.py) the registry does not list.

A well-known agent the registry lists is shown once, as the registry's entry, with its short name beside it.
Ids, names and descriptions are the index's words: shown literally (controls as escapes, `sanitize`), one line
each, cut; each section shows at most `MAX_ROWS`, then how many more and how to narrow the list.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from acp_tui.catalogue import CATALOGUE, CatalogueAgent
from acp_tui.config import Settings
from acp_tui.registry.entries import Entry, describe_kinds
from acp_tui.registry.manifest import InstalledAgent
from acp_tui.sanitize import escape_controls, plain

if TYPE_CHECKING:  # not at run time: source imports urllib and ssl, which the TUI's list (roster.py) never needs
    from acp_tui.registry.source import Index

__all__ = ["MAX_ROWS", "REGISTRY_IDS", "Listing", "catalogue_name", "listing_lines", "one_line"]

#: rows per section before "… N more"
MAX_ROWS = 100
#: the registry's ids of the well-known agents (acp_tui/catalogue.py), where the registry lists them
REGISTRY_IDS: dict[str, tuple[str, ...]] = {
    "claude": ("claude-acp", "claude-code-acp"),
    "codex": ("codex-acp",),
    "gemini": ("gemini",),
    "opencode": ("opencode",),
    "goose": ("goose",),
    "qwen": ("qwen-code",),
    "kimi": ("kimi",),
    "copilot": ("github-copilot", "github-copilot-cli"),
    "cursor": ("cursor", "cursor-agent"),
    "pi": ("pi-acp",),
}
_DESCRIPTION = 70


def one_line(text: str, limit: int) -> str:
    """Agent-supplied text as one shown line of at most `limit` characters (only its start is looked at)."""
    shown = " ".join(plain(text[: limit * 4]).split())
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def catalogue_name(registry_id: str) -> CatalogueAgent | None:
    """The well-known agent the registry lists under this id."""
    return next((agent for agent in CATALOGUE if registry_id in REGISTRY_IDS.get(agent.name, ())), None)


@dataclass(frozen=True)
class Listing:
    """What `acp-tui agents` shows, chosen by its filters."""

    settings: Settings
    installed: Sequence[InstalledAgent]
    index: Index | None
    show: Literal["all", "installed", "available"] = "all"
    word: str | None = None

    def _matches(self, *texts: str) -> bool:
        if not self.word:
            return True
        wanted = self.word.casefold()
        return any(wanted in text[:2000].casefold() for text in texts)


def _capped(rows: list[str], total: int, lines: list[str]) -> None:
    lines.extend(rows[:MAX_ROWS])
    if total > MAX_ROWS:
        lines.append(f"  … and {total - MAX_ROWS} more (narrow the list: acp-tui agents WORD)")


def listing_lines(listing: Listing, search_path: str | None = None) -> list[str]:
    """The list as lines of text."""
    lines: list[str] = []
    settings, index = listing.settings, listing.index
    installed_ids = {agent.id for agent in listing.installed}
    if listing.show == "all" and settings.agents:
        rows = [
            f"  {escape_controls(name)}  {one_line(shlex.join(agent.command), 100)}"
            for name, agent in settings.agents.items()
            if listing._matches(name, *agent.command)
        ]
        if rows:
            lines.append("Named agents (config.toml; acp-tui NAME):")
            _capped(rows, len(rows), lines)
    if listing.show in ("all", "installed"):
        rows = []
        for agent in listing.installed:
            if not listing._matches(agent.id, agent.name):
                continue
            entry = index.find(agent.id) if index is not None else None
            newer = _newer(agent, entry)
            notes = [
                *(["preview"] if agent.preview else []),
                *(["UNVERIFIED download"] if not agent.verified else []),
                *([f"update: {newer} (acp-tui agents --update {agent.id})"] if newer else []),
                *(["config.toml's agent of this name wins"] if agent.id in settings.agents else []),
            ]
            extra = f"  ({'; '.join(notes)})" if notes else ""
            rows.append(f"  {agent.id}  {escape_controls(agent.version)}  {agent.kind}  {agent.folder}{extra}")
        if rows or listing.show == "installed":
            lines.append("Installed from the ACP registry (acp-tui ID):" if rows else "No registry agents installed.")
            _capped(rows, len(rows), lines)
    if index is not None and listing.show in ("all", "available"):
        _available(listing, index, installed_ids, lines)
    if listing.show == "all":
        _well_known(listing, index, lines, search_path)
    return lines


def _newer(agent: InstalledAgent, entry: Entry | None) -> str | None:
    if entry is None:
        return None
    release = entry.preview if agent.preview and entry.preview is not None else entry.release
    return release.version if release.version != agent.version else None


def _available(listing: Listing, index: Index, installed_ids: set[str], lines: list[str]) -> None:
    rows: list[str] = []
    total = 0
    for entry in index.entries:
        if entry.id in installed_ids or not listing._matches(entry.id, entry.name, entry.description):
            continue
        total += 1
        if len(rows) >= MAX_ROWS:
            continue
        known = catalogue_name(entry.id)
        alias = f"  [well-known: {known.name}]" if known is not None else ""
        kinds = describe_kinds(entry.release.kinds())
        preview = f", preview {entry.preview.version}" if entry.preview is not None else ""
        rows.append(
            f"  {entry.id}  {escape_controls(one_raw(entry.name))} {entry.version}{preview}  ({kinds})  "
            f"{one_line(entry.description, _DESCRIPTION)}{alias}"
        )
    lines.append(f"Available in the ACP registry (acp-tui add ID; {index.origin}):")
    if not total:
        lines.append("  (none" + (f" matching {escape_controls(listing.word)!s})" if listing.word else ")"))
    _capped(rows, total, lines)
    unusable = [item for item in index.unusable if listing._matches(item.id, item.reason)]
    if unusable:
        lines.append("Unusable registry entries (not installable):")
        shown = [
            f"  {escape_controls(one_raw(item.id))}: {escape_controls(item.reason)}" for item in unusable[:MAX_ROWS]
        ]
        _capped(shown, len(unusable), lines)
    for note in index.notes:
        lines.append(f"Note: {note}")


def one_raw(text: str) -> str:
    """An id as given, cut (escape_controls then shows every control in it)."""
    return text if len(text) <= 80 else text[:79] + "…"


def _well_known(listing: Listing, index: Index | None, lines: list[str], search_path: str | None) -> None:
    listed = {entry.id for entry in index.entries} if index is not None else set()
    rows = []
    for agent in CATALOGUE:
        if listed.intersection(REGISTRY_IDS.get(agent.name, ())) or not listing._matches(agent.name, agent.title):
            continue
        on_path = shutil.which(agent.command[0], path=search_path) is not None
        state = "installed" if on_path else f"install: {agent.install}"
        rows.append(f"  {agent.name}  {shlex.join(agent.command)}  {state}")
    if rows:
        lines.append("Well-known agents not in the registry (acp-tui NAME runs one from PATH):")
        _capped(rows, len(rows), lines)
