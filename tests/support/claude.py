"""The real Claude ACP adapter (installed once into tests/.peers) against the loopback stand-in for the model API."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import pytest

from acp_tui.launch import Launch
from tests.support.paths import FAKES
from tests.support.peers import PEERS_CACHE, PeerUnavailable, _install_atomically, _require, _run, peer_env

CLAUDE_ADAPTER_VERSION = "0.101.0"


CLAUDE_DIR = PEERS_CACHE / f"claude-agent-acp-{CLAUDE_ADAPTER_VERSION}"


def _build_claude(tmp: Path) -> None:
    npm = _require("npm")
    (tmp / "package.json").write_text('{"name": "acp-test-claude", "version": "1.0.0", "private": true}\n')
    _run(
        [npm, "install", "--no-audit", "--no-fund", f"@agentclientprotocol/claude-agent-acp@{CLAUDE_ADAPTER_VERSION}"],
        tmp,
        f"npm install @agentclientprotocol/claude-agent-acp@{CLAUDE_ADAPTER_VERSION}",
    )


@pytest.fixture(scope="session")
def claude_adapter() -> list[str]:
    """argv of the adapter, installed once; fails (never skips) when it cannot be had."""
    try:
        node = _require("node")
        _install_atomically(CLAUDE_DIR, _build_claude)
    except PeerUnavailable as exc:
        pytest.fail(f"Claude's ACP adapter is unavailable: {exc}")
    entry = CLAUDE_DIR / "node_modules" / "@agentclientprotocol" / "claude-agent-acp" / "dist" / "index.js"
    assert entry.is_file(), f"the adapter install lacks {entry}"
    return [node, str(entry)]


MOCK_ANTHROPIC = FAKES / "mock_anthropic.py"


@contextmanager
def serve_mock_model(tmp_path: Path, headers: Mapping[str, str] | None = None) -> Iterator[int]:
    """The loopback stand-in for the model API, its model answers carrying `headers` too; yields its port."""
    assert MOCK_ANTHROPIC.is_file(), f"the fake model server is missing: {MOCK_ANTHROPIC}"
    env = {**os.environ, "MOCK_CWD": str(tmp_path), "MOCK_RECORD": str(tmp_path / "model-requests.jsonl")}
    if headers:
        env["MOCK_RESPONSE_HEADERS"] = json.dumps(dict(headers))
    proc = subprocess.Popen(
        [sys.executable, str(MOCK_ANTHROPIC), "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        line = proc.stdout.readline().decode() if ready else ""
        if not line.startswith("listening on "):
            pytest.fail(f"the mock model server did not start (said {line!r}, exit {proc.poll()})")
        yield int(line.split()[-1])
    finally:
        proc.terminate()
        proc.wait(timeout=5)


@pytest.fixture
def mock_model(tmp_path: Path) -> Iterator[int]:
    """The loopback stand-in for the model API; yields its port once it accepts connections."""
    with serve_mock_model(tmp_path) as port:
        yield port


def _launch(
    argv: list[str],
    cwd: Path,
    port: int,
    protocol: Literal[1, 2],
    *,
    oauth_token: str | None = None,
    log_path: Path | None = None,
) -> Launch:
    """The adapter against the mock model, signed in with an API key, or with `oauth_token` as a subscription's
    token (`CLAUDE_CODE_OAUTH_TOKEN`, as `claude setup-token` gives one): the CLI reads a plan's limits only then."""
    home = cwd.parent / "claude-home"
    home.mkdir(exist_ok=True)
    credential = {"CLAUDE_CODE_OAUTH_TOKEN": oauth_token} if oauth_token else {"ANTHROPIC_API_KEY": "sk-ant-dummy"}
    env = {
        **{k: v for k, v in peer_env(home).items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")},
        "IS_SANDBOX": "1",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        **credential,
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    return Launch(
        agent_argv=tuple(argv),
        agent_name="claude",
        env=env,
        cwd=cwd,
        protocol=protocol,
        theme=None,
        log_path=log_path,
        init_timeout=60,
        warnings=(),
        is_demo=False,
    )
