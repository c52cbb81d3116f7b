"""Fake ACP agents for tests: stdlib-only scripts run as subprocesses, independent of acp_tui."""

from __future__ import annotations

import sys
from pathlib import Path

AGENTS_DIR = Path(__file__).resolve().parent
SCRIPTED_AGENT = AGENTS_DIR / "scripted_agent.py"
HOSTILE_AGENT = AGENTS_DIR / "hostile_agent.py"


def scripted_agent_argv(script: Path, record: Path | None = None) -> list[str]:
    """Argv that runs the scripted agent on ``script``, recording received lines to ``record``."""
    argv = [sys.executable, str(SCRIPTED_AGENT), str(script)]
    if record is not None:
        argv += ["--record", str(record)]
    return argv


def hostile_agent_argv(scenario: str, version: int = 2, scale: float = 1.0) -> list[str]:
    """Argv that runs the hostile agent's ``scenario`` (``scale`` < 1 shrinks the big ones)."""
    return [
        sys.executable,
        str(HOSTILE_AGENT),
        scenario,
        "--version",
        str(version),
        "--scale",
        str(scale),
    ]
