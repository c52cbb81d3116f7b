"""Reading a transcript back: every complete, known record, typed; whatever else is skipped.

A crash of acp-tui mid-write leaves a torn last line; a newer acp-tui may write record kinds this one does
not know; a format 1 file (before tool-call content was typed) decodes with the same types. None of
these stops the reader: a line that does not decode to a known record is skipped, and unknown fields are
ignored.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import msgspec

from acp_tui.transcript.records import Record

__all__ = ["load_records", "iter_records", "decode_record"]


@functools.cache
def _decoder() -> msgspec.json.Decoder[Record]:
    """Built when a transcript is first read (~2 ms of start-up otherwise: a union of every record kind)."""
    return msgspec.json.Decoder(Record)


def decode_record(line: bytes) -> Record | None:
    """One line as a record, or `None` if it is torn, not JSON, or not a record this reader knows."""
    try:
        return _decoder().decode(line)
    except msgspec.DecodeError:  # a ValidationError (unknown "ev", wrong shape) is a DecodeError too
        return None


def iter_records(path: Path) -> Iterator[Record]:
    """The records of a transcript in file order, read a line at a time."""
    with open(path, "rb") as file:
        for line in file:
            if line.strip():
                record = decode_record(line)
                if record is not None:
                    yield record


def load_records(path: Path) -> list[Record]:
    """Every complete, known record of a transcript (see the module docstring for what is skipped)."""
    return list(iter_records(path))
