"""The plan's limits as Claude's ACP adapter 0.101 really reports them, with the loopback model.

The Claude CLI reads a subscription's limits from the model API's `anthropic-ratelimit-unified-*` response
headers only for a claude.ai (OAuth) login: its header reader returns early unless `vt()` — an OAuth
token with the `user:inference` scope and no API key or `ANTHROPIC_AUTH_TOKEN` — holds. An offline
`CLAUDE_CODE_OAUTH_TOKEN` is such a login (the CLI never checks the token itself), so the mock model
answers with the headers and the CLI emits its `rate_limit_event`; the adapter forwards it as
`usage_update._meta["_claude/rateLimit"]` after the turn's first assistant message (its `rate_limit_event`
case in acp-agent.js sends nothing while `lastAssistantTotalUsage` is null). Recorded from 0.101.0:

    {"sessionUpdate": "usage_update", "used": 22, "size": 1000000, "_meta": {"_claude/rateLimit":
     {"status": "allowed_warning", "resetsAt": …, "rateLimitType": "five_hour", "utilization": 0.91,
      "isUsingOverage": false, "surpassedThreshold": 0.9, "unifiedWindows": {
        "five_hour": {"utilization": 0.91, "resetsAt": …, "status": "allowed_warning", "surpassedThreshold": 0.9},
        "seven_day": {"utilization": 0.3, "resetsAt": …, "status": "allowed"}}},
     "_claude/model": "claude-sonnet-5-5"}}
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal

import pytest

from acp_tui.controller.controller import SessionController
from acp_tui.session.account import RATE_LIMIT_META
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.limit_meter import account_lines, meter
from tests.support.app_run import AppRun, screen_text
from tests.support.claude import _launch, serve_mock_model
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.schema_check import validate_client_message
from tests.support.wait import until

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


def plan_headers(now: int) -> dict[str, str]:
    """What the API tells a subscription 91 % into its 5-hour window and 30 % into its week."""
    return {
        "anthropic-ratelimit-unified-status": "allowed",
        "anthropic-ratelimit-unified-reset": str(now + 3600),
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "anthropic-ratelimit-unified-5h-status": "allowed_warning",
        "anthropic-ratelimit-unified-5h-utilization": "0.91",
        "anthropic-ratelimit-unified-5h-reset": str(now + 3600),
        "anthropic-ratelimit-unified-5h-surpassed-threshold": "0.9",
        "anthropic-ratelimit-unified-7d-status": "allowed",
        "anthropic-ratelimit-unified-7d-utilization": "0.3",
        "anthropic-ratelimit-unified-7d-reset": str(now + 5 * 86400),
    }


def frames(trace: Path, direction: str) -> list[dict[str, Any]]:
    lines = trace.read_text(encoding="utf-8").splitlines() if trace.exists() else []
    records = [json.loads(line) for line in lines if line.strip()]
    return [r["msg"] for r in records if r["dir"] == direction and isinstance(r["msg"], dict)]


def rate_limits(trace: Path) -> list[dict[str, Any]]:
    """Every `_claude/rateLimit` the adapter sent."""
    found = []
    for frame in frames(trace, "<-"):
        update = (frame.get("params") or {}).get("update") or {}
        meta = update.get("_meta") if update.get("sessionUpdate") == "usage_update" else None
        if isinstance(meta, dict) and RATE_LIMIT_META in meta:
            found.append(meta[RATE_LIMIT_META])
    return found


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
async def test_claudes_plan_windows_reach_the_account_and_the_meter(
    tmp_path: Path,
    claude_adapter: list[str],
    protocol: Literal[1, 2],
) -> None:
    now = int(time.time())
    project = tmp_path / "src" / "project"
    trace = tmp_path / "wire.jsonl"
    with serve_mock_model(tmp_path, plan_headers(now)) as port:
        launch = _launch(claude_adapter, project, port, protocol, oauth_token="sk-ant-oat01-offline", log_path=trace)
        ctl = SessionController(launch, asker=ScriptedUser([]), listener=ControllerEvents())
        try:
            assert await ctl.start()
            assert ctl.submit("hello")
            windows = ctl.state.account.windows
            await until(lambda: {"five_hour", "seven_day"} <= set(windows), "both plan windows", timeout=60)
            await until(lambda: not ctl.busy, "the turn to end", timeout=60)
            assert ctl.state.problem_count == 0, list(ctl.state.problems)
        finally:
            await ctl.shutdown()
    reported = rate_limits(trace)
    assert reported, "the adapter sent no _claude/rateLimit"
    first = reported[0]
    assert (first["status"], first["rateLimitType"], first["utilization"]) == ("allowed_warning", "five_hour", 0.91)
    assert set(first["unifiedWindows"]) == {"five_hour", "seven_day"}
    five, seven = windows["five_hour"], windows["seven_day"]
    assert (five.percent, five.status, five.near_limit, five.resets_at) == (91, "allowed_warning", True, now + 3600)
    assert (seven.percent, seven.status, seven.near_limit) == (30, "allowed", False)
    # what the status bar shows of them (the meter the bar renders, ui/widgets/limit_meter.py)
    shown = meter(ctl.state.account)
    assert shown is not None and shown.warn
    assert (shown.text, shown.short) == ("5h 91% ⚠ 7d 30%", "5h 91% ⚠")
    sent = frames(trace, "->")
    assert any(frame.get("method") == "session/prompt" for frame in sent)
    for frame in sent:
        validate_client_message(frame, protocol)


@pytest.mark.timeout(180)
async def test_the_app_shows_claudes_plan_meter_with_its_warning(
    tmp_path: Path,
    claude_adapter: list[str],
) -> None:
    now = int(time.time())
    project = tmp_path / "src" / "project"
    with serve_mock_model(tmp_path, plan_headers(now)) as port:
        launch = _launch(claude_adapter, project, port, 2, oauth_token="sk-ant-oat01-offline")
        app = AcpApp(launch, arm_delay=0.1)
        async with app.run_test(size=(140, 45)) as pilot:
            run = AppRun(app, pilot, tmp_path / "no-record.jsonl")
            await run.wait(lambda: run.chat.status.values.state == "idle", "the adapter's session", timeout=60)
            await run.send("hello")
            await run.idle()
            await run.wait(lambda: run.chat.status.values.limits == "5h 91% ⚠ 7d 30%", "the meter", timeout=30)
            assert run.chat.status.values.limits_warn
            assert "5h 91% ⚠ 7d 30%" in screen_text(run).splitlines()[-1]
            # the account comes on its own schedule (the adapter asks the CLI's `auth status --json`, a process of
            # its own), so it may follow the meter: waited for, not assumed
            await run.wait(
                lambda: run.chat.controller.state.account.account is not None, "the adapter's account", timeout=30
            )
            lines = account_lines(run.chat.controller.state.account)
            # the adapter (auth-status.js `fromCliStatus`) maps the CLI's `auth status --json` for a bare token,
            # `{loggedIn: true, authMethod: "oauth_token"}` without `subscriptionType`, to "Not logged in"
            assert lines[0] == "Account: Not logged in"
            assert lines[-2].startswith("Limit 5h: 91% used (allowed warning), resets ") and lines[-2].endswith("⚠")
            assert lines[-1].startswith("Limit 7d: 30% used, resets ")
