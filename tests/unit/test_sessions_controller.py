"""Sessions through the controller, no Textual: list, open with history, new, close, delete, --resume, --continue.

Every path runs against the demo agent in both versions (v2 `session/resume` with `replayFrom`, v1
`session/load`), and against the TypeScript SDK's dual-version agent (v2 list, resume with replay, close).
Every frame of each run is read back from the wire trace and validated against the version's schema.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import pytest

from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import Note, SessionOpened
from acp_tui.controller.errors import ControllerError
from acp_tui.controller.sessions import SessionIndex, matching, merge
from acp_tui.demo.store import StoredSession, write_sessions
from acp_tui.launch import Launch
from acp_tui.launch_resolve import demo_argv
from acp_tui.session.model import AGENT_MESSAGE, USER_MESSAGE, Message
from acp_tui.transcript import render_markdown
from tests.support.agents import AGENTS_DIR
from tests.support.claude import _launch as claude_launch
from tests.support.controller import ControllerEvents, ScriptedUser
from tests.support.paths import TRAFFIC
from tests.support.peers import TsSdkPeers
from tests.support.schema_check import validate_agent_message, validate_client_message

pytestmark = pytest.mark.timeout(90)
VERSIONS = pytest.mark.parametrize("version", [2, 1], ids=["v2", "v1"])


def launch_for(
    argv: list[str] | tuple[str, ...],
    cwd: Path,
    version: int,
    trace: Path,
    *,
    env: dict[str, str] | None = None,
    name: str = "demo",
    **extra: Any,
) -> Launch:
    return Launch(
        agent_argv=tuple(argv),
        agent_name=name,
        env={"ACP_TUI_DEMO_SPEED": "0", **(env or {})},
        cwd=cwd,
        protocol=version,  # type: ignore[arg-type]
        theme=None,
        log_path=trace,
        init_timeout=20,
        warnings=(),
        **extra,
    )


class Run:
    """One controller with its events, its trace, and helpers to wait on it."""

    def __init__(self, launch: Launch) -> None:
        self.events = ControllerEvents()
        asker: Any = ScriptedUser(["allow_once"] * 20)  # answers permissions; nothing else is asked here
        self.controller = SessionController(launch, asker=asker, listener=self.events)

    @property
    def notes(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, Note)]

    def opened(self) -> list[SessionOpened]:
        return [e for e in self.events if isinstance(e, SessionOpened)]

    async def until(self, condition: Callable[[], object], what: str, timeout: float = 20) -> None:
        for _ in range(int(timeout / 0.02)):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}")

    async def turn(self, text: str) -> None:
        ctl = self.controller
        turns = ctl.state.turn
        assert ctl.submit(text)
        await self.until(lambda: ctl.state.turn > turns and not ctl.busy, f"the turn {text!r}")

    def texts(self, kind: str) -> list[str]:
        return [e.text for k, e in self.controller.state.entities.items() if k[0] == kind and isinstance(e, Message)]


@pytest.fixture
async def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[Run]]:
    monkeypatch.setenv("ACP_TUI_DATA_DIR", str(tmp_path / "data"))
    made: list[Run] = []
    try:
        yield made
    finally:
        for run in made:
            await run.controller.shutdown()


def start(runs: list[Run], launch: Launch) -> Run:
    run = Run(launch)
    runs.append(run)
    return run


def validate_trace(trace: Path, version: int) -> list[dict[str, Any]]:
    """Every frame of the trace against the schema; returns the client's frames."""
    frames = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()]
    asked: dict[tuple[str, Any], str] = {}
    sent: list[dict[str, Any]] = []
    for frame in frames:
        msg = frame["msg"]
        if frame["dir"] not in ("->", "<-") or not isinstance(msg, dict):
            continue
        side = "client" if frame["dir"] == "->" else "agent"
        if "method" in msg and "id" in msg:
            asked[(side, msg["id"])] = msg["method"]
        answering = None if "method" in msg else asked.get(("agent" if side == "client" else "client", msg.get("id")))
        if side == "client":
            sent.append(msg)
            validate_client_message(msg, version, answering=answering)
        else:
            validate_agent_message(msg, version, answering=answering)
    return sent


def methods_sent(sent: list[dict[str, Any]]) -> list[str]:
    return [m["method"] for m in sent if "method" in m]


# --- the demo agent, both versions -------------------------------------------------------------------------


@VERSIONS
async def test_new_session_list_and_open_with_history(tmp_path: Path, runs: list[Run], version: int) -> None:
    trace = tmp_path / "wire.jsonl"
    run = start(runs, launch_for(demo_argv(), tmp_path, version, trace))
    ctl = run.controller
    assert await ctl.start()
    first = ctl.session.session_id if ctl.session else None
    await run.turn("hello there")
    await run.turn("and a second prompt")
    first_state = ctl.state
    assert (
        ctl.sessions.abilities.list
        and ctl.sessions.abilities.close
        and ctl.sessions.abilities.delete
        and ctl.sessions.abilities.can_open
    )

    assert await ctl.sessions.new_session()
    assert ctl.session is not None and ctl.session.session_id != first
    assert ctl.state is not first_state and run.opened()[-1].replaces
    assert run.texts(USER_MESSAGE) == []  # a fresh conversation
    await run.until(
        lambda: any("session/close" == m for m in methods_sent(validate_trace(trace, version))),
        "the left session to be closed",
    )

    page = await ctl.sessions.list_sessions()
    assert {row.session_id for row in page.sessions} >= {first, ctl.session.session_id}
    row = next(r for r in page.sessions if r.session_id == first)
    assert row.title == "hello there" and row.updated_at is not None and row.cwd == str(tmp_path)
    assert page.sessions[0].session_id in {first, ctl.session.session_id}  # newest first

    assert await ctl.sessions.open_session(first or "", cwd=row.cwd)
    assert ctl.session.session_id == first
    assert run.texts(USER_MESSAGE) == ["hello there", "and a second prompt"]  # replayed once, no duplicates
    assert any("greet" in text or text for text in run.texts(AGENT_MESSAGE))
    assert ctl.state.info.title == "hello there"
    assert "session opened: its history is above; the agent remembers it" in run.notes
    await run.turn("after opening")  # the agent goes on in the opened session
    assert run.texts(USER_MESSAGE)[-1] == "after opening"

    sent = validate_trace(trace, version)
    opened = [m for m in sent if m.get("method") in ("session/load", "session/resume")]
    if version == 2:
        assert opened[-1]["params"]["replayFrom"] == {"type": "start"}
    else:
        assert opened[-1]["method"] == "session/load"
    # our transcript of the opened session starts with its whole history
    assert ctl.transcript.writer is not None
    await asyncio.sleep(0.1)  # the transcript is written once per frame
    markdown = render_markdown(ctl.transcript.writer.path)
    assert markdown.index("hello there") < markdown.index("and a second prompt") < markdown.index("after opening")


@VERSIONS
async def test_unknown_id_bad_cursor_and_a_broken_replay_leave_the_conversation(
    tmp_path: Path, runs: list[Run], version: int
) -> None:
    trace = tmp_path / "wire.jsonl"
    run = start(runs, launch_for(demo_argv(), tmp_path, version, trace, env={"ACP_TUI_DEMO_BREAK_REPLAY": "1"}))
    ctl = run.controller
    assert await ctl.start()
    await run.turn("keep me")
    kept_id, kept_state = ctl.session.session_id if ctl.session else None, ctl.state

    assert not await ctl.sessions.open_session("no-such-session")
    assert ctl.session is not None and ctl.session.session_id == kept_id and ctl.state is kept_state
    assert any(n.startswith("could not open the session") and "this conversation stays" in n for n in run.notes)

    with pytest.raises(ControllerError, match="refused session/list"):
        await ctl.sessions.list_sessions("not-a-cursor")

    assert await ctl.sessions.new_session()
    left_again = ctl.session.session_id if ctl.session else None
    assert not await ctl.sessions.open_session(kept_id or "")  # the demo breaks the replay halfway
    assert ctl.session.session_id == left_again
    assert "could not read the rest" in run.notes[-1]
    await run.turn("still here")  # the session shown goes on
    validate_trace(trace, version)


@VERSIONS
async def test_delete_and_paging(tmp_path: Path, runs: list[Run], version: int) -> None:
    trace = tmp_path / "wire.jsonl"
    run = start(runs, launch_for(demo_argv(), tmp_path, version, trace, env={"ACP_TUI_DEMO_PAGE_SIZE": "2"}))
    ctl = run.controller
    assert await ctl.start()
    ids = [ctl.sessions.current_session_id or ""]
    for _ in range(4):
        assert await ctl.sessions.new_session()
        ids.append(ctl.sessions.current_session_id or "")
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await ctl.sessions.list_sessions(cursor)
        pages += 1
        seen.extend(r.session_id for r in page.sessions)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert pages == 3 and sorted(seen) == sorted(ids)

    with pytest.raises(ControllerError, match="open session"):
        await ctl.sessions.delete_session(ids[-1])
    await ctl.sessions.delete_session(ids[0])
    await ctl.sessions.delete_session(ids[0])  # idempotent
    page = await ctl.sessions.list_sessions()
    rest = [r.session_id for r in page.sessions]
    while page.next_cursor is not None:
        page = await ctl.sessions.list_sessions(page.next_cursor)
        rest.extend(r.session_id for r in page.sessions)
    assert ids[0] not in rest and len(rest) == 4
    sent = validate_trace(trace, version)
    assert methods_sent(sent).count("session/delete") == 2


@VERSIONS
async def test_continue_and_resume_across_runs_and_quit_closes(tmp_path: Path, runs: list[Run], version: int) -> None:
    store = tmp_path / "demo-store"
    env = {"ACP_TUI_DEMO_STORE": str(store)}
    first = start(runs, launch_for(demo_argv(), tmp_path, version, tmp_path / "one.jsonl", env=env))
    assert await first.controller.start()
    await first.turn("yesterday's question")
    yesterday = first.controller.session.session_id if first.controller.session else ""
    await first.controller.shutdown()
    assert "session/close" in methods_sent(validate_trace(tmp_path / "one.jsonl", version))  # closed on quit

    second = start(
        runs, launch_for(demo_argv(), tmp_path, version, tmp_path / "two.jsonl", env=env, continue_last=True)
    )
    assert await second.controller.start()
    assert second.controller.session is not None and second.controller.session.session_id == yesterday
    assert second.texts(USER_MESSAGE) == ["yesterday's question"]
    assert not second.opened()[-1].replaces  # nothing was on screen before
    await second.turn("today's question")
    await second.controller.shutdown()

    third = start(
        runs, launch_for(demo_argv(), tmp_path, version, tmp_path / "three.jsonl", env=env, resume_id=yesterday)
    )
    assert await third.controller.start()
    assert third.texts(USER_MESSAGE) == ["yesterday's question", "today's question"]
    # the transcripts we wrote know it too, for this agent and folder
    rows = third.controller.sessions.transcript_sessions()
    assert yesterday in {r.session_id for r in rows}
    for name in ("two.jsonl", "three.jsonl"):
        validate_trace(tmp_path / name, version)


async def test_continue_passes_over_a_later_start_that_sent_no_prompt(tmp_path: Path, runs: list[Run]) -> None:
    """A run that only looked (started, quit) is no session to continue: `--continue` opens the last prompted one."""
    env = {"ACP_TUI_DEMO_STORE": str(tmp_path / "demo-store")}
    first = start(runs, launch_for(demo_argv(), tmp_path, 2, tmp_path / "one.jsonl", env=env))
    assert await first.controller.start()
    await first.turn("the real question")
    asked = first.controller.session.session_id if first.controller.session else ""
    await first.controller.shutdown()
    looked = start(runs, launch_for(demo_argv(), tmp_path, 2, tmp_path / "two.jsonl", env=env))
    assert await looked.controller.start()
    await looked.controller.shutdown()
    again = start(runs, launch_for(demo_argv(), tmp_path, 2, tmp_path / "three.jsonl", env=env, continue_last=True))
    assert await again.controller.start()
    assert again.controller.session is not None and again.controller.session.session_id == asked
    assert again.texts(USER_MESSAGE) == ["the real question"]


async def test_continue_with_nothing_to_continue_starts_a_new_session(tmp_path: Path, runs: list[Run]) -> None:
    run = start(runs, launch_for(demo_argv(), tmp_path, 2, tmp_path / "wire.jsonl", continue_last=True))
    assert await run.controller.start()
    assert "no earlier session of this agent here: a new one starts" in run.notes
    assert run.opened() == []


@VERSIONS
async def test_a_session_of_another_folder_is_opened_by_an_agent_started_there(
    tmp_path: Path, runs: list[Run], version: int
) -> None:
    store = tmp_path / "demo-store"
    env = {"ACP_TUI_DEMO_STORE": str(store)}
    elsewhere = tmp_path / "elsewhere"
    here = tmp_path / "here"
    elsewhere.mkdir()
    here.mkdir()
    other = start(runs, launch_for(demo_argv(), elsewhere, version, tmp_path / "other.jsonl", env=env))
    assert await other.controller.start()
    await other.turn("made elsewhere")
    made = other.controller.sessions.current_session_id or ""
    await other.controller.shutdown()

    run = start(runs, launch_for(demo_argv(), here, version, tmp_path / "wire.jsonl", env=env))
    ctl = run.controller
    assert await ctl.start()
    assert made not in {r.session_id for r in (await ctl.sessions.list_sessions()).sessions}  # this folder's only
    everywhere = await ctl.sessions.list_sessions(all_dirs=True)
    row = next(r for r in everywhere.sessions if r.session_id == made)
    assert row.cwd == str(elsewhere)
    old_process = ctl.session
    assert await ctl.sessions.open_session(made, cwd=row.cwd)
    assert ctl.session is not old_process and ctl.session is not None and ctl.session.cwd == str(elsewhere)
    assert ctl.launch.cwd == elsewhere and run.opened()[-1].cwd == str(elsewhere)
    assert run.texts(USER_MESSAGE) == ["made elsewhere"]
    await run.until(
        lambda: old_process is not None and old_process.connection.exit_info is not None,
        "the first agent to be stopped",
    )
    await run.turn("continued here")
    validate_trace(tmp_path / "wire.jsonl", version)


async def test_ten_thousand_sessions_page_through_and_filter(tmp_path: Path, runs: list[Run]) -> None:
    store = tmp_path / "demo-store"
    sessions: list[tuple[StoredSession, list[dict[str, Any]]]] = [
        (
            StoredSession(
                f"s{i:05d}",
                str(tmp_path),
                2,
                f"Session number {i}",
                f"2026-01-01T00:00:{i % 60:02d}.{i:03d}Z" if i < 1000 else f"2025-{1 + i % 12:02d}-01T00:00:00Z",
            ),
            [],
        )
        for i in range(10_000)
    ]
    write_sessions(store, sessions)
    trace = tmp_path / "wire.jsonl"
    run = start(
        runs,
        launch_for(
            demo_argv(), tmp_path, 2, trace, env={"ACP_TUI_DEMO_STORE": str(store), "ACP_TUI_DEMO_PAGE_SIZE": "500"}
        ),
    )
    assert await run.controller.start()
    rows = []
    cursor: str | None = None
    while True:
        page = await run.controller.sessions.list_sessions(cursor)
        rows.extend(page.sessions)
        if (cursor := page.next_cursor) is None:
            break
    assert len({r.session_id for r in rows}) == 10_001  # and the one just started
    merged = merge(rows, [])
    assert len(merged) == 10_001
    stamps = [r.updated_at for r in merged if r.updated_at is not None]
    assert stamps == sorted(stamps, reverse=True)
    assert [merged[i].session_id for i in matching(merged, "NUMBER 4321")] == ["s04321"]  # every word, any case
    validate_trace(trace, 2)


def test_the_index_folds_entries_and_filters_by_agent_and_folder(tmp_path: Path) -> None:
    from acp_tui.controller.sessions import IndexEntry

    index = SessionIndex(tmp_path / "sessions.jsonl")
    transcript = tmp_path / "t1.jsonl"
    transcript.write_text("{}\n")
    other = tmp_path / "t2.jsonl"
    other.write_text("{}\n")
    index.record(IndexEntry(transcript, "s1", "demo", str(tmp_path), None, 100.0))
    index.record(IndexEntry(transcript, "s1", "demo", str(tmp_path), "\x1b]0;pwn\x07[b]Title", 200.0))
    index.record(IndexEntry(other, "s2", "claude", str(tmp_path), "x", 300.0))
    index.record(IndexEntry(tmp_path / "gone.jsonl", "s3", "demo", str(tmp_path), "gone", 400.0))
    with index.path.open("a") as file:
        file.write('{"torn": ')
    rows = index.sessions("demo", tmp_path)
    assert [(r.session_id, r.title) for r in rows] == [("s1", "[b]Title")]  # sanitised, latest entry, files that exist
    assert rows[0].transcript_only and rows[0].transcript == transcript
    assert index.sessions("demo", tmp_path / "elsewhere") == []
    assert len(index.sessions("claude", None)) == 1


def test_sessions_never_prompted_are_no_rows_and_hide_the_agents_untitled_row_of_them(tmp_path: Path) -> None:
    """m7 of the first-use report: a start that sent no prompt leaves no row, from our index or the agent's list."""
    from acp_tui.controller.sessions import IndexEntry, listing

    index = SessionIndex(tmp_path / "sessions.jsonl")
    files = {name: tmp_path / f"{name}.jsonl" for name in ("unused", "old-unused", "old", "asked", "revisit", "later")}
    for file in files.values():
        file.write_text("{}\n")
    here = str(tmp_path)
    index.record(IndexEntry(files["unused"], "s-unused", "demo", here, None, 100.0, prompted=False))
    index.record(IndexEntry(files["asked"], "s-asked", "demo", here, None, 110.0, prompted=False))
    index.record(IndexEntry(files["asked"], "s-asked", "demo", here, "what is up", 120.0, prompted=True))
    index.record(IndexEntry(files["revisit"], "s-revisit", "demo", here, "yesterday", 130.0, prompted=True))
    index.record(IndexEntry(files["later"], "s-revisit", "demo", here, None, 140.0, prompted=False))
    with index.path.open("a") as old_format:  # entries written before `prompted` was: a title says a prompt was sent
        for name, session_id, title in (("old-unused", "s-old-unused", None), ("old", "s-old", "old times")):
            old_format.write(
                json.dumps(
                    {"transcript": str(files[name]), "sessionId": session_id, "agent": "demo", "cwd": here}
                    | {"title": title, "updatedAt": 90.0}
                )
                + "\n"
            )
    ours = index.sessions("demo", tmp_path)
    assert {row.session_id: row.prompted for row in ours} == {
        "s-unused": False,
        "s-old-unused": False,
        "s-asked": True,
        "s-revisit": True,  # prompted in an earlier transcript: a visit that showed no history does not undo it
        "s-old": True,
    }
    assert next(row for row in ours if row.session_id == "s-revisit").title == "yesterday"
    assert [(row.session_id, row.title) for row in merge([], ours)] == [
        ("s-revisit", "yesterday"),
        ("s-asked", "what is up"),
        ("s-old", "old times"),
    ]
    agent = [
        listing("s-unused", here, None, None, listed=True),  # the agent lists every session it started
        listing("s-old-unused", here, "The agent titled it", None, listed=True),  # a title: the agent knows better
        listing("s-elsewhere", here, None, None, listed=True),  # not ours to judge
    ]
    merged = {row.session_id for row in merge(agent, ours)}
    assert merged == {"s-old-unused", "s-elsewhere", "s-revisit", "s-asked", "s-old"}


def test_a_prompt_title_is_the_start_of_the_first_prompt_with_words() -> None:
    from acp_tui.controller.sessions import has_prompt, prompt_title
    from acp_tui.protocol.v2 import TextContent
    from acp_tui.session.model import SessionState

    state = SessionState()
    assert prompt_title(state) is None and not has_prompt(state)
    for key, text in (((USER_MESSAGE, "u0"), "  \n "), ((AGENT_MESSAGE, "a0"), "hi"), ((USER_MESSAGE, "u1"), "")):
        message = Message(key)
        message.content.append(TextContent(text=text))
        state.entities[key] = message
    assert has_prompt(state) and prompt_title(state) is None, "no words yet"
    first = state.entities[(USER_MESSAGE, "u1")]
    assert isinstance(first, Message)
    first.content.append(TextContent(text="Fix   the\nfailing tests in the parser module " + "x" * 1_000_000))
    assert prompt_title(state, 30) == "Fix the failing tests in the…"
    assert prompt_title(state, 200) is not None and len(prompt_title(state, 200) or "") == 200


# --- a real peer: the TypeScript SDK's dual-version agent (v2 list, resume with replay, close) -----------


async def test_ts_sdk_agent_lists_resumes_with_replay_and_closes(
    tmp_path: Path, runs: list[Run], ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    trace = tmp_path / "wire.jsonl"
    launch = launch_for(ts_sdk_peers.dual_version_agent, tmp_path, 2, trace, env=peer_home_env, name="dual")
    run = start(runs, launch)
    ctl = run.controller
    assert await ctl.start()
    first = ctl.session.session_id if ctl.session else ""
    await run.turn("Hello, who are you?")
    answer = run.texts(AGENT_MESSAGE)
    assert answer
    assert await ctl.sessions.new_session()
    page = await ctl.sessions.list_sessions()
    assert first in {r.session_id for r in page.sessions}
    assert await ctl.sessions.open_session(first, cwd=str(tmp_path))
    assert run.texts(USER_MESSAGE) == ["Hello, who are you?"] and run.texts(AGENT_MESSAGE) == answer
    await run.turn("once more")
    sent = validate_trace(trace, 2)
    names = methods_sent(sent)
    assert names.count("session/close") >= 1 and "session/list" in names
    resume = [m for m in sent if m.get("method") == "session/resume"][-1]
    assert resume["params"]["replayFrom"] == {"type": "start"} and resume["params"]["cwd"] == str(tmp_path)


async def test_recorded_claude_v2_resume_traffic_lists_and_opens_with_history(tmp_path: Path, runs: list[Run]) -> None:
    """Claude's adapter as recorded: its list (titles, times), then a resume that replays the history."""
    argv = [sys.executable, str(AGENTS_DIR / "recorded_agent.py"), str(TRAFFIC / "claude-v2-resume.log")]
    trace = tmp_path / "wire.jsonl"
    run = start(runs, launch_for(argv, tmp_path, 2, trace, name="claude"))
    ctl = run.controller
    assert await ctl.start()
    assert ctl.sessions.abilities.delete and ctl.sessions.abilities.list and not ctl.sessions.abilities.load
    page = await ctl.sessions.list_sessions()
    titles = {row.session_id: row.title for row in page.sessions}
    assert titles["0fc11f28-7c41-4bc9-b9e1-906896eaa52e"] == "Please WRITEFILE now"
    assert [r.updated_at for r in page.sessions] == sorted((r.updated_at for r in page.sessions), reverse=True)  # type: ignore[type-var]
    target = "47175e42-d552-4a31-8473-1ba629248023"
    assert target in titles
    assert await ctl.sessions.open_session(target)
    assert run.texts(USER_MESSAGE) == ["Hello, who are you?"]
    assert run.texts(AGENT_MESSAGE) == ["Hello from mock LLM. You said: Hello, who are you?"]
    assert ctl.state.info.title == "Hello, who are you?" and not ctl.state.foreground.busy
    assert [c.config_id for c in ctl.state.config_options][:1] == ["mode"]
    sent = validate_trace(trace, 2)
    resume = next(m for m in sent if m.get("method") == "session/resume")
    assert resume["params"]["replayFrom"] == {"type": "start"}


@pytest.mark.timeout(240)
@pytest.mark.parametrize("version", [2, 1], ids=["v2", "v1"])
async def test_claude_adapter_continues_yesterdays_session_with_its_history(
    tmp_path: Path, runs: list[Run], claude_adapter: list[str], mock_model: int, version: int
) -> None:
    """Claude's adapter with the loopback model: a session, then a new process that continues it (v2 resume with
    replay, v1 `session/load`), its history shown, and the conversation goes on."""
    project = tmp_path / "src" / "project"
    project.mkdir(parents=True)
    protocol: Literal[1, 2] = 2 if version == 2 else 1
    first_launch = replace(
        claude_launch(claude_adapter, project, mock_model, protocol), log_path=tmp_path / "one.jsonl"
    )
    first = start(runs, first_launch)
    assert await first.controller.start()
    await first.turn("hello there")
    yesterday = first.controller.sessions.current_session_id
    assert "Hello from mock LLM. You said: hello there" in first.texts(AGENT_MESSAGE)
    await first.controller.shutdown()
    assert "session/close" in methods_sent(validate_trace(tmp_path / "one.jsonl", version))

    second = start(runs, replace(first_launch, log_path=tmp_path / "two.jsonl", continue_last=True))
    assert await second.controller.start()
    assert second.controller.sessions.current_session_id == yesterday
    assert second.texts(USER_MESSAGE) == ["hello there"]
    assert "Hello from mock LLM. You said: hello there" in second.texts(AGENT_MESSAGE)
    await second.turn("and again")
    assert "Hello from mock LLM. You said: and again" in second.texts(AGENT_MESSAGE)
    sent = validate_trace(tmp_path / "two.jsonl", version)
    opened = next(m for m in sent if m.get("method") in ("session/load", "session/resume"))
    assert opened["method"] == ("session/resume" if version == 2 else "session/load")
    page = await second.controller.sessions.list_sessions()
    assert yesterday in {r.session_id for r in page.sessions}


def test_launch_defaults_keep_old_callers_working(tmp_path: Path) -> None:
    launch = launch_for(demo_argv(), tmp_path, 2, tmp_path / "t")
    assert launch.resume_id is None and not launch.continue_last and not launch.pick_session
    assert replace(launch, resume_id="x").resume_id == "x"


# -- bounded paging (issue 21: hostile agent) --------------------------------------------------------------


def test_a_hundred_thousand_listed_sessions_decode_and_are_cut_to_the_cap() -> None:
    from acp_tui.controller.sessions import MAX_LISTED_SESSIONS, SessionPaging, from_wire
    from acp_tui.protocol import codec

    wire = json.dumps(
        {
            "sessions": [{"sessionId": f"s{i}", "cwd": "/p", "title": f"t{i}"} for i in range(100_000)],
            "nextCursor": "more",
        }
    ).encode()
    page = from_wire(codec.decode_list_sessions_result(wire))
    assert len(page.sessions) == MAX_LISTED_SESSIONS and page.dropped == 100_000 - MAX_LISTED_SESSIONS
    paging = SessionPaging()
    shown = paging.take(page)
    assert len(shown.sessions) == MAX_LISTED_SESSIONS and shown.next_cursor is None
    assert paging.stopped == f"the agent kept sending sessions; showing the first {MAX_LISTED_SESSIONS:,}"


def test_paging_stops_on_any_cursor_seen_before_and_after_the_page_cap() -> None:
    from acp_tui.controller.sessions import MAX_CURSOR_LENGTH, MAX_LIST_PAGES, SessionPage, SessionPaging, listing

    row = listing("s", "/p", None, None, listed=True)
    paging = SessionPaging()
    assert paging.take(SessionPage([row], "a")).next_cursor == "a"
    assert paging.take(SessionPage([row], "b")).next_cursor == "b"
    assert paging.take(SessionPage([row], "a")).next_cursor is None  # a, b, a: a loop of two
    assert paging.stopped is not None and "page cursor again" in paging.stopped and "first 3" in paging.stopped

    paging = SessionPaging()
    cursors = [paging.take(SessionPage([], f"c{i}")).next_cursor for i in range(MAX_LIST_PAGES + 5)]
    assert cursors[: MAX_LIST_PAGES - 1] == [f"c{i}" for i in range(MAX_LIST_PAGES - 1)]
    assert set(cursors[MAX_LIST_PAGES - 1 :]) == {None} and paging.stopped is not None
    assert "kept sending pages" in paging.stopped

    paging = SessionPaging()
    assert paging.take(SessionPage([row], "x" * (MAX_CURSOR_LENGTH + 1))).next_cursor is None
    assert paging.take(SessionPage([row], None)).next_cursor is None  # an honest last page
