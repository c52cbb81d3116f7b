"""The frame tap: every JSON-RPC frame of one connection, the newest kept, for the inspector and the check.

It sits where the wire trace sits (`Connection(trace=...)`) and passes every record on to the `--log` file, which
keeps everything; in memory the newest frames: at most `CAPACITY` of them and `BYTES` of their text (a frame may be
128 MB: ten thousand of them are not kept for the inspector), the newest always. Recording one costs a bounded
amount whatever the history: the envelope's head (id, method) is decoded with msgspec skipping the rest, a response
is paired with the request it answers through a bounded map of open ids, and a listener (the open inspector) is
told, or nobody.
Kept compactly (issue 27: the log was the largest consumer of a long streamed answer, ~400 bytes a frame): the
newest frames are `Frame` objects in an open page; a full page (`PAGE` frames or `PAGE_BYTES` of text) is sealed
into columns (times in an array, each frame's direction, method and answer an index into the page's table of them,
ids and problems sparse) with its text joined and compressed once (zlib, level 1: streamed updates repeat
themselves, a page of them shrinks ~50 times; 8,000 of them take ~25 bytes a frame in all, not ~400). A frame too
large for a page gets a page of its own, kept as it came: one compress costs at most `PAGE_BYTES`, on the hot path
or on a read. Reading (iteration either way, `find`) makes `Frame`s again, a page at a time, each page decompressed
once per walk; the count of frames marked is kept, so the open inspector's summary walks nothing.
Problems the codec or reducer find while handling a frame mark the frame received last (they are found
synchronously, in receive order: docs/architecture.md, "Data flow"); it may have been sealed already (a sent frame
can come between).
"""

from __future__ import annotations

import time
import zlib
from array import array
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from itertools import accumulate
from operator import attrgetter
from typing import Any, Literal

import msgspec

from acp_tui.agent.trace import Direction, TraceSink

FrameDirection = Literal["->", "<-"]
#: frames kept in memory (the rest only in the `--log` file)
CAPACITY = 10_000
#: bytes of frame text kept in memory, counted as it came over the wire (beyond it the oldest frames go; the newest
#: frame is kept whatever its size). The memory it takes is less: sealed pages are compressed (the text of frames
#: dropped from the oldest page goes with the page, at most `PAGE_BYTES` of it)
BYTES = 32 * 1024 * 1024
#: frames in one page: sealed (compressed) once it holds this many
PAGE = 128
#: bytes of frame text in one page: sealed once it holds this much; a frame that would take a page past it seals the
#: page first, and a frame larger than this is a page of its own, kept uncompressed (what one compress may cost)
PAGE_BYTES = 256 * 1024
#: distinct method names shared by every frame that has them (each decoded name is a new string: 8,000 chunks
#: kept 8,000 copies of "session/update"); names beyond these are kept as they came
SHARED_METHODS = 256
#: requests awaiting their answer that are remembered per direction (a flood of unanswered ids cannot grow it)
OPEN_REQUESTS = 4_096


class _Head(msgspec.Struct):
    id: int | str | None = None
    method: str | None = None


_decode_head = msgspec.json.Decoder(_Head).decode


class Frame(msgspec.Struct, gc=False):
    """One frame as it went over the wire (untracked by the collector: it holds no containers)."""

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


_Kind = tuple[FrameDirection, str | None, str | None]  # direction, method, answers
_kind_of = attrgetter("direction", "method", "answers")
_time_of = attrgetter("time")
_raw_of = attrgetter("raw")
_id_of = attrgetter("id")
_problem_of = attrgetter("problem")


class _Page:
    """Frames `first`, `first + 1`, ... of the log; those before `start` are dropped (the bounds).

    Open, it holds the `Frame`s themselves; sealed, their fields in columns and their text joined and compressed
    once, or, for one frame too large to compress on the hot path, that frame's bytes as they came.
    """

    __slots__ = ("ends", "first", "frames", "heads", "ids", "kinds", "problems", "raws", "start", "text", "times")

    def __init__(self, first: int, frames: list[Frame]) -> None:
        self.first = first
        self.start = 0
        #: the frames while open (None once sealed)
        self.frames: list[Frame] | None = frames
        self.times = array("d")
        #: each frame's (direction, method, answers): `kinds[heads[n]]` (no heads: all frames are `kinds[0]`)
        self.kinds: tuple[_Kind, ...] = ()
        self.heads: array[int] | None = None
        #: the ids and problems there are, by place in the page
        self.ids: dict[int, int | str] | None = None
        self.problems: dict[int, str] | None = None
        #: where each frame's text ends in the page's joined text
        self.ends = array("I")
        #: the joined text compressed (zlib), or, for a page of one large frame, its bytes as they came in `raws`
        self.text = b""
        self.raws: list[bytes] | None = None

    def __len__(self) -> int:
        return len(self.frames if self.frames is not None else self.ends) - self.start

    def seal(self) -> None:
        """Into columns, the text compressed once (a page of one frame larger than `PAGE_BYTES` keeps its bytes)."""
        frames = self.frames
        assert frames is not None
        self.frames = None
        self.times = array("d", map(_time_of, frames))
        keys = list(map(_kind_of, frames))
        if keys.count(keys[0]) == len(keys):  # a stream of one kind (session/update): no column needed
            self.kinds = (keys[0],)
        else:
            table = {kind: n for n, kind in enumerate(dict.fromkeys(keys))}
            self.kinds = tuple(table)
            self.heads = array("B" if len(table) <= 256 else "I", map(table.__getitem__, keys))
        ids = list(map(_id_of, frames))
        if ids.count(None) != len(ids):
            self.ids = {n: id_ for n, id_ in enumerate(ids) if id_ is not None}
        problems = list(map(_problem_of, frames))
        if problems.count(None) != len(problems):
            self.problems = {n: problem for n, problem in enumerate(problems) if problem is not None}
        raws = list(map(_raw_of, frames))
        ends = list(accumulate(map(len, raws)))
        self.ends = array("I" if ends[-1] <= 0xFFFF_FFFF else "Q", ends)
        if self.ends[-1] > PAGE_BYTES:
            self.raws = raws
        else:
            self.text = zlib.compress(b"".join(raws), 1)

    def walk(self, *, reverse: bool = False, only: int | None = None) -> Iterator[Frame]:
        """The frames kept, oldest first (or newest first), or frame `only` (sealed: made again, decompressed once)."""
        places = range(self.start, self.start + len(self)) if only is None else range(only, only + 1)
        if self.frames is not None:
            picked = [self.frames[n] for n in places]
            yield from reversed(picked) if reverse else picked
            return
        raws, ends, text = self.raws, self.ends, b""
        if raws is None and only is not None:  # no further than that frame (a limit of 0 would mean none)
            text = zlib.decompressobj().decompress(self.text, max(ends[only], 1))
        elif raws is None:
            text = zlib.decompress(self.text)
        times, kinds, heads, ids, problems = self.times, self.kinds, self.heads, self.ids, self.problems
        first = self.first
        for n in reversed(places) if reverse else places:
            direction, method, answers = kinds[heads[n] if heads is not None else 0]
            yield Frame(
                first + n,
                times[n],
                direction,
                raws[n] if raws is not None else text[ends[n - 1] if n else 0 : ends[n]],
                method,
                ids.get(n) if ids is not None else None,
                answers,
                problems.get(n) if problems is not None else None,
            )

    def frame(self, n: int) -> Frame:
        return next(self.walk(only=n))

    def mark(self, n: int, reason: str) -> bool:
        """Add `reason` to frame `n`'s problem; whether it had none before."""
        if self.frames is not None:
            frame = self.frames[n]
            before = frame.problem
            frame.problem = reason if before is None else f"{before}; {reason}"
            return before is None
        if self.problems is None:
            self.problems = {}
        before = self.problems.get(n)
        self.problems[n] = reason if before is None else f"{before}; {reason}"
        return before is None


class FrameLog:
    """A `TraceSink` that keeps the newest frames and passes every record on (to the `--log` file).

    `capacity`, `budget` and `page` (frames a page) default to `CAPACITY`, `BYTES` and `PAGE`; tests make them small.
    """

    def __init__(
        self, passes_to: TraceSink | None = None, *, capacity: int = CAPACITY, budget: int = BYTES, page: int = PAGE
    ) -> None:
        self.passes_to = passes_to
        self._capacity = capacity
        self._budget = budget
        self._page_frames = page
        #: oldest first; the last one open (`_filling`) unless it was just sealed (the next frame opens one)
        self._pages: deque[_Page] = deque()
        self._filling: list[Frame] | None = None  # the open page's frames
        self._filling_bytes = 0
        self._count = 0  # frames kept
        self._bytes = 0  # text of the frames kept
        self._marked = 0  # frames kept with a problem
        self._methods: dict[str, str] = {}
        #: frames recorded in all (the oldest `total - len(self)` are gone from memory)
        self.total = 0
        #: called with each frame as it is recorded, and with a frame newly marked (the open inspector)
        self.listener: Callable[[Frame], None] | None = None
        self._open: dict[FrameDirection, OrderedDict[int | str, str]] = {"->": OrderedDict(), "<-": OrderedDict()}
        self._last_received = 0  # its seq (0: none yet)

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
        answers: str | None = None
        if head.id is not None:
            if method is not None:
                opened = self._open[direction]
                opened[head.id] = method
                if len(opened) > OPEN_REQUESTS:
                    opened.popitem(last=False)
            else:
                answers = self._open["<-" if direction == "->" else "->"].pop(head.id, None)
        frame = Frame(self.total, time.time(), direction, raw, method, head.id, answers, problem)
        size = len(raw)
        filling = self._filling
        if filling is not None and self._filling_bytes + size > PAGE_BYTES:
            self._seal()
            filling = None
        if filling is None:
            filling = self._filling = []
            self._filling_bytes = 0
            self._pages.append(_Page(frame.seq, filling))
        filling.append(frame)
        self._filling_bytes += size
        self._count += 1
        self._bytes += size
        if problem is not None:
            self._marked += 1
        while (self._count > self._capacity or self._bytes > self._budget) and self._count > 1:
            self._drop_oldest()
        if len(filling) >= self._page_frames or self._filling_bytes >= PAGE_BYTES:
            self._seal()
        if direction == "<-":
            self._last_received = frame.seq
        if self.listener is not None:
            self.listener(frame)

    def _share(self, method: str) -> str:
        if len(self._methods) < SHARED_METHODS:
            self._methods[method] = method
        return method

    def _seal(self) -> None:
        self._pages[-1].seal()
        self._filling = None

    def _drop_oldest(self) -> None:
        page = self._pages[0]
        n = page.start
        page.start = n + 1
        frames = page.frames
        if frames is not None:  # the open page: all that is kept is in it (its text goes when the page does)
            frame = frames[n]
            self._bytes -= len(frame.raw)
            self._marked -= frame.problem is not None
        else:
            ends = page.ends
            self._bytes -= ends[n] - ends[n - 1] if n else ends[0]
            self._marked -= page.problems is not None and n in page.problems
            if n + 1 == len(ends):
                self._pages.popleft()
        self._count -= 1

    @property
    def last_received(self) -> int:
        """The seq of the frame received last (0: none yet): the one a problem found now is marked on."""
        return self._last_received

    def mark_last_received(self, reason: str) -> None:
        """A rule the frame received last broke (or why it could not be decoded): shown with it."""
        seq = self._last_received
        if seq < self.oldest_seq:
            return  # none yet, or gone from memory already
        page, n = self._locate(seq)
        self._marked += page.mark(n, reason)
        if self.listener is not None:
            self.listener(page.frame(n))

    def _locate(self, seq: int) -> tuple[_Page, int]:
        """The page holding kept frame `seq`, and its place there."""
        for page in reversed(self._pages):
            if seq >= page.first + page.start:
                return page, seq - page.first
        raise LookupError(seq)

    def find(self, seq: int) -> Frame | None:
        """Frame `seq` if it is still kept (the inspector's Enter)."""
        if not self.oldest_seq <= seq <= self.total:
            return None
        page, n = self._locate(seq)
        return page.frame(n)

    @property
    def oldest_seq(self) -> int:
        """The seq of the oldest frame kept (every frame before it is only in the `--log` file)."""
        return self.total - self._count + 1

    @property
    def marked(self) -> int:
        """Frames kept that carry a problem."""
        return self._marked

    @property
    def dropped(self) -> int:
        """Frames no longer in memory."""
        return self.total - self._count

    def __iter__(self) -> Iterator[Frame]:
        """The frames kept, oldest first."""
        for page in tuple(self._pages):
            yield from page.walk()

    def __reversed__(self) -> Iterator[Frame]:
        """The frames kept, newest first."""
        for page in reversed(tuple(self._pages)):
            yield from page.walk(reverse=True)

    def __len__(self) -> int:
        return self._count


__all__ = ["BYTES", "CAPACITY", "PAGE", "PAGE_BYTES", "SHARED_METHODS", "Frame", "FrameDirection", "FrameLog"]
