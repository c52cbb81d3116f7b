"""Client terminals for v1 agents: run the agent's commands here, visibly and safely (docs/protocol.md §10.2).

Advertised in v1 as `clientCapabilities.terminal: true`, this service answers `terminal/create`,
`terminal/output`, `terminal/wait_for_exit`, `terminal/kill` and `terminal/release`. v2 has no client
terminals: there these methods get -32601. It also advertises the v1 terminal-output extension
(`clientCapabilities._meta.terminal_output` / `terminal_output_delta`), whose tool-call `_meta` the
v1 adapter turns into terminals; that part stays on when client terminals are turned off (the
setting `client_terminals = false`), so an agent that runs its own commands still streams them.

Each command:
- is exec'd (never through a shell; an agent that wants one sends `sh -c` itself) with `env` added to
  ours, in `cwd` (absolute; the session's by default), in a session and process group of its own;
- has stdout and stderr on *one* pipe, so they are merged in the order the program wrote them, and
  stdin on /dev/null (nothing can type into it; a program that reads input sees end of file);
- is read in chunks as the event loop reports them (never a blocking read), into a buffer bounded
  by `outputByteLimit` (1 MiB when the agent sets none, 16 MiB at most): the oldest bytes are
  dropped and `terminal/output` starts at a UTF-8 character boundary, with `truncated: true`;
- is shown live in the timeline as a terminal entity fed with v2-shaped updates (the same widget as
  a v2 display-only terminal): its command and cwd, its output in coalesced chunks (one every 50 ms
  at most, and at most 512 KiB each: a flood shows its newest output and says how much it skipped),
  its exit status and its run time. The user can stop it from its card.

**Pipes, not a PTY.** Measured with `bench/terminal_pty_vs_pipe.py` (100 MB from `yes`: pipes
0.23 s, a PTY 27 MB in 3 s, ~50x slower; `cat` waiting for input: exits at once on pipes, hangs
forever on a PTY; `ls --color=auto`, `git log`: colours, cursor keys mode and pager escapes appear
on a PTY, plain text on pipes; a PTY also turns every `\\n` into `\\r\\n`). The agent reads the output
as text for its model, and ACP gives it no way to type or resize, so plain non-interactive output is
what it needs. The price: a program that buffers its stdout when it is not a terminal (Python
without `PYTHONUNBUFFERED`, C stdio) shows its output in blocks rather than line by line; an agent
can set the variable in `env`. Colours a program emits anyway (`--color=always`) are kept on screen.

**No process outlives its terminal.** `terminal/release`, and `close()` (the session ends, the agent
exits, is restarted, or the app quits), kill the command and everything it started, its `Lineage`
(acp_tui/lineage.py): its process group, and on Linux also what left the group (`setsid`, a double
fork, `nohup`), found by an environment marker and the PPid chain: SIGTERM, then SIGKILL after a short
grace, in rounds until nothing is left. `terminal/kill` does the same and keeps the terminal
queryable. Elsewhere a program that moves itself into a new session escapes its group.

**`terminal/wait_for_exit` and a cancelled turn.** When the user cancels the turn (`session/cancel`),
every pending wait is answered `-32800` at once (docs/protocol.md §1.4: internal cancellations use
-32800), so an agent blocked on a command that never ends can still finish its turn; the command
itself keeps running until the agent kills or releases it (or the session ends). A
`$/cancel_request` for a wait is answered the same way.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, TypeVar

from msgspec import UNSET

from acp_tui.lineage import Lineage
from acp_tui.protocol import codec
from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    REQUEST_CANCELLED,
    Request,
    RpcError,
)
from acp_tui.protocol.terminal import (
    CreateTerminalRequest,
    CreateTerminalResponse,
    EmptyTerminalResponse,
    TerminalOutputResponse,
    TerminalRequest,
    WaitForTerminalExitResponse,
)
from acp_tui.protocol.v2 import TerminalExitStatus, TerminalOutputChunk, TerminalUpdate
from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler
from acp_tui.session.local_events import TerminalTimed
from acp_tui.session.reducer import ModelInput

__all__ = ["TerminalService", "DEFAULT_OUTPUT_LIMIT", "MAX_OUTPUT_LIMIT", "MAX_TERMINALS"]

#: Output kept for the agent when `terminal/create` sets no `outputByteLimit`.
DEFAULT_OUTPUT_LIMIT: Final = 1 << 20
#: The most output kept for the agent, whatever `outputByteLimit` asks (a larger limit truncates here).
MAX_OUTPUT_LIMIT: Final = 16 << 20
#: Terminals that may be open (created, not released) at once for one agent.
MAX_TERMINALS: Final = 64
#: Between SIGTERM and SIGKILL.
KILL_GRACE: Final = 1.0
#: After the command exits, how long to wait for its pipe to close (a background child may hold it open).
EXIT_LINGER: Final = 0.2
#: Output reaches the screen in chunks at most this often...
FLUSH_INTERVAL: Final = 0.05
#: ...and at most this large: a flood shows its newest bytes and says how many it skipped.
DISPLAY_BACKLOG: Final = 1 << 19

#: The params Struct a decoder returns.
_P = TypeVar("_P", CreateTerminalRequest, TerminalRequest)

#: Exit codes a shell uses when it cannot run a command (POSIX "Command Search and Execution").
_NOT_FOUND: Final = 127
_NOT_EXECUTABLE: Final = 126
_V1_ONLY: Final = "ACP v2 has no client terminals (docs/protocol.md §10.2)"


class _Command:
    """One command the agent asked for: its process, its output for the agent, and its live display."""

    def __init__(self, service: TerminalService, terminal_id: str, limit: int) -> None:
        self.service = service
        self.id = terminal_id
        self.limit = limit
        self.loop = asyncio.get_running_loop()
        #: the context of the request that started it: the process's events run in it (see `_Pipe`)
        self.context = contextvars.copy_context()
        #: the output kept for the agent (up to twice `limit` between trims; `output()` returns the newest `limit`)
        self.buffer = bytearray()
        self.truncated = False
        self.pid: int | None = None
        self.transport: asyncio.SubprocessTransport | None = None
        self.returncode: int | None = None
        self.eof = False
        #: resolved once the command exited and its output was read (or `EXIT_LINGER` passed)
        self.exit: asyncio.Future[TerminalExitStatus] = self.loop.create_future()
        #: set once starting it succeeded or failed: only then is there a process group to signal
        self.spawned = asyncio.Event()
        self.released = False
        #: the command and everything it starts, even what leaves its process group (acp_tui/lineage.py)
        self.lineage = Lineage()
        self._pending = bytearray()
        self._skipped = 0
        self._flush: asyncio.TimerHandle | None = None
        self._linger: asyncio.TimerHandle | None = None

    # -- the process's events (from `_Pipe`) --------------------------------------------------------

    def on_output(self, data: bytes) -> None:
        """A chunk of stdout+stderr: keep it for the agent and queue it for the screen."""
        buffer = self.buffer
        buffer += data
        if len(buffer) > 2 * self.limit + 65536:
            del buffer[: len(buffer) - self.limit]
            self.truncated = True
        pending = self._pending
        pending += data
        if len(pending) > DISPLAY_BACKLOG:
            skip = len(pending) - DISPLAY_BACKLOG
            del pending[:skip]
            self._skipped += skip
        if self._flush is None and not self.released:
            self._flush = self.loop.call_later(FLUSH_INTERVAL, self.flush)

    def on_eof(self) -> None:
        self.eof = True
        self.flush()
        if self.returncode is not None:
            self._finish()

    def on_exit(self, returncode: int) -> None:
        self.returncode = returncode
        self.service.apply(TerminalTimed(self.id, ended_at=time.monotonic()))
        if self.eof:
            self._finish()
        else:
            self._linger = self.loop.call_later(EXIT_LINGER, self._finish)

    def _finish(self) -> None:
        """The command is over: show the last output, then its exit status, then answer the waits."""
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None
        if self.exit.done():
            return
        self.flush()
        code = self.returncode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"SIG{-code}"
            status = TerminalExitStatus(signal=name)
        else:
            status = TerminalExitStatus(exit_code=code if code is not None else _NOT_FOUND)
        self.service.apply(TerminalUpdate(terminal_id=self.id, exit_status=status, capabilities=None))
        self.exit.set_result(status)

    def fail(self, message: str, code: int) -> None:
        """The command could not be started: it "ran" as a shell would, printing why and exiting `code`."""
        self.on_output(f"acp-tui: {message}\n".encode())
        self.service.apply(TerminalTimed(self.id, ended_at=time.monotonic()))
        self.returncode = code
        self.eof = True
        self._finish()

    # -- output --------------------------------------------------------------------------------------

    def flush(self) -> None:
        """Send the queued output to the screen as one chunk."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if (not self._pending and not self._skipped) or self.released:
            return
        data = bytes(self._pending)
        self._pending.clear()
        if self._skipped:
            note = f"\x1b[0;2m[acp-tui: {_size(self._skipped)} of output not shown]\x1b[0m\n".encode()
            data = note + data
            self._skipped = 0
        self.service.apply(TerminalOutputChunk(terminal_id=self.id, data=base64.b64encode(data).decode("ascii")))

    def output(self) -> tuple[str, bool]:
        """The retained output as text (cut at a character boundary when truncated), and `truncated`."""
        buffer, truncated = self.buffer, self.truncated
        if len(buffer) > self.limit:
            data = bytes(buffer[len(buffer) - self.limit :])
            truncated = True
        else:
            data = bytes(buffer)
        if truncated:
            start = 0
            while start < min(3, len(data)) and 0x80 <= data[start] <= 0xBF:
                start += 1  # a character whose first bytes were dropped
            data = data[start:]
        if self.returncode is None:
            data = data[: len(data) - _incomplete_tail(data)]  # its last character is still being written
        return data.decode("utf-8", errors="replace"), truncated

    # -- stopping ------------------------------------------------------------------------------------

    async def kill(self, grace: float) -> None:
        """SIGTERM the command and all it started, SIGKILL what is left after `grace`; wait for the exit status."""
        await self.spawned.wait()
        if self.pid is not None:
            await self.lineage.kill(grace)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.exit), EXIT_LINGER + 1.0)

    def dispose(self) -> None:
        """Free the pipes and the buffers (after `kill`)."""
        self.released = True
        for handle in (self._flush, self._linger):
            if handle is not None:
                handle.cancel()
        self._flush = None
        if self.transport is not None:
            self.transport.close()
        self.buffer = bytearray()
        self._pending = bytearray()


class _Pipe(asyncio.SubprocessProtocol):
    """Hands the process's output and exit to its `_Command` as the event loop reports them."""

    def __init__(self, command: _Command) -> None:
        self.command = command

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Before any other event: the exit status and the process group are read from it.
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.command.transport = transport
        self.command.pid = pid = transport.get_pid()
        self.command.lineage.root(pid)

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.command.on_output(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.command.on_eof()

    def process_exited(self) -> None:
        # The child watcher may report this from a callback scheduled by its own thread, which runs in an
        # empty context; what the exit updates (the model, then the UI's timers) needs the caller's.
        command = self.command
        transport = command.transport
        code = transport.get_returncode() if transport is not None else None
        command.loop.call_soon(command.on_exit, code if code is not None else _NOT_FOUND, context=command.context)


class TerminalService:
    """Runs commands for a v1 agent (`terminal/*`) and advertises the terminal-output extension."""

    name = "terminal"

    def __init__(
        self,
        *,
        client_terminals: bool = True,
        default_output_limit: int = DEFAULT_OUTPUT_LIMIT,
        max_terminals: int = MAX_TERMINALS,
        kill_grace: float = KILL_GRACE,
        id_prefix: str | None = None,
    ) -> None:
        #: off: `terminal: false` is advertised and `terminal/*` get -32601 (the setting `client_terminals`)
        self.client_terminals = client_terminals
        self.default_output_limit = default_output_limit
        self.max_terminals = max_terminals
        self.kill_grace = kill_grace
        self._context: ServiceContext | None = None
        self._commands: dict[str, _Command] = {}
        self._released: set[str] = set()
        self._waits: set[asyncio.Future[None]] = set()
        #: terminal ids are `term-<prefix>-<n>`: unique for this service's life, across reconnections
        self._prefix = id_prefix if id_prefix is not None else os.urandom(2).hex()
        self._count = 0

    # -- ClientService -----------------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        v1: dict[str, Any] = {"_meta": {"terminal_output": True, "terminal_output_delta": True}}
        if self.client_terminals:
            v1["terminal"] = True
        return Capabilities(v1=v1)  # nothing in v2: terminals belong to the agent there

    def methods(self) -> Mapping[str, ServiceHandler]:
        if not self.client_terminals:
            return {}
        return {
            "terminal/create": self._create,
            "terminal/output": self._output,
            "terminal/wait_for_exit": self._wait_for_exit,
            "terminal/kill": self._kill,
            "terminal/release": self._release,
        }

    def bind(self, context: ServiceContext) -> None:
        self._context = context

    def turn_cancelled(self) -> None:
        """Answer every pending `terminal/wait_for_exit` -32800; the commands keep running."""
        for cancel in list(self._waits):
            if not cancel.done():
                cancel.set_result(None)

    async def close(self) -> None:
        """Kill every command's process group and free everything (idempotent)."""
        commands = list(self._commands.values())
        self._commands.clear()
        self._released.update(command.id for command in commands)
        self.turn_cancelled()
        await asyncio.gather(*(command.kill(self.kill_grace) for command in commands))
        for command in commands:
            command.dispose()

    # -- for the UI (through the session) -----------------------------------------------------------

    def owns(self, terminal_id: str) -> bool:
        """Is `terminal_id` a command this service runs (and has not released)?"""
        return terminal_id in self._commands

    async def stop_terminal(self, terminal_id: str) -> bool:
        """The user stops a running command from its card (SIGTERM, then SIGKILL); False if not ours.

        The agent sees what any kill looks like: its wait resolves with the signal.
        """
        command = self._commands.get(terminal_id)
        if command is None:
            return False
        await command.kill(self.kill_grace)
        return True

    def apply(self, item: ModelInput) -> None:
        """Feed one update or local event to the session model (nothing once the connection is gone)."""
        if self._context is not None:
            self._context.apply(item)

    # -- the methods -------------------------------------------------------------------------------

    async def _create(self, request: Request) -> CreateTerminalResponse:
        context = self._bound(request)
        params = self._decode(request, codec.decode_create_terminal_request, CreateTerminalRequest)
        if len(self._commands) >= self.max_terminals:
            raise RpcError(INTERNAL_ERROR, f"too many terminals: {len(self._commands)} are open; release some first")
        argv = [params.command, *(params.args or [])]
        env = _environment(params)
        cwd = _working_directory(params, context.cwd)
        limit = params.output_byte_limit
        if isinstance(limit, int) and limit < 0:
            raise RpcError(INVALID_PARAMS, f"Invalid params: outputByteLimit must not be negative ({limit})")
        limit = min(limit, MAX_OUTPUT_LIMIT) if isinstance(limit, int) else self.default_output_limit
        if not params.command or any("\0" in part for part in argv):
            raise RpcError(
                INVALID_PARAMS, "Invalid params: the command and its args must be non-empty text without NUL"
            )

        self._count += 1
        command = _Command(self, f"term-{self._prefix}-{self._count}", limit)
        self._commands[command.id] = command
        self.apply(TerminalUpdate(terminal_id=command.id, command=shlex.join(argv), cwd=cwd))
        self.apply(TerminalTimed(command.id, started_at=time.monotonic()))
        try:
            await command.loop.subprocess_exec(
                lambda: _Pipe(command),
                *argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=command.lineage.environment(env),
                start_new_session=True,
            )
        except FileNotFoundError:
            command.fail(f"cannot run {argv[0]!r}: command not found", _NOT_FOUND)
        except PermissionError:
            command.fail(f"cannot run {argv[0]!r}: permission denied", _NOT_EXECUTABLE)
        except OSError as exc:
            command.fail(f"cannot run {argv[0]!r}: {exc.strerror or exc}", _NOT_EXECUTABLE)
        else:
            if command.released:  # the session closed while it was starting
                command.spawned.set()
                await command.kill(self.kill_grace)
                command.dispose()
            elif command.returncode is None:
                self.apply(TerminalUpdate(terminal_id=command.id, capabilities={"cancel": {}}))  # the user may stop it
        finally:
            command.spawned.set()
        return CreateTerminalResponse(terminal_id=command.id)

    async def _output(self, request: Request) -> TerminalOutputResponse:
        command = self._command(request)
        output, truncated = command.output()
        status = command.exit.result() if command.exit.done() else UNSET
        return TerminalOutputResponse(output=output, truncated=truncated, exit_status=status)

    async def _wait_for_exit(self, request: Request) -> WaitForTerminalExitResponse:
        command = self._command(request)
        cancel: asyncio.Future[None] = command.loop.create_future()
        self._waits.add(cancel)
        try:
            either: set[asyncio.Future[Any]] = {command.exit, cancel}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._waits.discard(cancel)
            cancel.cancel()
        if not command.exit.done():
            raise RpcError(
                REQUEST_CANCELLED,
                f"terminal/wait_for_exit cancelled with the turn; terminal {command.id} keeps running",
            )
        status = command.exit.result()
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def _kill(self, request: Request) -> EmptyTerminalResponse:
        command = self._command(request)
        await command.kill(self.kill_grace)
        return EmptyTerminalResponse()

    async def _release(self, request: Request) -> EmptyTerminalResponse:
        command = self._command(request)
        del self._commands[command.id]
        self._released.add(command.id)
        command.flush()
        await command.kill(self.kill_grace)
        command.dispose()
        return EmptyTerminalResponse()

    # -- helpers -----------------------------------------------------------------------------------

    def _bound(self, request: Request) -> ServiceContext:
        context = self._context
        if context is None or context.version != 1:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method} ({_V1_ONLY})")
        return context

    def _decode(self, request: Request, decoder: Callable[[bytes], _P], target: type[_P]) -> _P:
        try:
            params = decoder(bytes(request.params))
        except MalformedMessage as exc:
            self._report(f"malformed {request.method} params: {exc.reason}", bytes(request.params))
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc.reason}") from None
        assert isinstance(params, target)
        session_id = self._context.session_id() if self._context is not None else None
        if params.session_id != session_id:
            raise RpcError(INVALID_PARAMS, f"Invalid params: unknown session {params.session_id!r}")
        return params

    def _command(self, request: Request) -> _Command:
        self._bound(request)
        params = self._decode(request, codec.decode_terminal_request, TerminalRequest)
        command = self._commands.get(params.terminal_id)
        if command is not None:
            return command
        if params.terminal_id in self._released:
            raise RpcError(INVALID_PARAMS, f"Invalid params: terminal {params.terminal_id!r} was released")
        raise RpcError(INVALID_PARAMS, f"Invalid params: unknown terminal {params.terminal_id!r}")

    def _report(self, reason: str, raw: bytes) -> None:
        if self._context is not None:
            self._context.report(reason, raw)


def _environment(params: CreateTerminalRequest) -> dict[str, str]:
    """Our environment plus the agent's variables (which win)."""
    env = dict(os.environ)
    for variable in params.env or []:
        name, value = variable.name, variable.value
        if not name or "=" in name or "\0" in name or "\0" in value:
            raise RpcError(INVALID_PARAMS, f"Invalid params: bad environment variable name or value {name!r}")
        env[name] = value
    return env


def _working_directory(params: CreateTerminalRequest, default: Path) -> str:
    """The agent's `cwd` (absolute, an existing directory) or the session's."""
    cwd = params.cwd
    if not isinstance(cwd, str):
        return str(default)
    if not os.path.isabs(cwd) or "\0" in cwd:
        raise RpcError(INVALID_PARAMS, f"Invalid params: cwd must be an absolute path, not {cwd!r}")
    if not os.path.isdir(cwd):
        raise RpcError(INVALID_PARAMS, f"Invalid params: cwd {cwd!r} is not a directory")
    return cwd


def _incomplete_tail(data: bytes) -> int:
    """How many bytes at the end of `data` start a UTF-8 character that is not complete yet (0-3)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[len(data) - back]
        if byte < 0x80:
            return 0
        if byte >= 0xC0:  # a lead byte: how long should its character be?
            length = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return back if back < length else 0
    return 0


def _size(count: int) -> str:
    if count >= 1 << 20:
        return f"{count / (1 << 20):.1f} MiB"
    if count >= 1 << 10:
        return f"{count / (1 << 10):.0f} KiB"
    return f"{count} bytes"
