"""v1 session updates and turn events -> the v2 updates the reducer understands (docs/protocol.md §5.6, §4.2).

One `V1Adapter` per v1 session; it is small and stateful because v1 leaves things implicit that the v2
model names: message ids (v1 chunks may have none), the foreground state (a v1 turn is the pending
`session/prompt`), the single plan ("main"), and modes (shown as a select config option). The adapter
only translates; every rule still lives in `reducer.apply`.

Usage by the agent layer, per v1 session:
    adapter = V1Adapter(modes=new_result.modes, config_options=new_result.config_options)
    for u in adapter.initial_updates(): apply(state, u)
    apply(state, PromptSubmitted(rid, blocks)); for u in adapter.turn_started(rid): apply(state, u)
    for each v1 update: for u in adapter.update(v1_update): apply(state, u)
    on the prompt response: for u in adapter.turn_ended(stop_reason): apply(state, u)
    on an error response: for u in adapter.turn_failed(error, after_cancel): apply(state, u)
    on session/request_permission: apply(state, PermissionRequested(id, req)), then
        adapter.permission_requested(req); when answered, adapter.permission_resolved()
"""

from __future__ import annotations

import base64
import itertools
import shlex
from typing import Any, Final

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import ErrorObject
from acp_tui.protocol.methods import RequestPermissionRequest, ToolCallPermissionSubject, V1RequestPermissionRequest
from acp_tui.protocol.v1 import (
    V1AgentMessageChunk,
    V1AgentThoughtChunk,
    V1AvailableCommandsUpdate,
    V1CurrentModeUpdate,
    V1Diff,
    V1Plan,
    V1ToolCall,
    V1ToolCallUpdate,
    V1UserMessageChunk,
)
from acp_tui.protocol.v2 import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandsUpdate,
    CompactionSummaryChunk,
    CompactionUpdate,
    ConfigOptionUpdate,
    Diff,
    DiffChange,
    DiffPatch,
    PlanItems,
    PlanUpdate,
    SessionConfigOption,
    SessionConfigSelect,
    SessionConfigSelectOption,
    StateUpdate,
    TerminalExitStatus,
    TerminalOutput,
    TerminalOutputChunk,
    TerminalRef,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
    UnknownUpdate,
    UserMessageChunk,
)
from acp_tui.session.diffs import unified_diff
from acp_tui.session.local_events import PromptAccepted, ToolCallCreated
from acp_tui.session.model import AGENT_MESSAGE, AGENT_THOUGHT, USER_MESSAGE
from acp_tui.session.reducer import ModelInput

#: The `configId` of the select option that stands for v1 modes (set it with `session/set_mode`).
V1_MODE_CONFIG_ID: Final = "mode"
#: The plan id v1's single plan gets (the RFD's synthetic id).
V1_PLAN_ID: Final = "main"

_TOOL_FIELDS: Final = ("title", "kind", "status", "locations", "raw_input", "raw_output", "name", "meta")

#: The v1 terminal-output extension's keys in a tool call's `_meta` (docs/protocol.md §6.4).
_TERMINAL_META: Final = ("terminal_info", "terminal_output", "terminal_output_delta", "terminal_exit")
#: The fields of a `ToolCallUpdate` that say something (besides its id).
_UPDATE_FIELDS: Final = (*_TOOL_FIELDS, "content")

#: Updates that occupy a timeline slot: one of these between two chunks of a kind starts a new message.
_TIMELINE_KINDS: Final = (PlanUpdate, CompactionUpdate, CompactionSummaryChunk, UnknownUpdate)


class V1Adapter:
    """Translates one v1 session's updates into v2 updates and synthesises its foreground states."""

    def __init__(self, modes: Any = None, config_options: list[SessionConfigOption] | None = None) -> None:
        """`modes` is the v1 `modes` object of session/new|load|resume (a Struct or the decoded dict)."""
        self._counters: dict[str, itertools.count[int]] = {}
        self._current: dict[str, str] = {}
        self._last_kind: str | None = None
        self._in_turn = False
        self._pending_permissions = 0
        self._agent_options: list[SessionConfigOption] = list(config_options or [])
        self._mode_option: SessionConfigSelect | None = _modes_option(modes)
        #: the terminal of each tool call that has one in its `_meta` (the terminal-output extension)
        self._terminals: dict[str, _MetaTerminal] = {}

    def configure(self, modes: Any = None, config_options: list[SessionConfigOption] | None = None) -> None:
        """The setup result arrived (after a `session/load` replay): learn its modes and options, keep the rest.

        The replayed updates already went through this adapter; its message ids and plan stay, so what the
        session says next continues the history instead of colliding with it (docs/protocol.md §3).
        """
        self._agent_options = list(config_options or [])
        self._mode_option = _modes_option(modes)

    # -- state the agent layer may ask about ---------------------------------------------------------

    @property
    def synthetic_modes(self) -> bool:
        """True when the config option `V1_MODE_CONFIG_ID` stands for v1 modes (change it via set_mode)."""
        return self._mode_option is not None and not self._agent_options

    @property
    def in_turn(self) -> bool:
        return self._in_turn

    def initial_updates(self) -> list[ModelInput]:
        """The config options known from session setup, as one `ConfigOptionUpdate` (or nothing)."""
        options = self._options()
        return [ConfigOptionUpdate(config_options=options)] if options else []

    # -- turns (docs/protocol.md §4.2: a v1 turn is the pending session/prompt) ----------------------

    def turn_started(self, request_id: int | str | None = None) -> list[ModelInput]:
        """A v1 prompt was sent: synthesise `running` and, for a prompt, its locally made user message.

        v1 prompt responses carry no message id, so the submission is accepted at once under a local id
        (the prompt is rendered at send time); an agent echo of it continues that same message.
        """
        self._in_turn = True
        self._pending_permissions = 0
        self._last_kind = None
        out: list[ModelInput] = [StateUpdate(state="running")]
        if request_id is not None:
            message_id = self._new_id(USER_MESSAGE)
            self._last_kind = USER_MESSAGE
            out.append(PromptAccepted(request_id, message_id))
        return out

    def turn_ended(self, stop_reason: Any) -> list[ModelInput]:
        """The prompt response arrived: synthesise the idle update with its stop reason."""
        self._in_turn = False
        self._pending_permissions = 0
        self._last_kind = None
        reason = stop_reason if isinstance(stop_reason, str) else UNSET
        return [StateUpdate(state="idle", stop_reason=reason)]

    def turn_failed(self, error: ErrorObject | None, after_cancel: bool = False) -> list[ModelInput]:
        """An error response ends the turn: idle/error with the error, or idle/cancelled after a cancel."""
        self._in_turn = False
        self._pending_permissions = 0
        self._last_kind = None
        if after_cancel:
            return [StateUpdate(state="idle", stop_reason="cancelled")]
        return [StateUpdate(state="idle", stop_reason="error", error=error if error is not None else UNSET)]

    def permission_requested(self, request: Any = None) -> list[ModelInput]:
        """A v1 permission request: its `toolCall` patches that tool call (docs/protocol.md §8: v1 agents put the prompt
        text there), and it blocks the turn, so synthesise `requires_action` (only during a turn)."""
        out: list[ModelInput] = []
        call = getattr(request, "tool_call", None)
        if type(call) is V1ToolCallUpdate:
            out.append(_tool_call(call))
        self._pending_permissions += 1
        if self._in_turn and self._pending_permissions == 1:
            out.append(StateUpdate(state="requires_action"))
        return out

    def permission_resolved(self) -> list[ModelInput]:
        """A v1 permission request was answered: back to `running` once none is pending."""
        if self._pending_permissions == 0:
            return []
        self._pending_permissions -= 1
        if self._in_turn and self._pending_permissions == 0:
            return [StateUpdate(state="running")]
        return []

    # -- updates ---------------------------------------------------------------------------------------

    def update(self, update: Any) -> list[ModelInput]:
        """Translate one decoded v1 update into zero or more v2 updates."""
        kind = type(update)
        if kind is V1AgentMessageChunk:
            return [
                AgentMessageChunk(
                    message_id=self._chunk_id(AGENT_MESSAGE, update.message_id),
                    content=update.content,
                    meta=update.meta,
                )
            ]
        if kind is V1AgentThoughtChunk:
            return [
                AgentThoughtChunk(
                    message_id=self._chunk_id(AGENT_THOUGHT, update.message_id),
                    content=update.content,
                    meta=update.meta,
                )
            ]
        if kind is V1UserMessageChunk:
            return [
                UserMessageChunk(
                    message_id=self._chunk_id(USER_MESSAGE, update.message_id), content=update.content, meta=update.meta
                )
            ]
        if kind is V1ToolCall:
            self._last_kind = "tool_call"
            call, terminal = self._terminal_meta(update, _tool_call(update))
            # a creation: may start a new card (docs/protocol.md §6.1)
            return [ToolCallCreated(call if call is not None else _tool_call(update)), *terminal]
        if kind is V1ToolCallUpdate:
            self._last_kind = "tool_call"
            call, terminal = self._terminal_meta(update, _tool_call(update))
            return [call, *terminal] if call is not None else terminal
        if kind is V1Plan:
            self._last_kind = "plan"
            return [PlanUpdate(plan=PlanItems(plan_id=V1_PLAN_ID, entries=update.entries))]
        if kind is V1AvailableCommandsUpdate:
            return [AvailableCommandsUpdate(available_commands=[_command(c) for c in update.available_commands])]
        if kind is V1CurrentModeUpdate:
            return self._mode_changed(update.current_mode_id)
        if kind is ConfigOptionUpdate:
            self._agent_options = list(update.config_options)
            return [update]
        if isinstance(update, _TIMELINE_KINDS):
            self._last_kind = type(update).__name__
        return [update]

    # -- the terminal-output extension (docs/protocol.md §6.4) --------------------------------------------

    def _terminal_meta(
        self, update: V1ToolCall | V1ToolCallUpdate, call: ToolCallUpdate
    ) -> tuple[ToolCallUpdate | None, list[ModelInput]]:
        """A tool call's `_meta.terminal_info` / `terminal_output` (a snapshot) / `terminal_output_delta`
        (a chunk) / `terminal_exit` as v2 terminal updates, shown in its card like a v2 display-only
        terminal; the tool call keeps the rest of its `_meta`. `None` for a patch left with nothing to say.

        The extension's `data` is text; its terminal is named by `terminal_id` (else the one announced for
        this tool call, else the tool call's id), and shows the command of `rawInput.command`.
        """
        meta = update.meta
        parts = {key: meta[key] for key in _TERMINAL_META if isinstance(meta, dict) and isinstance(meta.get(key), dict)}
        terminal = self._terminals.get(update.tool_call_id)
        if not parts and terminal is None:
            return call, []
        if parts and isinstance(meta, dict):
            kept = {key: value for key, value in meta.items() if key not in _TERMINAL_META}
            call = msgspec.structs.replace(call, meta=kept if kept else UNSET)
        if terminal is None:
            named = next((p["terminal_id"] for p in parts.values() if isinstance(p.get("terminal_id"), str)), "")
            terminal = self._terminals[update.tool_call_id] = _MetaTerminal(named or update.tool_call_id)
        out = terminal.updates(parts, _command_of(call.raw_input))
        call, reference = terminal.shown_by(call, creating=isinstance(update, V1ToolCall))
        if isinstance(update, V1ToolCallUpdate) and all(getattr(call, name) is UNSET for name in _UPDATE_FIELDS):
            return None, [*reference, *out]
        return call, [*reference, *out]

    # -- internals -------------------------------------------------------------------------------------

    def _new_id(self, kind: str) -> str:
        counter = self._counters.setdefault(kind, itertools.count(1))
        message_id = f"local:{kind}:{next(counter)}"
        self._current[kind] = message_id
        return message_id

    def _chunk_id(self, kind: str, message_id: str | None) -> str:
        """The agent's id if it sent one; else continue the current local message or start a new one.
        An agent-named message ends the local one: id-less chunks after it start a new local message."""
        if message_id:
            self._last_kind = kind
            self._current.pop(kind, None)
            return message_id
        if self._last_kind != kind or kind not in self._current:
            self._new_id(kind)
        self._last_kind = kind
        return self._current[kind]

    def _options(self) -> list[SessionConfigOption]:
        if self._agent_options:
            return list(self._agent_options)  # V1 SHOULD: configOptions win over modes
        return [self._mode_option] if self._mode_option is not None else []

    def _mode_changed(self, mode_id: str) -> list[ModelInput]:
        if self._mode_option is None or self._agent_options:
            return []  # no modes advertised, or config options govern
        option = self._mode_option
        self._mode_option = SessionConfigSelect(
            name=option.name,
            current_value=mode_id,
            options=option.options,
            config_id=option.config_id,
            category="mode",
        )
        return [ConfigOptionUpdate(config_options=self._options())]


def _modes_option(modes: Any) -> SessionConfigSelect | None:
    """v1 `modes {currentModeId, availableModes}` as one select option with category "mode"."""
    if modes is None or modes is UNSET:
        return None
    current = _field(modes, "current_mode_id", "currentModeId")
    available = _field(modes, "available_modes", "availableModes") or []
    options: list[SessionConfigSelectOption] = []
    for mode in available:
        mode_id = _field(mode, "id", "id")
        if not isinstance(mode_id, str):
            continue
        name = _field(mode, "name", "name")
        description = _field(mode, "description", "description")
        options.append(
            SessionConfigSelectOption(
                value=mode_id,
                name=name if isinstance(name, str) else mode_id,
                description=description if isinstance(description, str) else UNSET,
            )
        )
    if not options:
        return None
    return SessionConfigSelect(
        name="Mode",
        current_value=current if isinstance(current, str) else options[0].value,
        options=options,
        config_id=V1_MODE_CONFIG_ID,
        category="mode",
    )


def _field(obj: Any, attr: str, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    value = getattr(obj, attr, None)
    return None if value is UNSET else value


class _MetaTerminal(msgspec.Struct):
    """One terminal of the terminal-output extension, as far as it was reported."""

    terminal_id: str
    command: str | None = None
    created: bool = False
    #: the card's content references this terminal (so its updates need no `TerminalRef` added)
    in_card: bool = False

    def updates(self, parts: dict[str, Any], command: str | None) -> list[ModelInput]:
        """The v2 terminal updates for one tool call report: create/patch, then a chunk, then the exit."""
        out: list[ModelInput] = []
        info, snapshot = parts.get("terminal_info"), parts.get("terminal_output")
        patch: dict[str, Any] = {}
        if command is not None and command != self.command:
            self.command = patch["command"] = command
        if info is not None and isinstance(info.get("cwd"), str):
            patch["cwd"] = info["cwd"]
        if snapshot is not None and isinstance(snapshot.get("data"), str):
            patch["output"] = TerminalOutput(data=_b64(snapshot["data"]))
        if patch or not self.created:
            out.append(TerminalUpdate(terminal_id=self.terminal_id, **patch))
            self.created = True
        delta = parts.get("terminal_output_delta")
        if delta is not None and isinstance(delta.get("data"), str) and delta["data"]:
            out.append(TerminalOutputChunk(terminal_id=self.terminal_id, data=_b64(delta["data"])))
        end = parts.get("terminal_exit")
        if end is not None:
            code, sig = end.get("exit_code"), end.get("signal")
            status = TerminalExitStatus(
                exit_code=code if isinstance(code, int) and not isinstance(code, bool) and code >= 0 else UNSET,
                signal=sig if isinstance(sig, str) else UNSET,
            )
            out.append(TerminalUpdate(terminal_id=self.terminal_id, exit_status=status))
        return out

    def shown_by(self, call: ToolCallUpdate, creating: bool) -> tuple[ToolCallUpdate, list[ModelInput]]:
        """Make the card show this terminal (it is the call's terminal): content that leaves it out gets it
        first; a card whose content was never reported gets it appended (a `ToolCallContentChunk`)."""
        content = call.content
        if isinstance(content, list):
            if not any(type(item) is TerminalRef and item.terminal_id == self.terminal_id for item in content):
                call = msgspec.structs.replace(call, content=[TerminalRef(terminal_id=self.terminal_id), *content])
            self.in_card = True
            return call, []
        if self.in_card:
            return call, []
        self.in_card = True
        ref = TerminalRef(terminal_id=self.terminal_id)
        if creating:
            return msgspec.structs.replace(call, content=[ref]), []
        return call, [ToolCallContentChunk(tool_call_id=call.tool_call_id, content=ref)]


def _command_of(raw_input: Any) -> str | None:
    """The command line a tool call's `rawInput` names (`command`: text, or argv as a list)."""
    command = raw_input.get("command") if isinstance(raw_input, dict) else None
    if isinstance(command, str) and command:
        return command
    if isinstance(command, list) and command and all(isinstance(part, str) for part in command):
        return shlex.join(command)
    return None


def _b64(text: str) -> str:
    """Extension output is text; the v2 terminal model takes base64 bytes."""
    return base64.b64encode(text.encode("utf-8", errors="replace")).decode("ascii")


def _tool_call(update: V1ToolCall | V1ToolCallUpdate) -> ToolCallUpdate:
    """A v1 tool_call (create) or tool_call_update (patch) as a v2 upsert; v1 `null` means unchanged."""
    fields: dict[str, Any] = {}
    for name in _TOOL_FIELDS:
        value = getattr(update, name)
        if value is not None and value is not UNSET:
            fields[name] = value
    content = update.content
    if content is not None and content is not UNSET:
        fields["content"] = [_diff(item) if type(item) is V1Diff else item for item in content]
    return ToolCallUpdate(tool_call_id=update.tool_call_id, **fields)


def _diff(item: V1Diff) -> Diff:
    """A v1 whole-file diff as a v2 diff: one change and a locally computed git-style patch (docs/protocol.md
    §6.3), by the hunk model (`session/diffs.py`: bounded however large the texts, a missing final line
    break kept as git's note)."""
    old_text = item.old_text if isinstance(item.old_text, str) else None
    return whole_file_diff(item.path, old_text, item.new_text, item.meta)


def whole_file_diff(file_path: str, old_text: str | None, new_text: str, meta: Any = UNSET) -> Diff:
    """A file's old and new text (None: it does not exist yet) as a v2 diff with a git-style patch, by the hunk
    model (bounded however large the texts)."""
    return Diff(
        changes=[DiffChange(operation="add" if old_text is None else "modify", path=file_path)],
        patch=DiffPatch(format="git_patch", text=unified_diff(file_path, old_text, new_text)),
        meta=meta,
    )


def v2_permission_request(request: V1RequestPermissionRequest) -> RequestPermissionRequest:
    """A v1 permission request in the v2 shape the model and the UI know (docs/protocol.md §8).

    v1 asks only about a tool call: its patch becomes the v2 `tool_call` subject (so the reducer patches
    that call the v2 way) and its title (else its name) the request's title.
    """
    call = request.tool_call
    title = next((v for v in (call.title, call.name) if isinstance(v, str) and v.strip()), "Permission requested")
    return RequestPermissionRequest(
        session_id=request.session_id,
        title=title,
        options=list(request.options),
        subject=ToolCallPermissionSubject(tool_call=_tool_call(call)),
        meta=request.meta,
    )


def _command(command: AvailableCommand) -> AvailableCommand:
    """v1 command input is untagged `{hint}`: treat it as `{type: "text", hint}` (docs/protocol.md §5.6)."""
    if isinstance(command.input, dict) and "type" not in command.input:
        return AvailableCommand(
            name=command.name,
            description=command.description,
            type=command.type,
            input={"type": "text", **command.input},
            meta=command.meta,
        )
    return command


__all__ = ["V1Adapter", "V1_MODE_CONFIG_ID", "V1_PLAN_ID", "v2_permission_request", "whole_file_diff"]
