"""The package type-checks: mypy with the `[tool.mypy]` settings of pyproject.toml reports no error.

Run in a subprocess from the repository root so the configuration is the one a developer gets from a
bare `mypy`; the cache goes to a temporary directory so a stale cache can never hide an error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO


def test_mypy_reports_no_errors(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    print(output)
    assert result.returncode == 0, f"mypy failed (exit {result.returncode}):\n{output}"
    assert "Success" in result.stdout, output
