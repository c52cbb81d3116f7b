"""Print mode against Claude's ACP adapter (pinned, tests/support/claude.py) and its loopback fake model.

The adapter opens every session in its own "Auto" mode, in which it writes files without asking: the newcomer
trial of 2026-12-07 (N2) saw `acp-tui -p "WRITEFILE now" claude` create hello.txt under the default
`--approve never`. Now print mode runs such an agent in a mode that asks ("Manual"), so the write is asked
for and rejected, and stderr names the mode. Named with `--mode auto`, the same prompt does write the file:
the fake model really asks for the write, so the first test could fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest

from tests.support.acp_process import env_for
from tests.support.claude import _launch, serve_mock_model

pytestmark = pytest.mark.timeout(240)


def print_run(
    tmp_path: Path, adapter: list[str], protocol: Literal[1, 2], *args: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """`acp-tui -p "WRITEFILE now" ARGS -- adapter` in a project folder the fake model writes into."""
    project = tmp_path / "proj"
    project.mkdir()
    with serve_mock_model(project) as port:  # its Write tool call creates project/hello.txt
        launch = _launch(adapter, project, port, protocol)
        env = {**env_for(tmp_path), **{k: v for k, v in launch.env.items() if k != "PYTHONPATH"}}
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "acp_tui",
                "-p",
                "WRITEFILE now",
                "--protocol",
                str(protocol),
                *args,
                "--",
                *adapter,
            ],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
        )
    return result, project / "hello.txt"


@pytest.mark.parametrize("protocol", [2, 1], ids=["v2", "v1"])
def test_claude_in_its_auto_mode_changes_nothing_under_approve_never(
    tmp_path: Path, claude_adapter: list[str], protocol: Literal[1, 2]
) -> None:
    log = tmp_path / "wire.jsonl"
    result, written = print_run(tmp_path, claude_adapter, protocol, "--output", "json", "--log", str(log))
    assert result.returncode == 0, result.stderr
    assert not written.exists(), result.stderr
    assert "the agent's mode Auto (auto) acts without asking: running in Manual (default) instead" in result.stderr
    assert "acp-tui: agent Claude Agent 0.101.0 · mode Manual (default) · model " in result.stderr
    assert "permission rejected (--approve never): Write hello.txt" in result.stderr
    out = json.loads(result.stdout)
    assert out["mode"] == {"id": "default", "name": "Manual"} and out["exitCode"] == 0
    assert out["stopReason"] == "end_turn" and out["sessionId"] and out["text"]
    assert out["cost"] is not None and out["cost"]["currency"] == "USD"
    frames = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    asked = [
        f["msg"]
        for f in frames
        if f.get("dir") == "<-" and f.get("msg", {}).get("method") == "session/request_permission"
    ]
    assert len(asked) == 1  # the agent asked, because its mode now asks


def test_claude_named_into_auto_writes_and_stderr_says_the_mode_acts_unasked(
    tmp_path: Path, claude_adapter: list[str]
) -> None:
    result, written = print_run(tmp_path, claude_adapter, 2, "--mode", "auto")
    assert result.returncode == 0, result.stderr
    assert written.exists()
    assert "mode Auto (auto) acts without asking: the --approve policy answers only what it asks (--mode auto)" in (
        result.stderr
    )
    assert "· mode Auto (auto) ·" in result.stderr
