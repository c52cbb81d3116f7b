"""Turns whose end is the answer to their `session/prompt`: v1's, and a v2 agent's that answered like v1.

A v1 turn is the pending `session/prompt` (docs/protocol.md §4.2): its start and end become the dialect's
synthesised `running`/`idle` inputs, so everything above sees one v2-shaped model either way.
`AgentSession` owns one (`session.turns`) and is its `TurnHost`: the connection the request goes on, and
the model's one writer.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import msgspec

from acp_tui.agent.connection import Connection, ConnectionClosed, WireProblem
from acp_tui.agent.dialect import Dialect, V1Dialect
from acp_tui.protocol import codec, methods
from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.session.account import QUOTA_META, decode_quota
from acp_tui.session.local_events import TurnTokensReported
from acp_tui.session.reducer import ModelInput


class TurnHost(Protocol):
    """What the turns need of their session: its connection and its model's writer."""

    @property
    def connection(self) -> Connection: ...

    def apply(self, item: ModelInput) -> None: ...

    def report(self, problem: WireProblem) -> None: ...


class V1Turns:
    """Runs each v1 turn as a task until its `session/prompt` is answered; cancelled with the session."""

    def __init__(self, host: TurnHost) -> None:
        self._host = host
        #: the current turn was cancelled (a v1 error after a cancel ends it `cancelled`)
        self.cancelled = False
        self._turns: set[asyncio.Task[None]] = set()

    def run(self, dialect: V1Dialect, request_id: int, params: methods.PromptRequest) -> None:
        """Await the turn's `session/prompt` in its own task (the prompt returns once the message is shown)."""
        task = asyncio.get_running_loop().create_task(self._v1_turn(dialect, request_id, params))
        self._turns.add(task)
        task.add_done_callback(self._turns.discard)

    def cancel_all(self) -> None:
        """The agent is being stopped: no turn waits for its answer any longer."""
        for task in list(self._turns):
            task.cancel()

    def start(self, dialect: Dialect, request_id: int) -> str:
        items = dialect.turn_started(request_id)
        for item in items:
            self._host.apply(item)
        return dialect.message_accepted(items)

    async def _v1_turn(self, dialect: V1Dialect, request_id: int, params: methods.PromptRequest) -> None:
        """A v1 turn lasts as long as its `session/prompt` request (docs/protocol.md §4.2)."""
        try:
            raw = await self._host.connection.request("session/prompt", params, request_id=request_id)
        except RpcError as exc:
            for item in dialect.turn_failed(exc.to_object(), after_cancel=self.cancelled):
                self._host.apply(item)
            return
        except ConnectionClosed:
            return
        self.end(dialect, raw)

    def end(self, dialect: Dialect, raw: msgspec.Raw) -> None:
        """The turn's answer: its stop reason ends it; codex-acp's `_meta.quota` (its tokens) is kept."""
        try:
            result = codec.decode_prompt_result(bytes(raw), 1)
            stop_reason: Any = result.stop_reason
        except MalformedMessage as exc:
            self._host.report(WireProblem(f"session/prompt result: {exc.reason}", bytes(raw)))
            stop_reason = None
        else:
            meta = result.meta
            if isinstance(meta, dict) and QUOTA_META in meta:
                tokens = decode_quota(meta[QUOTA_META])
                detail = "" if tokens is not None else repr(meta[QUOTA_META])[:500]
                self._host.apply(TurnTokensReported(tokens, detail))
        for item in dialect.turn_ended(stop_reason):
            self._host.apply(item)


__all__ = ["TurnHost", "V1Turns"]
