"""The Textual application: themes, the tabs, and the quit and interrupt policy.

Everything about a conversation lives in its `ChatScreen`; the app holds the tabs (`TabHost`, one chat
screen and agent each, acp_tui/ui/tabs), registers the palettes, owns the bindings that must work wherever
the focus is (Ctrl-C, Ctrl-Q, the tab keys), and shuts every agent down cleanly on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import COLOR_SYSTEMS
from rich.terminal_theme import TerminalTheme
from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.command import Provider
from textual.theme import Theme

from acp_tui import lineage, typeahead
from acp_tui.config import save_theme
from acp_tui.launch import Launch, LaunchProblem, new_session
from acp_tui.paths import config_file, saves_dir
from acp_tui.ui.browsers.keys import INSPECTOR_KEY
from acp_tui.ui.browsers.sessions import SessionBrowser
from acp_tui.ui.chat.interrupt import FORCE_STOP_AFTER
from acp_tui.ui.chat.screen import ChatScreen, ControllerFactory, default_controller
from acp_tui.ui.chat.terminal_title import restore_window_title
from acp_tui.ui.key_order import KeysInOrderApp, OrderedInput
from acp_tui.ui.stop_resume import resume_only_after_suspend
from acp_tui.ui.tabs.alt_digits import ALT_DIGIT_KEYS, read_alt_digits
from acp_tui.ui.tabs.commands import TabCommands
from acp_tui.ui.tabs.host import FIRST_MODE, TabHost
from acp_tui.ui.themes import ansi_terminal_theme, load_shipped_themes
from acp_tui.ui.themes.colour_system import colour_system
from acp_tui.ui.themes.markdown_styles import markdown_theme
from acp_tui.ui.widgets.icons import EXTRA_THEME_VARIABLES
from acp_tui.ui.widgets.tab_bar import TabBar

if TYPE_CHECKING:
    from acp_tui.launch import TabLauncher

DEFAULT_THEME = "acp-dark"
#: The palette of terminals with 16 colours (their own ANSI colours), unless a theme was chosen.
ANSI_THEME = "acp-ansi"
#: Signals that end acp-tui the way Ctrl-Q does (the terminal closed, `kill`, a system shutdown).
QUIT_SIGNALS = (signal.SIGHUP, signal.SIGTERM)
#: How often adopted orphans that exited are reaped while the app runs (acp_tui/lineage.py).
REAP_EVERY = 5.0
#: After a quit signal, how long the clean shutdown may take before acp-tui kills what is left and exits.
SIGNAL_DEADLINE = 15.0


def _inspector_commands() -> type[Provider]:
    """The inspector's palette entry (Textual calls this when the palette opens: the inspector is imported then)."""
    from acp_tui.ui.browsers.inspector import InspectorCommands

    return InspectorCommands


class AcpApp(KeysInOrderApp[int]):
    """acp-tui: conversations with agents, one per tab; keys reach the focus in the order typed."""

    TITLE = "acp-tui"
    ENABLE_COMMAND_PALETTE = True
    #: The app starts in the first tab's mode (acp_tui/ui/tabs/host.py, `TabHost.first_screen`).
    DEFAULT_MODE = FIRST_MODE
    BINDINGS = [
        Binding("ctrl+c", "interrupt", "Cancel", priority=True, show=False),
        Binding("ctrl+q", "quit_app", "Quit", priority=True),
        Binding("f1", "show_keys", "Keys"),
        Binding(INSPECTOR_KEY, "show_inspector", "Protocol inspector"),
        # Tabs (acp_tui/ui/tabs): each works over a dialog too (a modal screen cuts off the app's other bindings),
        # and only while it acts: one tab, Ctrl+W deletes a word; on the session list Ctrl+T is its "all folders".
        Binding("ctrl+t", "new_tab", "New tab", priority=True),
        Binding("ctrl+w", "close_tab", "Close tab", priority=True, show=False),
        Binding("ctrl+pagedown", "step_tab(1)", "Next tab", priority=True, show=False),
        Binding("ctrl+pageup", "step_tab(-1)", "Previous tab", priority=True, show=False),
        *(Binding(f"alt+{n}", f"show_tab({n})", f"Tab {n}", priority=True, show=False) for n in range(1, 10)),
    ]
    COMMANDS = App.COMMANDS | {_inspector_commands, TabCommands}

    def __init__(
        self,
        launch: Launch,
        *,
        arm_delay: float = 0.5,
        force_stop_after: float = FORCE_STOP_AFTER,
        controller: ControllerFactory = default_controller,
        launcher: TabLauncher | None = None,
    ) -> None:
        """`launcher` resolves *New tab with agent…* as the command line would (acp_tui.launch_resolve.tab_launch); without
        one, a new tab can take the current agent into another folder only."""
        super().__init__()
        self.launch = launch
        self.controller_factory = controller
        self.launcher = launcher
        self.tabs = TabHost(self, self._chat_screen)
        # the first tab, the session the command line asked for: Textual builds it as the app is composed
        self.add_mode(FIRST_MODE, lambda: self.tabs.first_screen(launch))
        read_alt_digits()  # Alt+1…Alt+9 as terminals send them (Esc, digit), not as macOS Option characters
        self.arm_delay = arm_delay
        self.force_stop_after = force_stop_after
        #: our palettes' own ANSI colours for agent terminal output, by theme name
        self._ansi_themes: dict[str, TerminalTheme] = {}
        for theme in load_shipped_themes():
            self.register_theme(theme)
            if (ansi := ansi_terminal_theme(theme)) is not None:
                self._ansi_themes[theme.name] = ansi
        wanted = launch.theme or DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME
        self._theme_warning = None if wanted in self.available_themes else f"unknown theme {wanted!r}"
        self._saved_theme = self.theme  # what config.toml (or --theme) asked for: no need to write it back
        self._quitting = False
        self._markdown_styled = False
        #: set by `run()`: this app is the process (it answers SIGHUP/SIGTERM and reaps adopted orphans)
        self.owns_process = False
        #: set by `run()`: SIGHUP and SIGTERM that arrived before the app could answer them (`on_mount`)
        self.signals_before_mount: list[int] = []
        self._signalled: int | None = None
        self.key_order.type_ahead(typeahead.typed_ahead())  # lines typed while Python started, Enter and all

    def use_terminal_colours(self, environ: Mapping[str, str]) -> None:
        """Send as many colours as the terminal shows (`colour_system`: truecolor inside tmux too, when it
        says so), and start a 16-colour terminal with the ANSI palette unless a theme was chosen."""
        system = colour_system(environ)
        if system is not None:
            # Textual builds its console before anything of ours runs and offers no setter for it.
            self.console._color_system = COLOR_SYSTEMS[system]
        if self.console.color_system == "standard" and self.launch.theme is None and not self.no_color:
            self.theme = self._saved_theme = ANSI_THEME

    @property
    def ansi_theme(self) -> TerminalTheme:
        """The palette's own ANSI colours (readable on it); Textual's defaults under any other theme."""
        return self._ansi_themes.get(self.theme) or super().ansi_theme

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Our extra palette variables, with fallbacks so every Textual theme works too."""
        return dict(EXTRA_THEME_VARIABLES)

    def on_load(self) -> None:
        """Before the first tab is built (as the app is composed): Rich's Markdown styles in the theme's colours."""
        self._style_markdown(self.current_theme)

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._style_markdown)
        self.theme_changed_signal.subscribe(self, self._save_theme)
        if self._theme_warning:
            self.notify(f"{self._theme_warning}; using {DEFAULT_THEME}", severity="warning", markup=False)
        if self.owns_process:
            resume_only_after_suspend()  # a SIGSTOP and SIGCONT from outside must not start a second key reader
            settings = typeahead.found()
            if settings is not None and sys.platform != "win32":
                from textual.drivers.linux_driver import LinuxDriver

                # Textual keeps the settings it restores on its driver: left for a terminal login (or at the
                # exit), the terminal is as acp-tui found it, Enter included.
                if isinstance(self._driver, LinuxDriver) and self._driver.attrs_before is not None:
                    self._driver.attrs_before = settings
            loop = asyncio.get_running_loop()
            for number in QUIT_SIGNALS:
                loop.add_signal_handler(number, self._on_quit_signal, number)
            for early in self.signals_before_mount:  # they came while the app started: answered now, in order
                self._on_quit_signal(early)
            self.signals_before_mount.clear()
            self.set_interval(REAP_EVERY, lineage.reap_adopted)

    def _on_quit_signal(self, number: int) -> None:
        """SIGHUP or SIGTERM: quit as Ctrl-Q does (the agent and all it started are stopped), exiting
        128 + the signal's number; a second one while that is under way exits at once (`run()` still
        kills what is left)."""
        if self._signalled is not None:
            self.exit(128 + self._signalled)
            return
        self._signalled = number
        if number == signal.SIGHUP:
            detach_from_terminal()
        # By construction, not by hope: a shutdown that hangs still ends, with nothing left running.
        deadline = threading.Timer(SIGNAL_DEADLINE, last_resort, args=(128 + number,))
        deadline.daemon = True  # it must not keep a finished app alive
        deadline.start()
        self.run_worker(self.action_quit_app(), group="quit-signal", exclusive=True)

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's Screenshot: into a folder that exists (Textual's default, ~/Downloads, may not)."""
        return super().deliver_screenshot(filename, str(saves_dir()) if path is None else path, time_format)

    @on(events.DeliveryFailed)
    def _screenshot_failed(self, event: events.DeliveryFailed) -> None:
        """Say why a screenshot was not saved (Textual's own toast gives no reason)."""
        if event.name != "screenshot":
            return
        event.prevent_default()
        error = event.exception
        reason = (error.strerror or str(error)) if isinstance(error, OSError) else str(error)
        where = f": {error.filename}" if isinstance(error, OSError) and error.filename else ""
        self.notify(f"{reason}{where}", title="Screenshot not saved", severity="error", markup=False)

    def _save_theme(self, theme: Theme) -> None:
        """A theme picked in the palette is written to config.toml, so the next start uses it too."""
        if theme.name == self._saved_theme:
            return
        self._saved_theme = theme.name
        problem = save_theme(config_file(), theme.name)
        if problem is not None:
            self.notify(problem, title="theme", severity="warning", markup=False)

    def _style_markdown(self, _theme: object) -> None:
        """Give Rich's Markdown styles the theme's colours (replacing those of the previous theme)."""
        if self._markdown_styled:
            self.console.pop_theme()
        self.console.push_theme(markdown_theme(self.get_css_variables()))
        self._markdown_styled = True

    def _chat_screen(self, launch: Launch) -> ChatScreen:
        return ChatScreen(
            launch, arm_delay=self.arm_delay, force_stop_after=self.force_stop_after, controller=self.controller_factory
        )

    @property
    def chat(self) -> ChatScreen | None:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, ChatScreen):
                return screen
        return None

    def action_show_keys(self) -> None:
        """F1: the keys table (acp_tui/ui/browsers/keys.py), once."""
        from acp_tui.ui.browsers.help import HelpScreen  # the browsers are imported when first opened

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_show_inspector(self) -> None:
        """F8 / the palette: every frame of the topmost chat's connection (acp_tui/ui/browsers/inspector.py), once."""
        from acp_tui.ui.browsers.inspector import InspectorScreen, log_hint

        chat = self.chat
        session = chat.controller.session if chat is not None else None
        if chat is not None and session is not None and not isinstance(self.screen, InspectorScreen):
            # the tab's own log file: with --log FILE, tab N writes FILE.tabN (acp_tui/ui/tabs/host.py)
            hint = log_hint(chat.controller.launch.log_path)
            self.push_screen(InspectorScreen(session.frames, log_hint=hint))

    def action_interrupt(self) -> None:
        chat = self.chat
        if chat is None:
            self.exit(130)
            return
        chat.stop_keys.interrupt(elsewhere=self.tabs.working_elsewhere())

    # -- tabs (acp_tui/ui/tabs) --------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The tab keys act only where there is something to do; otherwise the key goes on (Ctrl+W to the prompt)."""
        match action:
            case "new_tab":
                return not isinstance(self.screen, SessionBrowser)
            case "close_tab":  # once: Ctrl+W again over its own question asks no second time
                return len(self.tabs.tabs) >= 2 and not _asks_to_close(self.screen)
            case "step_tab":
                return len(self.tabs.tabs) >= 2
            case "show_tab":
                number = parameters[0] if parameters else 0
                return isinstance(number, int) and 1 <= number <= len(self.tabs.tabs)
            case _:
                return True

    def _base_launch(self) -> Launch:
        """The shown tab's launch: what a new tab starts from (its agent, its folder)."""
        current = self.tabs.current
        return current.screen.launch if current is not None else self.launch

    def action_new_tab(self) -> None:
        """Ctrl+T: the same agent and folder, a new session, in a tab of its own."""
        self.tabs.open(self._base_launch())

    def action_new_tab_from_session(self) -> None:
        """The palette: a new tab of this agent that opens with its session list (as `acp-tui --resume`)."""
        self.tabs.open(self._base_launch(), pick=True)

    def action_new_tab_with_agent(self) -> None:
        """The palette: ask for an agent and a folder (acp_tui/ui/dialogs/new_tab.py), then open its tab."""
        from acp_tui.ui.dialogs.new_tab import NewTabScreen  # the tab dialogs are imported when first asked for
        from acp_tui.ui.tabs.agents import agent_choices

        base = self._base_launch()

        def build(agent: str, folder: str) -> Launch:
            if self.launcher is not None:
                return self.launcher(base, agent, folder)
            return same_agent_elsewhere(base, agent, folder)

        def chosen(launch: Launch | None) -> None:
            if launch is not None:
                self.tabs.open(launch, fresh=False)

        screen = NewTabScreen(agent=base.agent_name, folder=str(base.cwd), choices=agent_choices(), build=build)
        self.push_screen(screen, chosen)

    def action_add_agent(self) -> None:
        """The palette: every agent, the registry's to install (acp_tui/ui/dialogs/add_agent.py), then its tab."""
        from acp_tui.ui.dialogs.add_agent import AddAgentScreen

        base, launcher = self._base_launch(), self.launcher

        def build(agent: str) -> Launch:
            assert launcher is not None
            return launcher(base, agent, "")

        def chosen(launch: Launch | None) -> None:
            if launch is not None:
                self.tabs.open(launch, fresh=False)

        self.push_screen(AddAgentScreen(build=build if launcher is not None else None), chosen)

    def looks_ahead(self, event: OrderedInput) -> bool:
        return isinstance(event, events.Key) and event.key in ALT_DIGIT_KEYS

    def translate_key(self, event: OrderedInput, followed: bool) -> Sequence[OrderedInput]:
        """A terminal sends Alt+1 as `Esc 1`, and so does Escape then `1` typed fast or read in one go (Escape
        closing the `@` picker, then text). Where more keys came with it and Alt+N would show no other tab, it
        is the Escape and the digit: the digit is typed, not lost. A lone Alt+N with no tab N does nothing."""
        if followed and isinstance(event, events.Key) and event.key in ALT_DIGIT_KEYS:
            number = int(event.key[-1])
            wanted = self.tabs.tabs[number - 1] if 1 <= number <= len(self.tabs.tabs) else None
            if wanted is None or wanted is self.tabs.current:
                return (events.Key("escape", "\x1b"), events.Key(event.key[-1], event.key[-1]))
        return (event,)

    def action_show_tab(self, number: int) -> None:
        """Alt+1…Alt+9."""
        self.tabs.show_number(number)

    def action_step_tab(self, by: int) -> None:
        """Ctrl+PageDown / Ctrl+PageUp."""
        self.tabs.step(by)

    def action_close_tab(self) -> None:
        """Ctrl+W: close the shown tab (asking first while its agent works); never the last one."""
        tab = self.tabs.current
        if tab is None or len(self.tabs.tabs) < 2:
            return
        if not tab.working:
            self.tabs.close(tab)
            return
        from acp_tui.ui.dialogs.close_tab import CloseTabScreen

        number = self.tabs.tabs.index(tab) + 1
        what = "A question waits for you." if tab.state == "waiting" else "Its agent is working."

        def answered(close: bool | None) -> None:
            if close:
                self.tabs.close(tab)

        self.push_screen(CloseTabScreen(number, tab.title, what, arm_delay=self.arm_delay), answered)

    def on_tab_bar_chosen(self, event: TabBar.Chosen) -> None:
        """A click on a tab in the bar."""
        self.tabs.show_number(event.number)

    async def action_quit(self) -> None:
        """Any other way out (command palette, Textual's own bindings) shuts the agent down too."""
        await self.action_quit_app()

    async def action_quit_app(self) -> None:
        """Ctrl-Q: cancel running work, shut the agent down (its whole process group), exit."""
        if self._quitting:
            return
        self._quitting = True
        await self.tabs.shutdown()  # every tab's session closed and agent stopped, together
        if self._signalled == signal.SIGHUP:
            # Nobody is left to see the screen, and Textual's own exit would write to the hung-up terminal.
            last_resort(128 + signal.SIGHUP)
        restore_window_title(self)  # the session's title was the window's
        self.exit(0 if self._signalled is None else 128 + self._signalled)


def _asks_to_close(screen: object) -> bool:
    """Is `screen` the question Ctrl+W asks over a working tab? (Asked only once there are two tabs, so the
    dialog is not imported at start-up.)"""
    from acp_tui.ui.dialogs.close_tab import CloseTabScreen

    return isinstance(screen, CloseTabScreen)


def detach_from_terminal() -> None:
    """The terminal hung up: point stdout and stderr at /dev/null. Textual's writer thread dies on the
    first write to a hung-up terminal, and once its queue is full every refresh blocks the event loop."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (1, 2):
            os.dup2(null, fd)
        os.close(null)


def last_resort(code: int) -> None:
    """Kill every lineage (acp_tui/lineage.py) and exit now: the clean shutdown did not finish in time,
    or the terminal is gone and there is nothing left to restore."""
    lineage.kill_everything()
    typeahead.restore()  # the terminal as acp-tui found it (Textual's own restore is skipped)
    os._exit(code)


def same_agent_elsewhere(base: Launch, agent: str, folder: str) -> Launch:
    """Without a launcher (tests, embedders): only the current agent, in another folder."""
    if agent.strip():
        raise LaunchProblem("only the current agent can be started here")
    return new_session(base, folder)


def run(launch: Launch, *, launcher: TabLauncher | None = None) -> int:
    """Run the app until the user quits; the exit code for the shell.

    acp-tui becomes a child subreaper first (acp_tui/lineage.py), so what an agent or a terminal command
    leaves behind by leaving its session is still ours; whatever is left when the app ends, however it
    ends, is killed on the way out.
    """
    lineage.install()
    # SIGHUP or SIGTERM before the app answers them itself (`on_mount`) is kept for it, not fatal: dying here
    # would leave the agent started before the UI (acp_tui/agent/early_agent.py) to its own devices.
    early: list[int] = []
    previous = {number: signal.signal(number, lambda number, _frame: early.append(number)) for number in QUIT_SIGNALS}
    app = AcpApp(launch, launcher=launcher)
    app.owns_process = True
    app.signals_before_mount = early
    app.use_terminal_colours(os.environ)
    try:
        result = app.run()
    finally:
        for number, handler in previous.items():  # the loop's own handlers are gone with it: these answer now
            signal.signal(number, handler)
        lineage.kill_everything()
    return result if isinstance(result, int) else 0
