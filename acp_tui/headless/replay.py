"""`acp-tui replay LOG`: the agent side of a `--log` recording, played back as an agent program.

Run as `python -m acp_tui.headless.replay LOG [--speed N]`, it is the agent a fresh client (the TUI, or print
mode) starts, so the whole client handles the recording exactly as it handled the live agent. It walks the
recording in order: a frame the agent sent is written (a line that was not JSON is written as it was, so a bug
report's bad line comes back too), after the recorded pause divided by the speed (0: no pauses); a frame the
client sent is waited for. A live request stands for the recorded request of its method whose params are most
alike (ids and session ids set aside) among the client frames that were on the wire together (up to the agent's
next answer), so independent requests may come in another order; it is answered as recorded (the answer carries
the live id). An answer the client gives to the agent's request is matched by id and compared with the recorded
one. Where the client departs from the recording (another method, another prompt, another answer, another order)
a `replay:` line on stderr says so (the TUI's F2 panel; print mode's stderr) and the replay goes on. After the
recording every request is answered with an error that says the recording ended.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

#: JSON-RPC "internal error": what a request the recording cannot answer gets
NOT_RECORDED = -32603


@dataclass(frozen=True, slots=True)
class Entry:
    """One frame of the recording: when, who sent it ("->" the client, "<-" the agent), and what."""

    t: float
    direction: str
    message: Any


class ReplayError(Exception):
    """The file is not a `--log` recording."""


def read_recording(path: Path) -> list[Entry]:
    """The frames of a `--log` file (stderr lines and events are left out)."""
    entries: list[Entry] = []
    with path.open("rb") as file:
        for number, line in enumerate(file, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                raise ReplayError(f"{path}:{number}: not a --log line") from None
            if not isinstance(record, dict) or "dir" not in record or "msg" not in record:
                raise ReplayError(f"{path}:{number}: not a --log line")
            if record["dir"] in ("->", "<-"):
                t = record.get("t")
                entries.append(Entry(float(t) if isinstance(t, (int, float)) else 0.0, record["dir"], record["msg"]))
    if not any(entry.direction == "<-" for entry in entries):
        raise ReplayError(f"{path}: no frame from the agent in it")
    return entries


def recorded_prompt(entries: list[Entry]) -> str | None:
    """The text of the first prompt the client sent in the recording (`acp-tui replay LOG -p` sends it again);
    None when it sent none with text."""
    for entry in entries:
        message = entry.message
        if entry.direction != "->" or not isinstance(message, dict) or message.get("method") != "session/prompt":
            continue
        params = message.get("params")
        blocks = params.get("prompt") if isinstance(params, dict) else None
        if not isinstance(blocks, list):
            continue
        text = "".join(
            block["text"]
            for block in blocks
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        )
        if text.strip():
            return text
    return None


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


#: keys whose values differ from run to run and say nothing about which request a frame is
_NORMALIZED = frozenset({"sessionId", "id", "_meta"})


def _normalized(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _normalized(v) for k, v in value.items() if k not in _NORMALIZED}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def _likeness(recorded: Any, live: Any) -> int:
    """How alike two requests' params are: 1,000 when equal once normalized, else the top-level keys alike."""
    recorded, live = _normalized(recorded), _normalized(live)
    if recorded == live:
        return 1_000
    if isinstance(recorded, dict) and isinstance(live, dict):
        return sum(1 for k, v in recorded.items() if k in live and live[k] == v)
    return 0


def _is_answer(message: Any) -> bool:
    return isinstance(message, dict) and "method" not in message and "id" in message


def _what(message: dict[str, Any]) -> Any:
    return message.get("method") or f"the answer to request {_short(message.get('id'))}"


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


class Replayer:
    """Plays one recording against one client over a pair of byte streams."""

    def __init__(
        self,
        entries: list[Entry],
        incoming: Callable[[], Any | None],
        write: Callable[[bytes], None],
        note: Callable[[str], None],
        *,
        speed: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.entries = entries
        self.incoming = incoming
        self.write = write
        self.note = note
        self.speed = speed
        self.sleep = sleep
        self._ids: dict[str, Any] = {}  # the recorded id of a client request -> its live id
        self._early: set[int] = set()  # recorded client frames matched ahead of their turn

    def run(self) -> None:
        previous: float | None = None
        for at, entry in enumerate(self.entries):
            if entry.direction == "->":
                if at in self._early:
                    continue  # the client sent it already, ahead of its recorded turn
                if not self._await_client(at):
                    return  # the client went away
            else:
                if self.speed > 0 and previous is not None and entry.t > previous:
                    self.sleep((entry.t - previous) / self.speed)
                self._send_recorded(entry.message)
            previous = entry.t
        self.note("the recording ends here: requests from now on are answered with an error")
        while (live := self.incoming()) is not None:
            if isinstance(live, dict) and "method" in live and "id" in live:
                self._refuse(live, "the recording ends here")

    def _send_recorded(self, message: Any) -> None:
        if isinstance(message, str):
            self.write(message.encode("utf-8", "replace"))
            return
        if isinstance(message, dict) and "method" not in message and "id" in message:
            live = self._ids.pop(_key(message["id"]), None)
            if live is not None:
                message = {**message, "id": live}
        self.write(json.dumps(message, separators=(",", ":")).encode())

    def _await_client(self, at: int) -> bool:
        """Wait for the client's counterpart of the recorded client frame `at`; False when the client is gone.

        A live frame may also be the counterpart of a later client frame sent together with this one (see
        `_in_flight`): that one is matched now, noted as out of order, and not waited for when its turn comes.
        """
        recorded = self.entries[at].message
        if not isinstance(recorded, dict):
            return True
        while True:
            live = self.incoming()
            if live is None:
                return False
            if not isinstance(live, dict):
                self.note(f"the client sent a line that is no JSON-RPC object: {_short(live)}")
                continue
            match = self._best_match(live, self._in_flight(at))
            if match is None:
                self._unexpected(live, recorded)
                continue
            counterpart = self.entries[match].message
            if "method" in counterpart:
                self._matched_call(counterpart, live)
            else:
                self._matched_answer(counterpart, live)
            if match == at:
                return True
            self._early.add(match)
            self.note(
                f"the client sent {_short(_what(live))} before {_short(_what(recorded))}: recorded the other way round"
            )

    def _in_flight(self, at: int) -> list[int]:
        """The recorded client frames from `at` on that were on the wire together: up to the agent's next answer.

        Requests the client sent before any of them was answered do not depend on each other's answers, so a
        client may send them in another order; a frame after an answer may depend on it, so it is not taken early.
        """
        window: list[int] = []
        for n in range(at, len(self.entries)):
            entry = self.entries[n]
            if entry.direction == "<-":
                if _is_answer(entry.message):
                    break
                continue
            if n not in self._early and isinstance(entry.message, dict):
                window.append(n)
        return window

    def _best_match(self, live: dict[str, Any], window: list[int]) -> int | None:
        """The recorded frame of `window` the live frame stands for: a request by method, then by the params
        most alike once ids and session ids are set aside (the first on a tie); an answer by its id."""
        best: int | None = None
        best_score = -1
        for n in window:
            recorded = self.entries[n].message
            if "method" in live:
                if recorded.get("method") != live["method"] or ("id" in recorded) != ("id" in live):
                    continue
                score = _likeness(recorded.get("params"), live.get("params"))
            else:
                if "method" in recorded or _key(recorded.get("id")) != _key(live.get("id")):
                    continue
                score = 0
            if score > best_score:
                best, best_score = n, score
        return best

    def _matched_call(self, recorded: dict[str, Any], live: dict[str, Any]) -> None:
        if "id" in recorded and "id" in live:
            self._ids[_key(recorded["id"])] = live["id"]
        if recorded.get("method") == "session/prompt":
            want = (recorded.get("params") or {}).get("prompt")
            got = (live.get("params") or {}).get("prompt") if isinstance(live.get("params"), dict) else None
            if want != got:
                self.note(f"the prompt differs from the recording (recorded {_short(want)}, now {_short(got)})")

    def _matched_answer(self, recorded: dict[str, Any], live: dict[str, Any]) -> None:
        want = {k: recorded[k] for k in ("result", "error") if k in recorded}
        got = {k: live[k] for k in ("result", "error") if k in live}
        if want != got:
            self.note(
                f"the client answered request {_short(live.get('id'))} otherwise: recorded {_short(want)}, now {_short(got)}"
            )

    def _unexpected(self, live: dict[str, Any], recorded: dict[str, Any]) -> None:
        expected = recorded.get("method") or f"the answer to request {_short(recorded.get('id'))}"
        what = live.get("method") or f"an answer to request {_short(live.get('id'))}"
        self.note(f"the client sent {_short(what)} where the recording has {_short(expected)}")
        if "method" in live and "id" in live:
            self._refuse(live, f"not in the recording here (it has {expected})")

    def _refuse(self, live: dict[str, Any], why: str) -> None:
        error = {"code": NOT_RECORDED, "message": f"acp-tui replay: {live.get('method')} {why}"}
        self.write(json.dumps({"jsonrpc": "2.0", "id": live["id"], "error": error}).encode())


def _lines(stream: IO[bytes]) -> Iterator[Any]:
    for line in stream:
        if line.strip():
            try:
                yield json.loads(line)
            except ValueError:
                yield line.decode("utf-8", "replace").rstrip("\n")


def main(argv: list[str] | None = None) -> int:
    """The replay agent: `python -m acp_tui.headless.replay LOG [--speed N]`."""
    args = list(sys.argv[1:] if argv is None else argv)
    speed = 1.0
    if "--speed" in args:
        at = args.index("--speed")
        speed = float(args[at + 1])
        del args[at : at + 2]
    try:
        entries = read_recording(Path(args[0]))
    except (ReplayError, OSError) as exc:
        print(f"replay: {exc}", file=sys.stderr, flush=True)
        return 1
    inbox: queue.Queue[Any | None] = queue.Queue()

    def read() -> None:
        for message in _lines(sys.stdin.buffer):
            inbox.put(message)
        inbox.put(None)

    threading.Thread(target=read, daemon=True).start()
    out = sys.stdout.buffer

    def write(line: bytes) -> None:
        out.write(line + b"\n")
        out.flush()

    def note(text: str) -> None:
        print(f"replay: {text}", file=sys.stderr, flush=True)

    try:
        Replayer(entries, inbox.get, write, note, speed=speed).run()
    except BrokenPipeError:
        pass
    return 0


__all__ = ["Entry", "ReplayError", "Replayer", "main", "read_recording", "recorded_prompt"]

if __name__ == "__main__":
    sys.exit(main())
