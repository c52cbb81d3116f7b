"""`acp-tui replay LOG`: the agent side of a `--log` recording, played back as an agent program.

Run as `python -m acp_tui.headless.replay LOG [--speed N] [--wait SECONDS]`, it is the agent a fresh client (the
TUI, or print mode) starts, so the whole client handles the recording exactly as it handled the live agent. It
walks the recording in order: a frame the agent sent is written (a line that was not JSON is written as it was,
so a bug report's bad line comes back too), after the recorded pause divided by the speed (0: no pauses); a frame
the client sent is waited for. A live request stands for the recorded request of its method whose params are most
alike (ids and session ids set aside) among the client frames that were on the wire together (up to the agent's
next answer), so independent requests may come in another order; it is answered as recorded (the answer carries
the live id). An answer the client gives to the agent's request is matched by id and compared with the recorded
one.

The replay follows its recording where the client does not: the session's setup the recording made before a
prompt (a mode, a model, a config option: `SETUP`) is applied by the replay itself when the client sends the
prompt without it, its recorded result sent as the update that says so (`config_option_update`,
`current_mode_update`), and a setup the client makes that the recording does not have is answered from the
recorded options as the agent would have (`SetupState`); a client request the client never sends is skipped after
`CLIENT_WAIT` seconds (all but those that wait for the user or come first: `_WAITED_OUT`), so the rest of the
recording still plays. Where the
client departs from the recording (another method, another prompt, another answer, another order, a step left
out) a `replay:` line on stderr says where (the recording's line) and how; the client shows each as a line in the
conversation (`launch.replayed_log`). The agent's name says it is a replay (its `initialize` answer's title).
After the recording every request is answered with an error that says the recording ended.
"""

from __future__ import annotations

import enum
import json
import math
import queue
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from acp_tui import __version__
from acp_tui.launch import REPLAY_PREFIX

#: JSON-RPC "internal error": what a request the recording cannot answer gets
NOT_RECORDED = -32603
#: the session's setup: a recorded one the client leaves out is applied by the replay before the prompt
SETUP = frozenset({"session/set_config_option", "session/set_mode", "session/set_model"})
#: client requests waited for as long as it takes: the ones that come first, and the ones the user makes (a
#: prompt; `session/close` when the user quits: nothing of the session follows it)
_WAITED_OUT = frozenset(
    {"initialize", "authenticate", "session/new", "session/load", "session/resume", "session/prompt", "session/close"}
)
#: seconds any other recorded client frame is waited for before the replay goes on without it
CLIENT_WAIT = 5.0
#: how `WireTrace` (acp_tui/agent/trace.py) begins each line: what is read of a line too deep to parse
_HEAD = re.compile(rb'\{"t":([-+0-9.eE]+),"dir":"(->|<-|stderr|event)","msg":')


class Silence(enum.Enum):
    """What `incoming` gives when the client sent nothing within the time asked."""

    SILENCE = "silence"


SILENCE = Silence.SILENCE


@dataclass(frozen=True, slots=True)
class Entry:
    """One frame of the recording: when, who sent it ("->" the client, "<-" the agent), what, and its line."""

    t: float
    direction: str
    message: Any
    line: int = 0


class ReplayError(Exception):
    """The file is not a `--log` recording."""


def read_recording(path: Path, problems: list[str] | None = None) -> list[Entry]:
    """The frames of a `--log` file (stderr lines and events are left out).

    A line that cannot be read is skipped and said in `problems` (a truncated last line, a line nested deeper
    than a JSON parser goes: the agent's is played as it was written); a file of which no line is a `--log`
    line, or with no frame from the agent, raises `ReplayError`.
    """
    entries: list[Entry] = []
    skipped: list[str] = []
    records = 0
    with path.open("rb") as file:
        for number, line in enumerate(file, 1):
            if not line.strip():
                continue
            entry, problem = _entry(line, number)
            if problem is not None:
                skipped.append(f"{path.name} line {number}: {problem}")
            if problem is None or entry is not None:
                records += 1
            if entry is not None:
                entries.append(entry)
    if not records:
        raise ReplayError(f"{path}: not a --log line" + (f" ({skipped[0]})" if skipped else ""))
    if not any(entry.direction == "<-" for entry in entries):
        raise ReplayError(f"{path}: no frame from the agent in it")
    if problems is not None:
        problems.extend(skipped)
    return entries


def _entry(line: bytes, number: int) -> tuple[Entry | None, str | None]:
    """One `--log` line: its frame (None for a stderr line or an event) and what was wrong with it."""
    try:
        record = json.loads(line)
    except RecursionError:
        return _deep_entry(line, number)
    except ValueError:
        return None, "not a --log line: skipped"
    if not isinstance(record, dict) or "dir" not in record or "msg" not in record:
        return None, "not a --log line: skipped"
    if record["dir"] not in ("->", "<-"):
        return None, None
    t = record.get("t")
    at = float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) else 0.0
    return Entry(at, record["dir"], record["msg"], number), None


def _deep_entry(line: bytes, number: int) -> tuple[Entry | None, str]:
    """A line nested deeper than a JSON parser goes: the agent's frame is played as it was written (the client
    reads it as it read it live), anything else is skipped."""
    head = _HEAD.match(line)
    body = line.rstrip(b"\r\n")
    if head is None or not body.endswith(b"}"):
        return None, "nested too deeply to read: skipped"
    if head[2] != b"<-":
        return None, "a client frame nested too deeply to read: skipped"
    try:
        t = float(head[1])
    except ValueError:
        t = 0.0
    raw = body[head.end() : -1].decode("utf-8", "replace")
    return Entry(t if math.isfinite(t) else 0.0, "<-", raw, number), "nested too deeply to read: played as written"


def retitled(entries: list[Entry], label: str) -> list[Entry]:
    """The recording with its agent named a replay of `label` (the title of its `initialize` answer), so the
    screen says it is one (the header, the tab; print mode's agent line)."""
    asked = {
        _key(entry.message.get("id"))
        for entry in entries
        if entry.direction == "->" and isinstance(entry.message, dict) and entry.message.get("method") == "initialize"
    }
    out: list[Entry] = []
    for entry in entries:
        message = entry.message
        result = message.get("result") if entry.direction == "<-" and _is_answer(message) else None
        if isinstance(result, dict) and _key(message.get("id")) in asked:
            field = "info" if "info" in result or ("agentInfo" not in result and _version(result) >= 2) else "agentInfo"
            given = result.get(field)
            info = dict(given) if isinstance(given, dict) else {"name": "acp-tui-replay", "version": __version__}
            shown = (info.get("title") or info.get("name")) if isinstance(given, dict) else None
            info["title"] = f"{shown} (replay of {label})" if isinstance(shown, str) and shown else f"replay of {label}"
            entry = replace(entry, message={**message, "result": {**result, field: info}})
        out.append(entry)
    return out


def _version(result: dict[str, Any]) -> int:
    version = result.get("protocolVersion")
    return version if isinstance(version, int) else 0


def recorded_prompt(entries: list[Entry]) -> str | None:
    """The text of the first prompt the client sent in the recording (`acp-tui replay LOG -p` sends it again);
    None when it sent none with text."""
    for entry in entries:
        message = entry.message
        if entry.direction != "->" or not isinstance(message, dict) or message.get("method") != "session/prompt":
            continue
        params = message.get("params")
        text = _prompt_text(params.get("prompt") if isinstance(params, dict) else None)
        if text.strip():
            return text
    return None


def _prompt_text(blocks: Any) -> str:
    if not isinstance(blocks, list):
        return ""
    return "".join(
        block["text"]
        for block in blocks
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


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


def _params(message: dict[str, Any]) -> dict[str, Any]:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def _what(message: dict[str, Any]) -> str:
    method = message.get("method")
    return method if isinstance(method, str) else f"the answer to request {_short(message.get('id'))}"


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


def _skippable(message: Any) -> bool:
    """A recorded client frame the replay may go on without: a request or notification the client sends by itself."""
    return isinstance(message, dict) and isinstance(message.get("method"), str) and message["method"] not in _WAITED_OUT


def _setup_text(message: dict[str, Any]) -> str:
    """What a setup request does, in words: `set mode to "plan"`."""
    params = _params(message)
    match message.get("method"):
        case "session/set_config_option":
            return f"set {_short(params.get('configId'))} to {_short(params.get('value'))}"
        case "session/set_mode":
            return f"set the mode to {_short(params.get('modeId'))}"
        case _:
            return f"set the model to {_short(params.get('modelId'))}"


def _setup_update(request: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any] | None:
    """The update that tells the client what a setup request the replay applied changed (None: nothing to say:
    the recorded agent refused it, or ACP has no update for it, as for a model set by `session/set_model`)."""
    result = answer.get("result")
    if not isinstance(result, dict):
        return None
    options = result.get("configOptions")
    if isinstance(options, list):
        return {"sessionUpdate": "config_option_update", "configOptions": options}
    mode = _params(request).get("modeId")
    if request.get("method") == "session/set_mode" and isinstance(mode, str):
        return {"sessionUpdate": "current_mode_update", "currentModeId": mode}
    return None


def _choice(request: dict[str, Any], answer: dict[str, Any]) -> str:
    """A permission answer in words: the option's name and id, "cancelled", or "an error"."""
    result = answer.get("result")
    outcome = result.get("outcome") if isinstance(result, dict) else None
    if not isinstance(outcome, dict):
        return "an error" if "error" in answer else _short(result)
    if outcome.get("outcome") != "selected":
        return _short(outcome.get("outcome"))
    chosen = outcome.get("optionId")
    options = _params(request).get("options")
    for option in options if isinstance(options, list) else ():
        if isinstance(option, dict) and option.get("optionId") == chosen and isinstance(option.get("name"), str):
            return f"{_short(option['name'])} ({_short(chosen)})"
    return _short(chosen)


def _permission_title(request: dict[str, Any]) -> str:
    params = _params(request)
    call = params.get("toolCall")
    title = params.get("title") or (call.get("title") if isinstance(call, dict) else None)
    return _short(title) if isinstance(title, str) and title else "a tool call"


def _values(option: dict[str, Any]) -> list[Any]:
    """The values a config option offers (a select's, flat or grouped; a boolean's)."""
    if option.get("type") == "boolean":
        return [True, False]
    values: list[Any] = []
    items = option.get("options")
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        if "value" in item:
            values.append(item["value"])
        grouped = item.get("options")  # a group of values
        if isinstance(grouped, list):
            values.extend(sub["value"] for sub in grouped if isinstance(sub, dict) and "value" in sub)
    return values


class SetupState:
    """The session's setup as the recording last told the client (config options, v1 modes): a setup request the
    client makes that the recording does not have (print mode's `--mode`, a Shift+Tab) is answered from it, as
    the agent would have answered, so the replay goes on."""

    def __init__(self) -> None:
        self.options: list[Any] | None = None
        self.modes: list[Any] | None = None

    def seen(self, message: dict[str, Any]) -> None:
        """A frame the agent sent: the setup it tells."""
        result = message.get("result") if _is_answer(message) else None
        if isinstance(result, dict):
            if isinstance(result.get("configOptions"), list):
                self.options = result["configOptions"]
            modes = result.get("modes")
            if isinstance(modes, dict) and isinstance(modes.get("availableModes"), list):
                self.modes = [mode.get("id") for mode in modes["availableModes"] if isinstance(mode, dict)]
        elif message.get("method") == "session/update":
            update = _params(message).get("update")
            if isinstance(update, dict) and update.get("sessionUpdate") == "config_option_update":
                options = update.get("configOptions")
                self.options = options if isinstance(options, list) else self.options

    def answer(self, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None] | str:
        """The result for a setup request and the update that says it (None: none), or why it is refused."""
        params = _params(request)
        match request.get("method"):
            case "session/set_config_option":
                options = self._with(params.get("configId"), params.get("value"))
                if options is None:
                    return (
                        f"the recorded session offers no {_short(params.get('configId'))} {_short(params.get('value'))}"
                    )
                self.options = options
                return {"configOptions": options}, None
            case "session/set_mode":
                mode = params.get("modeId")
                if self.modes is not None and mode not in self.modes:
                    return f"the recorded session offers no mode {_short(mode)}"
                return {}, {"sessionUpdate": "current_mode_update", "currentModeId": mode}
            case _:
                return {}, None

    def _with(self, config_id: Any, value: Any) -> list[Any] | None:
        out: list[Any] = []
        found = False
        for option in self.options or ():
            if isinstance(option, dict) and config_id in (option.get("configId"), option.get("id")):
                if value not in _values(option):
                    return None
                option = {**option, "currentValue": value}
                found = True
            out.append(option)
        return out if found else None


class Replayer:
    """Plays one recording against one client over a pair of byte streams.

    `incoming(timeout)` gives the client's next frame (None when it is gone), waiting at most `timeout` seconds
    (None: as long as it takes), else `SILENCE`.
    """

    def __init__(
        self,
        entries: list[Entry],
        incoming: Callable[[float | None], Any],
        write: Callable[[bytes], None],
        note: Callable[[str], None],
        *,
        speed: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        wait: float = CLIENT_WAIT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.entries = entries
        self.incoming = incoming
        self.write = write
        self.note = note
        self.speed = speed
        self.sleep = sleep
        self.wait = wait
        self.clock = clock
        self._ids: dict[str, Any] = {}  # the recorded id of a client request -> its live id
        self._done: set[int] = set()  # recorded client frames matched ahead of their turn, or gone without
        self._skipped: dict[str, dict[str, Any]] = {}  # the recorded id of a request the client never sent -> it
        self._asked: dict[str, dict[str, Any]] = {}  # the recorded id of the agent's request -> the request
        self._held: deque[Any] = deque()  # live frames read ahead: they stand for a later recorded frame
        self.setup = SetupState()  # what the recording told the client of the session's setup so far

    def run(self) -> None:
        previous: float | None = None
        for at, entry in enumerate(self.entries):
            try:
                if entry.direction == "->":
                    if at not in self._done and not self._await_client(at):
                        return  # the client went away
                else:
                    if self.speed > 0 and previous is not None and entry.t > previous:
                        self.sleep((entry.t - previous) / self.speed)
                    self._send_recorded(entry.message)
            except RecursionError:  # a frame a parser read but that is too deep to follow
                self.note(f"line {entry.line}: nested too deeply to follow: skipped")
            previous = entry.t
        self.note("the recording ends here: requests from now on are answered with an error")
        while (live := self._next(None)) is not None:
            if isinstance(live, dict) and "method" in live and "id" in live:
                self._refuse(live, "the recording ends here")

    def _next(self, deadline: float | None) -> Any:
        if self._held:
            return self._held.popleft()
        return self.incoming(None if deadline is None else max(0.0, deadline - self.clock()))

    def _send_recorded(self, message: Any) -> None:
        if isinstance(message, str):
            self.write(message.encode("utf-8", "replace"))
            return
        if _is_answer(message):
            skipped = self._skipped.pop(_key(message["id"]), None)
            if skipped is not None:  # the answer to a request the client never sent: what it changed, if anything
                update = _setup_update(skipped, message)
                session_id = _params(skipped).get("sessionId")
                if update is not None and session_id is not None:
                    params = {"sessionId": session_id, "update": update}
                    self._write({"jsonrpc": "2.0", "method": "session/update", "params": params})
                return
            live = self._ids.pop(_key(message["id"]), None)
            if live is not None:
                message = {**message, "id": live}
        elif isinstance(message, dict) and "method" in message and "id" in message:
            self._asked[_key(message["id"])] = message
        if isinstance(message, dict):
            self.setup.seen(message)
        self._write(message)

    def _write(self, message: Any) -> None:
        self.write(json.dumps(message, separators=(",", ":")).encode())

    def _await_client(self, at: int) -> bool:
        """Wait for the client's counterpart of the recorded client frame `at`; False when the client is gone.

        A live frame may also be the counterpart of a later client frame sent together with this one (see
        `_in_flight`): that one is matched now, noted as out of order, and not waited for when its turn comes.
        A live request that stands for a later one the client sends by itself, with only frames the replay may go
        without before it (`_ahead`), has those played without it. A frame the client sends by itself is waited
        for `wait` seconds, then gone without.
        """
        entry = self.entries[at]
        recorded = entry.message
        if not isinstance(recorded, dict):
            return True
        deadline = self.clock() + self.wait if _skippable(recorded) else None
        while True:
            live = self._next(deadline)
            if live is None:
                return False
            if live is SILENCE:
                self._go_without([at], f"within {self.wait:g} s")
                return True
            if not isinstance(live, dict):
                self.note(f"the client sent a line that is no JSON-RPC object: {_short(live)}")
                continue
            match = self._best_match(live, self._in_flight(at))
            if match is None:
                ahead = self._ahead(at, live)
                if ahead is None:
                    if live.get("method") in SETUP and "id" in live:
                        self._unrecorded_setup(live, entry)
                    else:
                        self._unexpected(live, entry)
                    continue
                self._go_without(ahead, f"before {_what(live)}")
                self._held.append(live)  # for the recorded frame it stands for
                return True
            if "method" in self.entries[match].message:
                self._matched_call(match, live)
            else:
                self._matched_answer(match, live)
            if match == at:
                return True
            self._done.add(match)
            self.note(
                f"line {entry.line}: the client sent {_short(_what(live))} before {_short(_what(recorded))}: "
                "recorded the other way round"
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
            if n not in self._done and isinstance(entry.message, dict):
                window.append(n)
        return window

    def _ahead(self, at: int, live: dict[str, Any]) -> list[int] | None:
        """The recorded client frames from `at` on to go without so that `live` is the next one: only frames the
        client sends by itself (`_skippable`, such as the session's setup before a prompt); None when `live`
        stands for none of the frames after them."""
        if "method" not in live:
            return None
        before: list[int] = []
        for n in range(at, len(self.entries)):
            entry = self.entries[n]
            if entry.direction != "->" or n in self._done or not isinstance(entry.message, dict):
                continue
            if n != at and self._best_match(live, [n]) is not None:
                return before
            if not _skippable(entry.message):
                return None
            before.append(n)
        return None

    def _go_without(self, frames: list[int], when: str) -> None:
        """The client did not send these recorded frames (`when`: within the wait, or before another): they are
        gone without, and the answers to them are not sent (a setup's result is, as the update that says it)."""
        for n in frames:
            entry = self.entries[n]
            message = entry.message
            self._done.add(n)
            if "id" in message:
                self._skipped[_key(message["id"])] = message
            if message.get("method") in SETUP:
                self.note(
                    f"line {entry.line}: the recording {_setup_text(message)} here; the client did not ({when}): "
                    "the replay applies it"
                )
            else:
                self.note(
                    f"line {entry.line}: the recording has the client send {_short(_what(message))} here; it did not "
                    f"({when}): the replay goes on without it"
                )

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

    def _matched_call(self, at: int, live: dict[str, Any]) -> None:
        entry = self.entries[at]
        recorded = entry.message
        if "id" in recorded and "id" in live:
            self._ids[_key(recorded["id"])] = live["id"]
        method = recorded.get("method")
        if method == "session/prompt":
            want = _params(recorded).get("prompt")
            got = _params(live).get("prompt")
            if want != got:
                self.note(
                    f"line {entry.line}: the prompt differs from the recording (recorded "
                    f"{_short(_prompt_text(want) or want)}, now {_short(_prompt_text(got) or got)}): "
                    "the recorded answer follows"
                )
        elif method in SETUP and _normalized(_params(recorded)) != _normalized(_params(live)):
            self.note(
                f"line {entry.line}: the client {_setup_text(live)} where the recording {_setup_text(recorded)}: "
                "the recorded answer follows"
            )

    def _matched_answer(self, at: int, live: dict[str, Any]) -> None:
        entry = self.entries[at]
        recorded = entry.message
        want: dict[str, Any] = {k: recorded[k] for k in ("result", "error") if k in recorded}
        got: dict[str, Any] = {k: live[k] for k in ("result", "error") if k in live}
        if want == got:
            return
        request = self._asked.get(_key(live.get("id")), {})
        if request.get("method") == "session/request_permission":
            self.note(
                f"line {entry.line}: the permission for {_permission_title(request)}: the client chose "
                f"{_choice(request, got)} where the recording chose {_choice(request, want)}: what the agent did "
                "after the recorded choice follows"
            )
            return
        asked = f"{request['method']} " if isinstance(request.get("method"), str) else ""
        self.note(
            f"line {entry.line}: the client answered {asked}request {_short(live.get('id'))} otherwise: "
            f"recorded {_short(want)}, now {_short(got)}"
        )

    def _unrecorded_setup(self, live: dict[str, Any], entry: Entry) -> None:
        """A setup the recording does not have here: answered from the recorded setup, as the agent would."""
        answer = self.setup.answer(live)
        if isinstance(answer, str):
            self.note(f"line {entry.line}: the client {_setup_text(live)}, which the recording does not have: {answer}")
            self._refuse(live, answer)
            return
        result, update = answer
        self.note(
            f"line {entry.line}: the client {_setup_text(live)}, which the recording does not have: the replay takes "
            "it; what follows is what the recorded agent did"
        )
        self._write({"jsonrpc": "2.0", "id": live["id"], "result": result})
        session_id = _params(live).get("sessionId")
        if update is not None and session_id is not None:
            params = {"sessionId": session_id, "update": update}
            self._write({"jsonrpc": "2.0", "method": "session/update", "params": params})

    def _unexpected(self, live: dict[str, Any], entry: Entry) -> None:
        expected = _what(entry.message)
        what = live.get("method") or f"an answer to request {_short(live.get('id'))}"
        self.note(f"line {entry.line}: the client sent {_short(what)} where the recording has {_short(expected)}")
        if "method" in live and "id" in live:
            self._refuse(live, f"not in the recording here (it has {expected})")

    def _refuse(self, live: dict[str, Any], why: str) -> None:
        error = {"code": NOT_RECORDED, "message": f"acp-tui replay: {live.get('method')} {why}"}
        self._write({"jsonrpc": "2.0", "id": live["id"], "error": error})


def _lines(stream: IO[bytes]) -> Iterator[Any]:
    for line in stream:
        if line.strip():
            try:
                yield json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or deeper than the parser goes: the line as text
                yield line.decode("utf-8", "replace").rstrip("\n")


def _option(args: list[str], name: str, default: float) -> float:
    """`--speed N` / `--wait SECONDS` out of `args` (removed): a number 0 or more."""
    if name not in args:
        return default
    at = args.index(name)
    try:
        value = float(args[at + 1])
    except (IndexError, ValueError):
        raise ReplayError(f"{name} needs a number") from None
    if not value >= 0 or math.isinf(value):
        raise ReplayError(f"{name} needs a number 0 or more")
    del args[at : at + 2]
    return value


def main(argv: list[str] | None = None) -> int:
    """The replay agent: `python -m acp_tui.headless.replay LOG [--speed N] [--wait SECONDS]`."""
    args = list(sys.argv[1:] if argv is None else argv)
    problems: list[str] = []

    def note(text: str) -> None:
        print(f"{REPLAY_PREFIX}{text}", file=sys.stderr, flush=True)

    try:
        speed = _option(args, "--speed", 1.0)
        wait = _option(args, "--wait", CLIENT_WAIT)
        if len(args) != 1:
            raise ReplayError("usage: python -m acp_tui.headless.replay LOG [--speed N] [--wait SECONDS]")
        log = Path(args[0])
        entries = retitled(read_recording(log, problems), log.name)
    except (ReplayError, OSError) as exc:
        note(str(exc))
        return 1
    for problem in problems:
        note(problem)
    inbox: queue.Queue[Any] = queue.Queue()

    def read() -> None:
        for message in _lines(sys.stdin.buffer):
            inbox.put(message)
        inbox.put(None)

    def incoming(timeout: float | None) -> Any:
        try:
            return inbox.get(timeout=timeout)
        except queue.Empty:
            return SILENCE

    threading.Thread(target=read, daemon=True).start()
    out = sys.stdout.buffer

    def write(line: bytes) -> None:
        out.write(line + b"\n")
        out.flush()

    try:
        Replayer(entries, incoming, write, note, speed=speed, wait=wait).run()
    except BrokenPipeError:
        pass
    return 0


__all__ = [
    "CLIENT_WAIT",
    "SETUP",
    "SILENCE",
    "Entry",
    "SetupState",
    "ReplayError",
    "Replayer",
    "Silence",
    "main",
    "read_recording",
    "recorded_prompt",
    "retitled",
]

if __name__ == "__main__":
    sys.exit(main())
