"""The frame tap (acp_tui/agent/frames.py): bounded, pairs answers with requests, passes everything on."""

from __future__ import annotations

from typing import Any

from acp_tui.agent.frames import OPEN_REQUESTS, SHARED_METHODS, Frame, FrameLog


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
