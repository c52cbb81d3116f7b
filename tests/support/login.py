"""A login command as the agent offers it."""

from __future__ import annotations

from pathlib import Path

from acp_tui.protocol.auth import TerminalLogin
from acp_tui.services.auth import TerminalCommand


def terminal_command() -> TerminalCommand:
    method = TerminalLogin(
        "claude-ai-login",
        "Claude Subscription",
        None,
        ("--cli", "auth", "login", "--claudeai"),
        (("CLAUDE_LOGIN_MODE", "subscription"),),
    )
    argv = ("node", "/opt/claude-agent-acp/dist/index.js", *method.args)
    return TerminalCommand(method, argv, {"PATH": "/usr/bin"}, Path("/work/project"))
