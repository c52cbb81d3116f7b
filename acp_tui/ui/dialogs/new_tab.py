"""New tab with agent… (the command palette): which agent, in which folder (acp_tui/ui/tabs).

The agent is typed as on the command line — a named agent from config.toml, a catalogue agent by its
short name, or a command with its arguments — or taken from the list below the field (the named agents,
then the catalogue agents installed here). Empty means the current tab's agent. The folder starts as the
current tab's. Enter tries to start it: what cannot be started (no such command, no such folder) is said
in the dialog, which stays open to be corrected; Escape closes it. The result is the new tab's `Launch`.

The list is a suggestion box, not a stop on the way: Tab goes from *Agent* to *Folder* and back (priority
keys, `FIELD_FOCUS_KEYS`, so `agent<Tab>folder` typed or pasted in one burst fills both fields). The list
filters as the agent is typed (the letters in order, fzf style); Down and Up in *Agent* mark a row (`▌`),
Enter on a marked row takes it into the field. With no row marked, Enter opens the tab with what the
fields say — never the list's first row. The keys the list answers are read in the field's own queue
(`AgentField._on_key`), so they keep their place among the letters typed around them, and none of them
moves the focus: only Tab does, read as it arrives, so `sec`↓⏎ Tab `folder` ⏎ in one burst still lands
every key where it was meant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final, Protocol

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.context.matcher import match_positions, name_tier
from acp_tui.launch import Launch, LaunchProblem
from acp_tui.sanitize import plain
from acp_tui.ui.dialogs.guarded import FIELD_FOCUS_KEYS, key_hints

__all__ = ["MARK", "AgentChoice", "AgentField", "NewTabScreen", "ranked_choices"]

#: The marked row's marker, as the session list marks its cursor row.
MARK: Final = "▌ "
#: What the hint line says in the agent field with no row marked, in the folder field, and with a row marked.
FIELD_HINTS: Final = [("⏎", "open the tab"), ("↓", "agents"), ("tab", "next field"), ("esc", "close")]
FOLDER_HINTS: Final = [("⏎", "open the tab"), ("shift+tab", "agent"), ("esc", "close")]
MARKED_HINTS: Final = [("⏎", "take this agent"), ("↑↓", "move"), ("esc", "back to typing")]


@dataclass(frozen=True, slots=True)
class AgentChoice:
    """One agent the list offers: the name to type, and what it is (`config.toml`, `Gemini CLI`…)."""

    name: str
    what: str


def _label(choice: AgentChoice) -> str:
    return f"{choice.name}  {choice.what}"


def ranked_choices(choices: Sequence[AgentChoice], query: str) -> list[tuple[int, tuple[int, ...]]]:
    """The choices that match `query` (its letters in order, case-insensitive), best first, each with the offsets
    of its label (`name  what`) to highlight: the name starts with it, contains it, holds its letters, then the
    label holds them. Ties keep the list's order (named agents before the catalogue). An empty query: all."""
    q = " ".join(query.split()).lower()
    if not q:
        return [(index, ()) for index in range(len(choices))]
    tiers: list[tuple[int, int, tuple[int, ...]]] = []
    for index, choice in enumerate(choices):
        tier = name_tier(q, choice.name.lower(), _label(choice).lower())
        if tier is None:
            continue
        # The name part is searched first, so a name that matches is highlighted there, not in its description.
        positions = match_positions(_label(choice), 0, q) if tier == 3 else match_positions(choice.name, 0, q)
        tiers.append((tier, index, positions))
    tiers.sort()
    return [(index, positions) for _tier, index, positions in tiers]


class Picker(Protocol):
    """What the agent field asks of its dialog: the list's filter and its marked row."""

    def filter_choices(self, query: str) -> None: ...

    def move_mark(self, by: int) -> None: ...

    def take_marked(self) -> bool: ...

    def unmark(self) -> bool: ...


class AgentField(Input):
    """The *Agent* field: typing filters the list; Down and Up mark a row of it, Enter takes the marked row and
    Escape unmarks it (else Enter and Escape do what they do in any field). A paste of `agent<Tab>folder` fills
    both fields, as the same keys typed do."""

    def __init__(self, picker: Picker, *, folder: Callable[[], Input], placeholder: str) -> None:
        super().__init__(placeholder=placeholder, id="agent", compact=True)
        self._picker = picker
        self._folder = folder

    def watch_value(self, value: str) -> None:
        """Filter as it is typed, before the next key is read (Input's own watcher only posts `Changed`)."""
        self._picker.filter_choices(value)

    async def _on_key(self, event: events.Key) -> None:
        """Before Input's own handler and the app's bindings: these keys act here, in the order typed."""
        key = event.key
        if key in ("down", "up"):
            self._picker.move_mark(1 if key == "down" else -1)
        elif not (key == "enter" and self._picker.take_marked()) and not (key == "escape" and self._picker.unmark()):
            return  # Input's own handling, then the bindings (Enter submits, Escape closes)
        event.stop()
        event.prevent_default()

    def _on_paste(self, event: events.Paste) -> None:
        """`agent<Tab>folder` pasted: the agent here, the folder in *Folder* (focused, as a typed Tab does)."""
        lines = event.text.splitlines()
        if not lines or "\t" not in lines[0]:
            return  # Input's own paste
        event.stop()
        event.prevent_default()
        agent, _tab, folder = lines[0].partition("\t")
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(agent)
        else:
            self.replace(agent, *selection)
        field = self._folder()
        field.value = folder.strip("\t")
        field.cursor_position = len(field.value)
        field.focus()


class NewTabScreen(ModalScreen[Launch | None]):
    """Ask for an agent and a folder; dismissed with the new tab's launch, or None."""

    CSS_PATH = "new_tab.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", show=False), *FIELD_FOCUS_KEYS]

    def __init__(
        self,
        *,
        agent: str,
        folder: str,
        choices: Sequence[AgentChoice],
        build: Callable[[str, str], Launch],
    ) -> None:
        """`agent` names the current tab's agent (what empty means); `build(agent, folder)` makes the launch or
        raises `LaunchProblem`."""
        super().__init__()
        self.agent, self.folder, self._build = plain(agent), folder, build
        self.choices = tuple(AgentChoice(plain(choice.name), plain(choice.what)) for choice in choices)
        #: the choices the list shows (indexes into `choices`), in its order, with the offsets to highlight
        self.shown: list[tuple[int, tuple[int, ...]]] = []
        #: the marked row (an index into `shown`), or None: Enter then opens the tab with the fields' values
        self.marked: int | None = None

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="dialog")
        dialog.border_title = "New tab with agent"
        with dialog:
            yield Static(Text("Agent — a name from config.toml or the list, or a command"), classes="label")
            yield AgentField(self, folder=lambda: self.query_one("#folder", Input), placeholder=f"empty: {self.agent}")
            if self.choices:
                options = OptionList(id="choices", compact=True)
                options.can_focus = False  # a suggestion box: Tab never stops in it
                yield options
                yield Static(Text("no listed agent matches: ⏎ runs it as a command"), id="no-match")
            yield Static(Text("Folder"), classes="label")
            yield Input(value=self.folder, id="folder", compact=True)
            yield Static(Text(""), id="problem")
            yield Static(key_hints(FIELD_HINTS), id="hint")

    def on_mount(self) -> None:
        self.filter_choices("")
        self.query_one("#agent", Input).focus()

    # -- the list (the agent field's Picker) ---------------------------------------------------------

    def filter_choices(self, query: str) -> None:
        """Show the choices matching what the agent field says, none marked (the typed text is what is meant)."""
        found = self.query("#choices").results(OptionList)
        options = next(found, None)
        if options is None:
            return  # no choices, or not composed yet (on_mount fills it)
        self.shown = ranked_choices(self.choices, query)
        self.marked = None
        options.set_options(Option(self._row(index, positions, marked=False)) for index, positions in self.shown)
        options.display = bool(self.shown)
        self.query_one("#no-match", Static).display = not self.shown
        self._hint()

    def move_mark(self, by: int) -> None:
        """Down marks the first row (then the next), Up the previous; Up from the first row unmarks it."""
        if not self.shown:
            return
        if self.marked is None:
            target: int | None = 0 if by > 0 else None
        else:
            target = self.marked + by
            if target < 0:
                target = None
            target = min(target, len(self.shown) - 1) if target is not None else None
        self._mark(target)

    def take_marked(self) -> bool:
        """Enter on a marked row: its name into the field (the focus stays). False when no row is marked."""
        if self.marked is None:
            return False
        self._take(self.marked)
        return True

    def unmark(self) -> bool:
        if self.marked is None:
            return False
        self._mark(None)
        return True

    def _mark(self, target: int | None) -> None:
        if target == self.marked:
            return
        options = self.query_one("#choices", OptionList)
        for row, marked in ((self.marked, False), (target, True)):
            if row is not None:
                index, positions = self.shown[row]
                options.replace_option_prompt_at_index(row, self._row(index, positions, marked=marked))
        self.marked = target
        options.highlighted = target
        self._hint()

    def _take(self, row: int) -> None:
        """The row's name into the agent field, which keeps the focus: a focus moved here, in the field's turn,
        would leave the keys typed after Enter in the old field (only a priority key moves it in order)."""
        choice = self.choices[self.shown[row][0]]
        agent = self.query_one("#agent", Input)
        agent.value = choice.name  # filters the list to it, unmarked
        agent.cursor_position = len(choice.name)
        agent.focus()

    def _row(self, index: int, positions: tuple[int, ...], *, marked: bool) -> Content:
        """`▌ claude  Claude Code (ACP adapter)`: the letters typed underlined, the description dim."""
        choice = self.choices[index]
        label = _label(choice)
        name_style = "bold" if marked else ""
        typed = set(positions)
        parts: list[tuple[str, str]] = [(MARK if marked else " " * len(MARK), name_style)]
        for at, char in enumerate(label):
            style = name_style if at < len(choice.name) else "dim"
            if at in typed:
                style = f"{style} underline".strip()
            if parts and parts[-1][1] == style:
                parts[-1] = (parts[-1][0] + char, style)
            else:
                parts.append((char, style))
        return Content.assemble(*parts)

    def _hint(self) -> None:
        """The keys that work where the focus is: the agent field's (a row marked or not), or the folder's."""
        if self.marked is not None:
            hints = MARKED_HINTS
        elif self.focused is not None and self.focused.id == "folder":
            hints = FOLDER_HINTS
        else:
            hints = FIELD_HINTS
        self.query_one("#hint", Static).update(key_hints(hints))

    def on_descendant_focus(self, _event: events.DescendantFocus) -> None:
        self._hint()

    # -- results ---------------------------------------------------------------------------------------

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        """A click on a row takes it, as Enter on a marked row does."""
        event.stop()
        if 0 <= event.option_index < len(self.shown):
            self._take(event.option_index)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        agent = self.query_one("#agent", Input).value
        folder = self.query_one("#folder", Input).value
        try:
            launch = self._build(agent, folder)
        except LaunchProblem as exc:
            problem = self.query_one("#problem", Static)
            problem.update(Text(plain(str(exc))))
            problem.add_class("-shown")
            return
        self.dismiss(launch)

    def action_close(self) -> None:
        self.dismiss(None)
