"""The list `acp-tui agents` prints, as records: what the TUI's *Add an agent…* browses (acp_tui/ui/dialogs/add_agent.py).

The same agents in the same order as listing.py: config.toml's named agents, the installed registry agents, the
registry's others, its unusable entries, and the well-known agents (acp_tui/catalogue.py) the registry does not
list. Each record says what Enter does with it: `open` (it runs now: a new tab), `install` (a registry agent not
installed yet) or nothing (an unusable entry, a well-known agent not on PATH). The agent-supplied fields (`name`,
`description`, an unusable entry's id) are kept as given, bounded; the UI shows them literally.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from acp_tui.catalogue import CATALOGUE
from acp_tui.config import Settings
from acp_tui.registry.entries import Entry, Unusable
from acp_tui.registry.listing import REGISTRY_IDS, catalogue_name
from acp_tui.registry.manifest import InstalledAgent

__all__ = ["MAX_DESCRIPTION", "MAX_NAME", "Action", "AgentRow", "Known", "Section", "roster"]

Section = Literal["named", "installed", "available", "unusable", "well-known"]
Action = Literal["open", "install", "none"]
#: what is kept of an agent's description and name (the index may hold megabytes of either)
MAX_DESCRIPTION = 4000
MAX_NAME = 200


@dataclass(frozen=True)
class AgentRow:
    """One agent of the list: `key` is what `acp-tui KEY` (and a new tab) runs, or the registry id to install."""

    section: Section
    key: str
    name: str
    action: Action
    version: str = ""
    description: str = ""
    #: the registry's distribution kinds offered here (an installed agent: the one it was installed as)
    kinds: tuple[str, ...] = ()
    installed: bool = False
    #: the command, the install folder, the reason it is unusable, or how to get it
    detail: str = ""
    #: what else to know: a preview, an update, an unverified download, the well-known name
    notes: tuple[str, ...] = ()
    entry: Entry | None = None


class Known(Protocol):
    """The registry's agents as read (source.Index, or worker.IndexReport from the child that read it)."""

    @property
    def entries(self) -> Sequence[Entry]: ...

    @property
    def unusable(self) -> Sequence[Unusable]: ...

    def find(self, agent_id: str) -> Entry | None: ...


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def roster(
    settings: Settings,
    installed: Sequence[InstalledAgent],
    index: Known | None,
    search_path: str | None = None,
) -> list[AgentRow]:
    """Every agent acp-tui knows, in `acp-tui agents`' order; `index` None: the registry's are not known yet."""
    rows = [
        AgentRow("named", name, name, "open", detail=shlex.join(agent.command)[:1000], installed=True)
        for name, agent in settings.agents.items()
    ]
    installed_ids = {agent.id for agent in installed}
    for agent in installed:
        entry = index.find(agent.id) if index is not None else None
        release = entry.preview if entry is not None and agent.preview and entry.preview else None
        newest = (release or entry.release).version if entry is not None else agent.version
        notes = (
            *(["preview"] if agent.preview else []),
            *(["UNVERIFIED download (no sha256)"] if not agent.verified else []),
            *([f"update: {newest} (acp-tui agents --update {agent.id})"] if newest != agent.version else []),
            *(["config.toml's agent of this name runs instead"] if agent.id in settings.agents else []),
        )
        rows.append(
            AgentRow(
                "installed",
                agent.id,
                _bounded(agent.name, MAX_NAME),
                "open",
                version=agent.version,
                description=_bounded(entry.description, MAX_DESCRIPTION) if entry is not None else "",
                kinds=(agent.kind,),
                installed=True,
                detail=str(agent.folder),
                notes=notes,
                entry=entry,
            )
        )
    if index is not None:
        for entry in index.entries:
            if entry.id in installed_ids:
                continue
            known = catalogue_name(entry.id)
            preview = entry.preview
            rows.append(
                AgentRow(
                    "available",
                    entry.id,
                    _bounded(entry.name, MAX_NAME),
                    "install",
                    version=entry.version,
                    description=_bounded(entry.description, MAX_DESCRIPTION),
                    kinds=entry.release.kinds(),
                    notes=(
                        *([f"preview {preview.version}: acp-tui add {entry.id} --preview"] if preview else []),
                        *([f"well-known as {known.name}"] if known is not None else []),
                    ),
                    entry=entry,
                )
            )
        rows += [
            AgentRow("unusable", _bounded(item.id, 160), _bounded(item.id, 160), "none", detail=item.reason[:1000])
            for item in index.unusable
        ]
    listed = {entry.id for entry in index.entries} if index is not None else set()
    for known_agent in CATALOGUE:
        if listed.intersection(REGISTRY_IDS.get(known_agent.name, ())) or known_agent.name in settings.agents:
            continue
        on_path = shutil.which(known_agent.command[0], path=search_path) is not None
        rows.append(
            AgentRow(
                "well-known",
                known_agent.name,
                known_agent.title,
                "open" if on_path else "none",
                installed=on_path,
                detail=shlex.join(known_agent.command) if on_path else f"install: {known_agent.install}",
            )
        )
    return rows
