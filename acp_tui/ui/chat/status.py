"""Everything beside the timeline: status bar, header, config chips, slash commands, the prompt queue.

`StatusRenderer` turns the session model's non-timeline changes and the controller's own events into
updates of those widgets. Its dispatch over `Change` is exhaustive (`assert_never`): a new kind of
change that this renderer forgets is a type error, not a silent gap.
"""

from __future__ import annotations

import time
from typing import Final, assert_never

from textual.app import App
from textual.timer import Timer

from acp_tui.controller.controller_events import (
    AgentIdentified,
    CancelStateChanged,
    LifecycleChanged,
    QueueChanged,
    Waiting,
)
from acp_tui.sanitize import plain
from acp_tui.session import changes as ch
from acp_tui.session.model import PLAN, SessionState
from acp_tui.ui.browsers.notices import NoticeLog, toast_lines
from acp_tui.ui.chat.attention import Attention
from acp_tui.ui.chat.terminal_title import show_window_title
from acp_tui.ui.widgets.command_menu import CommandMenu
from acp_tui.ui.widgets.config_bar import ConfigBar
from acp_tui.ui.widgets.jobs_tray import JobsTray
from acp_tui.ui.widgets.limit_meter import meter
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.queued_prompts import QueuedPrompts
from acp_tui.ui.widgets.session_header import SessionHeader
from acp_tui.ui.widgets.status_bar import StatusBar, format_cost

#: Severity names of ACP notices → Textual toast severities; unknown values show as information.
NOTICE_SEVERITY: Final = {"info": "information", "warning": "warning", "error": "error"}
#: A toast's width (Textual's `Toast`: 60 cells, at most half the screen) and what its border and padding take.
TOAST_WIDTH, TOAST_GUTTER = 60, 3
#: Severities by weight: of notices raised while a toast still shows, the weightiest is the one shown.
_SEVERITY_RANK: Final = {"information": 0, "warning": 1, "error": 2}

ControllerStatus = Waiting | LifecycleChanged | AgentIdentified | QueueChanged | CancelStateChanged


class StatusRenderer:
    """Applies changes and controller events to the widgets around the conversation."""

    def __init__(
        self,
        app: App[object],
        *,
        attention: Attention | None = None,
        notices: NoticeLog | None = None,
        status: StatusBar,
        header: SessionHeader,
        config: ConfigBar,
        commands: CommandMenu,
        queue: QueuedPrompts,
        plan: PlanPanel | None = None,
        jobs: JobsTray | None = None,
    ) -> None:
        self.app = app
        self.attention = attention
        self.notices = notices if notices is not None else NoticeLog()
        self._busy_since: float | None = None
        self.status = status
        self.header = header
        self.config = config
        self.commands = commands
        self.queue = queue
        self.plan = plan
        self.jobs = jobs
        self._waiting_what: str | None = None
        self._waiting_since = 0.0
        self._waiting_timer: Timer | None = None
        #: the notice toast showing now, (until, severity, title, description), and how many more came with it
        self._toast: tuple[float, str, str, str] | None = None
        self._toast_more = 0

    # -- model changes ---------------------------------------------------------------------------

    def apply(self, state: SessionState, change: ch.Change) -> None:
        """One model change; entity changes are the timeline's."""
        match change:
            case ch.EntityAdded(key=key) | ch.EntityChanged(key=key) if key[0] == PLAN:
                self._show_plan(state, key[1])  # the timeline shows it too; the panel keeps it in sight
            case ch.EntityChanged(key=key) | ch.BytesAppended(key=key) | ch.ContentReplaced(key=key) if (
                self.jobs is not None and self.jobs.touches(key)
            ):
                self.jobs.entity_changed()  # the timeline shows it too; the tray keeps a background job in sight
            case (
                ch.EntityAdded()
                | ch.EntityRemoved()
                | ch.TextAppended()
                | ch.ContentAppended()
                | ch.BytesAppended()
                | ch.ContentReplaced()
                | ch.EntityChanged()
                | ch.SubmissionChanged()
            ):
                pass  # the timeline's
            case ch.TurnEnded():
                # the line saying how it ended comes from the controller; a long turn rings when unfocused
                if self.attention is not None and self._busy_since is not None:
                    self.attention.turn_ended(time.monotonic() - self._busy_since)
                self._busy_since = None
            case ch.StateChanged():
                self.show_state(state)
                self._show_jobs(state)
            case ch.UsageChanged():
                self._show_usage(state)
            case ch.AccountChanged():
                self._show_account(state)
            case ch.NoticeRaised():
                self._show_notice(change)
            case ch.InfoChanged():
                self.header.update_values(session_title=state.info.title)
                show_window_title(self.app, state.info.title, self.header.values.agent)  # sanitised there
            case ch.PermissionsChanged():
                self.status.update_values(waiting_for_user=len(state.permissions))
            case ch.ProblemAdded():
                self.status.update_values(problems=state.problem_count)
            case ch.CommandsChanged():
                self.commands.set_commands(state.commands)
            case ch.ConfigChanged():
                self.config.set_options(state.config_options)
            case ch.AgentGone():
                self.status.update_values(state="stopped", busy=False, cancelling=False, waiting_for_user=0)
                self._clear_plan()
                self._show_jobs(None)  # the agent's background work died with it
            case _:
                assert_never(change)

    def show_state(self, state: SessionState) -> None:
        fg = state.foreground
        if fg.busy and self._busy_since is None:
            self._busy_since = time.monotonic()
        if fg.busy:
            self.status.update_values(state=fg.state, busy=True, stop_reason=None, error_message=None)
        else:
            self.status.update_values(
                state=fg.state,
                busy=False,
                stop_reason=fg.stop_reason,
                error_message=fg.error.message if fg.error is not None else None,
            )
            self._clear_plan()  # the turn is over: its plan stays in the timeline

    def reset(self, state: SessionState) -> None:
        """A new connection: its (empty) options and commands replace the old ones."""
        self.config.set_options(state.config_options)
        self.commands.set_commands(state.commands)
        self._clear_plan()
        self._show_jobs(state)
        self._show_account(state)

    def _show_plan(self, state: SessionState, plan_id: str) -> None:
        """A plan of the running turn appeared or changed: the panel above the prompt shows it."""
        plan = state.plan(plan_id)
        if self.plan is not None and plan is not None and state.foreground.busy:
            self.plan.show(plan)

    def _show_jobs(self, state: SessionState | None) -> None:
        """The background snapshot: the tray lists it, the status bar counts it (`N jobs`)."""
        if self.jobs is not None:
            self.jobs.show(state)
            self.status.update_values(jobs=self.jobs.count)

    def _clear_plan(self) -> None:
        if self.plan is not None:
            self.plan.clear()

    def _show_usage(self, state: SessionState) -> None:
        usage = state.usage
        if usage is None:
            self.status.update_values(used=None, size=None, cost=None)
            return
        cost = format_cost(usage.cost.amount, usage.cost.currency) if usage.cost is not None else None
        self.status.update_values(used=usage.used, size=usage.size, cost=cost)

    def _show_account(self, state: SessionState) -> None:
        """The signed-in account in the header, the plan's windows as the status bar's meter (limit_meter.py)."""
        account = state.account.account
        self.header.update_values(account=account.label if account is not None else None)
        shown = meter(state.account)
        self.status.update_values(
            limits=shown.text if shown else None,
            limits_short=shown.short if shown else None,
            limits_warn=shown.warn if shown else False,
        )

    def _show_notice(self, change: ch.NoticeRaised) -> None:
        notice = change.notice
        self.notices.add(notice)  # the toast goes in a few seconds; the list (F5) keeps it
        severity = NOTICE_SEVERITY.get(notice.severity)
        title = plain(notice.title)
        if severity is None:
            title = f"{plain(notice.severity)}: {title}"
        description = notice.description if isinstance(notice.description, str) else ""
        # A toast is at most two rows, a title and one of text cut to fit its width with "… F5 for more" (the list
        # keeps it whole), and sits top right over the header (chat/screen.tcss), never over the conversation's
        # text. Notices raised while one shows make one toast: the weightiest, saying how many more came.
        width = min(TOAST_WIDTH, self.app.size.width // 2) - TOAST_GUTTER
        now, kind = time.monotonic(), severity or "information"
        shown = self._toast
        if shown is not None and now < shown[0]:
            self._toast_more += 1
            self.app.call_later(self.app.clear_notifications)  # queued after the shown toast's own `Notify`
            if _SEVERITY_RANK[shown[1]] > _SEVERITY_RANK[kind]:
                _, kind, title, description = shown
        else:
            self._toast_more = 0
        timeout = 8 if kind == "error" else 5
        self._toast = (now + timeout, kind, title, description)
        title, message = toast_lines(title, description, width, more=self._toast_more)
        self.app.notify(message, title=title, severity=kind, markup=False, timeout=timeout)  # type: ignore[arg-type]

    # -- controller events -----------------------------------------------------------------------

    def apply_event(self, state: SessionState, event: ControllerStatus) -> None:
        match event:
            case Waiting(what=what):
                self._set_waiting(what)
            case LifecycleChanged(phase=phase):
                if phase == "stopped":
                    self.status.update_values(state="stopped", busy=False, cancelling=False, waiting_for_user=0)
                elif phase == "ready":
                    self.status.update_values(state="idle", busy=False, stop_reason=None)
                else:
                    self.status.update_values(state="starting", busy=False)
                    self.reset(state)
            case AgentIdentified(name=name, version=version, protocol=protocol):
                self.header.update_values(agent=name, agent_version=version, protocol=protocol)
            case QueueChanged(prompts=prompts, paused=paused):
                self.queue.show(prompts, paused=paused)
                self.status.update_values(queued=len(prompts))
            case CancelStateChanged(cancelling=cancelling):
                self.status.update_values(cancelling=cancelling)
            case _:
                assert_never(event)

    def _set_waiting(self, what: str | None) -> None:
        if what is None:
            self._waiting_what = None
            if self._waiting_timer is not None:
                self._waiting_timer.stop()
                self._waiting_timer = None
            self.status.update_values(waiting_label=None)
            return
        if self._waiting_what is None:
            self._waiting_since = time.monotonic()
            self._waiting_timer = self.status.set_interval(1.0, self._tick_waiting)
        self._waiting_what = what
        self._tick_waiting()

    def _tick_waiting(self) -> None:
        if self._waiting_what is None:
            return
        elapsed = int(time.monotonic() - self._waiting_since)
        label = f"{self._waiting_what}… {elapsed}s" if elapsed >= 1 else f"{self._waiting_what}…"
        self.status.update_values(waiting_label=label)


__all__ = ["ControllerStatus", "StatusRenderer"]
