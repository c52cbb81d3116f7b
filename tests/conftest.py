"""Shared pytest fixtures: the real ACP peers (installed once, cached) and a fresh HOME per peer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.peers import PeerUnavailable, PySdkPeers, TsSdkPeers, ensure_py_sdk, ensure_ts_sdk, peer_env


@pytest.fixture(scope="session")
def ts_sdk_peers() -> TsSdkPeers:
    """The official TypeScript SDK example agents; fails (never skips) when they cannot be installed."""
    try:
        return ensure_ts_sdk()
    except PeerUnavailable as exc:
        pytest.fail(f"TypeScript SDK peer unavailable: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def py_sdk_peers() -> PySdkPeers:
    """The official Python SDK example agents; fails (never skips) when they cannot be installed."""
    try:
        return ensure_py_sdk()
    except PeerUnavailable as exc:
        pytest.fail(f"Python SDK peer unavailable: {exc}", pytrace=False)


@pytest.fixture
def peer_home_env(tmp_path: Path) -> dict[str, str]:
    """Environment for one peer process with its own fresh, empty HOME."""
    return peer_env(tmp_path / "home")
