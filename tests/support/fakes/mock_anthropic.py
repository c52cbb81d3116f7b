"""A loopback fake of the Anthropic Messages API, so Claude's ACP adapter can run full turns offline.

Claude's adapter (npm ``@agentclientprotocol/claude-agent-acp``) talks to the model through
``ANTHROPIC_BASE_URL``. Pointed at this server, it produces all of its own ACP traffic — tool calls,
permission requests, plans, usage — while the "model" answers from a script chosen by the last user
message of each request:

- the last user message carries a ``tool_result``  → the text ``Done. The tool ran.``
- it contains ``WRITEFILE`` (and ``Write`` is offered)  → a ``Write`` tool call creating
  ``$MOCK_CWD/hello.txt``
- it contains ``RUNCMD`` (and ``Bash`` is offered)  → a ``Bash`` tool call running ``echo hi``
- it contains ``PLAN`` (and ``TodoWrite`` is offered)  → a ``TodoWrite`` tool call with a three-step plan
- it contains ``SLOWREPLY``  → forty words, one every ``SLOW_WORD_DELAY`` seconds (a turn that lasts long
  enough to be steered)
- anything else  → the text ``Hello from mock LLM. You said: <the message>`` (with the adapter's
  ``<tag>…</tag>`` reminders removed, at most the last 80 characters)

Streaming requests get server-sent events in the order the real API sends them; other requests get one
JSON message. ``/v1/messages/count_tokens`` answers 42 tokens; any other path is a 404.

With ``MOCK_RECORD=FILE`` every request body is appended to FILE as one JSON line, so a test can check
what the agent sent the model (e.g. a file the user mentioned).

With ``MOCK_RESPONSE_HEADERS=JSON`` (an object of header name to value) every ``/v1/messages`` answer also
carries those headers: a test gives the plan's ``anthropic-ratelimit-unified-*`` headers this way, which
the real API sends to a subscription (OAuth) login and from which the Claude CLI reports its limits.

Usage: ``python mock_anthropic.py [PORT]`` (0 or nothing: any free port). Once it accepts connections it
prints ``listening on PORT`` on stdout. It serves only 127.0.0.1 and logs one line per request to stderr.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

#: Pause between streamed words, so a client sees the answer arrive in several chunks.
WORD_DELAY = 0.01
#: ... and in a ``SLOWREPLY`` answer.
SLOW_WORD_DELAY = 0.25
_TAGGED = re.compile(r"<([\w-]+)[^>]*>[\s\S]*?</\1>")
_message_numbers = count(1)


@dataclass(frozen=True)
class Text:
    """One text content block of the reply."""

    text: str
    delay: float = 0.0


@dataclass(frozen=True)
class ToolUse:
    """One tool_use content block of the reply."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)


Block = Text | ToolUse


def _last_user_message(request: dict[str, Any]) -> dict[str, Any]:
    for message in reversed(request.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return message
    return {}


def _content_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def _tool_names(request: dict[str, Any]) -> set[str]:
    return {str(tool.get("name")) for tool in request.get("tools") or [] if isinstance(tool, dict)}


def choose_reply(request: dict[str, Any], cwd: str) -> list[Block]:
    """The content blocks the fake model answers ``request`` with."""
    blocks = _content_blocks(_last_user_message(request))
    if any(block.get("type") == "tool_result" for block in blocks):
        return [Text("Done. The tool ran.")]
    said = " ".join(str(block.get("text", "")) for block in blocks if block.get("type") == "text")
    tools = _tool_names(request)
    if "WRITEFILE" in said and "Write" in tools:
        path = os.path.join(cwd, "hello.txt")
        return [Text("I will write the file."), ToolUse("Write", {"file_path": path, "content": "hello from mock\n"})]
    if "PLAN" in said and "TodoWrite" in tools:
        todos = [
            {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
            {"content": "Write the fix", "status": "in_progress", "activeForm": "Writing the fix"},
            {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
        ]
        return [Text("Making a plan."), ToolUse("TodoWrite", {"todos": todos})]
    if "SUBAGENT" in said and (tools & {"Agent", "Task"}):
        # the parent delegates: the child's own prompt asks for a file write, so its Write call asks permission
        task = {"description": "Write hello", "prompt": "WRITEFILE for the parent", "subagent_type": "general-purpose"}
        return [Text("Delegating to a subagent."), ToolUse("Agent" if "Agent" in tools else "Task", task)]
    if "SLOWREPLY" in said:
        return [Text(" ".join(f"word{n}" for n in range(40)), delay=SLOW_WORD_DELAY)]
    if "RUNCMD" in said and "Bash" in tools:
        return [Text("I will run a command."), ToolUse("Bash", {"command": "echo hi", "description": "Print hi"})]
    visible = _TAGGED.sub("", said).strip()[-80:]
    return [Text(f"Hello from mock LLM. You said: {visible}")]


def _block_json(block: Block, tool_id: str) -> dict[str, Any]:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    return {"type": "tool_use", "id": tool_id, "name": block.name, "input": block.input}


class FakeAnthropicHandler(BaseHTTPRequestHandler):
    """Answers the Messages API endpoints the adapter uses; everything else is a 404."""

    protocol_version = "HTTP/1.1"
    server_version = "FakeAnthropic/1"
    cwd = os.getcwd()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request is logged by the handlers themselves

    def _log(self, text: str) -> None:
        sys.stderr.write(f"[mock-anthropic] {self.command} {self.path} {text}\n")
        sys.stderr.flush()

    def _send_extra_headers(self) -> None:
        """The test's ``MOCK_RESPONSE_HEADERS``, on a model answer only."""
        if not self.path.startswith("/v1/messages") or self.path.startswith("/v1/messages/count_tokens"):
            return
        extra = json.loads(os.environ.get("MOCK_RESPONSE_HEADERS") or "{}")
        for name, value in extra.items():
            self.send_header(str(name), str(value))

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self._send_extra_headers()
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self) -> None:
        self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "not faked"}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._log("-> 404")
        self._not_found()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}") if length else {}
        except json.JSONDecodeError:
            request = {}
        if not isinstance(request, dict):
            request = {}
        record = os.environ.get("MOCK_RECORD")
        if record:
            with open(record, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"path": self.path, "body": request}) + "\n")
        self._log(
            f"stream={request.get('stream')} model={request.get('model')} tools={len(request.get('tools') or [])}"
        )
        if self.path.startswith("/v1/messages/count_tokens"):
            self._send_json(200, {"input_tokens": 42})
            return
        if not self.path.startswith("/v1/messages"):
            self._not_found()
            return
        number = next(_message_numbers)
        message_id, tool_id = f"msg_mock_{number}", f"toolu_mock_{number}"
        blocks = choose_reply(request, self.cwd)
        stop_reason = "tool_use" if any(isinstance(block, ToolUse) for block in blocks) else "end_turn"
        model = request.get("model", "mock")
        if request.get("stream"):
            self._stream(blocks, message_id, tool_id, model, stop_reason)
            return
        self._send_json(
            200,
            {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [_block_json(block, tool_id) for block in blocks],
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        )

    def _event(self, name: str, data: dict[str, Any]) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _stream(self, blocks: list[Block], message_id: str, tool_id: str, model: str, stop_reason: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self._send_extra_headers()
        self.end_headers()
        self._event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        )
        for index, block in enumerate(blocks):
            if isinstance(block, Text):
                self._event(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
                for position, word in enumerate(block.text.split(" ")):
                    piece = word if position == 0 else " " + word
                    self._event(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "text_delta", "text": piece},
                        },
                    )
                    time.sleep(block.delay or WORD_DELAY)
            else:
                self._event(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "tool_use", "id": tool_id, "name": block.name, "input": {}},
                    },
                )
                self._event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block.input)},
                    },
                )
            self._event("content_block_stop", {"type": "content_block_stop", "index": index})
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 12},
            },
        )
        self._event("message_stop", {"type": "message_stop"})
        self.close_connection = True


def main(argv: list[str]) -> int:
    port = int(argv[1]) if len(argv) > 1 else 0
    FakeAnthropicHandler.cwd = os.environ.get("MOCK_CWD", os.getcwd())
    server = ThreadingHTTPServer(("127.0.0.1", port), FakeAnthropicHandler)
    server.daemon_threads = True
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
