"""A scriptable stdlib JSON-RPC agent for transport tests: each `test/*` method triggers one behaviour.

Flags: `--ignore-eof` keeps running after stdin closes; `--ignore-term` ignores SIGTERM.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

out = sys.stdout.buffer
backlog: list[dict[str, Any]] = []


def send(message: object) -> None:
    out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    out.flush()


def read_message() -> dict[str, Any] | None:
    if backlog:
        return backlog.pop(0)
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line.strip():
            return json.loads(line)


def wait_response(request_id: object) -> dict[str, Any]:
    """Read until the response to `request_id`; other messages wait in the backlog."""
    held: list[dict[str, Any]] = []
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(3)
        message = json.loads(line)
        if isinstance(message, dict) and "method" not in message and message.get("id") == request_id:
            backlog.extend(held)
            return message
        held.append(message)


def wait_raw_line() -> bytes:
    line = sys.stdin.buffer.readline()
    if not line:
        sys.exit(3)
    return line


def handle(message: dict[str, Any]) -> None:
    method = message.get("method")
    params = message.get("params") or {}
    rid = message.get("id")
    if "id" not in message:
        if method == "$/cancel_request":
            held = params.get("requestId")
            send({"jsonrpc": "2.0", "id": held, "error": {"code": -32800, "message": "cancelled"}})
            send({"jsonrpc": "2.0", "method": "test/cancelled", "params": {"requestId": held}})
        else:
            send({"jsonrpc": "2.0", "method": "test/seen", "params": {"method": method, "params": params}})
        return
    if method == "echo":
        send({"jsonrpc": "2.0", "id": rid, "result": params})
    elif method == "test/emit_raw":
        # Raw bytes on stdout, in the pieces given, then the answer.
        for piece in params["pieces"]:
            out.write(base64.b64decode(piece))
            out.flush()
        send({"jsonrpc": "2.0", "id": rid, "result": {"ok": True}})
    elif method == "test/ask":
        send({"jsonrpc": "2.0", "id": params["id"], "method": params["method"], "params": params.get("params", {})})
        if params.get("cancel"):
            send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": params["id"]}})
        answer = wait_response(params["id"])
        send({"jsonrpc": "2.0", "id": rid, "result": {"answer": answer}})
    elif method == "test/ask_raw":
        # One raw line (a request we may not be able to decode), then the client's answer to `id`.
        out.write(base64.b64decode(params["line"]) + b"\n")
        out.flush()
        if params.get("raw_reply"):
            send({"jsonrpc": "2.0", "id": rid, "result": {"reply": wait_raw_line().decode()}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": {"answer": wait_response(params["id"])}})
    elif method == "test/answer_raw":
        # Answer this very request with a raw line: `before` + our id + `after`.
        out.write(
            base64.b64decode(params["before"]) + json.dumps(rid).encode() + base64.b64decode(params["after"]) + b"\n"
        )
        out.flush()
    elif method == "test/batch":
        out.write(json.dumps(params["batch"], separators=(",", ":")).encode() + b"\n")
        out.flush()
        if params.get("expect_reply", True):
            reply = wait_raw_line()
            send({"jsonrpc": "2.0", "id": rid, "result": {"reply": reply.decode()}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": {"reply": None}})
    elif method == "test/big":
        send({"jsonrpc": "2.0", "method": "test/big", "params": {"data": "x" * params["size"]}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"sent": params["size"]}})
    elif method == "test/hold":
        pass  # answered only by a `$/cancel_request`
    elif method == "test/stderr":
        line = b"e" * 1023 + b"\n"
        block = line * 1024
        for _ in range(params["megabytes"] * 1024 * 1024 // len(block)):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.flush()
        send({"jsonrpc": "2.0", "id": rid, "result": {"done": True}})
    elif method == "test/exit":
        sys.stderr.write(params.get("stderr", ""))
        sys.stderr.flush()
        if params.get("partial"):
            out.write(b'{"jsonrpc":"2.0","method":"test/half')
            out.flush()
        os._exit(params["code"])
    elif method == "test/spawn_child":
        child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
        send({"jsonrpc": "2.0", "id": rid, "result": {"child": child.pid, "agent": os.getpid()}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


def main() -> None:
    if "--ignore-term" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        message = read_message()
        if message is None:
            break
        handle(message)
    if "--ignore-eof" in sys.argv:
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
