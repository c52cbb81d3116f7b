"""Gemini CLI, the real product agent, installed once into tests/.peers/ (pinned: it changes weekly).

Recipe: `npm install @google/gemini-cli@0.61.0`, then `node .../bundle/gemini.js --acp` (ACP v1 only).
It talks to the Gemini API at `GOOGLE_GEMINI_BASE_URL`; the tests point that at the project's own
loopback fake (`tests/support/fakes/fake_gemini.py`), so a full turn with tool calls runs offline.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.peers import PEERS_CACHE, PeerUnavailable, _install_atomically, _require, _run, peer_env

GEMINI_CLI_VERSION = "0.61.0"
GEMINI_DIR = PEERS_CACHE / f"gemini-cli-{GEMINI_CLI_VERSION}"


def _build_gemini(tmp: Path) -> None:
    npm = _require("npm")
    (tmp / "package.json").write_text('{"name": "acp-test-gemini", "version": "1.0.0", "private": true}\n')
    spec = f"@google/gemini-cli@{GEMINI_CLI_VERSION}"
    _run([npm, "install", "--no-audit", "--no-fund", spec], tmp, f"npm install {spec}")


def ensure_gemini_cli() -> list[str]:
    """argv that runs Gemini CLI as an ACP agent (`--acp`), installing it once."""
    node = _require("node")
    _install_atomically(GEMINI_DIR, _build_gemini)
    entry = GEMINI_DIR / "node_modules" / "@google" / "gemini-cli" / "bundle" / "gemini.js"
    if not entry.is_file():
        raise PeerUnavailable(f"the Gemini CLI install lacks {entry}")
    return [node, str(entry), "--acp"]


def gemini_env(home: Path, port: int) -> dict[str, str]:
    """Environment for one Gemini CLI run: a fresh HOME, a dummy key, the API at the loopback fake."""
    env = peer_env(home)
    env.update(
        {
            "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}",
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "NO_COLOR": "1",
        }
    )
    for name in (
        "GOOGLE_API_KEY",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_GENAI_USE_VERTEXAI",
    ):
        env.pop(name, None)
    return env


__all__ = ["GEMINI_CLI_VERSION", "GEMINI_DIR", "ensure_gemini_cli", "gemini_env"]
