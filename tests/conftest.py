"""Shared pytest fixtures: the real ACP peers (installed once, cached), a fresh HOME per peer, and the support
modules' fixtures (`pytest_plugins`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.peers import PeerUnavailable, PySdkPeers, TsSdkPeers, ensure_py_sdk, ensure_ts_sdk, peer_env

#: The support modules that define fixtures: every test asks for one by its parameter name, with no import.
#: `private_dirs` and `_private_dirs` (the app's folders under tmp_path) are not autouse: a module that wants
#: them for all its tests says `pytestmark = pytest.mark.usefixtures("private_dirs")`.
pytest_plugins = (
    "tests.support.agent_session",
    "tests.support.app_run",
    "tests.support.claude",
    "tests.support.demo_app",
    "tests.support.hostile",
    "tests.support.processes",
    "tests.support.tmux",
)


@pytest.fixture(autouse=True)
def _never_the_users_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a test forgets to ask for, acp-tui's data, state and config folders are never the user's own
    (`private_dirs` and the demo's `_private_dirs` set their own under the test's `tmp_path` on top of this)."""
    base = tmp_path_factory.mktemp("acp-tui-folders")
    for name in ("DATA", "STATE", "CONFIG"):
        folder = base / name.lower()
        folder.mkdir()
        monkeypatch.setenv(f"ACP_TUI_{name}_DIR", str(folder))


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


# -- running in parallel (pytest-xdist, `--dist loadgroup` in pyproject.toml) ----------------------------------

#: Fixtures that start a real peer agent from tests/.peers (installed once, under a file lock: tests/support/peers.py).
PEER_FIXTURES = frozenset({"ts_sdk_peers", "py_sdk_peers", "claude_adapter", "gemini_cli"})
#: What a test calls to get a peer when it takes no fixture for it.
PEER_CALLS = frozenset({"ensure_ts_sdk", "ensure_py_sdk", "ensure_gemini_cli"})
#: Modules that drive a real terminal (tmux) end to end.
TERMINAL_MODULES = frozenset({"test_e2e_tmux", "test_e2e_tabs_tmux", "test_e2e_login_tmux", "test_readme_quickstart"})


def xdist_group(item: pytest.Item) -> str | None:
    """The group a test runs in: one worker takes a group's tests one after another.

    `serial`: the tmux end-to-end tests and the real peers, which measure wall-clock behaviour of whole
    processes (kill deadlines, init timeouts) and so run one at a time, as before; `snapshots`: the SVG
    snapshot comparisons (one worker, so an update writes each file once); `hypothesis`: the property
    tests, which share the example database. Everything else is spread over the workers.
    """
    fixtures = set(getattr(item, "fixturenames", ()))
    module = getattr(getattr(item, "module", None), "__name__", "")
    if module.rpartition(".")[2] in TERMINAL_MODULES:
        return "serial"
    if uses_a_peer(item):
        return "serial"
    if "snap_compare" in fixtures:
        return "snapshots"
    if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        return "hypothesis"
    return None


# -- layers: one folder each, one marker each (`pytest tests/unit` or `pytest -m unit`) ------------------------

#: The folders under tests/ that hold test modules; a test is marked with its folder's name.
LAYERS = ("unit", "app", "e2e", "peers")
TESTS = Path(__file__).resolve().parent


def layer_of(item: pytest.Item) -> str | None:
    """The layer folder an item's module lives in (None for a module outside them)."""
    try:
        folder = Path(item.path).resolve().relative_to(TESTS).parts[0]
    except (ValueError, IndexError):
        return None
    return folder if folder in LAYERS else None


def uses_a_peer(item: pytest.Item) -> bool:
    """Whether the test starts a real peer agent (tests/.peers), whichever layer it is in."""
    code = getattr(getattr(item, "obj", None), "__code__", None)
    names = set(code.co_names) if code is not None else set()
    return bool(set(getattr(item, "fixturenames", ())) & PEER_FIXTURES or names & PEER_CALLS)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the marks off the items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        layer = layer_of(item)
        if layer is not None:
            item.add_marker(layer)
        if layer != "peers" and uses_a_peer(item):  # a peer test outside tests/peers: `-m peers` finds it too
            item.add_marker("peers")
        group = xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
