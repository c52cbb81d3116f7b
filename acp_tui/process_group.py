"""Is anything of a process group still alive, and waiting until nothing is.

Shared by the agent's own process (acp_tui/agent/process.py) and the commands the client runs for it
(acp_tui/services/terminals.py); it sits below both so the terminal service need not import the agent
layer. Both run their children in a new session, so the child's pid is its group id.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path


def group_alive(pgid: int) -> bool:
    """True while a live (non-zombie) process remains in group `pgid`.

    On Linux /proc is read, because `killpg(pgid, 0)` also succeeds for zombies the group leaves behind
    until their parent reaps them; elsewhere `killpg` is the best there is.
    """
    proc = Path("/proc")
    if sys.platform.startswith("linux") and proc.is_dir():
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # Fields after the parenthesised command: state, ppid, pgrp, ...
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def wait_group_gone(pgid: int, timeout: float) -> bool:
    """Poll until group `pgid` is empty or `timeout` passes; no event exists for this."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while group_alive(pgid):
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.02)
    return True


__all__ = ["group_alive", "wait_group_gone"]
