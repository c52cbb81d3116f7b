"""Secrets (docs/protocol.md §2.4): registered values are redacted wherever acp-tui writes or shows text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui import secrets
from acp_tui.agent.trace import WireTrace
from acp_tui.ansi import TerminalDecoder
from acp_tui.history import PromptHistory
from acp_tui.sanitize import multiline, plain
from acp_tui.secrets import REDACTED, redact, redact_bytes, register

KEY = "sk-live-0123456789abcdef"


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    secrets.clear()
    yield
    secrets.clear()


def test_nothing_registered_changes_nothing() -> None:
    text = f"the key is {KEY}"
    assert redact(text) is text
    assert redact_bytes(text.encode()) == text.encode()


def test_registered_values_are_redacted_in_every_form() -> None:
    assert register(f"  {KEY}\n")  # pasted with a newline
    assert secrets.is_secret(KEY)
    assert redact(f"a {KEY} b {KEY}") == f"a {REDACTED} b {REDACTED}"
    quoted = 'pa"ss\\wörd'
    register(quoted)
    frame = json.dumps({"text": f"x {quoted} y"}).encode()  # ensure_ascii: \" \\ \u00f6
    assert quoted.encode() not in redact_bytes(frame) and b"\\u00f6" not in redact_bytes(frame)
    assert json.loads(redact_bytes(frame))["text"] == f"x {REDACTED} y"


def test_short_values_are_not_secrets() -> None:
    assert not register("abc")
    assert redact("abc abc") == "abc abc"


def test_forgetting_a_value() -> None:
    register(KEY)
    secrets.forget(KEY)
    assert redact(KEY) == KEY


def test_the_sanitisers_redact() -> None:
    register(KEY)
    assert plain(f"key {KEY}") == f"key {REDACTED}"
    assert plain(f"\x1b[31mkey\x1b[0m {KEY}\n") == f"key {REDACTED} "
    assert multiline(f"line\n{KEY}\n") == f"line\n{REDACTED}\n"


def test_terminal_output_redacts() -> None:
    register(KEY)
    decoder = TerminalDecoder()
    shown = "".join(segment.text for segment in decoder.feed(f"\x1b[1mOPENAI_API_KEY={KEY}\x1b[0m\n".encode()))
    assert KEY not in shown and REDACTED in shown


def test_the_wire_trace_never_holds_a_secret(tmp_path: Path) -> None:
    register(KEY)
    trace = WireTrace(tmp_path / "log.jsonl")
    trace.record("<-", json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"k": KEY}}).encode())
    trace.record("stderr", f"using key {KEY}")
    trace.record("event", {"value": KEY})
    trace.close()
    text = (tmp_path / "log.jsonl").read_text()
    assert KEY not in text and text.count(json.dumps(REDACTED)[1:-1]) == 3
    for line in text.splitlines():
        json.loads(line)  # still one JSON object per line


def test_the_prompt_history_never_holds_a_secret(tmp_path: Path) -> None:
    register(KEY)
    history = PromptHistory(tmp_path / "history.jsonl")
    history.add(f"use {KEY} please")
    assert KEY not in (tmp_path / "history.jsonl").read_text()
    assert history.entries == [f"use {REDACTED} please"]


@pytest.mark.parametrize("breaker", ["\u2028", "\t", "\r", "\x1b[0m"])
def test_a_secret_holding_a_character_the_cleaning_changes_is_still_redacted(breaker: str) -> None:
    """The inspector's JSON view keeps U+2028 as it is (ensure_ascii=False), and the cleaning turns it into a line
    break: a secret must be redacted before it is cleaned as well as after."""
    secret = f"token{breaker}0123456789"
    register(secret)
    for show in (plain, multiline):
        shown = show(f"value: {secret}.")
        assert REDACTED in shown and "0123456789" not in shown, (show.__name__, shown)
