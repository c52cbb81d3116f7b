"""The elicitation service over a real `Connection`: one answer per request, whatever happens.

The agent side is scripted frame by frame through an in-memory transport; the user side is a
scripted asker. Every frame the client writes is checked against the JSON Schema of the version in
use (`tests/support/schema_check.py`) when each test ends. The form model and URL display are table-tested
in test_elicitation_form.py; the dialogs in test_ui_elicitation.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.agent.session_events import ModelChanged, SessionEvent
from acp_tui.protocol import codec
from acp_tui.protocol.jsonrpc import CANCEL_REQUEST_METHOD
from acp_tui.services.base import merge_capabilities
from acp_tui.services.elicitation import (
    Cancelled,
    Declined,
    ElicitationService,
    FormAccepted,
    FormOutcome,
    FormQuestion,
    UrlAccepted,
)
from acp_tui.services.elicitation_form import RawValue, check_form
from acp_tui.session.changes import ProblemAdded
from tests.support.agents import AGENTS_DIR
from tests.support.elicitation_form import EVERY_TYPE, form_params
from tests.support.elicitation_service import (
    Agent,
    FormScript,
    ScriptedAsker,
    url_params,
)
from tests.support.schema_check import validate_client_message
from tests.support.wait import until

SCRIPTED_AGENT = AGENTS_DIR / "scripted_agent.py"


def fill(raws: dict[str, RawValue] | None = None) -> FormScript:
    """A user who types `raws` into the form and submits it (the dialog's own check decides content)."""

    async def script(question: FormQuestion) -> FormOutcome:
        result = check_form(question.form, raws or {})
        assert result.ok, result.errors
        return FormAccepted(result.content)

    return script


def answer(outcome: Any) -> Callable[[Any], Awaitable[Any]]:
    async def script(question: Any) -> Any:
        return outcome

    return script


@pytest.fixture(params=[2, 1], ids=["v2", "v1"])
async def agent(request: pytest.FixtureRequest) -> AsyncIterator[Agent]:
    asker = ScriptedAsker()
    agent = Agent(request.param, ElicitationService(asker), asker)
    yield agent
    agent.validate_sent()
    await agent.service.close()


# --- forms ----------------------------------------------------------------------------------------------


async def test_every_field_type_is_answered_with_matching_content(agent: Agent) -> None:
    agent.asker.form_scripts.append(
        fill(
            {
                "name": "Grace",
                "email": "grace@example.com",
                "site": "https://example.com",
                "born": "1906-12-09",
                "when": "2025-06-01T12:00:00Z",
                "branch": "main",
                "rating": "5",
                "years": "37",
                "subscribe": False,
                "size": "L",
                "colour": "g",
                "langs": ("py", "rs"),
                "pets": ("cat", "dog"),
            }
        )
    )
    request_id = agent.ask(form_params(EVERY_TYPE, ["name", "langs"], toolCallId="call-7"))
    frame = await agent.answer(request_id)
    assert frame["result"] == {
        "action": "accept",
        "content": {
            "name": "Grace",
            "email": "grace@example.com",
            "site": "https://example.com",
            "born": "1906-12-09",
            "when": "2025-06-01T12:00:00Z",
            "branch": "main",
            "rating": 5.0,
            "years": 37,
            "subscribe": False,
            "size": "L",
            "colour": "g",
            "langs": ["py", "rs"],
            "pets": ["cat", "dog"],
        },
    }
    question = agent.asker.forms[0]
    assert question.tool_call_id == "call-7" and not question.before_session
    assert question.version == agent.version and question.message == "Tell me"
    assert json.loads(question.raw)["toolCallId"] == "call-7"
    assert agent.problems == []


async def test_defaults_are_sent_for_an_untouched_form(agent: Agent) -> None:
    agent.asker.form_scripts.append(fill())
    frame = await agent.answer(agent.ask(form_params(EVERY_TYPE)))
    assert frame["result"]["content"] == {"name": "Ada", "rating": 4.5, "subscribe": True, "size": "M", "pets": ["dog"]}


async def test_an_answer_that_does_not_match_the_schema_is_never_sent(agent: Agent) -> None:
    agent.asker.form_scripts.append(answer(FormAccepted({"years": "many", "bogus": 1})))
    frame = await agent.answer(agent.ask(form_params(EVERY_TYPE)))
    assert frame["result"] == {"action": "cancel"}
    assert any("does not match its schema" in p for p in agent.problems)


@pytest.mark.parametrize(("outcome", "action"), [(Declined(), "decline"), (Cancelled(), "cancel")])
async def test_decline_and_cancel(agent: Agent, outcome: Any, action: str) -> None:
    agent.asker.form_scripts.append(answer(outcome))
    frame = await agent.answer(agent.ask(form_params(EVERY_TYPE)))
    assert frame["result"] == {"action": action}


async def test_cancel_request_answers_cancel_once_and_withdraws_the_dialog(agent: Agent) -> None:
    request_id = agent.ask(form_params(EVERY_TYPE), request_id="str-id")
    await agent.until_asked()
    agent.notify(CANCEL_REQUEST_METHOD, {"requestId": request_id})
    frame = await agent.answer(request_id)
    assert frame["result"] == {"action": "cancel"}  # a result, not -32800: the question was withdrawn
    await asyncio.sleep(0.01)
    assert agent.asker.withdrawn == [request_id] and agent.service.asking == []


async def test_turn_cancel_cancels_session_questions_but_not_those_before_a_session(agent: Agent) -> None:
    in_session = agent.ask(form_params(EVERY_TYPE))
    params = form_params(EVERY_TYPE)
    del params["sessionId"]
    before = agent.ask({**params, "requestId": 3})
    await agent.until_asked(2)
    agent.service.turn_cancelled()
    assert (await agent.answer(in_session))["result"] == {"action": "cancel"}
    assert agent.answers(before) == [] and [q.request_id for q in agent.service.asking] == [before]
    assert agent.asker.forms[1].before_session
    await agent.service.close()
    assert (await agent.answer(before))["result"] == {"action": "cancel"}
    assert sorted(map(str, agent.asker.withdrawn)) == sorted(map(str, [in_session, before]))


async def test_an_asker_that_answers_after_the_turn_was_cancelled_is_ignored(agent: Agent) -> None:
    release = asyncio.Event()

    async def slow(question: FormQuestion) -> FormOutcome:
        await asyncio.shield(release.wait())
        return FormAccepted({})

    agent.asker.form_scripts.append(slow)
    request_id = agent.ask(form_params(EVERY_TYPE))
    await agent.until_asked()
    agent.service.turn_cancelled()
    release.set()
    assert (await agent.answer(request_id))["result"] == {"action": "cancel"}


async def test_a_failing_asker_still_gives_one_answer(agent: Agent) -> None:
    async def broken(question: FormQuestion) -> FormOutcome:
        raise RuntimeError("no screen")

    agent.asker.form_scripts.append(broken)
    assert (await agent.answer(agent.ask(form_params(EVERY_TYPE))))["result"] == {"action": "cancel"}
    assert any("RuntimeError: no screen" in p for p in agent.problems)


async def test_the_agent_going_away_ends_the_question_without_an_answer(agent: Agent) -> None:
    request_id = agent.ask(form_params(EVERY_TYPE))
    await agent.until_asked()
    agent.transport.close()
    await asyncio.sleep(0.05)
    assert agent.answers(request_id) == [] and agent.asker.withdrawn == [request_id]
    await agent.service.close()  # idempotent after the connection ended
    await agent.service.close()


async def test_two_hundred_fields(agent: Agent) -> None:
    properties = {f"field_{n:03}": {"type": "integer", "title": f"Field {n}", "default": n} for n in range(200)}
    agent.asker.form_scripts.append(fill({"field_199": "-1"}))
    frame = await agent.answer(agent.ask(form_params(properties, list(properties))))
    content = frame["result"]["content"]
    assert len(content) == 200 and content["field_000"] == 0 and content["field_199"] == -1
    assert len(agent.asker.forms[0].form.fields) == 200


# --- refusals and protocol problems ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "properties",
    [
        {"address": {"type": "object", "properties": {"street": {"type": "string"}}}},
        {"colour": {"type": "_vendor/colour"}},
        {"tags": {"type": "array", "items": {"type": "number"}}},
    ],
    ids=["nested", "custom-type", "unknown-items"],
)
async def test_a_schema_we_cannot_render_is_refused_clearly(agent: Agent, properties: dict[str, Any]) -> None:
    params = form_params({"ok": {"type": "string"}, **properties})
    request_id = agent.ask(params)
    frame = await agent.answer(request_id)
    assert frame["error"]["code"] == -32602
    assert "cannot show that form" in frame["error"]["message"]
    assert frame["error"]["data"]["unsupported"]
    assert agent.asker.forms == []  # never rendered
    (refusal,) = agent.asker.refusals
    assert refusal.request_id == request_id and json.loads(refusal.raw) == params
    assert list(agent.service.refused) == [refusal]
    assert agent.problems == []  # a legitimate request we cannot show is no protocol problem


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"sessionId": "s1", "message": "m", "mode": "_vendor/voice"}, "does not advertise"),
        ({"sessionId": "s1", "mode": "form", "requestedSchema": {"type": "object", "properties": {}}}, "malformed"),
        ({"message": "m", "mode": "url", "elicitationId": "e", "url": "https://x.test"}, "malformed"),
        ({**url_params(), "sessionId": "someone-else"}, "unknown session"),
    ],
    ids=["unknown-mode", "no-message", "no-scope", "other-session"],
)
async def test_bad_requests_get_invalid_params_and_a_noted_problem(
    agent: Agent, params: dict[str, Any], problem: str
) -> None:
    frame = await agent.answer(agent.ask(params))
    assert frame["error"]["code"] == -32602
    assert any(problem in p for p in agent.problems), agent.problems


async def test_unadvertised_modes_are_refused() -> None:
    asker = ScriptedAsker()
    agent = Agent(2, ElicitationService(asker, form=True, url=False), asker)
    assert agent.service.capabilities().v2 == {"elicitation": {"form": {}}}
    frame = await agent.answer(agent.ask(url_params()))
    assert frame["error"]["code"] == -32602 and asker.urls == []
    agent.validate_sent()


async def test_hostile_text_reaches_the_asker_sanitised(agent: Agent) -> None:
    hostile = "[red]x[/] \x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\ \x1b]52;c;aGk=\x07 \u202eevil"
    params = form_params({"f": {"type": "string", "title": hostile, "description": hostile}})
    params["message"] = hostile
    params["requestedSchema"]["title"] = hostile
    agent.asker.form_scripts.append(answer(Declined()))
    await agent.answer(agent.ask(params))
    question = agent.asker.forms[0]
    for text in (
        question.message,
        question.form.title,
        question.form.fields[0].label,
        question.form.fields[0].description,
    ):
        assert text == "[red]x[/] link  evil", repr(text)


# --- URLs ------------------------------------------------------------------------------------------------


async def test_url_accept_then_complete_closes_the_waiting_state(agent: Agent) -> None:
    agent.asker.url_scripts.append(answer(UrlAccepted("open")))
    frame = await agent.answer(agent.ask(url_params()))
    assert frame["result"] == {"action": "accept"}  # consent to open, not completion
    question = agent.asker.urls[0]
    assert question.view.host == "auth.example.com" and question.view.can_open
    assert list(agent.service.waiting) == ["login-1"] and not question.done.is_set()
    agent.notify("elicitation/complete", {"elicitationId": "login-1"})
    await asyncio.wait_for(question.done.wait(), 5)
    assert question.completed and agent.service.waiting == {}
    agent.notify("elicitation/complete", {"elicitationId": "login-1"})  # again: ignored quietly
    await asyncio.sleep(0.01)
    assert agent.problems == []


async def test_complete_for_an_unknown_id_is_a_noted_problem_not_an_error(agent: Agent) -> None:
    agent.notify("elicitation/complete", {"elicitationId": "nobody"})
    agent.notify("elicitation/complete", {"elicitationId": 5})
    await asyncio.sleep(0.01)
    assert any("unknown elicitation id 'nobody'" in p for p in agent.problems)
    assert any("malformed elicitation/complete" in p for p in agent.problems)
    assert agent.transport.sent == []  # a notification is never answered


async def test_complete_before_the_user_answers_withdraws_the_question(agent: Agent) -> None:
    request_id = agent.ask(url_params())
    await agent.until_asked()
    agent.notify("elicitation/complete", {"elicitationId": "login-1"})
    assert (await agent.answer(request_id))["result"] == {"action": "cancel"}
    question = agent.asker.urls[0]
    assert question.completed and question.done.is_set() and agent.asker.withdrawn == [request_id]


async def test_a_duplicate_elicitation_id_is_refused_and_complete_ends_only_the_first(agent: Agent) -> None:
    first = agent.ask(url_params("dup"))
    await agent.until_asked()
    second = agent.ask(url_params("dup"))  # same id while the first is asked
    refused = await agent.answer(second)
    assert refused["error"]["code"] == -32602 and "'dup'" in refused["error"]["message"]
    assert len(agent.asker.urls) == 1 and any("duplicate elicitation id 'dup'" in p for p in agent.problems)
    agent.notify("elicitation/complete", {"elicitationId": "dup"})
    assert (await agent.answer(first))["result"] == {"action": "cancel"}
    assert agent.asker.withdrawn == [first] and agent.service.asking == []


async def test_a_duplicate_of_a_waiting_elicitation_id_is_refused(agent: Agent) -> None:
    agent.asker.url_scripts.append(answer(UrlAccepted("open")))
    assert (await agent.answer(agent.ask(url_params("dup"))))["result"] == {"action": "accept"}
    refused = await agent.answer(agent.ask(url_params("dup")))
    assert refused["error"]["code"] == -32602 and len(agent.asker.urls) == 1
    agent.notify("elicitation/complete", {"elicitationId": "dup"})
    await asyncio.wait_for(agent.asker.urls[0].done.wait(), 5)
    # finished: the id may be used again
    agent.asker.url_scripts.append(answer(Declined()))
    assert (await agent.answer(agent.ask(url_params("dup"))))["result"] == {"action": "decline"}


@pytest.mark.parametrize(("outcome", "action"), [(Declined(), "decline"), (Cancelled(), "cancel")])
async def test_url_decline_and_cancel_finish_at_once(agent: Agent, outcome: Any, action: str) -> None:
    agent.asker.url_scripts.append(answer(outcome))
    assert (await agent.answer(agent.ask(url_params())))["result"] == {"action": action}
    assert agent.asker.urls[0].done.is_set() and agent.service.waiting == {}


async def test_turn_cancel_ends_waiting_urls(agent: Agent) -> None:
    agent.asker.url_scripts.append(answer(UrlAccepted("copy")))
    await agent.answer(agent.ask(url_params()))
    agent.service.turn_cancelled()
    assert agent.asker.urls[0].done.is_set() and not agent.asker.urls[0].completed


@pytest.mark.parametrize(
    "url",
    [
        "https://good.example.com\u202e/moc.live",
        "https://example.com/\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\",
        "https://example.com/\x1b]52;c;aGk=\x07",
        "javascript:alert(1)",
    ],
)
async def test_hostile_urls_are_described_safely_and_kept_exact(agent: Agent, url: str) -> None:
    agent.asker.url_scripts.append(answer(Declined()))
    await agent.answer(agent.ask(url_params(url=url)))
    question = agent.asker.urls[0]
    assert question.url == url  # what copy would use, exactly as sent
    shown = "".join(text for text, _ in question.view.segments)
    assert not any(ch in shown for ch in "\x1b\x07\u202e")
    assert not question.view.can_open and question.view.warnings


# --- wired into AgentSession ------------------------------------------------------------------------------


class Problems:
    """A `SessionListener` keeping the protocol problems the session reports (`ProblemAdded`)."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def session_event(self, session: AgentSession, event: SessionEvent) -> None:
        if isinstance(event, ModelChanged):
            self.reasons.extend(change.reason for change in event.changes if isinstance(change, ProblemAdded))


@pytest.mark.parametrize("version", [2, 1])
async def test_agent_session_advertises_answers_and_follows_complete(version: int, tmp_path: Path) -> None:
    """End to end with the scripted agent: capabilities in `initialize`, a form, a URL and its completion."""
    form = form_params({"name": {"type": "string", "default": "Ada"}})
    form["sessionId"] = "$SESSION"
    url = {**url_params(), "sessionId": "$SESSION"}
    script = {
        "version": version,
        "turns": [
            {
                "steps": [
                    {"op": "request", "id": "f1", "method": "elicitation/create", "params": form, "wait": True},
                    {"op": "request", "id": "u1", "method": "elicitation/create", "params": url, "wait": True},
                    {
                        "op": "send",
                        "message": {
                            "jsonrpc": "2.0",
                            "method": "elicitation/complete",
                            "params": {"elicitationId": "login-1"},
                        },
                    },
                    {"op": "respond_prompt", "stopReason": "end_turn"},
                    {"op": "state", "state": "idle", "stopReason": "end_turn"},
                ]
            }
        ],
    }
    (tmp_path / "script.json").write_text(json.dumps(script))
    record = tmp_path / "record.jsonl"
    asker = ScriptedAsker()
    asker.form_scripts.append(fill())
    asker.url_scripts.append(answer(UrlAccepted("open")))
    service = ElicitationService(asker)
    problems = Problems()
    session = AgentSession(
        [sys.executable, str(SCRIPTED_AGENT), str(tmp_path / "script.json"), "--record", str(record)],
        cwd=tmp_path,
        services=[service],
        listener=problems,
    )
    try:
        await asyncio.wait_for(session.start(), 20)
        await session.prompt([codec.text_block("go")])
        await asyncio.wait_for(_until(lambda: len(asker.urls) == 1 and asker.urls[0].done.is_set()), 20)
        sent = [json.loads(line) for line in record.read_text().splitlines()]
    finally:
        await session.shutdown()
    init = sent[0]["params"]
    assert init["capabilities"]["elicitation"] == {"form": {}, "url": {}}
    assert init["clientCapabilities"]["elicitation"] == {"form": {}, "url": {}}
    answers = {msg["id"]: msg for msg in sent if msg.get("id") in ("f1", "u1")}
    assert answers["f1"]["result"] == {"action": "accept", "content": {"name": "Ada"}}
    assert answers["u1"]["result"] == {"action": "accept"}
    assert asker.urls[0].completed
    for msg in answers.values():
        validate_client_message(msg, version, answering="elicitation/create")
    assert problems.reasons == []


async def _until(condition: Callable[[], bool]) -> None:
    await until(condition)


def test_capabilities_merge_into_a_valid_initialize() -> None:
    caps = merge_capabilities([ElicitationService(ScriptedAsker())])
    params = msgspec.to_builtins(codec.build_initialize(caps.v2, caps.v1))
    validate_client_message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, 2)
    v1_params = {
        "protocolVersion": 1,
        "clientInfo": params["clientInfo"],
        "clientCapabilities": params["clientCapabilities"],
    }
    validate_client_message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": v1_params}, 1)
    assert (
        params["capabilities"]["elicitation"] == params["clientCapabilities"]["elicitation"] == {"form": {}, "url": {}}
    )
