"""The wire trace (`--log FILE` / `ACP_TUI_LOG`): every frame, stderr line and event as one JSON line.

Each line is `{"t": seconds, "dir": "->"|"<-"|"stderr"|"event", "msg": ...}`. A frame that is
JSON is embedded as JSON; anything else is logged as a string. The file is pure ASCII: control
characters (ESC included) and non-ASCII text are `\\u` escaped, so `cat`-ing the log can never
drive the terminal.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import IO, Any, Literal, Protocol

import msgspec

from acp_tui.secrets import holds_secret, redact_value

Direction = Literal["->", "<-", "stderr", "event"]

#: Environment variable naming the trace file when `--log` is not given.
LOG_ENV = "ACP_TUI_LOG"


class TraceSink(Protocol):
    """Anything that records frames; the connection calls it for every line sent and received."""

    def record(self, direction: Direction, payload: bytes | str | Any) -> None: ...


class WireTrace:
    """Appends trace lines to a file; opened once, flushed per line so a crash loses nothing."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._file: IO[bytes] | None = open(self.path, "ab")
        self._t0 = time.monotonic()

    @classmethod
    def from_env(cls, path: str | os.PathLike[str] | None = None) -> WireTrace | None:
        """The trace for an explicit path, else for `$ACP_TUI_LOG`, else `None`."""
        chosen = path if path else os.environ.get(LOG_ENV)
        return cls(chosen) if chosen else None

    def record(self, direction: Direction, payload: bytes | str | Any) -> None:
        """Write one trace line; `payload` is a raw frame (bytes), a text line, or any JSON value."""
        if self._file is None:
            return
        t = round(time.monotonic() - self._t0, 6)
        head = b'{"t":' + repr(t).encode() + b',"dir":' + json.dumps(direction).encode() + b',"msg":'
        try:
            body = _as_json(payload)
            if holds_secret(body):
                # Keys we set and masked input never reach the file, whoever echoes them (docs/protocol.md §2.4).
                body = json.dumps(redact_value(json.loads(body)), ensure_ascii=True, separators=(",", ":")).encode()
        except (RecursionError, ValueError, TypeError):
            # Nested deeper than the decoders recurse (a hostile line): logged as text, redacted as text.
            text = (
                bytes(payload).decode("utf-8", "replace")
                if isinstance(payload, (bytes, bytearray, memoryview))
                else str(payload)
            )
            body = json.dumps(redact_value(text), ensure_ascii=True).encode()
        self._file.write(head + body + b"}\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file; later records are dropped."""
        if self._file is not None:
            self._file.close()
            self._file = None


_validate = msgspec.json.Decoder(msgspec.Raw).decode


def _as_json(payload: bytes | str | Any) -> bytes:
    """The payload as ASCII JSON: valid JSON frames embedded, other bytes logged as strings."""
    if isinstance(payload, (bytes, bytearray, memoryview)):
        raw = bytes(payload)
        if raw.isascii():
            try:
                _validate(raw)
            except msgspec.DecodeError:
                pass
            else:
                # Valid JSON cannot hold raw control characters, and the bytes are ASCII.
                return raw
        text = raw.decode("utf-8", errors="replace")
        try:
            value = json.loads(text)
        except ValueError:
            return json.dumps(text, ensure_ascii=True).encode()
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode()
    if isinstance(payload, str):
        return json.dumps(payload, ensure_ascii=True).encode()
    value = msgspec.json.decode(msgspec.json.encode(payload))
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode()


__all__ = ["Direction", "LOG_ENV", "TraceSink", "WireTrace"]
