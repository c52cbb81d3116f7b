"""The chat screen: header, conversation, queued prompts, prompt, stderr panel, status bar.

The screen renders what its `SessionController` reports and turns keys into the controller's intents;
the agent's life, the prompt queue, the services and the transcript are the controller's. Events
arrive through a callback that only queues them; a timer drains the queue once per frame, folds the
model changes (`coalesce`) and hands each to the timeline and the status renderer, so a burst of
thousands of updates costs one refresh.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen

from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import ControllerListener
from acp_tui.controller.errors import ControllerError
from acp_tui.history import PromptHistory
from acp_tui.launch import Launch
from acp_tui.path_text import display_path
from acp_tui.sanitize import plain
from acp_tui.ui.browsers.notices import NOTICES_KEY, NoticeCommands, NoticeLog, NoticesScreen
from acp_tui.ui.chat.asker import ScreenAsker, tool_title
from acp_tui.ui.chat.attention import Attention
from acp_tui.ui.chat.config_control import ConfigControl
from acp_tui.ui.chat.event_pump import EventPump
from acp_tui.ui.chat.interrupt import Interrupt, decide_interrupt
from acp_tui.ui.chat.palette_providers import config_commands, login_commands
from acp_tui.ui.chat.presence import Presence
from acp_tui.ui.chat.saving import save_full_text
from acp_tui.ui.chat.session_actions import SessionActions, SessionCommands
from acp_tui.ui.chat.status import StatusRenderer
from acp_tui.ui.chat.steer_control import SteerControl
from acp_tui.ui.key_order import release_keys
from acp_tui.ui.widgets.card_requests import CancelRequested as CardCancelRequested
from acp_tui.ui.widgets.card_requests import SaveRequested as CardSaveRequested
from acp_tui.ui.widgets.command_menu import CommandMenu
from acp_tui.ui.widgets.config_bar import ConfigBar
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.file_picker import FilePicker
from acp_tui.ui.widgets.jobs_tray import JobsTray
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.prompt_return import FocusPrompt
from acp_tui.ui.widgets.queued_prompts import QueuedPrompts
from acp_tui.ui.widgets.save_request import MessageSaveRequested
from acp_tui.ui.widgets.session_header import HeaderValues, SessionHeader
from acp_tui.ui.widgets.status_bar import PINNED, KeyHint, StatusBar
from acp_tui.ui.widgets.stderr_panel import StderrPanel
from acp_tui.ui.widgets.system_line import SystemLine
from acp_tui.ui.widgets.tab_bar import TabBar
from acp_tui.ui.widgets.terminal_view import TerminalView

if TYPE_CHECKING:
    from acp_tui.controller.wiring import UserAsker

#: The status bar's key hints, in order; a narrow bar drops the lowest priority first (status_bar.KeyHint):
#: ^Q quit never drops, nor ^C cancel while the agent works, nor ^R restart once it stopped. ^C cancel
#: shows only while there is work to cancel, ^R restart only once there is an agent to restart; Enter queues a
#: prompt for the restart once the agent stopped, and says so.
KEY_HINTS = (
    KeyHint("⏎", "send", 60, busy=40, modes=("idle", "busy")),
    KeyHint("⏎", "queue", 60, modes=("stopped",)),  # kept for the restart: nothing is sent to a stopped agent
    KeyHint("^J", "newline", 50, busy=30),
    KeyHint("^C", "cancel", 30, busy=PINNED, modes=("busy",)),
    KeyHint("F2", "stderr", 20),
    KeyHint("^R", "restart", 10, stopped=PINNED, modes=("stopped",)),
    KeyHint("^Q", "quit", PINNED),
)

#: Seconds within which a second Ctrl+R restarts a running agent.
RESTART_CONFIRM = 5.0

#: Builds the controller a screen drives: (launch, listener, asker) → controller. Tests hand in a scripted one.
ControllerFactory = Callable[[Launch, ControllerListener, "UserAsker"], SessionController]


def default_controller(launch: Launch, listener: ControllerListener, asker: UserAsker) -> SessionController:
    return SessionController(launch, asker=asker, listener=listener)


class ChatScreen(Screen[None]):
    """One conversation with one agent."""

    CSS_PATH = "screen.tcss"
    COMMANDS = {NoticeCommands, config_commands, login_commands, SessionCommands}

    BINDINGS = [
        Binding("f2", "toggle_stderr", "Agent stderr"),
        Binding("f3", "show_problems", "Protocol problems"),
        Binding("ctrl+r", "restart_agent", "Restart agent"),
        Binding("ctrl+end", "scroll('follow')", "Follow output", show=False),
        Binding("ctrl+home", "scroll('top')", "Oldest output", show=False),
        Binding("pageup", "scroll('up')", "Scroll up", show=False),
        Binding("pagedown", "scroll('down')", "Scroll down", show=False),
        Binding("ctrl+o", "sessions('browse')", "Sessions"),
        Binding("ctrl+n", "sessions('new')", "New session"),
        Binding("f4", "open_config", "Session settings"),
        # F9: the jobs tray (Tab from the prompt stops at the newest card); while no job runs, it says so
        Binding("f9", "show_jobs", "Background jobs", show=False),
        Binding(NOTICES_KEY, "show_notices", "Notices"),
        # Shift+Tab cycles the mode from the prompt; otherwise (see check_action) it still moves focus back.
        Binding("shift+tab", "cycle_mode", "Next mode", show=False),
        Binding("shift+tab", "app.focus_previous", "Focus previous", show=False),
    ]

    def __init__(
        self,
        launch: Launch,
        *,
        arm_delay: float = 0.5,
        force_stop_after: float | None = None,
        controller: ControllerFactory = default_controller,
    ) -> None:
        super().__init__()
        self.launch = launch
        self.history = PromptHistory.for_folder(launch.cwd)
        #: whether this screen is the tab on screen (acp_tui/ui/tabs); its dialogs wait until it is
        self.presence = Presence()
        self.attention = Attention(self.app, enabled=launch.attention, looking=lambda: self.presence.shown)
        self.asker = ScreenAsker(
            self.app,
            arm_delay=arm_delay,
            cancel_turn=self.action_cancel_turn,
            closed=lambda text: self.controller.note(text),
            attention=self.attention,
            agent_name=launch.agent_name,
            tool_title=lambda tool_call_id: tool_title(self.controller.state, tool_call_id),
            presence=self.presence,
        )
        self.notices = NoticeLog()
        self.pump = EventPump(
            self, agent_named=self.asker.name_agent, activity=self.presence.activity
        )  # dialogs say who asks
        self.presence.on_show, self.presence.on_hide = self.pump.show, self.pump.hide
        self.controller = controller(launch, self.pump, self.asker)
        if force_stop_after is not None:
            self.controller.force_stop_after = force_stop_after
        self.config = ConfigControl(self.app, self.controller, arm_delay=arm_delay)
        self.sessions = SessionActions(self, self.controller)
        self.steer = SteerControl(self.app, self.controller)  # Ctrl+Enter / Alt+Enter, `s` on a queued prompt
        self._quit_armed_at: float | None = None
        self._restart_armed_at: float | None = None  # Ctrl+R on a running agent asks for a second one
        # The agent starts now, not once mounted: its start-up overlaps our first paint (what it says waits in the pump)
        self.run_worker(self.controller.start(), group="agent-start", exclusive=True)

    # -- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        header = HeaderValues(agent=self.launch.agent_name, cwd=display_path(str(self.launch.cwd)))
        with Vertical(id="top-bars"):  # the tab bar (while there are tabs) above the header
            yield TabBar(id="tab-bar")
            yield SessionHeader(header, id="header")
        yield StatusBar(id="status")
        yield StderrPanel(id="stderr")
        yield (conversation := Conversation(id="conversation"))
        yield PlanPanel(id="plan-panel")
        yield QueuedPrompts(id="queue")
        menu = CommandMenu(id="command-menu")
        yield menu
        picker = FilePicker(self.launch.cwd, id="file-picker", extra_roots=self.launch.add_dirs)
        yield picker
        yield PromptInput(self.history, id="prompt", command_menu=menu, file_picker=picker, timeline=conversation)
        yield ConfigBar(id="config")
        yield JobsTray(id="jobs")

    def on_mount(self) -> None:
        self.conversation = self.query_one(Conversation)
        self.prompt_input = self.query_one(PromptInput)
        self.status = self.query_one(StatusBar)
        renderer = StatusRenderer(
            self.app,
            attention=self.attention,
            notices=self.notices,
            status=self.status,
            header=self.query_one(SessionHeader),
            config=self.query_one(ConfigBar),
            commands=self.query_one(CommandMenu),
            queue=self.query_one(QueuedPrompts),
            plan=self.query_one(PlanPanel),
            jobs=self.query_one(JobsTray),
        )
        self.pump.attach(
            self.controller,
            conversation=self.conversation,
            renderer=renderer,
            stderr=self.query_one(StderrPanel),
            files=self.query_one(FilePicker),
            transcript_error=lambda error: self.app.notify(error, title="transcript", severity="warning", markup=False),
        )
        self.status.update_values(hints=KEY_HINTS)
        self.prompt_input.focus()
        release_keys(self.app)  # keys typed while it started go to the prompt (after the focus: both queue on the app)
        for warning in self.launch.warnings:
            self.conversation.add_entry(SystemLine(warning, severity="warning"))
        if self.launch.pick_session:
            self.sessions.browse()  # `acp-tui --resume` with no id: it lists once the agent is up
        self.presence.changed()  # a tab host draws this screen's tab bar now that it is here

    # -- prompts ---------------------------------------------------------------------------------

    @on(PromptInput.Submitted)
    def _prompt_submitted(self, event: PromptInput.Submitted) -> None:
        if not event.text.strip():
            if self.controller.queue.paused:
                self.controller.prompts.send_next()  # Enter on an empty prompt resumes a paused queue
            return
        self.history.add(event.text)  # the prompt emptied itself as Enter was handled (keys behind it are kept)
        self.conversation.follow()
        if event.steer:
            return self.steer.now(event.submission)
        if not self.controller.submit(event.submission) and self.controller.stopped:
            self.app.notify(
                "The agent is not running; press Ctrl-R to restart it. Your prompt is queued.",
                severity="warning",
                markup=False,
            )

    @on(CommandMenu.Chosen)
    def _command_chosen(self, event: CommandMenu.Chosen) -> None:
        self.prompt_input.complete_command(event.command)
        self.prompt_input.focus()

    @on(QueuedPrompts.Removed)
    def _queue_removed(self, event: QueuedPrompts.Removed) -> None:
        (self.steer.promote if event.steer else self.controller.prompts.unqueue)(event.index)
        if event.focus_released:
            self.prompt_input.focus()

    # -- cancel, interrupt, restart --------------------------------------------------------------

    def interrupt(self, elsewhere: str = "") -> None:
        """Ctrl-C, wherever the focus is (the app binds it with priority); `elsewhere` says what quitting would
        also end (`tab 2 is working`: a double Ctrl-C quits every tab)."""
        prompt = self.prompt_input
        controller = self.controller
        busy = not controller.stopped and (controller.busy or controller.waiting_for_user or self.asker.dialog_open)
        action = decide_interrupt(
            now=time.monotonic(),
            busy=busy,
            cancel_sent_at=controller.cancel_sent_at,
            prompt_text=prompt.text,
            has_selection=not prompt.selection.is_empty,
            quit_armed_at=self._quit_armed_at,
            force_stop_after=controller.force_stop_after,
        )
        match action:
            case Interrupt.CANCEL:
                self.action_cancel_turn()
            case Interrupt.WAIT:
                self.app.notify("Cancelling… the agent is finishing up.", markup=False, timeout=2)
            case Interrupt.FORCE_STOP:
                self.run_worker(controller.stop(), group="stop")
            case Interrupt.COPY:
                prompt.action_copy()
            case Interrupt.CLEAR:
                prompt.load_text("")
            case Interrupt.ARM_QUIT:
                self._quit_armed_at = time.monotonic()
                also = f" ({elsewhere})" if elsewhere else ""
                self.app.notify(f"Press Ctrl-C again to quit{also}.", markup=False, timeout=2 if not also else 4)
            case Interrupt.QUIT:
                self.app.call_later(self.app.run_action, "quit_app")

    def action_cancel_turn(self) -> bool:
        """Cancel the agent's turn (Ctrl-C while it works; Escape in a permission dialog with no reject option)."""
        return self.controller.cancel()

    def action_log_in(self) -> None:
        """The command palette's "Log in": the agent's login methods (docs/protocol.md §2.4)."""
        self.run_worker(self.controller.logins.login(), group="login")

    def action_log_out(self) -> None:
        self.run_worker(self.controller.logins.logout(), group="login")

    def action_restart_agent(self) -> None:
        """Ctrl+R: restart a stopped agent; a running one only when asked twice (it would lose its work)."""
        running, armed, self._restart_armed_at = not self.controller.stopped, self._restart_armed_at, None
        if running and (armed is None or time.monotonic() - armed > RESTART_CONFIRM):
            self._restart_armed_at = time.monotonic()
            self.controller.note(
                "the agent is running: press Ctrl-R again to stop it and start it afresh "
                "(the session is resumed where the agent can)",
                "warning",
            )
            return
        self.run_worker(self.controller.restart(stop_first=True), group="agent-start", exclusive=True)

    async def shutdown(self) -> None:
        """Cancel running work, then stop the agent cleanly (Ctrl-Q); only the first call does anything."""
        self.pump.closed = True
        await self.controller.shutdown()

    async def on_unmount(self) -> None:
        """However the app ends (Ctrl-Q, the command palette, an error), no agent process is left behind."""
        await self.shutdown()

    # -- small actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cycle_mode":
            # Only from the prompt and only with a mode option; else the key falls through to focus_previous.
            return self.config.can_cycle() and self.focused in (None, self.query_one(PromptInput))
        return True

    def action_open_config(self, config_id: str | None = None) -> None:
        """F4 / the command palette / a click on a chip: the picker of every option."""
        self.config.open(config_id)

    @on(ConfigBar.ChipClicked)
    def _config_chip_clicked(self, event: ConfigBar.ChipClicked) -> None:
        self.config.open(event.config_id)

    def action_cycle_mode(self) -> None:
        self.config.cycle_mode()

    @on(CardCancelRequested)
    @on(TerminalView.CancelRequested)
    @on(JobsTray.StopRequested)
    def _cancel_in_card(
        self, event: CardCancelRequested | TerminalView.CancelRequested | JobsTray.StopRequested
    ) -> None:
        """Stop one tool call (v2 `tool_call/cancel`) or the command in one terminal, from its card or the jobs
        tray; a refusal is a toast."""

        async def cancel() -> None:
            try:
                if isinstance(event, TerminalView.CancelRequested):
                    await self.controller.cancel_terminal(event.view.terminal_id)
                elif isinstance(event, JobsTray.StopRequested):
                    stop = (
                        self.controller.cancel_terminal
                        if event.kind == "terminal"
                        else self.controller.cancel_tool_call
                    )
                    await stop(event.job_id)
                else:
                    await self.controller.cancel_tool_call(event.card.call.id)
            except ControllerError as exc:
                self.app.notify(plain(str(exc)), severity="warning", markup=False)

        self.run_worker(cancel(), group="tool-cancel")

    @on(CardSaveRequested)
    @on(MessageSaveRequested)
    def _save_requested(self, event: CardSaveRequested | MessageSaveRequested) -> None:
        """Write what the screen shows only in part (a long tool output, a huge message) and say where."""
        if isinstance(event, MessageSaveRequested):
            text, entity_id, suffix, what = event.view.full_text(), event.view.message.id, ".md", "message"
        else:
            text, entity_id, suffix, what = event.card.full_text(), event.card.call.id, ".txt", "tool output"
        try:
            path = save_full_text(text, entity_id, suffix)
        except OSError as exc:
            self.app.notify(f"could not save the {what}: {exc}", severity="error", markup=False)
            return
        self.app.notify(f"saved to {path}", title=what, markup=False)

    def action_toggle_stderr(self) -> None:
        panel = self.query_one(StderrPanel)
        panel.toggle()
        self.status.update_values(stderr_unseen=panel.unseen)

    def action_show_problems(self) -> None:
        from acp_tui.ui.browsers.problems import ProblemsScreen  # the dialogs and browsers: when first opened

        state = self.controller.state
        stopped = self.controller.stopped
        self.app.push_screen(ProblemsScreen(list(state.problems), state.problem_count, agent_stopped=stopped))

    def action_show_jobs(self) -> None:
        """F9: to the jobs tray; with none running the tray is hidden, and a key that did nothing is said so."""
        tray = self.query_one(JobsTray)
        if tray.display:
            tray.focus()
        else:
            self.app.notify("no background jobs: F9 goes to them while the agent runs some", markup=False)

    def action_show_notices(self) -> None:
        """F5: every notice the agent raised (toasts go away; this list keeps them)."""
        self.app.push_screen(NoticesScreen(self.notices.entries, self.notices.total))

    @on(FocusPrompt)
    def _focus_prompt(self, event: FocusPrompt) -> None:
        """Escape, or a key typed on a timeline widget: back to the prompt, with the key (never lost)."""
        event.stop()
        self.prompt_input.take_focus(event.key, event.character)

    def action_sessions(self, what: str) -> None:
        """Browse sessions, start a new one or save this one as Markdown (session_actions.py)."""
        self.sessions.run(what)

    def action_scroll(self, where: str) -> None:
        """PageUp/PageDown scroll the conversation from anywhere; Ctrl+End follows new output again."""
        match where:
            case "up":
                self.conversation.scroll_page_up()
            case "down":
                self.conversation.scroll_page_down()
            case "top":
                self.conversation.scroll_to_start()
            case _:
                self.conversation.follow()
