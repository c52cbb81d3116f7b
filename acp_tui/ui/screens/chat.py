"""The chat screen: header, conversation, queued prompts, prompt, stderr panel, status bar.

The screen turns keys into intents for the `AgentSession` and renders what the session reports.
Session events arrive through a callback that only queues them; a timer drains the queue once per
frame, folds the model changes (`coalesce`) and applies each to exactly one widget, so a burst of
thousands of updates costs one refresh.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer

from acp_tui.agent.connection import AgentExited, RpcError
from acp_tui.agent.events import (
    AgentStopped,
    ModelChanged,
    PermissionAsked,
    ProblemReported,
    SessionEvent,
    StderrLine,
)
from acp_tui.agent.process import SpawnError
from acp_tui.agent.session import AgentSession, AuthRequired, SessionError
from acp_tui.history import PromptHistory
from acp_tui.paths import data_dir, ensure_dir, history_file
from acp_tui.protocol import codec
from acp_tui.protocol.v2 import SessionConfigSelect
from acp_tui.sanitize import plain
from acp_tui.session.changes import (
    Change,
    CommandsChanged,
    ConfigChanged,
    InfoChanged,
    NoticeRaised,
    PermissionsChanged,
    ProblemAdded,
    StateChanged,
    SubmissionChanged,
    UsageChanged,
)
from acp_tui.session.coalesce import coalesce
from acp_tui.transcript import TranscriptWriter, transcript_path
from acp_tui.ui.interrupt import FORCE_STOP_AFTER, Interrupt, decide_interrupt
from acp_tui.ui.screens.permission import PermissionChoice, PermissionScreen
from acp_tui.ui.screens.config_picker import ConfigChoice, ConfigCommands, ConfigPickerScreen
from acp_tui.ui.screens.problems import ProblemsScreen
from acp_tui.ui.timeline import TimelineRenderer
from acp_tui.ui.widgets.agent_message import AgentMessageView
from acp_tui.ui.widgets.command_menu import CommandMenu
from acp_tui.ui.widgets.config_bar import ConfigBar
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.tool_call import ToolCallCard
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queued_prompts import QueuedPrompts
from acp_tui.ui.widgets.session_header import HeaderValues, SessionHeader
from acp_tui.ui.widgets.status_bar import STOP_REASON_TEXT, StatusBar, format_cost
from acp_tui.ui.widgets.stderr_panel import StderrPanel
from acp_tui.ui.widgets.system_line import SystemLine

if TYPE_CHECKING:
    from acp_tui.cli import Launch

#: Frame budget for applying queued session events (≈ 60 fps).
FRAME = 1 / 60
#: Severity names of ACP notices → Textual toast severities; unknown values show as information.
NOTICE_SEVERITY = {"info": "information", "warning": "warning", "error": "error"}
KEY_HINTS = "⏎ send · ^J newline · ^C cancel · F2 stderr · ^R restart · ^Q quit"


class ChatScreen(Screen[None]):
    """One conversation with one agent."""

    CSS_PATH = "chat.tcss"
    COMMANDS = {ConfigCommands}

    BINDINGS = [
        Binding("f2", "toggle_stderr", "Agent stderr"),
        Binding("f3", "show_problems", "Protocol problems"),
        Binding("ctrl+r", "restart_agent", "Restart agent"),
        Binding("ctrl+end", "follow", "Follow output", show=False),
        Binding("pageup", "page_up", "Scroll up", show=False),
        Binding("pagedown", "page_down", "Scroll down", show=False),
        Binding("f4", "open_config", "Session settings"),
        # Shift+Tab cycles the mode from the prompt; otherwise (see check_action) it still moves focus back.
        Binding("shift+tab", "cycle_mode", "Next mode", show=False),
        Binding("shift+tab", "app.focus_previous", "Focus previous", show=False),
    ]

    def __init__(self, launch: Launch, *, arm_delay: float = 0.5, force_stop_after: float = FORCE_STOP_AFTER) -> None:
        super().__init__()
        self.launch = launch
        self.arm_delay = arm_delay
        #: seconds after a cancel before a second Ctrl-C may stop the agent process
        self.force_stop_after = force_stop_after
        self.session: AgentSession | None = None
        self.history = PromptHistory.load(_history_path(launch.cwd))
        self._events: deque[SessionEvent] = deque()
        self._flush_timer: Timer | None = None
        self._timeline: TimelineRenderer | None = None
        self._permissions: deque[PermissionAsked] = deque()
        self._dialog: tuple[PermissionAsked, PermissionScreen] | None = None
        self._cancel_sent_at: float | None = None
        self._quit_armed_at: float | None = None
        self._sending = False
        self._stopped = False
        self._stopped_by_user = False
        #: the reason the agent is gone was already shown (a handshake timeout): the exit adds no banner
        self._banner_shown = False
        self._waiting_since: float | None = None
        self._waiting_what = ""
        self._waiting_timer: Timer | None = None
        self._previous_session_id: str | None = None
        self._slow_cancel_timer: Timer | None = None
        self.transcript: TranscriptWriter | None = None
        self._transcript_error_shown = False
        self._shut_down = False
        self._turn_marked = 0  # the last foreground turn whose end was written into the conversation

    # -- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield SessionHeader(
            HeaderValues(agent=self.launch.agent_name, cwd=_short_path(self.launch.cwd)), id="header"
        )
        yield StatusBar(id="status")
        yield StderrPanel(id="stderr")
        yield Conversation(id="conversation")
        yield QueuedPrompts(id="queue")
        menu = CommandMenu(id="command-menu")
        yield menu
        yield PromptInput(self.history, id="prompt", command_menu=menu)
        yield ConfigBar(id="config")

    @property
    def conversation(self) -> Conversation:
        return self.query_one("#conversation", Conversation)

    @property
    def prompt_input(self) -> PromptInput:
        return self.query_one("#prompt", PromptInput)

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def queue(self) -> QueuedPrompts:
        return self.query_one("#queue", QueuedPrompts)

    def on_mount(self) -> None:
        self.status.update_values(hints=KEY_HINTS)
        self.prompt_input.focus()
        for warning in self.launch.warnings:
            self.conversation.add_entry(SystemLine(warning, severity="warning"))
        self.start_agent()

    # -- the agent -------------------------------------------------------------------------------

    @work(exclusive=True, group="agent-start")
    async def start_agent(self, resume_id: str | None = None) -> None:
        """Spawn, initialize and open (or resume) a session; failures become a banner, not a crash."""
        launch = self.launch
        session = AgentSession(
            launch.agent_argv,
            cwd=launch.cwd,
            env={**os.environ, **launch.env},
            protocol=None if launch.protocol == "auto" else int(launch.protocol),
            handshake_timeout=launch.init_timeout,
            log_path=launch.log_path,
            emit=self._on_session_event,
        )
        self.session = session
        self._timeline = TimelineRenderer(self.conversation, session.state)
        self._turn_marked = 0
        self._show_config()  # a restarted agent starts with no options until it sends its own
        self.query_one("#command-menu", CommandMenu).set_commands(session.state.commands)
        self._stopped = False
        self._stopped_by_user = False
        self._banner_shown = False
        self._cancel_sent_at = None
        self._set_waiting("starting the agent")
        try:
            await session.connect()
            self._set_waiting("waiting for the agent to initialize")
            await session.initialize()
            self._show_agent_identity(session)
            resumed = False
            if resume_id is not None and session.can_resume():
                self._set_waiting("resuming the session")
                try:
                    await session.resume(resume_id)
                    resumed = True
                except (RpcError, SessionError) as exc:
                    self._system(f"the agent could not resume the session ({plain(str(exc))})", severity="warning")
            if not resumed:
                self._set_waiting("opening a session")
                await session.new_session()
                if resume_id is not None:
                    self._system("a new session was started: the agent's memory of this conversation starts fresh",
                                 severity="warning")
            else:
                self._system("session resumed: the agent remembers this conversation")
        except SpawnError as exc:
            self._clear_waiting()
            self._agent_unavailable(f"could not start the agent: {exc}")
            return
        except AuthRequired as exc:
            self._clear_waiting()
            names = ", ".join(plain(str(m.get("name", m.get("id", "?")))) for m in exc.auth_methods) or "none offered"
            self._agent_unavailable(f"the agent requires authentication ({names}); log in with the agent's own "
                                    "command first, then restart with Ctrl-R")
            return
        except (SessionError, RpcError, AgentExited) as exc:
            self._clear_waiting()
            if session.connection.exit_info is not None:
                return  # the agent exited: its own banner (exit code, stderr tail) says so
            self._agent_unavailable(f"{plain(str(exc)) or type(exc).__name__} — press Ctrl-R to restart it")
            # A hung or confused agent is stopped, so Ctrl-R starts a fresh one and none lingers.
            self._banner_shown = True
            self.stop_agent(session)
            return
        self._clear_waiting()
        self._open_transcript(session)
        self.status.update_values(state="idle", busy=False, stop_reason=None)
        self._send_next_queued()

    def _show_agent_identity(self, session: AgentSession) -> None:
        header = self.query_one("#header", SessionHeader)
        agent = session.init.agent if session.init is not None else None
        name = self.launch.agent_name
        version = None
        if agent is not None:
            name = agent.title or agent.name or name
            version = agent.version
        header.update_values(agent=name, agent_version=version, protocol=session.version)

    def _agent_unavailable(self, message: str) -> None:
        self._stopped = True
        self.status.update_values(state="stopped", busy=False)
        self.conversation.add_entry(SystemLine(message, detail=self._stderr_tail(), severity="error"))

    def _stderr_tail(self) -> str:
        if self.session is None:
            return ""
        lines = self.session.process.stderr_tail(4000).splitlines()[-8:]
        return "\n".join(lines)

    def _open_transcript(self, session: AgentSession) -> None:
        if self.transcript is not None:
            self.transcript.note(f"agent restarted; session {session.session_id}", kind="restart")
            return
        label = session.session_id or "session"
        self.transcript = TranscriptWriter(transcript_path(label, datetime.now()), label=label)
        self.transcript.note(f"agent {self.launch.agent_name}; session {session.session_id}; cwd {self.launch.cwd}")

    # -- waiting indicator -----------------------------------------------------------------------

    def _set_waiting(self, what: str) -> None:
        self._waiting_what = what
        if self._waiting_since is None:
            self._waiting_since = time.monotonic()
            self._waiting_timer = self.set_interval(1.0, self._update_waiting)
        self._update_waiting()

    def _update_waiting(self) -> None:
        if self._waiting_since is None:
            return
        elapsed = int(time.monotonic() - self._waiting_since)
        label = f"{self._waiting_what}… {elapsed}s" if elapsed >= 1 else f"{self._waiting_what}…"
        self.status.update_values(waiting_label=label)

    def _clear_waiting(self) -> None:
        self._waiting_since = None
        if self._waiting_timer is not None:
            self._waiting_timer.stop()
            self._waiting_timer = None
        self.status.update_values(waiting_label=None)

    # -- session events: queued by the callback, applied once per frame -------------------------

    def _on_session_event(self, event: SessionEvent) -> None:
        """Called by the session (same event loop); only queues, never touches a widget."""
        if self._shut_down:
            return  # the screen is going away; the transcript already holds what was shown
        self._events.append(event)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(FRAME, self._flush_events)

    def _flush_events(self) -> None:
        self._flush_timer = None
        if self._shut_down or not self.is_attached:
            self._events.clear()
            return
        changes: list[Change] = []
        stderr: list[str] = []
        events = self._events
        while events:
            event = events.popleft()
            if type(event) is ModelChanged:
                changes.extend(event.changes)
                continue
            if changes:
                self._apply_changes(changes)
                changes = []
            if type(event) is StderrLine:
                stderr.append(event.text)
            elif type(event) is PermissionAsked:
                self._permission_asked(event)
            elif type(event) is ProblemReported:
                pass  # recorded in the model too (ProblemAdded), which drives the indicator
            elif type(event) is AgentStopped:
                self._agent_stopped(event)
        if changes:
            self._apply_changes(changes)
        if stderr:
            panel = self.query_one("#stderr", StderrPanel)
            panel.add_lines(stderr)
            self.status.update_values(stderr_unseen=panel.unseen)

    def _apply_changes(self, changes: list[Change]) -> None:
        session = self.session
        if session is None or self._timeline is None:
            return
        folded = coalesce(changes)
        if self.transcript is not None:
            self.transcript.write_changes(session.state, folded)
            if self.transcript.error is not None and not self._transcript_error_shown:
                self._transcript_error_shown = True  # say it once; the conversation itself goes on
                self.app.notify(self.transcript.error, title="transcript", severity="warning", markup=False)
        state_changed = False
        for change in folded:
            if self._timeline.apply(change):
                continue
            kind = type(change)
            if kind is StateChanged:
                state_changed = True
            elif kind is UsageChanged:
                self._show_usage()
            elif kind is NoticeRaised:
                self._show_notice(change)  # type: ignore[arg-type]
            elif kind is InfoChanged:
                title = session.state.info.title
                self.query_one("#header", SessionHeader).update_values(session_title=title)
            elif kind is PermissionsChanged:
                self.status.update_values(waiting_for_user=len(session.state.permissions))
            elif kind is ProblemAdded:
                self.status.update_values(problems=session.state.problem_count)
            elif kind is CommandsChanged:
                self.query_one("#command-menu", CommandMenu).set_commands(session.state.commands)
            elif kind is ConfigChanged:
                self._show_config()
            elif kind is SubmissionChanged:
                self._timeline.submission_changed(change.request_id)  # type: ignore[union-attr]
        if state_changed:
            self._show_state()

    def _show_state(self) -> None:
        session = self.session
        if session is None:
            return
        fg = session.state.foreground
        if not fg.busy:
            if session.state.turn != self._turn_marked:  # once per turn, even if running+idle came in one frame
                self._turn_marked = session.state.turn
                self._mark_turn_end(fg.stop_reason, fg.error.message if fg.error is not None else None)
            if self._timeline is not None:
                self._timeline.finish_streams()  # the turn is over: its last thought folds away
            if self._cancel_sent_at is not None:
                self._cancel_sent_at = None
                if self._slow_cancel_timer is not None:
                    self._slow_cancel_timer.stop()
                    self._slow_cancel_timer = None
            self.status.update_values(
                state=fg.state, busy=False, cancelling=False, stop_reason=fg.stop_reason,
                error_message=fg.error.message if fg.error is not None else None,
            )
            self._send_next_queued()
        else:
            if self._sending:
                self._clear_waiting()  # the agent works on it, whenever it answers the request
            self.status.update_values(state=fg.state, busy=True, stop_reason=None, error_message=None)

    def _mark_turn_end(self, stop_reason: str | None, error_message: str | None) -> None:
        """A turn that did not simply end gets a line in the conversation, so the history says so."""
        if stop_reason is None or stop_reason == "end_turn":
            return
        if stop_reason == "error":
            self._system(f"✗ the turn failed: {plain(error_message or 'unknown error')}", severity="warning")
        elif stop_reason == "cancelled":
            self._system("⊘ cancelled")
        elif stop_reason == "refusal":
            self._system("the agent refused; this exchange is left out of its context", severity="warning")
        else:
            self._system(STOP_REASON_TEXT.get(stop_reason, f"stopped ({plain(stop_reason)})"), severity="warning")

    def _show_usage(self) -> None:
        assert self.session is not None
        usage = self.session.state.usage
        if usage is None:
            self.status.update_values(used=None, size=None, cost=None)
            return
        cost = format_cost(usage.cost.amount, usage.cost.currency) if usage.cost is not None else None
        self.status.update_values(used=usage.used, size=usage.size, cost=cost)

    def _show_notice(self, change: NoticeRaised) -> None:
        notice = change.notice
        severity = NOTICE_SEVERITY.get(notice.severity)
        title = plain(notice.title)
        if severity is None:
            title = f"{plain(notice.severity)}: {title}"
        description = notice.description if isinstance(notice.description, str) else ""
        self.app.notify(
            plain(description) or title,
            title=title if description else "",
            severity=severity or "information",  # type: ignore[arg-type]
            markup=False,
            timeout=8 if severity == "error" else 5,
        )

    # -- prompts ---------------------------------------------------------------------------------

    def _busy(self) -> bool:
        """Is the agent working (or about to) so that a new prompt must wait its turn?"""
        session = self.session
        if session is None or self._stopped:
            return False
        state = session.state
        if state.foreground.busy or self._sending:
            return True
        return any(sub.status == "pending" for sub in state.submissions.values())

    @on(PromptInput.Submitted)
    def _prompt_submitted(self, event: PromptInput.Submitted) -> None:
        text = event.text
        self.history.add(text)
        self.prompt_input.load_text("")
        if self._stopped:
            self.queue.add(text)
            self.status.update_values(queued=self.queue.count)
            self.app.notify("The agent is not running; press Ctrl-R to restart it. Your prompt is queued.",
                            severity="warning", markup=False)
            return
        if self.session is None or self.session.session_id is None or self._busy():
            self.queue.add(text)
            self.status.update_values(queued=self.queue.count)
            return
        self._send(text)

    @on(CommandMenu.Chosen)
    def _command_chosen(self, event: CommandMenu.Chosen) -> None:
        self.prompt_input.complete_command(event.command)
        self.prompt_input.focus()

    @on(QueuedPrompts.Changed)
    def _queue_changed(self, event: QueuedPrompts.Changed) -> None:
        self.status.update_values(queued=self.queue.count)
        if event.focus_released:
            self.prompt_input.focus()

    def _send_next_queued(self) -> None:
        if self._stopped or self._busy() or self.session is None or self.session.session_id is None:
            return
        if self.session.connection.exit_info is not None:
            return  # exited; the stop event is still in the queue: keep the prompts for a restart
        text = self.queue.pop_first()
        self.status.update_values(queued=self.queue.count)
        if text is not None:
            self._send(text)

    def _send(self, text: str) -> None:
        self.conversation.follow()
        self._sending = True
        self._set_waiting("waiting for the agent to take the prompt")
        self.send_prompt(text)

    @work(group="prompts")
    async def send_prompt(self, text: str) -> None:
        session = self.session
        assert session is not None
        try:
            await session.prompt([codec.text_block(text)])
        except RpcError:
            pass  # the model holds the failed submission; its widget shows the error
        except (AgentExited, SessionError):
            pass  # the exit banner says what happened
        finally:
            self._sending = False
            if self.session is session and self.is_attached:  # not after the app has closed
                self._clear_waiting()
                self._show_state()

    # -- permissions -----------------------------------------------------------------------------

    def _permission_asked(self, event: PermissionAsked) -> None:
        if event.outcome.done():
            return
        self._permissions.append(event)
        event.outcome.add_done_callback(lambda _f: self.call_later(self._permission_settled, event))
        self._show_next_permission()
        self._update_dialog_queue()

    def _show_next_permission(self) -> None:
        while self._dialog is None and self._permissions:
            event = self._permissions.popleft()
            if event.outcome.done():
                continue
            screen = PermissionScreen(event.request, arm_delay=self.arm_delay)
            self._dialog = (event, screen)
            self.app.push_screen(screen, callback=lambda choice, ev=event: self._permission_chosen(ev, choice))
            self._update_dialog_queue()

    def _update_dialog_queue(self) -> None:
        if self._dialog is not None:
            pending = 1 + sum(1 for ev in self._permissions if not ev.outcome.done())
            self._dialog[1].set_queue(1, pending)

    def _permission_chosen(self, event: PermissionAsked, choice: PermissionChoice | None) -> None:
        if self._dialog is not None and self._dialog[0] is event:
            self._dialog = None
        if choice is not None and self.session is not None and not event.outcome.done():
            if choice.option_id is not None:
                self.session.resolve_permission(event.request_id, choice.option_id)
            elif choice.cancel_turn:
                if self._cancel_sent_at is not None:
                    # Already cancelling (the request came after the cancel): answer this one too.
                    self.session.resolve_permission(event.request_id, None)
                else:
                    self.action_cancel_turn()
        self._show_next_permission()

    def _permission_settled(self, event: PermissionAsked) -> None:
        """The request was answered: by the user, by a cancel, by the agent withdrawing it, or an exit."""
        if self._dialog is not None and self._dialog[0] is event:
            _, screen = self._dialog
            if screen.is_active or screen in self.app.screen_stack:
                reason = self._settle_reason()
                if reason:
                    screen.close_because(reason)
                    self._system(f"permission request closed: {reason}")
        else:
            self._update_dialog_queue()

    def _settle_reason(self) -> str:
        # The exit settles the futures before its AgentStopped event is applied: ask the connection.
        if self._stopped or (self.session is not None and self.session.connection.closed):
            return "the agent stopped"
        if self._cancel_sent_at is not None:
            return "the turn was cancelled"
        return "the agent withdrew its request"

    # -- cancel, interrupt, quit -----------------------------------------------------------------

    def interrupt(self) -> None:
        """Ctrl-C, wherever the focus is (the app binds it with priority)."""
        prompt = self.prompt_input
        session = self.session
        busy = session is not None and not self._stopped and (
            session.state.foreground.busy or self._dialog is not None or bool(session.state.permissions)
            or self._sending
        )
        action = decide_interrupt(
            now=time.monotonic(),
            busy=busy,
            cancel_sent_at=self._cancel_sent_at,
            prompt_text=prompt.text,
            has_selection=not prompt.selection.is_empty,
            quit_armed_at=self._quit_armed_at,
            force_stop_after=self.force_stop_after,
        )
        if action is Interrupt.CANCEL:
            self.action_cancel_turn()
        elif action is Interrupt.WAIT:
            self.app.notify("Cancelling… the agent is finishing up.", markup=False, timeout=2)
        elif action is Interrupt.FORCE_STOP:
            self.force_stop()
        elif action is Interrupt.COPY:
            prompt.action_copy()
        elif action is Interrupt.CLEAR:
            prompt.load_text("")
        elif action is Interrupt.ARM_QUIT:
            self._quit_armed_at = time.monotonic()
            self.app.notify("Press Ctrl-C again to quit.", markup=False, timeout=2)
        elif action is Interrupt.QUIT:
            self.app.call_later(self.app.run_action, "quit_app")

    def action_cancel_turn(self) -> None:
        session = self.session
        if session is None or self._stopped or self._cancel_sent_at is not None:
            return
        self._cancel_sent_at = time.monotonic()
        self.status.update_values(cancelling=True)
        self._slow_cancel_timer = self.set_timer(self.force_stop_after, self._cancel_is_slow)
        self.cancel_session(session)

    @work(group="cancel")
    async def cancel_session(self, session: AgentSession) -> None:
        await session.cancel()

    def _cancel_is_slow(self) -> None:
        self._slow_cancel_timer = None
        if self._cancel_sent_at is not None and not self._stopped:
            self._system("the agent has not stopped yet; press Ctrl-C again to stop the agent process "
                         "(the conversation is kept)", severity="warning")

    def force_stop(self) -> None:
        """Stop the agent's whole process group; the transcript stays."""
        if self.session is None or self._stopped:
            return
        self._stopped_by_user = True
        self.stop_agent(self.session)

    @work(group="stop")
    async def stop_agent(self, session: AgentSession) -> None:
        await session.shutdown()

    def _agent_stopped(self, event: AgentStopped) -> None:
        if self._stopped and self.session is not None and self.session.connection.exit_info is not event.info:
            return
        self._stopped = True
        self._cancel_sent_at = None
        if self._slow_cancel_timer is not None:
            self._slow_cancel_timer.stop()
            self._slow_cancel_timer = None
        if self.session is not None:
            self._previous_session_id = self.session.session_id or self._previous_session_id
        info = event.info
        how = "you stopped the agent" if self._stopped_by_user else f"the agent stopped ({info.describe()})"
        if not self._banner_shown:
            tail = "\n".join(info.stderr_tail.splitlines()[-8:])
            self.conversation.add_entry(
                SystemLine(f"{how} — press Ctrl-R to restart it", detail=tail, severity="error")
            )
        if self.transcript is not None:
            self.transcript.note(how)
        self.status.update_values(state="stopped", busy=False, cancelling=False, waiting_for_user=0)
        if self._dialog is not None:
            _, screen = self._dialog
            screen.close_because("the agent stopped")

    def action_restart_agent(self) -> None:
        if not self._stopped and self.session is not None:
            self.app.notify("The agent is running; stop it first with Ctrl-C twice while it works, "
                            "or quit with Ctrl-Q.", markup=False)
            return
        resume_id = self._previous_session_id
        self._system("restarting the agent…")
        self.start_agent(resume_id)

    async def shutdown(self) -> None:
        """Cancel running work, then stop the agent cleanly (Ctrl-Q); only the first call does anything."""
        session = self.session
        if session is None or self._shut_down:
            return
        self._shut_down = True
        if not self._stopped and (session.state.foreground.busy or session.state.permissions):
            try:
                await asyncio.wait_for(session.cancel(), timeout=1.0)
            except (asyncio.TimeoutError, AgentExited):
                pass
        self._stopped_by_user = True
        await session.shutdown()
        if self.transcript is not None:
            self.transcript.close()

    async def on_unmount(self) -> None:
        """However the app ends (Ctrl-Q, the command palette, an error), no agent process is left behind."""
        await self.shutdown()

    # -- session config (mode, model, ...) -------------------------------------------------------

    @property
    def config_bar(self) -> ConfigBar:
        return self.query_one("#config", ConfigBar)

    def _show_config(self) -> None:
        if self.session is not None:
            self.config_bar.set_options(self.session.state.config_options)
        self.refresh_bindings()

    def _mode_option(self) -> SessionConfigSelect | None:
        """The first select option of category "mode" (earlier options win shortcuts, ACP §10.4)."""
        for option in self.config_bar.options:
            if isinstance(option, SessionConfigSelect) and option.category == "mode" and option.all_options():
                return option
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cycle_mode":
            # Only from the prompt and only with a mode option; else the key falls through to focus_previous.
            return self._mode_option() is not None and self.focused in (None, self.prompt_input)
        return True

    def action_open_config(self, config_id: str | None = None) -> None:
        """F4 / the command palette / a click on a chip: the picker of every option."""
        options = self.config_bar.options
        if not options:
            self.app.notify("The agent offers no session settings.", markup=False, timeout=3)
            return
        self.app.push_screen(ConfigPickerScreen(options, focus_config_id=config_id), callback=self._config_chosen)

    def _config_chosen(self, choice: ConfigChoice | None) -> None:
        if choice is not None:
            self.set_config(choice.config_id, choice.value)

    @on(ConfigBar.ChipClicked)
    def _config_chip_clicked(self, event: ConfigBar.ChipClicked) -> None:
        self.action_open_config(event.config_id)

    def action_cycle_mode(self) -> None:
        option = self._mode_option()
        if option is None:
            return
        values = [choice.value for choice in option.all_options()]
        index = values.index(option.current_value) if option.current_value in values else -1
        self.set_config(option.config_id, values[(index + 1) % len(values)])

    @work(group="config")
    async def set_config(self, config_id: str, value: str | bool) -> None:
        """Ask the agent to change one option; the bar follows the agent's answer, a refusal is a toast."""
        session = self.session
        if session is None:
            return
        try:
            await session.set_config_option(config_id, value)
        except (RpcError, SessionError) as exc:
            reason = exc.message if isinstance(exc, RpcError) else str(exc)
            self.app.notify(f"could not change {plain(config_id)}: {plain(reason)}", title="session settings",
                            severity="error", markup=False)

    # -- small actions ---------------------------------------------------------------------------

    @on(ToolCallCard.CancelRequested)
    def _cancel_tool_call(self, event: ToolCallCard.CancelRequested) -> None:
        session = self.session
        if session is None or self._stopped:
            return
        tool_call_id = event.card.call.id

        async def cancel() -> None:
            try:
                await session.cancel_tool_call(tool_call_id)
            except (SessionError, RpcError, AgentExited) as exc:
                self.app.notify(plain(str(exc)), severity="warning", markup=False)

        self.run_worker(cancel(), group="tool-cancel")

    @on(ToolCallCard.SaveRequested)
    def _save_tool_output(self, event: ToolCallCard.SaveRequested) -> None:
        """A tool call's full output (the card shows it truncated)."""
        self._save_full_text(event.card.full_text(), event.card.call.id, ".txt", "tool output")

    @on(AgentMessageView.SaveRequested)
    def _save_message(self, event: AgentMessageView.SaveRequested) -> None:
        """A message's or thought's whole text (the view shows it truncated)."""
        self._save_full_text(event.view.full_text(), event.view.message.id, ".md", "message")

    def _save_full_text(self, text: str, entity_id: str, suffix: str, what: str) -> None:
        """Write what the screen shows only in part to `<data dir>/outputs/` and say where."""
        try:
            folder = ensure_dir(data_dir() / "outputs")
            path = folder / f"{datetime.now():%Y%m%d-%H%M%S}-{_file_slug(entity_id)}{suffix}"
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.app.notify(f"could not save the {what}: {exc}", severity="error", markup=False)
            return
        self.app.notify(f"saved to {path}", title=what, markup=False)

    def _system(self, message: str, *, severity: str = "info") -> None:
        self.conversation.add_entry(SystemLine(message, severity=severity))
        if self.transcript is not None:
            self.transcript.note(message)

    def action_toggle_stderr(self) -> None:
        panel = self.query_one("#stderr", StderrPanel)
        panel.toggle()
        self.status.update_values(stderr_unseen=panel.unseen)

    def action_show_problems(self) -> None:
        problems = list(self.session.state.problems) if self.session is not None else []
        total = self.session.state.problem_count if self.session is not None else 0
        self.app.push_screen(ProblemsScreen(problems, total))

    def action_follow(self) -> None:
        self.conversation.follow()

    def action_page_up(self) -> None:
        self.conversation.scroll_page_up()

    def action_page_down(self) -> None:
        self.conversation.scroll_page_down()


def _history_path(cwd: Path) -> Path | None:
    try:
        return history_file(cwd)
    except OSError:
        return None


def _short_path(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if home != "/" and text.startswith(home) else text


def _file_slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in plain(text))[:40] or "output"

