"""LineFramer: partial reads, huge lines, CRLF, blank lines."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.protocol.framing import LineFramer


def test_partial_reads_join_into_one_line() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":') == []
    assert framer.feed(b"1") == []
    assert framer.pending == 6
    assert framer.feed(b'}\n{"b"') == [b'{"a":1}']
    assert framer.feed(b":2}\n") == [b'{"b":2}']
    assert framer.pending == 0


def test_crlf_stripped_and_blank_lines_ignored() -> None:
    framer = LineFramer()
    assert framer.feed(b"one\r\n\r\n\n  \t \nthree\r\n") == [b"one", b"three"]
    # A CR split from its LF across reads is still stripped.
    assert framer.feed(b"four\r") == []
    assert framer.feed(b"\n") == [b"four"]


def test_many_lines_in_one_chunk_keep_order() -> None:
    framer = LineFramer()
    lines = [str(i).encode() for i in range(1000)]
    assert framer.feed(b"\n".join(lines) + b"\n") == lines


def test_fifty_megabyte_line_in_small_pieces() -> None:
    framer = LineFramer()
    payload = b"x" * (50 * 1024 * 1024)
    piece = 256 * 1024
    out: list[bytes] = []
    for start in range(0, len(payload), piece):
        out += framer.feed(payload[start : start + piece])
    assert out == []
    out += framer.feed(b"\nnext\n")
    assert len(out) == 2
    assert len(out[0]) == len(payload) and out[0] == payload
    assert out[1] == b"next"


def test_finish_returns_unterminated_tail() -> None:
    framer = LineFramer()
    framer.feed(b"done\nhalf")
    assert framer.finish() == [b"half"]
    assert framer.finish() == []
    framer.feed(b"  \r")
    assert framer.finish() == []


@given(
    st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b and b.strip(b"\r").strip()), max_size=20), st.data()
)
def test_any_split_gives_the_same_lines(lines: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(line + b"\n" for line in lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    framer = LineFramer()
    out: list[bytes] = []
    previous = 0
    for cut in [*cuts, len(stream)]:
        out += framer.feed(stream[previous:cut])
        previous = cut
    expected = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    assert out == [line for line in expected if line.strip()]


def test_a_line_past_the_limit_is_dropped_as_it_arrives_and_reported_once() -> None:
    """Issue 21: an agent that never sends a newline must not grow our memory without bound."""
    reported: list[tuple[bytes, int]] = []
    framer = LineFramer(max_line=100, on_oversized=lambda head, size: reported.append((head, size)))
    assert framer.feed(b'{"id":7,"method":"m","params":"') == []
    for _ in range(50):
        assert framer.feed(b"x" * 40) == []
        assert framer.pending <= 100 + 40  # never more than the limit and one read
    assert reported == []
    assert framer.feed(b'"}\n{"ok":1}\n') == [b'{"ok":1}']
    [(head, size)] = reported
    assert head.startswith(b'{"id":7,"method":"m"') and size == 31 + 50 * 40 + 2
    assert framer.feed(b'{"ok":2}\n') == [b'{"ok":2}']


def test_an_unterminated_oversized_line_is_reported_at_the_end() -> None:
    reported: list[int] = []
    framer = LineFramer(max_line=10, on_oversized=lambda head, size: reported.append(size))
    framer.feed(b"y" * 11)
    framer.feed(b"y" * 5)
    assert framer.finish() == [] and reported == [16]
