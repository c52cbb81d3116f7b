"""The built-in demo agent: a scripted ACP agent (v1 and v2) over stdio, `python -m acp_tui.demo`.

It runs no model. Words in the prompt pick scripted behaviours (markdown, thoughts, tool calls,
permission, plans, notices, compaction, cancellation, errors, unknown updates) so every part of
a client can be seen, tried and tested without an account or a network.
"""

from __future__ import annotations

import sys


def demo_command(speed: float | None = None) -> list[str]:
    """The argv that starts the demo agent with this Python (for `acp-tui --demo`)."""
    argv = [sys.executable, "-m", "acp_tui.demo"]
    if speed is not None:
        argv += ["--speed", repr(speed)]
    return argv


__all__ = ["demo_command"]
