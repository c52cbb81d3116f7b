"""The subagents capability: the client shows child sessions, so the agent may send them (v2 `subagents`).

Nothing to answer here: a child's updates go to its lane (session/subagents.py) and its permission requests
through the one permission queue, labelled with its name (services/permission.py). Claude's ACP adapter
sends its subagents' own sessions only to a client that advertises `subagents` as an object; v1 is not
advertised, since a v1 child's updates would run through the parent's implicit-turn adapter
(docs/protocol.md, *Subagents*).
"""

from __future__ import annotations

from collections.abc import Mapping

from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler


class SubagentService:
    """Advertises `subagents: {}` in v2; answers no method."""

    name = "subagents"

    def capabilities(self) -> Capabilities:
        return Capabilities(v2={"subagents": {}})

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {}

    def bind(self, context: ServiceContext) -> None:
        pass

    def turn_cancelled(self) -> None:
        pass

    async def close(self) -> None:
        pass


__all__ = ["SubagentService"]
