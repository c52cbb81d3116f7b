"""A file index of the session's working directory, built in a background thread for the `@` picker.

Typing must never wait for it: the builder publishes what it has found every few thousand entries
(shallow entries first: the walk is breadth-first), and readers take a `Corpus` snapshot, which costs
nothing and never blocks on the builder. When the walk ends the entries are re-ordered by rank
(shorter paths first) and published once more as a complete corpus.

What is indexed, as git would see it: `.gitignore` files (at every level, and those of parent
directories up to the repository top) and `.git/info/exclude`, matched by the `pathspec` library;
an ignored directory is not entered. VCS directories (`.git`, `.hg`, `.svn`, `.jj`) are never
indexed. Hidden entries (a component starting with `.`) are indexed after everything else and
flagged, so the matcher can leave them out unless the query asks for them. Symbolic links are listed
but never followed (no loops), and a directory reached twice (a bind mount) is entered once.
A hard cap on entries and a time budget bound the work on huge trees; the corpus says why it stopped.

File names are data from the disk: kept exactly (undecodable bytes as surrogate escapes) for
reading the file later; anything shown must be sanitised by the caller.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from itertools import accumulate, repeat
from operator import contains
from typing import TYPE_CHECKING, Literal

import msgspec
import msgspec.structs

if TYPE_CHECKING:  # imported by the index thread when it reads an ignore file, not at start-up
    import pathspec

__all__ = [
    "CharMasks",
    "Corpus",
    "FileIndex",
    "IndexStatus",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_TIME_BUDGET",
    "is_hidden_path",
]

#: More entries than this and the walk stops (the picker says the index is partial).
DEFAULT_MAX_ENTRIES = 250_000
#: Seconds of walking before the walk stops (a network file system, a vast tree).
DEFAULT_TIME_BUDGET = 15.0
#: Entries gathered between two publications of the growing corpus.
PUBLISH_EVERY = 4096
#: Seconds between two publications, whatever the count.
PUBLISH_INTERVAL = 0.05
#: Never indexed: version-control internals.
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".jj"})

IndexStatus = Literal["idle", "building", "complete", "truncated", "failed"]


def is_hidden_path(relative: str) -> bool:
    """True when any component of a relative POSIX path starts with a dot."""
    return relative.startswith(".") or "/." in relative


#: Characters with a precomputed bitmask: those of most file names.
MASK_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789._-/"


class CharMasks(msgspec.Struct, frozen=True, eq=False):
    """Per character, which entries contain it: byte `i` of `mask.to_bytes(size, "big")` is 1 when
    entry `i` does. Big integers make the AND of several characters a few microseconds."""

    chars: dict[str, int]
    #: every entry, and the entries that are not hidden
    all: int
    visible: int
    #: every lower-case path joined by NUL (no file name holds one), and where each starts: one C-level
    #: `count`/`find` tells how often and where a query occurs as a substring, in rank order
    blob: str
    starts: list[int]

    @staticmethod
    def build(lower: Sequence[str], visible: Sequence[int], size: int) -> CharMasks:
        """The masks of the first `size` entries (about 5 ms per character per 100,000 paths)."""
        strings = lower[:size]
        chars = {char: int.from_bytes(bytes(map(contains, strings, repeat(char))), "big") for char in MASK_ALPHABET}
        flags = bytearray(size)
        for index in visible:
            flags[index] = 1
        starts = list(accumulate((len(text) + 1 for text in strings), initial=0))[:-1] if size else []
        return CharMasks(
            chars, int.from_bytes(b"\x01" * size, "big"), int.from_bytes(flags, "big"), "\0".join(strings), starts
        )


class Corpus(msgspec.Struct, frozen=True, eq=False):
    """An immutable view of the index: the first `size` entries of append-only lists.

    `paths[i]` is the path relative to the root in POSIX form, a directory with a trailing `/`;
    `lower[i]` is its lower-case form, `base[i]` the lower-case last component (with the `/` of a
    directory) and `base_start[i]` the offset of the last component in `paths[i]`.
    `visible` lists the indices of the entries that are not hidden, in order. `generation` changes
    when the lists are replaced (a re-ordered or rebuilt index), never while they grow.
    """

    paths: list[str]
    lower: list[str]
    base: list[str]
    base_start: list[int]
    visible: list[int]
    size: int
    visible_size: int
    generation: int
    status: IndexStatus
    #: why a truncated or failed walk stopped, for the user
    reason: str = ""
    #: character bitmasks for fast candidate selection (complete corpora only, once computed)
    masks: CharMasks | None = None

    @property
    def complete(self) -> bool:
        """The walk is over (finished, capped or failed): no more entries will appear."""
        return self.status in ("complete", "truncated", "failed")

    @staticmethod
    def empty(status: IndexStatus = "idle", generation: int = 0) -> Corpus:
        return Corpus([], [], [], [], [], 0, 0, generation, status)

    @staticmethod
    def from_paths(relative_paths: Sequence[str], generation: int = 1) -> Corpus:
        """A complete corpus from a list of relative paths (directories end with `/`), for tests and benches."""
        builder = _Lists()
        for relative in relative_paths:
            builder.add(relative)
        return builder.ranked().snapshot(generation, "complete", "").with_masks()

    def with_masks(self) -> Corpus:
        """The same corpus with its character bitmasks computed (same generation: same entries).

        Only for a ranked corpus (hidden entries last), as `FileIndex` and `from_paths` make.
        """
        return msgspec.structs.replace(
            self, masks=CharMasks.build(self.lower, self.visible[: self.visible_size], self.size)
        )


class _Lists(msgspec.Struct):
    """The builder's append-only lists; a snapshot is a `Corpus` of their current lengths."""

    paths: list[str] = msgspec.field(default_factory=list)
    lower: list[str] = msgspec.field(default_factory=list)
    base: list[str] = msgspec.field(default_factory=list)
    base_start: list[int] = msgspec.field(default_factory=list)
    visible: list[int] = msgspec.field(default_factory=list)

    def add(self, relative: str) -> None:
        index = len(self.paths)
        lowered = relative.lower()
        if lowered == relative:
            lowered = relative  # one string object, not two equal ones
        self.paths.append(relative)
        self.lower.append(lowered)
        self.base.append(lowered[lowered.rfind("/", 0, len(lowered) - 1) + 1 :])
        self.base_start.append(relative.rfind("/", 0, len(relative) - 1) + 1)
        if not is_hidden_path(relative):
            self.visible.append(index)

    def snapshot(self, generation: int, status: IndexStatus, reason: str) -> Corpus:
        return Corpus(
            self.paths,
            self.lower,
            self.base,
            self.base_start,
            self.visible,
            len(self.paths),
            len(self.visible),
            generation,
            status,
            reason,
        )

    def ranked(self) -> _Lists:
        """The same entries ordered by rank: visible first, then shorter paths, then by name.

        The matcher keeps corpus order within each tier, so this order is its tie-break for free.
        """
        keyed = sorted(zip(map(is_hidden_path, self.paths), map(len, self.paths), self.lower, self.paths, strict=True))
        ranked = _Lists()
        for _, _, _, relative in keyed:
            ranked.add(relative)
        return ranked


class _Ignore:
    """The ignore rules that apply inside one directory, lowest priority first.

    Each rule is `(strip, prepend, spec)`: a path relative to the root that starts with `strip` is
    matched as `prepend + path[len(strip):]`, i.e. relative to the directory of its ignore file
    (`strip` for files at or below the root, `prepend` for files above it).
    """

    __slots__ = ("rules",)

    def __init__(self, rules: tuple[tuple[str, str, pathspec.GitIgnoreSpec], ...]) -> None:
        self.rules = rules

    def with_file(self, base: str, spec: pathspec.GitIgnoreSpec | None) -> _Ignore:
        return self if spec is None else _Ignore((*self.rules, (base, "", spec)))

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """Git's answer for `relative`: the nearest ignore file with a matching pattern decides."""
        for strip, prepend, spec in reversed(self.rules):
            if strip and not relative.startswith(strip):
                continue
            local = prepend + relative[len(strip) :]
            result = spec.check_file(local.rstrip("/") + "/" if is_dir else local)
            if result.include is not None:
                return bool(result.include)
        return False


def _read_spec(path: str) -> pathspec.GitIgnoreSpec | None:
    """The patterns of one ignore file, or None when it is absent, unreadable, not a regular file (a FIFO
    would block the index for good: opened with O_NONBLOCK, it is left alone) or has none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
        with open(fd, encoding="utf-8", errors="replace") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            lines = handle.read(1 << 20).splitlines()
    except OSError:
        return None
    if not any(line.strip() and not line.startswith("#") for line in lines):
        return None
    import pathspec  # here, not at the top: 40 ms of import the first screen does not need

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except (ValueError, TypeError):
        return None


def _root_rules(root: str) -> _Ignore:
    """The rules from above the root: `.git/info/exclude` and the `.gitignore` files up to the repo top.

    Dropped when they ignore the root itself: a session started inside an ignored directory (a build
    output, a vendored tree) still gets a useful picker.
    """
    ancestors: list[str] = []
    current = root
    top: str | None = None
    for _ in range(256):
        if os.path.lexists(os.path.join(current, ".git")):
            top = current
            break
        parent = os.path.dirname(current)
        if parent == current:
            return _Ignore(())
        ancestors.append(parent)
        current = parent
    if top is None:
        return _Ignore(())
    rules: list[tuple[str, str, pathspec.GitIgnoreSpec]] = []
    exclude = _read_spec(os.path.join(top, ".git", "info", "exclude"))
    if exclude is not None:
        rules.append(("", _below(top, root), exclude))
    for directory in reversed(ancestors):  # the repo top first: lower priority than deeper files
        spec = _read_spec(os.path.join(directory, ".gitignore"))
        if spec is not None:
            rules.append(("", _below(directory, root), spec))
    above = _Ignore(tuple(rules))
    if any(prepend for _, prepend, _ in rules) and above.ignored("", True):
        return _Ignore(())
    return above


def _below(directory: str, root: str) -> str:
    """The root's path below `directory`, with a trailing `/` ("" when they are the same)."""
    relative = os.path.relpath(root, directory).replace(os.sep, "/")
    return "" if relative == "." else relative + "/"


def folder_label(folder: str) -> str:
    """How an extra folder's entries are written: its absolute path, `~/…` under the home directory, with a
    trailing `/`. A mention token resolves it as written (`acp_tui.context.mentions.resolve`), and the user
    sees which folder a row is from."""
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and (folder == home or folder.startswith(home.rstrip("/") + "/")):
        folder = "~" + folder[len(home.rstrip("/")) :]
    return folder.rstrip("/") + "/"


class FileIndex:
    """The index of one directory tree (and the session's extra folders, written `folder_label(...)` +
    their relative path); `start()` builds it in a daemon thread, `corpus` reads it."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        extra_roots: Sequence[str | os.PathLike[str]] = (),
        max_entries: int = DEFAULT_MAX_ENTRIES,
        time_budget: float = DEFAULT_TIME_BUDGET,
        on_publish: Callable[[], None] | None = None,
    ) -> None:
        self.root = os.path.abspath(os.fspath(root))
        #: the session's extra folders (ACP `additionalDirectories`), absolute; the root itself is left out
        self.extra_roots = tuple(
            dict.fromkeys(
                folder for folder in (os.path.abspath(os.fspath(extra)) for extra in extra_roots) if folder != self.root
            )
        )
        self.max_entries = max_entries
        self.time_budget = time_budget
        #: called from the builder thread after each publication (e.g. to wake a UI timer); must be thread-safe
        self.on_publish = on_publish
        self._corpus = Corpus.empty()
        self._generation = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.built_at: float | None = None

    @property
    def corpus(self) -> Corpus:
        """The latest snapshot: never blocks, never waits for the walk."""
        return self._corpus

    @property
    def building(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def start(self) -> None:
        """Build the index if it has never been built (or is not being built); returns at once."""
        if self._thread is None:
            self.refresh()

    def refresh(self) -> None:
        """Build the index again in the background; the current corpus is served until the new one is complete.

        Only the first build publishes its growing lists: a rebuild would otherwise replace a complete
        (if stale) corpus by a partial one.
        """
        if self.building:
            return
        self._stop.clear()
        stream = self._corpus.generation == 0
        generation = self._next_generation()
        if stream:
            self._corpus = Corpus.empty("building", generation)
        thread = threading.Thread(target=self._build, args=(generation, stream), name="acp-tui-file-index", daemon=True)
        self._thread = thread
        thread.start()

    def stop(self) -> None:
        """Ask the walk to stop soon (the app is closing)."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current walk ends (tests and benches only); True if it ended."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _next_generation(self) -> int:
        with self._lock:
            self._generation += 1
            return self._generation

    # -- the walk (builder thread) ---------------------------------------------------------------

    def _publish(self, corpus: Corpus) -> None:
        self._corpus = corpus
        callback = self.on_publish
        if callback is not None:
            try:
                callback()
            except Exception:  # noqa: BLE001 - a UI that went away must not end the walk
                pass

    def _build(self, generation: int, stream: bool) -> None:
        lists = _Lists()
        try:
            status, reason = self._walk(lists, generation, stream)
        except Exception as exc:  # noqa: BLE001 - an unexpected file system error ends the walk, not the app
            status, reason = "failed", f"the file index stopped: {type(exc).__name__}"
        ranked = lists.ranked().snapshot(self._next_generation(), status, reason)
        self.built_at = time.monotonic()
        self._publish(ranked)
        self._publish(ranked.with_masks())

    def _walk(self, lists: _Lists, generation: int, stream: bool) -> tuple[IndexStatus, str]:
        """The root, then each extra folder (an unreadable extra folder is skipped, not a failure)."""
        started = time.monotonic()
        status, reason = self._walk_one(self.root, "", lists, generation, stream, started)
        for folder in self.extra_roots:
            if status != "complete":
                break
            extra_status, extra_reason = self._walk_one(
                folder, folder_label(folder), lists, generation, stream, started
            )
            if extra_status != "failed":
                status, reason = extra_status, extra_reason
        return status, reason

    def _walk_one(
        self, root: str, label: str, lists: _Lists, generation: int, stream: bool, started: float
    ) -> tuple[IndexStatus, str]:
        last_publish = time.monotonic()
        published_size = len(lists.paths)
        seen: set[tuple[int, int]] = set()
        try:
            info = os.stat(root)
            seen.add((info.st_dev, info.st_ino))
        except OSError as exc:
            return "failed", f"cannot read {os.path.basename(root) or root}: {exc.strerror or exc}"
        # (absolute dir, relative prefix with trailing "/", rules) ; hidden directories wait in their own queue
        queue: deque[tuple[str, str, _Ignore]] = deque([(root, "", _root_rules(root))])
        hidden_queue: deque[tuple[str, str, _Ignore]] = deque()
        limit = self.max_entries
        budget = self.time_budget
        while queue or hidden_queue:
            directory, prefix, rules = queue.popleft() if queue else hidden_queue.popleft()
            if self._stop.is_set():
                return "truncated", "the file index was stopped"
            try:
                with os.scandir(directory) as scan:
                    entries = sorted(scan, key=lambda e: e.name)
            except OSError:
                continue  # unreadable directory: skip it, keep the rest
            if any(entry.name == ".gitignore" for entry in entries):
                rules = rules.with_file(prefix, _read_spec(os.path.join(directory, ".gitignore")))
            for entry in entries:
                name = entry.name
                if name in VCS_DIRS:
                    continue
                try:
                    is_link = entry.is_symlink()
                    real_dir = not is_link and entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                shown_dir = real_dir
                if is_link:
                    try:
                        shown_dir = entry.is_dir()  # a link to a directory shows as one (never entered)
                    except OSError:
                        shown_dir = False  # a loop or a dangling link: listed as a file
                relative = prefix + name
                if rules.rules and rules.ignored(relative, shown_dir):
                    continue
                lists.add(label + relative + "/" if shown_dir else label + relative)
                if real_dir:
                    try:
                        key = (entry.stat(follow_symlinks=False).st_dev, entry.inode())
                    except OSError:
                        continue
                    if key in seen:
                        continue
                    seen.add(key)
                    target = hidden_queue if name.startswith(".") or prefix and is_hidden_path(prefix) else queue
                    target.append((entry.path, relative + "/", rules))
                if len(lists.paths) >= limit:
                    return "truncated", f"the file index stopped at {limit:,} entries"
            now = time.monotonic()
            if now - started > budget:
                return "truncated", f"the file index stopped after {budget:g} s"
            if stream and (
                len(lists.paths) - published_size >= PUBLISH_EVERY or now - last_publish >= PUBLISH_INTERVAL
            ):
                if len(lists.paths) != published_size:
                    published_size = len(lists.paths)
                    last_publish = now
                    self._publish(lists.snapshot(generation, "building", ""))
        return "complete", ""
