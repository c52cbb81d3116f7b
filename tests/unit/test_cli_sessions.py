"""The command line's session options (`--resume`, `--resume=ID`, `--continue`) and `acp-tui export`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.cli import main, parse_argv
from acp_tui.controller.sessions import IndexEntry, SessionIndex
from acp_tui.protocol.v2 import TextContent
from acp_tui.session.changes import EntityAdded
from acp_tui.session.model import USER_MESSAGE, Message, SessionState
from acp_tui.transcript import TranscriptWriter
from tests.support.cli import run


@pytest.fixture(autouse=True)
def _dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("config", "data", "state"):
        (tmp_path / name).mkdir(exist_ok=True)
        monkeypatch.setenv(f"ACP_TUI_{name.upper()}_DIR", str(tmp_path / name))
    monkeypatch.delenv("ACP_TUI_LOG", raising=False)


def test_resume_alone_picks_from_the_list_and_the_next_word_stays_the_agent() -> None:
    options, agent = parse_argv(["--resume", "python3", "-c", "pass"])
    assert options.resume and options.resume_id is None and agent == ["python3", "-c", "pass"]
    code, [launch] = run(["--resume", "python3"])
    assert code == 7 and launch.pick_session and launch.resume_id is None and not launch.continue_last


def test_resume_with_an_id_and_continue() -> None:
    code, [launch] = run(["--resume=0fc11f28", "python3"])
    assert launch.resume_id == "0fc11f28" and not launch.pick_session
    code, [launch] = run(["--continue", "python3"])
    assert launch.continue_last and launch.resume_id is None
    _, agent = parse_argv(["python3", "--resume=x"])
    assert agent == ["python3", "--resume=x"]  # the agent's own flag, untouched


@pytest.mark.parametrize("argv", [["--resume", "--continue", "python3"], ["--resume=", "python3"]])
def test_session_options_that_cannot_work_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, launches = run(argv)
    assert code == 2 and launches == []
    assert "--resume" in capsys.readouterr().err


def _transcript(path: Path, text: str) -> Path:
    state = SessionState()
    message = Message((USER_MESSAGE, "m1"))
    message.content.append(TextContent(text=text))
    state.entities[message.key] = message
    writer = TranscriptWriter(path, label="s-1")
    writer.write_changes(state, [EntityAdded(message.key, 0)])
    writer.close()
    return path


def test_export_writes_markdown_to_stdout_or_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    transcript = _transcript(tmp_path / "t.jsonl", "what did we decide?")
    assert main(["export", str(transcript)]) == 0
    out = capsys.readouterr().out
    assert "what did we decide?" in out and '"ev"' not in out
    target = tmp_path / "out.md"
    assert main(["export", str(transcript), "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == out


def test_export_finds_a_transcript_by_session_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    transcript = _transcript(tmp_path / "t.jsonl", "by id")
    SessionIndex().record(IndexEntry(transcript, "session-42", "demo", os.fspath(tmp_path), "Title", 1.0))
    assert main(["export", "session-42"]) == 0
    assert "by id" in capsys.readouterr().out
    assert main(["export", "nope"]) == 2
    assert "no transcript 'nope'" in capsys.readouterr().err
    assert main(["export"]) == 2


def test_export_takes_a_unique_start_of_a_session_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The id as a transcript's file name shows it (cut short) was "no transcript"; a unique start now does."""
    first = _transcript(tmp_path / "a.jsonl", "the first")
    second = _transcript(tmp_path / "b.jsonl", "the second")
    index = SessionIndex()
    index.record(IndexEntry(first, "demo-0fb75d0f68e6", "demo", os.fspath(tmp_path), "One", 1.0))
    index.record(IndexEntry(second, "demo-0fc11f28aa01", "demo", os.fspath(tmp_path), "Two", 2.0))
    assert main(["export", "demo-0fb75d0f68e"]) == 0
    assert "the first" in capsys.readouterr().out
    assert main(["export", "demo-0f"]) == 2
    assert "2 sessions start with 'demo-0f' (demo-0fb75d0f68e6, demo-0fc11f28aa01)" in capsys.readouterr().err
