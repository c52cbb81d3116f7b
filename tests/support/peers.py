"""Install and locate the real ACP peer agents the tests talk to.

Real agents written by other people catch the dialect bugs our own fakes cannot. They are
installed once into ``tests/.peers/`` (gitignored) and reused: each install happens in a
temporary directory under a lock, then is renamed into place, so two pytest processes never
see a half-installed peer. A missing tool (node, npm, network) raises ``PeerUnavailable``
with a message naming what is missing; the fixtures turn that into ``pytest.fail``.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.paths import REPO

PEERS_CACHE = REPO / "tests" / ".peers"
TS_SDK_VERSION = "1.9.0"
PY_SDK_VERSION = "0.12.1"
TS_SDK_DIR = PEERS_CACHE / f"ts-sdk-{TS_SDK_VERSION}"
PY_VENV_DIR = PEERS_CACHE / "pyvenv"
PY_EXAMPLES_DIR = PEERS_CACHE / f"py-sdk-{PY_SDK_VERSION}"
# The official ACP JSON Schemas, as published inside the TypeScript SDK package (schema/v1/schema.json and
# schema/v2/schema.json). 2.4.0 is pinned because its two files are the schemas the client was written
# against; the digests catch a different file however it got here.
SCHEMA_PACKAGE = "@agentclientprotocol/sdk"
SCHEMA_PACKAGE_VERSION = "2.4.0"
SCHEMA_DIR = PEERS_CACHE / f"acp-schema-{SCHEMA_PACKAGE_VERSION}"
SCHEMA_SHA256 = {
    1: "0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a",
    2: "b6c91055df549d6f1db1d76d692d0561dad433e03d8ed114ea9b5baed9da72c5",
}
COMPLETE_MARKER = ".complete"
INSTALL_TIMEOUT = 600.0


class PeerUnavailable(RuntimeError):
    """A peer could not be installed; the message names the missing tool or step."""


@dataclass(frozen=True)
class TsSdkPeers:
    """Argv for the official TypeScript SDK example agents."""

    dual_version_agent: list[str]
    agent: list[str]


@dataclass(frozen=True)
class PySdkPeers:
    """Argv for the official Python SDK example agents (run in their own venv)."""

    echo_agent: list[str]
    agent: list[str]


def peer_env(home: Path) -> dict[str, str]:
    """Environment for a peer process: ours, with a fresh empty HOME so nothing leaks."""
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["HOME"] = str(home)
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    env["NO_UPDATE_NOTIFIER"] = "1"
    env["npm_config_update_notifier"] = "false"
    return env


@contextmanager
def _locked(name: str) -> Iterator[None]:
    """Hold an exclusive file lock so concurrent pytest processes install a peer only once."""
    PEERS_CACHE.mkdir(parents=True, exist_ok=True)
    with open(PEERS_CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _is_complete(target: Path) -> bool:
    return (target / COMPLETE_MARKER).is_file()


def _run(argv: list[str], cwd: Path, what: str) -> None:
    """Run one install step; on failure raise with the step and its output tail."""
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=INSTALL_TIMEOUT,
            env=peer_env(cwd / ".home"),
        )
    except FileNotFoundError as exc:
        raise PeerUnavailable(f"{what}: {argv[0]!r} is not installed ({exc})") from exc
    except subprocess.TimeoutExpired as exc:
        raise PeerUnavailable(f"{what}: timed out after {INSTALL_TIMEOUT:.0f}s") from exc
    if proc.returncode != 0:
        tail = proc.stdout.decode("utf-8", "replace")[-2000:]
        raise PeerUnavailable(f"{what} failed (exit {proc.returncode}; is the package registry reachable?):\n{tail}")


def _install_atomically(target: Path, build: Callable[[Path], None]) -> None:
    """Build into a temp dir beside ``target``, mark it complete, then rename it into place."""
    with _locked(target.name):
        if _is_complete(target):
            return
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=PEERS_CACHE))
        try:
            build(tmp)
            (tmp / COMPLETE_MARKER).write_text("ok\n")
            if target.exists():
                shutil.rmtree(target)
            tmp.rename(target)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)


def _require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise PeerUnavailable(f"{tool!r} is not on PATH; it is needed to install the real ACP peers")
    return path


def _build_ts_sdk(tmp: Path) -> None:
    npm = _require("npm")
    # What `npm init -y` writes, minus the name it would derive from the (dotted) temp dir.
    (tmp / "package.json").write_text('{"name": "acp-test-peers", "version": "1.0.0", "private": true}\n')
    _run(
        [npm, "install", "--no-audit", "--no-fund", f"@agentclientprotocol/sdk@{TS_SDK_VERSION}"],
        tmp,
        f"npm install @agentclientprotocol/sdk@{TS_SDK_VERSION}",
    )
    shutil.rmtree(tmp / ".home", ignore_errors=True)


def _ts_examples(root: Path) -> Path:
    return root / "node_modules" / "@agentclientprotocol" / "sdk" / "dist" / "examples"


def ensure_ts_sdk() -> TsSdkPeers:
    """Install the TypeScript SDK once; return argv for its two example agents."""
    node = _require("node")
    _install_atomically(TS_SDK_DIR, _build_ts_sdk)
    examples = _ts_examples(TS_SDK_DIR)
    dual, agent = examples / "dual-version-agent.js", examples / "agent.js"
    for path in (dual, agent):
        if not path.is_file():
            raise PeerUnavailable(f"the TypeScript SDK install lacks {path}")
    return TsSdkPeers(dual_version_agent=[node, str(dual)], agent=[node, str(agent)])


def _build_pyvenv(tmp: Path) -> None:
    _run([sys.executable, "-m", "venv", str(tmp)], tmp, "python -m venv")
    # `python -m pip`, never bin/pip: script shebangs would still name the temp dir after the rename.
    _run(
        [
            str(tmp / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            f"agent-client-protocol=={PY_SDK_VERSION}",
        ],
        tmp,
        f"pip install agent-client-protocol=={PY_SDK_VERSION}",
    )
    shutil.rmtree(tmp / ".home", ignore_errors=True)


def _build_py_examples(tmp: Path) -> None:
    python = str(PY_VENV_DIR / "bin" / "python")
    download = tmp / "download"
    download.mkdir()
    _run(
        [
            python,
            "-m",
            "pip",
            "download",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-binary",
            ":all:",
            f"agent-client-protocol=={PY_SDK_VERSION}",
            "-d",
            str(download),
        ],
        tmp,
        f"pip download agent-client-protocol=={PY_SDK_VERSION} (sdist)",
    )
    sdists = sorted(download.glob("*.tar.gz"))
    if not sdists:
        raise PeerUnavailable("pip download produced no sdist for agent-client-protocol")
    wanted = {"echo_agent.py", "agent.py"}
    with tarfile.open(sdists[0]) as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if len(parts) == 3 and parts[1] == "examples" and parts[2] in wanted and member.isfile():
                source = tar.extractfile(member)
                assert source is not None
                (tmp / parts[2]).write_bytes(source.read())
    missing = sorted(name for name in wanted if not (tmp / name).is_file())
    if missing:
        raise PeerUnavailable(f"the agent-client-protocol sdist lacks examples/{missing}")
    shutil.rmtree(download, ignore_errors=True)
    shutil.rmtree(tmp / ".home", ignore_errors=True)


def ensure_py_sdk() -> PySdkPeers:
    """Install the Python SDK into its own venv once; return argv for the example agents."""
    _install_atomically(PY_VENV_DIR, _build_pyvenv)
    _install_atomically(PY_EXAMPLES_DIR, _build_py_examples)
    python = str(PY_VENV_DIR / "bin" / "python")
    return PySdkPeers(
        echo_agent=[python, str(PY_EXAMPLES_DIR / "echo_agent.py")],
        agent=[python, str(PY_EXAMPLES_DIR / "agent.py")],
    )


def _schema_member(version: int) -> str:
    return f"package/schema/v{version}/schema.json"


def _build_acp_schemas(tmp: Path) -> None:
    """`npm pack` the pinned SDK (the tarball alone, no dependencies) and keep its two schema files."""
    npm = _require("npm")
    spec = f"{SCHEMA_PACKAGE}@{SCHEMA_PACKAGE_VERSION}"
    _run([npm, "pack", "--silent", spec], tmp, f"npm pack {spec}")
    tarballs = sorted(tmp.glob("*.tgz"))
    if len(tarballs) != 1:
        raise PeerUnavailable(f"npm pack {spec} left {len(tarballs)} tarballs, expected one")
    with tarfile.open(tarballs[0]) as tar:
        for version in sorted(SCHEMA_SHA256):
            try:
                source = tar.extractfile(_schema_member(version))
            except KeyError:
                source = None
            if source is None:
                raise PeerUnavailable(f"{spec} lacks {_schema_member(version)}")
            data = source.read()
            digest = hashlib.sha256(data).hexdigest()
            if digest != SCHEMA_SHA256[version]:
                raise PeerUnavailable(
                    f"{spec} {_schema_member(version)} has sha256 {digest}, expected {SCHEMA_SHA256[version]}"
                )
            target = tmp / f"v{version}" / "schema.json"
            target.parent.mkdir()
            target.write_bytes(data)
    tarballs[0].unlink()
    shutil.rmtree(tmp / ".home", ignore_errors=True)


def ensure_acp_schemas() -> dict[int, Path]:
    """Fetch the official ACP v1 and v2 JSON Schemas once; return the file of each version."""
    _install_atomically(SCHEMA_DIR, _build_acp_schemas)
    files = {version: SCHEMA_DIR / f"v{version}" / "schema.json" for version in SCHEMA_SHA256}
    for path in files.values():
        if not path.is_file():
            raise PeerUnavailable(f"the ACP schema install lacks {path}")
    return files


class JsonLinePeer:
    """A peer process spoken to with plain JSON lines over pipes: no acp_tui code involved.

    A reader thread queues each stdout line (raw bytes) so reads can wait with a timeout;
    stderr is drained continuously so a chatty peer never blocks. ``close`` shuts down the
    whole process group: close stdin, then terminate, then kill.
    """

    def __init__(self, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.argv = argv
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr_bytes = 0
        self.stderr_head = bytearray()
        self._threads = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        assert isinstance(self.proc.stderr, io.BufferedReader)
        while chunk := self.proc.stderr.read1(1 << 16):
            self.stderr_bytes += len(chunk)
            if len(self.stderr_head) < 1 << 16:
                self.stderr_head += chunk[: (1 << 16) - len(self.stderr_head)]

    def send(self, message: dict[str, object] | bytes) -> None:
        """Write one message (a dict is JSON-encoded) followed by a newline."""

        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read_line(self, timeout: float = 10.0) -> bytes | None:
        """The next raw stdout line, or None at end of output; AssertionError on timeout."""

        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"{self.argv[-1]}: no output within {timeout}s") from None

    def read_message(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next stdout line parsed as JSON; AssertionError at end of output."""

        line = self.read_line(timeout)
        if line is None:
            raise AssertionError(f"{self.argv[-1]} closed stdout; stderr: {self.stderr_text()}")
        return json.loads(line)

    def read_until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> list[dict[str, Any]]:
        """Read JSON messages until one satisfies ``predicate``; return all read, that one last."""

        deadline = time.monotonic() + timeout
        seen: list[dict[str, Any]] = []
        while True:
            message = self.read_message(max(0.01, deadline - time.monotonic()))
            seen.append(message)
            if predicate(message):
                return seen

    def request(
        self, msg_id: int | str, method: str, params: dict[str, object], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Send a request and return its response (notifications before it are discarded)."""
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        seen = self.read_until(lambda m: m.get("id") == msg_id and ("result" in m or "error" in m), timeout)
        return seen[-1]

    def stderr_text(self) -> str:
        """What the peer wrote to stderr so far; once it has exited, all of it (the reader thread is waited
        for to reach the end of the pipe, so a loaded machine cannot leave the last line unread)."""
        if self.proc.poll() is not None:
            self._threads[1].join(timeout=10)
        return self.stderr_head.decode("utf-8", "replace")

    def wait(self, timeout: float = 10.0) -> int:
        return self.proc.wait(timeout=timeout)

    def close(self, timeout: float = 5.0) -> int | None:
        """Close stdin, then terminate and kill the process group if it lingers."""

        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                continue
        return self.proc.poll()

    def __enter__(self) -> JsonLinePeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
