"""Has an installed agent started? It has when it answers `initialize`: the proof an update needs before the
version it replaces is removed (installs.switch). Stdlib only, no event loop: one request, one answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import tempfile
import time

from acp_tui.registry.manifest import InstalledAgent

__all__ = ["STARTUP_TIMEOUT", "answers_initialize"]

#: how long a new version may take to answer `initialize`
STARTUP_TIMEOUT = 60.0
#: what is read of its output at most while waiting
_MAX_OUTPUT = 16 * 1024 * 1024

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False},
        "clientInfo": {"name": "acp-tui", "title": "acp-tui (install check)", "version": "0"},
    },
}


def answers_initialize(agent: InstalledAgent, timeout: float = STARTUP_TIMEOUT) -> str | None:
    """None when the agent answered `initialize` with a result within `timeout`; else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="acp-tui-check-") as cwd:
        try:
            process = subprocess.Popen(
                list(agent.argv),
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, **agent.env},
                start_new_session=True,
            )
        except OSError as exc:
            return f"cannot run {agent.argv[0]}: {exc.strerror or exc}"
        try:
            return _wait_answer(process, timeout)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_answer(process: subprocess.Popen[bytes], timeout: float) -> str | None:
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps(_INITIALIZE).encode() + b"\n")
        process.stdin.flush()
    except OSError:
        return f"it exited before answering initialize (status {process.wait()})"
    deadline = time.monotonic() + timeout
    buffer = b""
    read = 0
    descriptor = process.stdout.fileno()
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([descriptor], [], [], left)
        if not ready:
            break
        chunk = os.read(descriptor, 65536)
        if not chunk:
            return f"it exited before answering initialize (status {process.wait()})"
        read += len(chunk)
        if read > _MAX_OUTPUT:
            return "it wrote too much without answering initialize"
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                if isinstance(message, dict) and message.get("id") == 0:
                    return None if "result" in message else "it refused initialize"
    return f"no answer to initialize within {timeout:.0f} s"
