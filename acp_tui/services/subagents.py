"""The subagents capability: the client shows child sessions, so the agent may send them (v2 `subagents`).

Nothing to answer here: a child's updates go to its lane (session/subagents.py) and its permission requests
through the one permission queue, labelled with its name (services/permission.py). Claude's ACP adapter
sends its subagents' own sessions only to a client that advertises `subagents` as an object, in v2 and
in v1 (where each child gets its own v1 adapter, `V1Dialect.child_update`; docs/protocol.md §10.6).
"""

from __future__ import annotations

from collections.abc import Mapping

from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler


class SubagentService:
    """Advertises `subagents: {}` (v2 `capabilities`, v1 `clientCapabilities`); answers no method."""

    name = "subagents"

    def capabilities(self) -> Capabilities:
        return Capabilities(v2={"subagents": {}}, v1={"subagents": {}})

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {}

    def bind(self, context: ServiceContext) -> None:
        pass

    def turn_cancelled(self) -> None:
        pass

    async def close(self) -> None:
        pass


__all__ = ["SubagentService"]
