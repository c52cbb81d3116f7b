"""The chat screen's palette providers that live with their dialogs (session settings; log in and out).

Textual's `COMMANDS` takes a callable that returns a provider and calls it when the palette opens, so these
dialogs are imported then, not when the first screen is built (issue 27's start-up).
"""

from __future__ import annotations

from textual.command import Provider

__all__ = ["config_commands", "login_commands"]


def config_commands() -> type[Provider]:
    from acp_tui.ui.dialogs.config_picker import ConfigCommands

    return ConfigCommands


def login_commands() -> type[Provider]:
    from acp_tui.ui.dialogs.login import LoginCommands

    return LoginCommands
