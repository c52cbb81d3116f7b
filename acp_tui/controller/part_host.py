"""What every composed part of the controller may ask of it (the switcher, the login turns, …).

Each part declares its own host protocol on top of this one (`SwitcherHost`, `LoginTurnsHost`), so "go to
definition" leads from a part to exactly what it uses of `SessionController`, which satisfies them all.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol

from acp_tui.agent.session import AgentSession
from acp_tui.controller.controller_events import Lifecycle, Severity
from acp_tui.controller.prompting import PromptFlow
from acp_tui.launch import Launch


class PartHost(Protocol):
    """The controller as its parts see it: the agent, its phase, its conversation's lines and its tasks."""

    session: AgentSession | None
    #: what started the agent; `launch.headless` (print mode, the check): lines name no key to press
    launch: Launch

    @property
    def phase(self) -> Lifecycle: ...

    @property
    def stopped(self) -> bool: ...

    @property
    def busy(self) -> bool: ...

    def note(self, text: str, severity: Severity = "info", *, detail: str = "") -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        """Run `coro` as the controller's task (cancelled when it shuts down)."""
        ...

    #: the prompts on their way to the agent: `prompts.send_queued()` sends the next one if it can go now
    prompts: PromptFlow


__all__ = ["PartHost"]
