"""The terminal service (docs/protocol.md §10.2): every `terminal/*` method, its errors and limits, and that
no process outlives its terminal.

The handlers are called directly, as the connection would; every answer (result or error) is
encoded as the frame we would send and validated against the official v1 schema. The session model
is fed as the AgentSession would feed it, so what the card shows is checked too.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tracemalloc
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_tui.config import Settings, parse_settings
from acp_tui.protocol import codec
from acp_tui.protocol.jsonrpc import Request, RpcError, encode_error, encode_response
from acp_tui.protocol.terminal import CreateTerminalRequest, TerminalOutputResponse, TerminalRequest
from acp_tui.services.base import ServiceContext
from acp_tui.services.terminals import DEFAULT_OUTPUT_LIMIT, TerminalService
from acp_tui.session.model import SessionState, Terminal
from acp_tui.session.reducer import ModelInput, apply
from tests.support.processes import processes_with
from tests.support.schema_check import load_schema, validate_client_message
from tests.support.wait import until as wait_until

PY = sys.executable
SESSION = "sess-1"


async def until(condition: Any, timeout: float = 10.0) -> None:
    await wait_until(condition, timeout=timeout)


class Harness:
    """One bound service, its session model, and a caller that checks every answer against the schema."""

    def __init__(self, cwd: Path, version: int = 1, **options: Any) -> None:
        self.state = SessionState()
        self.problems: list[str] = []
        self.cwd = cwd.resolve()
        self.service = TerminalService(id_prefix="t", kill_grace=0.3, **options)
        self.service.bind(
            ServiceContext(
                version=version,
                cwd=self.cwd,
                session_id=lambda: SESSION,
                apply=lambda item: self._apply(item),
                report=lambda reason, raw: self.problems.append(reason),
            )
        )
        self._ids = 100

    def _apply(self, item: ModelInput) -> None:
        apply(self.state, item)

    async def call(self, method: str, **params: Any) -> Any:
        """Answer one request; the result as it goes on the wire (RpcError raised, after validating it)."""
        self._ids += 1
        params.setdefault("sessionId", SESSION)
        request = Request(self._ids, method, msgspec.Raw(json.dumps(params).encode()))
        handler = self.service.methods()[method]
        try:
            result = await handler(request)
        except RpcError as exc:
            validate_client_message(json.loads(encode_error(self._ids, exc.code, exc.message)), 1)
            raise
        frame = json.loads(encode_response(self._ids, result))
        validate_client_message(frame, 1, answering=method)
        return frame["result"]

    async def run(self, *argv: str, **params: Any) -> str:
        result = await self.call("terminal/create", command=argv[0], args=list(argv[1:]), **params)
        terminal_id: str = result["terminalId"]
        return terminal_id

    def terminal(self, terminal_id: str) -> Terminal:
        term = self.state.terminal(terminal_id)
        assert term is not None
        return term


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(tmp_path)
    yield h
    await h.service.close()


async def expect_error(call: Any, code: int, *words: str) -> RpcError:
    with pytest.raises(RpcError) as info:
        await call
    assert info.value.code == code, info.value
    for word in words:
        assert word in info.value.message
    return info.value


# -- create, output, wait ----------------------------------------------------------------------------


async def test_create_answers_at_once_and_output_follows(harness: Harness) -> None:
    tid = await harness.run(PY, "-c", "import time; time.sleep(0.3); print('hello')")
    out = await harness.call("terminal/output", terminalId=tid)
    assert out == {"output": "", "truncated": False}  # still running: no exitStatus
    assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"exitCode": 0}
    out = await harness.call("terminal/output", terminalId=tid)
    assert out == {"output": "hello\n", "truncated": False, "exitStatus": {"exitCode": 0}}


async def test_the_card_shows_command_output_exit_and_run_time(harness: Harness) -> None:
    tid = await harness.run("sh", "-c", "printf 'a b\\n'; exit 3", cwd="/")
    term = harness.terminal(tid)
    assert term.command == "sh -c 'printf '\"'\"'a b\\n'\"'\"'; exit 3'" and term.cwd == "/"
    assert term.cancellable and term.started_at is not None and term.exit_status is None
    assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"exitCode": 3}
    assert bytes(term.output) == b"a b\n"
    assert term.exit_status is not None and term.exit_status.exit_code == 3
    assert not term.cancellable and term.ended_at is not None and term.ended_at >= term.started_at


async def test_stdout_and_stderr_are_merged_in_order(harness: Harness) -> None:
    script = (
        "import sys\nfor i in range(5):\n    s = sys.stdout if i % 2 else sys.stderr\n    s.write(f'{i}\\n'); s.flush()"
    )
    tid = await harness.run(PY, "-c", script)
    await harness.call("terminal/wait_for_exit", terminalId=tid)
    out = await harness.call("terminal/output", terminalId=tid)
    assert out["output"] == "0\n1\n2\n3\n4\n"


async def test_no_shell_env_added_and_cwd(harness: Harness, tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    script = "import os, sys; print(sys.argv[1], os.environ['ACP_T'], os.environ.get('HOME') is not None, os.getcwd())"
    tid = await harness.run(PY, "-c", script, "$HOME;`x`", env=[{"name": "ACP_T", "value": "v 1"}], cwd=str(sub))
    await harness.call("terminal/wait_for_exit", terminalId=tid)
    assert (await harness.call("terminal/output", terminalId=tid))["output"] == f"$HOME;`x` v 1 True {sub.resolve()}\n"
    tid = await harness.run(PY, "-c", "import os; print(os.getcwd())")  # default: the session's
    await harness.call("terminal/wait_for_exit", terminalId=tid)
    assert (await harness.call("terminal/output", terminalId=tid))["output"] == f"{harness.cwd}\n"


async def test_a_command_that_cannot_run_exits_like_a_shell_would(harness: Harness, tmp_path: Path) -> None:
    tid = await harness.run("no-such-command-acp-tui")
    assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"exitCode": 127}
    out = await harness.call("terminal/output", terminalId=tid)
    assert "command not found" in out["output"] and out["exitStatus"] == {"exitCode": 127}
    assert b"command not found" in bytes(harness.terminal(tid).output)
    script = tmp_path / "script.sh"
    script.write_text("echo hi\n")
    tid = await harness.run(str(script))  # not executable
    assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"exitCode": 126}


async def test_concurrent_waits_all_resolve(harness: Harness) -> None:
    tid = await harness.run(PY, "-c", "import time; time.sleep(0.3)")
    waits = [harness.call("terminal/wait_for_exit", terminalId=tid) for _ in range(4)]
    assert await asyncio.gather(*waits) == [{"exitCode": 0}] * 4


async def test_a_cancelled_turn_answers_pending_waits_and_leaves_the_command(harness: Harness) -> None:
    marker = uuid.uuid4().hex
    tid = await harness.run(PY, "-c", "import time; time.sleep(60)", marker)
    wait = asyncio.ensure_future(harness.call("terminal/wait_for_exit", terminalId=tid))
    await asyncio.sleep(0.1)
    harness.service.turn_cancelled()
    await expect_error(wait, -32800, "cancelled with the turn", tid)
    assert processes_with(marker)  # the agent decides: it may still read, kill or release it
    assert "exitStatus" not in await harness.call("terminal/output", terminalId=tid)
    await harness.call("terminal/release", terminalId=tid)
    assert not processes_with(marker)


async def test_an_agent_cancel_request_answers_the_wait(harness: Harness) -> None:
    tid = await harness.run(PY, "-c", "import time; time.sleep(60)")
    wait = asyncio.ensure_future(harness.call("terminal/wait_for_exit", terminalId=tid))
    await asyncio.sleep(0.1)
    wait.cancel()  # what the connection does for `$/cancel_request` (it then answers -32800)
    with pytest.raises(asyncio.CancelledError):
        await wait
    assert "exitStatus" not in await harness.call("terminal/output", terminalId=tid)


# -- limits ------------------------------------------------------------------------------------------


async def test_output_byte_limit_drops_the_oldest_at_a_character_boundary(harness: Harness) -> None:
    # 2-byte characters: a limit of 11 bytes keeps 5 whole characters (10 bytes) and says truncated
    tid = await harness.run(PY, "-c", "import sys; sys.stdout.write('é' * 100 + 'Z')", outputByteLimit=12)
    await harness.call("terminal/wait_for_exit", terminalId=tid)
    out = await harness.call("terminal/output", terminalId=tid)
    assert out["truncated"] is True and out["output"] == "é" * 5 + "Z"
    tid = await harness.run(PY, "-c", "import sys; sys.stdout.write('€' * 10)", outputByteLimit=7)
    await harness.call("terminal/wait_for_exit", terminalId=tid)
    out = await harness.call("terminal/output", terminalId=tid)
    assert out["output"] == "€€" and out["truncated"] is True and len(out["output"].encode()) <= 7
    tid = await harness.run("echo", "hi", outputByteLimit=0)
    await harness.call("terminal/wait_for_exit", terminalId=tid)
    assert await harness.call("terminal/output", terminalId=tid) == {
        "output": "",
        "truncated": True,
        "exitStatus": {"exitCode": 0},
    }
    # the screen is not bound by the agent's limit
    assert bytes(harness.terminal(tid).output) == b"hi\n"


async def test_a_character_still_being_written_is_held_back(harness: Harness) -> None:
    script = "import sys, time; sys.stdout.buffer.write(b'ok \\xe2\\x82'); sys.stdout.flush(); time.sleep(60)"
    tid = await harness.run(PY, "-c", script)
    await until(lambda: bytes(harness.terminal(tid).output).startswith(b"ok"))
    assert (await harness.call("terminal/output", terminalId=tid))["output"] == "ok "
    await harness.call("terminal/kill", terminalId=tid)
    out = await harness.call("terminal/output", terminalId=tid)
    assert out["output"] == "ok \ufffd" and out["exitStatus"] == {"signal": "SIGTERM"}


async def test_flood_of_100_mb_keeps_memory_bounded(harness: Harness) -> None:
    tracemalloc.start()
    try:
        tid = await harness.run("sh", "-c", "yes 'flood line' | head -c 100000000; echo; echo last line")
        assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"exitCode": 0}
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    out = await harness.call("terminal/output", terminalId=tid)
    assert out["truncated"] is True and out["output"].endswith("flood line\nf\nlast line\n")
    assert len(out["output"].encode()) == DEFAULT_OUTPUT_LIMIT
    term = harness.terminal(tid)
    assert bytes(term.output).endswith(b"\nlast line\n")
    assert b"of output not shown]" in bytes(term.output)  # the screen says it skipped some
    assert peak < 40 << 20, f"peak Python allocations {peak / 1e6:.1f} MB"


async def test_a_50_mb_line(harness: Harness) -> None:
    tracemalloc.start()
    try:
        tid = await harness.run(PY, "-c", "import sys; sys.stdout.write('x' * 50_000_000 + 'END')")
        await harness.call("terminal/wait_for_exit", terminalId=tid)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    out = await harness.call("terminal/output", terminalId=tid)
    assert out["truncated"] and out["output"].endswith("xEND") and len(out["output"]) == DEFAULT_OUTPUT_LIMIT
    assert peak < 40 << 20, f"peak Python allocations {peak / 1e6:.1f} MB"


async def test_too_many_terminals(tmp_path: Path) -> None:
    h = Harness(tmp_path, max_terminals=2)
    try:
        first = await h.run("true")
        await h.run("true")
        await expect_error(h.run("true"), -32603, "too many terminals")
        await h.call("terminal/release", terminalId=first)
        await h.run("true")
    finally:
        await h.service.close()


# -- kill and release --------------------------------------------------------------------------------


async def test_kill_the_whole_group_and_stay_queryable(harness: Harness) -> None:
    marker = uuid.uuid4().hex
    child = f"{PY} -c 'import time; time.sleep(60)' {marker}"
    tid = await harness.run("sh", "-c", f"echo started; {child} & {child}; echo never")
    await until(lambda: len(processes_with(marker)) == 3)  # the shell too: its command line names it
    assert await harness.call("terminal/kill", terminalId=tid) == {}
    assert not processes_with(marker)
    out = await harness.call("terminal/output", terminalId=tid)
    assert out == {"output": "started\n", "truncated": False, "exitStatus": {"signal": "SIGTERM"}}
    assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"signal": "SIGTERM"}
    assert harness.terminal(tid).exit_status is not None
    assert await harness.call("terminal/kill", terminalId=tid) == {}  # killing an exited command is fine


async def test_kill_a_process_that_ignores_sigterm(harness: Harness) -> None:
    marker = uuid.uuid4().hex
    script = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    )
    tid = await harness.run(PY, "-c", script, marker)
    await until(lambda: b"ready" in bytes(harness.terminal(tid).output))
    await harness.call("terminal/kill", terminalId=tid)
    assert not processes_with(marker)
    assert (await harness.call("terminal/output", terminalId=tid))["exitStatus"] == {"signal": "SIGKILL"}


async def test_release_kills_frees_and_later_calls_name_the_id(harness: Harness) -> None:
    marker = uuid.uuid4().hex
    tid = await harness.run("sh", "-c", f"{PY} -c 'import time; time.sleep(60)' {marker} & wait")
    await until(lambda: bool(processes_with(marker)))
    assert await harness.call("terminal/release", terminalId=tid) == {}
    assert not processes_with(marker)
    for method in ("terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release"):
        await expect_error(harness.call(method, terminalId=tid), -32602, tid, "released")
    await expect_error(harness.call("terminal/output", terminalId="nope"), -32602, "unknown terminal", "nope")
    term = harness.terminal(tid)  # the card stays readable after release
    assert term.exit_status is not None and term.exit_status.signal == "SIGTERM"


async def test_a_pending_wait_resolves_when_the_terminal_is_released(harness: Harness) -> None:
    tid = await harness.run(PY, "-c", "import time; time.sleep(60)")
    wait = asyncio.ensure_future(harness.call("terminal/wait_for_exit", terminalId=tid))
    await asyncio.sleep(0.1)
    await harness.call("terminal/release", terminalId=tid)
    assert await wait == {"signal": "SIGTERM"}


async def test_close_kills_everything_and_is_idempotent(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    marker = uuid.uuid4().hex
    ignore = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    first = await h.run(PY, "-c", ignore, marker)
    second = await h.run("sh", "-c", f"{PY} -c 'import time; time.sleep(60)' {marker} & wait")
    await until(lambda: len(processes_with(marker)) == 3)  # the shell too: its command line names it
    await h.service.close()
    assert not processes_with(marker)
    await h.service.close()
    for tid in (first, second):
        assert h.terminal(tid).exit_status is not None
        await expect_error(h.call("terminal/output", terminalId=tid), -32602, "released")


async def test_the_user_stops_a_command_from_its_card(harness: Harness) -> None:
    tid = await harness.run(PY, "-c", "import time; time.sleep(60)")
    assert harness.service.owns(tid) and not harness.service.owns("other")
    assert await harness.service.stop_terminal(tid) is True
    assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"signal": "SIGTERM"}
    assert await harness.service.stop_terminal("other") is False


# -- params and gating -------------------------------------------------------------------------------


async def test_bad_params_are_clear_errors(harness: Harness, tmp_path: Path) -> None:
    await expect_error(harness.run("true", cwd="relative/dir"), -32602, "absolute")
    await expect_error(harness.run("true", cwd=str(tmp_path / "missing")), -32602, "not a directory")
    await expect_error(harness.run("true", outputByteLimit=-1), -32602, "negative")
    await expect_error(harness.run("true", env=[{"name": "A=B", "value": "x"}]), -32602, "environment")
    await expect_error(harness.call("terminal/create", command="ls", args=["-l", 3]), -32602, "args")
    await expect_error(harness.call("terminal/create", command=""), -32602, "non-empty")
    await expect_error(harness.call("terminal/create", sessionId="other", command="ls"), -32602, "unknown session")
    await expect_error(harness.call("terminal/output"), -32602, "terminalId")
    assert any("malformed terminal/create" in problem for problem in harness.problems)
    assert not harness.state.entities  # nothing ran


async def test_null_args_and_env_mean_none(harness: Harness) -> None:
    tid = (await harness.call("terminal/create", command="true", args=None, env=None, cwd=None, outputByteLimit=None))[
        "terminalId"
    ]
    assert await harness.call("terminal/wait_for_exit", terminalId=tid) == {"exitCode": 0}


async def test_v2_has_no_client_terminals(tmp_path: Path) -> None:
    h = Harness(tmp_path, version=2)
    await expect_error(h.run("true"), -32601, "terminal/create")
    assert h.service.capabilities().v2 == {}


def test_capabilities_and_the_setting() -> None:
    on = TerminalService()
    assert on.capabilities().v1 == {"terminal": True, "_meta": {"terminal_output": True, "terminal_output_delta": True}}
    assert set(on.methods()) == {
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    }
    off = TerminalService(client_terminals=False)
    # the agent runs its own commands, and still streams them into the cards
    assert off.capabilities().v1 == {"_meta": {"terminal_output": True, "terminal_output_delta": True}}
    assert off.methods() == {}
    params = json.loads(codec.encode(codec.build_initialize({}, on.capabilities().v1)))
    assert params["clientCapabilities"]["terminal"] is True
    validate_client_message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, 1)


@pytest.mark.parametrize(
    ("struct", "name"),
    [
        (CreateTerminalRequest, "CreateTerminalRequest"),
        (TerminalRequest, "TerminalOutputRequest"),
        (TerminalRequest, "ReleaseTerminalRequest"),
        (TerminalOutputResponse, "TerminalOutputResponse"),
    ],
)
def test_tolerant_fields_match_the_schema(struct: type, name: str) -> None:
    """Only what the schema marks default-on-error is dropped when malformed; what to run never is."""
    definition = load_schema(1)["$defs"][name]
    required = set(definition.get("required", []))
    expected = {
        key
        for key, spec in definition["properties"].items()
        if key not in required and spec.get("x-deserialize-default-on-error")
    }
    assert codec.default_on_error_fields(struct) == expected


def test_the_setting_in_config_toml() -> None:
    assert parse_settings("", "config.toml") == (Settings(), [])
    settings, warnings = parse_settings("client_terminals = false\n", "config.toml")
    assert settings.client_terminals is False and warnings == []
    settings, warnings = parse_settings('client_terminals = "no"\n', "config.toml")
    assert settings.client_terminals is True
    assert warnings == ["config.toml:1: 'client_terminals' must be true or false, not a string; ignoring it"]


# -- what leaves the process group (issue 21, item 5) ----------------------------------------------

#: Sleeps in a session of its own; the marker after it names it on its command line.
SLEEP = "import time; time.sleep(302)"
#: The classic daemon: fork, setsid, fork again, the middle one exits, the first one reports and exits.
DOUBLE_FORK = (
    "import os, sys, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        time.sleep(302)\n"
    "    os._exit(0)\n"
    "os.wait()\n"
    "print('daemonized', flush=True)\n"
)
#: Leaves its session (a child that the command leaves behind), ignores SIGTERM and keeps spawning children
#: that leave theirs.
SPAWNER = (
    "import os, signal, time\n"
    "if os.fork():\n"
    "    os._exit(0)\n"
    "os.setsid()\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "for _ in range(500):\n"  # bounded, so a test that fails leaves no fork bomb behind
    "    if os.fork() == 0:\n"
    "        os.setsid()\n"
    "        time.sleep(302)\n"
    "        os._exit(0)\n"
    "    time.sleep(0.02)\n"
)


async def test_release_kills_what_setsid_and_a_double_fork_left_behind(harness: Harness, marker: str) -> None:
    first = await harness.run("setsid", PY, "-c", SLEEP, marker)
    second = await harness.run(PY, "-c", DOUBLE_FORK, marker)
    await until(lambda: len(processes_with(marker)) == 2)  # one sleeper each; both commands exited
    assert await harness.call("terminal/wait_for_exit", terminalId=second) == {"exitCode": 0}
    for tid in (first, second):
        assert await harness.call("terminal/release", terminalId=tid) == {}
    assert not processes_with(marker)


async def test_close_kills_a_spawning_loop_that_left_its_session_and_ignores_sigterm(
    tmp_path: Path, marker: str
) -> None:
    h = Harness(tmp_path)
    await h.run(PY, "-c", SPAWNER, marker)
    await until(lambda: len(processes_with(marker)) >= 3)  # the loop and some of its children
    await h.service.close()
    assert not processes_with(marker)


async def test_releasing_one_terminal_leaves_the_others_running(harness: Harness, marker: str) -> None:
    kept, gone = f"{marker}-kept", f"{marker}-gone"
    await harness.run("setsid", PY, "-c", SLEEP, kept)
    tid = await harness.run("setsid", PY, "-c", SLEEP, gone)
    await until(lambda: bool(processes_with(kept)) and bool(processes_with(gone)))
    await harness.call("terminal/release", terminalId=tid)
    assert not processes_with(gone)
    assert processes_with(kept)


async def test_an_agent_cannot_replace_the_marker(harness: Harness, marker: str) -> None:
    tid = await harness.run("setsid", PY, "-c", SLEEP, marker, env=[{"name": "ACP_TUI_LINEAGE", "value": "mine"}])
    await until(lambda: bool(processes_with(marker)))
    await harness.call("terminal/release", terminalId=tid)
    assert not processes_with(marker)
