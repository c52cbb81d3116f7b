"""What every agent connection is given: its client services, and the one asker they all share.

A service per capability (docs/architecture.md): permissions, files, terminals, elicitation, logins.
Each is built fresh for every connection (a restart closes the old ones), as the user's settings and the
agent's host allow (acp_tui/agent/host.py: this machine's files and terminals only for an agent that runs on
it), and asks the user through the `UserAsker` the UI implements (the chat screen with dialogs, tests with
a script).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from acp_tui.agent.host import AgentHost
from acp_tui.launch import Launch
from acp_tui.services.account import AccountService
from acp_tui.services.auth import AuthService, LoginAsker
from acp_tui.services.base import ClientService
from acp_tui.services.elicitation import ElicitationAsker, ElicitationService
from acp_tui.services.files import FileAsker, FileService
from acp_tui.services.permission import PermissionAsker, PermissionService
from acp_tui.services.subagents import SubagentService
from acp_tui.services.terminals import TerminalService


class UserAsker(PermissionAsker, FileAsker, LoginAsker, ElicitationAsker, Protocol):
    """Everything the services may ask the user; the chat screen implements it with dialogs."""


#: Builds the services for one agent connection (fresh instances each time: a restart closes the old ones).
ServicesFactory = Callable[[Launch, AgentHost, UserAsker], Sequence[ClientService]]


def default_services(launch: Launch, host: AgentHost, asker: UserAsker) -> list[ClientService]:
    """The services every connection gets, as the user's settings allow; client files and terminals only where
    the agent runs on this machine (`host.shares_machine`): elsewhere they would be this machine's, not its own."""
    here = host.shares_machine
    # Not offered, a file service still answers a v1 agent's `fs/*` (asking first); for an agent elsewhere it is
    # not installed at all: its requests get -32601, this machine's disk is never its to read or write.
    files = [
        FileService(
            asker, offer=launch.client_files, outside_writes=launch.outside_writes, outside_reads=launch.outside_reads
        )
    ]
    return [
        PermissionService(asker),
        *(files if here else []),
        # installed even when off: it then advertises no `terminal` (and answers `terminal/*` -32601) but keeps
        # the output extension for the agent's own terminals
        TerminalService(client_terminals=launch.client_terminals and here),
        ElicitationService(asker),
        AuthService(asker, agent_name=launch.agent_name, agent_argv=launch.agent_argv, cwd=launch.cwd),
        SubagentService(),
        AccountService(),  # advertises nothing: follows the agent's `_auth/status_update`
    ]


__all__ = ["ServicesFactory", "UserAsker", "default_services"]
