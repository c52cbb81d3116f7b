"""Issue 38's bounds in the core, without the app: plans, background lists, mentions through links,
permission requests."""

from __future__ import annotations

import time
from pathlib import Path

from acp_tui.context import PromptBlockError, PromptBlocks, PromptCapabilities, PromptSubmission
from acp_tui.context.blocks import build_prompt_blocks, outside_mentions
from acp_tui.context.mentions import Mention
from acp_tui.protocol.methods import PermissionOption, RequestPermissionRequest
from acp_tui.protocol.v2 import BackgroundWork, PlanEntry, PlanItems, PlanUpdate
from acp_tui.services.permission import MAX_OPTION_NAME, MAX_OPTIONS, bound_request
from acp_tui.session.background import MAX_JOBS, Job, read_snapshot
from acp_tui.session.model import MAX_PLAN_ENTRIES, Plan, SessionState
from acp_tui.session.reducer import apply


def test_repeated_huge_plans_stay_within_the_cap_and_cheap() -> None:
    state = SessionState()
    entries = [
        PlanEntry(content=f"step {i}", priority="low", status="completed" if i % 2 else "pending")
        for i in range(100_000)
    ]
    began = time.perf_counter()
    for _ in range(5):
        apply(state, PlanUpdate(plan=PlanItems(plan_id="p", entries=entries)))
    assert time.perf_counter() - began < 2.0  # one pass each; nothing above the core sees more than the cap
    plan = state.plan("p")
    assert isinstance(plan, Plan) and isinstance(plan.plan, PlanItems)
    assert len(plan.plan.entries) == MAX_PLAN_ENTRIES
    assert (plan.more, plan.more_done) == (100_000 - MAX_PLAN_ENTRIES, (100_000 - MAX_PLAN_ENTRIES) // 2)


def test_a_small_plan_is_kept_as_sent() -> None:
    state = SessionState()
    items = PlanItems(plan_id="p", entries=[PlanEntry(content="one", priority="high", status="pending")])
    apply(state, PlanUpdate(plan=items))
    plan = state.plan("p")
    assert plan is not None and plan.plan is items and plan.more == 0


def test_a_background_list_is_checked_for_announced_work_past_the_cap() -> None:
    items = [BackgroundWork(type="terminal", terminal_id=f"t{i}") for i in range(MAX_JOBS + 50)]
    announced = {Job("terminal", f"t{i}") for i in range(MAX_JOBS + 50) if i != MAX_JOBS + 10}
    snapshot = read_snapshot(items, lambda job: job in announced)
    assert len(snapshot.jobs) == MAX_JOBS and snapshot.hidden == 50
    assert snapshot.unannounced == Job("terminal", f"t{MAX_JOBS + 10}")
    assert read_snapshot(items[:MAX_JOBS], lambda job: job in announced).unannounced is None


def test_permission_requests_are_bounded_and_keep_their_option_ids() -> None:
    options = [
        PermissionOption(option_id=f"o{i}", name=("N" * 100_000 if i == 0 else f"n{i}"), kind="allow_once")
        for i in range(40)
    ]
    request = RequestPermissionRequest(session_id="s", title="T" * 5000, options=options)
    bounded, more = bound_request(request)
    assert [o.option_id for o in bounded.options] == [f"o{i}" for i in range(MAX_OPTIONS)] and more == 40 - MAX_OPTIONS
    assert (
        bounded.options[0].name.startswith("N" * MAX_OPTION_NAME) and "cut at 200 characters" in bounded.options[0].name
    )
    assert len(bounded.title) < 1100
    assert bound_request(bounded)[0] == bounded  # bounding again changes nothing


def _linked(tmp_path: Path) -> tuple[Path, Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "a.txt").write_text("a\n")
    (outside / "b.txt").write_text("b\n")
    (project / "link").symlink_to(outside / "a.txt")
    return project, (outside / "a.txt").resolve(), (outside / "b.txt").resolve()


def test_a_mention_through_a_link_is_read_only_where_it_was_allowed(tmp_path: Path) -> None:
    project, a, b = _linked(tmp_path)
    submission = PromptSubmission("see @link", (Mention.of("link"),))
    caps = PromptCapabilities(embedded_context=True)
    assert outside_mentions(submission, project) == [(submission.mentions[0], str(a))]
    refused = build_prompt_blocks(submission, caps, project)
    assert isinstance(refused, PromptBlockError) and "leads outside the session folder" in refused.message
    allowed = build_prompt_blocks(submission, caps, project, allowed_outside=frozenset({str(a)}))
    assert isinstance(allowed, PromptBlocks) and any(str(a) in note and "⚠" in note for note in allowed.notes)
    (project / "link").unlink()
    (project / "link").symlink_to(b)  # the link changed after it was allowed: nothing is sent
    assert isinstance(
        build_prompt_blocks(submission, caps, project, allowed_outside=frozenset({str(a)})), PromptBlockError
    )
    # A path typed as it is, and a link that stays inside, are not asked about.
    assert outside_mentions(PromptSubmission("x", (Mention.of(str(b)),)), project) == []
    (project / "in.txt").write_text("in\n")
    (project / "in-link").symlink_to(project / "in.txt")
    assert outside_mentions(PromptSubmission("x", (Mention.of("in-link"),)), project) == []
