"""How one scripted step is said in the negotiated protocol version.

The scripts speak in neutral terms (a message chunk, a tool call with a diff, a plan); a dialect
turns each into the protocol Structs of `acp_tui.protocol.v2` or `v1`. Steps that exist only in
v2 (state updates, terminals, notices, compactions) are methods of `V2Dialect` alone, and the
turn checks `version` before using them.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

from msgspec import UNSET

from acp_tui.demo import wire
from acp_tui.demo.content import SPARKLE
from acp_tui.protocol import v1, v2
from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.methods import PermissionOption

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True)
class ToolText:
    """Plain text shown in a tool call."""

    text: str


@dataclass(frozen=True)
class ToolDiff:
    """An edit of one file: whole texts (v1) and a git patch (v2)."""

    path: str
    old_text: str | None
    new_text: str
    patch: str


@dataclass(frozen=True)
class ToolTerminal:
    """A terminal shown in a tool call; v1 shows `output` (its text so far) instead."""

    terminal_id: str
    output: str


ToolItem = ToolText | ToolDiff | ToolTerminal


@dataclass(frozen=True)
class PlanStep:
    """One plan entry."""

    content: str
    status: str
    priority: str = "medium"


@dataclass
class ConfigState:
    """The session's two harmless config options."""

    mode: str = "code"
    model: str = "demo-fast"


MODES: tuple[tuple[str, str, str], ...] = (
    ("ask", "Ask", "Answer questions, change nothing"),
    ("code", "Code", "Read and edit files (edits still ask permission)"),
)
MODELS: tuple[tuple[str, str, str], ...] = (
    ("demo-fast", "Demo Fast", "Scripted answers at reading speed"),
    ("demo-smart", "Demo Smart", "The same scripted answers, with more confidence"),
)

PERMISSION_OPTIONS: tuple[PermissionOption, ...] = (
    PermissionOption("allow_once", "Allow once", "allow_once"),
    PermissionOption("allow_always", "Always allow", "allow_always"),
    PermissionOption("reject_once", "Reject", "reject_once"),
    PermissionOption("reject_always", "Always reject", "reject_always"),
)


def strip_ansi(text: str) -> str:
    """Terminal text without colour escapes and carriage returns (v1 shows plain text)."""
    return _ANSI.sub("", text).replace("\r\n", "\n")


def _text(text: str) -> v2.TextContent:
    return v2.TextContent(text=text)


def _select_options(choices: tuple[tuple[str, str, str], ...]) -> list[v2.SessionConfigSelectOption]:
    return [v2.SessionConfigSelectOption(value, name, description) for value, name, description in choices]


class V2Dialect:
    """ACP v2: upserts keyed by id, explicit foreground state, agent-owned terminals."""

    version = 2

    def message_chunk(self, message_id: str, text: str) -> Any:
        return v2.AgentMessageChunk(message_id=message_id, content=_text(text))

    def message(self, message_id: str, text: str) -> Any:
        return v2.AgentMessage(message_id=message_id, content=[_text(text)])

    def thought_chunk(self, message_id: str, text: str) -> Any:
        return v2.AgentThoughtChunk(message_id=message_id, content=_text(text))

    def user_message(self, message_id: str, blocks: list[dict[str, Any]]) -> Any:
        # The prompt's blocks are echoed exactly as received (unknown kinds included).
        return v2.UserMessage(message_id=message_id, content=blocks)  # type: ignore[arg-type]

    def state(self, state: str, stop_reason: str | None = None, error: ErrorObject | None = None) -> Any:
        return v2.StateUpdate(
            state=state,
            stop_reason=UNSET if stop_reason is None else stop_reason,
            error=UNSET if error is None else error,
        )

    def _content(self, item: ToolItem) -> Any:
        if isinstance(item, ToolText):
            return v2.ToolContent(content=_text(item.text))
        if isinstance(item, ToolDiff):
            return v2.Diff(
                changes=[v2.DiffChange(operation="modify" if item.old_text is not None else "add", path=item.path)],
                patch=v2.DiffPatch(format="git_patch", text=item.patch),
            )
        return v2.TerminalRef(terminal_id=item.terminal_id)

    def tool_create(
        self,
        tool_call_id: str,
        title: str,
        kind: str,
        status: str,
        locations: list[tuple[str, int | None]],
        items: list[ToolItem],
        raw_input: Any,
        cancellable: bool = False,
    ) -> Any:
        return v2.ToolCallUpdate(
            tool_call_id=tool_call_id,
            title=title,
            kind=kind,
            status=status,
            content=[self._content(item) for item in items],
            locations=[v2.ToolCallLocation(path, UNSET if line is None else line) for path, line in locations] or UNSET,
            raw_input=UNSET if raw_input is None else raw_input,
            capabilities=v2.ToolCallCapabilities(cancel={}) if cancellable else UNSET,
        )

    def tool_patch(
        self,
        tool_call_id: str,
        *,
        status: str | None = None,
        items: list[ToolItem] | None = None,
        raw_output: Any = None,
        clear_capabilities: bool = False,
    ) -> Any:
        return v2.ToolCallUpdate(
            tool_call_id=tool_call_id,
            status=UNSET if status is None else status,
            content=UNSET if items is None else [self._content(item) for item in items],
            raw_output=UNSET if raw_output is None else raw_output,
            capabilities=None if clear_capabilities else UNSET,
        )

    def tool_chunk(self, tool_call_id: str, item: ToolItem) -> Any:
        return v2.ToolCallContentChunk(tool_call_id=tool_call_id, content=self._content(item))

    def terminal_start(self, terminal_id: str, command: str, cwd: str) -> Any:
        return v2.TerminalUpdate(terminal_id=terminal_id, command=command, cwd=cwd)

    def terminal_output(self, terminal_id: str, text: str) -> Any:
        data = base64.b64encode(text.encode("utf-8")).decode("ascii")
        return v2.TerminalOutputChunk(terminal_id=terminal_id, data=data)

    def terminal_exit(self, terminal_id: str, exit_code: int | None, signal: str | None = None) -> Any:
        status = v2.TerminalExitStatus(
            exit_code=UNSET if exit_code is None else exit_code,
            signal=UNSET if signal is None else signal,
        )
        return v2.TerminalUpdate(terminal_id=terminal_id, exit_status=status)

    def plan(self, plan_id: str, steps: list[PlanStep]) -> Any:
        entries = [v2.PlanEntry(step.content, step.priority, step.status) for step in steps]
        return v2.PlanUpdate(plan=v2.PlanItems(plan_id=plan_id, entries=entries))

    def notice(self, severity: str, title: str, description: str) -> Any:
        return v2.Notice(severity=severity, title=title, description=description)

    def compaction(self, compaction_id: str, status: str, error: str | None = None) -> Any:
        return v2.CompactionUpdate(compaction_id=compaction_id, status=status, error=UNSET if error is None else error)

    def compaction_chunk(self, compaction_id: str, text: str) -> Any:
        return v2.CompactionSummaryChunk(compaction_id=compaction_id, content=_text(text))

    def usage(self, used: int, size: int, amount: float) -> Any:
        return v2.UsageUpdate(used=used, size=size, cost=v2.Cost(round(amount, 4), "USD"))

    def commands(self, commands: dict[str, str]) -> Any:
        return v2.AvailableCommandsUpdate(
            available_commands=[v2.AvailableCommand(name, text, type="command") for name, text in commands.items()]
        )

    def config_options(self, config: ConfigState) -> list[Any]:
        return [
            v2.SessionConfigSelect(config_id=config_id, current_value=getattr(config, config_id), **fields)
            for config_id, fields in _config_option_fields()
        ]

    def permission_request(
        self, session_id: str, title: str, description: str, tool_call: Any
    ) -> wire.PermissionRequest:
        return wire.PermissionRequest(
            session_id=session_id,
            title=title,
            description=description,
            options=list(PERMISSION_OPTIONS),
            subject=wire.ToolCallSubject(tool_call=wire.tool_call_object(tool_call)),
        )

    def sparkle(self) -> dict[str, Any]:
        return {"sessionUpdate": "_demo/sparkle", **SPARKLE}


class V1Dialect:
    """ACP v1: chunks named by the optional `messageId`, tool calls created with `tool_call`, content
    replaced whole.

    The chunks carry their message's id although v1 makes it optional: without one, consecutive chunks
    are one message (docs/protocol.md §5.6), and two scripted messages in a row would run together.
    """

    version = 1

    def message_chunk(self, message_id: str, text: str) -> Any:
        return v1.V1AgentMessageChunk(content=_text(text), message_id=message_id)

    def message(self, message_id: str, text: str) -> Any:
        return v1.V1AgentMessageChunk(content=_text(text), message_id=message_id)

    def thought_chunk(self, message_id: str, text: str) -> Any:
        return v1.V1AgentThoughtChunk(content=_text(text), message_id=message_id)

    def _content(self, item: ToolItem) -> Any:
        if isinstance(item, ToolText):
            return v2.ToolContent(content=_text(item.text))
        if isinstance(item, ToolDiff):
            return v1.V1Diff(path=item.path, new_text=item.new_text, old_text=item.old_text)
        return v2.ToolContent(content=_text(strip_ansi(item.output)))

    def tool_create(
        self,
        tool_call_id: str,
        title: str,
        kind: str,
        status: str,
        locations: list[tuple[str, int | None]],
        items: list[ToolItem],
        raw_input: Any,
        cancellable: bool = False,
    ) -> Any:
        # v1 has no client-side tool-call cancellation: `cancellable` is v2 only.
        return v1.V1ToolCall(
            tool_call_id=tool_call_id,
            title=title,
            kind=kind,
            status=_v1_status(status),
            content=[self._content(item) for item in items],
            locations=[v2.ToolCallLocation(path, UNSET if line is None else line) for path, line in locations] or UNSET,
            raw_input=UNSET if raw_input is None else raw_input,
        )

    def tool_patch(
        self,
        tool_call_id: str,
        *,
        status: str | None = None,
        items: list[ToolItem] | None = None,
        raw_output: Any = None,
        clear_capabilities: bool = False,
    ) -> Any:
        return v1.V1ToolCallUpdate(
            tool_call_id=tool_call_id,
            status=UNSET if status is None else _v1_status(status),
            content=UNSET if items is None else [self._content(item) for item in items],
            raw_output=UNSET if raw_output is None else raw_output,
        )

    def plan(self, plan_id: str, steps: list[PlanStep]) -> Any:
        return v1.V1Plan(entries=[v2.PlanEntry(step.content, step.priority, step.status) for step in steps])

    def usage(self, used: int, size: int, amount: float) -> Any:
        return v2.UsageUpdate(used=used, size=size, cost=v2.Cost(round(amount, 4), "USD"))

    def commands(self, commands: dict[str, str]) -> Any:
        return v1.V1AvailableCommandsUpdate(
            available_commands=[v2.AvailableCommand(name, text) for name, text in commands.items()]
        )

    def config_options(self, config: ConfigState) -> list[Any]:
        return [
            wire.V1SessionConfigSelect(id=config_id, current_value=getattr(config, config_id), **fields)
            for config_id, fields in _config_option_fields()
        ]

    def permission_request(
        self, session_id: str, title: str, description: str, tool_call: Any
    ) -> wire.V1PermissionRequest:
        # v1 has no title/description on the request: the tool call's title carries it.
        return wire.V1PermissionRequest(
            session_id=session_id,
            tool_call=wire.tool_call_object(tool_call),
            options=list(PERMISSION_OPTIONS),
        )


def _v1_status(status: str) -> str:
    """v1 has no `cancelled` tool status: a tool stopped by cancellation did not complete."""
    return "failed" if status == "cancelled" else status


Dialect = V2Dialect | V1Dialect


def _config_option_fields() -> list[tuple[str, dict[str, Any]]]:
    """The demo's two (cosmetic) select options, the same in both versions but for the id's key."""
    return [
        (
            "mode",
            {
                "name": "Mode",
                "options": _select_options(MODES),
                "category": "mode",
                "description": "How the demo agent behaves (cosmetic)",
            },
        ),
        (
            "model",
            {
                "name": "Model",
                "options": _select_options(MODELS),
                "category": "model",
                "description": "Which imaginary model answers (cosmetic)",
            },
        ),
    ]
