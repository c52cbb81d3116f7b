"""Prompt history: persistence per file, shell-like Up/Down navigation that keeps the draft."""

from __future__ import annotations

from pathlib import Path

from acp_tui.history import MAX_ENTRIES, PromptHistory


def test_history_persists_and_survives_garbage_lines(tmp_path: Path) -> None:
    path = tmp_path / "h" / "hist.jsonl"
    history = PromptHistory.load(path)
    history.add("first")
    history.add("multi\nline")
    history.add("multi\nline")  # not twice in a row
    path.write_text(path.read_text() + "not json\n42\n")
    assert PromptHistory.load(path).entries == ["first", "multi\nline"]


def test_navigation_walks_back_then_returns_the_draft(tmp_path: Path) -> None:
    history = PromptHistory(None, ["a", "b", "c"])
    assert history.next() is None
    assert history.previous("my draft") == "c"
    assert history.previous("ignored") == "b"
    assert history.previous("ignored") == "a"
    assert history.previous("ignored") is None
    assert history.next() == "b"
    assert history.next() == "c"
    assert history.next() == "my draft"
    assert history.next() is None


def test_history_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "hist.jsonl"
    history = PromptHistory.load(path)
    for i in range(MAX_ENTRIES + 5):
        history.add(f"p{i}")
    loaded = PromptHistory.load(path).entries
    assert len(loaded) == MAX_ENTRIES
    assert loaded[-1] == f"p{MAX_ENTRIES + 4}"
