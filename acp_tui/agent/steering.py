"""Steering: a prompt sent into the turn that is running, instead of queued behind it (docs/protocol.md §4.3).

The ACP v2 schema defines no steering yet; what real agents send is Claude's ACP adapter's extension
(v1 only: its v2 `initialize` strips it): `_meta.steering.supported` in the `initialize` result, and the
request `_session/steering {sessionId, prompt: ContentBlock[], _meta: {steering: {idleBehavior}}}`
answered `{outcome}`: `injected` (the running turn took it), `startedNewTurn` (no turn ran; the agent
began one with it) or `promptRequired` (no turn ran and, as asked by `idleBehavior: "promptRequired"`, the
prompt is left to the client, which sends it as a plain `session/prompt`). We always ask for
`promptRequired`, so a prompt whose turn just ended goes through the one prompt path, with its own turn.
An agent that advertises the same extension under v2 gets the same request.

Each request is answered once or given up after `STEER_TIMEOUT` (a `$/cancel_request` follows); a taken
prompt becomes a user message of the client's (`PromptSteered`: the agent echoes none).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any, Final, Literal, TypeAlias

import msgspec

from acp_tui.agent.connection import Connection
from acp_tui.protocol import methods
from acp_tui.protocol.common import Meta, Patch, WireStruct
from acp_tui.protocol.v2 import ContentBlock
from acp_tui.session.local_events import PromptSteered
from acp_tui.session.reducer import ModelInput

STEER_METHOD: Final = "_session/steering"
#: how long a steer may wait for its answer before it is given up (and the prompt goes back to the queue)
STEER_TIMEOUT: Final = 15.0

#: What became of a steered prompt.
SteerOutcome: TypeAlias = Literal["injected", "startedNewTurn", "promptRequired"]
OUTCOMES: Final = ("injected", "startedNewTurn", "promptRequired")


class SteerFailed(Exception):
    """The agent did not take the prompt (an unreadable answer, no answer in time, or steering not offered)."""


class SteerRequest(WireStruct):
    """`_session/steering` params (Claude's ACP adapter, `parseSteerRequest`)."""

    session_id: str
    prompt: list[ContentBlock]
    meta: Patch[Meta] = msgspec.field(
        default_factory=lambda: {"steering": {"idleBehavior": "promptRequired"}}, name="_meta"
    )


class _SteerResult(msgspec.Struct, forbid_unknown_fields=False):
    outcome: str


def steering_offered(init: methods.InitializeResponse | None) -> bool:
    """Does the agent's `initialize` result advertise `_meta.steering.supported: true`?"""
    meta: Any = init.meta if init is not None else None
    steering = meta.get("steering") if isinstance(meta, dict) else None
    return isinstance(steering, dict) and steering.get("supported") is True


class Steering:
    """Sends steers on one connection; the session's model learns what the agent took."""

    def __init__(
        self,
        connection: Connection,
        init: Callable[[], methods.InitializeResponse | None],
        session_id: Callable[[], str | None],
        apply: Callable[[ModelInput], None],
        *,
        timeout: float = STEER_TIMEOUT,
    ) -> None:
        self._connection = connection
        self._init = init
        self._session_id = session_id
        self._apply = apply
        self.timeout = timeout
        self._ids = itertools.count(1)

    @property
    def offered(self) -> bool:
        return steering_offered(self._init())

    async def steer(self, blocks: list[ContentBlock]) -> SteerOutcome:
        """Steer `blocks` into the running turn; raises `SteerFailed`, `RpcError` or `ConnectionClosed`."""
        session_id = self._session_id()
        if not self.offered or session_id is None:
            raise SteerFailed("this agent does not offer steering")
        request = SteerRequest(session_id=session_id, prompt=list(blocks))
        try:
            raw = await asyncio.wait_for(self._connection.request(STEER_METHOD, request), self.timeout)
        except TimeoutError:
            raise SteerFailed(f"the agent did not answer the steer within {self.timeout:g}s") from None
        try:
            outcome = msgspec.json.decode(bytes(raw), type=_SteerResult).outcome
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise SteerFailed(f"the agent's answer to the steer could not be read: {exc}") from None
        if outcome == "promptRequired":
            return "promptRequired"
        if outcome not in ("injected", "startedNewTurn"):
            raise SteerFailed(f"the agent answered the steer with an unknown outcome {outcome[:40]!r}")
        self._apply(PromptSteered(f"steer-{next(self._ids)}", list(blocks), injected=outcome == "injected"))
        return "injected" if outcome == "injected" else "startedNewTurn"


__all__ = ["OUTCOMES", "STEER_METHOD", "STEER_TIMEOUT", "SteerFailed", "SteerOutcome", "SteerRequest", "Steering"]
__all__ += ["steering_offered"]
