"""Finding the processes a test started, by a unique marker in their command line."""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line contains `marker` (zombies have an empty one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    """A word that names a test's processes; whatever still carries it afterwards is killed (a failed test)."""
    word = uuid.uuid4().hex
    yield word
    for _ in range(20):
        found = processes_with(word)
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
