"""codex-acp's answer to a v1 `session/prompt`, as its test data `token-usage-end-turn.json` has it (the model
named): `usage` and `_meta.quota`, the turn's last exchange in tokens (src/QuotaMeta.ts, `buildQuotaMeta`)."""

from __future__ import annotations

from typing import Any

COUNT = {
    "totalTokens": 2500,
    "inputTokens": 1500,
    "cachedInputTokens": 500,
    "outputTokens": 450,
    "reasoningOutputTokens": 50,
}
#: codex-acp's `token-usage-end-turn.json`, as its prompt answers it
CODEX_RESULT: dict[str, Any] = {
    "stopReason": "end_turn",
    "usage": {"totalTokens": 2500, "inputTokens": 1500, "cachedReadTokens": 500, "outputTokens": 450},
    "_meta": {"quota": {"token_count": COUNT, "model_usage": [{"model": "gpt-5-codex", "token_count": COUNT}]}},
}
