"""F4 ("About the agent") says the last turn's tokens where the agent reports them: codex-acp's `_meta.quota`
on its v1 `session/prompt` result (tests/unit/test_codex_quota.py has the shape); the status bar shows no
meter for them, since they are no plan window."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.widgets.limit_meter import token_lines
from tests.support.app_run import running_app, screen_text
from tests.support.codex import CODEX_RESULT

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


@pytest.mark.asyncio
async def test_f4_ends_with_the_last_turns_tokens_and_no_meter_shows(tmp_path: Path, private_dirs: None) -> None:
    turn = {"steps": [{"op": "respond_prompt", "result": CODEX_RESULT}]}
    async with running_app(tmp_path, {"version": 1, "turns": [turn]}, size=(80, 24)) as run:
        await run.send("hello")
        await run.idle()
        state = run.chat.controller.state
        await run.wait(lambda: state.turn_tokens is not None, "the turn's tokens")
        lines = token_lines(state.turn_tokens)
        assert lines == ("Last turn: 2,500 tokens (1,500 in, 500 cached, 450 out, 50 reasoning) · gpt-5-codex",)
        assert run.chat.config.tools[-1:] == lines
        assert not run.chat.status.values.limits
        assert "2,500" not in screen_text(run)
