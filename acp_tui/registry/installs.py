"""Installing, switching and removing registry agents, each all-or-nothing.

An install builds in `<data>/agents/<id>/.tmp-<version>-<pid>-<random>/`, writes the manifest there, and renames
the folder to `<version>/`: until that rename there is no version folder, after it a whole one. SIGTERM and
SIGHUP during an install unwind it like Ctrl+C (the tool's process group killed, the temp folder removed); a
SIGKILL leaves a temp folder whose process is gone, removed by the next command (`manifest.sweep`).

A new version replaces an installed one only after it has started once: it must answer `initialize`
(`startup.answers_initialize`). Until then `current.json` names the old one as `previous`; when the new one
does not start, the old one stays current and the new folder goes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from acp_tui import paths
from acp_tui.registry.archives import install_binary
from acp_tui.registry.entries import Entry, Kind, Release, platform_key
from acp_tui.registry.manifest import (
    MANIFEST,
    TEMP_PREFIX,
    InstalledAgent,
    Pointer,
    agents_root,
    installed_agent,
    manifest_bytes,
    read_pointer,
    sweep,
    tidy,
    write_pointer,
)
from acp_tui.registry.packages import NODE_HELP, PYTHON_HELP, InstallError, install_npm, install_pypi
from acp_tui.registry.progress import Progress
from acp_tui.registry.startup import answers_initialize

__all__ = ["InstallError", "Interrupted", "Plan", "install", "make_plan", "remove", "switch"]


@dataclass(frozen=True)
class Plan:
    """What `acp-tui add` will do, said before it does it."""

    entry: Entry
    release: Release
    kind: Kind
    preview: bool
    trust_unverified: bool

    def describe(self) -> str:
        """`claude-code-acp 0.16.0 from npm (@zed-industries/claude-code-acp@0.16.0)`."""
        release = self.release
        match self.kind:
            case "npx":
                assert release.npx is not None
                source = f"from npm ({release.npx.name}@{release.npx.version})"
            case "uvx":
                assert release.uvx is not None
                source = f"from PyPI ({release.uvx.spec})"
            case "binary":
                target = release.binary_here()
                assert target is not None
                checked = "sha256 checked" if target.sha256 else "UNVERIFIED: no sha256"
                source = f"as a {target.platform} archive ({checked})"
        preview = " (preview)" if self.preview else ""
        return f"{self.entry.id} {release.version}{preview} {source}"


def _tools_for(kind: Kind) -> bool:
    match kind:
        case "npx":
            return shutil.which("npm") is not None and shutil.which("node") is not None
        case "uvx":
            return True  # uv, or this Python's venv module (which says so when it is missing)
        case "binary":
            return True


def make_plan(entry: Entry, *, preview: bool, kind: Kind | None, trust_unverified: bool) -> Plan:
    """The release and kind to install: `kind` when given, else a verified archive, npm, PyPI, then an
    unverified archive (only with `trust_unverified`). Raises InstallError saying why none fits."""
    release = entry.release
    if preview:
        if entry.preview is None:
            raise InstallError(f"{entry.id} has no preview release in the registry")
        release = entry.preview
    offered = release.kinds()
    if kind is not None:
        if kind not in offered:
            where = f" for {platform_key()}" if kind == "binary" and release.binaries else ""
            raise InstallError(
                f"{entry.id} {release.version} has no {kind} distribution{where} (it has: "
                f"{', '.join(offered) or 'none here'})"
            )
        return Plan(entry, release, kind, preview, trust_unverified)
    target = release.binary_here()
    order: list[Kind] = []
    if target is not None and target.sha256 is not None:
        order.append("binary")
    order += [k for k in ("npx", "uvx") if k in offered]
    if target is not None and target.sha256 is None:
        order.append("binary")
    if not order:
        others = ", ".join(sorted(release.binaries)) or "none"
        raise InstallError(f"{entry.id} {release.version} offers nothing for {platform_key()} (archives for: {others})")
    for candidate in order:
        if _tools_for(candidate) and (candidate != "binary" or target is None or target.sha256 or trust_unverified):
            return Plan(entry, release, candidate, preview, trust_unverified)
    first = order[0]
    if first == "npx":
        raise InstallError(f"{entry.id} is installed with npm, and {NODE_HELP}")
    if first == "binary":
        raise InstallError(
            f"{entry.id}'s archive for {platform_key()} comes with no sha256, so acp-tui cannot check it: install it "
            f"anyway with: acp-tui add {entry.id} --trust-unverified"
        )
    raise InstallError(f"{entry.id} cannot be installed here: {PYTHON_HELP}")


class Interrupted(BaseException):
    """SIGTERM or SIGHUP during an install (unwinds like KeyboardInterrupt)."""

    def __init__(self, number: int) -> None:
        super().__init__(f"signal {number}")
        self.number = number


@contextlib.contextmanager
def _signals_unwind() -> Iterator[None]:
    unwinding = False

    def raise_now(number: int, _frame: FrameType | None) -> None:
        nonlocal unwinding
        if unwinding:
            return  # already unwinding: a second signal must not cut the removal of what was begun short
        unwinding = True
        raise Interrupted(number)

    previous = {number: signal.signal(number, raise_now) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _agent_lock(folder: Path) -> Iterator[None]:
    """One install, switch or removal of an agent at a time (two `acp-tui add` at once wait for each other)."""
    with open(folder / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def install(plan: Plan, registry: str, progress: Progress) -> tuple[InstalledAgent, str | None]:
    """Install the plan's release (unless that version is already whole) and make it current once it has started.
    Returns the agent and, when it replaced another version, a note on what happened to that one."""
    sweep()
    folder = paths.ensure_dir(agents_root() / plan.entry.id)
    try:
        with _agent_lock(folder), _signals_unwind():
            version = plan.release.version
            final = folder / version
            agent = installed_agent(plan.entry.id, version)
            if agent is None:
                agent = _build(plan, registry, folder, final, progress)
            return agent, switch(agent)
    finally:
        tidy(folder)


def _build(plan: Plan, registry: str, folder: Path, final: Path, progress: Progress) -> InstalledAgent:
    version = plan.release.version
    tmp = folder / f"{TEMP_PREFIX}{version}-{os.getpid()}-{secrets.token_hex(4)}"
    tmp.mkdir(mode=0o700)
    try:
        argv, env, source, verified = _build_kind(plan, tmp, final, progress)
        agent = InstalledAgent(
            id=plan.entry.id,
            name=plan.entry.name[:200],
            version=version,
            kind=plan.kind,
            argv=tuple(argv),
            env=env,
            source=source,
            verified=verified,
            preview=plan.preview,
            installed_at=time.time(),
            registry=registry,
        )
        (tmp / MANIFEST).write_bytes(manifest_bytes(agent))
        if final.exists():  # a folder without a manifest cannot come from us; it is not an install
            shutil.rmtree(final)
        os.rename(tmp, final)
        return agent
    finally:
        progress.finish()
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _build_kind(plan: Plan, tmp: Path, final: Path, progress: Progress) -> tuple[list[str], dict[str, str], str, bool]:
    release = plan.release
    match plan.kind:
        case "npx":
            assert release.npx is not None
            argv = install_npm(release.npx, tmp, final, progress)
            package = release.npx
            return [*argv, *package.args], dict(package.env), f"npm {package.name}@{package.version}", True
        case "uvx":
            assert release.uvx is not None
            argv = install_pypi(release.uvx, tmp, final, progress)
            package = release.uvx
            return [*argv, *package.args], dict(package.env), f"PyPI {package.spec}", True
        case "binary":
            target = release.binary_here()
            assert target is not None
            argv = install_binary(target, tmp, final, progress, trust_unverified=plan.trust_unverified)
            return [*argv, *target.args], dict(target.env), target.archive, target.sha256 is not None


def switch(agent: InstalledAgent) -> str | None:
    """Make `agent` the current version. Another current version is kept as `previous` until `agent` has answered
    `initialize` once, then removed; when it does not, the old one stays current and `agent` is removed.
    Returns a note on the old version, or None when there was none. Raises InstallError when `agent` did not start."""
    pointer = read_pointer(agent.id)
    old = pointer.version if pointer is not None else None
    if old is None or old == agent.version or installed_agent(agent.id, old) is None:
        write_pointer(agent.id, Pointer(agent.version))
        return None
    write_pointer(agent.id, Pointer(agent.version, previous=old))
    try:
        problem = answers_initialize(agent)
    except BaseException:  # interrupted while it starts: the old one stays, as when it does not start
        write_pointer(agent.id, Pointer(old))
        _discard(agent.folder)
        raise
    if problem is not None:
        write_pointer(agent.id, Pointer(old))
        _discard(agent.folder)
        raise InstallError(f"{agent.id} {agent.version} did not start ({problem}); {old} stays installed")
    write_pointer(agent.id, Pointer(agent.version))
    _discard(agents_root() / agent.id / old)
    return f"{agent.id} {agent.version} started; {old} removed"


def _discard(folder: Path) -> None:
    """A version folder removed: renamed out of the way first, so it is gone whole or not at all."""
    trash = folder.parent / f".trash-{folder.name}-{os.getpid()}-{secrets.token_hex(4)}"
    with contextlib.suppress(OSError):
        os.rename(folder, trash)
        shutil.rmtree(trash, ignore_errors=True)


def remove(agent_id: str) -> bool:
    """Every version of `agent_id` removed; False when none was installed."""
    folder = agents_root() / agent_id
    if not folder.is_dir() or read_pointer(agent_id) is None and installed_agent(agent_id) is None:
        if folder.is_dir():
            sweep()
        return False
    with _agent_lock(folder):
        trash = folder.parent / f".trash-{agent_id}-{os.getpid()}-{secrets.token_hex(4)}"
        os.rename(folder, trash)
    shutil.rmtree(trash, ignore_errors=True)
    return True
