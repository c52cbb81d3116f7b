"""The account and the plan's windows (session/account.py): decoded, reduced, and fed by the agent.

Shapes as Claude's ACP adapter 0.101 sends them (its `auth-status.js` and the `rate_limit_event` case of
`acp-agent.js`, read in the installed package): `_auth/status_update {authStatus}` and
`usage_update._meta["_claude/rateLimit"]`. Hostile or unknown shapes are ignored and said once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.agent.session import AgentSession
from acp_tui.protocol import codec
from acp_tui.services.account import AccountService
from acp_tui.session.account import MAX_TEXT, MAX_WINDOWS, decode_auth_status, decode_rate_limit
from acp_tui.session.changes import AccountChanged, ProblemAdded, UsageChanged
from acp_tui.session.local_events import AccountReported
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply
from tests.support.agents import scripted_agent_argv
from tests.support.wait import until

pytestmark = pytest.mark.timeout(60)

CLAUDE_MAX = {
    "authStatus": {
        "kind": "account",
        "label": "Claude Max",
        "account": {"plan": "max", "email": "ada@example.com", "organization": "Analytical Engines"},
    }
}


def usage(meta: Any) -> Any:
    update = {"sessionUpdate": "usage_update", "used": 10, "size": 100, "_meta": meta}
    _session, decoded = codec.decode_update(json.dumps({"sessionId": "s", "update": update}).encode(), 1)
    return decoded


def window(**fields: Any) -> dict[str, Any]:
    return {"_claude/rateLimit": {"status": "allowed", **fields}}


def test_claudes_auth_status_decodes_to_an_account() -> None:
    account = decode_auth_status(CLAUDE_MAX)
    assert account is not None
    assert (account.kind, account.label, account.plan) == ("account", "Claude Max", "max")
    assert account.summary == "Claude Max · ada@example.com" and account.organization == "Analytical Engines"
    key = decode_auth_status({"authStatus": {"kind": "api_key", "label": "Anthropic API key", "detail": "env"}})
    assert key is not None and key.summary == "Anthropic API key · env"
    none = decode_auth_status({"authStatus": {"kind": "none", "label": "Not logged in"}})
    assert none is not None and none.signed_out


@pytest.mark.parametrize(
    "params",
    [None, [], {"authStatus": "x"}, {"authStatus": {"kind": "account"}}, {"authStatus": {"kind": 1, "label": "x"}}],
)
def test_unreadable_auth_status_is_none(params: Any) -> None:
    assert decode_auth_status(params) is None


def test_agent_text_in_an_account_is_sanitized_and_capped() -> None:
    hostile = {"authStatus": {"kind": "account", "label": "\x1b]0;pwned\x07Claude\u202e " + "x" * 500}}
    account = decode_auth_status(hostile)
    assert account is not None
    assert "\x1b" not in account.label and "\u202e" not in account.label
    assert len(account.label) == MAX_TEXT and account.label.endswith("…")


def test_rate_limit_windows_decode_with_their_ranges_checked() -> None:
    five = decode_rate_limit(
        {"status": "allowed", "rateLimitType": "five_hour", "utilization": 0.42, "resetsAt": 1.8e9}
    )
    assert five is not None and (five.name, five.percent, five.near_limit) == ("5h", 42, False)
    assert five.resets_at == 1.8e9
    near = decode_rate_limit({"status": "allowed_warning", "rateLimitType": "seven_day", "utilization": 0.5})
    assert near is not None and near.near_limit  # the status says so, whatever the share
    full = decode_rate_limit({"status": "allowed", "rateLimitType": "seven_day", "utilization": 0.8})
    assert full is not None and full.near_limit and full.percent == 80
    odd = decode_rate_limit({"status": "allowed", "utilization": float("nan"), "resetsAt": -5, "rateLimitType": 3})
    assert odd is not None and (odd.utilization, odd.resets_at, odd.kind) == (None, None, "plan")
    assert decode_rate_limit({"utilization": 0.3}) is None
    assert decode_rate_limit("allowed") is None
    assert decode_rate_limit({"status": "allowed", "utilization": True}).utilization is None  # type: ignore[union-attr]


def test_the_reducer_keeps_each_window_until_its_next_report() -> None:
    state = SessionState()
    changes = apply(state, usage(window(rateLimitType="five_hour", utilization=0.42)))
    assert AccountChanged() in changes
    apply(state, usage(window(rateLimitType="seven_day", utilization=0.81)))
    apply(state, usage(window(rateLimitType="five_hour", utilization=0.5)))
    assert list(state.account.windows) == ["five_hour", "seven_day"]
    assert state.account.windows["five_hour"].percent == 50
    assert state.usage is not None and state.usage.used == 10  # the usage itself is still the usage
    assert apply(state, usage({"other": 1})) == [UsageChanged()]  # no window: only the usage


def test_the_unified_windows_of_one_report_are_each_kept() -> None:
    # the shape Claude's adapter 0.101 sends (tests/peers/test_claude_rate_limits.py records it)
    unified = {
        "five_hour": {"utilization": 0.91, "resetsAt": 1.8e9, "status": "allowed_warning"},
        "seven_day": {"utilization": 0.3, "resetsAt": 1.9e9},
        "nonsense": "not a window",
        "bad": {"utilization": "lots"},
    }
    state = SessionState()
    apply(state, usage(window(status="allowed_warning", rateLimitType="five_hour", unifiedWindows=unified)))
    assert list(state.account.windows) == ["five_hour", "seven_day", "bad"]
    seven = state.account.windows["seven_day"]
    assert (seven.status, seven.percent, seven.resets_at, seven.near_limit) == ("allowed", 30, 1.9e9, False)
    assert state.account.windows["bad"].utilization is None  # an unreadable figure: the window without one
    five = state.account.windows["five_hour"]
    assert five.near_limit and five.status == "allowed_warning"
    hostile = {f"w{index}": {"utilization": 0.1} for index in range(MAX_WINDOWS * 4)}
    apply(state, usage(window(rateLimitType="five_hour", unifiedWindows=hostile)))
    assert len(state.account.windows) == MAX_WINDOWS
    assert state.problem_count == 1  # the cap said once


def test_an_unreadable_window_is_said_once_and_nothing_is_kept() -> None:
    state = SessionState()
    first = apply(state, usage({"_claude/rateLimit": "rejected"}))
    second = apply(state, usage({"_claude/rateLimit": {"no": "status"}}))
    assert sum(isinstance(c, ProblemAdded) for c in first + second) == 1
    assert not state.account.windows and not state.account.reported


def test_windows_are_capped() -> None:
    state = SessionState()
    for index in range(MAX_WINDOWS + 5):
        apply(state, usage(window(rateLimitType=f"w{index}", utilization=0.1)))
    assert len(state.account.windows) == MAX_WINDOWS
    assert state.problem_count == 1


def test_account_reported_replaces_the_account_and_a_bad_one_is_said_once() -> None:
    state = SessionState()
    assert apply(state, AccountReported(decode_auth_status(CLAUDE_MAX))) == [AccountChanged()]
    assert state.account.account is not None and state.account.account.label == "Claude Max"
    assert isinstance(apply(state, AccountReported(None, "{}"))[0], ProblemAdded)
    assert apply(state, AccountReported(None, "{}")) == []
    assert state.account.account is not None  # an unreadable push keeps what was known


async def test_the_account_service_follows_the_agents_push(tmp_path: Path) -> None:
    notification = {"jsonrpc": "2.0", "method": "_auth/status_update", "params": CLAUDE_MAX}
    bad = {"jsonrpc": "2.0", "method": "_auth/status_update", "params": {"authStatus": 7}}
    script = {
        "version": 1,
        "after_session_new": [{"op": "send", "message": bad}, {"op": "send", "message": notification}],
    }
    (tmp_path / "script.json").write_text(json.dumps(script), encoding="utf-8")
    session = AgentSession(scripted_agent_argv(tmp_path / "script.json"), cwd=tmp_path, services=[AccountService()])
    try:
        await session.start()
        await until(lambda: session.state.account.account is not None, "the account")
        assert session.state.account.account is not None
        assert session.state.account.account.summary == "Claude Max · ada@example.com"
        assert [p.reason for p in session.state.problems] == ["unreadable _auth/status_update"]
    finally:
        await session.shutdown()


def test_the_account_service_advertises_nothing() -> None:
    service = AccountService()
    caps = service.capabilities()
    assert (dict(caps.v1), dict(caps.v2), dict(service.methods())) == ({}, {}, {})
    assert list(service.notifications()) == ["_auth/status_update", "auth/status_update"]
    service.notifications()["_auth/status_update"](msgspec.Raw(b"{}"))  # before bind: ignored, no crash


async def test_the_account_stays_across_a_new_session_on_the_same_connection(tmp_path: Path) -> None:
    notification = {"jsonrpc": "2.0", "method": "_auth/status_update", "params": CLAUDE_MAX}
    turn = [{"op": "send", "message": notification}, {"op": "respond_prompt"}, {"op": "user_message"}]
    script = {"version": 2, "turns": [{"match": "hi", "steps": turn}]}  # said once, in the first session only
    (tmp_path / "script.json").write_text(json.dumps(script), encoding="utf-8")
    session = AgentSession(scripted_agent_argv(tmp_path / "script.json"), cwd=tmp_path, services=[AccountService()])
    try:
        await session.start()
        await session.prompt([codec.text_block("hi")])
        await until(lambda: session.state.account.account is not None, "the account")
        first = session.state
        await session.new_session()
        await until(lambda: session.state is not first, "the new session")
        assert session.state.account.account is not None
        assert session.state.account.account.label == "Claude Max"
    finally:
        await session.shutdown()
