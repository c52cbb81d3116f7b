"""codex-acp's `_meta.quota` on a v1 `session/prompt` result: the last exchange's tokens, in all and per model
(session/account.py, docs/protocol.md §10.7). The shape is codex-acp's own: its `src/QuotaMeta.ts` and
`buildQuotaMeta`, and the `_meta` of its test data `token-usage-end-turn.json` and `token-usage-null.json`.
It is kept per session and shown on F4, never as a plan window; an unreadable one is said once and ignored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.protocol import codec
from acp_tui.session.account import MAX_MODELS, decode_quota
from acp_tui.session.changes import AccountChanged, ProblemAdded
from acp_tui.session.local_events import TurnTokensReported
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply
from acp_tui.ui.widgets.limit_meter import meter, token_lines
from tests.support.agents import scripted_agent_argv
from tests.support.codex import CODEX_RESULT, COUNT
from tests.support.schema_check import validate_agent_message
from tests.support.wait import until

pytestmark = pytest.mark.timeout(60)


def test_codexs_quota_decodes_to_the_turns_tokens() -> None:
    tokens = decode_quota(CODEX_RESULT["_meta"]["quota"])
    assert tokens is not None and tokens.total is not None
    assert tokens.total.figures == (2500, 1500, 500, 450, 50)
    assert [(model, count.figures) for model, count in tokens.models] == [("gpt-5-codex", tokens.total.figures)]
    empty = decode_quota({"token_count": None, "model_usage": []})  # token-usage-null.json: no exchange yet
    assert empty is not None and empty.total is None and empty.models == ()


@pytest.mark.parametrize(
    "value",
    [
        "2500",
        {},
        {"model_usage": []},
        {"token_count": {"inputTokens": 1}},
        {"token_count": {**COUNT, "outputTokens": -1}},
        {"token_count": {**COUNT, "totalTokens": True}},
        {"token_count": {**COUNT, "totalTokens": 1e30}},
        {"token_count": COUNT, "model_usage": {"gpt": COUNT}},
        {"token_count": COUNT, "model_usage": [{"model": "", "token_count": COUNT}]},
        {"token_count": COUNT, "model_usage": [{"model": "m", "token_count": "lots"}]},
    ],
)
def test_an_unreadable_quota_is_none(value: Any) -> None:
    assert decode_quota(value) is None


def test_models_are_capped_and_their_names_cleaned() -> None:
    models = [{"model": f"m{n}\x1b[31m", "token_count": COUNT} for n in range(MAX_MODELS * 100)]
    tokens = decode_quota({"token_count": COUNT, "model_usage": models})
    assert tokens is not None and len(tokens.models) == MAX_MODELS
    assert all("\x1b" not in model for model, _ in tokens.models)


def test_the_reducer_keeps_the_last_turns_tokens_and_says_a_bad_one_once() -> None:
    state = SessionState()
    assert isinstance(apply(state, TurnTokensReported(decode_quota(CODEX_RESULT["_meta"]["quota"])))[0], AccountChanged)
    assert state.turn_tokens is not None
    assert isinstance(apply(state, TurnTokensReported(None, "'x'"))[0], ProblemAdded)
    assert apply(state, TurnTokensReported(None, "'x'")) == []
    assert state.turn_tokens is not None  # an unreadable report keeps what was known
    assert meter(state.account) is None  # token counts are no plan window: no meter


def test_f4_says_the_tokens_in_words() -> None:
    one = decode_quota(CODEX_RESULT["_meta"]["quota"])
    expected = "Last turn: 2,500 tokens (1,500 in, 500 cached, 450 out, 50 reasoning) · gpt-5-codex"
    assert token_lines(one) == (expected,)
    small = {"totalTokens": 10, "outputTokens": 10}
    two = decode_quota(
        {
            "token_count": COUNT,
            "model_usage": [{"model": "a", "token_count": COUNT}, {"model": "b", "token_count": small}],
        }
    )
    assert token_lines(two)[1:] == (
        "Last turn, a: 2,500 tokens (1,500 in, 500 cached, 450 out, 50 reasoning)",
        "Last turn, b: 10 tokens (10 out)",
    )
    assert token_lines(None) == () and token_lines(decode_quota({"token_count": None})) == ()


def test_codexs_result_is_a_valid_v1_prompt_result() -> None:
    validate_agent_message({"jsonrpc": "2.0", "id": 3, "result": CODEX_RESULT}, 1, answering="session/prompt")


async def test_a_v1_turns_result_brings_its_tokens_to_the_session(tmp_path: Path) -> None:
    bad = {**CODEX_RESULT, "_meta": {"quota": {"token_count": "many"}}}
    turns = [
        {"match": "first", "steps": [{"op": "respond_prompt", "result": CODEX_RESULT}]},
        {"match": "second", "steps": [{"op": "respond_prompt", "result": bad}]},
        {"match": "third", "steps": [{"op": "respond_prompt", "result": bad}]},
    ]
    (tmp_path / "script.json").write_text(json.dumps({"version": 1, "turns": turns}), encoding="utf-8")
    session = AgentSession(scripted_agent_argv(tmp_path / "script.json"), cwd=tmp_path)
    try:
        await session.start()
        await session.prompt([codec.text_block("first")])
        await until(lambda: session.state.turn_tokens is not None, "the turn's tokens")
        assert session.state.turn_tokens is not None and session.state.turn_tokens.total is not None
        assert session.state.turn_tokens.total.total == 2500
        await until(lambda: session.state.foreground.state == "idle", "the first turn's end")
        for turn, word in enumerate(("second", "third"), start=2):
            await session.prompt([codec.text_block(word)])
            await until(lambda: session.state.turn == turn and session.state.foreground.state == "idle", word)
        assert [p.reason for p in session.state.problems] == ["unreadable _meta.quota in the session/prompt result"]
        assert session.state.turn_tokens.total.total == 2500  # kept
    finally:
        await session.shutdown()
