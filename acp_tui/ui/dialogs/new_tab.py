"""New tab with agent… (the command palette): which agent, in which folder (acp_tui/ui/tabs).

The agent is typed as on the command line — a named agent from config.toml, a catalogue agent by its
short name, or a command with its arguments — or picked from the list below the field (the named agents,
then the catalogue agents installed here). Empty means the current tab's agent. The folder starts as the
current tab's. Enter tries to start it: what cannot be started (no such command, no such folder) is said
in the dialog, which stays open to be corrected; Escape closes it. The result is the new tab's `Launch`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.launch import Launch, LaunchProblem
from acp_tui.sanitize import plain
from acp_tui.ui.dialogs.guarded import FIELD_FOCUS_KEYS, key_hints

__all__ = ["AgentChoice", "NewTabScreen"]


@dataclass(frozen=True, slots=True)
class AgentChoice:
    """One agent the list offers: the name to type, and what it is (`config.toml`, `Gemini CLI`…)."""

    name: str
    what: str


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
        self.agent, self.folder, self.choices, self._build = plain(agent), folder, tuple(choices), build

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="dialog")
        dialog.border_title = "New tab with agent"
        with dialog:
            yield Static(Text("Agent — a name from config.toml or the list, or a command"), classes="label")
            yield Input(placeholder=f"empty: {self.agent}", id="agent", compact=True)
            if self.choices:
                yield OptionList(
                    *(Option(Text.assemble(choice.name, ("  " + choice.what, "dim"))) for choice in self.choices),
                    id="choices",
                )
            yield Static(Text("Folder"), classes="label")
            yield Input(value=self.folder, id="folder", compact=True)
            yield Static(Text(""), id="problem")
            yield Static(key_hints([("⏎", "open the tab"), ("tab", "next field"), ("esc", "close")]), id="hint")

    def on_mount(self) -> None:
        self.query_one("#agent", Input).focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one("#agent", Input).value = self.choices[event.option_index].name
        self.query_one("#folder", Input).focus()

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
