"""The timeline's visual vocabulary: one glyph per meaning, kind icons, plan glyphs, diff badges.

`GLYPHS` is the one table of status glyphs (README, "Glyphs"): a tool call, a plan entry, a turn's end
and the status bar that mean the same thing show the same glyph, and nothing shows two of them for one
meaning. Every open enum of the protocol (tool kind, tool status, plan status and priority, diff
operation) maps known values to a glyph and a CSS variant; an unknown value is shown as sent
(sanitized) with a generic look, never guessed at. `EXTRA_THEME_VARIABLES` holds fallbacks for the
palette variables that are not Textual's own, so a stylesheet that uses them also parses under a theme
that lacks them.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from acp_tui.sanitize import plain

__all__ = [
    "EXTRA_THEME_VARIABLES",
    "GLYPHS",
    "KIND_ICONS",
    "GENERIC_ICON",
    "Pill",
    "kind_icon",
    "status_pill",
    "plan_status_glyph",
    "priority_variant",
    "operation_badge",
    "leading_glyph",
]

#: One glyph per meaning (all single-cell text symbols, never emoji). The status bar animates
#: "running" as a spinner; everything else is drawn as listed.
GLYPHS: Final[dict[str, str]] = {
    "done": "✓",  # a tool call or plan entry completed; a compaction finished
    "failed": "✗",  # a tool call, a turn, a compaction or a client action failed
    "cancelled": "⊘",  # cancelled, interrupted or refused by the user
    "running": "◐",  # a tool call or plan entry in progress
    "pending": "○",  # not started yet (a tool call, a plan entry, a queued prompt)
    "paused": "‖",  # a tool call the agent paused
    "attention": "⚠",  # needs you, or a warning (a permission waits; a turn stopped early)
    "ready": "●",  # the agent is idle and ready for a prompt
    "stopped": "■",  # the agent process is not running
    "note": "·",  # a line from acp-tui itself
    "problem": "⚑",  # the agent broke the protocol (F3 lists the problems)
    "closed": "▸",  # a block that opens (Enter or a click)
    "open": "▾",  # an open block
    "subagent": "◇",  # a subagent's lane: a child session working for the agent (the header's ◆ is the agent)
}

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
    "pending": Pill(f"{GLYPHS['pending']} pending", "pending"),
    "in_progress": Pill(f"{GLYPHS['running']} running", "running"),
    "paused": Pill(f"{GLYPHS['paused']} paused", "pending"),
    "completed": Pill(f"{GLYPHS['done']} completed", "success"),
    "failed": Pill(f"{GLYPHS['failed']} failed", "error"),
    "cancelled": Pill(f"{GLYPHS['cancelled']} cancelled", "cancelled"),
}


def status_pill(status: str, cancelling: bool = False, interrupted: bool = False, rejected: bool = False) -> Pill:
    """The status of a tool call as glyph and word; while the call is unfinished, `interrupted` (the
    agent is gone) wins over `cancelling`, which wins over the status; `rejected` (the user refused its
    permission) shows only while the agent leaves the call pending."""
    if status not in ("completed", "failed", "cancelled"):
        if interrupted:
            return Pill(f"{GLYPHS['cancelled']} interrupted", "cancelled")
        if cancelling:
            return Pill(f"{GLYPHS['cancelled']} cancelling…", "cancelling")
        if rejected and status == "pending":
            return Pill(f"{GLYPHS['cancelled']} rejected", "cancelled")
    known = _STATUS_PILLS.get(status)
    if known is not None:
        return known
    # Unknown statuses count as still in progress (schema) but are shown as sent.
    return Pill(f"{GLYPHS['running']} {plain(status)}", "unknown")


_PLAN_GLYPHS: Final[dict[str, str]] = {
    "pending": GLYPHS["pending"],
    "in_progress": GLYPHS["running"],
    "completed": GLYPHS["done"],
    "cancelled": GLYPHS["cancelled"],
}


def plan_status_glyph(status: str) -> tuple[str, str | None]:
    """A plan entry's glyph, and the unknown status text to show beside it (`None` when known)."""
    glyph = _PLAN_GLYPHS.get(status)
    if glyph is not None:
        return glyph, None
    return "?", plain(status)


_STATUS_GLYPHS: Final = frozenset(
    GLYPHS[name]
    for name in (
        "done",
        "failed",
        "cancelled",
        "running",
        "pending",
        "paused",
        "attention",
        "ready",
        "stopped",
        "problem",
    )
)


def leading_glyph(text: str) -> tuple[str | None, str]:
    """A line that opens with a status glyph of the table and a space: (glyph, the rest); else (None, text).

    A client line that names its own meaning ("⊘ cancelled") keeps that glyph instead of its severity's.
    """
    if len(text) >= 2 and text[0] in _STATUS_GLYPHS and text[1] == " ":
        return text[0], text[2:]
    return None, text


_PRIORITIES: Final = frozenset({"high", "medium", "low"})


def priority_variant(priority: str) -> str:
    """The CSS/component variant of a plan priority: itself when known, else "unknown"."""
    return priority if priority in _PRIORITIES else "unknown"


_BADGES: Final[dict[str, str]] = {"add": "A", "delete": "D", "modify": "M", "move": "R", "copy": "C"}


def operation_badge(operation: str) -> str:
    """The one-letter badge of a diff operation (A/D/M/R/C), or the raw operation when unknown."""
    return _BADGES.get(operation) or plain(operation)
