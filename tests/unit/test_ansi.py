"""Terminal output keeps colours and text; every other control is gone, however the bytes are split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.color import Color
from rich.text import Text

from acp_tui.ansi import PLAIN, Segment, SgrStyle, TerminalDecoder
from acp_tui.ui.timeline.ansi_text import append_segments, rich_style, segments_to_text

RED_BOLD = SgrStyle(fg=1, bold=True)

TRICKY = (
    b"\x1b[1;31mred \xe2\x9c\x93\x1b[0m plain "
    b"\x1b[38;5;208morange\x1b[48;2;10;20;30m on rgb\x1b[39;49m "
    b"\x1b[38:2::1:2:3mcolon\x1b[m "
    b"\x1b]0;window title\x07\x1b]52;c;aGk=\x1b\\\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ "
    b"\x1bPq#0;2;0;0;0\x1b\\\x1b_apc\x1b\\\x1b[2J\x1b[10;5H\x1b[?25l\x1b(B\x1b7"
    b"cr\r\nnext\rbare\tTAB \xf0\x9f\x98\x80 bad\xff\xfe end\x1b[4munder\x1b[24m\x1b[9;3;7;2mall\x1b[22;23;27;29m."
)


def normalize(segments: list[Segment]) -> list[tuple[str, SgrStyle]]:
    """Merge adjacent segments with the same style, so different chunkings compare equal."""
    merged: list[tuple[str, SgrStyle]] = []
    for text, style in segments:
        if not text:
            continue
        if merged and merged[-1][1] == style:
            merged[-1] = (merged[-1][0] + text, style)
        else:
            merged.append((text, style))
    return merged


def decode_chunks(chunks: list[bytes]) -> list[tuple[str, SgrStyle]]:
    decoder = TerminalDecoder()
    out: list[Segment] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    return normalize(out)


def test_tricky_input_keeps_text_and_colours_only() -> None:
    result = decode_chunks([TRICKY])
    text = "".join(part for part, _ in result)
    assert text == (
        "red \u2713 plain orange on rgb colon link cr\nnextbare\tTAB \U0001f600 bad\ufffd\ufffd endunderall."
    )
    styles = dict((part, style) for part, style in result)
    assert styles["red \u2713"] == RED_BOLD
    assert styles["orange"] == SgrStyle(fg=208)
    assert styles[" on rgb"] == SgrStyle(fg=208, bg=(10, 20, 30))
    assert styles["colon"] == SgrStyle(fg=(1, 2, 3))
    assert styles["under"] == SgrStyle(underline=True)
    assert styles["all"] == SgrStyle(strike=True, italic=True, reverse=True, dim=True)
    assert all(ord(c) >= 0x20 or c in "\n\t" for c in text)
    assert "\x1b" not in text and "title" not in text and "aGk" not in text and "http" not in text


def test_every_split_position_gives_the_same_result() -> None:
    whole = decode_chunks([TRICKY])
    for cut in range(1, len(TRICKY)):
        assert decode_chunks([TRICKY[:cut], TRICKY[cut:]]) == whole, cut
    assert decode_chunks([bytes([b]) for b in TRICKY]) == whole


@given(
    st.lists(
        st.sampled_from(
            [
                b"a",
                b"\n",
                b"\r",
                b"\t",
                b"\x1b",
                b"[",
                b"]",
                b"1",
                b";",
                b"3",
                b"8",
                b"5",
                b"2",
                b"m",
                b"\x07",
                b"\\",
                b"P",
                b"\xc2\x9b",
                b"\xe2",
                b"\x9c",
                b"\x93",
                b"\xff",
                b"(",
                b"H",
                b"0",
            ]
        ),
        max_size=40,
    ),
    st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_arbitrary_splits_match_whole_feed(pieces: list[bytes], cuts: list[int]) -> None:
    data = b"".join(pieces)
    points = sorted({c % (len(data) + 1) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=False)]
    result = decode_chunks(chunks)
    assert result == decode_chunks([data])
    text = "".join(part for part, _ in result)
    assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 for c in text)


def test_sgr_variants() -> None:
    decoder = TerminalDecoder()
    decoder.feed(b"\x1b[91;104m")
    assert decoder.style == SgrStyle(fg=9, bg=12)
    decoder.feed(b"\x1b[0m\x1b[1;2m\x1b[22m")
    assert decoder.style == PLAIN
    decoder.feed(b"\x1b[38;5;300m\x1b[38;2;1;2m")  # out of range / truncated: ignored
    assert decoder.style == PLAIN
    decoder.feed(b"\x1b[4:3m")  # curly underline is still underline
    assert decoder.style == SgrStyle(underline=True)
    decoder.feed(b"\x1b[4:0m\x1b[38:5:42m")
    assert decoder.style == SgrStyle(fg=42)
    decoder.feed(b"\x1b[>4;2m")  # xterm modifyOtherKeys, not SGR
    assert decoder.style == SgrStyle(fg=42)
    decoder.feed(b"\x1b[m")
    assert decoder.style == PLAIN
    decoder.feed(b"\x1b[1;3<m")  # malformed parameters: the whole sequence is ignored
    assert decoder.style == PLAIN


def test_style_survives_chunks_and_reset_clears_it() -> None:
    decoder = TerminalDecoder()
    assert decoder.feed(b"\x1b[31") == []
    assert decoder.feed(b"mred") == [Segment("red", SgrStyle(fg=1))]
    assert decoder.feed(b" more") == [Segment(" more", SgrStyle(fg=1))]
    assert decoder.feed(b"\xe2\x9c") == []
    decoder.reset()
    assert decoder.style == PLAIN
    assert decoder.feed(b"\x93x") == [Segment("\ufffdx", PLAIN)]
    assert decoder.feed(b"\x1b]0;unterminated title") == []
    decoder.reset()
    assert decoder.feed(b"visible") == [Segment("visible", PLAIN)]


def test_string_sequence_payload_spanning_chunks_is_dropped() -> None:
    assert decode_chunks([b"a\x1b]52;c;", b"aGk=", b"\x1b", b"\\b"]) == [("ab", PLAIN)]
    assert decode_chunks([b"a\x1bP", b"payload\x1b", b"[1mb"]) == [("a", PLAIN), ("b", SgrStyle(bold=True))]


def test_rich_text_adapter() -> None:
    decoder = TerminalDecoder()
    text = segments_to_text(decoder.feed(b"[bold]x[/bold] \x1b[1;38;2;255;0;0mhot\x1b[0m cold"))
    assert text.plain == "[bold]x[/bold] hot cold"
    assert len(text.spans) == 1
    span = text.spans[0]
    assert text.plain[span.start : span.end] == "hot"
    assert span.style == rich_style(SgrStyle(fg=(255, 0, 0), bold=True))
    style = rich_style(SgrStyle(fg=3, bg=200, italic=True, underline=True, reverse=True, strike=True, dim=True))
    assert style.color == Color.from_ansi(3) and style.bgcolor == Color.from_ansi(200)
    assert style.italic and style.underline and style.reverse and style.strike and style.dim
    assert style.bold is None
    appended = append_segments(Text(), decoder.feed(b"\x1b[32mgreen"))
    assert appended.plain == "green" and appended.spans[0].style == rich_style(SgrStyle(fg=2))
