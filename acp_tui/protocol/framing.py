"""Newline-delimited framing: bytes in, complete lines out (docs/protocol.md §1.1: one JSON message per line).

Pure and I/O-free. There is no line length limit (agents send 15 KB session results and
multi-megabyte tool outputs on one line), and the search for the next newline resumes where
the previous one stopped, so a huge line arriving in many small reads stays linear.
"""

from __future__ import annotations


class LineFramer:
    """Accumulates chunks and returns complete lines without the `\\n`, `\\r\\n` or blank lines."""

    __slots__ = ("_buffer", "_scanned")

    def __init__(self) -> None:
        self._buffer = bytearray()
        # Bytes of `_buffer` already known to hold no newline.
        self._scanned = 0

    @property
    def pending(self) -> int:
        """Bytes of an incomplete line held back until its newline arrives."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Add a chunk; return every line it completes, in order."""
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

__all__ = ["LineFramer"]
