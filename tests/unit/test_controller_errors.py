"""The controller's intents that a screen awaits fail with one error type, `ControllerError`, whose line is the
reason (acp_tui/controller/errors.py): never a `SessionError`, `RpcError` or `ConnectionClosed` from below."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.session_errors import SessionError
from acp_tui.controller.controller import SessionController
from acp_tui.controller.errors import ControllerError, as_controller_error
from acp_tui.launch_resolve import demo_argv
from acp_tui.protocol.jsonrpc import RpcError
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.launches import make_launch

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def controller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[SessionController]:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    launch = make_launch(demo_argv(), tmp_path, name="demo", env={"ACP_TUI_DEMO_SPEED": "0"})
    ctl = SessionController(launch, asker=ScriptedUser([]), listener=ControllerEvents())
    try:
        yield ctl
    finally:
        await ctl.shutdown()


async def test_an_intent_on_a_stopped_agent_says_so(controller: SessionController) -> None:
    with pytest.raises(ControllerError, match="the agent is not running"):
        await controller.cancel_terminal("t1")
    with pytest.raises(ControllerError, match="the agent is not running"):
        await controller.cancel_tool_call("c1")
    with pytest.raises(ControllerError, match="no session yet"):
        await controller.set_config("mode", "ask")
    with pytest.raises(ControllerError, match="no transcript of this conversation"):
        controller.sessions.export_markdown()


async def test_what_fails_below_reaches_the_ui_as_one_error(controller: SessionController) -> None:
    assert await controller.start()
    with pytest.raises(ControllerError, match="no config option 'nope'") as refused:
        await controller.set_config("nope", "x")
    assert isinstance(refused.value.__cause__, SessionError)  # kept for the log
    with pytest.raises(ControllerError, match="cannot be cancelled"):
        await controller.cancel_tool_call("no-such-call")
    with pytest.raises(ControllerError, match="cannot be stopped"):
        await controller.cancel_terminal("no-such-terminal")
    with pytest.raises(ControllerError, match="open session"):
        await controller.sessions.delete_session(controller.sessions.current_session_id or "")


@pytest.mark.parametrize(
    ("below", "line"),
    [
        (SessionError("no session yet"), "x: no session yet"),
        (RpcError(-32602, "bad cursor"), "x: bad cursor (-32602)"),
        (ConnectionClosed(None), "x: the agent is not running"),
    ],
)
def test_each_family_below_becomes_a_controller_error(below: Exception, line: str) -> None:
    with pytest.raises(ControllerError) as caught, as_controller_error("x: "):
        raise below
    assert str(caught.value) == line and caught.value.__cause__ is below


def test_anything_else_passes_through() -> None:
    with pytest.raises(KeyError), as_controller_error():
        raise KeyError("ours")
