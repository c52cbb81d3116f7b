"""Steering (agent/steering.py, controller/steering.py) against the scripted agent, no terminal.

The agent offers Claude's `_session/steering` extension (its `initialize` result's `_meta.steering`); each
outcome is handled once: `injected` shows the prompt in the turn marked steered, `startedNewTurn` as a new
turn's prompt, `promptRequired` sends it as an ordinary prompt; an error or no answer puts it back at the
queue's head. Without the capability the prompt is queued as Enter would, and no steer goes out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.steering import STEER_METHOD, SteerFailed, Steering, SteerRequest, steering_offered
from acp_tui.context import PromptSubmission
from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import Note
from acp_tui.launch import Launch
from acp_tui.protocol import codec, methods
from acp_tui.session.model import USER_MESSAGE, Message
from tests.support.agents import scripted_agent_argv
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.schema_check import validate_client_message
from tests.support.wait import until

pytestmark = pytest.mark.timeout(60)

OFFERED = {
    "protocolVersion": 1,
    "agentCapabilities": {"loadSession": False, "promptCapabilities": {}},
    "authMethods": [],
    "_meta": {"steering": {"supported": True}},
}

#: A v1 turn that works until the client steers (answered from `responses`), then until a file appears.
STEERED_TURN: list[dict[str, Any]] = [
    {"op": "update", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "work"}}},
    {"op": "wait_for", "method": STEER_METHOD, "answer": True, "timeout": 20},
    {"op": "wait_for_file", "path": "$RELEASE", "timeout": 20},
    {"op": "respond_prompt", "stopReason": "end_turn"},
]


class Run:
    def __init__(self, tmp_path: Path, script: dict[str, Any]) -> None:
        self.release = tmp_path / "release"
        text = json.dumps(script).replace("$RELEASE", str(self.release))
        (tmp_path / "script.json").write_text(text, encoding="utf-8")
        self.record = tmp_path / "record.jsonl"
        self.events = ControllerEvents()
        argv = tuple(scripted_agent_argv(tmp_path / "script.json", self.record))
        launch = Launch(
            agent_argv=argv,
            agent_name="scripted",
            env={},
            cwd=tmp_path,
            protocol="auto",
            theme=None,
            log_path=None,
            init_timeout=10,
            warnings=(),
        )
        self.ctl = SessionController(launch, asker=ScriptedUser([]), listener=self.events, transcripts=False)

    def sent(self, method: str) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        lines = self.record.read_text(encoding="utf-8").splitlines()
        return [m for m in map(json.loads, lines) if m.get("method") == method]

    def notes(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, Note)]

    def user_messages(self) -> list[Message]:
        return [e for k, e in self.ctl.state.entities.items() if k[0] == USER_MESSAGE and isinstance(e, Message)]


@pytest.fixture
async def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Callable[[dict[str, Any]], Run]]:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    made: list[Run] = []

    def make(script: dict[str, Any]) -> Run:
        made.append(Run(tmp_path, script))
        return made[-1]

    yield make
    for one in made:
        await one.ctl.shutdown()


def script(
    outcome: dict[str, Any], *, initialize: dict[str, Any] = OFFERED, steps: list[dict[str, Any]] = STEERED_TURN
) -> dict[str, Any]:
    return {
        "version": 1,
        "initialize": initialize,
        "responses": {STEER_METHOD: outcome},
        "turns": [{"match": "first", "steps": steps}],
    }


async def working(one: Run) -> None:
    assert await one.ctl.start()
    assert one.ctl.submit("first")
    await until(lambda: one.ctl.busy and one.ctl.state.foreground.busy, "the turn to run")


def test_the_capability_is_read_from_the_initialize_results_meta() -> None:
    decode = methods.InitializeResponse
    assert steering_offered(decode(protocol_version=1, meta={"steering": {"supported": True}}))
    assert not steering_offered(decode(protocol_version=1, meta={"steering": {"supported": "yes"}}))
    assert not steering_offered(decode(protocol_version=1, meta={"steering": True}))
    assert not steering_offered(decode(protocol_version=2))
    assert not steering_offered(None)


async def test_an_injected_steer_shows_in_the_running_turn_marked_steered(run: Callable[..., Run]) -> None:
    one = run(script({"result": {"outcome": "injected"}}))
    await working(one)
    assert one.ctl.steering.offered
    assert one.ctl.steering.steer_now(PromptSubmission("use tabs")) == "steering"
    await until(lambda: any(m.steered for m in one.user_messages()), "the steered message")
    [steer] = one.sent(STEER_METHOD)
    assert steer["params"]["prompt"] == [{"type": "text", "text": "use tabs"}]
    assert steer["params"]["_meta"] == {"steering": {"idleBehavior": "promptRequired"}}
    assert steer["params"]["sessionId"] == one.ctl.session.session_id if one.ctl.session else False
    steered = [m for m in one.user_messages() if m.steered]
    assert [m.text for m in steered] == ["use tabs"]
    assert not one.ctl.queue.items and len(one.sent("session/prompt")) == 1  # not queued, not sent twice
    one.release.touch()
    await until(lambda: not one.ctl.busy, "the turn to end")
    assert len(one.sent("session/prompt")) == 1
    # every frame we sent but the extension (no schema defines `_session/steering`) is schema-valid v1
    frames = [json.loads(line) for line in one.record.read_text(encoding="utf-8").splitlines()]
    for frame in frames:
        if frame.get("method") not in ("initialize", STEER_METHOD):  # the hybrid initialize: the handshake tests'
            validate_client_message(frame, 1)


async def test_started_new_turn_shows_as_a_new_turns_prompt(run: Callable[..., Run]) -> None:
    one = run(script({"result": {"outcome": "startedNewTurn"}}))
    await working(one)
    one.ctl.steering.steer_now(PromptSubmission("also this"))
    await until(lambda: any(m.text == "also this" for m in one.user_messages()), "the new turn's prompt")
    assert not any(m.steered for m in one.user_messages())
    assert any("started a new turn" in text for text in one.notes())
    one.release.touch()


async def test_prompt_required_sends_it_as_an_ordinary_prompt(run: Callable[..., Run]) -> None:
    one = run(script({"result": {"outcome": "promptRequired", "reason": "noRunningTurn"}}))
    await working(one)
    one.ctl.steering.steer_now(PromptSubmission("late words"))
    await until(lambda: one.ctl.queue.items == ("late words",) or len(one.sent("session/prompt")) == 2, "the fallback")
    one.release.touch()
    await until(lambda: len(one.sent("session/prompt")) == 2, "the ordinary prompt")
    second = one.sent("session/prompt")[1]
    assert second["params"]["prompt"] == [{"type": "text", "text": "late words"}]
    assert len(one.sent(STEER_METHOD)) == 1


@pytest.mark.parametrize(
    "answer",
    [
        {"error": {"code": -32603, "message": "boom"}},
        {"result": {"outcome": "somethingElse"}},
        {"result": {"nothing": True}},
    ],
)
async def test_a_refused_or_unreadable_steer_goes_back_to_the_queue_with_a_note(
    run: Callable[..., Run], answer: dict[str, Any]
) -> None:
    one = run(script(answer))
    await working(one)
    assert not one.ctl.submit("queued before")
    one.ctl.steering.steer_now(PromptSubmission("urgent"))
    await until(lambda: one.ctl.queue.items == ("urgent", "queued before"), "the prompt back at the queue's head")
    assert any(text.startswith("not steered:") for text in one.notes())
    assert not any(m.steered for m in one.user_messages())
    assert one.ctl.steering.in_flight == 0
    one.release.touch()
    await until(lambda: len(one.sent("session/prompt")) >= 2, "the queued prompt to go out after the turn")
    assert one.sent("session/prompt")[1]["params"]["prompt"][0]["text"] == "urgent"


class _SilentConnection:
    """A connection whose requests are never answered (the agent hangs on the steer)."""

    def __init__(self) -> None:
        self.cancelled = 0

    async def request(self, method: str, params: Any = None) -> Any:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1  # the real connection sends `$/cancel_request` here
            raise


async def test_a_steer_without_an_answer_is_given_up_after_its_timeout() -> None:
    connection = _SilentConnection()
    applied: list[object] = []
    init = methods.InitializeResponse(protocol_version=1, meta={"steering": {"supported": True}})
    steering = Steering(connection, lambda: init, lambda: "s1", applied.append, timeout=0.2)  # type: ignore[arg-type]
    with pytest.raises(SteerFailed, match="did not answer"):
        await steering.steer([codec.text_block("hello?")])
    assert connection.cancelled == 1 and applied == []


async def test_without_the_capability_the_prompt_is_queued_and_no_steer_goes_out(run: Callable[..., Run]) -> None:
    plain_init = {k: v for k, v in OFFERED.items() if k != "_meta"}
    no_steer = [STEERED_TURN[0], STEERED_TURN[2], STEERED_TURN[3]]
    one = run(script({"result": {"outcome": "injected"}}, initialize=plain_init, steps=no_steer))
    await working(one)
    assert not one.ctl.steering.offered
    assert one.ctl.steering.steer_now(PromptSubmission("wait then")) == "queued"
    assert one.ctl.queue.items == ("wait then",)
    assert one.ctl.steering.promote(0) == "queued" and one.ctl.queue.items == ("wait then",)  # stays queued
    one.release.touch()
    await until(lambda: len(one.sent("session/prompt")) == 2, "the queued prompt")
    assert one.sent(STEER_METHOD) == []


async def test_a_queued_prompt_promoted_is_steered_and_leaves_the_queue(run: Callable[..., Run]) -> None:
    one = run(script({"result": {"outcome": "injected"}}))
    await working(one)
    assert not one.ctl.submit("one")
    assert not one.ctl.submit("two")
    assert one.ctl.steering.promote(1) == "steering"
    assert one.ctl.queue.items == ("one",)
    await until(lambda: [m.text for m in one.user_messages() if m.steered] == ["two"], "the promoted steer")
    one.release.touch()


async def test_idle_steer_is_a_plain_prompt(run: Callable[..., Run]) -> None:
    one = run({"version": 1, "initialize": OFFERED})
    assert await one.ctl.start()
    assert one.ctl.steering.steer_now(PromptSubmission("hi")) == "sent"
    await until(lambda: len(one.sent("session/prompt")) == 1, "the prompt")
    assert one.sent(STEER_METHOD) == []


def test_the_steer_request_encodes_as_claudes_adapter_reads_it() -> None:
    body = json.loads(codec.encode(SteerRequest(session_id="s1", prompt=[codec.text_block("x")])))
    assert body == {
        "sessionId": "s1",
        "prompt": [{"type": "text", "text": "x"}],
        "_meta": {"steering": {"idleBehavior": "promptRequired"}},
    }


async def test_a_steer_before_the_agent_runs_is_held_in_the_queue(run: Callable[..., Run]) -> None:
    one = run({"version": 1, "initialize": OFFERED})
    assert one.ctl.steering.steer_now(PromptSubmission("early")) == "held"
    assert one.ctl.queue.items == ("early",) and one.sent(STEER_METHOD) == []
