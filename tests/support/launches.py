"""The tests' one way to build a `Launch` (acp_tui/launch.py): what to run, where, and the fields every test leaves
as the command line would, named once. Core only: unit tests that must not import the UI use it too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from acp_tui.launch import Launch


def make_launch(
    argv: Sequence[str],
    cwd: Path,
    *,
    name: str = "test-agent",
    env: Mapping[str, str] | None = None,
    protocol: str | int = "auto",
    log_path: Path | None = None,
    init_timeout: float = 10,
    **fields: Any,
) -> Launch:
    """`argv` run in `cwd` with `env` over ours; `fields` sets any other `Launch` field (`is_demo`, `resume_id`…)."""
    return Launch(
        agent_argv=tuple(argv),
        agent_name=name,
        env=dict(env or {}),
        cwd=cwd,
        protocol=protocol,  # type: ignore[arg-type]  # a test may ask for a version the type does not name
        theme=None,
        log_path=log_path,
        init_timeout=init_timeout,
        warnings=(),
        **fields,
    )


__all__ = ["make_launch"]
