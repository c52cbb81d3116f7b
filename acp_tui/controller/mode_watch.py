"""Every change of the session's mode is a line in the conversation, saying who made it.

A mode can change the agent's permissions (Claude's "Bypass Permissions"), so a switch is never
silent: the user's own (Shift+Tab, the picker) and the agent's (`current_mode_update`, a config
update, a `session/set_config_option` answer) alike. The mode a session opens with is not a change;
a new connection or session starts watching afresh.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from acp_tui.protocol.v2 import SessionConfigOption
from acp_tui.sanitize import plain
from acp_tui.session.modes import bypasses_permissions, mode_option, value_name

__all__ = ["ModeLine", "ModeWatch"]


class ModeLine(msgspec.Struct, frozen=True):
    """The conversation's line for one mode change."""

    text: str
    warning: bool  # the new mode bypasses or auto-approves permissions


class ModeWatch:
    """Remembers the mode shown last and the one the user asked for, to tell who switched it."""

    def __init__(self) -> None:
        self._owner: object = None  # the (connection, session id) the mode below belongs to
        self._mode: tuple[str, str] | None = None  # (config id, value)
        self._asked: tuple[str, str | bool] | None = None

    def asked(self, config_id: str, value: str | bool) -> None:
        """The user asked for `value` (its answer, or a refusal through `refused`, follows)."""
        self._asked = (config_id, value)

    def refused(self) -> None:
        self._asked = None

    def seen(self, owner: object, options: Sequence[SessionConfigOption]) -> ModeLine | None:
        """The options changed: the line to show when the mode did (None when it did not)."""
        option = mode_option(options)
        mode = (option.config_id, option.current_value) if option is not None else None
        if owner != self._owner:
            self._owner, self._mode, self._asked = owner, mode, None
            return None
        if option is None or mode is None or mode == self._mode:
            self._mode = mode if mode is not None else self._mode
            return None
        self._mode = mode
        by_user = self._asked == mode
        self._asked = None
        name = plain(value_name(option, option.current_value))
        text = f"you switched the mode to {name}" if by_user else f"the agent switched the mode to {name}"
        warning = bypasses_permissions(option.current_value, value_name(option, option.current_value))
        if warning:
            text += " — it may act without asking for permission"
        return ModeLine(text, warning)
