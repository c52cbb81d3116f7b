"""The end-of-turn line follows the turn's own user message and output (issue 11, "Order").

The reducer reports the end of foreground work as a `TurnEnded` change, in order after every change of
that turn; the UI writes the end-of-turn line (failed, cancelled, refused, ...) when it renders that
change, never from the model's current state (which may be ahead of what is on screen: a turn that
fails at once is over in the model before its user message is drawn).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.v2 import AgentMessageChunk, StateUpdate, TextContent, ToolCallUpdate
from acp_tui.session.changes import (
    EntityAdded,
    StateChanged,
    SubmissionChanged,
    TextAppended,
    TurnEnded,
)
from acp_tui.session.coalesce import coalesce
from acp_tui.session.local_events import AgentExited, CancelRequested, PromptAccepted, PromptSubmitted
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import ModelInput, apply
from acp_tui.session.v1_adapter import V1Adapter
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.timeline.tool_call import ToolCallCard
from acp_tui.ui.timeline.user_message import UserMessageView
from tests.support.app_run import running_app, update

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

ERROR = ErrorObject(-32603, "model overheated")


def feed(state: SessionState, *items: ModelInput) -> list[Any]:
    changes: list[Any] = []
    for item in items:
        changes += apply(state, item)
    return changes


def ends(changes: list[Any]) -> list[TurnEnded]:
    return [c for c in changes if isinstance(c, TurnEnded)]


def test_busy_to_idle_reports_turn_ended_after_everything_of_that_turn() -> None:
    s = SessionState()
    changes = feed(
        s,
        PromptSubmitted(1, [TextContent(text="go")]),
        StateUpdate(state="running"),
        AgentMessageChunk(message_id="a", content=TextContent(text="Starting")),
        ToolCallUpdate(tool_call_id="c", title="Warm up", status="failed"),
        StateUpdate(state="idle", stop_reason="error", error=ERROR),
        PromptAccepted(1, "u1"),
    )
    kinds = [type(c) for c in changes]
    end = kinds.index(TurnEnded)
    assert kinds[:end] == [SubmissionChanged, StateChanged, EntityAdded, EntityAdded, StateChanged]
    assert changes[end] == TurnEnded(turn=1, stop_reason="error", error=ERROR, cancel_requested=False)


def test_turn_ended_once_per_turn_and_never_for_idle_without_work() -> None:
    s = SessionState()
    assert ends(feed(s, StateUpdate(state="idle", stop_reason="end_turn"))) == []  # nothing was running
    first = feed(
        s,
        StateUpdate(state="running"),
        StateUpdate(state="requires_action"),
        StateUpdate(state="running"),
        StateUpdate(state="idle", stop_reason="refusal"),
    )
    assert ends(first) == [TurnEnded(turn=1, stop_reason="refusal")]
    assert ends(feed(s, StateUpdate(state="idle", stop_reason="refusal"))) == []  # idempotent
    assert ends(feed(s, StateUpdate(state="_future"))) == []  # unknown state: busy unchanged
    second = feed(s, StateUpdate(state="running"), TextChunk("x"), StateUpdate(state="idle"))
    assert ends(second) == [TurnEnded(turn=2, stop_reason=None)]


def TextChunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(message_id="m", content=TextContent(text=text))


def test_turn_ended_says_whether_the_user_cancelled_that_turn() -> None:
    """The controller pauses its queue after a turn the user cancelled, whatever stop reason follows."""
    s = SessionState()
    feed(s, StateUpdate(state="running"), CancelRequested())
    assert ends(feed(s, StateUpdate(state="idle", stop_reason="cancelled"))) == [
        TurnEnded(turn=1, stop_reason="cancelled", cancel_requested=True)
    ]
    # The next turn was not cancelled; a cancel while idle belongs to no turn.
    feed(s, CancelRequested())
    assert ends(feed(s, StateUpdate(state="running"), StateUpdate(state="idle", stop_reason="end_turn"))) == [
        TurnEnded(turn=2, stop_reason="end_turn", cancel_requested=False)
    ]
    # A cancel between sending the prompt and the agent's `running` counts for the turn that follows.
    feed(s, PromptSubmitted(7, [TextContent(text="go")]), CancelRequested())
    assert ends(feed(s, StateUpdate(state="running"), StateUpdate(state="idle", stop_reason="end_turn"))) == [
        TurnEnded(turn=3, stop_reason="end_turn", cancel_requested=True)
    ]


def test_agent_exit_ends_no_turn_line_and_forgets_a_cancel() -> None:
    s = SessionState()
    feed(s, StateUpdate(state="running"), CancelRequested())
    assert ends(feed(s, AgentExited(returncode=1))) == []  # the exit banner says what happened
    assert ends(feed(s, StateUpdate(state="running"), StateUpdate(state="idle"))) == [
        TurnEnded(turn=2, stop_reason=None)
    ]


def test_v1_turn_failed_and_cancelled_end_in_order() -> None:
    s = SessionState()
    adapter = V1Adapter()
    feed(s, PromptSubmitted(1, [TextContent(text="go")]), *adapter.turn_started(1))
    changes = feed(s, *adapter.turn_failed(ERROR))
    assert ends(changes) == [TurnEnded(turn=1, stop_reason="error", error=ERROR)]
    feed(s, PromptSubmitted(2, [TextContent(text="again")]), *adapter.turn_started(2), CancelRequested())
    changes = feed(s, *adapter.turn_failed(ErrorObject(-32800, "cancelled"), after_cancel=True))
    assert ends(changes) == [TurnEnded(turn=2, stop_reason="cancelled", cancel_requested=True)]


def test_coalesce_keeps_turn_ended_after_the_turns_output() -> None:
    s = SessionState()
    changes = feed(
        s,
        StateUpdate(state="running"),
        TextChunk("a"),
        TextChunk("b"),
        StateUpdate(state="idle", stop_reason="max_tokens"),
    )
    folded = coalesce(changes)
    assert type(folded[-1]) is TurnEnded and folded[-1].stop_reason == "max_tokens"
    assert not any(type(c) is TextAppended for c in folded)  # added in this batch: rendered whole


# -- in the app ------------------------------------------------------------------------------------


async def test_instant_failure_line_follows_its_own_prompt_and_output(tmp_path: Path) -> None:
    """An agent that fails at once (everything in one burst): the line still comes after the turn."""
    fail = [
        {"op": "state", "state": "running"},
        {"op": "user_message"},
        update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "a-$PROMPT_ID",
                "content": {"type": "text", "text": "Starting"},
            }
        ),
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "warm-$PROMPT_ID",
                "title": "Warm up",
                "status": "failed",
            }
        ),
        update(
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "error",
                "error": {"code": -32603, "message": "model overheated"},
            }
        ),
        {"op": "respond_prompt"},
    ]
    turns = [{"match": f"fail {n}", "steps": fail} for n in range(4)]
    async with running_app(tmp_path, {"version": 2, "turns": turns}) as run:
        for n in range(4):
            await run.send(f"fail {n}")
            await run.wait(
                lambda: len(run.views(SystemLine)) == n + 1 and len(run.views(ToolCallCard)) == n + 1,
                f"turn {n} to end",
            )
        await run.pilot.pause(0.1)
        order = [
            type(w).__name__
            for w in run.chat.conversation.entries
            if isinstance(w, (UserMessageView, ToolCallCard, SystemLine))
        ]
        assert order == ["UserMessageView", "ToolCallCard", "SystemLine"] * 4, order
