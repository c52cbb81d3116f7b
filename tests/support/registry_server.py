"""A loopback ACP registry for the tests: the index (with an ETag), binary archives, and a PyPI simple index.

Everything it serves is made here, by the test: the index (`fixture_index`, our own, which validates against
the registry's schema shipped in acp_tui/registry/data), archives holding a tiny agent (a shell script running
the built-in demo agent, `python -m acp_tui.demo`) and a wheel whose console script does the same. Claude's
ACP adapter is listed as the real npm package at the version the other tests pin (tests/support/claude.py);
npm fetches it, through a cache kept in tests/.peers so a second run is fast.

The server records each request (path, conditional headers, status). An archive can be made to stall halfway
(`stall`): the server sends half, sets `half_sent`, and waits, so a test can kill the installer mid-download.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from acp_tui.registry.entries import platform_key
from tests.support.claude import CLAUDE_ADAPTER_VERSION
from tests.support.paths import REPO
from tests.support.peers import PEERS_CACHE

#: npm's cache for the registry tests' installs (tests/.peers, beside the other pinned peers)
NPM_CACHE = PEERS_CACHE / "npm-cache"
CLAUDE_PACKAGE = "@agentclientprotocol/claude-agent-acp"
WHEEL_NAME = "tiny-acp-agent"


@dataclass
class Seen:
    path: str
    if_none_match: str | None
    status: int


@dataclass
class RegistryServer:
    """The server's state; `base` is its URL (no trailing slash)."""

    base: str = ""
    index: bytes = b"{}"
    etag: str = '"v1"'
    files: dict[str, bytes] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    stall: set[str] = field(default_factory=set)
    half_sent: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"{self.base}/registry.json"

    def set_index(self, document: dict[str, Any], etag: str) -> None:
        self.index = json.dumps(document).encode()
        self.etag = etag

    def statuses(self, path: str) -> list[int]:
        return [seen.status for seen in self.seen if seen.path == path]


def _handler(state: RegistryServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            state.seen.append(Seen(self.path, self.headers.get("If-None-Match"), status))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if self.path.lstrip("/") in state.stall and body:
                half = len(body) // 2
                self.wfile.write(body[:half])
                self.wfile.flush()
                state.half_sent.set()
                state.release.wait(60)
                return
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/registry.json":
                if self.headers.get("If-None-Match") == state.etag:
                    self._send(304, b"", "application/json", {"ETag": state.etag})
                else:
                    self._send(200, state.index, "application/json", {"ETag": state.etag})
                return
            body = state.files.get(path.lstrip("/"))
            if body is None:
                self._send(404, b"not found", "text/plain")
                return
            kind = "text/html" if path.endswith("/") else "application/octet-stream"
            self._send(200, body, kind)

    return Handler


@contextmanager
def serve_registry() -> Iterator[RegistryServer]:
    """The server on 127.0.0.1 (any free port), stopped at the end."""
    state = RegistryServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()


def demo_script(python: str) -> bytes:
    """The tiny agent: a shell script that runs the built-in demo agent with the tests' interpreter."""
    return f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{python}" -m acp_tui.demo "$@"\n'.encode()


def demo_archive(python: str, version: str, script: bytes | None = None) -> bytes:
    """A tar.gz holding `tiny-agent-VERSION/bin/tiny-agent` (executable: the demo agent, or `script`) and a README."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, body, mode in (
            (f"tiny-agent-{version}/bin/tiny-agent", script or demo_script(python), 0o755),
            (f"tiny-agent-{version}/README", b"a tiny ACP agent for acp-tui's tests\n", 0o644),
        ):
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(body), mode
            tar.addfile(info, io.BytesIO(body))
    return data.getvalue()


def demo_wheel(python: str, version: str) -> tuple[str, bytes]:
    """A wheel of `tiny-acp-agent` whose console script `tiny-acp-agent` execs the demo agent: (file name, bytes)."""
    module = (
        "import os, sys\n\n\ndef main() -> None:\n"
        f"    env = {{**os.environ, 'PYTHONPATH': {str(REPO)!r}}}\n"
        f"    os.execve({python!r}, [{python!r}, '-m', 'acp_tui.demo', *sys.argv[1:]], env)\n"
    )
    dist = f"tiny_acp_agent-{version}"
    files = {
        "tiny_acp_agent/__init__.py": module.encode(),
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {WHEEL_NAME}\nVersion: {version}\n".encode(),
        f"{dist}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: acp-tui-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}.dist-info/entry_points.txt": b"[console_scripts]\ntiny-acp-agent = tiny_acp_agent:main\n",
    }
    record = []
    for name, body in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(body)}")
    record.append(f"{dist}.dist-info/RECORD,,")
    files[f"{dist}.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as wheel:
        for name, body in files.items():
            wheel.writestr(name, body)
    return f"{dist}-py3-none-any.whl", data.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def publish_python_package(state: RegistryServer, python: str, versions: tuple[str, ...]) -> None:
    """The wheels of `tiny-acp-agent` at `versions`, and their PEP 503 page under /simple/."""
    links = []
    for version in versions:
        name, body = demo_wheel(python, version)
        state.files[f"files/{name}"] = body
        links.append(f'<a href="{state.base}/files/{name}#sha256={sha256(body)}">{name}</a>')
    page = "<!DOCTYPE html><html><body>" + "".join(links) + "</body></html>"
    state.files[f"simple/{WHEEL_NAME}/"] = page.encode()


def binary_entry(agent_id: str, version: str, archive_url: str, digest: str | None) -> dict[str, Any]:
    target: dict[str, Any] = {"archive": archive_url, "cmd": f"./tiny-agent-{version}/bin/tiny-agent"}
    if digest is not None:
        target["sha256"] = digest
    return {
        "id": agent_id,
        "name": f"Tiny agent ({agent_id})",
        "version": version,
        "description": "The built-in demo agent in an archive",
        "distribution": {"binary": {platform_key(): target}},
    }


def fixture_index(
    state: RegistryServer, python: str, *, version: str = "1.0.0", script: bytes | None = None
) -> dict[str, Any]:
    """Our registry: Claude's adapter (npx), the tiny PyPI agent (uvx), the tiny archive with a right sha256,
    with a wrong one and with none (binary). The archives (the demo agent, or `script`) are published on `state`
    as a side effect."""
    archive = demo_archive(python, version, script)
    state.files[f"archives/tiny-agent-{version}.tar.gz"] = archive
    url = f"{state.base}/archives/tiny-agent-{version}.tar.gz"
    return {
        "version": "1.0.0",
        "agents": [
            {
                "id": "claude-acp",
                "name": "Claude Agent",
                "version": CLAUDE_ADAPTER_VERSION,
                "description": "ACP wrapper for Anthropic's Claude",
                "repository": "https://github.com/agentclientprotocol/claude-agent-acp",
                "authors": ["Anthropic"],
                "license": "proprietary",
                "distribution": {"npx": {"package": f"{CLAUDE_PACKAGE}@{CLAUDE_ADAPTER_VERSION}"}},
            },
            {
                "id": "tiny-py",
                "name": "Tiny agent (PyPI)",
                "version": version,
                "description": "The built-in demo agent as a console script",
                "distribution": {"uvx": {"package": f"{WHEEL_NAME}=={version}"}},
            },
            binary_entry("tiny-bin", version, url, sha256(archive)),
            binary_entry("tiny-bin-wrong", version, url, "0" * 64),
            binary_entry("tiny-bin-nosum", version, url, None),
        ],
        "extensions": [],
    }
