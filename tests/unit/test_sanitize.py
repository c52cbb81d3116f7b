"""Agent text shown in the UI carries no terminal controls and no invisible spoofing characters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.sanitize import escape_controls, multiline, plain


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("hello world", "hello world"),
        ("copy \x1b]52;c;aGk=\x07done", "copy done"),
        ("title \x1b]0;pwned\x1b\\ok", "title ok"),
        ("link \x1b]8;;http://evil\x1b\\text\x1b]8;;\x1b\\ end", "link text end"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[2J\x1b[H\x1b[?1049hx", "x"),
        ("dcs \x1bPq#0;2;0;0;0\x1b\\after", "dcs after"),
        ("apc \x1b_Gpayload\x1b\\pm \x1b^secret\x1b\\sos \x1bXhidden\x1b\\.", "apc pm sos ."),
        ("8-bit \x9b31mcsi \x9d0;t\x9cosc", "8-bit csi osc"),
        ("charset \x1b(Bsave\x1b7 reset\x1bc", "charset save reset"),
        ("unterminated \x1b]0;rest of the input", "unterminated "),
        ("aborted \x1b]0;x\x1b[1mbold", "aborted bold"),
        ("nul\x00del\x7fbel\x07bs\x08", "nuldelbelbs"),
        ("lone esc\x1b", "lone esc"),
        ("a\u202eevil\u202cb", "aevilb"),
        ("\u2066iso\u2069 \u200emark\u200f \u061c", "iso mark "),
        ("zw\u200bsp\u2060wj\ufeffbom", "zwspwjbom"),
        ("tag\U000e0041\U000e007f", "tag"),
        ("line\nbreak\ttab\r\nwin\rmac", "line break tab win mac"),
        ("para\u2028graph", "para graph"),
        (
            "zwj \U0001f468\u200d\U0001f469, zwnj \u0646\u200c\u0645",
            "zwj \U0001f468\u200d\U0001f469, zwnj \u0646\u200c\u0645",
        ),
        ("[bold]not markup[/bold]", "[bold]not markup[/bold]"),
    ],
)
def test_plain(raw: str, expected: str) -> None:
    assert plain(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("line one\nline two\n\tindented", "line one\nline two\n\tindented"),
        ("crlf\r\nbare\rend", "crlf\nbare\nend"),
        ("keep\n\x1b[1mstyle\x1b[0m\n", "keep\nstyle\n"),
        ("clip \x1b]52;c;aGk=\x07\nnext", "clip \nnext"),
        ("ctl\x0b\x0c\x00\x9f", "ctl"),
        ("\u202eright-to-left\u202c\n", "right-to-left\n"),
        ("ls\u2028ps\u2029", "ls\nps\n"),
    ],
)
def test_multiline(raw: str, expected: str) -> None:
    assert multiline(raw) == expected


def test_fast_path_returns_the_same_object() -> None:
    text = "nothing to strip here: ünïcödé, 漢字, emoji \U0001f600"
    assert plain(text) is text
    kept = text + "\nsecond line\t"
    assert multiline(kept) is kept


_DANGEROUS = set(range(0x00, 0x20)) | set(range(0x7F, 0xA0)) | {0x202E, 0x2066, 0x200E, 0x061C, 0xFEFF}


@given(st.text())
def test_plain_never_leaves_controls(raw: str) -> None:
    cleaned = plain(raw)
    assert not any(ord(c) in _DANGEROUS for c in cleaned)
    assert plain(cleaned) == cleaned


@given(st.text())
def test_multiline_never_leaves_controls_except_newline_and_tab(raw: str) -> None:
    cleaned = multiline(raw)
    assert not any(ord(c) in _DANGEROUS - {0x09, 0x0A} for c in cleaned)
    assert multiline(cleaned) == cleaned


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("notes/\x1b[31mred.txt", "notes/\\x1b[31mred.txt"),
        ("two\nlines\tand\r", "two\\nlines\\tand\\r"),
        ("evil\u202etxt.exe", "evil\\u202etxt.exe"),
        ("csi\x9b and del\x7f", "csi\\x9b and del\\x7f"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("undecodable \udcff byte", "undecodable \\udcff byte"),
        ("kept: é 漢字 👍 a\\nb [bold]", "kept: é 漢字 👍 a\\nb [bold]"),
    ],
)
def test_escape_controls_shows_what_plain_would_drop(raw: str, expected: str) -> None:
    assert escape_controls(raw) == expected


@given(st.text())
def test_escape_controls_leaves_nothing_for_plain_to_drop(raw: str) -> None:
    shown = escape_controls(raw)
    assert plain(shown) == shown  # nothing left to remove (no secrets are registered here)
    assert not any(ord(c) in _DANGEROUS for c in shown)


def test_escape_controls_writes_every_control_out_and_keeps_the_rest() -> None:
    from acp_tui.sanitize import escape_controls

    assert escape_controls("a\x1b[2Jb\nc\td\re\x00\x7f\x9b") == "a\\x1b[2Jb\\nc\\td\\re\\x00\\x7f\\x9b"
    assert escape_controls("lone \ud800 surrogate") == "lone \\ud800 surrogate"
    assert escape_controls("plain é 中 [bold] \\x1b") == "plain é 中 [bold] \\x1b"
