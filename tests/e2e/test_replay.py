"""`acp-tui replay LOG` (acp_tui/headless/replay.py): a `--log` recording played back as the agent reproduces
what the live agent showed, in the TUI (pilot) and in print mode, and says where the client departs from it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui import __version__
from acp_tui.headless.replay import SILENCE, Entry, Replayer, read_recording, recorded_prompt
from acp_tui.launch import replayed_log
from acp_tui.launch_resolve import demo_argv
from acp_tui.session.model import Message, ToolCall
from acp_tui.ui.app import AcpApp
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.widgets.stderr_panel import StderrPanel
from tests.support.acp_process import acp
from tests.support.paths import REPO
from tests.support.scripted_app import (
    ARM_DELAY,
    ScriptedRun,
    armed_dialog,
    conversation_text,
    isolate_user_dirs,
    make_launch,
    ready,
    submit,
    v2_turn,
    wait_until,
)
from tests.support.widgets import screen_lines

pytestmark = pytest.mark.timeout(120)


def _replayer(entries: list[Entry], live: list[Any]) -> tuple[Replayer, list[Any], list[str], list[float]]:
    written: list[Any] = []
    notes: list[str] = []
    slept: list[float] = []
    inbox = iter(live)

    def incoming(timeout: float | None) -> Any:
        frame = next(inbox, None)
        assert frame is not SILENCE or timeout is not None, "silence where the replay waits as long as it takes"
        return frame

    replayer = Replayer(
        entries,
        incoming,
        lambda line: written.append(json.loads(line) if line.startswith(b"{") else line.decode()),
        notes.append,
        speed=2.0,
        sleep=slept.append,
    )
    return replayer, written, notes, slept


def _call(id_: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def _answer(id_: int, **result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def _chose(id_: int, option: str) -> dict[str, Any]:
    return _answer(id_, outcome={"outcome": "selected", "optionId": option})


OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def test_answers_carry_the_live_id_and_departures_are_noted_and_refused() -> None:
    entries = [
        Entry(0.0, "->", _call(1, "initialize")),
        Entry(1.0, "<-", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 2}}),
        Entry(1.5, "->", _call(2, "session/prompt", prompt=[{"type": "text", "text": "hi"}])),
        Entry(2.5, "<-", "a line that was never JSON"),
        Entry(3.0, "<-", _call(0, "session/request_permission", title="Write hello.txt", options=OPTIONS)),
        Entry(3.1, "->", _chose(0, "allow"), line=14),
        Entry(4.1, "<-", {"jsonrpc": "2.0", "id": 2, "result": {}}),
    ]
    live = [
        _call(7, "initialize"),
        _call(8, "session/list"),  # not in the recording here: refused, noted
        _call(9, "session/prompt", prompt=[{"type": "text", "text": "other"}]),
        _chose(0, "reject"),
        _call(10, "session/new"),  # after the recording
    ]
    replayer, written, notes, slept = _replayer(entries, live)
    replayer.run()
    assert written[0] == {"jsonrpc": "2.0", "id": 7, "result": {"protocolVersion": 2}}
    assert written[1]["id"] == 8 and "session/list" in written[1]["error"]["message"]
    assert written[2] == "a line that was never JSON"  # a bad line comes back as it was
    assert written[3]["method"] == "session/request_permission"
    assert written[4] == {"jsonrpc": "2.0", "id": 9, "result": {}}
    assert written[5]["id"] == 10 and "recording ends" in written[5]["error"]["message"]
    assert any('"session/list"' in note and '"session/prompt"' in note for note in notes), notes
    assert any("prompt differs" in note and '"other"' in note for note in notes), notes
    # where and how: the recording's line, the call the permission was for, each choice by its name
    assert (
        'line 14: the permission for "Write hello.txt": the client chose "Reject" ("reject") where the recording '
        'chose "Allow" ("allow")'
    ) in notes[-2], notes
    assert slept == pytest.approx([0.5, 0.5, 0.25, 0.5])  # the recorded pauses at speed 2


def test_requests_sent_together_match_by_params_in_any_order_and_the_reordering_is_noted() -> None:
    def answer(id_: int, **result: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id_, "result": result}

    entries = [
        Entry(0.0, "->", _call(1, "initialize")),
        Entry(0.1, "<-", answer(1, protocolVersion=2)),
        # two independent requests on the wire together, and the agent's answers in yet another order
        Entry(0.2, "->", _call(2, "session/set_config_option", sessionId="s1", configId="mode", value="plan")),
        Entry(0.2, "->", _call(3, "session/set_config_option", sessionId="s1", configId="model", value="fast")),
        Entry(0.3, "<-", answer(3, configOptions=["model is fast"])),
        Entry(0.3, "<-", answer(2, configOptions=["mode is plan"])),
        # two of the agent's requests, answered by the client in the other order
        Entry(0.4, "<-", _call(50, "session/request_permission", toolCallId="a")),
        Entry(0.4, "<-", _call(51, "session/request_permission", toolCallId="b")),
        Entry(0.5, "->", answer(50, outcome={"outcome": "selected", "optionId": "allow"})),
        Entry(0.5, "->", answer(51, outcome={"outcome": "selected", "optionId": "reject"})),
        # after an answer: a request that may depend on it is not taken early
        Entry(0.6, "->", _call(4, "session/new", cwd="/x", mcpServers=[])),
        Entry(0.7, "<-", answer(4, sessionId="s2")),
        Entry(0.8, "->", _call(5, "session/list")),
        Entry(0.9, "<-", answer(5, sessions=[])),
    ]
    live = [
        _call(10, "initialize"),
        _call(11, "session/set_config_option", sessionId="s1", configId="model", value="fast"),
        _call(12, "session/set_config_option", sessionId="s1", configId="mode", value="plan"),
        answer(51, outcome={"outcome": "selected", "optionId": "reject"}),
        answer(50, outcome={"outcome": "selected", "optionId": "allow"}),
        _call(13, "session/list"),  # ahead of session/new, after an answer: refused
        _call(14, "session/new", cwd="/x", mcpServers=[]),
        _call(15, "session/list"),
    ]
    replayer, written, notes, _slept = _replayer(entries, live)
    replayer.run()
    answers = {message["id"]: message for message in written if "method" not in message}
    assert answers[11]["result"] == {"configOptions": ["model is fast"]}  # by params, not by order
    assert answers[12]["result"] == {"configOptions": ["mode is plan"]}
    assert [message["id"] for message in written if "method" not in message][1:3] == [11, 12]  # recorded order
    assert "error" in answers[13] and "session/new" in answers[13]["error"]["message"]
    assert answers[14]["result"] == {"sessionId": "s2"} and answers[15]["result"] == {"sessions": []}
    assert not any("otherwise" in note for note in notes), notes  # each answer compared with its own
    reordered = [note for note in notes if "recorded the other way round" in note]
    assert len(reordered) == 2, notes
    assert "session/set_config_option" in reordered[0] and "the answer to request 50" in reordered[1]
    assert any('sent "session/list" where the recording has "session/new"' in note for note in notes), notes


@pytest.mark.parametrize("version", [2, 1])
def test_the_recorded_setup_the_client_leaves_out_is_applied_by_the_replay_before_the_prompt(version: int) -> None:
    mode = _call(3, "session/set_config_option", sessionId="s1", configId="mode", value="plan")
    if version == 1:  # v1: a mode of its own, answered with nothing: the replay says it with current_mode_update
        mode = _call(3, "session/set_mode", sessionId="s1", modeId="plan")
    entries = [
        Entry(0.0, "->", _call(1, "initialize"), line=1),
        Entry(0.1, "<-", _answer(1, protocolVersion=version), line=2),
        Entry(0.2, "->", _call(2, "session/new", cwd="/x", mcpServers=[]), line=3),
        Entry(0.3, "<-", _answer(2, sessionId="s1"), line=4),
        Entry(0.4, "->", mode, line=5),
        Entry(0.5, "<-", _answer(3, **({"configOptions": ["mode is plan"]} if version == 2 else {})), line=6),
        Entry(0.6, "->", _call(4, "session/set_model", sessionId="s1", modelId="smart"), line=7),
        Entry(0.7, "<-", _answer(4), line=8),
        Entry(0.8, "->", _call(5, "session/prompt", sessionId="s1", prompt=[{"type": "text", "text": "hi"}]), line=9),
        Entry(0.9, "<-", _answer(5, stopReason="end_turn"), line=10),
    ]
    live = [
        _call(10, "initialize"),
        _call(11, "session/new", cwd="/x", mcpServers=[]),
        _call(12, "session/prompt", sessionId="s1", prompt=[{"type": "text", "text": "hi"}]),  # no setup first
    ]
    replayer, written, notes, _slept = _replayer(entries, live)
    replayer.run()
    update = {"sessionUpdate": "config_option_update", "configOptions": ["mode is plan"]}
    if version == 1:
        update = {"sessionUpdate": "current_mode_update", "currentModeId": "plan"}
    assert written[2:] == [
        # the mode's recorded result as the update that says it; no answer to requests the client never sent
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": update}},
        _answer(12, stopReason="end_turn"),  # then the prompt, answered as recorded
    ]
    what = 'set "mode" to "plan"' if version == 2 else 'set the mode to "plan"'
    assert notes[:2] == [
        f"line 5: the recording {what} here; the client did not (before session/prompt): the replay applies it",
        'line 7: the recording set the model to "smart" here; the client did not (before session/prompt): '
        "the replay applies it",
    ], notes
    assert not any("prompt differs" in note or "where the recording has" in note for note in notes), notes


def test_a_setup_the_client_makes_otherwise_is_answered_as_recorded_and_said() -> None:
    entries = [
        Entry(0.0, "->", _call(1, "session/set_config_option", sessionId="s", configId="mode", value="plan"), line=3),
        Entry(0.1, "<-", _answer(1, configOptions=["plan"])),
    ]
    live = [_call(7, "session/set_config_option", sessionId="s", configId="mode", value="ask")]
    replayer, written, notes, _slept = _replayer(entries, live)
    replayer.run()
    assert written == [_answer(7, configOptions=["plan"])]
    assert notes[0] == (
        'line 3: the client set "mode" to "ask" where the recording set "mode" to "plan": the recorded answer follows'
    )


def test_a_setup_the_recording_does_not_have_is_taken_from_the_recorded_options_and_said() -> None:
    mode = {
        "type": "select",
        "configId": "mode",
        "name": "Mode",
        "currentValue": "code",
        "options": [{"value": "code", "name": "Code"}, {"group": "more", "options": [{"value": "ask", "name": "Ask"}]}],
    }
    modes = {"currentModeId": "code", "availableModes": [{"id": "code", "name": "Code"}, {"id": "ask", "name": "Ask"}]}
    entries = [
        Entry(0.0, "->", _call(1, "session/new", cwd="/x", mcpServers=[]), line=1),
        Entry(0.1, "<-", _answer(1, sessionId="s", configOptions=[mode], modes=modes), line=2),
        Entry(0.2, "->", _call(2, "session/prompt", sessionId="s", prompt=[]), line=3),
        Entry(0.3, "<-", _answer(2, stopReason="end_turn"), line=4),
    ]
    live = [
        _call(7, "session/new", cwd="/x", mcpServers=[]),
        _call(8, "session/set_config_option", sessionId="s", configId="mode", value="ask"),  # print mode's --mode
        _call(9, "session/set_config_option", sessionId="s", configId="mode", value="yolo"),  # not offered
        _call(10, "session/set_mode", sessionId="s", modeId="ask"),  # v1's own modes
        _call(11, "session/prompt", sessionId="s", prompt=[]),
    ]
    replayer, written, notes, _slept = _replayer(entries, live)
    replayer.run()
    assert written[1] == _answer(8, configOptions=[{**mode, "currentValue": "ask"}])  # as the agent would answer
    assert written[2]["id"] == 9 and 'offers no "mode" "yolo"' in written[2]["error"]["message"]
    update = {"sessionUpdate": "current_mode_update", "currentModeId": "ask"}
    assert written[3:6] == [
        _answer(10),
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}},
        _answer(11, stopReason="end_turn"),
    ]
    assert notes[0] == (
        'line 3: the client set "mode" to "ask", which the recording does not have: the replay takes it; what follows '
        "is what the recorded agent did"
    )
    assert notes[1].startswith('line 3: the client set "mode" to "yolo", which the recording does not have: the ')


def test_a_recorded_client_request_never_sent_is_waited_for_a_while_then_the_recording_goes_on() -> None:
    entries = [
        Entry(0.0, "->", _call(1, "session/prompt", sessionId="s", prompt=[]), line=1),
        Entry(0.1, "<-", _call(0, "session/update", sessionId="s", update={"n": 1}), line=2),
        Entry(0.2, "->", _call(2, "_vendor/ping"), line=3),  # the live client never sends it
        Entry(0.3, "<-", _answer(2, pong=True), line=4),
        Entry(0.4, "->", {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}, line=5),
        Entry(0.5, "<-", _call(0, "session/update", sessionId="s", update={"n": 2}), line=6),
        Entry(0.6, "<-", _answer(1, stopReason="cancelled"), line=7),
    ]
    live = [_call(9, "session/prompt", sessionId="s", prompt=[]), SILENCE, SILENCE]
    replayer, written, notes, _slept = _replayer(entries, live)
    replayer.run()
    assert [message.get("params", {}).get("update") for message in written[:-1]] == [{"n": 1}, {"n": 2}]
    assert written[-1] == _answer(9, stopReason="cancelled")  # the rest of the recording played, not waited on
    assert notes[:2] == [
        'line 3: the recording has the client send "_vendor/ping" here; it did not (within 5 s): the replay goes on '
        "without it",
        'line 5: the recording has the client send "session/cancel" here; it did not (within 5 s): the replay goes '
        "on without it",
    ], notes


def test_the_replay_agent_goes_on_without_a_request_the_client_never_sends(tmp_path: Path) -> None:
    log = tmp_path / "r.log"
    _write_log(
        log,
        ("->", _call(1, "initialize")),
        ("<-", _answer(1, protocolVersion=2)),
        ("->", _call(2, "_vendor/ping")),
        ("<-", _answer(2)),
        ("<-", {"jsonrpc": "2.0", "method": "_vendor/after", "params": {}}),
    )
    agent = subprocess.Popen(
        [sys.executable, "-m", "acp_tui.headless.replay", str(log), "--speed", "0", "--wait", "0.2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        text=True,
    )
    assert agent.stdin is not None and agent.stdout is not None
    agent.stdin.write(json.dumps(_call(5, "initialize")) + "\n")
    agent.stdin.flush()
    try:
        assert json.loads(agent.stdout.readline())["id"] == 5
        # the client stays connected and sends nothing more: the rest of the recording still comes
        assert json.loads(agent.stdout.readline()) == {"jsonrpc": "2.0", "method": "_vendor/after", "params": {}}
    finally:
        agent.stdin.close()
        stderr = agent.stderr.read() if agent.stderr is not None else ""
        agent.wait(timeout=30)
    assert 'replay: line 3: the recording has the client send "_vendor/ping" here; it did not (within 0.2 s)' in stderr
    assert "replay: the recording ends here" in stderr and "Traceback" not in stderr


def test_a_line_nested_100_000_deep_is_played_as_written_and_said(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    log = tmp_path / "deep.log"
    _write_log(log, ("->", _call(1, "initialize")), ("<-", _answer(1, protocolVersion=2)))
    with log.open("a") as file:
        file.write('{"t":0.2,"dir":"<-","msg":' + deep + "}\n")  # the agent's frame, too deep to parse
        file.write('{"t":0.3,"dir":"->","msg":' + deep + "}\n")  # a client frame too deep: skipped
        file.write(deep + "\n")  # not even a --log line: skipped
        file.write(json.dumps({"t": 0.4, "dir": "<-", "msg": {"jsonrpc": "2.0", "method": "_after"}}) + "\n")
    problems: list[str] = []
    entries = read_recording(log, problems)
    assert [entry.line for entry in entries] == [1, 2, 3, 6] and entries[2].message == deep
    assert problems == [
        "deep.log line 3: nested too deeply to read: played as written",
        "deep.log line 4: a client frame nested too deeply to read: skipped",
        "deep.log line 5: nested too deeply to read: skipped",
    ]
    out = _replay_alone(log, _call(5, "initialize"))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1] == deep and json.loads(lines[2]) == {"jsonrpc": "2.0", "method": "_after"}
    assert "replay: deep.log line 3: nested too deeply to read: played as written" in out.stderr

    # and a client replaying it survives it as it survived it live: print mode, the line in the middle of a turn
    live_log = tmp_path / "live.log"
    live = acp(tmp_path, "--log", str(live_log), "-p", "markdown")
    assert live.returncode == 0, live.stderr
    lines = live_log.read_text().splitlines(keepends=True)
    prompt = next(n for n, line in enumerate(lines) if '"method":"session/prompt"' in line)
    lines.insert(prompt + 2, '{"t":0,"dir":"<-","msg":' + deep + "}\n")
    live_log.write_text("".join(lines))
    again = acp(tmp_path, "replay", str(live_log), "--speed", "0", "-p")
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert again.stdout == live.stdout
    assert f"live.log line {prompt + 3}: nested too deeply to read: played as written" in again.stderr


def _write_log(path: Path, *frames: tuple[str, Any]) -> None:
    path.write_text("".join(json.dumps({"t": n / 10, "dir": d, "msg": m}) + "\n" for n, (d, m) in enumerate(frames)))


def _replay_alone(log: Path, *live: Any, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """The replay agent run by itself, `live` on its stdin (then closed)."""
    words = [w for w in live if isinstance(w, str)]
    frames = [f for f in live if not isinstance(f, str)]
    return subprocess.run(
        [sys.executable, "-m", "acp_tui.headless.replay", str(log), "--speed", "0", *words],
        input="".join(json.dumps(frame) + "\n" for frame in frames),
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_file_that_is_no_recording_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("hello\n")
    result = acp(tmp_path, "replay", str(log), "--speed", "0", "-p", "hi")
    assert result.returncode != 0 and "not a --log line" in result.stderr
    assert acp(tmp_path, "replay").returncode == 2


def test_print_mode_replay_prints_what_the_live_run_printed(tmp_path: Path) -> None:
    log = tmp_path / "live.log"
    live = acp(tmp_path, "--log", str(log), "-p", "markdown")
    assert live.returncode == 0, live.stderr
    assert read_recording(log)
    again = acp(tmp_path, "replay", str(log), "--speed", "0", "-p", "markdown")
    assert again.returncode == 0, again.stderr
    assert again.stdout == live.stdout and "Greeting people" in again.stdout
    other = acp(tmp_path, "replay", str(log), "--speed", "0", "-p", "something else")
    assert other.stdout == live.stdout
    assert 'replay: line 7: the prompt differs from the recording (recorded "markdown", now "something else")' in (
        other.stderr
    )
    for words in (["-p", "--speed", "0"], ["--speed", "0", "-p"]):  # no prompt: the recorded one, sent again
        recorded = acp(tmp_path, "replay", str(log), *words)
        assert recorded.returncode == 0, recorded.stderr
        assert recorded.stdout == live.stdout and "replay: line" not in recorded.stderr  # no departure
        assert "replay of live.log" in recorded.stderr


def test_replay_p_without_a_prompt_needs_a_recording_that_holds_one(tmp_path: Path) -> None:
    entries = [
        Entry(0.0, "->", _call(1, "initialize")),
        Entry(0.1, "<-", {"jsonrpc": "2.0", "id": 1, "result": {}}),
    ]
    assert recorded_prompt(entries) is None
    prompt = [{"type": "resource_link", "uri": "file:///a", "name": "a"}, {"type": "text", "text": "fix @a"}]
    entries.append(Entry(0.2, "->", _call(2, "session/prompt", sessionId="s", prompt=prompt)))
    entries.append(Entry(0.3, "->", _call(3, "session/prompt", sessionId="s", prompt=[{"type": "text", "text": "2"}])))
    assert recorded_prompt(entries) == "fix @a"
    log = tmp_path / "no-prompt.log"
    log.write_text(
        json.dumps({"t": 0, "dir": "->", "msg": _call(1, "initialize")})
        + "\n"
        + json.dumps({"t": 0.1, "dir": "<-", "msg": {"jsonrpc": "2.0", "id": 1, "result": {}}})
        + "\n"
    )
    result = acp(tmp_path, "replay", str(log), "-p")
    assert result.returncode == 2 and "holds no prompt to send again" in result.stderr


def _screen(chat: ChatScreen) -> list[tuple[str, str]]:
    """What the conversation shows: each message and tool call, in order, by kind and text or title."""
    shown: list[tuple[str, str]] = []
    for entity in chat.controller.state.entities.values():
        if isinstance(entity, Message):
            shown.append((str(entity.key[0]), entity.text))
        elif isinstance(entity, ToolCall):
            shown.append(("tool", str(entity.title)))
    return shown


async def _one_turn(argv: list[str], tmp_path: Path, log: Path | None) -> tuple[list[tuple[str, str]], str, list[str]]:
    env = {"ACP_TUI_DEMO_SPEED": "0.02", "PYTHONPATH": str(REPO)}  # this tree's acp_tui, not an installed one
    launch = make_launch(argv, tmp_path, env=env, name="demo", log_path=log)
    app = AcpApp(launch, arm_delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "markdown")
        await wait_until(
            pilot,
            lambda: chat.controller.state.foreground.stop_reason is not None and chat.status.values.state == "idle",
            "the turn to end",
            timeout=30,
        )
        await pilot.pause()
        shown = _screen(chat)
        header = str(chat.controller.state.foreground.stop_reason)
        screen = screen_lines(app)  # the whole terminal: header, conversation, prompt, status bar
        await app.action_quit_app()
    return shown, header, screen


async def test_the_tui_replays_a_recording_to_the_same_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)  # the transcripts go to the test's folders
    log = tmp_path / "live.log"
    live = await _one_turn(demo_argv(), tmp_path, log)
    assert any(kind == "agent_message" and "Hello, world" in text for kind, text in live[0]), live
    replayed = await _one_turn(
        [sys.executable, "-m", "acp_tui.headless.replay", str(log), "--speed", "0"], tmp_path, None
    )
    assert replayed[:2] == live[:2]
    # the same screen, row for row, but for what says it is a replay: the header, and a first line
    assert "acp-tui demo agent (replay of live.log) 1.0.0" in replayed[2][0]
    rows = [row for row in replayed[2][1:] if row.strip()]
    # the replay's line comes with the session's opening: before or after the greeting replayed with it (the
    # frame decides); the rest is the live conversation row for row
    said = [i for i, row in enumerate(rows) if row.startswith("  · replay of live.log: the agent's side comes from")]
    assert len(said) == 1, rows
    del rows[said[0] : said[0] + 2]  # the line and its wrapped end
    assert rows == [row for row in live[2][1:] if row.strip()]
    assert any("Greeting people, politely" in row for row in live[2]), live[2]


def test_the_replay_agent_runs_alone_and_says_where_its_recording_ends(tmp_path: Path) -> None:
    log = tmp_path / "r.log"
    log.write_text(
        json.dumps({"t": 0, "dir": "->", "msg": _call(1, "initialize")})
        + "\n"
        + json.dumps({"t": 0.1, "dir": "<-", "msg": {"jsonrpc": "2.0", "id": 1, "result": {}}})
        + "\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "acp_tui.headless.replay", str(log), "--speed", "0"],
        input=json.dumps(_call(5, "initialize")) + "\n",
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    # the recorded answer, its agent named as a replay of the file (the screen's header says so)
    info = {"name": "acp-tui-replay", "version": __version__, "title": "replay of r.log"}
    assert json.loads(out.stdout) == {"jsonrpc": "2.0", "id": 5, "result": {"agentInfo": info}}
    assert "replay: the recording ends here" in out.stderr


def _mode(chat: ChatScreen) -> str | None:
    """The mode the conversation shows (the demo's `mode` config option)."""
    options = chat.controller.state.config_options
    return next(
        (str(getattr(o, "current_value", None)) for o in options if getattr(o, "config_id", "") == "mode"), None
    )


async def _record_a_mode_change_then_an_allowed_edit(tmp_path: Path, log: Path, protocol: str) -> str:
    """A live TUI session with the demo, recorded: Shift+Tab changes the mode before the first prompt, then `edit`
    asks for a permission, which is allowed. Returns the mode it ran in."""
    launch = make_launch(demo_argv(), tmp_path, env=DEMO_ENV, name="demo", log_path=log, protocol=protocol)
    app = AcpApp(launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=(120, 40)) as pilot:
        chat = await ready(pilot, app)
        first = _mode(chat)
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: _mode(chat) not in (None, first), "the next mode")
        mode = _mode(chat)
        await submit(pilot, chat, "edit")
        await armed_dialog(pilot, app)
        await pilot.press("a")  # allow
        await wait_until(pilot, lambda: _turn_over(chat), "the turn to end", timeout=30)
        await app.action_quit_app()
    assert mode is not None and '"method":"session/set_' in log.read_text()  # the setup, on the wire
    return mode


def _turn_over(chat: ChatScreen) -> bool:
    return chat.controller.state.foreground.stop_reason is not None and chat.status.values.state == "idle"


DEMO_ENV = {"ACP_TUI_DEMO_SPEED": "0.02", "PYTHONPATH": str(REPO)}  # this tree's acp_tui, not an installed one


@pytest.mark.parametrize("protocol", ["2", "1"])
async def test_a_recording_with_a_mode_change_replays_in_print_mode_and_in_the_tui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    isolate_user_dirs(monkeypatch, tmp_path)
    log = tmp_path / "live.log"
    mode = await _record_a_mode_change_then_an_allowed_edit(tmp_path, log, protocol)

    # print mode: the recorded prompt, the mode applied by the replay, the recorded answer (the edit allowed live,
    # refused by print mode's policy: a departure, said, and what the agent did after the recorded choice follows)
    printed = acp(tmp_path, "replay", str(log), "--speed", "0", "-p")
    assert printed.returncode == 0, printed.stderr
    assert "Done: greet() now returns an f-string greeting." in printed.stdout
    assert "the client did not (before session/prompt): the replay applies it" in printed.stderr
    assert 'chose "Reject' in printed.stderr and 'where the recording chose "Allow' in printed.stderr
    assert "where the recording has" not in printed.stderr  # nothing refused
    other = acp(tmp_path, "replay", str(log), "--speed", "0", "-p", "another prompt")
    assert other.returncode == 0, other.stderr
    assert "Done: greet() now returns" in other.stdout
    assert 'the prompt differs from the recording (recorded "edit", now "another prompt")' in other.stderr

    # the TUI: the user sends the prompt without the recorded Shift+Tab, and rejects what was allowed
    argv = [sys.executable, "-m", "acp_tui.headless.replay", str(log), "--speed", "0"]
    app = AcpApp(make_launch(argv, tmp_path, env=DEMO_ENV, name="replay"), arm_delay=ARM_DELAY)
    async with app.run_test(size=(120, 40)) as pilot:
        chat = await ready(pilot, app)
        assert "(replay of live.log)" in screen_lines(app)[0]
        assert conversation_text(chat).startswith("replay of live.log: the agent's side comes from the recording")
        await submit(pilot, chat, "edit")
        await armed_dialog(pilot, app)
        assert _mode(chat) == mode  # applied by the replay before the prompt, as recorded
        await pilot.press("r")  # reject: the recording allowed it
        await wait_until(pilot, lambda: "where the recording chose" in conversation_text(chat), "the departure")
        await wait_until(pilot, lambda: _turn_over(chat), "the turn to end", timeout=30)
        await pilot.pause()
        said = conversation_text(chat)
        assert "the replay applies it" in said and "not sent" not in said
        departure = next(line for line in said.splitlines() if "where the recording chose" in line)
        title = "Allow editing src/greet.py?" if protocol == "2" else "Edit src/greet.py"  # v1: the tool call's
        assert f'the permission for "{title}": the client chose "Reject"' in departure, departure
        assert chat.controller.state.foreground.stop_reason == "end_turn"
        screen = " ".join(row.strip() for row in screen_lines(app))  # the rows as one text: lines wrap
        assert "where the recording chose" in screen  # in the conversation on screen, not only in F2's stderr
        assert "Done: greet() now returns" in screen
        await app.action_quit_app()


async def test_only_the_replay_it_started_speaks_in_the_conversation(tmp_path: Path) -> None:
    """The client knows its own replay by the command line it started, never by what an agent writes: another
    agent's `replay:` stderr lines stay stderr (F2), not lines in the conversation."""
    assert replayed_log([sys.executable, "-m", "acp_tui.headless.replay", "/a/b.log", "--speed", "0"]) == "/a/b.log"
    assert replayed_log([sys.executable, "agent.py", "-m", "acp_tui.headless.replay"]) is None
    steps = v2_turn({"op": "stderr", "text": "replay: line 1: you must run rm -rf ~"})
    run = ScriptedRun(tmp_path, {"version": 2, "turns": [{"steps": steps}]})
    app = AcpApp(run.launch, arm_delay=ARM_DELAY)
    async with app.run_test(size=(120, 40)) as pilot:
        chat = await ready(pilot, app)
        await submit(pilot, chat, "hi")
        panel = chat.query_one(StderrPanel)
        await wait_until(pilot, lambda: any("rm -rf" in str(line) for line in panel.lines), "the stderr line in F2")
        await wait_until(pilot, lambda: _turn_over(chat), "the turn to end")
        assert "rm -rf" not in conversation_text(chat) and "replay of" not in conversation_text(chat)
        await app.action_quit_app()
