"""The frame tap (acp_tui/agent/frames.py): bounded, pairs answers with requests, passes everything on, keeps its
frames compactly (sealed pages) and gives them back exactly."""

from __future__ import annotations

import gc
import random
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import msgspec

from acp_tui.agent.frames import OPEN_REQUESTS, PAGE_BYTES, SHARED_METHODS, Frame, FrameDirection, FrameLog


class _Sink:
    def __init__(self) -> None:
        self.records: list[tuple[str, Any]] = []

    def record(self, direction: Any, payload: Any) -> None:
        self.records.append((direction, payload))


def test_answers_are_paired_with_their_request_each_way() -> None:
    log = FrameLog()
    log.record("->", b'{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}')
    log.record("<-", b'{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}')
    log.record("->", b'{"jsonrpc":"2.0","id":7,"result":{}}')
    log.record("<-", b'{"jsonrpc":"2.0","id":1,"result":{}}')
    log.record("<-", b'{"jsonrpc":"2.0","id":1,"result":{}}')  # a second answer answers nothing
    assert [frame.label for frame in log] == [
        "session/prompt",
        "session/request_permission",
        "↩ session/request_permission",
        "↩ session/prompt",
        "?",
    ]


def test_the_newest_frames_are_kept_and_every_record_passes_on() -> None:
    sink = _Sink()
    log = FrameLog(sink, capacity=100)
    for n in range(250):
        log.record("<-", b'{"jsonrpc":"2.0","method":"session/update","params":{"n":%d}}' % n)
    log.record("stderr", "a line")
    assert len(log) == 100 and log.total == 250 and log.dropped == 150
    assert next(iter(log)).seq == 151 and len(sink.records) == 251


def test_unanswered_requests_cannot_grow_without_bound() -> None:
    log = FrameLog(capacity=10)
    for n in range(OPEN_REQUESTS + 50):
        log.record("<-", b'{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{}}' % n)
    assert max(len(opened) for opened in log._open.values()) == OPEN_REQUESTS


def test_a_problem_marks_the_frame_received_last_and_tells_the_listener() -> None:
    log = FrameLog()
    seen: list[Frame] = []
    log.record("<-", b"not json at all")
    log.listener = seen.append
    log.mark_last_received("unknown stop reason")
    (frame,) = list(log)
    assert frame.problem == "not a JSON-RPC object; unknown stop reason" and seen == [frame]


def test_the_frames_kept_are_bounded_in_bytes_too_and_the_newest_is_always_kept() -> None:
    """Ten thousand frames of up to 128 MB each are not kept for the inspector: beyond the byte budget the oldest
    go, whatever the count; one frame larger than the budget is kept alone (it is the newest)."""
    sink = _Sink()
    log = FrameLog(sink, capacity=100, budget=10_000)
    frame = b'{"jsonrpc":"2.0","method":"session/update","params":{"pad":"%s"}}'
    for n in range(50):
        log.record("<-", frame % (b"%04d" % n + b"x" * 933))  # 1,000 bytes each
    assert len(log) == 10 and sum(len(kept.raw) for kept in log) <= 10_000
    assert [kept.seq for kept in log] == list(range(41, 51)) and log.dropped == 40
    huge = frame % (b"y" * 50_000)
    log.record("<-", huge)
    assert [kept.raw for kept in log] == [huge]
    log.record("<-", frame % b"small")
    assert [kept.seq for kept in log] == [52]  # the huge one went as soon as another came
    for n in range(300):  # the count still bounds small frames, and the byte tally stays true through both caps
        log.record("->", b'{"jsonrpc":"2.0","id":%d,"method":"fs/x","params":{}}' % n)
    assert len(log) == 100 and log._bytes == sum(len(kept.raw) for kept in log)
    assert len(sink.records) == 352  # the --log file still gets every one


def test_method_names_are_one_string_each_and_a_flood_of_names_cannot_grow_the_table() -> None:
    log = FrameLog()
    for _ in range(3):
        log.record("<-", b'{"jsonrpc":"2.0","method":"session/update","params":{}}')
    first, second, third = list(log)
    assert first.method == "session/update" and first.method is second.method is third.method
    for n in range(SHARED_METHODS * 3):
        log.record("<-", b'{"jsonrpc":"2.0","method":"x/%d","params":{}}' % n)
    assert len(log._methods) == SHARED_METHODS
    assert list(log)[-1].method == f"x/{SHARED_METHODS * 3 - 1}"


# -- kept compactly: pages sealed into columns, their text compressed (issue 27) ----------------------------------

UPDATE = (
    b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":'
    b'"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"some words %d of about twenty"}}}}'
)


def _fields(frame: Frame) -> tuple[Any, ...]:
    return msgspec.structs.astuple(frame)


def _every_kind_of_frame() -> list[tuple[FrameDirection, bytes]]:
    return [
        ("->", b'{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}'),
        ("<-", UPDATE % 1),
        ("<-", b'{"jsonrpc":"2.0","id":"perm-7","method":"session/request_permission","params":{}}'),
        ("->", b'{"jsonrpc":"2.0","id":"perm-7","result":{}}'),
        ("<-", b'\xff\xfe{"caf\xe9": \x00}'),  # not UTF-8
        ("<-", b""),  # empty, the first of a page
        ("<-", b"[1, 2, 3]"),  # JSON, not an object
        ("<-", b'{"jsonrpc":"2.0","method":"session/update","params":{"pad":"%s"}}' % (b"z" * PAGE_BYTES)),  # huge
        ("<-", b'{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}'),
        *(("<-", UPDATE % n) for n in range(2, 40)),
        ("<-", b'{"jsonrpc":"2.0","id":99,"result":null}'),  # answers nothing
        ("->", b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}'),
    ]


def test_frames_round_trip_through_sealed_pages_exactly_every_field_and_byte() -> None:
    """What the listener was given as each frame was recorded is what iteration, reversed iteration and `find` give
    back once its page is sealed (compressed, or the huge frame's page kept as it came)."""
    log = FrameLog(page=5)
    recorded: list[tuple[Any, ...]] = []
    log.listener = lambda frame: recorded.append(_fields(frame))
    for direction, raw in _every_kind_of_frame():
        log.record(direction, raw)
    assert [_fields(frame) for frame in log] == recorded
    assert [_fields(frame) for frame in reversed(log)] == recorded[::-1]
    assert [_fields(found) for seq in range(1, log.total + 1) if (found := log.find(seq)) is not None] == recorded
    sealed = [page for page in log._pages if page.frames is None]
    assert len(sealed) >= 8 and any(page.raws is None for page in sealed) and any(page.raws for page in sealed)
    by_seq = {frame.seq: frame for frame in log}
    assert by_seq[6].raw == b"" and by_seq[5].raw == b'\xff\xfe{"caf\xe9": \x00}' and by_seq[8].raw.endswith(b'z"}}')
    assert by_seq[4].label == "↩ session/request_permission" and by_seq[4].id == "perm-7"
    assert by_seq[9].label == "↩ session/prompt" and by_seq[9].id == 1
    assert by_seq[5].problem == by_seq[6].problem == by_seq[7].problem == "not a JSON-RPC object"
    assert not gc.is_tracked(by_seq[1])  # a Frame holds no containers: the collector need not walk it


def test_bounds_hold_across_page_boundaries_and_the_byte_tally_stays_true() -> None:
    """Frames of every size, some larger than the whole budget: after every record at most `capacity` frames and
    `budget` bytes are kept (or the newest alone), the newest always, in order, with no gap; the tallies match."""
    rng = random.Random(27)
    capacity, budget = 60, 20_000
    log = FrameLog(capacity=capacity, budget=budget, page=7)
    for n in range(3_000):
        size = rng.choice((0, 10, 150, 900, 4_000, 25_000 if n % 97 == 0 else 300))
        if n % 13 == 0:
            log.record("<-", b"{bad %d" % n + b"x" * size)  # marked as it comes
        else:
            log.record("->" if n % 3 else "<-", b'{"jsonrpc":"2.0","method":"x/y","params":"%s"}' % (b"p" * size))
        kept = list(log)
        seqs = [frame.seq for frame in kept]
        assert seqs == list(range(log.total - len(kept) + 1, log.total + 1)), n  # the newest, no gaps
        assert len(log) == len(kept) <= capacity and log.dropped == log.total - len(kept)
        held = sum(len(frame.raw) for frame in kept)
        assert log._bytes == held and (held <= budget or len(kept) == 1), n
        assert log.oldest_seq == seqs[0] and log.marked == sum(frame.problem is not None for frame in kept)
    assert log.total == 3_000 and len(log._pages) <= capacity  # emptied pages went


def test_a_frame_larger_than_the_budget_is_kept_alone_across_pages() -> None:
    log = FrameLog(capacity=100, budget=10_000, page=4)
    for n in range(9):
        log.record("<-", UPDATE % n)
    huge = b'{"jsonrpc":"2.0","method":"session/update","params":{"pad":"%s"}}' % (b"y" * 50_000)
    log.record("<-", huge)
    assert [frame.raw for frame in log] == [huge] and log._bytes == len(huge)
    log.record("->", b'{"jsonrpc":"2.0","id":1,"method":"fs/x","params":{}}')
    assert [frame.seq for frame in log] == [11] and len(log._pages) == 1  # the huge one's page went with it


def test_a_problem_marked_on_a_frame_already_sealed_shows_and_reaches_the_listener() -> None:
    """A sent frame may come between a received one and the reducer's verdict on it; the received one's page may
    have been sealed by then."""
    log = FrameLog(page=2)
    seen: list[Frame] = []
    log.listener = seen.append
    log.record("<-", UPDATE % 1)
    log.record("->", b'{"jsonrpc":"2.0","id":3,"method":"fs/x","params":{}}')  # seals the page
    assert log._pages[-1].frames is None
    log.mark_last_received("unknown session update")
    assert [frame.seq for frame in seen] == [1, 2, 1] and seen[-1].problem == "unknown session update"
    assert seen[-1].raw == UPDATE % 1 and seen[-1].method == "session/update"
    log.mark_last_received("and another")
    assert seen[-1].problem == "unknown session update; and another"
    (first, second) = list(log)
    assert first.problem == "unknown session update; and another" and second.problem is None and log.marked == 1
    assert log.find(1) == first


def test_a_mark_on_a_frame_gone_from_memory_is_dropped_quietly() -> None:
    log = FrameLog(capacity=3, page=2)
    seen: list[Frame] = []
    log.record("<-", b"{bad")
    log.listener = seen.append
    for n in range(3):
        log.record("->", b'{"jsonrpc":"2.0","id":%d,"method":"fs/x","params":{}}' % n)
    assert log.oldest_seq == 2 and log.marked == 0  # the marked frame went, and its mark with it
    log.mark_last_received("too late")
    assert len(seen) == 3 and all(frame.problem is None for frame in log)


def test_find_gives_the_frame_kept_by_seq_and_none_for_one_gone_or_not_yet_recorded() -> None:
    log = FrameLog(capacity=300, page=16)
    for n in range(1_000):
        log.record("<-", UPDATE % n)
    assert log.oldest_seq == 701 and len(log) == 300
    for seq in (701, 702, 800, 991, 992, 1_000):
        found = log.find(seq)
        assert found is not None and found.seq == seq and found.raw == UPDATE % (seq - 1)
    assert [log.find(seq) for seq in (0, 1, 700, 1_001)] == [None] * 4


def test_eight_thousand_streamed_updates_take_a_fraction_of_what_plain_frames_took() -> None:
    """Issue 27: the frame log was the largest consumer of an 8,000-chunk answer (~400 bytes a frame: each Frame, its
    float time, its line). Measured on CPython 3.11: plain Frames 3.0 MB, the log 0.19 MB (~24 bytes a frame);
    the ceilings leave room for other versions."""
    count = 8_000

    def traced(build: Callable[[], object]) -> int:
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            kept = build()
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        assert kept is not None
        return after - before

    def plain() -> list[Frame]:
        return [Frame(n, time.time(), "<-", UPDATE % n, "session/update", None) for n in range(1, count + 1)]

    def logged() -> FrameLog:
        log = FrameLog()
        for n in range(1, count + 1):
            log.record("<-", UPDATE % n)  # a new line each, as the connection hands them over
        return log

    plain_bytes, log_bytes = traced(plain), traced(logged)
    assert plain_bytes > count * 300  # the measure sees what plain frames hold
    assert log_bytes < plain_bytes / 5, (plain_bytes, log_bytes)
    assert log_bytes < count * 60, log_bytes
