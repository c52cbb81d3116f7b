"""The frame tap: every JSON-RPC frame of one connection, the newest kept, for the inspector and the check.

It sits where the wire trace sits (`Connection(trace=...)`) and passes every record on to the `--log` file, which
keeps everything; in memory a ring of the newest frames: at most `CAPACITY` of them and `BYTES` of their text
(a frame may be 128 MB: ten thousand of them are not kept for the inspector), the newest always. Recording one
costs a bounded amount whatever the history: the envelope's head (id, method) is decoded with msgspec skipping
the rest, a response is paired with the request it answers through a bounded map of open ids, and a listener
(the open inspector) is told, or nobody.
Problems the codec or reducer find while handling a frame mark the frame received last (they are found
synchronously, in receive order: docs/architecture.md, "Data flow").
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Any, Literal

import msgspec

from acp_tui.agent.trace import Direction, TraceSink

FrameDirection = Literal["->", "<-"]
#: frames kept in memory (the rest only in the `--log` file)
CAPACITY = 10_000
#: bytes of frame text kept in memory (beyond it the oldest frames go; the newest frame is kept whatever its size)
BYTES = 32 * 1024 * 1024
#: distinct method names shared by every frame that has them (each decoded name is a new string: 8,000 chunks
#: kept 8,000 copies of "session/update"); names beyond these are kept as they came
SHARED_METHODS = 256
#: requests awaiting their answer that are remembered per direction (a flood of unanswered ids cannot grow it)
OPEN_REQUESTS = 4_096


class _Head(msgspec.Struct):
    id: int | str | None = None
    method: str | None = None


_decode_head = msgspec.json.Decoder(_Head).decode


class Frame(msgspec.Struct):
    """One frame as it went over the wire."""

    seq: int
    #: wall-clock time (seconds since the epoch)
    time: float
    direction: FrameDirection
    raw: bytes
    method: str | None
    id: int | str | None
    #: the method of the request this response answers
    answers: str | None = None
    #: why it failed to decode or which rule it broke (None: nothing found)
    problem: str | None = None

    @property
    def label(self) -> str:
        """The method, or the request answered (`↩ session/prompt`), or `?`."""
        if self.method is not None:
            return self.method
        if self.answers is not None:
            return f"↩ {self.answers}"
        return "?"


class FrameLog:
    """A `TraceSink` that keeps the newest frames and passes every record on (to the `--log` file)."""

    def __init__(self, passes_to: TraceSink | None = None, *, capacity: int = CAPACITY, budget: int = BYTES) -> None:
        self.passes_to = passes_to
        self.frames: deque[Frame] = deque(maxlen=capacity)
        self._budget = budget
        self._bytes = 0  # text of the frames kept
        self._methods: dict[str, str] = {}
        #: frames recorded in all (the oldest `total - len(frames)` are gone from memory)
        self.total = 0
        #: called with each frame as it is recorded, and with a frame newly marked (the open inspector)
        self.listener: Callable[[Frame], None] | None = None
        self._open: dict[FrameDirection, OrderedDict[int | str, str]] = {"->": OrderedDict(), "<-": OrderedDict()}
        self._last_received: Frame | None = None

    def record(self, direction: Direction, payload: bytes | str | Any) -> None:
        if self.passes_to is not None:
            self.passes_to.record(direction, payload)
        if direction == "->" or direction == "<-":
            raw = bytes(payload) if isinstance(payload, (bytes, bytearray, memoryview)) else str(payload).encode()
            self._add(direction, raw)

    def _add(self, direction: FrameDirection, raw: bytes) -> None:
        problem: str | None = None
        try:
            head = _decode_head(raw)
        except (msgspec.DecodeError, RecursionError):
            head, problem = _Head(), "not a JSON-RPC object"
        self.total += 1
        method = head.method
        if method is not None:
            method = self._methods.get(method) or self._share(method)
        frame = Frame(self.total, time.time(), direction, raw, method, head.id, problem=problem)
        if head.id is not None:
            if method is not None:
                opened = self._open[direction]
                opened[head.id] = method
                if len(opened) > OPEN_REQUESTS:
                    opened.popitem(last=False)
            else:
                frame.answers = self._open["<-" if direction == "->" else "->"].pop(head.id, None)
        frames = self.frames
        if len(frames) == frames.maxlen:
            self._bytes -= len(frames[0].raw)
        frames.append(frame)
        self._bytes += len(raw)
        while self._bytes > self._budget and len(frames) > 1:
            self._bytes -= len(frames.popleft().raw)
        if direction == "<-":
            self._last_received = frame
        if self.listener is not None:
            self.listener(frame)

    def _share(self, method: str) -> str:
        if len(self._methods) < SHARED_METHODS:
            self._methods[method] = method
        return method

    def mark_last_received(self, reason: str) -> None:
        """A rule the frame received last broke (or why it could not be decoded): shown with it."""
        frame = self._last_received
        if frame is None:
            return
        frame.problem = reason if frame.problem is None else f"{frame.problem}; {reason}"
        if self.listener is not None:
            self.listener(frame)

    @property
    def dropped(self) -> int:
        """Frames no longer in memory."""
        return self.total - len(self.frames)

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def __len__(self) -> int:
        return len(self.frames)


__all__ = ["BYTES", "CAPACITY", "SHARED_METHODS", "Frame", "FrameDirection", "FrameLog"]
