"""Tool-call ids reused across turns (issue 11): a later turn's call never rewrites an earlier turn's card.

The official TypeScript SDK example agent names its tool calls `call_1` and `call_2` in every turn. The
rule (docs/protocol.md §6.1, "Tool-call ids reused across turns"):
- v1: a `tool_call` (a creation) with an id that named a card in an earlier turn starts a new card;
- v2 (and v1 `tool_call_update`): an update for an id whose card finished in an earlier turn starts a new
  card; an unfinished card from an earlier turn (a detached task) is still patched.
Earlier cards are never rewritten. The new card has a turn-scoped entity key; its wire id stays the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.protocol import codec
from acp_tui.protocol.methods import PermissionOption, RequestPermissionRequest, ToolCallPermissionSubject
from acp_tui.protocol.v2 import StateUpdate, TextContent, ToolCallContentChunk, ToolCallUpdate, ToolContent
from acp_tui.session.changes import ContentAppended, EntityAdded, EntityChanged
from acp_tui.session.local_events import PermissionRequested, PromptSubmitted
from acp_tui.session.model import TOOL_CALL, SessionState, ToolCall
from acp_tui.session.reducer import ModelInput, apply
from acp_tui.session.v1_adapter import V1Adapter
from acp_tui.ui.app import AcpApp
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.agent_session import Recorder, idle_with, make_session
from tests.support.paths import TRAFFIC
from tests.support.peers import TsSdkPeers
from tests.support.replay import Replay
from tests.support.scripted_app import (
    ARM_DELAY,
    SIZE,
    armed_dialog,
    isolate_user_dirs,
    make_launch,
    ready,
    submit,
    wait_until,
)

#: The recorded SDK agent turn (tool calls `call_1` and `call_2`, a permission request for `call_2`).
SDK_LOG = TRAFFIC / "sdk-agent-v1.log"


def feed(state: SessionState, *items: ModelInput) -> list[Any]:
    changes: list[Any] = []
    for item in items:
        changes += apply(state, item)
    return changes


def cards(state: SessionState) -> list[ToolCall]:
    return [e for e in state.entities.values() if isinstance(e, ToolCall)]


def turn(state: SessionState, *items: ModelInput) -> list[Any]:
    """One v2 foreground turn: running, the items, idle."""
    return feed(state, StateUpdate(state="running"), *items, StateUpdate(state="idle", stop_reason="end_turn"))


# -- v2 rule ----------------------------------------------------------------------------------------


def test_v2_update_for_an_id_finished_in_an_earlier_turn_starts_a_new_card() -> None:
    s = SessionState()
    turn(s, ToolCallUpdate(tool_call_id="call_1", title="Read", status="completed"))
    changes = turn(s, ToolCallUpdate(tool_call_id="call_1", title="Read again", status="pending"))
    first, second = cards(s)
    assert (first.title, first.status) == ("Read", "completed")  # never rewritten
    assert (second.title, second.status) == ("Read again", "pending")
    assert first.key == (TOOL_CALL, "call_1") and second.key != first.key and second.key[0] == TOOL_CALL
    assert first.id == second.id == "call_1"  # the wire id, for tool_call/cancel
    assert EntityAdded(second.key, 1) in changes
    assert s.tool_call("call_1") is second  # the id now names the newest card


def test_v2_update_for_an_unfinished_card_of_an_earlier_turn_still_patches_it() -> None:
    """A detached task may finish after its turn ended (docs/protocol.md §6.1): same card."""
    s = SessionState()
    turn(s, ToolCallUpdate(tool_call_id="bg", title="Build", status="in_progress"))
    changes = turn(s, ToolCallUpdate(tool_call_id="bg", status="completed"))
    (card,) = cards(s)
    assert card.status == "completed" and card.title == "Build"
    assert EntityChanged((TOOL_CALL, "bg"), frozenset({"status"})) in changes


def test_v2_late_update_in_the_same_turn_or_while_idle_patches_the_finished_card() -> None:
    s = SessionState()
    turn(s, ToolCallUpdate(tool_call_id="c", status="completed"))
    feed(s, ToolCallUpdate(tool_call_id="c", raw_output={"late": True}))  # idle, same turn
    (card,) = cards(s)
    assert card.raw_output == {"late": True}


def test_v2_chunk_and_permission_subject_follow_the_same_rule() -> None:
    s = SessionState()
    turn(s, ToolCallUpdate(tool_call_id="c", title="Old", status="failed"))
    feed(s, StateUpdate(state="running"))
    changes = feed(s, ToolCallContentChunk(tool_call_id="c", content=ToolContent(content=TextContent(text="x"))))
    old, new = cards(s)
    assert old.content == [] and len(new.content) == 1 and new.status == "pending"
    request = RequestPermissionRequest(
        session_id="s",
        title="Allow?",
        options=[PermissionOption(option_id="ok", name="OK", kind="allow_once")],
        subject=ToolCallPermissionSubject(tool_call=ToolCallUpdate(tool_call_id="c", title="New")),
    )
    changes = feed(s, PermissionRequested(0, request))
    assert EntityChanged(new.key, frozenset({"title"})) in changes
    assert (old.title, new.title) == ("Old", "New")
    more = ToolContent(content=TextContent(text="y"))
    assert feed(s, ToolCallContentChunk(tool_call_id="c", content=more)) == [ContentAppended(new.key, more)]


def test_every_reuse_gets_its_own_card_and_generated_keys_never_collide_with_wire_ids() -> None:
    s = SessionState()
    for n in range(3):
        turn(s, ToolCallUpdate(tool_call_id="c", title=f"turn {n}", status="completed"))
    assert [c.title for c in cards(s)] == ["turn 0", "turn 1", "turn 2"]
    assert len({c.key for c in cards(s)}) == 3
    # An agent whose own fresh id happens to equal a generated key still gets a card of its own.
    taken = cards(s)[1].key[1]
    turn(s, ToolCallUpdate(tool_call_id=taken, title="fresh", status="pending"))
    fresh = cards(s)[-1]
    assert fresh.id == taken and fresh.title == "fresh" and cards(s)[1].title == "turn 1"
    assert s.tool_call(taken) is fresh and s.tool_call("c") is cards(s)[2]


# -- v1 rule ----------------------------------------------------------------------------------------


class V1:
    """A v1 session through the adapter, as the agent layer drives it."""

    def __init__(self) -> None:
        self.state = SessionState()
        self.adapter = V1Adapter()
        self.request_id = 0

    def prompt(self) -> None:
        self.request_id += 1
        feed(self.state, PromptSubmitted(self.request_id, [TextContent(text="go")]))
        feed(self.state, *self.adapter.turn_started(self.request_id))

    def send(self, update: dict[str, Any]) -> list[Any]:
        _, decoded = codec.decode_update(json.dumps({"sessionId": "s", "update": update}).encode(), 1)
        return feed(self.state, *self.adapter.update(decoded))

    def end(self) -> None:
        feed(self.state, *self.adapter.turn_ended("end_turn"))


def test_v1_tool_call_creation_reusing_an_earlier_turns_id_starts_a_new_card_even_if_unfinished() -> None:
    v = V1()
    v.prompt()
    v.send({"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "Left running", "status": "in_progress"})
    v.end()
    v.prompt()
    v.send({"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "Second", "status": "pending"})
    old, new = cards(v.state)
    assert (old.title, old.status) == ("Left running", "in_progress")
    assert (new.title, new.status, new.id) == ("Second", "pending", "call_1")


def test_v1_tool_call_repeated_in_the_same_turn_is_an_upsert() -> None:
    """docs/protocol.md §5.6: `tool_call` creates, "upsert if the ID already exists" (within a turn)."""
    v = V1()
    v.prompt()
    v.send({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "First", "kind": "read"})
    v.send({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Better title"})
    (card,) = cards(v.state)
    assert card.title == "Better title" and card.kind == "read"


def test_v1_tool_call_update_for_an_id_finished_in_an_earlier_turn_starts_a_new_card() -> None:
    v = V1()
    v.prompt()
    v.send({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Done", "status": "completed"})
    v.end()
    v.prompt()
    v.send({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "in_progress"})
    old, new = cards(v.state)
    assert old.status == "completed" and new.status == "in_progress"


# -- recorded traffic: the SDK agent's turn, twice ------------------------------------------------


def two_turn_log(tmp_path: Path) -> Path:
    """The recorded session with its prompt turn played twice, as the SDK agent does it: the second turn
    reuses `call_1`/`call_2`; only the JSON-RPC ids differ (prompt 3 -> 4, permission request 0 -> 1)."""
    lines = [
        line
        for line in SDK_LOG.read_text(encoding="utf-8").splitlines()
        if line.split(None, 2)[1:2] in (["->"], ["<-"])
    ]
    start = next(i for i, line in enumerate(lines) if '"method":"session/prompt"' in line)
    again: list[str] = []
    for line in lines[start:]:
        stamp, direction, payload = line.split(None, 2)
        msg = json.loads(payload)
        if msg.get("id") in (3, 0):
            msg["id"] = {3: 4, 0: 1}[msg["id"]]
        again.append(f"{stamp} {direction} {json.dumps(msg)}")
    path = tmp_path / "sdk-agent-v1-two-turns.log"
    path.write_text("\n".join(lines + again) + "\n", encoding="utf-8")
    return path


def test_recorded_sdk_agent_two_turns_show_four_cards_and_turn_one_stays_completed(tmp_path: Path) -> None:
    state = Replay(two_turn_log(tmp_path)).state
    assert state.problem_count == 0, list(state.problems)
    calls = cards(state)
    assert [(c.id, c.title, c.status) for c in calls] == [
        ("call_1", "Reading project files", "completed"),
        ("call_2", "Modifying critical configuration file", "completed"),
        ("call_1", "Reading project files", "completed"),
        ("call_2", "Modifying critical configuration file", "completed"),
    ]
    assert len({c.key for c in calls}) == 4
    assert [c.turn for c in calls] == [1, 1, 2, 2]
    assert state.foreground.stop_reason == "end_turn" and not state.foreground.busy


# -- the real SDK agent ---------------------------------------------------------------------------


async def test_sdk_agent_two_turns_through_the_session(
    recorder: Recorder, tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    session: AgentSession = make_session(ts_sdk_peers.agent, recorder, tmp_path, env=peer_home_env)
    try:
        await session.start()
        assert session.version == 1
        for number in (1, 2):
            await session.prompt([TextContent(text=f"turn {number}")])
            await recorder.until(lambda: len(recorder.permissions()) == number)
            asked = recorder.permissions()[-1]
            asked.outcome.set_result(asked.request.options[0].option_id)
            await recorder.until(lambda: session.state.turn == number and idle_with(session, "end_turn")())
        calls = cards(session.state)
        assert [(c.id, c.status, c.turn) for c in calls] == [
            ("call_1", "completed", 1),
            ("call_2", "completed", 1),
            ("call_1", "completed", 2),
            ("call_2", "completed", 2),
        ]
        assert state_problems(session) == []
    finally:
        await session.shutdown()


def state_problems(session: AgentSession) -> list[Any]:
    return list(session.state.problems)


@pytest.fixture
async def recorder() -> Recorder:
    return Recorder()


async def test_sdk_agent_two_turns_in_the_app_show_four_cards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)
    app = AcpApp(make_launch(ts_sdk_peers.agent, tmp_path, env=peer_home_env, name="sdk-agent"), arm_delay=ARM_DELAY)
    async with app.run_test(size=SIZE) as pilot:
        chat = await ready(pilot, app)

        def shown() -> list[ToolCallCard]:
            return [w for w in chat.conversation.entries if isinstance(w, ToolCallCard)]

        for number in (1, 2):
            await submit(pilot, chat, f"turn {number}")
            await armed_dialog(pilot, app)
            await pilot.press("a")
            await wait_until(
                pilot,
                lambda: (
                    len(shown()) == 2 * number
                    and all(c.call.status == "completed" for c in shown())
                    and not chat.status.values.busy
                ),
                f"turn {number} to complete",
                timeout=20,
            )
        cards_shown = shown()
        assert [c.call.id for c in cards_shown] == ["call_1", "call_2", "call_1", "call_2"]
        assert len({id(c.call) for c in cards_shown}) == 4  # four entities, not two re-rendered
        assert [c.call.turn for c in cards_shown] == [1, 1, 2, 2]
