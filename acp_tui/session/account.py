"""The signed-in account and the plan's limits, as far as the agent reports them (docs/protocol.md §10.7).

Two agent extensions carry them, both data from an untrusted peer:

* **Account**: Claude's ACP adapter pushes `_auth/status_update {authStatus: {kind, label, detail?,
  account?: {plan?, email?, organization?}}}` once per connection and again when it changes (advertised by
  `agentCapabilities._meta.authStatus`; connection-scoped, never per session). The ACP v2 schema defines
  no `auth/status` method, so there is no v2 form to read.
* **Plan windows**: the same adapter puts `_claude/rateLimit {status, resetsAt?, rateLimitType?,
  utilization?}` into a `usage_update`'s `_meta`: one window per update (`five_hour`, `seven_day`, ...),
  `utilization` a fraction of the window (0.42 = 42 %), `resetsAt` Unix seconds, `status` `allowed`,
  `allowed_warning` or `rejected`. Each window is kept until its next report.

What is kept is typed and bounded: labels are sanitized and cut (`MAX_TEXT`), at most `MAX_WINDOWS`
windows, numbers checked for range. A shape that cannot be read is ignored and said once per kind of
problem (`AccountState.warned`), never raised. codex-acp's `_meta.quota` is not read: the only recording of
one (Claude's v1 prompt result) holds token counts, not a plan window, so there is nothing to show from it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from acp_tui.sanitize import plain

#: the notification the account arrives in, and the `_meta` key of a plan window in `usage_update`
AUTH_STATUS_METHOD: Final = "_auth/status_update"
RATE_LIMIT_META: Final = "_claude/rateLimit"
#: a label, detail, e-mail, plan or window name longer than this is cut
MAX_TEXT: Final = 80
#: at most this many distinct windows are kept (an agent inventing a window per update cannot grow the bar)
MAX_WINDOWS: Final = 8
#: a window at or above this fraction of its limit is shown as near it (`⚠`)
WARN_AT: Final = 0.8

#: Short names for the windows Claude's SDK reports (its `SDKRateLimitInfo.rateLimitType`).
WINDOW_NAMES: Final = {
    "five_hour": "5h",
    "seven_day": "7d",
    "seven_day_opus": "7d opus",
    "seven_day_sonnet": "7d sonnet",
    "seven_day_overage_included": "7d+",
    "overage": "extra",
}


def _text(value: object) -> str | None:
    """A short, safe string, or None when `value` is not a non-empty string."""
    if not isinstance(value, str):
        return None
    cleaned = " ".join(plain(value).split())
    if not cleaned:
        return None
    return cleaned if len(cleaned) <= MAX_TEXT else cleaned[: MAX_TEXT - 1] + "…"


class Account:
    """Who the agent acts as: `label` ("Claude Max", "Anthropic API key"), `kind` as the agent says."""

    __slots__ = ("kind", "label", "detail", "email", "organization", "plan")

    def __init__(
        self,
        kind: str,
        label: str,
        *,
        detail: str | None = None,
        email: str | None = None,
        organization: str | None = None,
        plan: str | None = None,
    ) -> None:
        self.kind = kind
        self.label = label
        self.detail = detail
        self.email = email
        self.organization = organization
        self.plan = plan

    @property
    def signed_out(self) -> bool:
        return self.kind == "none"

    @property
    def summary(self) -> str:
        """One line: the label, then the e-mail or the detail ("Claude Max · ada@example.com")."""
        second = self.email or self.detail
        return f"{self.label} · {second}" if second else self.label


class LimitWindow:
    """One plan window: how much of it is used (a fraction, None when not said), its status and reset."""

    __slots__ = ("kind", "utilization", "status", "resets_at")

    def __init__(self, kind: str, utilization: float | None, status: str, resets_at: float | None) -> None:
        self.kind = kind
        self.utilization = utilization
        self.status = status
        self.resets_at = resets_at

    @property
    def name(self) -> str:
        """What the status bar calls it: `5h`, `7d`, or the agent's own (sanitized) name."""
        return WINDOW_NAMES.get(self.kind, self.kind)

    @property
    def near_limit(self) -> bool:
        """At `WARN_AT` or more of the window, or any status other than `allowed`."""
        return self.status != "allowed" or (self.utilization is not None and self.utilization >= WARN_AT)

    @property
    def percent(self) -> int | None:
        return None if self.utilization is None else min(100, math.floor(self.utilization * 100 + 0.5))


class AccountState:
    """The account and the plan windows of this connection (`state.account`)."""

    __slots__ = ("account", "windows", "warned")

    def __init__(self) -> None:
        self.account: Account | None = None
        #: by window kind, in first-seen order
        self.windows: dict[str, LimitWindow] = {}
        #: the kinds of unreadable shape already reported (each is said once)
        self.warned: set[str] = set()

    @property
    def reported(self) -> bool:
        return self.account is not None or bool(self.windows)


def decode_auth_status(params: object) -> Account | None:
    """`_auth/status_update` params → an `Account`; None when the shape cannot be read."""
    status = params.get("authStatus") if isinstance(params, Mapping) else None
    if not isinstance(status, Mapping):
        return None
    kind, label = _text(status.get("kind")), _text(status.get("label"))
    if kind is None or label is None:
        return None
    account = status.get("account")
    fields: Mapping[str, Any] = account if isinstance(account, Mapping) else {}
    return Account(
        kind,
        label,
        detail=_text(status.get("detail")),
        email=_text(fields.get("email")),
        organization=_text(fields.get("organization")),
        plan=_text(fields.get("plan")),
    )


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def decode_rate_limit(info: object) -> LimitWindow | None:
    """The value of `_meta["_claude/rateLimit"]` → its plan window; None when it cannot be read."""
    if not isinstance(info, Mapping):
        return None
    status = _text(info.get("status"))
    if status is None:
        return None
    utilization = _number(info.get("utilization"))
    if utilization is not None and not 0 <= utilization <= 10:
        utilization = None  # not a fraction of anything: the window shows without a figure
    resets_at = _number(info.get("resetsAt"))
    if resets_at is not None and not 0 < resets_at < 1e11:
        resets_at = None
    kind = _text(info.get("rateLimitType")) or "plan"
    return LimitWindow(kind, utilization, status, resets_at)


__all__ = ["AUTH_STATUS_METHOD", "RATE_LIMIT_META", "MAX_TEXT", "MAX_WINDOWS", "WARN_AT", "WINDOW_NAMES"]
__all__ += ["Account", "AccountState", "LimitWindow", "decode_auth_status", "decode_rate_limit"]
