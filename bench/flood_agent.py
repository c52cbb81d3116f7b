#!/usr/bin/env python3
"""A stdlib-only ACP agent (v2 and v1) that floods the client with a long streamed answer.

On each prompt it streams a realistic markdown answer in `--chunks` pieces as fast as it can
(`--mode message`), or the same as thought chunks followed by a short message (`--mode thought`),
or `--chunks` tool calls each going pending -> in_progress -> completed followed by a short message
(`--mode tools`), or `--mode mixed`, the shape of a real turn: a plan, then `--chunks` rounds of
4 thought chunks of ~55 characters, one tool call pending -> in_progress -> completed with 3 lines of
text, 10 markdown chunks of ~4 words and a plan status update. The last piece holds the marker word, so a black-box harness can tell when the
whole answer is on screen. The time the last chunk was written goes to `--stamp FILE`.

Used by bench/stream_speed.py; bench/widget_speed.py imports `realistic_markdown` from here.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

MARKER = "ZZMARKERZZ"
CHUNK_CHARS = 18  # 2,000 chunks ≈ 36 KB, as in docs/performance.md

_WORDS = (
    "the client renders each block once and keeps its lines while the agent keeps streaming "
    "tokens into the trailing paragraph so the cost per chunk stays small and constant even "
    "when the answer grows long enough to fill many screens of a terminal window"
).split()
_IDENTS = ["session", "render_line", "Strip", "flush", "append", "TextAppended", "get_stream", "anchor"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 16))]
    if rng.random() < 0.5:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(_IDENTS)}()`")
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words)), f"**{rng.choice(_WORDS)}**")
    return " ".join(words).capitalize() + "."


def _section(rng: random.Random, number: int) -> str:
    paragraph = " ".join(_sentence(rng) for _ in range(rng.randint(1, 2)))
    paragraph2 = _sentence(rng)
    paragraph3 = _sentence(rng)
    bullets = "\n".join(f"- {_sentence(rng)}" for _ in range(3))
    numbered = "\n".join(f"{i}. {_sentence(rng)}" for i in range(1, 4))
    ident = rng.choice(_IDENTS).lower().replace("()", "")
    code = (
        "```python\n"
        f"def step_{number}_{ident}(items: list[str]) -> int:\n"
        f'    """Count the items of step {number}."""\n'
        "    total = 0\n"
        "    for item in items:\n"
        f"        total += len(item) * {number}\n"
        "    return total\n"
        "```"
    )
    return f"## Step {number}: {ident}\n\n{paragraph}\n\n{bullets}\n\n{paragraph2}\n\n{numbered}\n\n{paragraph3}\n\n{code}\n\n"


def _thought_chunk(rng: random.Random) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(10))
    return (text[:54] + " ").ljust(55, ".")


def _markdown_words(rng: random.Random, index: int) -> str:
    words = " ".join(rng.choice(_WORDS) for _ in range(4))
    if index == 0:
        return f"\n\nOn **step** {words}"
    if index % 4 == 2:
        return f" `{rng.choice(_IDENTS)}()` {words}"
    return f" {words}"


def realistic_markdown(chunks: int, seed: int = 7, marker: str = MARKER) -> list[str]:
    """A markdown answer of about `chunks` * 18 characters, split into `chunks` pieces.

    The last piece ends with `marker` on its own paragraph.
    """
    rng = random.Random(seed)
    target = max(chunks * CHUNK_CHARS, 40)
    parts = ["# Streaming answer\n\n"]
    size = len(parts[0])
    number = 1
    while size < target:
        section = _section(rng, number)
        parts.append(section)
        size += len(section)
        number += 1
    text = "".join(parts) + f"Done: {marker}"
    step = len(text) / chunks
    cuts = [round(i * step) for i in range(chunks)] + [len(text)]
    if chunks > 1:
        cuts[-2] = min(cuts[-2], len(text) - len(marker))  # the marker is whole in the last piece
    pieces = [text[cuts[i] : cuts[i + 1]] for i in range(chunks)]
    return pieces


def turn_marker(turn: int) -> str:
    """The marker that ends turn `turn`'s answer (`--mode message`): the first turn's is `MARKER`, a later one's
    says its number, so a harness waiting for turn 2 is not fooled by turn 1's still on screen."""
    return MARKER if turn == 1 else f"{MARKER} #{turn}"


class Agent:
    """Line-delimited JSON-RPC agent speaking the version the client asked for (1 or 2)."""

    def __init__(self, chunks: int, mode: str, stamp: str | None) -> None:
        self.chunks = chunks
        self.mode = mode
        self.stamp = stamp
        self.version = 2
        self.counter = 0
        self.turns = 0
        self.out = sys.stdout.buffer

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.out.flush()

    def new_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    def update(self, session_id: str, update: dict[str, Any]) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": session_id, "update": update},
            }
        )

    def chunk(self, session_id: str, kind: str, message_id: str, text: str) -> None:
        update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
        if self.version >= 2:
            update["messageId"] = message_id
        self.update(session_id, update)

    def stamp_now(self) -> None:
        if self.stamp:
            with open(self.stamp, "w") as handle:
                handle.write(f"{time.time():.6f}\n")

    def plan(self, session_id: str, steps: int, done: int) -> None:
        entries = [
            {
                "content": f"Step {step + 1}: inspect and change module_{step}.py",
                "priority": "medium",
                "status": "completed" if step < done else ("in_progress" if step == done else "pending"),
            }
            for step in range(steps)
        ]
        if self.version >= 2:
            self.update(
                session_id,
                {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "plan-1", "entries": entries}},
            )
        else:
            self.update(session_id, {"sessionUpdate": "plan", "entries": entries})

    def mixed(self, session_id: str) -> None:
        """A plan, then rounds of thoughts, one tool call, a few sentences and a plan status update."""
        rng = random.Random(11)
        steps = 8
        self.plan(session_id, steps, 0)
        for round_ in range(self.chunks):
            thought_id = self.new_id("thought")
            for _ in range(4):
                self.chunk(session_id, "agent_thought_chunk", thought_id, _thought_chunk(rng))
            self.tool(session_id, round_, lines=3)
            message_id = self.new_id("msg")
            for index in range(10):
                text = _markdown_words(rng, index)
                if round_ == self.chunks - 1 and index == 9:
                    text += f" {MARKER}"
                self.chunk(session_id, "agent_message_chunk", message_id, text)
            self.plan(session_id, steps, (round_ + 1) * steps // self.chunks)

    def tool(self, session_id: str, index: int, lines: int = 1) -> None:
        tool_id = f"tool-{self.counter}-{index}"
        title = f"Read file src/module_{index}.py"
        if self.version >= 2:
            self.update(
                session_id,
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": tool_id,
                    "title": title,
                    "kind": "read",
                    "status": "pending",
                },
            )
        else:
            self.update(
                session_id,
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": tool_id,
                    "title": title,
                    "kind": "read",
                    "status": "pending",
                },
            )
        self.update(
            session_id,
            {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "status": "in_progress"},
        )
        text = "\n".join(f"{index}.{line}: lines read from src/module_{index}.py" for line in range(lines))
        if lines == 1:
            text = f"{index} lines read"
        content = [{"type": "content", "content": {"type": "text", "text": text}}]
        self.update(
            session_id,
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool_id,
                "status": "completed",
                "content": content,
            },
        )

    def turn(self, session_id: str) -> None:
        message_id = self.new_id("msg")
        self.turns += 1
        if self.mode == "mixed":
            self.mixed(session_id)
        elif self.mode == "message":
            pieces = realistic_markdown(self.chunks, marker=turn_marker(self.turns))
            for piece in pieces:
                self.chunk(session_id, "agent_message_chunk", message_id, piece)
        else:
            if self.mode == "thought":
                thought_id = self.new_id("thought")
                for piece in realistic_markdown(self.chunks)[:-1]:
                    self.chunk(session_id, "agent_thought_chunk", thought_id, piece)
            else:
                for index in range(self.chunks):
                    self.tool(session_id, index)
            self.chunk(session_id, "agent_message_chunk", message_id, f"Finished: {MARKER}")
        self.stamp_now()

    def handle(self, message: dict[str, Any]) -> bool:
        """Answer one request; return False when the client asked us to stop."""
        method = message.get("method")
        request_id = message.get("id")
        params = message.get("params") or {}
        if method is None or request_id is None:
            return True  # responses and notifications (session/cancel) need no answer here
        if method == "initialize":
            asked = params.get("protocolVersion")
            self.version = 2 if isinstance(asked, int) and asked >= 2 else 1
            if self.version >= 2:
                result: dict[str, Any] = {
                    "protocolVersion": 2,
                    "info": {"name": "flood-agent", "version": "1.0.0"},
                    "capabilities": {"session": {}},
                }
            else:
                result = {"protocolVersion": 1, "agentCapabilities": {"loadSession": False}, "authMethods": []}
            self.send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "session/new":
            self.send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": self.new_id("session")}})
        elif method == "session/prompt":
            session_id = params.get("sessionId", "")
            if self.version >= 2:
                user_id = self.new_id("user")
                self.send({"jsonrpc": "2.0", "id": request_id, "result": {"messageId": user_id}})
                self.update(
                    session_id,
                    {"sessionUpdate": "user_message", "messageId": user_id, "content": params.get("prompt", [])},
                )
                self.update(session_id, {"sessionUpdate": "state_update", "state": "running"})
                self.turn(session_id)
                self.update(session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
            else:
                self.turn(session_id)
                self.send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})
        else:
            self.send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": f"Method not found: {method}"},
                }
            )
        return True

    def run(self) -> None:
        for raw in sys.stdin.buffer:
            if not raw.strip():
                continue
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                self.handle(message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--mode", choices=("message", "thought", "tools", "mixed"), default="message")
    parser.add_argument("--stamp", help="file that receives the wall-clock time of the last chunk")
    parser.add_argument(
        "--start-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before reading anything: a stand-in for a slower agent's start-up (Node: 0.2-0.4 s)",
    )
    args = parser.parse_args()
    time.sleep(max(0.0, args.start_delay))
    Agent(max(1, args.chunks), args.mode, args.stamp).run()


if __name__ == "__main__":
    main()
