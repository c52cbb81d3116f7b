"""How to show an elicitation URL so that what the user reads is what would open (pure).

docs/protocol.md §10.1: the client shows the full URL with its host highlighted, never opens it
without consent, and should warn about hosts that may not be what they seem. `describe_url` gives
the URL as display segments: the exact characters the agent sent, with every control, format or
bidirectional character written out as a visible escape (`\\u202e`) instead of acting on the
terminal or reordering the text, and the host marked. The warnings explain anything a careful
reader should notice; `can_open` is False whenever opening would not take the user to exactly the
address shown (not http(s), no host, hidden characters, spaces, unparsable), and when it holds a key
the user typed here (`acp_tui.secrets`: shown as `••••••`, never in clear): copying still works.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from typing import Final, Literal, TypeAlias
from urllib.parse import urlsplit

import msgspec

from acp_tui import secrets
from acp_tui.sanitize import plain

__all__ = ["SegmentKind", "UrlView", "describe_url"]

#: `text`: shown as is; `host`: the host, highlighted; `hidden`: a visible escape for a character
#: that would otherwise be invisible or act on the terminal.
SegmentKind: TypeAlias = Literal["text", "host", "hidden"]
#: Beyond this many characters a URL gets a "very long" warning (it is still shown in full).
LONG_URL: Final = 2000
_OPENABLE: Final = frozenset({"http", "https"})


class UrlView(msgspec.Struct, frozen=True):
    """A URL ready to show: its segments, its host in ASCII (and Unicode when that differs), warnings."""

    url: str
    segments: tuple[tuple[str, SegmentKind], ...]
    scheme: str
    host: str
    host_unicode: str
    warnings: tuple[str, ...]
    can_open: bool


def _hidden(char: str) -> bool:
    """Characters that must not reach the screen as themselves: controls, format (bidi, zero-width), separators."""
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn")


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _segments(text: str, kind: SegmentKind) -> list[tuple[str, SegmentKind]]:
    """`text` split into runs of `kind` and of `hidden` escapes."""
    out: list[tuple[str, SegmentKind]] = []
    run = ""
    for char in text:
        if _hidden(char):
            if run:
                out.append((run, kind))
                run = ""
            out.append((_escape(char), "hidden"))
        else:
            run += char
    if run:
        out.append((run, kind))
    return out


def describe_url(url: str) -> UrlView:
    """Everything the URL dialog shows about `url` (see the module docstring)."""
    warnings: list[str] = []
    hidden = any(_hidden(char) for char in url)
    if hidden:
        warnings.append("It contains invisible or control characters, shown here as \\x.. or \\u.... escapes.")
    if " " in url:
        warnings.append("It contains spaces, so it may not be one address.")
    if len(url) > LONG_URL:
        warnings.append(f"It is very long ({len(url)} characters); read it to the end.")
    try:
        parts = urlsplit(url)
        host_raw = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        warnings.append("It cannot be read as a URL.")
        return UrlView(url, tuple(_segments(url, "text")), "", "", "", tuple(warnings), False)
    scheme = parts.scheme.lower()
    if scheme not in _OPENABLE:
        shown = plain(scheme) or "no scheme"
        warnings.append(f"It is not a web address ({shown}); it can only be copied.")
    if "@" in parts.netloc:
        warnings.append("It has a user name before the host; the real host is the part after the @.")
    host, host_unicode = _host_forms(host_raw, warnings)
    if scheme in _OPENABLE and not host:
        warnings.append("It has no host.")
    # urlsplit drops tabs and line breaks (as browsers do), so offsets into `url` only hold without them
    shifted = any(char in url for char in "\t\r\n")
    segments = _marked(url, parts.netloc, scheme) if host and not shifted else _segments(url, "text")
    can_open = scheme in _OPENABLE and bool(host) and not hidden and " " not in url
    if secrets.holds_secret(url.encode("utf-8", "surrogatepass")):
        segments = _masked(segments, url)
        warnings.append(
            f"It contains a key you typed here (shown as {secrets.REDACTED}): opening it would hand the "
            "key to that site, so it can only be copied."
        )
        can_open = False
    return UrlView(url, tuple(segments), scheme, host, host_unicode, tuple(warnings), can_open)


def _masked(segments: list[tuple[str, SegmentKind]], url: str) -> list[tuple[str, SegmentKind]]:
    """`segments` with every registered secret (`acp_tui.secrets`) shown as `REDACTED`; when one spans two
    segments (the host and the path, say) the whole URL is masked as plain text instead."""
    masked = [(secrets.redact(text) if kind != "hidden" else text, kind) for text, kind in segments]
    joined = "".join(text for text, _ in masked)
    if secrets.holds_secret(joined.encode("utf-8", "surrogatepass")):
        return _segments(secrets.redact(url), "text")
    return masked


def _host_forms(host: str, warnings: list[str]) -> tuple[str, str]:
    """The host as ASCII (punycode) and as Unicode, warning about IDNs and bare IP addresses."""
    if not host:
        return "", ""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        warnings.append("The host is a bare IP address, not a name.")
        return plain(host), plain(host)
    ascii_form, unicode_form = host, host
    if not host.isascii():
        try:
            ascii_form = host.encode("idna").decode("ascii")
        except UnicodeError:
            ascii_form = "".join(c if c.isascii() else _escape(c) for c in host)
    elif any(label.startswith("xn--") for label in host.split(".")):
        try:
            unicode_form = host.encode("ascii").decode("idna")
        except UnicodeError:
            unicode_form = host
    if ascii_form != unicode_form:
        warnings.append(
            f"The host is an international name: {plain(unicode_form)} is {ascii_form}. "
            "Look-alike letters can imitate another site."
        )
    return plain(ascii_form), plain(unicode_form)


def _marked(url: str, netloc: str, scheme: str) -> list[tuple[str, SegmentKind]]:
    """Segments with the host (the netloc after any `user@`, before any `:port`) marked."""
    start = url.find("//", len(scheme))
    if start < 0 or not netloc:
        return _segments(url, "text")
    netloc_start = start + 2
    host_start = netloc_start + netloc.rfind("@") + 1
    host_part = netloc[netloc.rfind("@") + 1 :]
    if host_part.startswith("["):
        host_len = host_part.find("]") + 1 or len(host_part)
    else:
        colon = host_part.rfind(":")
        host_len = colon if colon >= 0 else len(host_part)
    host_end = host_start + host_len
    return [
        *_segments(url[:host_start], "text"),
        *_segments(url[host_start:host_end], "host"),
        *_segments(url[host_end:], "text"),
    ]
