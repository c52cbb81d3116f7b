"""Where the registry's index comes from: the published URL (or a mirror's, or a file), cached for a day.

`registry = "URL or path"` in config.toml, or `ACP_TUI_REGISTRY` (which wins), names another index; the
default is the one the registry project publishes (its README). A URL's index is kept in acp-tui's state folder
with its `ETag` and `Last-Modified`; within a day it is used as it is, after that (or with `--refresh`) it is
asked for again conditionally, so an unchanged index costs one `304 Not Modified`. When the server cannot be
reached the cached copy is used and a note says how old it is; with no cache either, the copy shipped in the
package (data/registry.json, data/PROVENANCE), so the first run works offline. A file is read as it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from acp_tui import __version__, paths
from acp_tui.registry.entries import Entry, Unusable, parse_index
from acp_tui.sanitize import escape_controls

__all__ = ["DEFAULT_URL", "ENV", "FRESH_FOR", "Index", "IndexError_", "load_index", "location"]

#: the index the registry project publishes (github.com/agentclientprotocol/registry, README "Usage")
DEFAULT_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
ENV = "ACP_TUI_REGISTRY"
#: how long a fetched index is used without asking the server again
FRESH_FOR = 24 * 3600.0
#: the largest index read (the published one is a few tens of KB)
MAX_INDEX_BYTES = 64 * 1024 * 1024
TIMEOUT = 15.0


class IndexError_(Exception):
    """The index could not be had at all; `str()` is the one line to show."""


@dataclass(frozen=True)
class Index:
    """The agents of one index, and where it came from."""

    entries: tuple[Entry, ...]
    unusable: tuple[Unusable, ...]
    #: entries past `entries.MAX_ENTRIES`, not read
    left_out: int
    #: a line saying where the index came from and how old it is
    origin: str
    #: what the user should know about how it was had (offline, the shipped copy...)
    notes: tuple[str, ...] = ()
    #: the URL or file it was asked for (an install records it)
    where: str = ""
    _by_id: dict[str, Entry] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update((entry.id, entry) for entry in self.entries)

    def find(self, agent_id: str) -> Entry | None:
        """The valid entry with this id, if any."""
        return self._by_id.get(agent_id)

    def unusable_entry(self, agent_id: str) -> Unusable | None:
        return next((item for item in self.unusable if item.id == agent_id), None)


def location(setting: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The index to read: `ACP_TUI_REGISTRY`, else config.toml's `registry`, else the published one."""
    environ = os.environ if environ is None else environ
    return (environ.get(ENV) or "").strip() or (setting or "").strip() or DEFAULT_URL


def _is_url(where: str) -> bool:
    return urllib.parse.urlsplit(where).scheme.lower() in ("http", "https")


def load_index(
    where: str,
    *,
    refresh: bool = False,
    offline: bool = False,
    now: Callable[[], float] = time.time,
) -> Index:
    """The index at `where` (a URL or a file). `refresh` asks the server even within a day; `offline` never
    does (the cache, else the shipped copy). Raises IndexError_ only for a file that cannot be read."""
    if not _is_url(where):
        path = Path(where.removeprefix("file://")).expanduser()
        try:
            data = _read_capped(path)
        except OSError as exc:
            raise IndexError_(
                f"cannot read the registry index {escape_controls(str(path))}: {exc.strerror or exc}"
            ) from None
        return _index(data, f"{escape_controls(str(path))}", (), str(path))
    cache = _Cache(where)
    meta = cache.meta()
    fetched_at = meta.get("fetched_at") if meta is not None else None
    fresh = isinstance(fetched_at, (int, float)) and now() - fetched_at < FRESH_FOR
    if meta is not None and (offline or (fresh and not refresh)):
        cached = cache.read()
        if cached is not None:
            return _index(cached, f"{where} ({_age(meta, now)})", (), where)
    if offline:
        return _shipped((), where)
    try:
        fetched = _fetch(where, meta if cache.read() is not None else None)
    except OSError as exc:
        reason = _reason(exc)
        cached = cache.read()
        if meta is not None and cached is not None:
            note = f"the registry could not be reached ({reason}); using the copy fetched {_age(meta, now)}"
            return _index(cached, f"{where} ({_age(meta, now)})", (note,), where)
        return _shipped((f"the registry could not be reached ({reason})",), where)
    if fetched is None:  # 304: what we have is current
        assert meta is not None
        cache.write_meta({**meta, "fetched_at": now()})
        cached = cache.read()
        assert cached is not None
        return _index(cached, f"{where} (unchanged, checked just now)", (), where)
    data, headers = fetched
    try:
        index = _index(data, f"{where} (fetched just now)", (), where)
    except IndexError_ as exc:
        cached = cache.read()
        if meta is not None and cached is not None:
            return _index(cached, f"{where} ({_age(meta, now)})", (f"{exc}; using the copy fetched earlier",), where)
        raise
    cache.write(data, {"url": where, "fetched_at": now(), **headers})
    return index


def _index(data: bytes, origin: str, notes: tuple[str, ...], where: str) -> Index:
    try:
        document = json.loads(data)
        entries, unusable, left_out = parse_index(document)
    except (ValueError, RecursionError) as exc:
        raise IndexError_(f"the registry index at {escape_controls(where)} is unusable: {str(exc)[:200]}") from None
    if left_out:
        notes = (
            *notes,
            f"the index lists {len(entries) + len(unusable) + left_out} agents; the first "
            f"{len(entries) + len(unusable)} were read",
        )
    return Index(tuple(entries), tuple(unusable), left_out, origin, notes, where)


def _shipped(notes: tuple[str, ...], where: str) -> Index:
    """The copy in the package: the first run offline, or a mirror that cannot be reached yet."""
    data = (resources.files("acp_tui.registry") / "data" / "registry.json").read_bytes()
    provenance = (resources.files("acp_tui.registry") / "data" / "PROVENANCE").read_text("utf-8")
    when = next((line.split(None, 1)[1] for line in provenance.splitlines() if line.startswith("snapshot ")), "")
    shipped_note = f"using the copy shipped with acp-tui ({when.strip()})" if when else "using the shipped copy"
    index = _index(data, f"the copy shipped with acp-tui {__version__}", (*notes, shipped_note), where)
    return index


def _age(meta: Mapping[str, object], now: Callable[[], float]) -> str:
    fetched = meta.get("fetched_at")
    if not isinstance(fetched, (int, float)):
        return "fetched earlier"
    seconds = max(0.0, now() - fetched)
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(fetched))
    if seconds < 3600:
        return f"fetched {stamp}, {int(seconds // 60)} min ago"
    if seconds < 48 * 3600:
        return f"fetched {stamp}, {int(seconds // 3600)} h ago"
    return f"fetched {stamp}, {int(seconds // 86400)} days ago"


def _reason(exc: OSError) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code}"
    if isinstance(exc, urllib.error.URLError):
        return escape_controls(str(exc.reason))[:200]
    return escape_controls(str(exc.strerror or exc))[:200]


def _read_capped(path: Path) -> bytes:
    with open(path, "rb") as file:
        data = file.read(MAX_INDEX_BYTES + 1)
    if len(data) > MAX_INDEX_BYTES:
        raise OSError(0, f"larger than {MAX_INDEX_BYTES // (1024 * 1024)} MiB")
    return data


def _fetch(url: str, meta: Mapping[str, object] | None) -> tuple[bytes, dict[str, str]] | None:
    """GET the index, conditionally when we hold a copy: (body, validators), or None for 304. Raises OSError."""
    headers = {"User-Agent": f"acp-tui/{__version__}", "Accept": "application/json"}
    if meta is not None:
        if isinstance(meta.get("etag"), str):
            headers["If-None-Match"] = str(meta["etag"])
        if isinstance(meta.get("last_modified"), str):
            headers["If-Modified-Since"] = str(meta["last_modified"])
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            body = response.read(MAX_INDEX_BYTES + 1)
            if len(body) > MAX_INDEX_BYTES:
                raise OSError(0, f"the index is larger than {MAX_INDEX_BYTES // (1024 * 1024)} MiB")
            validators = {
                key: value
                for key, value in (
                    ("etag", response.headers.get("ETag")),
                    ("last_modified", response.headers.get("Last-Modified")),
                )
                if value
            }
            return body, validators
    except urllib.error.HTTPError as exc:
        if exc.code == 304 and meta is not None:
            return None
        raise
    except TimeoutError as exc:
        raise OSError(0, "timed out") from exc


class _Cache:
    """One URL's cached index and its validators, in the state folder (deleting it loses nothing)."""

    def __init__(self, url: str) -> None:
        self.folder = paths.state_dir() / "registry" / hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]

    def meta(self) -> dict[str, object] | None:
        try:
            meta = json.loads((self.folder / "meta.json").read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return meta if isinstance(meta, dict) else None

    def read(self) -> bytes | None:
        try:
            return _read_capped(self.folder / "index.json")
        except OSError:
            return None

    def write(self, data: bytes, meta: Mapping[str, object]) -> None:
        """Both files replaced whole (a reader sees the old copy or the new one); a failure loses the cache only."""
        with contextlib.suppress(OSError):
            paths.ensure_dir(self.folder)
            _replace(self.folder / "index.json", data)
            _replace(self.folder / "meta.json", json.dumps(dict(meta)).encode("utf-8"))

    def write_meta(self, meta: Mapping[str, object]) -> None:
        with contextlib.suppress(OSError):
            _replace(self.folder / "meta.json", json.dumps(dict(meta)).encode("utf-8"))


def _replace(path: Path, data: bytes) -> None:
    handle, name = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
