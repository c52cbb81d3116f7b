"""Print mode (`acp-tui -p`, issue 25) run as a real process: the prompt in, the answer on stdout, the rest on
stderr, the `--approve` policy answering the agent, signals cancelling per spec, exit codes by how the turn
ended. Against the built-in demo agent and the scripted agent (tests/support/agents/scripted_agent.py), v1 and v2;
everything the client sent validates against the negotiated version's schema (tests/support/schema_check.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.acp_process import acp, env_for
from tests.support.agents import AGENTS_DIR
from tests.support.peers import TsSdkPeers
from tests.support.schema_check import validate_client_message
from tests.support.scripted_app import STANDARD_OPTIONS, ScriptedRun, permission_request, v1_turn, v2_turn

pytestmark = pytest.mark.timeout(90)


def update(body: dict[str, Any]) -> dict[str, Any]:
    return {"op": "update", "update": body}


def chunk(text: str, version: int, message_id: str = "answer-1") -> dict[str, Any]:
    body: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    if version == 2:
        body["messageId"] = message_id
    return update(body)


def turn(version: int, *steps: dict[str, Any], stop_reason: str | None = "end_turn") -> list[dict[str, Any]]:
    return v2_turn(*steps, stop_reason=stop_reason) if version == 2 else v1_turn(*steps, stop_reason=stop_reason)


def scripted(tmp_path: Path, version: int, steps: list[dict[str, Any]], **more: Any) -> ScriptedRun:
    return ScriptedRun(tmp_path, {"version": version, "turns": [{"steps": steps}], **more})


def run_scripted(run: ScriptedRun, *args: str) -> subprocess.CompletedProcess[str]:
    return acp(run.script_path.parent, "-p", "go", *args, "--", *run.launch.agent_argv)


# -- the demo agent ----------------------------------------------------------------------------------


def test_the_demo_answers_in_plain_text_by_default_and_in_markdown_on_request(tmp_path: Path) -> None:
    plain = acp(tmp_path, "-p", "markdown")
    assert plain.returncode == 0, plain.stderr
    assert "Greeting people, politely" in plain.stdout
    assert "#" not in plain.stdout.splitlines()[0] and "```" not in plain.stdout and "**" not in plain.stdout
    assert plain.stdout.endswith("\n")
    markdown = acp(tmp_path, "-p", "markdown", "--output", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert "```" in markdown.stdout and markdown.stdout.lstrip().startswith("#")


def test_the_prompt_from_stdin_and_thoughts_and_tools_on_stderr_only(tmp_path: Path) -> None:
    result = acp(tmp_path, "-p", "-", stdin="think tools")
    assert result.returncode == 0, result.stderr
    assert "I thought about it" in result.stdout  # the message's first chunk too
    assert "thinking: The user wants" in result.stderr and "tool: Read src/greet.py [done]" in result.stderr
    assert "thinking:" not in result.stdout and "tool:" not in result.stdout
    quiet = acp(tmp_path, "-p", "-", "--quiet", stdin="think tools")
    assert quiet.returncode == 0 and quiet.stderr == "" and "I thought about it" in quiet.stdout


def test_a_thought_is_said_when_the_answer_begins_not_after_it(tmp_path: Path) -> None:
    merged = subprocess.run(
        [sys.executable, "-m", "acp_tui", "-p", "think"],
        cwd=tmp_path,
        env=env_for(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # `2>&1`: one stream, in the order things were written
        text=True,
        timeout=60,
    )
    assert merged.returncode == 0, merged.stdout
    header, *lines = merged.stdout.splitlines()  # the line naming the agent, mode and model comes first
    assert header.startswith("acp-tui: agent acp-tui demo agent"), header
    assert lines[0].startswith("thinking: The user wants") and lines[1].startswith("I thought about it"), lines
    assert sum(line.startswith("thinking:") for line in lines) == 1, lines


def _user_text(args: list[bytes], stdin: bytes, tmp_path: Path) -> str:
    result = subprocess.run(
        [sys.executable.encode(), b"-m", b"acp_tui", *args, b"--output", b"jsonl", b"--quiet"],
        cwd=tmp_path,
        env=env_for(tmp_path),
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    (user,) = [r for r in records if r.get("change") == "EntityAdded" and r["key"][0] == "user_message"]
    return str(user["text"])


def test_the_stdin_prompt_loses_its_last_newline_and_bytes_that_are_no_utf8_become_replacements(
    tmp_path: Path,
) -> None:
    """Both hung the run before: a lone surrogate from a byte that is no UTF-8 could not be sent, so nothing was."""
    assert _user_text([b"-p", b"-"], b"think\n\nplease\n", tmp_path) == "think\n\nplease"
    assert _user_text([b"-p", b"-"], b"think \xff\r\n", tmp_path) == "think \ufffd"
    assert _user_text([b"-p", b"think \xfe"], b"", tmp_path) == "think \ufffd"


def test_jsonl_is_one_object_per_model_change_and_an_end(tmp_path: Path) -> None:
    result = acp(tmp_path, "-p", "think", "--output", "jsonl", "--quiet")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    end = records[-1]
    assert {k: end[k] for k in ("event", "exitCode", "stopReason")} == {
        "event": "end",
        "exitCode": 0,
        "stopReason": "end_turn",
    }
    assert isinstance(end["sessionId"], str) and end["sessionId"]
    text = "".join(
        r.get("text", "")
        for r in records
        if r.get("change") in ("EntityAdded", "TextAppended") and "agent_message" in r["key"]
    )
    assert text.startswith("I thought about it")
    assert any(r.get("change") == "TurnEnded" for r in records)
    # the end says what a script wants without rebuilding it from the changes (the newcomer report's nits)
    assert end["text"] == text and end["durationMs"] > 0 and end["errors"] == []
    assert end["usage"]["used"] > 0 and end["cost"]["currency"] == "USD"
    assert end["mode"] == {"id": "code", "name": "Code"} and end["model"]["id"] == "demo-fast"
    # each change carries its values: a submission its status, usage and info what they changed to
    assert [r["status"] for r in records if r.get("change") == "SubmissionChanged"] == ["pending", "accepted"]
    (usage,) = [r for r in records if r.get("change") == "UsageChanged"][-1:]
    assert usage["usage"] == end["usage"] and usage["cost"] == end["cost"]
    assert all("info" in r for r in records if r.get("change") == "InfoChanged")


def test_the_demo_edit_is_rejected_by_default_and_allowed_with_always(tmp_path: Path) -> None:
    never = acp(tmp_path, "-p", "edit")
    assert never.returncode == 0, never.stderr
    assert "permission rejected (--approve never)" in never.stderr
    assert "refused the edit" in never.stdout
    always = acp(tmp_path, "-p", "edit", "--approve", "always")
    assert always.returncode == 0, always.stderr
    assert "permission allowed (--approve always)" in always.stderr
    assert "refused the edit" not in always.stdout


def test_a_closed_pipe_ends_the_run_quietly(tmp_path: Path) -> None:
    # At the demo's own pace: "slow" then streams for 30 s after its first line, so the reader goes away
    # while it still writes (at the tests' 50× pace a loaded machine let it finish first, and exit 0).
    env = env_for(tmp_path) | {"ACP_TUI_DEMO_SPEED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "-p", "slow"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()  # it streams; then the reader goes away (`| head -1`)
    proc.stdout.close()
    proc.wait(timeout=30)
    stderr = proc.stderr.read()
    assert proc.returncode == 141, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_cancels_the_turn_per_spec_and_stops_the_agent(tmp_path: Path, sig: signal.Signals, code: int) -> None:
    pid_file = tmp_path / "agent.pid"
    steps = turn(
        2,
        {"op": "stderr", "text": "working"},
        chunk("started\n", 2),
        {"op": "wait_for", "method": "session/cancel", "timeout": 30},
        chunk("cancelled now\n", 2),
        stop_reason="cancelled",
    )
    run = scripted(tmp_path, 2, steps)
    argv = [sys.executable, "-c", _WRITE_PID.format(pid_file=str(pid_file)), *run.launch.agent_argv[1:]]
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "-p", "go", "--", *argv],
        cwd=tmp_path,
        env=env_for(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "cancelled now" in out  # the agent ended its turn itself after `session/cancel`
    assert "session/cancel" in run.methods()
    run.validate_all()
    agent_pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(agent_pid, 0)


#: run the scripted agent in this process after writing its pid (so a test can see it gone)
_WRITE_PID = (
    "import os, runpy, sys; open({pid_file!r}, 'w').write(str(os.getpid())); "
    "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)


def test_the_timeout_cancels_the_turn(tmp_path: Path) -> None:
    steps = turn(2, chunk("slowly\n", 2), {"op": "wait_for", "method": "session/cancel", "timeout": 30})
    run = scripted(tmp_path, 2, steps)
    result = run_scripted(run, "--timeout", "1")
    assert result.returncode == 124, result.stderr
    assert "timed out after 1 s" in result.stderr
    assert "session/cancel" in run.methods()
    run.validate_all()


# -- exit codes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(
    ("stop_reason", "code"),
    [("end_turn", 0), ("refusal", 3), ("max_tokens", 4), ("max_turn_requests", 5), ("cancelled", 6)],
)
def test_the_exit_code_says_how_the_turn_ended(tmp_path: Path, version: int, stop_reason: str, code: int) -> None:
    run = scripted(tmp_path, version, turn(version, chunk("the answer", version), stop_reason=stop_reason))
    result = run_scripted(run)
    assert result.returncode == code, result.stderr
    assert result.stdout == "the answer\n"
    run.validate_all()


@pytest.mark.parametrize("protocol", ["1", "2"])
def test_a_turn_that_ends_in_an_error_exits_1(tmp_path: Path, protocol: str) -> None:
    """The demo's `error` turn: v2 ends it idle with the `error` stop reason, v1 answers the prompt with an error."""
    result = acp(tmp_path, "-p", "error", "--protocol", protocol)
    assert result.returncode == 1, result.stderr
    assert "the turn failed: The demo model overheated" in result.stderr


@pytest.mark.parametrize("stop_reason", ["_acme_paused", "bored"])
def test_a_stop_reason_we_do_not_know_exits_1(tmp_path: Path, stop_reason: str) -> None:
    """v2's stop reasons are open: the turn ended, but how is unknown, so the run did not succeed."""
    run = scripted(tmp_path, 2, turn(2, chunk("the answer", 2), stop_reason=stop_reason))
    result = run_scripted(run, "--output", "jsonl")
    assert result.returncode == 1, result.stderr
    end = json.loads(result.stdout.splitlines()[-1])
    assert end["exitCode"] == 1 and end["stopReason"] == stop_reason


@pytest.mark.parametrize("version", [1, 2])
def test_a_failed_prompt_exits_1_and_a_login_demand_exits_8(tmp_path: Path, version: int) -> None:
    failed = scripted(tmp_path, version, [{"op": "error_prompt", "code": -32603, "message": "model exploded"}])
    result = run_scripted(failed)
    assert result.returncode == 1, result.stderr
    auth = tmp_path / "auth"
    auth.mkdir()
    needs_login = scripted(auth, version, [{"op": "error_prompt", "code": -32000, "message": "log in first"}])
    result = run_scripted(needs_login)
    assert result.returncode == 8, result.stderr


@pytest.mark.parametrize("version", [1, 2])
def test_an_agent_that_dies_in_the_turn_exits_7(tmp_path: Path, version: int) -> None:
    steps = turn(
        version, chunk("about to", version), {"op": "stderr", "text": "fatal: oops"}, {"op": "exit", "code": 3}
    )
    result = run_scripted(scripted(tmp_path, version, steps))
    assert result.returncode == 7, result.stderr
    assert "agent stderr: fatal: oops" in result.stderr
    assert "Ctrl-R" not in result.stderr and "F2" not in result.stderr  # print mode has no keys to press


_SILENT = "import sys; sys.stdin.read()"
_REFUSES = (
    'import sys; print(\'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"nope"}}\', '
    "flush=True); sys.stdin.read()"
)


@pytest.mark.parametrize(
    ("program", "said"),
    [(_SILENT, "did not answer initialize within 1 s"), (_REFUSES, "the agent refused initialize: nope")],
    ids=["silent", "refuses"],
)
def test_an_agent_that_cannot_be_used_exits_1(tmp_path: Path, program: str, said: str) -> None:
    """It never answered initialize, or refused it: acp-tui stopped it, so it did not crash (7)."""
    result = acp(tmp_path, "-p", "hi", "--init-timeout", "1", "--", sys.executable, "-c", program)
    assert result.returncode == 1, result.stderr
    assert said in result.stderr and "Ctrl-R" not in result.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert acp(tmp_path, "--quiet").returncode == 2
    assert acp(tmp_path, "--approve", "always").returncode == 2
    assert acp(tmp_path, "-p", "  ").returncode == 2
    assert acp(tmp_path, "-p", "-", stdin="").returncode == 2
    assert acp(tmp_path, "-p", "x", "--resume").returncode == 2
    assert acp(tmp_path, "-p", "x", "--approve", "sometimes").returncode == 2


# -- agent requests answered by the policy --------------------------------------------------------


def _read_request(request_id: int, version: int) -> dict[str, Any]:
    step = permission_request(request_id, STANDARD_OPTIONS, title="Read notes.txt", version=version)
    call = step["params"]["subject"]["toolCall"] if version == 2 else step["params"]["toolCall"]
    call["kind"] = "read"
    return step


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(
    ("approve", "read_answer", "edit_answer"),
    [
        ("never", "reject-once", "reject-once"),
        ("reads", "allow-once", "reject-once"),
        ("always", "allow-once", "allow-once"),
    ],
)
def test_permissions_are_answered_by_the_policy(
    tmp_path: Path, version: int, approve: str, read_answer: str, edit_answer: str
) -> None:
    steps = turn(
        version,
        _read_request(50, version),
        permission_request(51, STANDARD_OPTIONS, version=version),
        chunk("done", version),
    )
    run = scripted(tmp_path, version, steps)
    args = () if approve == "never" else ("--approve", approve)
    result = run_scripted(run, *args)
    assert result.returncode == 0, result.stderr
    answers = {i: run.answer_to(i) for i in (50, 51)}
    assert [a["result"]["outcome"]["optionId"] for a in answers.values() if a] == [read_answer, edit_answer]
    run.validate_all({50: "session/request_permission", 51: "session/request_permission"})


@pytest.mark.parametrize("version", [1, 2])
def test_without_a_reject_option_the_request_is_cancelled(tmp_path: Path, version: int) -> None:
    only_allow = [o for o in STANDARD_OPTIONS if o["kind"].startswith("allow")]
    run = scripted(tmp_path, version, turn(version, permission_request(60, only_allow, version=version)))
    result = run_scripted(run)
    assert result.returncode == 0, result.stderr
    answer = run.answer_to(60)
    assert answer is not None and answer["result"]["outcome"] == {"outcome": "cancelled"}
    run.validate_all({60: "session/request_permission"})


def test_print_mode_offers_no_terminals_unless_always(tmp_path: Path) -> None:
    run = scripted(tmp_path, 1, turn(1, chunk("hi", 1)))
    assert run_scripted(run).returncode == 0
    init = next(m for m in run.records() if m.get("method") == "initialize")
    assert init["params"]["clientCapabilities"].get("terminal") is False
    run.validate_all()


# -- agent text is data ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "markdown", "jsonl"])
def test_escape_sequences_from_the_agent_never_reach_the_terminal(tmp_path: Path, fmt: str) -> None:
    hostile = "safe \x1b]52;c;ZXZpbA==\x07\x1b[31mred\x1b[0m \x9b2J\x07 end"
    run = scripted(tmp_path, 2, turn(2, chunk(hostile, 2)))
    result = run_scripted(run, "--output", fmt)
    assert result.returncode == 0, result.stderr
    for char in ("\x1b", "\x9b", "\x07"):
        assert char not in result.stdout and char not in result.stderr
    if fmt != "jsonl":
        assert "safe" in result.stdout and "red" in result.stdout and "52;" not in result.stdout


# -- more of the demo, and what the run starts from ------------------------------------------------


@pytest.mark.parametrize("protocol", ["1", "2"])
def test_only_the_answer_to_the_prompt_is_printed(tmp_path: Path, protocol: str) -> None:
    """The demo greets after `session/new` on its own: that is not the answer (and races the prompt)."""
    result = acp(tmp_path, "-p", "think", "--protocol", protocol, "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("I thought about it") and "Welcome" not in result.stdout


def test_with_no_agent_named_the_demo_welcome_names_the_catalogue_agents_installed(tmp_path: Path) -> None:
    """No agent named, no default_agent: the demo runs, and its welcome (on the wire; print mode prints only the
    answer) names the well-known agents on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("claude-agent-acp", "codex-acp"):
        (bin_dir / program).write_text("#!/bin/sh\n")
        (bin_dir / program).chmod(0o755)
    path = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    log = tmp_path / "wire.jsonl"
    result = acp(tmp_path, "-p", "think", "--quiet", "--log", str(log), env=path)
    assert result.returncode == 0, result.stderr
    assert "ACP agents installed here: `claude`, `codex`; run one with `acp-tui NAME`" in log.read_text()
    assert "installed here" not in result.stdout


def test_a_form_is_declined(tmp_path: Path) -> None:
    result = acp(tmp_path, "-p", "ask")
    assert result.returncode == 0, result.stderr
    assert "form: declined" in result.stderr and "You declined" in result.stdout


def test_continue_runs_the_turn_in_the_last_session_without_printing_its_history(tmp_path: Path) -> None:
    store = {"ACP_TUI_DEMO_STORE": str(tmp_path / "demo-store")}  # the demo keeps its sessions across runs
    assert acp(tmp_path, "-p", "think", "--quiet", env=store).returncode == 0
    result = acp(tmp_path, "-p", "markdown", "--continue", "--quiet", env=store)
    assert result.returncode == 0, result.stderr
    assert "I thought about it" not in result.stdout and "Greeting people, politely" in result.stdout


def test_resume_id_runs_the_turn_in_that_session_and_the_jsonl_end_names_it(tmp_path: Path) -> None:
    initialize = {"protocolVersion": 2, "info": {"name": "scripted", "version": "1"}, "capabilities": {"session": {}}}
    run = scripted(
        tmp_path,
        2,
        turn(2, chunk("resumed answer", 2)),
        initialize=initialize,
        responses={"session/resume": {"result": {}}},
        adopt_opened=True,
    )
    result = acp(tmp_path, "-p", "go", "--resume=old-7", "--output", "jsonl", "--quiet", "--", *run.launch.agent_argv)
    assert result.returncode == 0, result.stderr
    (resume,) = [m for m in run.records() if m.get("method") == "session/resume"]
    assert resume["params"]["sessionId"] == "old-7" and "session/new" not in run.methods()
    (prompt,) = [m for m in run.records() if m.get("method") == "session/prompt"]
    assert prompt["params"]["sessionId"] == "old-7"
    end = json.loads(result.stdout.splitlines()[-1])
    assert end["event"] == "end" and end["exitCode"] == 0 and end["sessionId"] == "old-7"
    assert end["text"] == "resumed answer"


def _stderr_on_a_terminal(tmp_path: Path, env: dict[str, str]) -> bytes:
    """Run `-p think` with stderr on a pseudo-terminal (stdout a pipe); what reached the terminal."""
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "acp_tui", "-p", "think"],
            cwd=tmp_path,
            env={**env_for(tmp_path), **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
        )
        os.close(slave)
        out = b""
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the terminal's last writer is gone
                break
            if not data:
                break
            out += data
        assert proc.wait(timeout=60) == 0
        assert proc.stdout is not None and b"I thought about it" in proc.stdout.read()
    finally:
        os.close(master)
    return out


def test_stderr_is_coloured_only_on_a_terminal_without_no_color(tmp_path: Path) -> None:
    coloured = _stderr_on_a_terminal(tmp_path, {"TERM": "xterm-256color"})
    assert b"\x1b[2m" in coloured and b"user wants" in coloured  # the thought, dimmed
    plain = _stderr_on_a_terminal(tmp_path, {"TERM": "xterm-256color", "NO_COLOR": "1"})
    assert b"user wants" in plain and b"\x1b" not in plain
    piped = acp(tmp_path, "-p", "think", env={"TERM": "xterm-256color"})
    assert "user wants" in piped.stderr and "\x1b" not in piped.stderr


@pytest.mark.parametrize("version", [1, 2])
def test_an_agent_that_requires_a_login_exits_8(tmp_path: Path, version: int) -> None:
    script = tmp_path / "auth.json"
    method = {"id": "agent-login", "name": "Log in", "description": "with the agent"}
    script.write_text(json.dumps({"version": version, "auth_methods": [method], "require": "session_new"}))
    result = acp(tmp_path, "-p", "hello", "--", sys.executable, str(AUTH_AGENT), str(script))
    assert result.returncode == 8, result.stderr
    assert "not logged in" in result.stderr and "log in once in acp-tui's TUI" in result.stderr
    assert "Ctrl-R" not in result.stderr and "command palette" not in result.stderr


AUTH_AGENT = AGENTS_DIR / "auth_agent.py"


# -- the TypeScript SDK's example agents ------------------------------------------------------------


def sent(trace: Path) -> list[dict[str, Any]]:
    """Every JSON frame the client sent, from the `--log` trace."""
    frames = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [f["msg"] for f in frames if f.get("dir") == "->" and isinstance(f.get("msg"), dict)]


@pytest.mark.parametrize(("approve", "kind"), [("never", "reject_once"), ("always", "allow_once")])
def test_the_sdk_agent_v1_turn_with_its_permission_answered_by_the_policy(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str], approve: str, kind: str
) -> None:
    trace = tmp_path / "wire.jsonl"
    args = ("-p", "Hello, who are you?", "--approve", approve, "--log", str(trace), "--", *ts_sdk_peers.agent)
    result = acp(tmp_path, *args, env=peer_home_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    messages = sent(trace)
    answer = next(m for m in messages if "method" not in m)
    assert answer["result"]["outcome"]["outcome"] == "selected"
    assert answer["result"]["outcome"]["optionId"].startswith(kind.split("_")[0])
    for message in messages:
        validate_client_message(message, 1, answering=None if "method" in message else "session/request_permission")


def test_the_sdk_dual_version_agent_answers_over_v2(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    trace = tmp_path / "wire.jsonl"
    args = ("-p", "Hello", "--output", "jsonl", "--log", str(trace), "--", *ts_sdk_peers.dual_version_agent)
    result = acp(tmp_path, *args, env=peer_home_env)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[-1]["event"] == "end" and records[-1]["exitCode"] == 0
    messages = sent(trace)
    version = next(m for m in messages if m.get("method") == "initialize")["params"]["protocolVersion"]
    assert version == 2
    for message in messages:
        validate_client_message(message, 2, answering=None if "method" in message else "session/request_permission")


# -- the pieces ----------------------------------------------------------------------------------


def test_markdown_becomes_plain_text_a_line_at_a_time() -> None:
    from acp_tui.headless.output import PlainMarkdown

    plain = PlainMarkdown()
    out = plain.feed("# Title\nSome **bold**, *em* and `code`, a [link](https://x.y).\n```py\n# not a heading\n")
    out += plain.feed("```\n> quoted\nsnake_case_name and 2*3*4")
    assert out + plain.finish() == (
        "Title\nSome bold, em and code, a link (https://x.y).\n# not a heading\nquoted\nsnake_case_name and 2*3*4"
    )


def test_json_lines_escape_c1_controls_and_line_separators() -> None:
    from acp_tui.headless.output import json_line

    line = json_line({"text": "a\x1b[31m\x9b2J\u2028b"})
    assert line == '{"text":"a\\u001b[31m\\u009b2J\\u2028b"}\n' and json.loads(line)["text"] == "a\x1b[31m\x9b2J\u2028b"


# -- acp-tui check (issue 25: the agent check, the official schemas judging every frame) ---------------------


@pytest.mark.parametrize("protocol", ["1", "2"])
def test_check_passes_the_demo(tmp_path: Path, protocol: str) -> None:
    result = acp(tmp_path, "--protocol", protocol, "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"protocol: v{protocol}" in result.stdout and "cancel: ended cancelled" in result.stdout
    assert result.stdout.endswith("0 violations\n")


@pytest.mark.parametrize("version", [1, 2])
def test_check_reports_each_violation_with_the_offending_value(tmp_path: Path, version: int) -> None:
    bad_frame = {"op": "raw", "line": "this is not json"}
    first = turn(version, bad_frame, chunk("hi", version))
    # the cancelled turn ends "end_turn": against docs/protocol.md §9.3
    cancelled = turn(version, {"op": "wait_for", "method": "session/cancel", "timeout": 20}, stop_reason="end_turn")
    if version == 1:
        cancelled = [{"op": "sleep", "seconds": 0.2}, *cancelled]
    on_cancel = turn(version, stop_reason="end_turn")[-1:]
    run = ScriptedRun(
        tmp_path, {"version": version, "turns": [{"steps": first}, {"steps": cancelled}], "on_cancel": on_cancel}
    )
    result = acp(tmp_path, "check", "--", *run.launch.agent_argv)
    assert result.returncode == 1, result.stdout + result.stderr
    violations = [line for line in result.stdout.splitlines() if line.startswith("violation: ")]
    # the line that is no JSON: counted once, with its frame
    (not_json,) = [line for line in violations if "this is not json" in line]
    assert not_json.startswith("violation: frame ") and "invalid JSON" in not_json, result.stdout
    assert any('stop reason "end_turn", not "cancelled"' in line for line in violations), result.stdout
    assert result.stdout.endswith(f"{len(violations)} violations\n")
    run.validate_all()


def test_check_leaves_no_transcript_and_deletes_and_closes_its_session(tmp_path: Path) -> None:
    cancelled = turn(2, {"op": "wait_for", "method": "session/cancel", "timeout": 20}, stop_reason="cancelled")
    script = {
        "version": 2,
        "initialize": {
            "protocolVersion": 2,
            "info": {"name": "s", "version": "1"},
            "capabilities": {"session": {"delete": {}}},
        },
        "turns": [{"steps": turn(2, chunk("hi", 2))}, {"steps": cancelled}],
        "responses": {"session/delete": {"result": {}}, "session/close": {"result": {}}},
    }
    run = ScriptedRun(tmp_path, script)
    result = acp(tmp_path, "check", "--", *run.launch.agent_argv)
    assert result.returncode == 0, result.stdout + result.stderr
    ends = [m for m in run.records() if m.get("method") in ("session/delete", "session/close")]
    assert [(m["method"], m["params"]) for m in ends] == [
        ("session/delete", {"sessionId": "scripted-session-1"}),
        ("session/close", {"sessionId": "scripted-session-1"}),
    ]
    run.validate_all()
    demo = acp(tmp_path, "check")
    assert demo.returncode == 0, demo.stdout + demo.stderr
    left = [path for path in (tmp_path / "user-data").rglob("*") if path.is_file()]
    assert left == [], left  # no transcript, no session index entry


def test_check_cannot_run_a_missing_agent_and_has_its_own_help(tmp_path: Path) -> None:
    for words in (["check", "--", "nosuch-agent-xyz"], ["check", "nosuch-agent-xyz"]):
        missing = acp(tmp_path, *words)
        assert missing.returncode == 3, missing.stderr  # README: 3 when the agent could not be run
        assert "cannot run 'nosuch-agent-xyz'" in missing.stderr
    for flag in ("-h", "--help"):
        usage = acp(tmp_path, "check", flag)
        assert usage.returncode == 0 and usage.stdout.startswith("usage: acp-tui [OPTIONS] check [-- AGENT...]")
        assert "exit: 0 clean, 1 violations, 3 the agent could not be run." in usage.stdout
        replay = acp(tmp_path, "replay", flag)
        assert replay.returncode == 0 and replay.stdout.startswith("usage: acp-tui replay LOG [--speed N]")
        assert "--theme" not in replay.stdout.split("OPTIONS ")[0]  # its own options, not the TUI's list


@pytest.mark.parametrize("version", [1, 2])
def test_check_validates_every_agent_frame_against_the_schema_quoting_the_value(tmp_path: Path, version: int) -> None:
    # v1's enums are closed; v2's are open and an unknown or malformed update is its fallback's, so v2 breaks
    # what no fallback covers: a session id of the wrong type, a message that is no object
    if version == 1:
        bad_status = update({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "status": "exploded"})
        bad_kind = update({"sessionUpdate": "weather_report", "forecast": "rain"})
        status_quoted, kind_quoted = '"exploded"', '"weather_report"'
    else:
        wrong_id = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": 5, "update": {}}}
        bad_status = {"op": "raw", "line": json.dumps(wrong_id)}
        bad_kind = {"op": "raw", "line": '["a", "list"]'}
        status_quoted, kind_quoted = "value 5;", 'value ["a","list"]'
    first = turn(version, bad_status, bad_kind, chunk("hi", version))
    cancelled = turn(version, {"op": "wait_for", "method": "session/cancel", "timeout": 20}, stop_reason="cancelled")
    if version == 1:
        cancelled = [{"op": "sleep", "seconds": 0.2}, *cancelled]
    run = ScriptedRun(tmp_path, {"version": version, "turns": [{"steps": first}, {"steps": cancelled}]})
    result = acp(tmp_path, "check", "--", *run.launch.agent_argv)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"against ACP v{version}" in result.stdout
    violations = [line for line in result.stdout.splitlines() if line.startswith("violation: frame ")]
    assert any("session/update" in line and status_quoted in line for line in violations), result.stdout
    assert any(kind_quoted in line for line in violations), result.stdout
    # each quotes its frame, and nothing else the agent sent is blamed
    assert all("; frame " in line for line in violations), result.stdout
    assert len({line.split(" (")[0] for line in violations}) == 2, result.stdout


@pytest.mark.parametrize("version", [1, 2])
def test_check_quotes_an_unknown_tool_call_status_and_stop_reason(tmp_path: Path, version: int) -> None:
    """v1's enums are closed; v2's take any string, but an agent may use only the listed values and custom ones
    (beginning with `_`): the others are reserved for future versions of ACP. A custom one is no violation."""
    kind = "tool_call" if version == 1 else "tool_call_update"
    exploded = update({"sessionUpdate": kind, "toolCallId": "t1", "title": "Read", "status": "exploded"})
    steps = [exploded, chunk("hi", version)]
    if version == 2:
        steps.append(update({"sessionUpdate": kind, "toolCallId": "t1", "status": "_acme_parked"}))
    first = turn(version, *steps, stop_reason="bored")
    cancelled = turn(version, {"op": "wait_for", "method": "session/cancel", "timeout": 20}, stop_reason="cancelled")
    if version == 1:
        cancelled = [{"op": "sleep", "seconds": 0.2}, *cancelled]
    run = ScriptedRun(tmp_path, {"version": version, "turns": [{"steps": first}, {"steps": cancelled}]})
    result = acp(tmp_path, "check", "--", *run.launch.agent_argv)
    assert result.returncode == 1, result.stdout + result.stderr
    violations = [line for line in result.stdout.splitlines() if line.startswith("violation: frame ")]
    (status,) = [line for line in violations if '"exploded"' in line.split("; frame ")[0]]
    (stop,) = [line for line in violations if '"bored"' in line.split("; frame ")[0]]
    assert "status" in status and "stopReason" in stop
    if version == 2:
        assert "reserved for future versions of ACP" in status and "reserved for future versions" in stop
    assert not any("_acme_parked" in line.split("; frame ")[0] for line in violations), result.stdout
    assert len(violations) == 2, result.stdout
    assert result.stdout.endswith("2 violations\n")


@pytest.mark.parametrize("which", ["agent", "dual_version_agent"])
def test_check_finds_the_sdk_agents_clean(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str], which: str
) -> None:
    argv = getattr(ts_sdk_peers, which)
    result = acp(tmp_path, "check", "--", *argv, env=peer_home_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cancel: ended cancelled" in result.stdout and result.stdout.endswith("0 violations\n")


def test_an_agent_that_ignores_the_cancel_is_stopped_after_the_grace(tmp_path: Path) -> None:
    pid_file = tmp_path / "agent.pid"
    steps = turn(2, chunk("started\n", 2), {"op": "sleep", "seconds": 60})
    run = ScriptedRun(
        tmp_path, {"version": 2, "turns": [{"steps": steps}], "on_cancel": [{"op": "sleep", "seconds": 60}]}
    )
    argv = [sys.executable, "-c", _WRITE_PID.format(pid_file=str(pid_file)), *run.launch.agent_argv[1:]]
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "-p", "go", "--", *argv],
        cwd=tmp_path,
        env=env_for(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


@pytest.mark.parametrize(("approve", "allowed"), [("never", False), ("reads", True)])
def test_a_read_outside_the_folder_follows_the_policy(tmp_path: Path, approve: str, allowed: bool) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret-ish\n")
    folder = tmp_path / "project"
    folder.mkdir()
    params = {"sessionId": "$SESSION", "path": str(outside)}
    read = {"op": "request", "method": "fs/read_text_file", "params": params, "id": 70, "wait": True}
    run = ScriptedRun(folder, {"version": 1, "turns": [{"steps": turn(1, read, chunk("read", 1))}]})
    result = run_scripted(run, "--approve", approve)
    assert result.returncode == 0, result.stderr
    answer = run.answer_to(70)
    assert answer is not None
    assert ("result" in answer and answer["result"]["content"] == "secret-ish\n") == allowed, answer
    run.validate_all({70: "fs/read_text_file"})


# -- the session a run is in: --mode, --model, --set, a mode that asks (issue 37 item 2) -----------------


def wire(log: Path) -> list[dict[str, Any]]:
    """Every JSON frame the client sent, from the `--log` trace (`sent`, for the demo's runs)."""
    return sent(log)


def test_the_demo_runs_in_the_mode_and_model_asked_for_and_says_so(tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    args = ("-p", "hello", "--mode", "ask", "--model", "Demo Smart", "--output", "json", "--log", str(log))
    result = acp(tmp_path, *args)
    assert result.returncode == 0, result.stderr
    assert "acp-tui: agent acp-tui demo agent 1.0.0 · mode Ask (ask) · model Demo Smart (demo-smart)\n" in result.stderr
    (line,) = result.stdout.splitlines()  # one JSON object, nothing streamed before it
    out = json.loads(line)
    assert out["type"] == "result" and out["exitCode"] == 0 and out["stopReason"] == "end_turn"
    assert out["text"].startswith("You said: hello") and out["sessionId"].startswith("demo-")
    assert out["mode"] == {"id": "ask", "name": "Ask"} and out["model"] == {"id": "demo-smart", "name": "Demo Smart"}
    assert out["usage"]["size"] == 200000 and out["cost"] == {"amount": 0.0123, "currency": "USD"}
    assert isinstance(out["durationMs"], int) and out["durationMs"] > 0
    assert out["agent"] == {"name": "acp-tui demo agent", "version": "1.0.0"}
    methods = [m.get("method") for m in wire(log) if "method" in m]
    sets = [m["params"] for m in wire(log) if m.get("method") == "session/set_config_option"]
    assert [(p["configId"], p["value"]) for p in sets] == [("model", "demo-smart"), ("mode", "ask")]
    assert methods.index("session/prompt") > max(i for i, m in enumerate(methods) if m == "session/set_config_option")


@pytest.mark.parametrize("protocol", ["1", "2"])
def test_set_names_any_session_option_and_the_json_result_follows_it(tmp_path: Path, protocol: str) -> None:
    result = acp(tmp_path, "-p", "hello", "--protocol", protocol, "--set", "model=demo-smart", "--output", "json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["model"]["id"] == "demo-smart" and out["mode"]["id"] == "code"  # the demo's Code asks: kept


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--mode", "fast"), "--mode fast: 'fast' is not a value of mode (choose from: ask (Ask), code (Code))"),
        (("--model", "gpt"), "(choose from: demo-fast (Demo Fast), demo-smart (Demo Smart))"),
        (("--set", "effort=high"), "the agent has no session option 'effort' (it offers: mode, model)"),
        (("--set", "model=x", "--model", "demo-fast"), "'x' is not a value of model"),
    ],
)
def test_an_unknown_option_or_value_exits_2_listing_the_values_and_sends_no_prompt(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    log = tmp_path / "wire.jsonl"
    result = acp(tmp_path, "-p", "hello", *args, "--output", "json", "--log", str(log))
    assert result.returncode == 2, result.stderr
    assert said in result.stderr and result.stderr.count("\n") == 1, result.stderr  # one line, and no turn
    out = json.loads(result.stdout)
    assert out["exitCode"] == 2 and out["stopReason"] is None
    assert len(out["errors"]) == 1 and said in out["errors"][0]
    methods = [m.get("method") for m in wire(log)]
    assert "session/prompt" not in methods and "session/set_config_option" not in methods


def test_mode_model_and_set_need_p(tmp_path: Path) -> None:
    for args in (("--mode", "ask"), ("--model", "x"), ("--set", "a=b")):
        result = acp(tmp_path, *args)
        assert result.returncode == 2 and "needs -p" in result.stderr
    assert acp(tmp_path, "-p", "x", "--set", "novalue").returncode == 2


def _modes_session(version: int, current: str, modes: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A session/new result offering `modes` (v1 `modes`, v2 a select option of category mode)."""
    if version == 1:
        available = [{"id": v, "name": n, "description": d} for v, n, d in modes]
        return {"sessionId": "scripted-session-1", "modes": {"currentModeId": current, "availableModes": available}}
    return {"sessionId": "scripted-session-1", "configOptions": [_mode_option(current, modes)]}


def _mode_option(current: str, modes: list[tuple[str, str, str]]) -> dict[str, Any]:
    options = [{"value": v, "name": n, "description": d} for v, n, d in modes]
    return {
        "type": "select",
        "configId": "mode",
        "name": "Mode",
        "category": "mode",
        "currentValue": current,
        "options": options,
    }


CLAUDE_LIKE = [
    ("default", "Manual", "Always ask before making changes"),
    ("acceptEdits", "Accept edits", "Automatically accept all file edits"),
    ("auto", "Auto", "Claude handles permission decisions"),
]
UNASKED_ONLY = [("auto", "Auto", "Decides itself"), ("yolo", "YOLO", "")]


def _mode_set_reply(version: int, value: str, modes: list[tuple[str, str, str]]) -> dict[str, Any]:
    if version == 1:
        return {"session/set_mode": {"result": {}}}
    return {"session/set_config_option": {"result": {"configOptions": [_mode_option(value, modes)]}}}


@pytest.mark.parametrize("version", [1, 2])
def test_an_agent_in_a_mode_that_acts_unasked_is_switched_to_one_that_asks_before_the_prompt(
    tmp_path: Path, version: int
) -> None:
    run = scripted(
        tmp_path,
        version,
        turn(version, chunk("answered", version)),
        session_new=_modes_session(version, "auto", CLAUDE_LIKE),
        responses=_mode_set_reply(version, "default", CLAUDE_LIKE),
    )
    result = run_scripted(run)
    assert result.returncode == 0, result.stderr
    assert "the agent's mode Auto (auto) acts without asking: running in Manual (default) instead" in result.stderr
    assert "· mode Manual (default)" in result.stderr and "you switched" not in result.stderr
    methods = run.methods()
    switch = "session/set_mode" if version == 1 else "session/set_config_option"
    assert methods.index(switch) < methods.index("session/prompt")
    (asked,) = [m["params"] for m in run.records() if m.get("method") == switch]
    assert asked.get("modeId", asked.get("value")) == "default"
    run.validate_all()


@pytest.mark.parametrize("version", [1, 2])
def _unasked_only(folder: Path, version: int) -> ScriptedRun:
    """An agent whose every mode acts without asking; it answers "ran" when it gets a prompt."""
    folder.mkdir(exist_ok=True)
    return scripted(
        folder, version, turn(version, chunk("ran", version)), session_new=_modes_session(version, "auto", UNASKED_ONLY)
    )


@pytest.mark.parametrize("version", [1, 2])
def test_where_every_mode_acts_unasked_the_run_stops_with_exit_9_and_sends_nothing(
    tmp_path: Path, version: int
) -> None:
    run = _unasked_only(tmp_path, version)
    result = run_scripted(run, "--output", "json")
    assert result.returncode == 9, result.stderr
    assert "every mode this agent offers acts without asking (Auto (auto), YOLO (yolo))" in result.stderr
    assert json.loads(result.stdout)["exitCode"] == 9
    assert "session/prompt" not in run.methods() and "session/set_mode" not in run.methods()


@pytest.mark.parametrize("version", [1, 2])
def test_a_mode_acting_unasked_runs_when_named_or_when_everything_is_allowed(tmp_path: Path, version: int) -> None:
    named = run_scripted(_unasked_only(tmp_path / "named", version), "--mode", "auto")
    assert named.returncode == 0 and named.stdout == "ran\n", named.stderr
    said = "mode Auto (auto) acts without asking: the --approve policy answers only what it asks (--mode auto)"
    assert said in named.stderr
    always = run_scripted(_unasked_only(tmp_path / "always", version), "--approve", "always")
    assert always.returncode == 0 and "· mode Auto (auto)" in always.stderr, always.stderr
    assert "acts without asking" not in always.stderr


def test_an_agent_that_switches_itself_to_a_mode_acting_unasked_mid_turn_is_cancelled(tmp_path: Path) -> None:
    switched = update({"sessionUpdate": "config_option_update", "configOptions": [_mode_option("auto", CLAUDE_LIKE)]})
    steps = turn(
        2,
        chunk("first\n", 2),
        switched,
        {"op": "wait_for", "method": "session/cancel", "timeout": 30},
        stop_reason="cancelled",
    )
    run = scripted(tmp_path, 2, steps, session_new=_modes_session(2, "default", CLAUDE_LIKE))
    result = run_scripted(run)
    assert result.returncode == 9, result.stderr
    assert "the agent switched itself to mode Auto (auto), which acts without asking: cancelling" in result.stderr
    assert "session/cancel" in run.methods()
    run.validate_all()


# -- standing permissions, said choices (issue 38) ---------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(("approve", "answer"), [("always", "reject-once"), ("always-standing", "allow-always")])
def test_a_standing_permission_is_granted_only_under_always_standing(
    tmp_path: Path, version: int, approve: str, answer: str
) -> None:
    standing_only = [o for o in STANDARD_OPTIONS if o["kind"] in ("allow_always", "reject_once")]
    run = scripted(
        tmp_path, version, turn(version, permission_request(80, standing_only, version=version), chunk("ok", version))
    )
    result = run_scripted(run, "--approve", approve)
    assert result.returncode == 0, result.stderr
    reply = run.answer_to(80)
    assert reply is not None and reply["result"]["outcome"]["optionId"] == answer
    if approve == "always":
        assert "a standing permission the agent keeps, which --approve always does not grant" in result.stderr
        assert "(reject_once)" in result.stderr
    else:
        assert (
            "permission allowed for good (--approve always-standing)" in result.stderr
            and "(allow_always)" in result.stderr
        )
    run.validate_all({80: "session/request_permission"})


# -- --resume, and wording that fits a script (issue 37 m5 and nits) ------------------------------------


def test_resume_of_a_session_that_is_not_there_fails_instead_of_answering_in_a_new_one(tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    result = acp(tmp_path, "-p", "hello", "--resume=nonexistent-id", "--log", str(log))
    assert result.returncode == 1, result.stderr
    assert "could not resume session 'nonexistent-id'" in result.stderr and "not run" in result.stderr
    assert result.stdout == ""
    methods = [m.get("method") for m in wire(log)]
    assert "session/prompt" not in methods and "session/new" not in methods


def test_continue_says_nothing_of_a_history_above_and_fails_where_the_session_is_gone(tmp_path: Path) -> None:
    store = {"ACP_TUI_DEMO_STORE": str(tmp_path / "demo-store")}
    assert acp(tmp_path, "-p", "think", "--quiet", env=store).returncode == 0
    result = acp(tmp_path, "-p", "hello", "--continue", env=store)
    assert result.returncode == 0, result.stderr
    assert "history is above" not in result.stderr and "session list" not in result.stderr
    assert "session resumed: the agent remembers this conversation" in result.stderr
    gone = acp(tmp_path, "-p", "hello", "--continue")  # without its store the demo has forgotten it
    assert gone.returncode == 1 and "could not resume session 'demo-" in gone.stderr, gone.stderr
    assert gone.stdout == ""


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "timeout"])
def test_stopping_an_agent_that_ignores_the_cancel_says_no_tui_words_and_no_traceback(
    tmp_path: Path, version: int, how: str
) -> None:
    steps = turn(version, chunk("started\n", version), {"op": "sleep", "seconds": 60})
    run = ScriptedRun(
        tmp_path, {"version": version, "turns": [{"steps": steps}], "on_cancel": [{"op": "sleep", "seconds": 60}]}
    )
    timeout = ["--timeout", "1"] if how == "timeout" else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "-p", "go", *timeout, "--", *run.launch.agent_argv],
        cwd=tmp_path,
        env=env_for(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    if how != "timeout":
        proc.send_signal(getattr(signal, how))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == {"SIGTERM": 143, "SIGINT": 130, "timeout": 124}[how], err
    assert "the agent did not end the turn within 3 s: stopping it" in err
    for tui_words in ("Ctrl-C", "conversation is kept", "Traceback", "Task exception", "AgentNotRunning"):
        assert tui_words not in err, err


def test_a_closed_pipe_says_nothing_of_a_cancel(tmp_path: Path) -> None:
    env = env_for(tmp_path) | {"ACP_TUI_DEMO_SPEED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "-p", "slow"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()
    proc.wait(timeout=30)
    stderr = proc.stderr.read()
    assert proc.returncode == 141, stderr
    assert "cancelled" not in stderr and "⊘" not in stderr, stderr


# -- the SDK agents: no modes to choose -------------------------------------------------------------------


def test_the_sdk_agent_gives_one_json_result_and_offers_no_modes_to_name(
    tmp_path: Path, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    result = acp(tmp_path, "-p", "Hello", "--output", "json", "--", *ts_sdk_peers.agent, env=peer_home_env)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["exitCode"] == 0 and out["stopReason"] == "end_turn" and out["text"].strip()
    assert out["mode"] is None and out["model"] is None
    assert "acp-tui: agent " in result.stderr and "· mode" not in result.stderr
    named = acp(tmp_path, "-p", "Hello", "--mode", "plan", "--", *ts_sdk_peers.agent, env=peer_home_env)
    assert named.returncode == 2 and "--mode plan: the agent offers no modes in this session" in named.stderr
    option = acp(tmp_path, "-p", "Hello", "--set", "x=y", "--", *ts_sdk_peers.dual_version_agent, env=peer_home_env)
    assert option.returncode == 2 and "no session option 'x' (it offers: none)" in option.stderr
