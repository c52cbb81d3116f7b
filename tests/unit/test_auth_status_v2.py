"""The unstable v2 schema's `auth/status` and `auth/status_update` (session/account.py `decode_auth_state`,
services/account.py): asked once after `initialize` where `capabilities.auth.status` is advertised, its
pushes followed, the account shown as Claude's `_auth/status_update` is; nothing asked or taken elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.protocol import codec
from acp_tui.services.account import AccountService
from acp_tui.session.account import decode_auth_state
from tests.support.agents import scripted_agent_argv
from tests.support.auth_status import ANSWER, SIGNED_OUT, push, script
from tests.support.wait import until

pytestmark = pytest.mark.timeout(60)


def test_the_active_account_is_the_one_shown() -> None:
    account = decode_auth_state(ANSWER)
    assert account is not None and not account.signed_out
    assert (account.kind, account.label, account.detail) == ("authenticated", "ChatGPT Pro", "Ada")
    assert account.summary == "ChatGPT Pro · ada@example.com" and account.organization == "AE"
    first = decode_auth_state({"state": "authenticated", "accounts": [{"label": "Vertex AI"}, {"label": "Other"}]})
    assert first is not None and first.label == "Vertex AI"


def test_without_accounts_the_state_speaks() -> None:
    out = decode_auth_state(SIGNED_OUT)
    assert out is not None and out.signed_out and out.label == "Not signed in"
    local = decode_auth_state({"state": "not_required", "accounts": []})
    assert local is not None and local.label == "No sign-in needed" and not local.signed_out
    future = decode_auth_state({"state": "_vendor_sso\x1b[2J"})
    assert future is not None and "\x1b" not in future.label and not future.signed_out


@pytest.mark.parametrize("params", [None, [], {}, {"state": 3}, {"state": ""}, {"accounts": [ANSWER]}])
def test_an_unreadable_state_is_none(params: Any) -> None:
    assert decode_auth_state(params) is None


def test_unreadable_accounts_are_skipped_and_a_huge_list_read_only_so_far() -> None:
    skipped = decode_auth_state({"state": "authenticated", "accounts": [7, {"label": ""}, {"label": "Key"}]})
    assert skipped is not None and skipped.label == "Key"
    huge = [{"label": "x"}] * 1_000_000 + [{"label": "late", "active": True}]
    account = decode_auth_state({"state": "authenticated", "accounts": huge})
    assert account is not None and account.label == "x"


async def start(tmp_path: Path, agent: dict[str, Any]) -> AgentSession:
    (tmp_path / "script.json").write_text(json.dumps(agent), encoding="utf-8")
    record = tmp_path / "record.jsonl"
    session = AgentSession(
        scripted_agent_argv(tmp_path / "script.json", record), cwd=tmp_path, services=[AccountService()]
    )
    await session.start()
    return session


def sent(tmp_path: Path, method: str) -> list[dict[str, Any]]:
    lines = (tmp_path / "record.jsonl").read_text(encoding="utf-8").splitlines()
    return [m for m in map(json.loads, lines) if m.get("method") == method]


async def test_asked_once_after_initialize_and_the_push_followed(tmp_path: Path) -> None:
    session = await start(tmp_path, script(answer=ANSWER))
    try:
        await until(lambda: session.state.account.account is not None, "the account")
        assert session.state.account.account is not None
        assert session.state.account.account.summary == "ChatGPT Pro · ada@example.com"
        [asked] = sent(tmp_path, "auth/status")
        assert asked["params"] == {} and "id" in asked
        await session.prompt([codec.text_block("logout")])
        await until(lambda: bool(session.state.account.account and session.state.account.account.signed_out), "out")
        await session.new_session()  # bound again: not asked again on the same connection
        assert len(sent(tmp_path, "auth/status")) == 1
        assert session.state.problem_count == 0, list(session.state.problems)
    finally:
        await session.shutdown()


async def test_an_error_answer_leaves_it_unknown_and_says_so_once(tmp_path: Path) -> None:
    session = await start(tmp_path, script(answer=None))
    try:
        await until(lambda: session.state.problem_count == 1, "the problem")
        assert session.state.account.account is None
        [problem] = session.state.problems
        assert problem.reason == "unreadable auth/status" and "keychain locked" in problem.detail
    finally:
        await session.shutdown()


async def test_not_advertised_nothing_is_asked_and_a_push_is_not_taken(tmp_path: Path) -> None:
    agent = script(offered=False, answer=ANSWER)
    agent["after_session_new"] = [push(ANSWER)]
    session = await start(tmp_path, agent)
    try:
        await session.prompt([codec.text_block("logout")])
        await until(lambda: session.state.foreground.state == "idle" and session.state.turn == 1, "the turn")
        assert sent(tmp_path, "auth/status") == []
        assert session.state.account.account is None and not session.state.account.reported
    finally:
        await session.shutdown()
