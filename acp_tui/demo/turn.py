"""One prompt turn of the demo agent, in protocol-neutral steps the scripts call.

A `Turn` streams text, runs pretend tool calls, asks permission and keeps track of what it left
unfinished, so that cancellation or a scripted failure can give every open tool call, terminal
and compaction a final status before the turn reports how it ended (docs/protocol.md §9.3,
docs/protocol.md §9.2). The dialect decides how each step is said on the wire.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from acp_tui.demo import wire
from acp_tui.demo.dialect import ConfigState, Dialect, PlanStep, ToolItem, ToolTerminal, V2Dialect

SPEED_ENV = "ACP_TUI_DEMO_SPEED"
_CHUNK = re.compile(r"\s*\S+\s*|\s+")


class TurnCancelled(Exception):
    """The user cancelled the turn (a cancelled permission answer)."""


class TurnFailed(Exception):
    """A scripted failure that ends the turn with the `error` stop reason."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Pace:
    """Delays scaled by `ACP_TUI_DEMO_SPEED` (1 = human pace, 0 = no delay, for tests)."""

    def __init__(self, speed: float = 1.0) -> None:
        self.speed = max(0.0, speed)

    @classmethod
    def from_env(cls) -> Pace:
        raw = os.environ.get(SPEED_ENV, "").strip()
        try:
            return cls(float(raw)) if raw else cls()
        except ValueError:
            return cls()

    async def wait(self, seconds: float) -> None:
        """Sleep `seconds` times the speed; at speed 0 still yield so a cancel gets in."""
        await asyncio.sleep(seconds * self.speed)


@dataclass
class SessionData:
    """What the demo remembers about a session between turns."""

    session_id: str
    cwd: str
    config: ConfigState = field(default_factory=ConfigState)
    #: `allow_always` / `reject_always` answers, remembered for later edits.
    standing_permission: str | None = None
    #: True when re-created by `session/resume`: the client may hold entities from before.
    resumed: bool = False
    used_tokens: int = 1200
    cost: float = 0.0
    plans: int = 0
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    # Differs per process, so ids made after a resume never collide with earlier ones.
    _epoch: str = field(default_factory=lambda: uuid.uuid4().hex[:6])

    def new_id(self, prefix: str) -> str:
        """A fresh id, never reused in this session for any entity type."""
        return f"{prefix}-{self._epoch}-{next(self._ids)}"

    def path(self, relative: str) -> str:
        """An absolute path inside the session's working directory."""
        return os.path.join(self.cwd, relative)


class Link(Protocol):
    """The turn's way out: session updates and the permission round trip."""

    async def update(self, session_id: str, update: Any) -> None: ...

    async def notify(self, method: str, params: Any) -> None: ...

    async def request_permission(self, params: Any) -> wire.PermissionAnswer: ...

    #: the elicitation modes the client advertised ("form", "url")
    elicitation_modes: frozenset[str]

    async def elicit(self, params: Any) -> dict[str, Any] | None: ...


class Turn:
    """The steps of one turn; records open entities so an abrupt end can close them."""

    def __init__(self, session: SessionData, dialect: Dialect, pace: Pace, link: Link) -> None:
        self.session = session
        self.dialect = dialect
        self.pace = pace
        self._link = link
        self.open_tools: dict[str, list[ToolItem]] = {}
        self._created: dict[str, Any] = {}
        #: Open tool calls that advertise `capabilities.cancel` (v2), and those the client cancelled.
        self.cancellable: set[str] = set()
        self.cancel_requested: set[str] = set()
        self.open_terminals: set[str] = set()
        self.open_compactions: set[str] = set()
        self.plan_id: str | None = None
        self.plan_steps: list[PlanStep] = []

    @property
    def v2(self) -> V2Dialect | None:
        """The v2 dialect when v2 was negotiated, for the steps only v2 has."""
        return self.dialect if isinstance(self.dialect, V2Dialect) else None

    async def send(self, update: Any) -> None:
        await self._link.update(self.session.session_id, update)

    async def notify(self, method: str, params: Any) -> None:
        """A notification other than `session/update` (v1 extension notifications)."""
        await self._link.notify(method, params)

    # --- text ------------------------------------------------------------------------------------

    async def say(self, text: str, *, delay: float = 0.025) -> None:
        """Stream `text` as one agent message, a word at a time."""
        message_id = self.session.new_id("msg-agent")
        for chunk in _chunks(text):
            await self.send(self.dialect.message_chunk(message_id, chunk))
            await self.pace.wait(delay)

    async def think(self, text: str, *, delay: float = 0.02) -> None:
        """Stream `text` as one agent thought."""
        message_id = self.session.new_id("msg-thought")
        for chunk in _chunks(text):
            await self.send(self.dialect.thought_chunk(message_id, chunk))
            await self.pace.wait(delay)

    # --- tool calls --------------------------------------------------------------------------------

    async def start_tool(
        self,
        title: str,
        kind: str,
        *,
        status: str = "pending",
        locations: Iterable[tuple[str, int | None]] = (),
        items: Iterable[ToolItem] = (),
        raw_input: Any = None,
        cancellable: bool = False,
    ) -> str:
        tool_call_id = self.session.new_id("call")
        content = list(items)
        self.open_tools[tool_call_id] = content
        cancellable = cancellable and self.v2 is not None
        if cancellable:
            self.cancellable.add(tool_call_id)
        created = self.dialect.tool_create(
            tool_call_id, title, kind, status, list(locations), content, raw_input, cancellable
        )
        self._created[tool_call_id] = created
        await self.send(created)
        return tool_call_id

    async def set_tool_status(self, tool_call_id: str, status: str) -> None:
        await self.send(self.dialect.tool_patch(tool_call_id, status=status))

    async def add_tool_item(self, tool_call_id: str, item: ToolItem) -> None:
        """Append content: a v2 chunk, or in v1 the whole content again (v1 replaces it)."""
        content = self.open_tools.setdefault(tool_call_id, [])
        content.append(item)
        if self.v2 is not None:
            await self.send(self.v2.tool_chunk(tool_call_id, item))
        else:
            await self.send(self.dialect.tool_patch(tool_call_id, items=list(content)))

    async def finish_tool(
        self, tool_call_id: str, status: str, *, items: list[ToolItem] | None = None, raw_output: Any = None
    ) -> None:
        self.open_tools.pop(tool_call_id, None)
        was_cancellable = tool_call_id in self.cancellable
        self.cancellable.discard(tool_call_id)
        await self.send(
            self.dialect.tool_patch(
                tool_call_id, status=status, items=items, raw_output=raw_output, clear_capabilities=was_cancellable
            )
        )

    def request_tool_cancel(self, tool_call_id: str) -> bool:
        """`tool_call/cancel`: accepted only for an open tool call that advertises it."""
        if tool_call_id not in self.cancellable:
            return False
        self.cancel_requested.add(tool_call_id)
        return True

    async def run_terminal(
        self, tool_call_id: str, command: str, chunks: Iterable[str], exit_code: int, *, delay: float = 0.3
    ) -> bool:
        """Run a pretend command inside a tool call: a v2 terminal, or v1 text that grows.

        Returns False when the client cancelled the tool call (`tool_call/cancel`, v2) first.
        """
        terminal_id = self.session.new_id("term")
        v2 = self.v2
        if v2 is not None:
            self.open_terminals.add(terminal_id)
            await self.send(v2.terminal_start(terminal_id, command, self.session.cwd))
            await self.add_tool_item(tool_call_id, ToolTerminal(terminal_id, ""))
            for chunk in chunks:
                await self.pace.wait(delay)
                if tool_call_id in self.cancel_requested:
                    break
                await self.send(v2.terminal_output(terminal_id, chunk))
            self.open_terminals.discard(terminal_id)
            if tool_call_id in self.cancel_requested:
                await self.send(v2.terminal_output(terminal_id, "^C\r\n"))
                await self.send(v2.terminal_exit(terminal_id, None, "SIGINT"))
                return False
            await self.send(v2.terminal_exit(terminal_id, exit_code))
            return True
        output = f"$ {command}\n"
        content = self.open_tools.setdefault(tool_call_id, [])
        content.append(ToolTerminal(terminal_id, output))
        for chunk in chunks:
            await self.pace.wait(delay)
            output += chunk
            content[-1] = ToolTerminal(terminal_id, output)
            await self.send(self.dialect.tool_patch(tool_call_id, items=list(content)))
        return True

    async def ask_permission(self, tool_call_id: str, title: str, description: str) -> str:
        """Ask before running a started tool call; return the chosen option id.

        A cancelled answer cancels the turn (the user dismissed the question).
        """
        v2 = self.v2
        if v2 is not None:
            await self.send(v2.state("requires_action"))
        tool_call = self._created[tool_call_id]
        params = self.dialect.permission_request(self.session.session_id, title, description, tool_call)
        answer = await self._link.request_permission(params)
        if answer.outcome.outcome == "cancelled":
            raise TurnCancelled()
        if v2 is not None:
            await self.send(v2.state("running"))
        offered = {option.option_id for option in params.options}
        chosen = answer.outcome.option_id if answer.outcome.outcome == "selected" else None
        # An unknown outcome or an option we did not offer is never approval.
        return chosen if chosen in offered else "reject_once"

    # --- elicitation --------------------------------------------------------------------------------------

    @property
    def elicitation_modes(self) -> frozenset[str]:
        """The elicitation modes the client advertised: a behaviour asks only in those (docs/protocol.md §10.1)."""
        return self._link.elicitation_modes

    async def ask_user(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """Send `elicitation/create` for this session and wait: the client's result, None for an error answer.

        v2 reports `requires_action` while waiting. Cancelling the turn withdraws the question.
        """
        v2 = self.v2
        if v2 is not None:
            await self.send(v2.state("requires_action"))
        answer = await self._link.elicit({"sessionId": self.session.session_id, **request})
        if v2 is not None:
            await self.send(v2.state("running"))
        return answer

    # --- plan ------------------------------------------------------------------------------------------

    async def show_plan(self, steps: list[PlanStep]) -> None:
        if self.plan_id is None:
            self.session.plans += 1
            count = self.session.plans
            first = count == 1 and not self.session.resumed
            self.plan_id = "demo-plan" if first else self.session.new_id("demo-plan")
        self.plan_steps = steps
        await self.send(self.dialect.plan(self.plan_id, steps))

    async def mark_step(self, index: int, status: str) -> None:
        if self.plan_id is None or not 0 <= index < len(self.plan_steps):
            return
        step = self.plan_steps[index]
        self.plan_steps[index] = PlanStep(step.content, status, step.priority)
        await self.send(self.dialect.plan(self.plan_id, self.plan_steps))

    # --- ending ---------------------------------------------------------------------------------------

    async def close_unfinished(self, tool_status: str) -> None:
        """Give every open tool call, terminal and compaction a final status."""
        v2 = self.v2
        for terminal_id in sorted(self.open_terminals):
            if v2 is not None:
                await self.send(v2.terminal_exit(terminal_id, None, "SIGINT"))
        self.open_terminals.clear()
        for tool_call_id in list(self.open_tools):
            await self.finish_tool(tool_call_id, tool_status)
        for compaction_id in sorted(self.open_compactions):
            if v2 is not None:
                status = "cancelled" if tool_status == "cancelled" else "failed"
                await self.send(v2.compaction(compaction_id, status))
        self.open_compactions.clear()


def _chunks(text: str) -> list[str]:
    """Word-sized pieces of `text` that join back to exactly `text`."""
    return _CHUNK.findall(text)
