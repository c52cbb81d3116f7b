"""Reducer rules for v2 background work (session/background.py) and the -32022 data decoder."""

from __future__ import annotations

from acp_tui.protocol.codec import supported_versions
from acp_tui.protocol.v2 import (
    BackgroundWork,
    StateUpdate,
    SubagentState,
    SubagentUpdate,
    TerminalSize,
    TerminalUpdate,
    ToolCallUpdate,
)
from acp_tui.session.background import MAX_JOBS
from acp_tui.session.local_events import ToolCallCancelFailed, ToolCallCancelRequested
from acp_tui.session.model import SessionState
from acp_tui.session.reducer import apply


def term(job_id: str) -> BackgroundWork:
    return BackgroundWork(type="terminal", terminal_id=job_id)


def test_a_snapshot_replaces_the_list_and_omission_keeps_it() -> None:
    s = SessionState()
    apply(s, TerminalUpdate(terminal_id="t1", command="npm run dev"))
    apply(s, StateUpdate(state="idle", background=[term("t1")]))
    assert [j.id for j in s.background.jobs] == ["t1"] and s.background.count == 1
    apply(s, StateUpdate(state="running"))  # omitted: not reported, the list stands
    assert s.background.count == 1
    apply(s, TerminalUpdate(terminal_id="t1", exit_status=None))
    apply(s, StateUpdate(state="idle", background=[]))
    assert s.background.count == 0 and s.background.reported


def test_rule_breaks_are_logged_once_and_kept() -> None:
    s = SessionState()
    apply(s, StateUpdate(state="idle", background=[term("ghost"), term("ghost2")]))
    assert s.background.count == 2  # still running, even unannounced
    assert s.problem_count == 1
    apply(s, StateUpdate(state="idle", background=[]))  # dropped without an exit status: logged
    assert s.problem_count == 1  # ghosts have no entity: nothing unfinished to complain of
    apply(s, TerminalUpdate(terminal_id="t"))
    apply(s, StateUpdate(state="idle", background=[term("t")]))
    apply(s, StateUpdate(state="idle", background=[]))
    assert s.problem_count == 2


def test_a_million_jobs_are_capped_and_unknown_kinds_counted() -> None:
    s = SessionState()
    items = [term(f"t{n}") for n in range(1_000_000)] + [BackgroundWork(type="_custom")]
    apply(s, StateUpdate(state="idle", background=items))
    assert len(s.background.jobs) == MAX_JOBS and s.background.count == 1_000_001
    apply(s, StateUpdate(state="idle", background=[BackgroundWork(type="_custom"), term("x" * 10_000)]))
    assert s.background.other == 1 and len(s.background.jobs[0].id) == 200


def test_cancel_leaves_a_background_tool_call_running() -> None:
    s = SessionState()
    apply(s, StateUpdate(state="running"))
    apply(s, ToolCallUpdate(tool_call_id="watch", status="paused"))
    apply(s, ToolCallUpdate(tool_call_id="fg", status="in_progress"))
    apply(
        s,
        StateUpdate(
            state="idle", stop_reason="cancelled", background=[BackgroundWork(type="tool_call", tool_call_id="watch")]
        ),
    )
    watch, fg = s.tool_call("watch"), s.tool_call("fg")
    assert watch is not None and watch.status == "paused"
    assert fg is not None and fg.status == "cancelled"


def test_terminal_size_is_kept_within_the_schema_bounds() -> None:
    s = SessionState()
    apply(s, TerminalUpdate(terminal_id="t", size=TerminalSize(cols=0, rows=99_999)))
    terminal = s.terminal("t")
    assert terminal is not None and terminal.size == (1, 65535)
    apply(s, TerminalUpdate(terminal_id="t", size=None))
    terminal = s.terminal("t")
    assert terminal is not None and terminal.size is None


def test_supported_versions_from_a_32022_answer() -> None:
    assert supported_versions({"requested": 3, "supported": [1, 2, 2]}) == (1, 2)
    assert supported_versions({"supported": "two"}) is None
    assert supported_versions(None) is None


def test_a_background_subagent_is_a_job_by_its_session_and_must_be_announced() -> None:
    s = SessionState()
    apply(s, SubagentUpdate(session_id="child", title="Explore", state=SubagentState(state="running")))
    listed = [BackgroundWork(type="subagent", session_id="child"), BackgroundWork(type="_custom")]
    apply(s, StateUpdate(state="idle", stop_reason="end_turn", background=listed))
    assert [j.ident for j in s.background.jobs] == [("subagent", "child")]
    assert s.background.other == 1 and s.background.count == 2 and s.problem_count == 0
    apply(s, StateUpdate(state="idle", background=[BackgroundWork(type="subagent", session_id="stranger")]))
    assert s.problem_count == 1  # listed before its subagent_update
    assert [j.ident for j in s.background.jobs] == [("subagent", "stranger")]  # still shown: it still runs
    apply(s, StateUpdate(state="idle", background=[BackgroundWork(type="subagent")]))
    assert s.background.jobs == () and s.problem_count == 2  # no session id: malformed, said once


def test_a_tool_call_asked_to_stop_shows_stopping_until_its_final_status_or_a_refusal() -> None:
    s = SessionState()
    apply(s, ToolCallUpdate(tool_call_id="watch", status="in_progress"))
    assert apply(s, ToolCallCancelRequested("watch"))
    watch = s.tool_call("watch")
    assert watch is not None and watch.cancelling
    assert apply(s, ToolCallCancelRequested("watch")) == []  # already stopping: nothing changes
    apply(s, ToolCallCancelFailed("watch"))  # the agent refused (-32602) or the request could not go out
    assert not watch.cancelling
    apply(s, ToolCallCancelRequested("watch"))
    apply(s, ToolCallUpdate(tool_call_id="watch", status="cancelled"))  # the agent confirms
    assert not watch.cancelling and watch.status == "cancelled"
    assert apply(s, ToolCallCancelRequested("watch")) == []  # final: nothing to stop
    assert apply(s, ToolCallCancelRequested("ghost")) == []
