"""The config bar: one line of chips for the session's config options, e.g. `mode: Ask ▾ · model: X ▾`.

Chips follow the agent's array order (docs/protocol.md §10.4: earlier options come first; categories are only
hints). Select and boolean options are shown; options of unknown type are kept in the model but not
shown. Every agent string is sanitized and rendered as plain text. Clicking a chip asks the screen to
open the picker on that option; the bar is hidden while the session has no option to show. Chips that do
not fit the width are left out whole, said by `· +2 more`, and the `F4` hint (the picker has them all)
always stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from acp_tui.protocol.v2 import SessionConfigBoolean, SessionConfigOption, SessionConfigSelect
from acp_tui.sanitize import plain

#: Longest a chip's name or value may get before it is cut with an ellipsis.
MAX_PART: Final = 32
SEPARATOR: Final = " · "
#: The hint at the end of the bar: F4 opens the picker with every option.
HINT: Final = "   F4"

Shown = SessionConfigSelect | SessionConfigBoolean


def shown_options(options: Sequence[SessionConfigOption]) -> list[Shown]:
    """The options the UI shows and can set, in array order (unknown types are left out)."""
    return [option for option in options if isinstance(option, SessionConfigSelect | SessionConfigBoolean)]


def value_label(option: Shown) -> str:
    """The current value as the user reads it: the value's name, or on/off."""
    if isinstance(option, SessionConfigBoolean):
        return "on" if option.current_value else "off"
    for choice in option.all_options():
        if choice.value == option.current_value:
            return choice.name
    return option.current_value


def _cut(text: str) -> str:
    text = plain(text)
    return text if len(text) <= MAX_PART else text[: MAX_PART - 1] + "…"


def chip_parts(option: Shown) -> tuple[str, str]:
    """(label, value) of one chip, sanitized and shortened."""
    return _cut(option.name) or _cut(option.config_id) or "option", _cut(value_label(option))


class ConfigBar(Widget):
    """One line of chips, one per select/boolean option."""

    DEFAULT_CSS = """
    ConfigBar {
        height: 1;
        margin: 0 1;
        color: $text-muted;
        display: none;
    }
    ConfigBar.-shown {
        display: block;
    }
    ConfigBar > .config-bar--value {
        color: $text;
        text-style: bold;
    }
    ConfigBar > .config-bar--hint {
        color: $text-muted;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"config-bar--value", "config-bar--hint"}

    class ChipClicked(Message):
        """A chip was clicked: open the picker on `config_id`."""

        def __init__(self, config_id: str) -> None:
            super().__init__()
            self.config_id = config_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._options: list[Shown] = []
        self._spans: list[tuple[int, int, str]] = []

    @property
    def options(self) -> list[Shown]:
        """The options shown, in order."""
        return list(self._options)

    def set_options(self, options: Sequence[SessionConfigOption]) -> None:
        """Show this set of options (the full set: it replaces the previous one)."""
        self._options = shown_options(options)
        self.set_class(bool(self._options), "-shown")
        self.refresh()

    def render(self) -> Text:
        # The visual style resolves `auto` and alpha colours against the bar's real background; a
        # partial component style would drop them (`$text` came out white on the light theme).
        value_style = self.get_visual_style("config-bar--value").rich_style
        hint_style = self.get_visual_style("config-bar--hint").rich_style
        width = self.content_size.width or 10_000  # not laid out yet: everything
        line = Text(no_wrap=True, overflow="ellipsis")
        spans: list[tuple[int, int, str]] = []
        for index, option in enumerate(self._options):
            label, value = chip_parts(option)
            chip = Text(f"{label}: ")
            chip.append(value, style=value_style)
            chip.append(" ▾", style=hint_style)
            left = len(self._options) - index - 1
            rest = len(f"{SEPARATOR}+{left} more") if left else 0
            gap = len(SEPARATOR) if index else 0
            if line.cell_len + gap + chip.cell_len + rest + len(HINT) > width:
                if index == 0:  # the first chip alone is too wide: cut it, never lose the hint
                    chip.truncate(max(1, width - len(HINT) - rest), overflow="ellipsis")
                else:
                    line.append(f"{SEPARATOR}+{left + 1} more", style=hint_style)
                    break
            if index:
                line.append(SEPARATOR)
            start = line.cell_len
            line.append_text(chip)
            spans.append((start, line.cell_len, option.config_id))
        if self._options:
            line.append(HINT, style=hint_style)
        self._spans = spans
        return line

    def plain_text(self) -> str:
        """The bar's text without styles (what a reader sees)."""
        return self.render().plain

    def on_click(self, event: events.Click) -> None:
        for start, end, config_id in self._spans:
            if start <= event.x < end:
                event.stop()
                self.post_message(self.ChipClicked(config_id))
                return
