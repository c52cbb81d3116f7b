"""A scripted ACP agent for UI pilot tests: stdlib only, independent of acp_tui's protocol code.

Run: ``python scripted_agent.py SCRIPT.json [--record RECORD.jsonl]`` (or set the env vars
``SCRIPTED_AGENT_SCRIPT`` / ``SCRIPTED_AGENT_RECORD``). Every line received on stdin is
appended to the record file as one JSON line (``{"_unparsed": "..."}`` when it is not JSON) and
flushed at once, so a test can assert on the exact JSON the client sent.

Script format (every key optional)::

    {
      "version": 2,                       # protocol version answered (1 or 2)
      "initialize": {...},                # initialize result (default: minimal valid one)
      "supported_versions": [1],          # initialize asking another version is answered -32022
      "session_new": {...},               # session/new result (default {"sessionId": "scripted-session-1"})
      "refuse_tools": {"code": ..., "message": ...},  # session/new with MCP servers or extra folders answers this
      "adopt_opened": true,               # after answering session/resume or load, speak in that session
      "responses": {"METHOD": {"result": ...} | {"error": {...}}},   # any client request,
                                          # also overrides initialize / session/new
      "after_session_new": [STEP, ...],   # run right after answering session/new
      "turns": [{"match": "REGEX", "steps": [STEP, ...]}, ...],
      "default_turn": [STEP, ...],        # prompts no turn matches (default: a short echo turn)
      "on_cancel": [STEP, ...]            # session/cancel outside a wait_for that expects it
    }

Each ``session/prompt`` takes the first unused turn whose ``match`` regex is found in the
prompt's text (a turn without ``match`` takes any prompt), so turns also play out in order.
Steps are objects with an ``op``:

- ``{"op": "send", "message": {...}}`` a raw JSON-RPC message, written as given;
- ``{"op": "raw", "line": "..."}`` a raw line of text (for malformed input);
- ``{"op": "update", "update": {...}}`` a ``session/update`` for the session; with ``"session": "ID"``
  for that session instead (a subagent's child session, announced first by a ``subagent_update``);
- ``{"op": "state", "state": "running"|"idle", "stopReason": ...}`` a v2 state_update;
- ``{"op": "user_message"}`` v2 echo of the prompt as a ``user_message`` with ``$MESSAGE_ID``;
- ``{"op": "respond_prompt", "result": {...}?, "stopReason": "end_turn"?}`` answer the prompt:
  v2 ``{"messageId": $MESSAGE_ID}``, v1 ``{"stopReason": ...}``; a no-op once answered;
- ``{"op": "error_prompt", "code": -32603, "message": "...", "data": ...?}``;
- ``{"op": "request", "method": "...", "params": {...}, "id": 0, "wait": true}`` an agent→client
  request; with ``wait`` it blocks until the client answers (the answer is in the record);
- ``{"op": "wait_for", "method": "session/cancel"}`` or ``{"op": "wait_for", "response": ID}``
  (optional ``"timeout"`` seconds: on expiry a line goes to stderr and the turn goes on; with
  ``"answer": true`` a request waited for is then answered as ``responses`` says, e.g. a steer);
- ``{"op": "sleep", "seconds": 0.1}``; ``{"op": "stderr", "text": "..."}``;
  ``{"op": "exit", "code": 0}``;
- ``{"op": "wait_for_file", "path": "...", "timeout": 30}`` hold (serving client messages as
  ``wait_for`` does) until the test creates the file: a state the test must observe then lasts until
  it has, however late its poll comes on a loaded machine (on expiry a line goes to stderr).

``--stubborn`` makes an agent that will not stop by itself: it ignores SIGTERM, keeps running after
stdin closes, and starts a child in its own process group that does both too (its command line holds the
script's path, so a test finds it); with ``"on_cancel": []`` it does not answer ``session/cancel`` either.

Placeholders, replaced in every string of a step: ``$SESSION`` (session id), ``$PROMPT_ID``
(the prompt request's JSON-RPC id, keeping its type when it is the whole string),
``$MESSAGE_ID`` (the v2 user message id, ``user-msg-N``), ``$PROMPT_TEXT`` (prompt text).

A ``session/cancel`` that arrives while a turn runs (during ``request``, ``wait_for`` or
``sleep``) abandons the rest of that turn and runs ``on_cancel``; the default answers a
pending v1 prompt with ``stopReason: cancelled``, and in v2 answers a pending prompt and sends
``state_update`` idle/cancelled. A ``session/prompt`` that arrives mid-turn is queued. Other
requests get their ``responses`` entry or ``-32601``; unknown notifications are just recorded.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

Message = dict[str, Any]
Step = dict[str, Any]

DEFAULT_SESSION_ID = "scripted-session-1"


def _gives_tools(params: Message) -> bool:
    return bool(params.get("mcpServers") or params.get("additionalDirectories"))


class TurnCancelled(Exception):
    """Raised inside a turn when the client cancels it, to abandon the remaining steps."""


class StdinClosed(Exception):
    """The client closed our stdin: the agent exits cleanly."""


def default_initialize(version: int) -> dict[str, Any]:
    if version >= 2:
        return {
            "protocolVersion": 2,
            "info": {"name": "scripted-agent", "version": "1.0.0"},
            "capabilities": {"session": {}},
        }
    return {
        "protocolVersion": 1,
        "agentCapabilities": {"loadSession": False, "promptCapabilities": {}},
        "authMethods": [],
    }


def default_turn(version: int) -> list[Step]:
    if version >= 2:
        return [
            {"op": "respond_prompt"},
            {"op": "user_message"},
            {"op": "state", "state": "running"},
            {
                "op": "update",
                "update": {
                    "sessionUpdate": "agent_message",
                    "messageId": "agent-$MESSAGE_ID",
                    "content": [{"type": "text", "text": "echo: $PROMPT_TEXT"}],
                },
            },
            {"op": "state", "state": "idle", "stopReason": "end_turn"},
        ]
    return [
        {
            "op": "update",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "echo: $PROMPT_TEXT"},
            },
        },
        {"op": "respond_prompt", "stopReason": "end_turn"},
    ]


def default_on_cancel(version: int) -> list[Step]:
    if version >= 2:
        return [{"op": "respond_prompt"}, {"op": "state", "state": "idle", "stopReason": "cancelled"}]
    return [{"op": "respond_prompt", "stopReason": "cancelled"}]


class ScriptedAgent:
    """Plays one script against one client over stdin/stdout."""

    def __init__(self, script: dict[str, Any], record: Path | None) -> None:
        self.script = script
        self.version: int = int(script.get("version", 2))
        self.session_id: str = DEFAULT_SESSION_ID
        self.record = open(record, "a", encoding="utf-8") if record is not None else None
        self.inbox: queue.Queue[Message | None] = queue.Queue()
        self.deferred: deque[Message] = deque()
        self.used_turns: set[int] = set()
        self.prompt_count = 0
        self.prompt: Message | None = None
        self.prompt_answered = True
        self.answers: dict[Any, Message] = {}
        self.out_lock = threading.Lock()

    # I/O -----------------------------------------------------------------------------------

    def read_stdin(self) -> None:
        """Reader thread: record each line, then queue it parsed (None marks end of input)."""
        for raw in sys.stdin.buffer:
            line = raw.rstrip(b"\r\n")
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                message = {"_unparsed": line.decode("utf-8", "replace")}
            if self.record is not None:
                self.record.write(json.dumps(message) + "\n")
                self.record.flush()
            if isinstance(message, dict):
                self.inbox.put(message)
        self.inbox.put(None)

    def write(self, message: Any) -> None:
        self.write_line(json.dumps(message))

    def write_line(self, text: str) -> None:
        with self.out_lock:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    def next_message(self, timeout: float | None = None) -> Message | None:
        """The next client message (None on timeout); StdinClosed once input has ended."""
        try:
            message = self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None
        if message is None:
            self.inbox.put(None)
            raise StdinClosed
        return message

    # placeholders --------------------------------------------------------------------------

    def message_id(self) -> str:
        return f"user-msg-{self.prompt_count}"

    def prompt_text(self) -> str:
        if self.prompt is None:
            return ""
        blocks = self.prompt.get("params", {}).get("prompt", [])
        return "".join(b.get("text", "") for b in blocks if isinstance(b, dict))

    def fill(self, value: Any) -> Any:
        """Replace placeholders in every string inside ``value``."""
        if isinstance(value, dict):
            return {self.fill(k): self.fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if not isinstance(value, str):
            return value
        prompt_id = self.prompt.get("id") if self.prompt is not None else None
        if value == "$PROMPT_ID":
            return prompt_id
        return (
            value.replace("$SESSION", self.session_id)
            .replace("$PROMPT_ID", json.dumps(prompt_id))
            .replace("$MESSAGE_ID", self.message_id())
            .replace("$PROMPT_TEXT", self.prompt_text())
        )

    # dispatch ------------------------------------------------------------------------------

    def run(self) -> int:
        threading.Thread(target=self.read_stdin, daemon=True).start()
        try:
            while True:
                message = self.deferred.popleft() if self.deferred else self.next_message()
                if message is not None:
                    self.dispatch(message)
        except StdinClosed:
            return 0

    def dispatch(self, message: Message) -> None:
        """Handle one client message outside a turn."""
        method = message.get("method")
        if method == "session/prompt" and "id" in message:
            self.start_turn(message)
        elif method == "session/cancel":
            self.run_steps(self.script.get("on_cancel", default_on_cancel(self.version)), in_turn=False)
        elif isinstance(method, str) and "id" in message:
            self.answer_request(message)

    def answer_request(self, message: Message) -> None:
        method = message["method"]
        configured = self.script.get("responses", {}).get(method)
        supported = self.script.get("supported_versions")
        asked = message.get("params", {}).get("protocolVersion")
        if method == "initialize" and supported is not None and asked not in supported:
            data = {"requested": asked, "supported": supported}
            error = {"code": -32022, "message": "Unsupported protocol version", "data": data}
            self.write({"jsonrpc": "2.0", "id": message["id"], "error": error})
            return
        if configured is not None:
            reply = {"jsonrpc": "2.0", "id": message["id"], **self.fill(configured)}
        elif method == "initialize":
            result = self.script.get("initialize", default_initialize(self.version))
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        elif method == "session/new" and "refuse_tools" in self.script and _gives_tools(message["params"]):
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": self.script["refuse_tools"]}
        elif method == "session/new":
            result = self.script.get("session_new", {"sessionId": DEFAULT_SESSION_ID})
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        else:
            reply = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": f"Method not found: {method}"},
            }
        if method == "session/new" and isinstance(reply.get("result"), dict):
            self.session_id = str(reply["result"].get("sessionId", self.session_id))
        if method in ("session/resume", "session/load") and "result" in reply and self.script.get("adopt_opened"):
            self.session_id = str(message.get("params", {}).get("sessionId", self.session_id))
        self.write(reply)
        if method == "session/new" and "result" in reply:
            self.run_steps(self.script.get("after_session_new", []), in_turn=False)

    def pick_turn(self) -> list[Step]:
        text = self.prompt_text()
        for index, turn in enumerate(self.script.get("turns", [])):
            if index in self.used_turns:
                continue
            pattern = turn.get("match")
            if pattern is None or re.search(pattern, text):
                self.used_turns.add(index)
                return list(turn.get("steps", []))
        return list(self.script.get("default_turn", default_turn(self.version)))

    def start_turn(self, prompt: Message) -> None:
        self.prompt = prompt
        self.prompt_count += 1
        self.prompt_answered = False
        self.run_steps(self.pick_turn(), in_turn=True)

    def run_steps(self, steps: list[Step], *, in_turn: bool) -> None:
        try:
            for step in steps:
                self.run_step(step, in_turn=in_turn)
        except TurnCancelled:
            self.run_steps(self.script.get("on_cancel", default_on_cancel(self.version)), in_turn=False)

    # steps ---------------------------------------------------------------------------------

    def run_step(self, step: Step, *, in_turn: bool) -> None:
        op = step.get("op")
        if op == "send":
            self.write(self.fill(step["message"]))
        elif op == "raw":
            self.write_line(self.fill(step["line"]))
        elif op == "update":
            self.send_update(self.fill(step["update"]), self.fill(step.get("session", "$SESSION")))
        elif op == "state":
            update: Message = {"sessionUpdate": "state_update", "state": step.get("state", "idle")}
            if "stopReason" in step:
                update["stopReason"] = step["stopReason"]
            self.send_update(update)
        elif op == "user_message":
            content = self.prompt.get("params", {}).get("prompt", []) if self.prompt else []
            self.send_update({"sessionUpdate": "user_message", "messageId": self.message_id(), "content": content})
        elif op == "respond_prompt":
            self.respond_prompt(step)
        elif op == "error_prompt":
            self.error_prompt(step)
        elif op == "request":
            self.request(step, in_turn=in_turn)
        elif op == "wait_for":
            got = self.wait(lambda m: self.matches_wait(step, m), step.get("timeout"), in_turn, step)
            if got is not None and step.get("answer") and "id" in got:
                self.answer_request(got)  # a client request waited for mid-turn, answered from `responses`
        elif op == "sleep":
            self.wait(lambda m: False, float(step.get("seconds", 0)), in_turn, None)
        elif op == "wait_for_file":
            self.wait_for_file(Path(self.fill(step["path"])), float(step.get("timeout", 30)), in_turn, step)
        elif op == "stderr":
            sys.stderr.write(self.fill(step.get("text", "")) + "\n")
            sys.stderr.flush()
        elif op == "exit":
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(int(step.get("code", 0)))
        else:
            sys.stderr.write(f"scripted_agent: unknown step op {op!r}\n")
            sys.stderr.flush()

    def wait_for_file(self, path: Path, timeout: float, in_turn: bool, step: Step) -> None:
        deadline = time.monotonic() + timeout
        while not path.exists():
            if time.monotonic() >= deadline:
                sys.stderr.write(f"scripted_agent: timed out waiting for {json.dumps(step)}\n")
                sys.stderr.flush()
                return
            self.wait(lambda m: False, 0.02, in_turn, None)

    def send_update(self, update: Message, session_id: str | None = None) -> None:
        self.write(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": session_id or self.session_id, "update": update},
            }
        )

    def respond_prompt(self, step: Step) -> None:
        if self.prompt is None or self.prompt_answered:
            return
        if "result" in step:
            result = self.fill(step["result"])
        elif self.version >= 2:
            result = {"messageId": self.message_id()}
        else:
            result = {"stopReason": step.get("stopReason", "end_turn")}
        self.prompt_answered = True
        self.write({"jsonrpc": "2.0", "id": self.prompt.get("id"), "result": result})

    def error_prompt(self, step: Step) -> None:
        if self.prompt is None or self.prompt_answered:
            return
        error: Message = {"code": int(step.get("code", -32603)), "message": self.fill(step.get("message", "error"))}
        if "data" in step:
            error["data"] = self.fill(step["data"])
        self.prompt_answered = True
        self.write({"jsonrpc": "2.0", "id": self.prompt.get("id"), "error": error})

    def request(self, step: Step, *, in_turn: bool) -> None:
        request_id = step.get("id", 0)
        message: Message = {"jsonrpc": "2.0", "id": request_id, "method": step["method"]}
        if "params" in step:
            message["params"] = self.fill(step["params"])
        self.write(message)
        if step.get("wait", True):
            answer = self.wait(lambda m: self.is_response(m, request_id), step.get("timeout"), in_turn, step)
            if answer is not None:
                self.answers[request_id] = answer

    @staticmethod
    def is_response(message: Message, request_id: Any) -> bool:
        return (
            "method" not in message and message.get("id") == request_id and ("result" in message or "error" in message)
        )

    def matches_wait(self, step: Step, message: Message) -> bool:
        if "method" in step:
            return message.get("method") == step["method"]
        if "response" in step:
            return self.is_response(message, step["response"])
        return False

    def wait(self, done: Any, timeout: float | None, in_turn: bool, step: Step | None) -> Message | None:
        """Serve client messages until ``done(message)``; a cancel mid-turn abandons the turn."""
        deadline = None if timeout is None else time.monotonic() + float(timeout)
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                if step is not None:
                    sys.stderr.write(f"scripted_agent: timed out waiting for {json.dumps(step)}\n")
                    sys.stderr.flush()
                return None
            message = self.next_message(remaining)
            if message is None:
                continue
            if done(message):
                return message
            method = message.get("method")
            if method == "session/cancel" and in_turn:
                raise TurnCancelled
            if method == "session/prompt" and "id" in message:
                self.deferred.append(message)
            elif isinstance(method, str) and "id" in message:
                self.answer_request(message)


def main(argv: list[str]) -> int:
    args = list(argv)
    record: str | None = os.environ.get("SCRIPTED_AGENT_RECORD")
    if "--record" in args:
        index = args.index("--record")
        record = args[index + 1]
        del args[index : index + 2]
    stubborn = "--stubborn" in args
    if stubborn:
        args.remove("--stubborn")
    script_path = args[0] if args else os.environ.get("SCRIPTED_AGENT_SCRIPT")
    script: dict[str, Any] = {}
    if script_path:
        script = json.loads(Path(script_path).read_text(encoding="utf-8"))
    if stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited by the child: it ignores SIGTERM as well
        forever = "import time\nwhile True: time.sleep(1)"
        subprocess.Popen([sys.executable, "-c", forever, str(script_path)], stdin=subprocess.DEVNULL)
    agent = ScriptedAgent(script, Path(record) if record else None)
    code = agent.run()
    while stubborn:  # stdin closed: a stubborn agent stays anyway
        time.sleep(1)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
