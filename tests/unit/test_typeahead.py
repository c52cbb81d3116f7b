"""Enter typed while acp-tui starts reaches the prompt as Enter (acp_tui/typeahead.py)."""

from __future__ import annotations

import os
import pty
import termios
from collections.abc import Iterator

import pytest

from acp_tui import typeahead


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal in its default (cooked) mode: (the terminal's side, the keyboard's side)."""
    keyboard, tty = pty.openpty()
    yield tty, keyboard
    typeahead.restore()
    os.close(tty)
    os.close(keyboard)


def typed_ahead(tty: int, keyboard: int, keys: bytes) -> bytes:
    """`keys` typed while the terminal is still cooked, then read once it is raw (as Textual starts)."""
    cooked = termios.tcgetattr(tty)
    os.write(keyboard, keys)
    termios.tcdrain(keyboard)
    raw = list(cooked)
    raw[3] = cooked[3] & ~(termios.ICANON | termios.ECHO)  # the partial line becomes readable
    termios.tcsetattr(tty, termios.TCSANOW, raw)
    try:
        return os.read(tty, 100)
    finally:
        termios.tcsetattr(tty, termios.TCSANOW, cooked)


def test_a_typed_ahead_enter_is_read_as_a_carriage_return_while_held(terminal: tuple[int, int]) -> None:
    tty, keyboard = terminal
    assert typed_ahead(tty, keyboard, b"one\r") == b"one\n"  # by default: Ctrl+J to Textual, a new line
    before = termios.tcgetattr(tty)
    assert typeahead.hold_enter(tty)
    assert typed_ahead(tty, keyboard, b"think\r") == b"think\r"  # Textual reads this as Enter
    typeahead.restore()
    assert termios.tcgetattr(tty) == before
    assert typed_ahead(tty, keyboard, b"two\r") == b"two\n"
    typeahead.restore()  # idempotent


def test_nothing_is_changed_where_stdin_is_no_terminal(tmp_path: object) -> None:
    read, write = os.pipe()
    try:
        assert not typeahead.hold_enter(read)
    finally:
        os.close(read)
        os.close(write)
