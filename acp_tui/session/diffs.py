"""File changes as hunks: a unified diff, or an old/new text pair, parsed into files, hunks and rows, and
one hunk applied to or reverted from a text.

Below the UI so that anything can name a hunk: the diff view draws these rows, and hunk review (accept,
reject with a revert on disk) and the context block that tells the agent what was rejected work on the same
hunks and ids (docs/architecture.md, "Diffs as hunks"; docs/protocol.md §6.3).

- A hunk's id is a hash of its path, its place in the old text and its old and new lines: the same hunk
  in a diff announced again (a tool call updated, the same write reported twice) keeps its id, whatever
  the hunks around it.
- Lines keep their own ending (`\\n`, `\\r\\n`, or none for a last line without one: git's
  `\\ No newline at end of file`), so applying every hunk gives the new text byte for byte, CRLF and all.
- Applying or reverting a hunk checks the text at the hunk's place first: a text that no longer holds
  what the hunk expects gives a `Conflict` naming both, never a guess.
- An agent's diff is untrusted and may be huge: parsing is one pass, keeps at most `Limits` files, hunks
  and rows and counts the rest (`Omitted`); a text pair is matched line by line (difflib) only while the
  part that differs is small (`MAX_MATCH_WORK`), else it is one replaced block: never quadratic.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Iterator, Sequence
from typing import Any, Final, Literal

import msgspec

__all__ = [
    "DEFAULT_LIMITS",
    "MAX_MATCH_WORK",
    "NO_NEWLINE",
    "Applied",
    "Conflict",
    "ConflictReason",
    "DiffRow",
    "Ending",
    "FileDiff",
    "Hunk",
    "HunkResult",
    "Limits",
    "Omitted",
    "Patch",
    "RowKind",
    "apply_hunk",
    "diff_texts",
    "parse_patch",
    "revert_hunk",
    "split_lines",
    "unified_diff",
]

#: A row of a hunk: a line both sides keep, or one only the new or only the old side has.
RowKind = Literal["context", "added", "removed"]
#: How a line ends: `""` only for a text's last line without a line break.
Ending = Literal["\n", "\r\n", ""]
#: Why a hunk could not be applied or reverted: the text at its place differs, or the caps cut the hunk.
ConflictReason = Literal["changed", "incomplete"]

#: git's marker for a last line without a line break.
NO_NEWLINE: Final = "\\ No newline at end of file"
#: The most line comparisons a text pair may cost (old lines × new lines of the part that differs,
#: after the common head and tail are set aside): difflib matches within it; past it the part is one
#: replaced block (a correct diff, not a minimal one).
MAX_MATCH_WORK: Final = 1_000_000
#: Context lines around a change in a diff built from a text pair (as `diff -u` and git).
CONTEXT_LINES: Final = 3

#: `@@ -a,b +c,d @@ heading`; numbers of at most 18 digits (a longer one is not a hunk, never a huge int).
_HUNK: Final = re.compile(r"^@@ -(\d{1,18})(?:,(\d{1,18}))? \+(\d{1,18})(?:,(\d{1,18}))? @@ ?(.*)$")


class Limits(msgspec.Struct, frozen=True):
    """What a parse keeps of an agent's diff; the rest is counted in `Omitted`."""

    files: int = 1_000
    hunks: int = 2_000
    rows: int = 50_000


DEFAULT_LIMITS: Final = Limits()


class DiffRow(msgspec.Struct, frozen=True):
    """One line of a hunk: its text without its ending, and its 1-based number on each side it is on."""

    kind: RowKind
    text: str
    old: int | None = None
    new: int | None = None
    ending: Ending = "\n"

    @property
    def line(self) -> str:
        """The line as the text holds it (with its ending)."""
        return self.text + self.ending


class Hunk(msgspec.Struct, frozen=True):
    """One change of a file: its rows, where it starts on each side, and its stable `id`."""

    id: str
    path: str
    #: 0-based index of the hunk's first line in the old text (where it goes when nothing is removed)
    old_index: int
    #: 1-based start numbers as a `@@ -old_start,… +new_start,… @@` header says them
    old_start: int
    new_start: int
    heading: str
    rows: tuple[DiffRow, ...]
    #: False when the caps cut the hunk: its rows are only the first ones, and it cannot be applied
    complete: bool = True

    @property
    def old_lines(self) -> tuple[str, ...]:
        """The lines the old text holds at the hunk's place (context and removed rows)."""
        return tuple(row.line for row in self.rows if row.kind != "added")

    @property
    def new_lines(self) -> tuple[str, ...]:
        """The lines the new text holds at the hunk's place (context and added rows)."""
        return tuple(row.line for row in self.rows if row.kind != "removed")

    @property
    def delta(self) -> int:
        """Lines the hunk adds to the text (negative: removes)."""
        return sum(1 if row.kind == "added" else -1 for row in self.rows if row.kind != "context")

    def header(self) -> str:
        """The hunk's `@@ … @@` line."""
        old_count = sum(1 for row in self.rows if row.kind != "added")
        new_count = sum(1 for row in self.rows if row.kind != "removed")
        heading = f" {self.heading}" if self.heading else ""
        return f"@@ -{_range(self.old_start, old_count)} +{_range(self.new_start, new_count)} @@{heading}"


class FileDiff(msgspec.Struct, frozen=True):
    """One file of a diff: its path (the new side's; the old side's for a deleted file; `""` when the patch
    names none), what happened to it, and its hunks."""

    path: str
    old_path: str = ""
    created: bool = False
    deleted: bool = False
    binary: bool = False
    hunks: tuple[Hunk, ...] = ()

    def hunk(self, hunk_id: str) -> Hunk | None:
        """The hunk with that id, if the file has it."""
        return next((hunk for hunk in self.hunks if hunk.id == hunk_id), None)


class Omitted(msgspec.Struct, frozen=True):
    """What the caps left out of a parse, counted (rows and `\\ No newline` markers of cut hunks too)."""

    files: int = 0
    hunks: int = 0
    #: hunks left out that follow another hunk of their file (a view draws a gap before each)
    later_hunks: int = 0
    rows: int = 0
    markers: int = 0


class Patch(msgspec.Struct, frozen=True):
    """A parsed diff: the files kept, lines added and removed in all of it, and what the caps left out."""

    files: tuple[FileDiff, ...]
    added: int = 0
    removed: int = 0
    omitted: Omitted = Omitted()

    @property
    def truncated(self) -> bool:
        """Did the caps leave anything out?"""
        omitted = self.omitted
        return bool(omitted.files or omitted.hunks or omitted.rows or omitted.markers)

    def hunks(self) -> Iterator[Hunk]:
        """Every kept hunk, file by file."""
        for file in self.files:
            yield from file.hunks


class Applied(msgspec.Struct, frozen=True, tag="applied"):
    """The text with the hunk applied (or reverted)."""

    text: str


class Conflict(msgspec.Struct, frozen=True, tag="conflict"):
    """The text does not hold what the hunk expects at its place (1-based `line`); nothing was changed."""

    reason: ConflictReason
    line: int
    expected: tuple[str, ...]
    found: tuple[str, ...]

    def describe(self) -> str:
        """One line for the user."""
        if self.reason == "incomplete":
            return "the hunk was too long to keep whole, so it cannot be applied"
        return f"the file changed since at line {self.line}"


HunkResult = Applied | Conflict


# -- lines ---------------------------------------------------------------------------------------


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its `\\n` (the last one without, when the text does not end in one).

    Only `\\n` breaks a line (as in git): `str.splitlines` would also break at `\\r`, `\\x0b`, `\\u2028`, …
    and a round trip would lose them."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _row(kind: RowKind, line: str, old: int | None, new: int | None) -> DiffRow:
    if line.endswith("\r\n"):
        return DiffRow(kind, line[:-2], old, new, "\r\n")
    if line.endswith("\n"):
        return DiffRow(kind, line[:-1], old, new, "\n")
    return DiffRow(kind, line, old, new, "")


def _range(start: int, count: int) -> str:
    return str(start) if count == 1 else f"{start},{count}"


def _blake2b() -> Any:
    """CPython's own BLAKE2b (`_blake2`): `hashlib` would map OpenSSL's libcrypto into a client that opens no
    network connection (docs/performance.md, "No OpenSSL in the client")."""
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without its own hashes
        from hashlib import blake2b
    return blake2b(digest_size=8)


def _hunk_id(path: str, old_index: int, old_lines: Sequence[str], new_lines: Sequence[str]) -> str:
    digest = _blake2b()
    for part in (path, str(old_index), *old_lines, "\x00+", *new_lines):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()


def _hunk(path: str, old_start: int, new_start: int, heading: str, rows: Sequence[DiffRow], complete: bool) -> Hunk:
    old_lines = [row.line for row in rows if row.kind != "added"]
    new_lines = [row.line for row in rows if row.kind != "removed"]
    old_index = max(old_start - 1, 0) if old_lines else old_start
    return Hunk(
        id=_hunk_id(path, old_index, old_lines, new_lines),
        path=path,
        old_index=old_index,
        old_start=old_start,
        new_start=new_start,
        heading=heading,
        rows=tuple(rows),
        complete=complete,
    )


# -- a unified diff ------------------------------------------------------------------------------


def _header_path(text: str) -> str:
    """The path of a `--- a/x` / `+++ b/x` header's rest (`""` for `/dev/null`)."""
    candidate = text.split("\t", 1)[0].rstrip("\r")
    if candidate.startswith(("a/", "b/")):
        candidate = candidate[2:]
    return "" if candidate == "/dev/null" else candidate


def _git_paths(rest: str) -> tuple[str, str]:
    """(old, new) of `diff --git a/x b/y`: a path with spaces is read when both sides name it, else the
    last word is the new side."""
    rest = rest.rstrip("\r")
    half = (len(rest) - 1) // 2
    if len(rest) % 2 == 1 and rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return _header_path(rest[:half]), _header_path(rest[half + 1 :])
    words = rest.split(" ")
    return _header_path(words[0]), _header_path(words[-1])


class _File:
    """The headers of the file being read (mutable while its header lines come)."""

    __slots__ = ("binary", "created", "deleted", "git", "hunks", "kept", "old_path", "path", "seen_hunks")

    def __init__(self, path: str, old_path: str, *, git: bool, kept: bool) -> None:
        self.path, self.old_path, self.git, self.kept = path, old_path, git, kept
        self.created = self.deleted = self.binary = False
        self.hunks: list[Hunk] = []
        self.seen_hunks = 0  # kept or not

    def diff(self) -> FileDiff:
        return FileDiff(self.path, self.old_path, self.created, self.deleted, self.binary, tuple(self.hunks))


class _Parser:
    """One pass over a patch's lines; keeps what `Limits` allows and counts the rest."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.files: list[FileDiff] = []
        self.added = self.removed = 0
        self.kept_hunks = self.kept_rows = 0
        self.omitted_files = self.omitted_hunks = self.later_hunks = self.omitted_rows = self.markers = 0
        self.file: _File | None = None
        # the hunk being read
        self.in_hunk = self.hunk_kept = False
        self.hunk_complete = True
        self.rows: list[DiffRow] = []
        self.last_kept = False  # is the last row read kept (a marker then belongs to it)?
        self.start = (0, 0, "")
        self.old = self.new = self.left_old = self.left_new = 0

    # files and hunks

    def start_file(self, path: str, old_path: str = "", *, git: bool = False) -> _File:
        self.end_file()
        kept = len(self.files) < self.limits.files
        self.omitted_files += 0 if kept else 1
        self.file = _File(path, old_path, git=git, kept=kept)
        return self.file

    def end_hunk(self) -> None:
        if self.in_hunk and self.hunk_kept and self.file is not None:
            old_start, new_start, heading = self.start
            self.file.hunks.append(_hunk(self.file.path, old_start, new_start, heading, self.rows, self.hunk_complete))
        self.in_hunk = self.last_kept = False
        self.rows = []

    def end_file(self) -> None:
        self.end_hunk()
        if self.file is not None and self.file.kept:
            self.files.append(self.file.diff())
        self.file = None

    def start_hunk(self, match: re.Match[str]) -> None:
        self.end_hunk()
        file = self.file if self.file is not None else self.start_file("")
        old_start, new_start = int(match.group(1)), int(match.group(3))
        self.left_old = int(match.group(2)) if match.group(2) is not None else 1
        self.left_new = int(match.group(4)) if match.group(4) is not None else 1
        self.old, self.new = old_start, new_start
        self.start = (old_start, new_start, match.group(5).rstrip("\r"))
        self.in_hunk = self.hunk_complete = True
        full = self.kept_rows >= self.limits.rows or self.kept_hunks >= self.limits.hunks
        self.hunk_kept = file.kept and not full
        if self.hunk_kept:
            self.kept_hunks += 1
        else:
            self.omitted_hunks += 1
            self.later_hunks += 1 if file.seen_hunks else 0
        file.seen_hunks += 1

    # rows

    def row(self, kind: RowKind, raw: str) -> None:
        """A row from its patch line without the sign (`\\r` at its end: a CRLF line)."""
        old = self.old if kind != "added" else None
        new = self.new if kind != "removed" else None
        if kind != "added":
            self.old += 1
            self.left_old -= 1
        if kind != "removed":
            self.new += 1
            self.left_new -= 1
        self.added += kind == "added"
        self.removed += kind == "removed"
        if self.hunk_kept and self.kept_rows < self.limits.rows:
            self.kept_rows += 1
            self.rows.append(_row(kind, raw + "\n", old, new))
            self.last_kept = True
            return
        self.hunk_complete = False
        self.omitted_rows += 1
        self.last_kept = False

    def marker(self) -> None:
        """`\\ No newline at end of file`: the row before it is a last line without a line break."""
        if self.last_kept and self.rows:
            last = self.rows[-1]
            raw = last.text + ("\r" if last.ending == "\r\n" else "")
            self.rows[-1] = DiffRow(last.kind, raw, last.old, last.new, "")
        elif self.in_hunk:
            self.markers += 1

    # lines

    def hunk_line(self, line: str) -> None:
        """A line the hunk's counts say is one of its rows."""
        if line.startswith("+"):
            self.row("added", line[1:])
        elif line.startswith("-"):
            self.row("removed", line[1:])
        elif line.startswith("\\"):
            self.marker()
        else:  # a context line; an empty one lost its space, anything else is shown as it came
            self.row("context", line[1:] if line.startswith(" ") else line)

    def header_line(self, line: str) -> None:
        """A line outside a hunk: the file's headers (anything else there is not the diff's)."""
        file = self.file
        if line.startswith("diff --git "):
            old_path, path = _git_paths(line[len("diff --git ") :])
            self.start_file(path or old_path, old_path, git=True)
        elif line.startswith("--- "):
            old_path = _header_path(line[4:])
            if file is None or not file.git or file.seen_hunks:
                file = self.start_file("", old_path)
            file.old_path = old_path
            file.created = file.created or not old_path
        elif line.startswith("+++ "):
            path = _header_path(line[4:])
            file = file if file is not None else self.start_file(path)
            file.path = path or file.old_path or file.path
            file.deleted = file.deleted or not path
        elif line.startswith(("Binary files ", "GIT binary patch")):
            file = file if file is not None else self.start_file("")
            file.binary = True
        elif line.startswith("new file mode") and file is not None:
            file.created = True
        elif line.startswith("deleted file mode") and file is not None:
            file.deleted = True

    def feed(self, lines: Iterator[str]) -> None:
        pending: str | None = None  # a `--- ` line after a hunk: a header if `+++ ` follows, else a row
        for line in lines:
            if pending is not None:
                if line.startswith("+++ "):
                    self.end_hunk()
                    self.header_line(pending)
                    self.header_line(line)
                    pending = None
                    continue
                self.row("removed", pending[1:])
                pending = None
            if self.in_hunk and (self.left_old > 0 or self.left_new > 0):
                self.hunk_line(line)
            elif (match := _HUNK.match(line)) is not None:
                self.start_hunk(match)
            elif self.in_hunk and line.startswith("--- "):
                pending = line
            elif self.in_hunk and line.startswith(("+", "-", " ", "\\")):
                self.hunk_line(line)  # more rows than the header counted: kept, as sent
            else:
                self.end_hunk()
                self.header_line(line)
        if pending is not None:
            self.row("removed", pending[1:])
        self.end_file()

    def patch(self) -> Patch:
        omitted = Omitted(self.omitted_files, self.omitted_hunks, self.later_hunks, self.omitted_rows, self.markers)
        return Patch(files=tuple(self.files), added=self.added, removed=self.removed, omitted=omitted)


def _patch_lines(text: str) -> Iterator[str]:
    """The lines of a patch, one at a time (a 100 MB patch is never split into a list, nor copied), without
    the empty lines at its end."""
    start = blanks = 0
    while start <= len(text):
        stop = text.find("\n", start)
        line = text[start:] if stop < 0 else text[start:stop]
        start = len(text) + 1 if stop < 0 else stop + 1
        if not line:
            blanks += 1
            continue
        for _ in range(blanks):
            yield ""
        blanks = 0
        yield line


def parse_patch(text: str, limits: Limits = DEFAULT_LIMITS) -> Patch:
    """The files and hunks of a unified diff (git's or plain `diff -u`), in one pass.

    Headers (`diff --git`, `---`/`+++`, `new file mode`, `Binary files … differ`) name each file; a hunk's
    header counts say which lines are its rows (so a removed `--- x` line is a row, not a header); rows
    past the counts are kept as sent. Lines ending in `\\r` are CRLF lines."""
    parser = _Parser(limits)
    parser.feed(_patch_lines(text))
    return parser.patch()


# -- a text pair ---------------------------------------------------------------------------------

_Opcode = tuple[str, int, int, int, int]


def _opcodes(old: Sequence[str], new: Sequence[str]) -> list[_Opcode]:
    """difflib-style opcodes from `old` to `new`: the common head and tail set aside in linear time, the
    rest matched by difflib while old × new lines stay within `MAX_MATCH_WORK`, else one replace."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
    ops: list[_Opcode] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    if old_mid or new_mid:
        if old_mid and new_mid and len(old_mid) * len(new_mid) <= MAX_MATCH_WORK:
            matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
            ops.extend(
                (tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            )
        else:
            tag = "replace" if old_mid and new_mid else ("delete" if old_mid else "insert")
            ops.append((tag, head, len(old) - tail, head, len(new) - tail))
    if tail:
        ops.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return ops


def _groups(ops: list[_Opcode], context: int) -> Iterator[list[_Opcode]]:
    """The opcodes grouped into hunks with `context` lines around each change (difflib's grouping)."""
    if not any(tag != "equal" for tag, *_ in ops):
        return
    ops = list(ops)
    if ops[0][0] == "equal":
        _, i1, i2, j1, j2 = ops[0]
        ops[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if ops[-1][0] == "equal":
        _, i1, i2, j1, j2 = ops[-1]
        ops[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    group: list[_Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _group_rows(group: list[_Opcode], old: Sequence[str], new: Sequence[str]) -> Iterator[tuple[RowKind, int, int]]:
    """(kind, old index, new index) of each row of a hunk, removed lines before added ones."""
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            for offset in range(i2 - i1):
                yield "context", i1 + offset, j1 + offset
            continue
        for i in range(i1, i2):
            yield "removed", i, j1
        for j in range(j1, j2):
            yield "added", i2, j


def _starts(group: list[_Opcode]) -> tuple[int, int]:
    """The 1-based `@@` starts of a group (an empty side names the line before it, as diff -u does)."""
    first, last = group[0], group[-1]
    old_start = first[1] + 1 if last[2] > first[1] else first[1]
    new_start = first[3] + 1 if last[4] > first[3] else first[3]
    return old_start, new_start


def diff_texts(
    path: str, old_text: str | None, new_text: str, *, context: int = CONTEXT_LINES, limits: Limits = DEFAULT_LIMITS
) -> Patch:
    """The diff from `old_text` to `new_text` of one file (`old_text` None: a new file), as ACP's `diff`
    content gives it (`path`, `oldText`, `newText`); bounded like `parse_patch`."""
    old, new = split_lines(old_text or ""), split_lines(new_text)
    hunks: list[Hunk] = []
    kept_rows = omitted_rows = omitted_hunks = later = 0
    added = removed = 0
    for group in _groups(_opcodes(old, new), context):
        count = sum(i2 - i1 + (j2 - j1 if tag != "equal" else 0) for tag, i1, i2, j1, j2 in group)
        added += sum(j2 - j1 for tag, _, _, j1, j2 in group if tag != "equal")
        removed += sum(i2 - i1 for tag, i1, i2, _, _ in group if tag != "equal")
        if len(hunks) >= limits.hunks or kept_rows >= limits.rows:
            later += 1 if hunks or omitted_hunks else 0  # every hunk but the file's first has one before it
            omitted_hunks += 1
            omitted_rows += count
            continue
        room = limits.rows - kept_rows
        rows: list[DiffRow] = []
        for kind, i, j in _group_rows(group, old, new):
            if len(rows) >= room:
                break
            line = new[j] if kind == "added" else old[i]
            rows.append(_row(kind, line, i + 1 if kind != "added" else None, j + 1 if kind != "removed" else None))
        kept_rows += len(rows)
        omitted_rows += count - len(rows)
        old_start, new_start = _starts(group)
        hunks.append(_hunk(path, old_start, new_start, "", rows, len(rows) == count))
    file = FileDiff(path=path, old_path="" if old_text is None else path, created=old_text is None, hunks=tuple(hunks))
    omitted = Omitted(hunks=omitted_hunks, later_hunks=later, rows=omitted_rows)
    return Patch(files=(file,), added=added, removed=removed, omitted=omitted)


def unified_diff(path: str, old_text: str | None, new_text: str, *, context: int = CONTEXT_LINES) -> str:
    """The whole change as a git patch (`diff --git`, `---`, `+++`, hunks; `\\ No newline at end of file`
    where a side ends without one). Linear in the texts beyond `MAX_MATCH_WORK`; builds no rows."""
    name = path.lstrip("/")
    out = [f"diff --git a/{name} b/{name}\n", "--- /dev/null\n" if old_text is None else f"--- a/{name}\n"]
    out.append(f"+++ b/{name}\n")
    old, new = split_lines(old_text or ""), split_lines(new_text)
    for group in _groups(_opcodes(old, new), context):
        old_start, new_start = _starts(group)
        old_count = sum(i2 - i1 for _, i1, i2, _, _ in group)
        new_count = sum(j2 - j1 for _, _, _, j1, j2 in group)
        out.append(f"@@ -{_range(old_start, old_count)} +{_range(new_start, new_count)} @@\n")
        for kind, i, j in _group_rows(group, old, new):
            line = new[j] if kind == "added" else old[i]
            out.append(("+" if kind == "added" else "-" if kind == "removed" else " ") + line)
            if not line.endswith("\n"):
                out.append(f"\n{NO_NEWLINE}\n")
    return "".join(out)


# -- applying and reverting one hunk -------------------------------------------------------------


def _place(file: FileDiff, hunk: Hunk, applied: Collection[str]) -> int:
    """The 0-based line where `hunk` sits in the old text with the `applied` hunks applied."""
    if file.hunk(hunk.id) is None:
        raise ValueError(f"hunk {hunk.id} is not one of {file.path or 'the file'}'s")
    shift = 0
    for other in file.hunks:
        if other.id == hunk.id:
            break
        if other.id in applied:
            shift += other.delta
    return hunk.old_index + shift


def _swap(text: str, line: int, expected: tuple[str, ...], replacement: tuple[str, ...], complete: bool) -> HunkResult:
    lines = split_lines(text)
    found = tuple(lines[line : line + len(expected)]) if line >= 0 else ()
    if not complete:
        return Conflict("incomplete", line + 1, expected, found)
    if line < 0 or found != expected:
        return Conflict("changed", line + 1, expected, found)
    return Applied("".join([*lines[:line], *replacement, *lines[line + len(expected) :]]))


def apply_hunk(text: str, file: FileDiff, hunk: Hunk, *, applied: Collection[str] = ()) -> HunkResult:
    """`text` (the old text with the hunks whose ids are in `applied` applied) with `hunk` applied too, or
    the `Conflict` of what its place holds instead. Any order gives the same text in the end."""
    if hunk.id in applied:
        raise ValueError(f"hunk {hunk.id} is applied already")
    return _swap(text, _place(file, hunk, applied), hunk.old_lines, hunk.new_lines, hunk.complete)


def revert_hunk(text: str, file: FileDiff, hunk: Hunk, *, applied: Collection[str] = ()) -> HunkResult:
    """`text` (the old text with the `applied` hunks applied, `hunk` among them) with `hunk` taken back,
    or the `Conflict` of what its place holds instead (a file changed since the agent wrote it)."""
    if hunk.id not in applied:
        raise ValueError(f"hunk {hunk.id} is not applied")
    return _swap(text, _place(file, hunk, applied), hunk.new_lines, hunk.old_lines, hunk.complete)
