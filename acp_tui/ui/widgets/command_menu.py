"""The slash-command popup above the prompt: the agent's advertised commands, filtered as you type.

Agents advertise commands with `available_commands_update` (docs/protocol.md §10.3); invoking one
is an ordinary prompt whose text starts with `/name`. The menu never takes focus: the prompt keeps
it and routes Up/Down/Tab/Enter/Escape here while the menu is open (`PromptInput`), so typing goes
on uninterrupted. Names, descriptions and hints are agent data: sanitized and never read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual import on
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.protocol.v2 import AvailableCommand
from acp_tui.sanitize import plain

#: Characters that end a command name in the prompt: after one, the user is typing arguments.
_NAME_END = (" ", "\t", "\n")


def command_query(text: str) -> str | None:
    """The partial command name being typed (`"/pl"` → `"pl"`), or None when the text is no command yet."""
    if not text.startswith("/"):
        return None
    query = text[1:]
    if any(end in query for end in _NAME_END):
        return None
    return query


def match_commands(commands: Sequence[AvailableCommand], query: str) -> list[AvailableCommand]:
    """Commands whose name starts with `query`, then those that merely contain it (case-insensitive),
    each group in the agent's order."""
    needle = query.casefold()
    prefix: list[AvailableCommand] = []
    inner: list[AvailableCommand] = []
    for command in commands:
        name = plain(command.name).casefold()
        if name.startswith(needle):
            prefix.append(command)
        elif needle in name:
            inner.append(command)
    return prefix + inner


def input_hint(command: AvailableCommand) -> str | None:
    """The hint of a text input (`{type: "text", hint}`), or None for no input or an unknown kind."""
    spec = command.input
    if not isinstance(spec, dict) or spec.get("type") != "text":
        return None
    hint = spec.get("hint")
    return plain(hint) if isinstance(hint, str) and hint.strip() else None


#: The name column is as wide as the longest shown name, up to this many cells.
NAME_COLUMN_MAX = 24


def command_row(command: AvailableCommand, name_width: int = 0) -> Content:
    """One row: `/name  description  ‹hint›`, the names padded to `name_width` so descriptions line
    up; styled with theme variables only."""
    name = f"/{plain(command.name)}"
    parts: list[Content | str | tuple[str, str]] = [(name, "bold $text-accent")]
    if cell_len(name) < name_width:
        parts.append(" " * (name_width - cell_len(name)))
    description = plain(command.description)
    if description:
        parts += ["  ", (description, "$text")]
    hint = input_hint(command)
    if hint is not None:
        parts += ["  ", (f"‹{hint}›", "italic $text-muted")]
    return Content.assemble(*parts)


class CommandMenu(OptionList):
    """A small, unfocusable list of the commands that match the slash word in the prompt."""

    can_focus = False

    DEFAULT_CSS = """
    CommandMenu {
        display: none;
        height: auto;
        max-height: 10;
        margin: 0 1;
        padding: 0 1;
        border: round $primary 40%;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    CommandMenu.-open {
        display: block;
    }
    CommandMenu > .option-list--option-highlighted {
        /* a tint, not the solid cursor colour: the rows keep their own colours, readable on it */
        background: $primary 20%;
        text-style: bold;
    }
    """

    class Chosen(Message):
        """A command was picked with the mouse; the prompt completes it."""

        def __init__(self, menu: CommandMenu, command: AvailableCommand) -> None:
            super().__init__()
            self.menu = menu
            self.command = command

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self._commands: list[AvailableCommand] = []
        self._shown: list[AvailableCommand] = []
        self._text = ""
        #: Escape closed the menu: it stays closed until the prompt stops being a slash word
        self._dismissed = False

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def commands(self) -> list[AvailableCommand]:
        """The agent's commands, in its order."""
        return list(self._commands)

    @property
    def shown(self) -> list[AvailableCommand]:
        """The commands the menu lists now, in display order."""
        return list(self._shown) if self.is_open else []

    @property
    def highlighted_command(self) -> AvailableCommand | None:
        index = self.highlighted
        if not self.is_open or index is None or not 0 <= index < len(self._shown):
            return None
        return self._shown[index]

    def set_commands(self, commands: Sequence[AvailableCommand]) -> None:
        """The agent replaced its command list; the menu refilters for what the prompt holds."""
        self._commands = list(commands)
        self._refresh_matches(keep=self.highlighted_command)

    def update_for(self, text: str) -> None:
        """The prompt's text changed: open, filter or close accordingly; a new query highlights its
        best match."""
        query = command_query(text)
        same_query = query == command_query(self._text)
        self._text = text
        if query is None:
            self._dismissed = False
        self._refresh_matches(keep=self.highlighted_command if same_query else None)

    def dismiss(self) -> None:
        """Escape: close until the prompt no longer starts with a slash word."""
        self._dismissed = True
        self._close()

    def move(self, delta: int) -> None:
        """Move the highlight, wrapping around the ends."""
        if not self._shown:
            return
        current = self.highlighted if self.highlighted is not None else (-1 if delta > 0 else 0)
        self.highlighted = (current + delta) % len(self._shown)

    def _refresh_matches(self, *, keep: AvailableCommand | None) -> None:
        query = command_query(self._text)
        matches = match_commands(self._commands, query) if query is not None and not self._dismissed else []
        if not matches:
            self._close()
            return
        if matches != self._shown or keep is None:
            self._shown = matches
            width = min(NAME_COLUMN_MAX, max(cell_len(plain(command.name)) + 1 for command in matches))
            self.set_options(Option(command_row(command, width)) for command in matches)
            self.highlighted = matches.index(keep) if keep is not None and keep in matches else 0
        self.add_class("-open")

    def _close(self) -> None:
        if self._shown:
            self._shown = []
            self.clear_options()
        self.remove_class("-open")

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._shown):
            self.post_message(self.Chosen(self, self._shown[event.option_index]))
