"""What is installed: one folder per agent and version in acp-tui's data folder, and the command each runs.

    <data>/agents/<id>/<version>/           the install (npm prefix, virtual environment, or unpacked archive)
    <data>/agents/<id>/<version>/acp-tui-install.json    its manifest: the resolved argv, env, kind, source
    <data>/agents/<id>/current.json         {"version": ..., "previous": ...}: which one runs

The manifest holds the command resolved at install time (the bin of the installed package.json, the venv's
console script, the archive's `cmd`), so running an agent resolves nothing: `acp-tui ID` reads two small files.
A version folder appears only whole (built in a `.tmp-*` folder beside it, then renamed: installs.py); a
`.tmp-*` folder whose installer is gone is an interrupted install and is swept.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import msgspec

from acp_tui import paths

__all__ = [
    "MANIFEST",
    "InstalledAgent",
    "Pointer",
    "agents_root",
    "installed_agents",
    "installed_agent",
    "read_pointer",
    "write_pointer",
    "sweep",
    "tidy",
]

MANIFEST = "acp-tui-install.json"
POINTER = "current.json"
#: temp folders are named `.tmp-<version>-<pid>-<random>` (the pid says whether their installer still runs)
TEMP_PREFIX = ".tmp-"
_TEMP = re.compile(r"^\.(?:tmp|trash)-.*?-(\d+)-[^-]+$")
_ID = re.compile(r"^[a-z][a-z0-9-]{0,127}$")


class InstalledAgent(msgspec.Struct, frozen=True):
    """One installed version: what `acp-tui ID` runs."""

    id: str
    name: str
    version: str
    kind: str
    #: the resolved command line (absolute paths), the registry's args included
    argv: tuple[str, ...]
    env: Mapping[str, str] = msgspec.field(default_factory=dict)
    #: what was installed: `npm @scope/pkg@1.2.3`, `PyPI pkg==1.2.3`, the archive's URL
    source: str = ""
    #: binary: whether its sha256 was checked (False only with --trust-unverified)
    verified: bool = True
    preview: bool = False
    installed_at: float = 0.0
    #: the index it came from
    registry: str = ""

    @property
    def folder(self) -> Path:
        return agents_root() / self.id / self.version


class Pointer(msgspec.Struct, frozen=True):
    """Which version of an agent runs, and the one before an update, kept until the new one has started."""

    version: str
    previous: str | None = None


def agents_root() -> Path:
    """Where registry agents are installed (never globally)."""
    return paths.data_dir() / "agents"


def read_pointer(agent_id: str) -> Pointer | None:
    try:
        return msgspec.json.decode((agents_root() / agent_id / POINTER).read_bytes(), type=Pointer)
    except (OSError, msgspec.DecodeError):
        return None


def write_pointer(agent_id: str, pointer: Pointer) -> None:
    """Replaced whole: a reader sees the old choice or the new one."""
    folder = agents_root() / agent_id
    handle, name = tempfile.mkstemp(prefix=".pointer-", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(msgspec.json.encode(pointer))
            file.flush()
            os.fsync(file.fileno())
        os.replace(name, folder / POINTER)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def read_manifest(folder: Path) -> InstalledAgent | None:
    try:
        return msgspec.json.decode((folder / MANIFEST).read_bytes(), type=InstalledAgent)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def installed_agent(agent_id: str, version: str | None = None) -> InstalledAgent | None:
    """The version of `agent_id` that runs (or `version`), when it is whole."""
    if not _ID.match(agent_id):
        return None
    if version is None:
        pointer = read_pointer(agent_id)
        if pointer is None:
            return None
        version = pointer.version
    return read_manifest(agents_root() / agent_id / version)


def installed_agents() -> list[InstalledAgent]:
    """Every agent with a current version, by id."""
    root = agents_root()
    try:
        names = sorted(entry.name for entry in os.scandir(root) if entry.is_dir() and _ID.match(entry.name))
    except OSError:
        return []
    found = [installed_agent(name) for name in names]
    return [agent for agent in found if agent is not None]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def temp_folders(folder: Path) -> Iterator[tuple[Path, int]]:
    """The `.tmp-*`/`.trash-*` folders in an agent's folder, with the pid that made each."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            match = _TEMP.match(entry.name)
            if match and entry.is_dir(follow_symlinks=False):
                yield Path(entry.path), int(match.group(1))


def sweep() -> int:
    """Remove what interrupted installs and removals left (their process gone), and agent folders left with no
    version; returns how many were removed."""
    removed = 0
    root = agents_root()
    for temp, pid in list(temp_folders(root)):  # a removal renames the whole agent folder here first
        if pid != os.getpid() and not _alive(pid):
            shutil.rmtree(temp, ignore_errors=True)
            removed += 1
    try:
        folders = [Path(entry.path) for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return removed
    for folder in folders:
        if _TEMP.match(folder.name):
            continue
        for temp, pid in list(temp_folders(folder)):
            if pid != os.getpid() and not _alive(pid):
                shutil.rmtree(temp, ignore_errors=True)
                removed += 1
        tidy(folder)
    return removed


def tidy(folder: Path) -> None:
    """An agent folder holding nothing but its lock file is removed (an install that failed leaves nothing)."""
    with contextlib.suppress(OSError):
        if {entry.name for entry in os.scandir(folder)} <= {".lock"}:
            with contextlib.suppress(FileNotFoundError):
                (folder / ".lock").unlink()
            folder.rmdir()


def manifest_bytes(agent: InstalledAgent) -> bytes:
    return json.dumps(msgspec.to_builtins(agent), indent=2).encode("utf-8") + b"\n"
