"""The agent subprocess (docs/protocol.md §1.1): spawn without a shell, pump stdout and stderr, shut down for sure.

The agent runs in its own session and process group, so Ctrl-C in our terminal never reaches it,
and shutdown can signal everything it started. stdout is read in large chunks (no readline
limit) and handed to one consumer callback; stderr is drained continuously (a full stderr pipe
would otherwise stall the agent) into a bounded ring of its newest bytes.

`start()` spawns the agent (acp_tui/agent/spawn.py), or claims the one the command line started before the
UI was imported (acp_tui/agent/early_agent.py), then adopts it: its pipes are connected to the event loop and
its exit is watched (acp_tui/agent/child_exit.py). Everything after that is one path, however it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import IO

import msgspec

from acp_tui.agent.child_exit import watch_exit
from acp_tui.agent.spawn import PIPE_BYTES, Spawned, SpawnError, spawn
from acp_tui.launch import PreSpawned
from acp_tui.lineage import Lineage, kill_all

#: How long to keep reading stdout/stderr after the agent exits: a grandchild may hold the pipes.
_PIPE_LINGER = 0.5
#: Event-loop passes the pumps get after the linger, to take bytes the loop already read.
_LAST_PASSES = 4
#: stderr lines longer than this are passed on in pieces.
_STDERR_LINE_MAX = 64 * 1024
#: After the agent exits, how long what it left behind gets between SIGTERM and SIGKILL.
_CRASH_GRACE = 1.0
#: How much of the stderr ring an exit event carries.
_TAIL_BYTES = 16 * 1024


class AgentNotRunning(Exception):
    """Raised when writing to an agent whose stdin is closed or which has exited."""


class ExitInfo(msgspec.Struct, frozen=True):
    """How the agent ended: an exit code, or the signal that killed it, and its last stderr."""

    code: int | None
    signal: int | None
    stderr_tail: str

    def describe(self) -> str:
        """One line such as "exited with code 1" or "killed by SIGKILL"."""
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            return f"killed by {name}"
        return f"exited with code {self.code}"


class AgentProcess:
    """One agent subprocess; the byte transport under a `Connection`."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr_limit: int = 1 << 20,
        on_stderr: Callable[[str], None] | None = None,
        read_size: int = 1 << 18,
        early: PreSpawned | None = None,
    ) -> None:
        """`early`: an agent the command line started already, used by `start()` if it is this one (same
        argv, folder and environment); otherwise `start()` spawns."""
        if not argv:
            raise SpawnError("no agent command given")
        self.argv = list(argv)
        self.cwd = cwd
        self.env_overrides = dict(env or {})
        self.on_stderr = on_stderr
        self._stderr_limit = stderr_limit
        self._read_size = read_size
        self._early = early
        self._popen: subprocess.Popen[bytes] | None = None
        self._stdin: asyncio.StreamWriter | None = None
        self._stdout: asyncio.StreamReader | None = None
        self._stderr: asyncio.StreamReader | None = None
        self._stderr_ring = bytearray()
        self._stderr_partial = bytearray()
        self._stderr_total = 0
        self._reader: asyncio.Task[None] | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._exited: asyncio.Future[ExitInfo] | None = None
        self._returncode: asyncio.Future[int] | None = None
        self._on_close: Callable[[ExitInfo], None] | None = None
        #: the agent and everything it starts, even what leaves its group (acp_tui/lineage.py)
        self.lineage = Lineage()
        self._sweep: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        """The agent's pid (also its process group id), once started."""
        return self._popen.pid if self._popen is not None else None

    @property
    def running(self) -> bool:
        """True between a successful `start()` and the exit event."""
        return self._exited is not None and not self._exited.done()

    @property
    def stderr_bytes_seen(self) -> int:
        """Total stderr bytes received, of which only the newest `stderr_limit` are kept."""
        return self._stderr_total

    async def start(self) -> None:
        """Spawn the agent (exec, never a shell) in a new session, or claim the early one; raise `SpawnError` on
        failure (an early spawn's failure is raised here too, as if it had happened now)."""
        if self._popen is not None:
            raise RuntimeError("the agent was already started")
        env = {**os.environ, **self.env_overrides}
        early, self._early = self._early, None
        claimed = early.claim(self.argv, self.cwd, env) if early is not None else None
        if claimed is None:
            claimed = spawn(self.argv, cwd=self.cwd, env=env, lineage=self.lineage)
        await self._adopt(Spawned(*claimed))

    async def _adopt(self, spawned: Spawned) -> None:
        """Take charge of a started agent: learn of its exit as it happens, connect its pipes, drain stderr.

        The exit is watched before the first await: from here on `shutdown()` can stop it, however far this got.
        """
        loop = asyncio.get_running_loop()
        process = self._popen = spawned.process
        self.lineage = spawned.lineage
        self._exited = loop.create_future()
        self._returncode = loop.create_future()
        watch_exit(process, self._returncode, loop=loop)
        try:
            self._stdout = await _reader(loop, process.stdout)
            self._stderr = await _reader(loop, process.stderr)
            self._stdin = await _writer(loop, process.stdin)
            self._stderr_task = loop.create_task(self._pump_stderr())
        except BaseException:
            # cancelled while connecting: the pipes not connected yet are closed now, not when the collector
            # finds them (the agent's stdin among them: it reads the end of its input)
            for pipe, connected in (
                (process.stdout, self._stdout),
                (process.stderr, self._stderr),
                (process.stdin, self._stdin),
            ):
                if pipe is not None and connected is None:
                    with contextlib.suppress(OSError):
                        pipe.close()
            raise
        finally:
            # after the stderr pump (the exit event quotes its tail), and even if this was cancelled meanwhile:
            # the exit is still told, and `shutdown()` still ends
            self._watcher = loop.create_task(self._watch())

    def start_reading(self, on_data: Callable[[bytes], None], on_close: Callable[[ExitInfo], None]) -> None:
        """Deliver stdout chunks to `on_data`, then exactly one `on_close` after the agent exits."""
        if self._stdout is None or self._exited is None:
            raise AgentNotRunning("the agent was not started")
        if self._reader is not None:
            raise RuntimeError("stdout already has a reader")
        self._on_close = on_close
        self._reader = asyncio.get_running_loop().create_task(self._pump_stdout(on_data))
        if self._exited.done():
            on_close(self._exited.result())

    async def write(self, data: bytes) -> None:
        """Write bytes to the agent's stdin and wait for the pipe to drain."""
        stdin = self._stdin
        if stdin is None or self._returncode is None:
            raise AgentNotRunning("the agent was not started")
        if self._returncode.done() or stdin.is_closing():
            raise AgentNotRunning("the agent is not running")
        try:
            stdin.write(data)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError) as exc:
            raise AgentNotRunning(f"the agent closed its input ({exc.__class__.__name__})") from None

    async def wait(self) -> ExitInfo:
        """Wait for the exit event."""
        if self._exited is None:
            raise AgentNotRunning("the agent was not started")
        return await asyncio.shield(self._exited)

    def stderr_tail(self, max_bytes: int | None = None) -> str:
        """The newest stderr text (at most `max_bytes`, default the whole ring), invalid bytes replaced."""
        ring = self._stderr_ring
        limit = self._stderr_limit if max_bytes is None else max_bytes
        data = bytes(ring[-limit:]) if len(ring) > limit else bytes(ring)
        return data.decode("utf-8", errors="replace")

    async def close_stdin(self) -> None:
        """Signal end of input; a well-behaved agent exits on its own."""
        stdin = self._stdin
        if stdin is None or stdin.is_closing():
            return
        with contextlib.suppress(OSError, RuntimeError):
            stdin.close()
            await stdin.wait_closed()

    async def shutdown(
        self, *, stdin_grace: float = 2.0, term_grace: float = 2.0, sweep_grace: float | None = None
    ) -> ExitInfo | None:
        """Close stdin, then SIGTERM, then SIGKILL the whole group, then its lineage; nothing of it survives.

        `sweep_grace` (default `term_grace`) is what the lineage left outside the group gets between its
        SIGTERM and SIGKILL."""
        if self._popen is None or self._exited is None:
            return None
        await self.close_stdin()
        if not await self._wait_exit(stdin_grace):
            self._signal_group(signal.SIGTERM)
            if not await self._wait_exit(term_grace):
                self._signal_group(signal.SIGKILL)
                await self._wait_exit(None)
        # The leader is gone; what it started (in its group or not) is not.
        await self._sweep_lineage(term_grace if sweep_grace is None else sweep_grace)
        return await self.wait()

    async def _sweep_lineage(self, grace: float) -> None:
        """Kill what the agent left behind, once at a time (its exit starts it; shutdown waits for it)."""
        if self._sweep is None or self._sweep.done():
            self._sweep = asyncio.get_running_loop().create_task(self._kill_lineage(grace))
        await asyncio.shield(self._sweep)

    async def _kill_lineage(self, grace: float) -> None:
        # Orphans we adopted that cleared their environment cannot be told apart: the agent's life is theirs.
        await kill_all([self.lineage], grace, strangers=True)

    async def _wait_exit(self, timeout: float | None) -> bool:
        assert self._returncode is not None
        try:
            await asyncio.wait_for(asyncio.shield(self._returncode), timeout)
        except TimeoutError:
            return False
        return True

    def _signal_group(self, sig: signal.Signals) -> None:
        assert self._popen is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._popen.pid, sig)

    async def _pump_stdout(self, on_data: Callable[[bytes], None]) -> None:
        assert self._stdout is not None
        stdout = self._stdout
        size = self._read_size
        while True:
            try:
                data = await stdout.read(size)
            except (OSError, ValueError) as exc:
                # Nothing more can be heard from the agent: stop it, so its exit says what happened
                # instead of a turn that shows `working…` for good.
                self._emit_stderr_line(
                    f"acp-tui: reading the agent's output failed ({exc.__class__.__name__}: {exc}); "
                    "stopping the agent".encode()
                )
                self._signal_group(signal.SIGTERM)
                return
            if not data:
                return
            try:
                on_data(data)
            except Exception as exc:  # noqa: BLE001 - the consumer must not end the reading (the Connection catches per line)
                self._emit_stderr_line(
                    f"acp-tui: handling the agent's output failed ({exc.__class__.__name__}: {exc})".encode()
                )

    async def _pump_stderr(self) -> None:
        assert self._stderr is not None
        stderr = self._stderr
        while True:
            data = await stderr.read(1 << 16)
            if not data:
                break
            self._take_stderr(data)
        if self._stderr_partial:
            self._emit_stderr_line(bytes(self._stderr_partial))
            self._stderr_partial.clear()

    def _take_stderr(self, data: bytes) -> None:
        self._stderr_total += len(data)
        ring = self._stderr_ring
        ring += data
        if len(ring) > 2 * self._stderr_limit:
            del ring[: len(ring) - self._stderr_limit]
        if self.on_stderr is None:
            return
        partial = self._stderr_partial
        partial += data
        last = partial.rfind(b"\n")
        if last >= 0:
            for line in bytes(partial[:last]).split(b"\n"):
                self._emit_stderr_line(line)
            del partial[: last + 1]
        while len(partial) > _STDERR_LINE_MAX:
            self._emit_stderr_line(bytes(partial[:_STDERR_LINE_MAX]))
            del partial[:_STDERR_LINE_MAX]

    def _emit_stderr_line(self, line: bytes) -> None:
        if self.on_stderr is not None:
            self.on_stderr(line.rstrip(b"\r").decode("utf-8", errors="replace"))

    async def _watch(self) -> None:
        """Turn the process exit into one exit event, after the pipes had a moment to drain."""
        assert self._returncode is not None and self._exited is not None
        returncode = await self._returncode
        pumps = [t for t in (self._reader, self._stderr_task) if t is not None]
        if pumps:
            _done, lingering = await asyncio.wait(pumps, timeout=_PIPE_LINGER)
            if lingering:
                # A loop that stalled past the linger read the last bytes in the same pass as the timeout:
                # a few more passes let the pumps take what is already buffered (the stderr tail of the banner).
                for _ in range(_LAST_PASSES):
                    await asyncio.sleep(0)
                lingering = {task for task in lingering if not task.done()}
            # A grandchild holds the pipe open: stop listening, the agent itself is gone.
            for task in lingering:
                task.cancel()
        code, sig = (None, -returncode) if returncode < 0 else (returncode, None)
        tail = self.stderr_tail(_TAIL_BYTES)
        info = ExitInfo(code=code, signal=sig, stderr_tail=tail)
        self._exited.set_result(info)
        # The agent may have crashed: after its last words (the linger above), nothing it started outlives it.
        if self._sweep is None:
            self._sweep = asyncio.get_running_loop().create_task(self._kill_lineage(_CRASH_GRACE))
        if self._on_close is not None:
            self._on_close(info)


READ_AHEAD = 1 << 22
"""Bytes read from the agent's pipes and not yet consumed before reading pauses (the stream protocol pauses
at twice this). While the app is busy drawing a frame the agent goes on writing: this much (and the pipe)
takes it without holding the agent back, and caps what we hold for it (issue 27)."""


async def _reader(loop: asyncio.AbstractEventLoop, pipe: IO[bytes] | None) -> asyncio.StreamReader:
    """A pipe from the agent as a stream that stops reading at `READ_AHEAD` unconsumed bytes (as
    `create_subprocess_exec`'s streams do)."""
    assert pipe is not None
    reader = asyncio.StreamReader(limit=READ_AHEAD, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    return reader


async def _writer(loop: asyncio.AbstractEventLoop, pipe: IO[bytes] | None) -> asyncio.StreamWriter:
    """The agent's stdin as a stream: the stream protocol gives `drain` its flow control and `wait_closed` its
    end (its reader, which a write pipe never feeds, is there because the protocol wants one)."""
    assert pipe is not None
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop), pipe
    )
    return asyncio.StreamWriter(transport, protocol, None, loop)


__all__ = ["PIPE_BYTES", "AgentProcess", "AgentNotRunning", "ExitInfo", "SpawnError"]
