"""The frame tap (acp_tui/agent/frames.py): bounded, pairs answers with requests, passes everything on."""

from __future__ import annotations

from typing import Any

from acp_tui.agent.frames import OPEN_REQUESTS, Frame, FrameLog


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
