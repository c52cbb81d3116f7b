"""The registry's entries, typed, each checked against the shipped `agent.schema.json` (data/PROVENANCE).

The index is untrusted input: an entry that does not validate becomes an `Unusable` with the reason and is
never installed; everything else is read into frozen structs, so nothing past this module looks at raw JSON.
What the schema leaves open is closed here, because it becomes a folder name or a command: the version must
be a plain version (the schema's pattern anchors only its start, so `1.0.0/../../x` passes it), and a
package must be pinned to one exact version (the registry's own CI refuses `@latest`; we do too).

Two fields the registry's documents name and the shipped schema (2026-02-07) does not describe yet are read
beside it: a binary target's `sha256` (64 hex digits; the schema's `additionalProperties: false` would refuse
the target, so it is taken out before the schema check and checked on its own), and an entry's `preview`
(another `version` and `distribution`, installed with `acp-tui add ID --preview`; checked as an entry of
its own, the stable one's fields with the preview's).
"""

from __future__ import annotations

import json
import platform
import re
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, Literal

import msgspec

__all__ = [
    "Binary",
    "Entry",
    "Kind",
    "Package",
    "Release",
    "Unusable",
    "KINDS",
    "MAX_ENTRIES",
    "load_schema",
    "parse_index",
    "platform_key",
    "describe_kinds",
]

Kind = Literal["npx", "uvx", "binary"]
KINDS: tuple[Kind, ...] = ("npx", "uvx", "binary")
#: entries read from one index; the rest are counted, not read (the registry lists a few dozen)
MAX_ENTRIES = 2_000
#: a version as a folder name: digits first (the schema's), then what semver and PEP 440 use, nothing else
_VERSION = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]{0,60}$")
_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")
#: how much of a schema error's value a reason quotes
_REASON = 160


class Package(msgspec.Struct, frozen=True):
    """An `npx` or `uvx` distribution: the package's name and its one exact version."""

    name: str
    version: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = msgspec.field(default_factory=dict)
    #: npx: which of the package's bins (the registry's optional `cmd`); None: the package's own
    cmd: str | None = None

    @property
    def spec(self) -> str:
        """What the installer is given: `name@1.2.3` (npm) is made by the npm installer, this is the PyPI one."""
        return f"{self.name}=={self.version}"


class Binary(msgspec.Struct, frozen=True):
    """A `binary` distribution's target for one platform."""

    platform: str
    archive: str
    cmd: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = msgspec.field(default_factory=dict)
    sha256: str | None = None


class Release(msgspec.Struct, frozen=True):
    """One installable version of an agent (the stable one, or its preview) and its distributions."""

    version: str
    npx: Package | None = None
    uvx: Package | None = None
    #: every platform's target, by platform key
    binaries: Mapping[str, Binary] = msgspec.field(default_factory=dict)

    def kinds(self) -> tuple[Kind, ...]:
        """The distribution kinds it offers here (binary only when this platform has a target)."""
        found: list[Kind] = []
        if self.binary_here() is not None:
            found.append("binary")
        if self.npx is not None:
            found.append("npx")
        if self.uvx is not None:
            found.append("uvx")
        return tuple(found)

    def binary_here(self) -> Binary | None:
        """The target for the platform acp-tui runs on, if the entry has one."""
        return self.binaries.get(platform_key())


class Entry(msgspec.Struct, frozen=True):
    """A valid agent of the index. `id`, `name` and `description` are the agent's words: shown, never obeyed."""

    id: str
    name: str
    description: str
    release: Release
    preview: Release | None = None
    repository: str | None = None
    license: str | None = None
    authors: tuple[str, ...] = ()

    @property
    def version(self) -> str:
        return self.release.version


class Unusable(msgspec.Struct, frozen=True):
    """An entry that cannot be installed: what it calls itself (as given, maybe not even text) and why."""

    id: str
    reason: str


def platform_key(system: str | None = None, machine: str | None = None) -> str:
    """This machine as the registry names platforms: `linux-x86_64`, `darwin-aarch64`, `windows-x86_64`..."""
    system = system or sys.platform
    os_name = "darwin" if system == "darwin" else "windows" if system.startswith(("win", "cygwin")) else "linux"
    arch = (machine or platform.machine()).lower()
    arch = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}.get(arch, arch)
    return f"{os_name}-{arch}"


@cache
def load_schema() -> dict[str, Any]:
    """The shipped `agent.schema.json` (the registry's, unmodified)."""
    text = (resources.files("acp_tui.registry") / "data" / "agent.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator() -> Any:
    """The schema's Draft 7 validator, built once (jsonschema is imported only when an index is read)."""
    from jsonschema import Draft7Validator

    return Draft7Validator(load_schema())


def parse_index(document: object) -> tuple[list[Entry], list[Unusable], int]:
    """The index's agents: the valid ones, the unusable ones with reasons, and how many were not read
    (past `MAX_ENTRIES`). Raises ValueError when the document is no registry index at all."""
    if not isinstance(document, dict) or not isinstance(document.get("agents"), list):
        raise ValueError("not an ACP registry index (no 'agents' list)")
    raw: list[object] = document["agents"]
    entries: list[Entry] = []
    unusable: list[Unusable] = []
    seen: set[str] = set()
    for item in raw[:MAX_ENTRIES]:
        result = parse_entry(item)
        if isinstance(result, Entry) and result.id in seen:
            result = Unusable(result.id, "a second entry with this id (the first one counts)")
        if isinstance(result, Entry):
            seen.add(result.id)
            entries.append(result)
        else:
            unusable.append(result)
    return entries, unusable, max(0, len(raw) - MAX_ENTRIES)


def _label(item: object) -> str:
    """What an entry calls itself, for the list of unusable ones (cut: it may be anything)."""
    ident = item.get("id") if isinstance(item, dict) else None
    text = ident if isinstance(ident, str) else json.dumps(ident)[:_REASON] if ident is not None else "(no id)"
    return text[:_REASON]


def parse_entry(item: object) -> Entry | Unusable:
    """One agent of the index, checked against the schema and our stricter rules."""
    if not isinstance(item, dict):
        return Unusable(_label(item), "not a JSON object")
    stable = {key: value for key, value in item.items() if key != "preview"}
    checked = _release(stable)
    if isinstance(checked, str):
        return Unusable(_label(item), checked)
    preview: Release | None = None
    raw_preview = item.get("preview")
    if raw_preview is not None:
        if not isinstance(raw_preview, dict):
            return Unusable(_label(item), "preview: not a JSON object")
        merged = {**stable, **{k: v for k, v in raw_preview.items() if k in ("version", "distribution")}}
        preview_checked = _release(merged)
        if isinstance(preview_checked, str):
            return Unusable(_label(item), f"preview: {preview_checked}")
        preview = preview_checked
    authors = item.get("authors") or ()
    return Entry(
        id=item["id"],
        name=item["name"],
        description=item["description"],
        release=checked,
        preview=preview,
        repository=item.get("repository"),
        license=item.get("license"),
        authors=tuple(authors),
    )


def _release(item: dict[str, Any]) -> Release | str:
    """The entry's version and distributions, or why they cannot be used."""
    sums: dict[str, object] = {}
    distribution = item.get("distribution")
    if isinstance(distribution, dict) and isinstance(distribution.get("binary"), dict):
        targets: dict[str, object] = {}
        for key, target in distribution["binary"].items():
            if isinstance(target, dict) and "sha256" in target:
                sums[key] = target["sha256"]
                target = {k: v for k, v in target.items() if k != "sha256"}
            targets[key] = target
        item = {**item, "distribution": {**distribution, "binary": targets}}
    errors = sorted(_validator().iter_errors(item), key=lambda error: list(error.absolute_path))
    if errors:
        return _schema_reason(errors[0])
    version: str = item["version"]
    if not _VERSION.match(version):
        return f"version {version[:_REASON]!r} is not a plain version number"
    distribution = item["distribution"]
    for key, value in sums.items():
        if not isinstance(value, str) or not _SHA256.match(value):
            return f"distribution.binary.{key}.sha256: not 64 hexadecimal digits"
    npx = _package(distribution.get("npx"), version, "npx") if "npx" in distribution else None
    uvx = _package(distribution.get("uvx"), version, "uvx") if "uvx" in distribution else None
    for found in (npx, uvx):
        if isinstance(found, str):
            return found
    assert not isinstance(npx, str) and not isinstance(uvx, str)
    binaries: dict[str, Binary] = {}
    for key, target in distribution.get("binary", {}).items():
        cmd: str = target["cmd"]
        if not cmd.strip() or "\0" in cmd:
            return f"distribution.binary.{key}.cmd: empty"
        sha = sums.get(key)
        binaries[key] = Binary(
            platform=key,
            archive=target["archive"],
            cmd=cmd,
            args=tuple(target.get("args", ())),
            env=dict(target.get("env", {})),
            sha256=sha.lower() if isinstance(sha, str) else None,
        )
    if npx is None and uvx is None and not binaries:
        return "no distribution acp-tui can install"
    return Release(version=version, npx=npx, uvx=uvx, binaries=binaries)


_NPM_NAME = re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$")
_PYPI_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9_,.-]+\])?$")


def _package(raw: Mapping[str, Any], version: str, kind: Kind) -> Package | str:
    """An npx (`name@1.2.3`, `@scope/name@1.2.3`) or uvx (`name==1.2.3`, `name@1.2.3`) package, pinned."""
    spec: str = raw["package"].strip()
    if kind == "npx":
        at = spec.find("@", 1)
        name, pinned = (spec[:at], spec[at + 1 :]) if at > 0 else (spec, version)
        valid_name = bool(_NPM_NAME.match(name))
    else:
        match = re.match(r"^([^=<>!~@ ]+)\s*(?:==|@)\s*(\S+)$", spec)
        name, pinned = (match.group(1), match.group(2)) if match else (spec, version)
        valid_name = bool(_PYPI_NAME.match(name))
    if not valid_name:
        return f"distribution.{kind}.package: {spec[:_REASON]!r} is not a package name acp-tui can install"
    if not _VERSION.match(pinned):
        return f"distribution.{kind}.package: {spec[:_REASON]!r} is not pinned to one exact version"
    cmd = raw.get("cmd")  # not in the shipped schema (its additionalProperties refuse it): kept if a later one adds it
    return Package(
        name=name,
        version=pinned,
        args=tuple(raw.get("args", ())),
        env=dict(raw.get("env", {})),
        cmd=cmd if isinstance(cmd, str) else None,
    )


def _schema_reason(error: Any) -> str:
    """A schema error as one short line: where, then what (the value quoted, cut)."""
    where = ".".join(str(part) for part in error.absolute_path) or "the entry"
    message = str(error.message)
    if len(message) > _REASON:
        message = message[:_REASON] + "…"
    return f"{where}: {message}"


def describe_kinds(kinds: Sequence[Kind]) -> str:
    """`npx, binary`: the kinds as a list."""
    return ", ".join(kinds) or "none"
