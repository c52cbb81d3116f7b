"""The session's mode: which config option is "the mode", and which modes let the agent act unasked.

An agent offers its modes as a select option of category "mode" (v1 `modes` arrive as one, see the
V1 adapter); the first such option is the mode (earlier options win shortcuts, docs/protocol.md §10.4).
No field says what a mode permits, so its id and name are read: a mode whose id or name contains one
of `BYPASS_WORDS` (case and separators ignored, so `bypassPermissions`, "Bypass Permissions",
`full-access` and "Full Access" all count) is taken to bypass or auto-approve permission requests,
and acp-tui asks before switching to it.

Print mode needs more than that warning: under `--approve never` nothing may change without consent, so a
mode that decides for itself (Claude's "Auto", "Accept edits", Codex's `auto`) is as unfit as a bypass.
`permission_class` sorts a mode by its id, name and description into one that acts unasked, one that only
reads or plans, one that asks, or one whose words say neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, TypeAlias

from acp_tui.protocol.v2 import SessionConfigOption, SessionConfigSelect, SessionConfigSelectOption

__all__ = [
    "BYPASS_WORDS",
    "PermissionClass",
    "bypasses_permissions",
    "mode_option",
    "permission_class",
    "value_name",
]

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


#: Words in a mode's id or name that say it acts on its own judgement, short of a bypass: Claude's `auto`
#: ("Auto") and `acceptEdits`, Gemini's `autoEdit`, Codex's `auto`, `dontAsk`.
UNASKED_NAME_WORDS: Final = ("auto", "acceptedit", "acceptall", "approveall", "dontask", "noask", "neverask")
#: Words in a mode's description that say so ("Automatically accept all file edits", "Accepts all permissions").
UNASKED_DESCRIPTION_WORDS: Final = (
    *BYPASS_WORDS,
    "automatically",
    "withoutask",
    "withoutapproval",
    "withoutconfirm",
    "withoutpermission",
    "acceptsall",
    "acceptall",
    "approvesall",
    "approveall",
    "neverask",
)
#: Words in a mode's id or name that say it changes nothing: it reads, plans or answers.
READ_ONLY_NAME_WORDS: Final = ("readonly", "plan", "review")
#: Words in a mode's description that say so ("Answer questions, change nothing").
READ_ONLY_DESCRIPTION_WORDS: Final = ("readonly", "changenothing", "changesnothing", "nochanges", "makesnochange")
#: Words in a mode's id or name that say it asks before acting (Claude's `default` is "Manual").
ASKS_NAME_WORDS: Final = ("default", "manual", "ask", "approv", "confirm", "suggest", "normal", "standard")
#: Words in a mode's description that say so ("Always ask before making changes").
ASKS_DESCRIPTION_WORDS: Final = ("ask", "approv", "confirm", "permission")

PermissionClass: TypeAlias = Literal["unasked", "read_only", "asks", "unknown"]


def _says(words: Sequence[str], *labels: str) -> bool:
    return any(word in _squashed(label) for label in labels for word in words)


def permission_class(choice: SessionConfigSelectOption) -> PermissionClass:
    """What a mode's words say about consent: "unasked" (it acts without asking: a bypass or its own
    judgement), "read_only" (it changes nothing), "asks", or "unknown". The first that matches wins, in that
    order, so "Don't ask" is unasked and "Ask" asks; nothing in ACP says it for certain."""
    description = choice.description if isinstance(choice.description, str) else ""
    labels = (choice.value, choice.name)
    if _says(BYPASS_WORDS, *labels) or _says(UNASKED_NAME_WORDS, *labels):
        return "unasked"
    if _says(UNASKED_DESCRIPTION_WORDS, description):
        return "unasked"
    if _says(READ_ONLY_NAME_WORDS, *labels) or _says(READ_ONLY_DESCRIPTION_WORDS, description):
        return "read_only"
    if _says(ASKS_NAME_WORDS, *labels) or _says(ASKS_DESCRIPTION_WORDS, description):
        return "asks"
    return "unknown"


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
