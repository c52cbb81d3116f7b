"""Newline-delimited framing: bytes in, complete lines out (docs/protocol.md §1.1: one JSON message per line).

Pure and I/O-free. Agents send 15 KB session results and multi-megabyte tool outputs on one
line, so the limit is generous and optional (`max_line`; the connection uses `MAX_LINE_BYTES`):
a line growing past it is not kept but dropped as it arrives, its first `OVERSIZED_HEAD` bytes
kept for the report (`on_oversized`), so an agent that never sends a newline cannot exhaust
memory. The search for the next newline resumes where the previous one stopped, so a huge line
arriving in many small reads stays linear.
"""

from __future__ import annotations

from collections.abc import Callable

#: The longest line the connection keeps (a line past it is dropped and reported, never buffered).
MAX_LINE_BYTES = 128 * 1024 * 1024
#: How much of a dropped line is kept for the report (and to find the id of a request in it).
OVERSIZED_HEAD = 64 * 1024


class LineFramer:
    """Accumulates chunks and returns complete lines without the `\\n`, `\\r\\n` or blank lines."""

    __slots__ = ("_buffer", "_scanned", "_max_line", "_on_oversized", "_head", "_dropped")

    def __init__(self, max_line: int | None = None, on_oversized: Callable[[bytes, int], None] | None = None) -> None:
        self._buffer = bytearray()
        # Bytes of `_buffer` already known to hold no newline.
        self._scanned = 0
        self._max_line = max_line
        #: told (head, size) of each line dropped for its length, when its end arrives
        self._on_oversized = on_oversized
        self._head: bytes | None = None  # the start of the line being dropped, while one is
        self._dropped = 0

    def feed(self, data: bytes) -> list[bytes]:
        """Add a chunk; return every line it completes, in order (a line dropped for its length is reported)."""
        if self._head is not None:
            newline = data.find(b"\n")
            if newline < 0:
                self._dropped += len(data)
                return []
            self._dropped += newline
            self._end_oversized()
            data = data[newline + 1 :]
            if not data:
                return []
        lines = self._feed(data)
        if self._max_line is not None and len(self._buffer) > self._max_line:
            self._head = bytes(self._buffer[:OVERSIZED_HEAD])
            self._dropped = len(self._buffer)
            self._buffer = bytearray()
            self._scanned = 0
        return lines

    def _end_oversized(self) -> None:
        head, size = self._head, self._dropped
        self._head, self._dropped = None, 0
        if head is not None and self._on_oversized is not None:
            self._on_oversized(head, size)

    @property
    def pending(self) -> int:
        """Bytes of an incomplete line held back until its newline arrives."""
        return len(self._buffer)

    def _feed(self, data: bytes) -> list[bytes]:
        buffer = self._buffer
        if not buffer:
            # Fast path: the chunk starts on a line boundary (the common case).
            if data.endswith(b"\n"):
                return _split(data, len(data))
            last = data.rfind(b"\n")
            if last < 0:
                buffer += data
                self._scanned = len(data)
                return []
            lines = _split(data, last + 1)
            buffer += data[last + 1 :]
            self._scanned = len(buffer)
            return lines
        buffer += data
        newline = buffer.find(b"\n", self._scanned)
        if newline < 0:
            self._scanned = len(buffer)
            return []
        last = buffer.rfind(b"\n")
        lines = _split(buffer, last + 1)
        del buffer[: last + 1]
        self._scanned = len(buffer)
        return lines

    def finish(self) -> list[bytes]:
        """At end of stream: the unterminated last line, if it is not blank."""
        if self._head is not None:
            self._end_oversized()
        rest = bytes(self._buffer)
        self._buffer.clear()
        self._scanned = 0
        rest = rest.rstrip(b"\r")
        return [rest] if rest.strip() else []


def _split(data: bytes | bytearray, end: int) -> list[bytes]:
    """Split `data[:end]` (which ends with a newline) into non-blank lines with CR stripped.

    One C-level `split` does the scanning; only the per-line checks run in Python.
    """
    chunk = data if type(data) is bytes and end == len(data) else bytes(data[:end])
    parts = chunk.split(b"\n")
    parts.pop()  # the empty piece after the final newline
    out: list[bytes] = []
    append = out.append
    for line in parts:
        if not line:
            continue
        if line[-1] == 13:  # CRLF
            line = line[:-1]
            if not line:
                continue
        if line[0] not in _SPACE or line.strip():
            append(line)
    return out


_SPACE = frozenset(b" \t\r\n\f\v")

__all__ = ["MAX_LINE_BYTES", "OVERSIZED_HEAD", "LineFramer"]
