"""Wire types of the terminal methods (docs/protocol.md §10.2, §6.4).

v1 client-owned terminals (public page v1 **Terminals**): the agent asks the client to run a command
(`terminal/create`), reads its output (`terminal/output`), waits for it (`terminal/wait_for_exit`),
stops it (`terminal/kill`) and frees it (`terminal/release`). These are agent→client requests, so the
client decodes their params and encodes their results.

v2 agent-owned terminals: the client may ask the agent to stop one with `terminal/cancel` while the
terminal advertises `capabilities.cancel` (v2 **Tool Calls**, *Cancelling Terminals*).

Decoding is tolerant like every other decoder in `acp_tui.protocol.codec`: unknown keys are ignored,
a malformed optional field is dropped (the schema marks them `x-deserialize-default-on-error`), and
`null` for `args`/`env` means empty (`x-deserialize-default-on-null`).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import Meta, Patch, WireStruct
from acp_tui.protocol.v2 import TerminalExitStatus


def _meta() -> Any:
    """The `_meta` field of a Struct: kept as decoded, omitted when absent."""
    return msgspec.field(default=UNSET, name="_meta")


# --- v1 requests the agent sends (schema `*TerminalRequest`, x-side client) ------------------------


class EnvVariable(WireStruct):
    """One environment variable to set for the command (schema `EnvVariable`)."""

    name: str
    value: str
    meta: Patch[Meta] = _meta()


class CreateTerminalRequest(WireStruct):
    """`terminal/create` params (schema `CreateTerminalRequest`): run `command` with `args`.

    `cwd` must be absolute; `output_byte_limit` bounds the retained output (truncated from the front).
    """

    session_id: str
    command: str
    args: Patch[list[str]] = UNSET
    env: Patch[list[EnvVariable]] = UNSET
    cwd: Patch[str] = UNSET
    output_byte_limit: Patch[int] = UNSET
    meta: Patch[Meta] = _meta()


class TerminalRequest(WireStruct):
    """The params of `terminal/output`, `terminal/wait_for_exit`, `terminal/kill` and `terminal/release`
    (schema `TerminalOutputRequest`, `WaitForTerminalExitRequest`, `KillTerminalRequest`,
    `ReleaseTerminalRequest`: the same two fields)."""

    session_id: str
    terminal_id: str
    meta: Patch[Meta] = _meta()


# --- v1 results the client sends (schema `*TerminalResponse`) ----------------------------------------


class CreateTerminalResponse(WireStruct):
    """`terminal/create` result: the new terminal's id (schema `CreateTerminalResponse`)."""

    terminal_id: str
    meta: Patch[Meta] = _meta()


class TerminalOutputResponse(WireStruct):
    """`terminal/output` result (schema `TerminalOutputResponse`): `output` and `truncated` are required.

    `exit_status` (the v1 `TerminalExitStatus`, the same shape as v2's) is left out while the command runs.
    """

    output: str
    truncated: bool
    exit_status: Patch[TerminalExitStatus] = UNSET
    meta: Patch[Meta] = _meta()


class WaitForTerminalExitResponse(WireStruct):
    """`terminal/wait_for_exit` result (schema `WaitForTerminalExitResponse`)."""

    exit_code: Patch[int] = UNSET
    signal: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class EmptyTerminalResponse(WireStruct):
    """`terminal/kill` and `terminal/release` results (schema `KillTerminalResponse`, `ReleaseTerminalResponse`)."""

    meta: Patch[Meta] = _meta()


# --- v2: the client cancels an agent-owned terminal (schema `CancelTerminalRequest`, x-side agent) --


class CancelTerminalRequest(WireStruct):
    """v2 `terminal/cancel` params; send only while the terminal advertises `capabilities.cancel`."""

    session_id: str
    terminal_id: str
    meta: Patch[Meta] = _meta()


#: The v1 terminal methods a client answers once it advertised `clientCapabilities.terminal`.
V1_TERMINAL_METHODS = (
    "terminal/create",
    "terminal/output",
    "terminal/wait_for_exit",
    "terminal/kill",
    "terminal/release",
)
#: The v2 method that asks the agent to stop one of its terminals.
CANCEL_TERMINAL_METHOD = "terminal/cancel"

__all__ = [
    "CANCEL_TERMINAL_METHOD",
    "V1_TERMINAL_METHODS",
    "CancelTerminalRequest",
    "CreateTerminalRequest",
    "CreateTerminalResponse",
    "EmptyTerminalResponse",
    "EnvVariable",
    "TerminalOutputResponse",
    "TerminalRequest",
    "WaitForTerminalExitResponse",
]
