"""Session settings from the keyboard: the picker (F4, palette, a click on a chip) and Shift+Tab mode cycling.

The agent's answer is the truth: the chips follow the model's `ConfigChanged`; a refusal is a toast.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import App

from acp_tui.agent.session import SessionError
from acp_tui.controller.controller import SessionController
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.v2 import SessionConfigOption, SessionConfigSelect
from acp_tui.sanitize import plain
from acp_tui.ui.screens.config_picker import ConfigChoice, ConfigPickerScreen


def mode_option(options: Sequence[SessionConfigOption]) -> SessionConfigSelect | None:
    """The first select option of category "mode" (earlier options win shortcuts, docs/protocol.md §10.4)."""
    for option in options:
        if isinstance(option, SessionConfigSelect) and option.category == "mode" and option.all_options():
            return option
    return None


class ConfigControl:
    """Turns the user's choices into `session/set_config_option` (or v1 `session/set_mode`) requests."""

    def __init__(self, app: App[object], controller: SessionController) -> None:
        self.app = app
        self.controller = controller

    @property
    def options(self) -> list[SessionConfigOption]:
        return list(self.controller.state.config_options)

    def open(self, config_id: str | None = None) -> None:
        """The picker of every option (focused on `config_id` when given)."""
        if not self.options:
            self.app.notify("The agent offers no session settings.", markup=False, timeout=3)
            return
        self.app.push_screen(ConfigPickerScreen(self.options, focus_config_id=config_id), callback=self._chosen)

    def can_cycle(self) -> bool:
        return mode_option(self.options) is not None

    def cycle_mode(self) -> None:
        option = mode_option(self.options)
        if option is None:
            return
        values = [choice.value for choice in option.all_options()]
        index = values.index(option.current_value) if option.current_value in values else -1
        self.set(option.config_id, values[(index + 1) % len(values)])

    def set(self, config_id: str, value: str | bool) -> None:
        self.app.run_worker(self._set(config_id, value), group="config")

    def _chosen(self, choice: ConfigChoice | None) -> None:
        if choice is not None:
            self.set(choice.config_id, choice.value)

    async def _set(self, config_id: str, value: str | bool) -> None:
        try:
            await self.controller.set_config(config_id, value)
        except (RpcError, SessionError) as exc:
            reason = exc.message if isinstance(exc, RpcError) else str(exc)
            self.app.notify(f"could not change {plain(config_id)}: {plain(reason)}", title="session settings",
                            severity="error", markup=False)


__all__ = ["ConfigControl", "mode_option"]
