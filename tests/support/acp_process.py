"""acp-tui run as a real process (`python -m acp_tui`) in a folder of its own, with its own user folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO


def env_for(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_TUI_")}
    for name in ("DATA", "STATE", "CONFIG"):
        folder = tmp_path / f"user-{name.lower()}"
        folder.mkdir(exist_ok=True)
        env[f"ACP_TUI_{name}_DIR"] = str(folder)
    env["ACP_TUI_DEMO_SPEED"] = "0.02"
    env["PYTHONPATH"] = str(REPO)
    env.pop("NO_COLOR", None)
    return env


def acp(
    tmp_path: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        cwd=tmp_path,
        env={**env_for(tmp_path), **(env or {})},
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
    )
