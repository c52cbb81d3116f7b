#!/usr/bin/env python3
"""A loopback fake of the Gemini API, enough for Gemini CLI to run whole turns with tool calls offline.

Run: ``python fake_gemini.py [PORT] [--log FILE]``. Port 0 (the default) picks a free one; the first
line on stdout is ``PORT <n>`` once the server accepts connections. ``--log`` appends one JSON line
per request (path, the request body's last content) so a test can see what the agent sent.

Endpoints (the Generative Language API as Gemini CLI calls it, under any ``/v1beta/models/M:``):
- ``:streamGenerateContent?alt=sse`` — the conversation. The reply depends on the request:
  * the last content carries a ``functionResponse`` → text: ``Done: <tool name> answered.``;
  * else the last user text holds ``WRITEFILE <absolute path> :: <text>`` → one ``functionCall`` of
    the ``write_file`` tool named in the request's ``tools`` (its argument names are read from the
    tool's declaration: the one holding "path" gets the path, the one named "content" the text);
  * else → text: ``Hello from the fake Gemini. You said: <text>``.
- ``:generateContent`` — side questions (next speaker, summaries): JSON when JSON is asked for.
- ``:countTokens`` / ``:embedContent`` — fixed answers. Anything else: 404.

Stdlib only: it is the project's own stand-in, never the real service.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

WRITE_DIRECTIVE = re.compile(r"WRITEFILE\s+(\S+)\s*::\s*(.*)", re.S)
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}

_log_lock = threading.Lock()
_log_path: str | None = None


def _log(entry: dict[str, Any]) -> None:
    if _log_path is None:
        return
    with _log_lock, open(_log_path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


def _declarations(request: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for tool in request.get("tools") or []:
        if isinstance(tool, dict):
            found.extend(d for d in tool.get("functionDeclarations") or [] if isinstance(d, dict))
    return found


def _argument_names(declaration: dict[str, Any]) -> tuple[str, str]:
    """(path argument, content argument) of a write tool, read from its JSON Schema parameters."""
    schema = declaration.get("parametersJsonSchema") or declaration.get("parameters") or {}
    names = list((schema.get("properties") or {}).keys())
    path = next((n for n in names if "path" in n.lower()), "file_path")
    content = next((n for n in names if n.lower() == "content"), "content")
    return path, content


def _last_user_text(contents: list[dict[str, Any]]) -> str:
    for content in reversed(contents):
        if content.get("role") != "user":
            continue
        texts = [
            p["text"] for p in content.get("parts") or [] if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        if texts:
            return " ".join(texts)
    return ""


def _function_response(contents: list[dict[str, Any]]) -> str | None:
    """The tool name when the last content answers a function call."""
    if not contents:
        return None
    for part in contents[-1].get("parts") or []:
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
            return str(part["functionResponse"].get("name", "tool"))
    return None


def reply_parts(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The model's answer to one conversation request, as content parts."""
    contents = [c for c in request.get("contents") or [] if isinstance(c, dict)]
    answered = _function_response(contents)
    if answered is not None:
        return [{"text": f"Done: {answered} answered."}]
    text = _last_user_text(contents)
    directive = WRITE_DIRECTIVE.search(text)
    if directive is not None:
        for declaration in _declarations(request):
            if declaration.get("name") == "write_file":
                path_arg, content_arg = _argument_names(declaration)
                args = {path_arg: directive.group(1), content_arg: directive.group(2)}
                return [{"functionCall": {"name": "write_file", "args": args}}]
        return [{"text": "The request offers no write_file tool."}]
    return [{"text": f"Hello from the fake Gemini. You said: {text.strip()[-200:]}"}]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        _log({"method": "GET", "path": self.path})
        self._json(404, {"error": {"code": 404, "message": "not in the fake", "status": "NOT_FOUND"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            request = {}
        if not isinstance(request, dict):
            request = {}
        contents = request.get("contents") or []
        _log(
            {
                "method": "POST",
                "path": self.path,
                "last": contents[-1] if contents else None,
                "tools": [d.get("name") for d in _declarations(request)],
            }
        )
        if ":countTokens" in self.path:
            self._json(200, {"totalTokens": 42})
        elif ":embedContent" in self.path or ":batchEmbedContents" in self.path:
            self._json(200, {"embedding": {"values": [0.0] * 8}})
        elif ":generateContent" in self.path:
            config = request.get("generationConfig") or {}
            if config.get("responseMimeType") == "application/json":
                parts = [{"text": json.dumps({"reasoning": "fake", "next_speaker": "user"})}]
            else:
                parts = reply_parts(request)
            candidate = {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            self._json(200, {"candidates": [candidate], "usageMetadata": USAGE})
        elif ":streamGenerateContent" in self.path:
            self._stream(reply_parts(request))
        else:
            self._json(404, {"error": {"code": 404, "message": "not in the fake", "status": "NOT_FOUND"}})

    def _stream(self, parts: list[dict[str, Any]]) -> None:
        """Server-sent events, one part per event; the last one carries the finish reason."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        for index, part in enumerate(parts):
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
            chunk: dict[str, Any] = {"candidates": [candidate]}
            if index == len(parts) - 1:
                candidate["finishReason"] = "STOP"
                chunk["usageMetadata"] = USAGE
            self.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
            self.wfile.flush()
        self.close_connection = True


def main(argv: list[str]) -> int:
    global _log_path
    args = list(argv)
    if "--log" in args:
        index = args.index("--log")
        _log_path = args[index + 1]
        del args[index : index + 2]
    port = int(args[0]) if args else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    sys.stdout.write(f"PORT {server.server_address[1]}\n")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
