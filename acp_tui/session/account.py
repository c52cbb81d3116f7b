"""The signed-in account and the plan's limits, as far as the agent reports them (docs/protocol.md §10.7).

Two agent extensions carry them, both data from an untrusted peer:

* **Account**: Claude's ACP adapter pushes `_auth/status_update {authStatus: {kind, label, detail?,
  account?: {plan?, email?, organization?}}}` once per connection and again when it changes (advertised by
  `agentCapabilities._meta.authStatus`; connection-scoped, never per session). The unstable v2 schema
  has the standard form: `auth/status` (a request, where `capabilities.auth.status` is advertised) and
  its push `auth/status_update`, both `{state, accounts?: [{label, active?, name?, email?,
  organization?}]}`; `decode_auth_state` reads it into the same `Account`.
* **Plan windows**: the same adapter puts `_claude/rateLimit {status, resetsAt?, rateLimitType?,
  utilization?}` into a `usage_update`'s `_meta`: one window per update (`five_hour`, `seven_day`, ...),
  `utilization` a fraction of the window (0.42 = 42 %), `resetsAt` Unix seconds, `status` `allowed`,
  `allowed_warning` or `rejected`. Each window is kept until its next report. The Claude CLI 2.1 it runs
  (0.101) adds `unifiedWindows {five_hour?: {utilization, resetsAt, status?, surpassedThreshold?},
  seven_day?: ..., seven_day_overage_included?: ...}`: every window the response's
  `anthropic-ratelimit-unified-*` headers reported, each read as a window of its own (a subscription's
  5-hour and weekly windows arrive in one update; tests/peers/test_claude_rate_limits.py records it).

What is kept is typed and bounded: labels are sanitized and cut (`MAX_TEXT`), at most `MAX_WINDOWS`
windows, numbers checked for range. A shape that cannot be read is ignored and said once per kind of
problem (`AccountState.warned`), never raised.

* **Turn tokens** (codex-acp): its v1 `session/prompt` result carries `_meta.quota {token_count:
  TokenCount | null, model_usage: [{model, token_count}]}`, `TokenCount` being `{totalTokens, inputTokens,
  cachedInputTokens, outputTokens, reasoningOutputTokens}`: the tokens of the turn's last model exchange,
  in all and per model (codex-acp's `src/QuotaMeta.ts`, `buildQuotaMeta`). It holds no plan window (codex
  shows its windows only in the text of its `/status` command), so it feeds no meter: F4 shows it. It is
  the session's, not the connection's (`SessionState.turn_tokens`). Gemini CLI sends the same
  `_meta.quota` with snake_case counts and no total (`{input_tokens, output_tokens}`): the total is then
  their sum.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from acp_tui.sanitize import plain

#: the notification the account arrives in, and the `_meta` key of a plan window in `usage_update`
AUTH_STATUS_METHOD: Final = "_auth/status_update"
RATE_LIMIT_META: Final = "_claude/rateLimit"
#: the unstable v2 form: a request we send where `capabilities.auth.status` is advertised, and its push
AUTH_STATUS_REQUEST: Final = "auth/status"
AUTH_STATUS_UPDATE: Final = "auth/status_update"
#: the `_meta` key of codex-acp's token counts in a v1 `session/prompt` result
QUOTA_META: Final = "quota"
#: at most this many models' counts are kept from one `quota`
MAX_MODELS: Final = 8
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


#: what the account line says for a v2 `AuthState` when the agent lists no account
STATE_LABELS: Final = {
    "authenticated": "Signed in",
    "unauthenticated": "Not signed in",
    "not_required": "No sign-in needed",
    "unknown": "Sign-in state unknown",
}


def decode_auth_state(params: object) -> Account | None:
    """The unstable v2 `auth/status` result or `auth/status_update` params, `{state, accounts?}` → an
    `Account`: the first account marked `active` (else the first listed), its kind the state; None when
    `state` cannot be read. Accounts that cannot be read are skipped, as the schema says."""
    fields = params if isinstance(params, Mapping) else {}
    state = _text(fields.get("state"))
    if state is None:
        return None
    listed = fields.get("accounts")
    first = listed[:MAX_WINDOWS] if isinstance(listed, list) else []  # a hostile list is read this far only
    accounts = [a for a in first if isinstance(a, Mapping) and _text(a.get("label"))]
    chosen = next((a for a in accounts if a.get("active") is True), accounts[0] if accounts else None)
    kind = "none" if state == "unauthenticated" else state
    if chosen is None:
        return Account(kind, STATE_LABELS.get(state, state))
    label = _text(chosen.get("label")) or STATE_LABELS.get(state, state)
    detail = _text(chosen.get("name"))
    return Account(
        kind, label, detail=detail, email=_text(chosen.get("email")), organization=_text(chosen.get("organization"))
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


def decode_unified_windows(info: object) -> list[LimitWindow]:
    """The `unifiedWindows` of a `_claude/rateLimit` value → its windows, those that can be read. A window
    without a `status` of its own is `allowed` (the CLI gives one only from a window's status header); its
    figure still marks it near the limit at `WARN_AT`."""
    unified = info.get("unifiedWindows") if isinstance(info, Mapping) else None
    if not isinstance(unified, Mapping):
        return []
    windows: list[LimitWindow] = []
    for kind, fields in list(unified.items())[:MAX_WINDOWS]:
        name = _text(kind)
        if name is None or not isinstance(fields, Mapping):
            continue
        status = fields.get("status", "allowed")
        window = decode_rate_limit({**fields, "status": status, "rateLimitType": name})
        if window is not None:
            windows.append(window)
    return windows


class TokenCount:
    """Tokens of one model exchange as codex-acp counts them (`inputTokens` excludes the cached ones)."""

    __slots__ = ("total", "input", "cached", "output", "reasoning")

    def __init__(self, total: int, input: int, cached: int, output: int, reasoning: int) -> None:
        self.total = total
        self.input = input
        self.cached = cached
        self.output = output
        self.reasoning = reasoning

    @property
    def figures(self) -> tuple[int, int, int, int, int]:
        return (self.total, self.input, self.cached, self.output, self.reasoning)

    def summary(self) -> str:
        """`2,500 tokens (1,500 in, 500 cached, 450 out, 50 reasoning)`; zero parts left out."""
        parts = [
            f"{count:,} {name}"
            for count, name in (
                (self.input, "in"),
                (self.cached, "cached"),
                (self.output, "out"),
                (self.reasoning, "reasoning"),
            )
            if count
        ]
        return f"{self.total:,} tokens" + (f" ({', '.join(parts)})" if parts else "")


class TurnTokens:
    """codex-acp's `_meta.quota`: the last exchange's tokens in all (`total`, None when it had none yet) and
    per model, at most `MAX_MODELS` of them."""

    __slots__ = ("total", "models")

    def __init__(self, total: TokenCount | None, models: tuple[tuple[str, TokenCount], ...]) -> None:
        self.total = total
        self.models = models


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**15:
        return None
    return value


#: Each count's names: codex-acp's (camelCase) and Gemini CLI's (snake_case, which it sends with no total).
_COUNT_KEYS: Final = (
    ("totalTokens", "total_tokens"),
    ("inputTokens", "input_tokens"),
    ("cachedInputTokens", "cached_input_tokens"),
    ("outputTokens", "output_tokens"),
    ("reasoningOutputTokens", "reasoning_output_tokens"),
)


def _token_count(value: object) -> TokenCount | None:
    """A total, or input and output tokens to add up, is required; a missing part counts 0, a part that is no
    count makes it unreadable."""
    if not isinstance(value, Mapping):
        return None
    found = [next((value[name] for name in names if name in value), None) for names in _COUNT_KEYS]
    counts = [None if raw is None else _count(raw) for raw in found]
    if any(raw is not None and count is None for raw, count in zip(found, counts, strict=True)):
        return None
    total, input_, cached, output, reasoning = counts
    if total is None:
        if input_ is None and output is None:
            return None
        total = (input_ or 0) + (output or 0) + (reasoning or 0)
    return TokenCount(total, input_ or 0, cached or 0, output or 0, reasoning or 0)


def decode_quota(value: object) -> TurnTokens | None:
    """The value of codex-acp's `_meta["quota"]` → `TurnTokens`; None when it cannot be read."""
    if not isinstance(value, Mapping) or "token_count" not in value:
        return None
    raw_total = value.get("token_count")
    total = None if raw_total is None else _token_count(raw_total)
    if raw_total is not None and total is None:
        return None
    raw_models = value.get("model_usage", [])
    if not isinstance(raw_models, list):
        return None
    models: list[tuple[str, TokenCount]] = []
    for item in raw_models[:MAX_MODELS]:
        name = _text(item.get("model")) if isinstance(item, Mapping) else None
        count = _token_count(item.get("token_count")) if isinstance(item, Mapping) else None
        if name is None or count is None:
            return None
        models.append((name, count))
    return TurnTokens(total, tuple(models))


__all__ = ["AUTH_STATUS_METHOD", "RATE_LIMIT_META", "MAX_TEXT", "MAX_WINDOWS", "WARN_AT", "WINDOW_NAMES"]
__all__ += ["MAX_MODELS", "QUOTA_META", "TokenCount", "TurnTokens", "decode_quota"]
__all__ += ["AUTH_STATUS_REQUEST", "AUTH_STATUS_UPDATE", "STATE_LABELS", "decode_auth_state"]
__all__ += ["Account", "AccountState", "LimitWindow", "decode_auth_status", "decode_rate_limit"]
__all__ += ["decode_unified_windows"]
