"""The timeline's visual vocabulary: kind icons, status pills, plan glyphs, diff badges.

Every open enum of the protocol (tool kind, tool status, plan status and priority, diff operation)
maps known values to a glyph and a CSS variant; an unknown value is shown as sent (sanitized) with a
generic look, never guessed at. `EXTRA_THEME_VARIABLES` holds fallbacks for the palette variables
that are not Textual's own, so a stylesheet that uses them also parses under a theme that lacks them.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from acp_tui.sanitize import plain

__all__ = [
    "EXTRA_THEME_VARIABLES", "KIND_ICONS", "GENERIC_ICON", "Pill", "kind_icon", "status_pill",
    "plan_status_glyph", "priority_variant", "operation_badge",
]

#: Fallbacks for our extra palette variables (a theme's own `[variables]` override them).
EXTRA_THEME_VARIABLES: Final[dict[str, str]] = {
    "diff-added": "#9ece6a",
    "diff-removed": "#f7768e",
    "thought-foreground": "#737aa2",
    "user-message-background": "#24283b",
}

#: One glyph per known tool kind (docs/protocol.md §6.1); all single-cell text symbols, never emoji, so every
#: terminal draws them one cell wide.
KIND_ICONS: Final[dict[str, str]] = {
    "read": "▤",
    "edit": "✎",
    "delete": "⌫",
    "move": "⇄",
    "search": "⌕",
    "execute": "▶",
    "think": "✻",
    "fetch": "⇣",
    "switch_mode": "⇆",
    "other": "⚙",
}
#: The icon of any kind this client does not know.
GENERIC_ICON: Final = "⚙"


def kind_icon(kind: str | None) -> str:
    """The icon for a tool kind; unknown kinds get the generic one (the spec says show them as other)."""
    return KIND_ICONS.get(kind or "other", GENERIC_ICON)


class Pill(NamedTuple):
    """A status pill: its text and the CSS class suffix that colours it."""

    text: str
    variant: str


_STATUS_PILLS: Final[dict[str, Pill]] = {
    "pending": Pill("◌ pending", "pending"),
    "in_progress": Pill("◐ running", "running"),
    "paused": Pill("‖ paused", "pending"),
    "completed": Pill("✓ completed", "success"),
    "failed": Pill("✗ failed", "error"),
    "cancelled": Pill("⊘ cancelled", "cancelled"),
}


def status_pill(status: str, cancelling: bool = False, interrupted: bool = False) -> Pill:
    """The pill for a tool-call status; while the call is unfinished, `interrupted` (the agent is
    gone) wins over `cancelling`, which wins over the status."""
    if status not in ("completed", "failed", "cancelled"):
        if interrupted:
            return Pill("⊘ interrupted", "cancelled")
        if cancelling:
            return Pill("⊘ cancelling…", "cancelling")
    known = _STATUS_PILLS.get(status)
    if known is not None:
        return known
    # Unknown statuses count as still in progress (schema) but are shown as sent.
    return Pill(f"◐ {plain(status)}", "unknown")


_PLAN_GLYPHS: Final[dict[str, str]] = {
    "pending": "☐",
    "in_progress": "◐",
    "completed": "☑",
    "cancelled": "⊘",
}


def plan_status_glyph(status: str) -> tuple[str, str | None]:
    """A plan entry's glyph, and the unknown status text to show beside it (`None` when known)."""
    glyph = _PLAN_GLYPHS.get(status)
    if glyph is not None:
        return glyph, None
    return "?", plain(status)


_PRIORITIES: Final = frozenset({"high", "medium", "low"})


def priority_variant(priority: str) -> str:
    """The CSS/component variant of a plan priority: itself when known, else "unknown"."""
    return priority if priority in _PRIORITIES else "unknown"


_BADGES: Final[dict[str, str]] = {"add": "A", "delete": "D", "modify": "M", "move": "R", "copy": "C"}


def operation_badge(operation: str) -> str:
    """The one-letter badge of a diff operation (A/D/M/R/C), or the raw operation when unknown."""
    return _BADGES.get(operation) or plain(operation)
