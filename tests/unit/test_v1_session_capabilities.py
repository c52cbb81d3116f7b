"""What v1 `clientCapabilities.session` advertises (notices, compaction), v1 agents may send: the v1 decoder
and adapter carry each into the model as v2's would (docs/protocol.md §2.3; v1 schema `Notice`,
`CompactionUpdate`, `CompactionSummaryChunk`). Boolean options: tests/unit/test_session_config.py.
"""

from __future__ import annotations

import json
from typing import Any

from acp_tui.protocol import codec
from acp_tui.protocol.v2 import UnknownUpdate
from acp_tui.session.model import Compaction, SessionState
from acp_tui.session.reducer import apply
from acp_tui.session.v1_adapter import V1Adapter
from tests.support.schema_check import validate_agent_message


def feed(state: SessionState, adapter: V1Adapter, update: dict[str, Any]) -> None:
    """One v1 `session/update` from the agent: schema-checked, decoded for v1, adapted and applied."""
    params = {"sessionId": "s", "update": update}
    validate_agent_message({"jsonrpc": "2.0", "method": "session/update", "params": params}, 1)
    _, decoded = codec.decode_update(json.dumps(params).encode(), 1)
    assert not isinstance(decoded, UnknownUpdate), decoded
    for item in adapter.update(decoded):
        apply(state, item)


def test_v1_notices_and_compactions_reach_the_model() -> None:
    state, adapter = SessionState(), V1Adapter()
    for item in adapter.turn_started(1):
        apply(state, item)
    feed(state, adapter, {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limit near"})
    feed(state, adapter, {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"})
    feed(
        state,
        adapter,
        {
            "sessionUpdate": "compaction_summary_chunk",
            "compactionId": "c1",
            "content": {"type": "text", "text": "Kept: the plan."},
        },
    )
    feed(state, adapter, {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"})
    assert [(n.severity, n.title) for n in state.notices] == [("warning", "Rate limit near")]
    compaction = state.compaction("c1")
    assert isinstance(compaction, Compaction)
    assert (compaction.status, compaction.summary.text) == ("completed", "Kept: the plan.")
