"""Where the agent runs (acp_tui/agent/host.py): the controller starts every agent through the host chosen at
launch, and an agent whose host is not this machine is offered none of this machine's files or terminals."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from acp_tui.agent.host import AgentCommand, AgentTransport, LocalHost, host_for
from acp_tui.agent.process import AgentProcess
from acp_tui.controller.controller import SessionController
from acp_tui.controller.wiring import default_services
from acp_tui.launch import Launch
from acp_tui.launch_resolve import demo_argv
from acp_tui.protocol.fs import READ_TEXT_FILE
from acp_tui.services.base import merge_capabilities
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.launches import make_launch

pytestmark = pytest.mark.timeout(60)


class Recording:
    """This machine, with every command it was asked to start kept; `here` says whose files the folder is."""

    def __init__(self, *, here: bool = True) -> None:
        self.here = here
        self.local = LocalHost()
        self.commands: list[AgentCommand] = []
        self.transports: list[AgentTransport] = []

    @property
    def shares_machine(self) -> bool:
        return self.here

    def transport(self, command: AgentCommand, on_stderr: Callable[[str], None]) -> AgentTransport:
        self.commands.append(command)
        self.transports.append(self.local.transport(command, on_stderr))
        return self.transports[-1]


def demo(tmp_path: Path, protocol: int | str = "auto") -> Launch:
    return make_launch(demo_argv(), tmp_path, name="demo", env={"ACP_TUI_DEMO_SPEED": "0"}, protocol=protocol)


@pytest.fixture
async def stopping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[SessionController]]:
    """The controllers a test starts, shut down after it."""
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    started: list[SessionController] = []
    try:
        yield started
    finally:
        for controller in started:
            await controller.shutdown()


def sent_initialize(controller: SessionController) -> dict[str, object]:
    assert controller.session is not None
    frame = next(f for f in controller.session.frames if f.direction == "->" and f.method == "initialize")
    params = json.loads(frame.raw)["params"]
    assert isinstance(params, dict)
    return params


async def test_the_controller_starts_each_agent_through_the_host_chosen_at_launch(
    tmp_path: Path, stopping: list[SessionController]
) -> None:
    host = Recording()
    launch = demo(tmp_path)
    controller = SessionController(launch, asker=ScriptedUser([]), listener=ControllerEvents(), host=host)
    stopping.append(controller)
    assert await controller.start()
    [command] = host.commands
    assert tuple(command.argv) == launch.agent_argv and command.cwd == str(tmp_path)
    assert command.env["ACP_TUI_DEMO_SPEED"] == "0"
    assert controller.session is not None and controller.session.transport is host.transports[0]
    assert await controller.restart(stop_first=True)  # a new connection: a new agent from the same host
    assert len(host.commands) == 2 and controller.session.transport is host.transports[1]
    assert not host.transports[0].running and host.transports[1].running


async def test_an_agent_elsewhere_is_offered_no_client_files_or_terminals(
    tmp_path: Path, stopping: list[SessionController]
) -> None:
    controllers = {
        here: SessionController(demo(tmp_path, 1), asker=ScriptedUser([]), listener=ControllerEvents(), host=host)
        for here, host in ((True, Recording(here=True)), (False, Recording(here=False)))
    }
    stopping.extend(controllers.values())
    for controller in controllers.values():
        assert await controller.start()
    offered = sent_initialize(controllers[True])["clientCapabilities"]
    assert isinstance(offered, dict) and offered["fs"] and offered["terminal"] is True
    elsewhere = sent_initialize(controllers[False])["clientCapabilities"]
    assert isinstance(elsewhere, dict) and not any(elsewhere["fs"].values()) and not elsewhere.get("terminal")
    session = controllers[False].session
    assert session is not None and not any(READ_TEXT_FILE in s.methods() for s in session.services)


def test_the_services_follow_the_host(tmp_path: Path) -> None:
    launch = demo(tmp_path)
    here = merge_capabilities(default_services(launch, LocalHost(), ScriptedUser([])))
    away = merge_capabilities(default_services(launch, Recording(here=False), ScriptedUser([])))
    assert here.v1["fs"] == {"readTextFile": True, "writeTextFile": True} and here.v1["terminal"] is True
    assert "fs" not in away.v1 and "terminal" not in away.v1


def test_a_launch_runs_its_agent_on_this_machine(tmp_path: Path) -> None:
    host = host_for(demo(tmp_path))
    assert host.shares_machine
    transport = host.transport(AgentCommand(demo_argv(), str(tmp_path)), lambda _line: None)
    assert isinstance(transport, AgentProcess) and not transport.running
