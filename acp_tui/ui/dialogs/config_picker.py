"""The config picker: every session config option with its values; choose one with arrows and Enter.

A `ModalScreen[ConfigChoice | None]` listing the select and boolean options in the agent's array
order. Each option is a heading followed by its values (grouped values under their group's name);
the current value is marked. Enter dismisses with the highlighted value, Escape with `None`. Agent
strings are sanitized and shown as plain text. The module also holds the command-palette provider
that opens the picker from any screen that has an `open_config` action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.protocol.v2 import (
    SessionConfigBoolean,
    SessionConfigOption,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
)
from acp_tui.sanitize import plain
from acp_tui.ui.widgets.config_bar import Shown, shown_options
from acp_tui.ui.widgets.palette import PaletteEntry, ScreenActionCommands

COMMAND_NAME = "Session settings"
COMMAND_HELP = "Change the agent's mode, model and other session options (F4)"


@dataclass(frozen=True, slots=True)
class ConfigChoice:
    """The value the user chose for one option (a select value id, or a boolean)."""

    config_id: str
    value: str | bool


#: Indentation in no-break spaces, which no wrapping or trimming removes.
_PAD = "\u00a0"


def _value_line(name: str, current: bool, indent: int, description: str = "") -> Content:
    mark = "●" if current else "○"
    text = _PAD * indent + mark + " " + plain(name)
    if description:
        text += f" — {plain(description)}"
    return Content(text)


class ConfigPickerScreen(ModalScreen[ConfigChoice | None]):
    """Lists each option with its values; Enter picks the highlighted value, Escape cancels."""

    CSS_PATH = "config_picker.tcss"

    BINDINGS = [Binding("escape,f4", "dismiss_none", "Close")]

    def __init__(
        self,
        options: Sequence[SessionConfigOption],
        *,
        focus_config_id: str | None = None,
        tools: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self._options: list[Shown] = shown_options(options)
        #: the MCP servers and extra folders the agent was given, and the ones it was not (names only)
        self._tools = tuple(tools)
        self._focus_config_id = focus_config_id
        #: option-list id -> the choice it stands for
        self._choices: dict[str, ConfigChoice] = {}
        self._initial: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Session settings"
            yield Static("↑↓ move · Enter choose · Esc cancel", id="config-help", markup=False)
            yield OptionList(*self._rows(), id="config-options")
            if self._tools:
                text = "About the agent:\n" + "\n".join(f"  {plain(line)}" for line in self._tools)
                yield Static(text, id="config-tools", markup=False)

    def _rows(self) -> list[Option]:
        rows: list[Option] = []
        for index, option in enumerate(self._options):
            heading = plain(option.name) or plain(option.config_id)
            if isinstance(option.description, str) and option.description:
                heading += f" — {plain(option.description)}"
            rows.append(Option(Content(heading), id=f"h{index}", disabled=True))
            focus_here = self._initial is None and (
                self._focus_config_id is None or option.config_id == self._focus_config_id
            )
            if isinstance(option, SessionConfigBoolean):
                self._add_value(rows, option, f"v{index}-on", "on", True, option.current_value is True, 2, "")
                self._add_value(rows, option, f"v{index}-off", "off", False, option.current_value is False, 2, "")
            else:
                groups: list[tuple[str | None, list[SessionConfigSelectOption]]] = (
                    [(g.name, list(g.options)) for g in option.options if isinstance(g, SessionConfigSelectGroup)]
                    if option.grouped
                    else [(None, option.all_options())]
                )
                counter = 0
                for group_index, (group_name, values) in enumerate(groups):
                    indent = 2
                    if group_name is not None:
                        rows.append(
                            Option(Content(_PAD * 2 + plain(group_name)), id=f"g{index}-{group_index}", disabled=True)
                        )
                        indent = 4
                    for choice in values:
                        description = choice.description if isinstance(choice.description, str) else ""
                        self._add_value(
                            rows,
                            option,
                            f"v{index}-{counter}",
                            choice.name,
                            choice.value,
                            choice.value == option.current_value,
                            indent,
                            description,
                        )
                        counter += 1
            if focus_here:
                self._initial = next(
                    (
                        row_id
                        for row_id, c in self._choices.items()
                        if c.config_id == option.config_id and self._is_current(option, c.value)
                    ),
                    None,
                )
        return rows

    def _add_value(
        self,
        rows: list[Option],
        option: Shown,
        row_id: str,
        name: str,
        value: str | bool,
        current: bool,
        indent: int,
        description: str,
    ) -> None:
        self._choices[row_id] = ConfigChoice(option.config_id, value)
        rows.append(Option(_value_line(name, current, indent, description), id=row_id))

    @staticmethod
    def _is_current(option: Shown, value: str | bool) -> bool:
        return type(value) is type(option.current_value) and value == option.current_value

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        option_list.focus()
        if self._initial is not None:
            option_list.highlighted = option_list.get_option_index(self._initial)
        else:
            option_list.action_first()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = self._choices.get(event.option.id or "")
        if choice is not None:
            self.dismiss(choice)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class ConfigCommands(ScreenActionCommands):
    """Command-palette entry that opens the config picker on screens with an `open_config` action."""

    ENTRIES = (PaletteEntry(COMMAND_NAME, "open_config", COMMAND_HELP, aliases=("Mode and model",)),)
