"""A prompt sent again after a login (docs/protocol.md §2.4): the model keeps both user messages the agent
inserted and marks the repeat, whichever comes first, the prompt's answer or the agent's `user_message`."""

from __future__ import annotations

from acp_tui.protocol.v2 import TextContent, UserMessage
from acp_tui.session.changes import EntityChanged, SubmissionChanged
from acp_tui.session.local_events import PromptAccepted, PromptResent, PromptSubmitted
from acp_tui.session.model import USER_MESSAGE, Message, SessionState
from acp_tui.session.reducer import apply


def _message(state: SessionState, message_id: str) -> Message:
    entity = state.entities[(USER_MESSAGE, message_id)]
    assert isinstance(entity, Message)
    return entity


def _first_try(state: SessionState) -> None:
    apply(state, PromptSubmitted(1, [TextContent(text="hi")]))
    apply(state, PromptAccepted(1, "m1"))
    apply(state, UserMessage(message_id="m1", content=[TextContent(text="hi")]))


def test_the_mark_goes_from_the_submission_to_the_message_it_becomes() -> None:
    state = SessionState()
    _first_try(state)
    apply(state, PromptSubmitted(2, [TextContent(text="hi")]))
    assert apply(state, PromptResent(2, "m1")) == [SubmissionChanged(2)]
    assert state.submissions[2].resend_of == "m1"
    apply(state, PromptAccepted(2, "m2"))
    apply(state, UserMessage(message_id="m2", content=[TextContent(text="hi")]))
    assert _message(state, "m2").resend_of == "m1" and _message(state, "m1").resend_of is None
    assert [key[1] for key in state.entities] == ["m1", "m2"]  # both inserted messages stay in the model


def test_the_agents_user_message_before_the_answer_is_marked_when_the_answer_binds_it() -> None:
    state = SessionState()
    _first_try(state)
    apply(state, PromptSubmitted(2, [TextContent(text="hi")]))
    apply(state, PromptResent(2, "m1"))
    apply(state, UserMessage(message_id="m2", content=[TextContent(text="hi")]))
    assert _message(state, "m2").resend_of is None  # not bound to its prompt yet
    changes = apply(state, PromptAccepted(2, "m2"))
    assert EntityChanged((USER_MESSAGE, "m2"), frozenset({"submission_id", "resend_of"})) in changes
    assert _message(state, "m2").resend_of == "m1"


def test_a_mark_after_the_message_exists_still_lands_and_an_unknown_request_is_ignored() -> None:
    state = SessionState()
    _first_try(state)
    apply(state, PromptSubmitted(2, [TextContent(text="hi")]))
    apply(state, PromptAccepted(2, "m2"))
    assert apply(state, PromptResent(2, "m1")) == [EntityChanged((USER_MESSAGE, "m2"), frozenset({"resend_of"}))]
    assert _message(state, "m2").resend_of == "m1"
    assert apply(state, PromptResent(99, "m1")) == []
