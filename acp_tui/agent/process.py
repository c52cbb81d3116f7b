"""The agent subprocess (docs/protocol.md §1.1): spawn without a shell, pump stdout and stderr, shut down for sure.

The agent runs in its own session and process group, so Ctrl-C in our terminal never reaches it,
and shutdown can signal everything it started. stdout is read in large chunks (no readline
limit) and handed to one consumer callback; stderr is drained continuously (a full stderr pipe
would otherwise stall the agent) into a bounded ring of its newest bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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


class SpawnError(Exception):
    """The agent could not be started; the message is one line fit for the user."""


class AgentNotRunning(Exception):
    """Raised when writing to an agent whose stdin is closed or which has exited."""


@dataclass(frozen=True, slots=True)
class ExitInfo:
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
    ) -> None:
        if not argv:
            raise SpawnError("no agent command given")
        self.argv = list(argv)
        self.cwd = cwd
        self.env_overrides = dict(env or {})
        self.on_stderr = on_stderr
        self._stderr_limit = stderr_limit
        self._read_size = read_size
        self._proc: asyncio.subprocess.Process | None = None
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
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        """True between a successful `start()` and the exit event."""
        return self._exited is not None and not self._exited.done()

    @property
    def stderr_bytes_seen(self) -> int:
        """Total stderr bytes received, of which only the newest `stderr_limit` are kept."""
        return self._stderr_total

    async def start(self) -> None:
        """Spawn the agent (exec, never a shell) in a new session; raise `SpawnError` on failure.

        This is `asyncio.create_subprocess_exec` spelled out, to learn of the exit as it happens.
        """
        env = self.lineage.environment({**os.environ, **self.env_overrides})
        loop = asyncio.get_running_loop()
        self._exited = loop.create_future()
        self._returncode = returncode = loop.create_future()
        try:
            transport, protocol = await loop.subprocess_exec(
                lambda: _ExitAwareProtocol(loop, returncode),
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            missing = exc.filename if exc.filename else self.argv[0]
            if self.cwd is not None and str(missing) == str(self.cwd):
                raise SpawnError(f"cannot start agent: working directory {self.cwd} does not exist") from None
            raise SpawnError(f"cannot start agent: command not found: {self.argv[0]}") from None
        except PermissionError:
            raise SpawnError(f"cannot start agent: permission denied: {self.argv[0]}") from None
        except NotADirectoryError:
            raise SpawnError(f"cannot start agent: not a directory: {self.cwd}") from None
        except OSError as exc:
            raise SpawnError(f"cannot start agent {self.argv[0]}: {exc.strerror or exc}") from None
        self._proc = asyncio.subprocess.Process(transport, protocol, loop)
        _widen_pipe(transport.get_pipe_transport(1))
        self.lineage.root(transport.get_pid())
        self._stderr_task = loop.create_task(self._pump_stderr())
        self._watcher = loop.create_task(self._watch())

    def start_reading(self, on_data: Callable[[bytes], None], on_close: Callable[[ExitInfo], None]) -> None:
        """Deliver stdout chunks to `on_data`, then exactly one `on_close` after the agent exits."""
        if self._proc is None or self._exited is None:
            raise AgentNotRunning("the agent was not started")
        if self._reader is not None:
            raise RuntimeError("stdout already has a reader")
        self._on_close = on_close
        self._reader = asyncio.get_running_loop().create_task(self._pump_stdout(on_data))
        if self._exited.done():
            on_close(self._exited.result())

    async def write(self, data: bytes) -> None:
        """Write bytes to the agent's stdin and wait for the pipe to drain."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise AgentNotRunning("the agent was not started")
        if proc.returncode is not None or proc.stdin.is_closing():
            raise AgentNotRunning("the agent is not running")
        try:
            proc.stdin.write(data)
            await proc.stdin.drain()
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
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.is_closing():
            return
        with contextlib.suppress(OSError, RuntimeError):
            proc.stdin.close()
            await proc.stdin.wait_closed()

    async def shutdown(self, *, stdin_grace: float = 2.0, term_grace: float = 2.0) -> ExitInfo | None:
        """Close stdin, then SIGTERM, then SIGKILL the whole group, then its lineage; nothing of it survives."""
        proc = self._proc
        if proc is None or self._exited is None:
            return None
        await self.close_stdin()
        if not await self._wait_exit(stdin_grace):
            self._signal_group(signal.SIGTERM)
            if not await self._wait_exit(term_grace):
                self._signal_group(signal.SIGKILL)
                await self._wait_exit(None)
        # The leader is gone; what it started (in its group or not) is not.
        await self._sweep_lineage(term_grace)
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
        assert self._proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, sig)

    async def _pump_stdout(self, on_data: Callable[[bytes], None]) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stdout = self._proc.stdout
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
        assert self._proc is not None and self._proc.stderr is not None
        stderr = self._proc.stderr
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


PIPE_BYTES = 1 << 20
"""The capacity asked for the agent's stdout pipe (Linux's default is 64 KiB; 1 MiB is what an unprivileged
process may ask, /proc/sys/fs/pipe-max-size): an agent writes a turn's worth without waiting for us."""

READ_AHEAD = 1 << 22
"""Bytes read from the agent's pipes and not yet consumed before reading pauses (the stream protocol pauses
at twice this). While the app is busy drawing a frame the agent goes on writing: this much (and the pipe)
takes it without holding the agent back, and caps what we hold for it (issue 27)."""


def _widen_pipe(pipe: asyncio.BaseTransport | None) -> None:
    """Ask for a larger stdout pipe; a kernel that refuses (or has no such call) keeps its default."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    handle = pipe.get_extra_info("pipe") if pipe is not None else None
    if setsize is None or handle is None:
        return
    with contextlib.suppress(OSError, ValueError):
        fcntl.fcntl(handle.fileno(), setsize, PIPE_BYTES)


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The stream protocol of `create_subprocess_exec`, plus an exit signal that does not wait for
    the pipes to close (`Process.wait()` does, and a grandchild may hold them open forever)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, returncode: asyncio.Future[int]) -> None:
        super().__init__(limit=READ_AHEAD, loop=loop)
        self._returncode_future = returncode
        self._subprocess_transport: asyncio.SubprocessTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if isinstance(transport, asyncio.SubprocessTransport):
            self._subprocess_transport = transport

    def process_exited(self) -> None:
        transport = self._subprocess_transport
        code = transport.get_returncode() if transport is not None else None
        super().process_exited()
        if not self._returncode_future.done():
            self._returncode_future.set_result(code if code is not None else -1)


__all__ = ["AgentProcess", "AgentNotRunning", "ExitInfo", "SpawnError"]
