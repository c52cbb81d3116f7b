"""The plan's limits in a few cells (`5h 42% · 7d 80% ⚠`) and in words (F4), from `state.account`.

Each window the agent reported shows its used share; one near its limit (80 % or more, or a status other
than `allowed`, session/account.py) carries `⚠`. Narrow, the bar keeps the window that is worst off. The
reset time is on F4 (`account_lines`), in the local time zone. Nothing at all for an agent that reports none.
The last turn's tokens an agent reports (codex-acp's `_meta.quota`) are no window: F4 says them in words
(`token_lines`), never the bar.
"""

from __future__ import annotations

import time

import msgspec

from acp_tui.session.account import AccountState, LimitWindow, TurnTokens

WARN_MARK = "⚠"
#: the windows shown first, in this order; any other after them, as first reported
_ORDER = ("five_hour", "seven_day")


class Meter(msgspec.Struct, frozen=True):
    """The status bar's limits part: its whole text, the worst window alone, and whether any is near."""

    text: str
    short: str
    warn: bool


def _ordered(windows: dict[str, LimitWindow]) -> list[LimitWindow]:
    known = [windows[kind] for kind in _ORDER if kind in windows]
    return known + [window for kind, window in windows.items() if kind not in _ORDER]


def window_text(window: LimitWindow) -> str:
    """`5h 42%`, `7d 80% ⚠`; without a figure `5h ok`, `5h ⚠`, `5h limit ⚠` (rejected)."""
    percent = window.percent
    if percent is not None:
        figure = f"{percent}%"
    elif window.status == "rejected":
        figure = "limit"
    elif window.status == "allowed":
        figure = "ok"
    else:
        figure = ""
    text = f"{window.name} {figure}".rstrip()
    return f"{text} {WARN_MARK}" if window.near_limit else text


def meter(state: AccountState) -> Meter | None:
    """What the status bar shows of the plan's windows (None when the agent reported none)."""
    windows = _ordered(state.windows)
    if not windows:
        return None
    worst = max(windows, key=lambda w: (w.status == "rejected", w.near_limit, w.utilization or 0.0))
    return Meter(
        " ".join(window_text(window) for window in windows),
        window_text(worst),
        any(window.near_limit for window in windows),
    )


def _when(resets_at: float, now: float) -> str:
    left = max(0, int(resets_at - now))
    hours, minutes = divmod(left // 60, 60)
    days, hours = divmod(hours, 24)
    span = f"{days}d {hours}h" if days else f"{hours}h {minutes}m" if hours else f"{minutes}m"
    clock = time.strftime("%a %H:%M" if days else "%H:%M", time.localtime(resets_at))
    return f"resets {clock} (in {span})"


def account_lines(state: AccountState, *, now: float | None = None) -> tuple[str, ...]:
    """The account and each window in words, for F4: `Account: Claude Max · ada@example.com`, ..."""
    lines: list[str] = []
    account = state.account
    if account is not None:
        lines.append(f"Account: {account.summary}")
        if account.organization:
            lines.append(f"Organization: {account.organization}")
    current = time.time() if now is None else now
    for window in _ordered(state.windows):
        percent = window.percent
        used = f"{percent}% used" if percent is not None else f"status {window.status}"
        if percent is not None and window.status != "allowed":
            used += f" ({window.status.replace('_', ' ')})"
        reset = f", {_when(window.resets_at, current)}" if window.resets_at is not None else ""
        mark = f" {WARN_MARK}" if window.near_limit else ""
        lines.append(f"Limit {window.name}: {used}{reset}{mark}")
    return tuple(lines)


def token_lines(tokens: TurnTokens | None) -> tuple[str, ...]:
    """The last turn's tokens, for F4: `Last turn: 2,500 tokens (1,500 in, ...)`, then one line per model
    when there are several (one model's figures are the total's)."""
    if tokens is None:
        return ()
    lines: list[str] = []
    if tokens.total is not None:
        lines.append(f"Last turn: {tokens.total.summary()}")
    if len(tokens.models) == 1 and tokens.total is not None and tokens.models[0][1].figures == tokens.total.figures:
        lines[-1] += f" · {tokens.models[0][0]}"
    else:
        lines.extend(f"Last turn, {model}: {count.summary()}" for model, count in tokens.models)
    return tuple(lines)


__all__ = ["Meter", "WARN_MARK", "account_lines", "meter", "token_lines", "window_text"]
