"""Secret values of this process (keys we set for the agent, what the user typed into a masked field), redacted
wherever acp-tui writes or shows text.

A secret is registered once, when it comes into being: a value typed into a masked input, the output
of a config `env` command, a config `env` value whose name says it is a key. From then on `redact`
replaces every occurrence with `REDACTED`, and the places that write or show text call it: the
sanitising functions every shown or saved string passes through (`acp_tui.sanitize`), the wire trace
(`--log`), the prompt history. Nothing is ever written to disk by this module; the registry lives only
as long as the process (docs/protocol.md §2.4).

A value is also registered in the forms JSON gives it (escaped quotes and backslashes, `\\u` escapes), so a
frame that carries it inside a JSON string is redacted too. Values shorter than `MIN_LENGTH` are not
registered: redacting every "ab" in the conversation would hide more than it protects.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

__all__ = [
    "MIN_LENGTH",
    "REDACTED",
    "clear",
    "forget",
    "holds_secret",
    "is_secret",
    "redact",
    "redact_bytes",
    "redact_value",
    "register",
]

#: What a secret is replaced with.
REDACTED = "••••••"
#: Shorter values are not treated as secrets (they would redact ordinary text).
MIN_LENGTH = 4

_lock = threading.Lock()
_values: set[str] = set()
_pattern: re.Pattern[str] | None = None
_bytes_pattern: re.Pattern[bytes] | None = None


def _forms(value: str) -> set[str]:
    """The value and the ways a JSON encoder may have spelled it inside a string."""
    return {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}


def _rebuild() -> None:
    global _pattern, _bytes_pattern
    forms = sorted({form for value in _values for form in _forms(value)}, key=len, reverse=True)
    if not forms:
        _pattern = _bytes_pattern = None
        return
    _pattern = re.compile("|".join(re.escape(form) for form in forms))
    _bytes_pattern = re.compile(b"|".join(re.escape(form.encode("utf-8")) for form in forms))


def register(value: str) -> bool:
    """Treat `value` as a secret from now on (surrounding whitespace ignored); False when it is too short."""
    value = value.strip()
    if len(value) < MIN_LENGTH:
        return False
    with _lock:
        if value not in _values:
            _values.add(value)
            _rebuild()
    return True


def forget(value: str) -> None:
    """Stop redacting `value` (the user logged out and the key is no longer ours to hide)."""
    with _lock:
        if value.strip() in _values:
            _values.discard(value.strip())
            _rebuild()


def clear() -> None:
    """Forget every secret (tests)."""
    with _lock:
        _values.clear()
        _rebuild()


def is_secret(value: str) -> bool:
    return value.strip() in _values


def redact(text: str) -> str:
    """`text` with every registered secret replaced by `REDACTED` (unchanged, and cheap, when there is none)."""
    pattern = _pattern
    if pattern is None:
        return text
    return pattern.sub(REDACTED, text)


def redact_bytes(data: bytes) -> bytes:
    """`redact` for raw bytes (a wire frame as sent or received)."""
    pattern = _bytes_pattern
    if pattern is None:
        return data
    return pattern.sub(REDACTED.encode("utf-8"), data)


def holds_secret(data: bytes) -> bool:
    """Does `data` contain a registered secret (in any of its JSON spellings)?"""
    pattern = _bytes_pattern
    return pattern is not None and pattern.search(data) is not None


def redact_value(value: Any) -> Any:
    """A decoded JSON value with every string in it (keys too) redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(item) for item in value]
    if isinstance(value, dict):
        return {redact(str(key)): redact_value(item) for key, item in value.items()}
    return value
