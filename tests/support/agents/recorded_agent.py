"""An agent that plays back a recorded real session (tests/support/fixtures/traffic/*.log): stdlib only.

Run: ``python recorded_agent.py LOG [--new-session ID]``. Each client request is answered the way the
recording answered the first unused request of the same method: the agent frames recorded between
that request and its answer (notifications, its own requests) are written first, then the answer, with
the id of the request just received. `session/new` (which a recording of a resume may lack) answers
``{"sessionId": ID}``; a method the recording never saw gets ``{}``. Notifications are ignored.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def load(path: str) -> list[tuple[str, dict[str, Any]]]:
    frames: list[tuple[str, dict[str, Any]]] = []
    with open(path, encoding="utf-8") as file:
        for line in file:
            parts = line.split(None, 2)
            if len(parts) == 3 and parts[1] in ("->", "<-") and parts[2].startswith("{"):
                frames.append((parts[1], json.loads(parts[2])))
    return frames


def exchanges(frames: list[tuple[str, dict[str, Any]]]) -> dict[str, list[tuple[list[dict[str, Any]], dict[str, Any]]]]:
    """For each method, in order: (agent frames before the answer, the answer) of each recorded request."""
    out: dict[str, list[tuple[list[dict[str, Any]], dict[str, Any]]]] = {}
    for index, (direction, message) in enumerate(frames):
        if direction != "->" or "method" not in message or "id" not in message:
            continue
        before: list[dict[str, Any]] = []
        for later_direction, later in frames[index + 1 :]:
            if later_direction != "<-":
                continue
            if "method" not in later and later.get("id") == message["id"]:
                out.setdefault(message["method"], []).append((before, later))
                break
            before.append(later)
    return out


def main() -> None:
    log = sys.argv[1]
    new_session = sys.argv[sys.argv.index("--new-session") + 1] if "--new-session" in sys.argv else "recorded-new"
    recorded = exchanges(load(log))
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "method" not in message or "id" not in message:
            continue
        method = message["method"]
        queue = recorded.get(method)
        if queue:
            before, answer = queue.pop(0)
            for frame in before:
                sys.stdout.write(json.dumps(frame) + "\n")
            reply = {key: value for key, value in answer.items() if key != "id"}
        elif method == "session/new":
            reply = {"jsonrpc": "2.0", "result": {"sessionId": new_session}}
        else:
            reply = {"jsonrpc": "2.0", "result": {}}
        reply["id"] = message["id"]
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
