"""The session's mode: which config option is "the mode", and which modes let the agent act unasked.

An agent offers its modes as a select option of category "mode" (v1 `modes` arrive as one, see the
V1 adapter); the first such option is the mode (earlier options win shortcuts, docs/protocol.md §10.4).
No field says what a mode permits, so its id and name are read: a mode whose id or name contains one
of `BYPASS_WORDS` (case and separators ignored, so `bypassPermissions`, "Bypass Permissions",
`full-access` and "Full Access" all count) is taken to bypass or auto-approve permission requests,
and acp-tui asks before switching to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from acp_tui.protocol.v2 import SessionConfigOption, SessionConfigSelect

__all__ = ["BYPASS_WORDS", "bypasses_permissions", "mode_option", "value_name"]

#: Words in a mode's id or name that say it bypasses or auto-approves permissions, letters and digits only
#: (Claude's `bypassPermissions`, Gemini's `yolo`, Codex's "Full Access", `dangerously-skip-permissions`…).
BYPASS_WORDS: Final = (
    "bypass",
    "yolo",
    "autoapprove",
    "dangerous",
    "fullaccess",
    "skippermission",
    "nopermission",
    "allowall",
)


def _squashed(label: str) -> str:
    return "".join(char for char in label.casefold() if char.isalnum())


def bypasses_permissions(*labels: str) -> bool:
    """Does any of `labels` (a mode's id, its name) say the mode bypasses or auto-approves permissions?"""
    return any(word in _squashed(label) for label in labels for word in BYPASS_WORDS)


def mode_option(options: Sequence[SessionConfigOption]) -> SessionConfigSelect | None:
    """The first select option of category "mode" that offers a value, or None."""
    for option in options:
        if isinstance(option, SessionConfigSelect) and option.category == "mode" and option.all_options():
            return option
    return None


def value_name(option: SessionConfigSelect, value: str) -> str:
    """The name the agent gives `value` (the value itself when it names none); not sanitized."""
    for choice in option.all_options():
        if choice.value == value:
            return choice.name or value
    return value
