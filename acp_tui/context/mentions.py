"""`@` mentions in prompt text: the token a path becomes, the query being typed, the mentions a text holds.

A token is `@path` for a plain path and `@"..."` for any other: the quoted form escapes `"`, `\\`
and every character that is not printable (newlines, escapes, bidi overrides, zero-width characters,
undecodable bytes) as `\\n`, `\\x1b`, `\\u202e`, ..., so a hostile file name shows as what it is and
cannot break the prompt's lines or spoof its text. Tokens are reversible: parsing one gives back the
exact path, which is what is read and sent. A token counts as a mention only when its path exists
(relative to the session's working directory, or absolute, or under `~`), so an e-mail address or
a decorator in a pasted snippet stays text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec

__all__ = [
    "Mention",
    "PromptSubmission",
    "MentionQuery",
    "mention_token",
    "parse_token",
    "mention_query",
    "find_tokens",
    "mentions_in_text",
    "resolve",
    "relative_display",
    "escape_char",
]


class Mention(msgspec.Struct, frozen=True):
    """A file or directory the prompt points at.

    `path` is exact (relative to the working directory, absolute, or starting with `~`); `token` is
    how it appears in the prompt text (see `mention_token`).
    """

    path: str
    token: str

    @staticmethod
    def of(path: str) -> Mention:
        return Mention(path, mention_token(path))


class PromptSubmission(msgspec.Struct, frozen=True):
    """What the prompt hands the screen on Enter: the text as sent (pastes expanded, mention tokens
    kept) and the mentions found in it, in order of first appearance, each path once."""

    text: str
    mentions: tuple[Mention, ...] = ()


class MentionQuery(msgspec.Struct, frozen=True):
    """The partial mention before the cursor: `@` at column `start`, `query` typed after it."""

    start: int
    query: str
    quoted: bool = False


#: Characters a bare token may not contain (they end it, or need the quoted form).
_BARE_STOP = re.compile(r'[\s"\\]')
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_UNESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}

#: A token in text: `@` at the start or after whitespace or an opening bracket, then a quoted or a bare path.
TOKEN = re.compile(r'(?<![^\s(\[{<])@(?:"((?:[^"\\\n]|\\.)*)"|([^\s"]+))')
#: Punctuation that may follow a bare token in prose and is then not part of the path.
_TRAILING = ".,;:!?)]}>'"


def _needs_quotes(path: str) -> bool:
    return not path or _BARE_STOP.search(path) is not None or not path.isprintable() or _has_surrogates(path)


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def escape_char(char: str) -> str:
    """How one character of a path is written in a quoted token (itself when printable)."""
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isprintable() and not 0xD800 <= ord(char) <= 0xDFFF:
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def mention_token(path: str) -> str:
    """`@path`, or `@"escaped path"` when the path has spaces, quotes or unprintable characters."""
    if not _needs_quotes(path):
        return "@" + path
    return '@"' + "".join(map(escape_char, path)) + '"'


_UNESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


def _unescape(body: str) -> str:
    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) > 1:
            return chr(int(code[1:], 16))
        return _UNESCAPES.get(code, code)

    return _UNESCAPE.sub(replace, body)


def parse_token(token: str) -> str | None:
    """The exact path of a whole token (`@path` or `@"..."`), or None when it is not one."""
    match = TOKEN.fullmatch(token)
    if match is None:
        return None
    quoted, bare = match.groups()
    return _unescape(quoted) if quoted is not None else bare


def mention_query(line: str, column: int) -> MentionQuery | None:
    """The mention being typed at `column` of `line`, or None: `@` at the start of a word, then no
    whitespace up to the cursor (or, after `@"`, anything but a closing quote)."""
    before = line[:column]
    at = before.rfind("@")
    while at >= 0:
        if at == 0 or before[at - 1].isspace() or before[at - 1] in "([{<":
            break
        at = before.rfind("@", 0, at)
    if at < 0:
        return None
    typed = before[at + 1 :]
    if typed.startswith('"'):
        body = typed[1:]
        if re.search(r'(?<!\\)"', body):
            return None  # the quoted token is closed
        return MentionQuery(at, _unescape(body), quoted=True)
    if any(char.isspace() for char in typed) or '"' in typed:
        return None
    return MentionQuery(at, typed)


def find_tokens(text: str) -> Iterator[tuple[int, int, str]]:
    """Every token-shaped span in `text`: (start, end, path), trailing prose punctuation left out of
    bare tokens. Whether the path exists is not checked here."""
    for match in TOKEN.finditer(text):
        quoted, bare = match.groups()
        if quoted is not None:
            yield match.start(), match.end(), _unescape(quoted)
            continue
        end = match.end()
        path = bare
        while len(path) > 1 and path[-1] in _TRAILING:
            path = path[:-1]
            end -= 1
        yield match.start(), end, path


def resolve(path: str, cwd: str | os.PathLike[str]) -> Path:
    """The absolute path a mention names: `~` expanded, relative paths taken from `cwd` (not resolved:
    symbolic links stay as the user named them)."""
    expanded = os.path.expanduser(path) if path.startswith("~") else path
    return Path(os.path.normpath(os.path.join(os.fspath(cwd), expanded)))


def relative_display(path: Path, cwd: str | os.PathLike[str]) -> str:
    """How a path is written in a token: relative to `cwd` when inside it, else absolute."""
    try:
        relative = path.relative_to(os.fspath(cwd))
    except ValueError:
        return str(path)
    return relative.as_posix() or "."


def mentions_in_text(text: str, cwd: str | os.PathLike[str] | None) -> tuple[Mention, ...]:
    """The mentions in `text` whose paths exist (each path once, in order), for a working directory.

    A bare token is tried whole, then without trailing prose punctuation (`see @app.py.` names
    `app.py` unless `app.py.` exists). Without a working directory only absolute and `~` paths count.
    """
    found: list[Mention] = []
    seen: set[str] = set()
    for match in TOKEN.finditer(text):
        quoted, bare = match.groups()
        options: list[tuple[str, int]]
        if quoted is not None:
            options = [(_unescape(quoted), match.end())]
        else:
            options = [(bare, match.end())]
            while len(bare) > 1 and bare[-1] in _TRAILING:
                bare = bare[:-1]
                options.append((bare, match.start() + 1 + len(bare)))
        for path, end in options:
            if cwd is None and not path.startswith(("/", "~")):
                break
            candidate = resolve(path, cwd if cwd is not None else "/")
            if not os.path.lexists(candidate):
                continue
            key = os.fspath(candidate)
            if key not in seen:
                seen.add(key)
                found.append(Mention(path, text[match.start() : end]))
            break
    return tuple(found)
