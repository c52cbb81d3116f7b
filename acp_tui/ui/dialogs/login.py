"""The login dialogs (docs/protocol.md §2.4): choose a method, confirm a program to run, type a key.

* `LoginScreen` lists the agent's `authMethods` by name and description (agent text: sanitised, shown as
  plain text, never markup), how each works (the agent logs you in / runs a program here / asks for a
  variable), the methods acp-tui cannot use with the reason (listed, not offered), and the client's own
  "set an API key" entry. The previous attempt's failure is shown above the list.
* `TerminalLoginScreen` shows exactly what a terminal method would run before it runs: the argv (the
  configured agent program, by the absolute path found on the user's `PATH`, plus the agent's `args`),
  the variables the agent adds, the folder, controls written out (`\\x1b`, `\\n`). The agent's variables
  that are not set (they change what runs or loads) are named first, with a ⚠. What runs scrolls; the
  buttons stay on screen, and `y` counts only while they are.
* `SecretScreen` asks for variables in masked fields (a name field too for the client's own entry). Every
  value is registered as a secret when submitted, so it is redacted wherever acp-tui writes or shows text.

All three have the permission dialog's typing guard: keys and clicks are ignored until the dialog has
been on screen for `arm_delay` seconds with no key pressed (each key while arming restarts the count), and
nothing is focused on arrival, so a stray Enter from someone typing a prompt decides nothing.
"""

from __future__ import annotations

import os
import shlex
from typing import ClassVar, Final

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from acp_tui import secrets
from acp_tui.path_text import display_path
from acp_tui.protocol.auth import (
    AgentLogin,
    ApiKeyHint,
    EnvVarLogin,
    LoginVariable,
    TerminalLogin,
    UnsupportedLogin,
    valid_env_name,
)
from acp_tui.sanitize import escape_controls, plain
from acp_tui.services.auth import KeyEntry, LoginChoice, LoginRequest, SecretRequest, TerminalCommand
from acp_tui.ui.dialogs.guarded import ARM_DELAY, FIELD_FOCUS_KEYS, GuardedDialog
from acp_tui.ui.widgets.palette import PaletteEntry, ScreenActionCommands

__all__ = [
    "GuardedDialog",
    "LoginCommands",
    "LoginScreen",
    "SecretScreen",
    "TerminalLoginScreen",
    "method_label",
    "method_how",
]

#: Methods reachable with a number key.
MAX_NUMBERED: Final = 9
#: The dialog takes at most this fraction of the screen's height; the conversation shows above it.
MAX_HEIGHT_FRACTION: Final = 0.8
#: The method list keeps at least this many rows however small the screen.
MIN_BODY_HEIGHT: Final = 3


def _hints(pairs: tuple[tuple[str, str], ...]) -> Text:
    text = Text()
    for key, label in pairs:
        if text:
            text.append("  ")
        text.append(key, "bold")
        text.append(f" {label}")
    return text


# -- choosing a method -------------------------------------------------------------------------------------


def method_label(choice: LoginChoice) -> str:
    """The name shown for a method (sanitised agent text), or the client's own entry."""
    if isinstance(choice, KeyEntry):
        return f"Set {choice.variable} for the agent…" if choice.variable else "Set an API key for the agent…"
    return plain(choice.name) or "(unnamed)"


def method_how(choice: LoginChoice) -> str:
    """How a method works, in a few words."""
    match choice:
        case AgentLogin(api_key=ApiKeyHint(variable=variable)):
            return f"asks for {variable}; restarts the agent" if variable else "asks for an API key; restarts the agent"
        case AgentLogin():
            return "the agent logs you in"
        case TerminalLogin():
            return "runs a program in this terminal"
        case EnvVarLogin(variables=variables):
            return "asks for " + ", ".join(v.name for v in variables)
        case KeyEntry():
            return "for the agent's process only; restarts the agent"
        case UnsupportedLogin(why=why):
            return f"cannot be used: {plain(why)}"


class MethodButton(Button):
    """One method the user may choose; keeps the choice it stands for."""

    def __init__(self, choice: LoginChoice, label: Content, index: int) -> None:
        super().__init__(label, variant="default", compact=True, disabled=True)
        self.choice = choice
        self.index = index


class LoginScreen(GuardedDialog[LoginChoice]):
    """Choose how to log in (see the module docstring); dismissed with the choice, or None for "not now"."""

    CSS_PATH = "login.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"choose_number({n})", show=False) for n in range(1, MAX_NUMBERED + 1)),
        Binding("escape", "not_now", show=False),
        Binding("up,shift+tab", "move(-1)", show=False),
        Binding("down,tab", "move(1)", show=False),
        Binding("pageup,shift+up", "scroll_body(-1)", show=False),
        Binding("pagedown,shift+down", "scroll_body(1)", show=False),
    ]

    def __init__(self, request: LoginRequest, *, arm_delay: float = ARM_DELAY) -> None:
        super().__init__(arm_delay=arm_delay)
        self.request = request
        self.choices: list[LoginChoice] = [*request.offered, request.key_entry]
        self._buttons = [MethodButton(choice, self._label(i, choice), i) for i, choice in enumerate(self.choices)]
        self._dialog = Vertical(id="dialog")
        self._body = VerticalScroll(id="body", can_focus=False)

    def _label(self, index: int, choice: LoginChoice) -> Content:
        number = f"{index + 1} " if index < MAX_NUMBERED else "  "
        return Content.assemble((number, "bold"), method_label(choice))

    @staticmethod
    def _about(choice: LoginChoice) -> Text:
        """The line under a method: how it works (italic), then the agent's description."""
        about = Text()
        about.append(method_how(choice), "italic")
        description = (
            plain(choice.description or "").strip()
            if not isinstance(choice, KeyEntry)
            else (
                "typed in a masked field; never written to disk"
                if choice.variable
                else "the variable your agent reads its key from, typed in a masked field; never written to disk"
            )
        )
        if description:
            about.append(f" · {description}")
        return about

    def _controls(self) -> list[Widget]:
        return list(self._buttons)

    def compose(self) -> ComposeResult:
        request = self.request
        self._dialog.border_title = "Log in"
        with self._dialog:
            agent = plain(request.agent) or "The agent"
            yield Static(Text(f"{agent} needs you to log in" if request.reason else f"Log in to {agent}"), id="title")
            reason = plain(request.reason or "")
            if reason:
                yield Static(Text(reason), classes="muted")
            if request.failure:
                yield Static(Text(f"✗ {plain(request.failure)}"), id="failure")
            with self._body:
                buttons = iter(self._buttons)
                for method in request.methods:
                    if isinstance(method, UnsupportedLogin):
                        line = f"✗ {method_label(method)} — {method_how(method)}"
                        yield Static(Text(line), classes="unsupported")
                        continue
                    yield next(buttons)
                    yield Static(self._about(method), classes="description")
                yield next(buttons)
                yield Static(self._about(request.key_entry), classes="description")
            yield self._hint
        if self._buttons:
            self._buttons[0].add_class("-first")

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit_body)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_body)

    def _fit_body(self) -> None:
        """Cap the list so the title, the failure and the key hints always fit in 80% of the screen (CSS
        cannot say "the rest, but no more than it needs"); the list scrolls."""
        cap = int(self.size.height * MAX_HEIGHT_FRACTION)
        chrome = self._dialog.styles.gutter.height + self._body.styles.margin.height
        for widget in self._dialog.children:
            if widget is not self._body:
                chrome += widget.outer_size.height
        self._body.styles.max_height = max(MIN_BODY_HEIGHT, cap - chrome)

    def _armed_hints(self) -> Text:
        return _hints((("↑↓ ⏎", "choose"), ("esc", "not now")))  # the numbers are on the methods themselves

    def _choose(self, choice: LoginChoice | None) -> None:
        if choice is not None and self._armed:
            self._finish(choice)

    def action_choose_number(self, number: int) -> None:
        if 1 <= number <= len(self.choices):
            self._choose(self.choices[number - 1])

    def action_not_now(self) -> None:
        if self._armed:
            self._finish(None)

    def action_move(self, step: int) -> None:
        if not self._armed or not self._buttons:
            return
        focused = self.focused
        index = self._buttons.index(focused) if isinstance(focused, MethodButton) else (-1 if step > 0 else 0)
        self._buttons[(index + step) % len(self._buttons)].focus()

    def action_scroll_body(self, step: int) -> None:
        if step < 0:
            self._body.scroll_page_up()
        else:
            self._body.scroll_page_down()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if isinstance(event.button, MethodButton):
            self._choose(event.button.choice)


# -- running a program ----------------------------------------------------------------------------------------


def shown(text: str) -> str:
    """Text of a command to run as shown: controls written out (never acted on, never dropped), secrets hidden."""
    return plain(escape_controls(text))


def command_line(command: TerminalCommand) -> str:
    """The argv as a shell would read it, the program by its absolute path (what is shown is what runs)."""
    return shown(shlex.join(command.argv))


def refused_line(command: TerminalCommand) -> str:
    """The warning naming the agent's variables that are not set (empty when there are none)."""
    if not command.refused_env:
        return ""
    names = ", ".join(shown(name) for name in command.refused_env)
    return f"⚠ Not set, although the agent asked: {names} (they change which program runs or what it loads)"


class TerminalLoginScreen(GuardedDialog[bool]):
    """Confirm running a terminal method's program; True to run it."""

    CSS_PATH = "login.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide(True)", show=False),
        Binding("n,escape", "decide(False)", show=False),
        Binding("left,up,shift+tab", "move(-1)", show=False),
        Binding("right,down,tab", "move(1)", show=False),
        Binding("pageup,shift+up", "scroll_body(-1)", show=False),
        Binding("pagedown,shift+down", "scroll_body(1)", show=False),
    ]

    def __init__(self, command: TerminalCommand, *, arm_delay: float = ARM_DELAY) -> None:
        super().__init__(arm_delay=arm_delay)
        self.command = command
        self._run = Button(Text("y  Run it"), variant="warning", compact=True, disabled=True, id="run")
        self._back = Button(Text("n  Back"), variant="default", compact=True, disabled=True, id="back")
        self._buttons = [self._run, self._back]
        self._dialog = Vertical(id="dialog")
        # what runs scrolls; the title, the buttons and the hint stay on screen however long it is
        self._body = VerticalScroll(id="body", can_focus=False)
        self._footer = Horizontal(id="buttons")

    def _controls(self) -> list[Widget]:
        return list(self._buttons)

    def compose(self) -> ComposeResult:
        command = self.command
        self._dialog.border_title = "Log in: run a program"
        with self._dialog:
            yield Static(
                Text(f"To log in with “{plain(command.method.name)}”, acp-tui runs this in the terminal:"), id="title"
            )
            with self._body:
                if command.refused_env:
                    yield Static(Text(refused_line(command)), id="refused")
                yield Static(Text(f"$ {command_line(command)}"), id="command")
                if command.added_env:
                    lines = "\n".join(f"{shown(name)}={shown(value)}" for name, value in command.added_env)
                    yield Static(Text(f"with the agent's variables:\n{lines}"), id="env")
                yield Static(Text(f"in {shown(display_path(os.fspath(command.cwd)))}"), classes="muted")
                yield Static(
                    Text(
                        "acp-tui steps aside while it runs and comes back when it exits; "
                        "after a successful login the agent restarts."
                    ),
                    classes="muted",
                )
            with self._footer:
                yield from self._buttons
            yield self._hint

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit_body)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_body)

    def _fit_body(self) -> None:
        """Cap what runs so the title, the buttons and the hint always fit in 80% of the screen; it scrolls."""
        cap = int(self.size.height * MAX_HEIGHT_FRACTION)
        chrome = self._dialog.styles.gutter.height + self._body.styles.margin.height
        for widget in self._dialog.children:
            if widget is not self._body:
                chrome += widget.outer_size.height
        self._body.styles.max_height = max(MIN_BODY_HEIGHT, cap - chrome)

    @property
    def buttons_visible(self) -> bool:
        """Is the Run button on screen (not pushed off by a long command)? `y` counts only then."""
        region = self._run.region
        return bool(region) and self.region.contains_region(region)

    def _armed_hints(self) -> Text:
        # y and n are on the options themselves
        return _hints((("esc", "back"), ("←→ ⏎", "choose"), ("pgup/pgdn", "scroll")))

    def action_decide(self, run: bool) -> None:
        if self._armed and (not run or self.buttons_visible):
            self._finish(run)

    def action_scroll_body(self, step: int) -> None:
        if step < 0:
            self._body.scroll_page_up()
        else:
            self._body.scroll_page_down()

    def action_move(self, step: int) -> None:
        self._move_among(self._buttons, step)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button is self._run)


# -- typing a key ------------------------------------------------------------------------------------------------


class SecretScreen(GuardedDialog[dict[str, str]]):
    """Ask for variables in masked fields; dismissed with name → value, or None to go back."""

    CSS_PATH = "login.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", show=False),
        *FIELD_FOCUS_KEYS,
    ]

    def __init__(self, request: SecretRequest, *, arm_delay: float = ARM_DELAY) -> None:
        super().__init__(arm_delay=arm_delay)
        self.request = request
        self._dialog = Vertical(id="dialog")
        self._error = Static(Text(""), id="error")
        self._name_field: Input | None = None
        self._values: list[tuple[LoginVariable | None, Input]] = []
        if request.variables:
            for variable in request.variables:
                field = Input(
                    password=variable.secret,
                    placeholder="optional" if variable.optional else "",
                    compact=True,
                    disabled=True,
                )
                self._values.append((variable, field))
        else:
            self._name_field = Input(
                value=request.suggested or "",
                placeholder="the variable's name, e.g. ANTHROPIC_API_KEY",
                compact=True,
                disabled=True,
                id="name",
            )
            self._values.append((None, Input(password=True, compact=True, disabled=True, id="value")))

    def _controls(self) -> list[Widget]:
        fields: list[Widget] = [field for _, field in self._values]
        return [self._name_field, *fields] if self._name_field is not None else fields

    def compose(self) -> ComposeResult:
        request = self.request
        self._dialog.border_title = f"Log in: {plain(request.title)}" if request.variables else "Log in: API key"
        with self._dialog:
            yield Static(
                Text("Set for the agent's process only (the agent restarts with it); never written to disk or shown."),
                id="title",
            )
            if request.link:
                yield Static(Text(f"Get one at {plain(request.link)}"), classes="muted")
            with Vertical(id="fields"):
                if self._name_field is not None:
                    with Horizontal(classes="field"):
                        yield Static(Text("Variable"), classes="label")
                        yield self._name_field
                for variable, field in self._values:
                    with Horizontal(classes="field"):
                        label = plain(variable.label or variable.name) if variable is not None else "Value"
                        yield Static(Text(label), classes="label")
                        yield field
            yield self._error
            yield self._hint

    def _armed_hints(self) -> Text:
        return _hints((("⏎", "set it and restart the agent"), ("tab", "next field"), ("esc", "back")))

    def _on_armed(self) -> None:
        first = self._name_field if self._name_field is not None and not self._name_field.value else self._values[0][1]
        first.focus()

    def action_back(self) -> None:
        if self._armed:
            self._finish(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self._armed:
            return
        fields = self._controls()
        index = fields.index(event.input) if event.input in fields else -1
        following = fields[index + 1] if 0 <= index < len(fields) - 1 else None
        if isinstance(following, Input) and not following.value:
            following.focus()  # Enter moves on to the next empty field first
            return
        values, error = self._collect()
        if error is not None:
            self._error.update(Text(error))
            return
        self._finish(values)

    def _collect(self) -> tuple[dict[str, str], str | None]:
        """The values typed (each registered as a secret right away), or what is wrong with them."""
        values: dict[str, str] = {}
        for variable, field in self._values:
            value = field.value.strip()
            if value:
                secrets.register(value)
            if variable is None:
                name = self._name_field.value.strip() if self._name_field is not None else ""
                if not valid_env_name(name):
                    return {}, "the variable name must be letters, digits and _ (e.g. ANTHROPIC_API_KEY)"
            else:
                name = variable.name
            if not value:
                if variable is not None and variable.optional:
                    continue
                return {}, f"{plain(name) or 'the value'} is empty"
            values[name] = value
        return values, None


# -- the command palette --------------------------------------------------------------------------------------

#: Palette entries: (name, the screen action it runs, help).
LOGIN_COMMANDS: Final = (
    ("Log in", "log_in", "Choose one of the agent's login methods, or set an API key for it"),
    ("Log out", "log_out", "Log out of the agent (when it offers that) and forget keys typed here"),
)


class LoginCommands(ScreenActionCommands):
    """ "Log in" and "Log out" in the command palette, on screens with `log_in` / `log_out` actions."""

    ENTRIES = tuple(
        PaletteEntry(name, action, help_text, keywords="authenticate sign")
        for name, action, help_text in LOGIN_COMMANDS
    )
