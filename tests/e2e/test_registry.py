"""The ACP registry end to end (issue 41): `acp-tui add ID` then `acp-tui -p PROMPT ID`, for each kind of
distribution, against a loopback registry (tests/support/registry_server.py); updates, removal, the index's
cache, refused and interrupted installs, and a hostile index. acp-tui runs as a real process each time.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.registry.entries import MAX_ENTRIES
from acp_tui.registry.listing import MAX_ROWS
from tests.support.acp_process import env_for
from tests.support.claude import CLAUDE_ADAPTER_VERSION, _launch, serve_mock_model
from tests.support.registry_server import (
    NPM_CACHE,
    RegistryServer,
    fixture_index,
    publish_python_package,
    serve_registry,
)
from tests.support.tmux import Tmux, acp_tui_command

pytestmark = pytest.mark.timeout(300)

#: what the demo agent answers `markdown` with (acp_tui/demo/scripts.py)
DEMO_ANSWER = "Greeting people, politely"


@pytest.fixture
def registry() -> Iterator[RegistryServer]:
    with serve_registry() as state:
        state.set_index(fixture_index(state, sys.executable), '"v1"')
        publish_python_package(state, sys.executable, ("1.0.0",))
        yield state


def registry_env(tmp_path: Path, state: RegistryServer) -> dict[str, str]:
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    return {
        **env_for(tmp_path),
        "ACP_TUI_REGISTRY": state.url,
        "PIP_INDEX_URL": f"{state.base}/simple/",
        "PIP_EXTRA_INDEX_URL": "",
        "PIP_FIND_LINKS": "",
        "npm_config_cache": str(NPM_CACHE),
        "npm_config_update_notifier": "false",
    }


def run(
    tmp_path: Path, state: RegistryServer, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        cwd=tmp_path,
        env={**registry_env(tmp_path, state), **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def agents_folder(tmp_path: Path) -> Path:
    return tmp_path / "user-data" / "agents"


def current(tmp_path: Path, agent_id: str) -> dict[str, object]:
    pointer = json.loads((agents_folder(tmp_path) / agent_id / "current.json").read_text())
    assert isinstance(pointer, dict)
    return pointer


# -- binary ------------------------------------------------------------------------------------------------------


def test_a_binary_agent_is_added_run_updated_and_removed(tmp_path: Path, registry: RegistryServer) -> None:
    added = run(tmp_path, registry, "add", "tiny-bin")
    assert added.returncode == 0, added.stderr
    assert "Installing tiny-bin 1.0.0 as a" in added.stdout and "(sha256 checked)" in added.stdout
    assert "run it with  acp-tui tiny-bin" in added.stdout
    manifest = json.loads((agents_folder(tmp_path) / "tiny-bin" / "1.0.0" / "acp-tui-install.json").read_text())
    assert manifest["kind"] == "binary" and manifest["verified"] is True
    assert manifest["argv"] == [
        str(agents_folder(tmp_path) / "tiny-bin" / "1.0.0" / "files/tiny-agent-1.0.0/bin/tiny-agent")
    ]

    turn = run(tmp_path, registry, "-p", "markdown", "tiny-bin")
    assert turn.returncode == 0, turn.stderr
    assert DEMO_ANSWER in turn.stdout

    listed = run(tmp_path, registry, "agents", "--installed")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[:3] for line in listed.stdout.splitlines()[1:]] == [["tiny-bin", "1.0.0", "binary"]]

    registry.set_index(fixture_index(registry, sys.executable, version="1.1.0"), '"v2"')
    updated = run(tmp_path, registry, "agents", "--update", "--refresh")
    assert updated.returncode == 0, updated.stderr
    changes = updated.stdout.split("Updates:\n", 1)[1].splitlines()
    assert changes[0] == "  tiny-bin 1.0.0 -> 1.1.0 (binary)"  # what would change, said first
    assert "tiny-bin 1.1.0 started; 1.0.0 removed" in updated.stdout
    assert current(tmp_path, "tiny-bin") == {"version": "1.1.0", "previous": None}
    assert sorted(p.name for p in (agents_folder(tmp_path) / "tiny-bin").iterdir() if not p.name.startswith(".")) == [
        "1.1.0",
        "current.json",
    ]
    again = run(tmp_path, registry, "-p", "markdown", "tiny-bin")
    assert again.returncode == 0 and DEMO_ANSWER in again.stdout, again.stderr
    assert "up to date" in run(tmp_path, registry, "agents", "--update").stdout

    removed = run(tmp_path, registry, "agents", "--remove", "tiny-bin")
    assert removed.returncode == 0, removed.stderr
    assert not (agents_folder(tmp_path) / "tiny-bin").exists()
    missing = run(tmp_path, registry, "-p", "markdown", "tiny-bin")
    assert missing.returncode == 127
    assert "tiny-bin is an agent of the ACP registry" in missing.stderr
    assert "install it with  acp-tui add tiny-bin" in missing.stderr


def test_an_update_that_does_not_start_keeps_the_old_version(tmp_path: Path, registry: RegistryServer) -> None:
    assert run(tmp_path, registry, "add", "tiny-bin").returncode == 0
    broken = b"#!/bin/sh\necho 'cannot start' >&2\nexit 3\n"
    registry.set_index(fixture_index(registry, sys.executable, version="1.2.0", script=broken), '"v3"')
    updated = run(tmp_path, registry, "agents", "--update", "tiny-bin", "--refresh")
    assert updated.returncode == 1
    assert (
        "tiny-bin 1.2.0 did not start (it exited before answering initialize (status 3)); 1.0.0 stays" in updated.stderr
    )
    assert current(tmp_path, "tiny-bin") == {"version": "1.0.0", "previous": None}
    assert not (agents_folder(tmp_path) / "tiny-bin" / "1.2.0").exists()
    turn = run(tmp_path, registry, "-p", "markdown", "tiny-bin")
    assert turn.returncode == 0 and DEMO_ANSWER in turn.stdout, turn.stderr


def test_a_checksum_mismatch_is_refused_and_leaves_nothing(tmp_path: Path, registry: RegistryServer) -> None:
    result = run(tmp_path, registry, "add", "tiny-bin-wrong")
    assert result.returncode == 1
    assert "the archive's sha256 is" in result.stderr and "refused, nothing installed" in result.stderr
    assert registry.statuses("/archives/tiny-agent-1.0.0.tar.gz") == [200]  # it was downloaded, then refused
    assert not (agents_folder(tmp_path) / "tiny-bin-wrong").exists()
    assert list(agents_folder(tmp_path).iterdir()) == []


def test_an_archive_without_a_checksum_needs_trust_unverified(tmp_path: Path, registry: RegistryServer) -> None:
    refused = run(tmp_path, registry, "add", "tiny-bin-nosum")
    assert refused.returncode == 1
    assert "acp-tui add tiny-bin-nosum --trust-unverified" in refused.stderr
    assert registry.statuses("/archives/tiny-agent-1.0.0.tar.gz") == []  # refused before any download
    trusted = run(tmp_path, registry, "add", "tiny-bin-nosum", "--trust-unverified")
    assert trusted.returncode == 0, trusted.stderr
    assert "UNVERIFIED: no sha256" in trusted.stdout and "installing it unverified" in trusted.stderr
    listed = run(tmp_path, registry, "agents", "--installed")
    assert "(UNVERIFIED download)" in listed.stdout
    turn = run(tmp_path, registry, "-p", "markdown", "tiny-bin-nosum")
    assert turn.returncode == 0 and DEMO_ANSWER in turn.stdout, turn.stderr


@pytest.mark.parametrize("kill", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_an_install_killed_halfway_leaves_nothing(
    tmp_path: Path, registry: RegistryServer, kill: signal.Signals
) -> None:
    registry.stall.add("archives/tiny-agent-1.0.0.tar.gz")
    process = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "add", "tiny-bin"],
        cwd=tmp_path,
        env=registry_env(tmp_path, registry),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert registry.half_sent.wait(60), "the download never started"
        temp = [p.name for p in (agents_folder(tmp_path) / "tiny-bin").iterdir() if p.name.startswith(".tmp-")]
        assert len(temp) == 1  # the install was under way, in its temp folder
        process.send_signal(kill)
        _, stderr = process.communicate(timeout=30)
    finally:
        registry.release.set()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == (128 + signal.SIGTERM if kill == signal.SIGTERM else -signal.SIGKILL)
    if kill == signal.SIGTERM:
        assert "nothing was left half-installed" in stderr and "Traceback" not in stderr
        assert not (agents_folder(tmp_path) / "tiny-bin").exists()
    # whatever a SIGKILL left is swept by the next command; nothing was ever installed
    listed = run(tmp_path, registry, "agents", "--installed")
    assert "No registry agents installed." in listed.stdout
    assert not (agents_folder(tmp_path) / "tiny-bin").exists()


# -- PyPI (uvx) ----------------------------------------------------------------------------------------------


def test_a_pypi_agent_is_added_into_its_own_venv_and_run(tmp_path: Path, registry: RegistryServer) -> None:
    env = {"PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "uv").exists())}
    added = run(tmp_path, registry, "add", "tiny-py", env=env, timeout=240)
    assert added.returncode == 0, added.stderr
    assert "Installing tiny-py 1.0.0 from PyPI (tiny-acp-agent==1.0.0)" in added.stdout
    folder = agents_folder(tmp_path) / "tiny-py" / "1.0.0"
    manifest = json.loads((folder / "acp-tui-install.json").read_text())
    assert manifest["argv"] == [str(folder / "bin" / "tiny-acp-agent")]
    head = "\n".join((folder / "bin" / "tiny-acp-agent").read_text().splitlines()[:2])  # pip's shebang, or its
    assert f"{folder}/bin/python" in head and ".tmp-" not in head  # /bin/sh line for long paths: the final folder
    assert registry.statuses("/simple/tiny-acp-agent/") == [200]
    turn = run(tmp_path, registry, "-p", "markdown", "tiny-py")
    assert turn.returncode == 0, turn.stderr
    assert DEMO_ANSWER in turn.stdout


# -- npm (npx) -----------------------------------------------------------------------------------------------


@pytest.mark.timeout(600)
def test_claudes_adapter_is_added_from_npm_pinned_and_runs_a_turn(tmp_path: Path, registry: RegistryServer) -> None:
    added = run(tmp_path, registry, "add", "claude-acp", timeout=540)
    assert added.returncode == 0, added.stderr
    spec = f"@agentclientprotocol/claude-agent-acp@{CLAUDE_ADAPTER_VERSION}"
    assert f"Installing claude-acp {CLAUDE_ADAPTER_VERSION} from npm ({spec})" in added.stdout
    folder = agents_folder(tmp_path) / "claude-acp" / CLAUDE_ADAPTER_VERSION
    installed = json.loads((folder / "node_modules/@agentclientprotocol/claude-agent-acp/package.json").read_text())
    assert installed["version"] == CLAUDE_ADAPTER_VERSION
    manifest = json.loads((folder / "acp-tui-install.json").read_text())
    assert manifest["argv"][1].startswith(str(folder / "node_modules/@agentclientprotocol/claude-agent-acp/"))
    project = tmp_path / "proj"
    project.mkdir()
    with serve_mock_model(project) as port:
        launch = _launch(["unused"], project, port, 2)
        env = {k: v for k, v in launch.env.items() if k not in ("PYTHONPATH",) and not k.startswith("ACP_TUI_")}
        turn = run(tmp_path, registry, "-p", "hello registry", "claude-acp", env=env, timeout=180)
    assert turn.returncode == 0, turn.stderr
    assert "Hello from mock LLM. You said: hello registry" in turn.stdout
    assert f"agent Claude Agent {CLAUDE_ADAPTER_VERSION}" in turn.stderr


# -- the index -----------------------------------------------------------------------------------------------


def test_the_index_is_cached_with_its_etag_and_used_when_the_server_is_down(tmp_path: Path) -> None:
    with serve_registry() as state:
        state.set_index(fixture_index(state, sys.executable), '"v1"')
        first = run(tmp_path, state, "agents")
        assert first.returncode == 0, first.stderr
        assert "tiny-bin  Tiny agent (tiny-bin) 1.0.0  (binary)" in first.stdout
        assert run(tmp_path, state, "agents").returncode == 0  # within a day: no request at all
        refreshed = run(tmp_path, state, "agents", "--refresh")
        assert refreshed.returncode == 0 and "(unchanged, checked just now)" in refreshed.stdout
        assert [(seen.status, seen.if_none_match) for seen in state.seen] == [(200, None), (304, '"v1"')]
    offline = run(tmp_path, state, "agents", "--refresh")  # the server is gone now
    assert offline.returncode == 0, offline.stderr
    assert "tiny-bin  Tiny agent (tiny-bin) 1.0.0  (binary)" in offline.stdout
    assert "Note: the registry could not be reached" in offline.stdout and "using the copy fetched" in offline.stdout


def test_a_hostile_index_is_shown_literally_bounded_and_quickly(tmp_path: Path, registry: RegistryServer) -> None:
    agents: list[object] = [
        {
            "id": f"agent-{n}",
            "name": f"Agent {n}",
            "version": "1.0.0",
            "description": "d",
            "distribution": {"npx": {"package": f"agent-{n}@1.0.0"}},
        }
        for n in range(10_000)
    ]
    agents[0] = {**agents[0], "description": "x" * 50_000_000}  # type: ignore[dict-item]
    agents[1] = {**agents[1], "id": "evil\x1b]0;owned\x07\x1b[2J"}  # type: ignore[dict-item]
    agents[2] = {**agents[2], "name": "Spoof\u202eredli\x1b[31m"}  # type: ignore[dict-item]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps({"version": "1.0.0", "agents": agents, "extensions": []}))
    started = time.monotonic()
    result = run(tmp_path, registry, "agents", env={"ACP_TUI_REGISTRY": str(path)}, timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert elapsed < 10, f"listing the hostile index took {elapsed:.1f} s"
    out = result.stdout
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "evil\\x1b]0;owned\\x07\\x1b[2J: id: " in out  # the id literally, as unusable, with the schema's reason
    assert "agent-2  Spoof\\u202eredli\\x1b[31m 1.0.0  (npx)" in out  # a name too: its controls as escapes
    assert len(out) < 100_000 and len(out.splitlines()) < 2 * MAX_ROWS + 40
    assert f"… and {MAX_ENTRIES - 1 - MAX_ROWS} more" in out
    assert f"the index lists 10000 agents; the first {MAX_ENTRIES} were read" in out


# -- the question before the TUI -------------------------------------------------------------------------------


def test_running_an_agent_not_installed_asks_once_installs_it_and_chats(
    tmux: Tmux, tmp_path: Path, registry: RegistryServer
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {
        **{
            key: registry_env(tmp_path, registry)[key]
            for key in ("ACP_TUI_DATA_DIR", "ACP_TUI_STATE_DIR", "ACP_TUI_CONFIG_DIR")
        },
        "ACP_TUI_REGISTRY": registry.url,
        "ACP_TUI_DEMO_SPEED": "0",
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    assert run(tmp_path, registry, "agents").returncode == 0  # the index at hand: the question reads no network
    command = " ".join(shlex.quote(part) for part in [*acp_tui_command(), "--cwd", str(project), "tiny-bin"])
    tmux.run(
        "new-session", "-d", "-x", "160", "-y", "50", "-s", tmux.name, "sh", "-c", f"exec env -i {exports} {command}"
    )
    tmux.wait_for(lambda: "install tiny-bin 1.0.0 from its archive? [y/N]" in tmux.screen(), "the one question")
    tmux.run("send-keys", "-t", tmux.name, "y", "Enter")
    tmux.wait_for(lambda: "Welcome to the" in tmux.screen(), "the installed agent's welcome")
    tmux.wait_for(lambda: "ready" in tmux.screen(), "the session to be ready")
    tmux.run("send-keys", "-t", tmux.name, "-l", "markdown")
    tmux.wait_for(lambda: any(line.strip() == "markdown" for line in tmux.screen().splitlines()[-6:]), "the prompt")
    tmux.run("send-keys", "-t", tmux.name, "Enter")
    tmux.wait_for(lambda: DEMO_ANSWER in tmux.screen(), "the answer")
    tmux.run("send-keys", "-t", tmux.name, "C-q")
    tmux.wait_for(lambda: not tmux.alive(), "acp-tui to quit")
    assert current(tmp_path, "tiny-bin") == {"version": "1.0.0", "previous": None}
