"""Steering a running turn of Claude's ACP adapter (v1: its v2 `initialize` does not offer it), and the
account it pushes, with the loopback model: a `SLOWREPLY` prompt keeps the turn running for seconds.

It also pushes the account it runs as (`_auth/status_update`), over v1 and v2. The adapter advertises `_meta.steering.supported`; our `_session/steering` is injected into the running
turn, so the model's next request carries the steered words and the turn goes on with them; the prompt
shows in the conversation marked steered. Over v2 the adapter offers no steering and the prompt is queued.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from acp_tui.context import PromptSubmission
from acp_tui.controller.controller import SessionController
from acp_tui.session.model import AGENT_MESSAGE, USER_MESSAGE, Message
from tests.support.claude import _launch
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.wait import until

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


def messages(ctl: SessionController, kind: str) -> list[Message]:
    return [e for k, e in ctl.state.entities.items() if k[0] == kind and isinstance(e, Message)]


def model_heard(tmp_path: Path, words: str) -> bool:
    record = tmp_path / "model-requests.jsonl"
    return record.exists() and words in record.read_text(encoding="utf-8")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
async def test_a_running_claude_turn_is_steered(
    tmp_path: Path, claude_adapter: list[str], mock_model: int, protocol: Literal[1, 2]
) -> None:
    project = tmp_path / "src" / "project"
    events = ControllerEvents()
    ctl = SessionController(
        _launch(claude_adapter, project, mock_model, protocol), asker=ScriptedUser([]), listener=events
    )
    try:
        assert await ctl.start()
        assert ctl.steering.offered == (protocol == 1)
        assert ctl.submit("SLOWREPLY please")
        await until(lambda: any("word3" in m.text for m in messages(ctl, AGENT_MESSAGE)), "the slow answer", timeout=60)
        # the adapter pushes the account it runs as (`_auth/status_update`): here the API key from the env
        await until(lambda: ctl.state.account.account is not None, "the account", timeout=60)
        account = ctl.state.account.account
        assert account is not None and account.summary == "Anthropic API key · ANTHROPIC_API_KEY"
        start = ctl.steering.steer_now(PromptSubmission("STEERED use tabs"))
        if protocol == 2:
            assert start == "queued" and ctl.queue.items == ("STEERED use tabs",)
            await until(lambda: not ctl.busy and not ctl.queue.items, "the queued prompt's turn", timeout=90)
            return
        assert start == "steering"
        await until(lambda: any(m.steered for m in messages(ctl, USER_MESSAGE)), "the steered message", timeout=30)
        await until(lambda: model_heard(tmp_path, "STEERED use tabs"), "the steer to reach the model", timeout=30)
        await until(lambda: not ctl.busy, "the turn to end", timeout=90)
        answers = " ".join(m.text for m in messages(ctl, AGENT_MESSAGE))
        assert "You said: STEERED use tabs" in answers
        assert not ctl.queue.items and ctl.steering.in_flight == 0
        assert ctl.state.problem_count == 0, list(ctl.state.problems)
    finally:
        await ctl.shutdown()
