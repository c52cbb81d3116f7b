"""Session settings from the keyboard: the picker (F4, palette, a click on a chip) and Shift+Tab mode cycling.

The agent's answer is the truth: the chips follow the model's `ConfigChanged`; a refusal is a toast.
A switch to a mode that bypasses or auto-approves permissions asks first (`ModeConfirmScreen`); the
line in the conversation for every mode change is the controller's (`controller/mode_watch.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from acp_tui.controller.controller import SessionController
from acp_tui.controller.errors import ControllerError
from acp_tui.protocol.v2 import SessionConfigOption
from acp_tui.sanitize import plain
from acp_tui.session.modes import bypasses_permissions, mode_option, value_name
from acp_tui.ui.dialogs.guarded import ARM_DELAY
from acp_tui.ui.widgets.limit_meter import account_lines, token_lines

if TYPE_CHECKING:  # the dialogs are imported when first opened
    from acp_tui.ui.dialogs.config_picker import ConfigChoice
    from acp_tui.ui.dialogs.mode_confirm import ModeAnswer


class ConfigControl:
    """Turns the user's choices into `session/set_config_option` (or v1 `session/set_mode`) requests."""

    def __init__(self, app: App[object], controller: SessionController, *, arm_delay: float = ARM_DELAY) -> None:
        self.app = app
        self.controller = controller
        self.arm_delay = arm_delay

    @property
    def options(self) -> list[SessionConfigOption]:
        return list(self.controller.state.config_options)

    @property
    def tools(self) -> tuple[str, ...]:
        """The MCP servers and extra folders the agent was given, and the ones it was not and why; then the
        account it acts as, the plan's windows with their reset times and the last turn's tokens, where it
        reports them."""
        session = self.controller.session
        state = self.controller.state
        lines = session.tools.lines() if session is not None else ()
        return lines + account_lines(state.account) + token_lines(state.turn_tokens)

    def open(self, config_id: str | None = None) -> None:
        """The picker of every option (focused on `config_id` when given), with the agent's tools below."""
        tools = self.tools
        if not self.options:
            lines = ["The agent offers no session settings.", *(["About the agent:", *tools] if tools else [])]
            self.app.notify("\n".join(lines), markup=False, timeout=3 if not tools else 8)
            return
        from acp_tui.ui.dialogs.config_picker import ConfigPickerScreen

        screen = ConfigPickerScreen(self.options, focus_config_id=config_id, tools=tools)
        self.app.push_screen(screen, callback=self._chosen)

    def can_cycle(self) -> bool:
        return mode_option(self.options) is not None

    def cycle_mode(self, after: str | None = None) -> None:
        """Shift+Tab: the mode after the current one (or after `after`, a mode the user skipped)."""
        option = mode_option(self.options)
        if option is None:
            return
        values = [choice.value for choice in option.all_options()]
        start = after if after is not None else option.current_value
        index = values.index(start) if start in values else -1
        self.set(option.config_id, values[(index + 1) % len(values)], cycling=True)

    def set(self, config_id: str, value: str | bool, *, cycling: bool = False) -> None:
        """Ask for `value`; a mode that bypasses permissions is asked about first."""
        option = mode_option(self.options)
        if (
            option is not None
            and option.config_id == config_id
            and isinstance(value, str)
            and value != option.current_value
            and bypasses_permissions(value, value_name(option, value))
        ):
            from acp_tui.ui.dialogs.mode_confirm import ModeConfirmScreen

            def answered(answer: ModeAnswer | None) -> None:
                if answer == "switch":
                    self._send(config_id, value)
                elif answer == "skip":
                    self.cycle_mode(after=value)

            screen = ModeConfirmScreen(
                value_name(option, value),
                value_name(option, option.current_value),
                cycling=cycling,
                arm_delay=self.arm_delay,
            )
            self.app.push_screen(screen, callback=answered)
            return
        self._send(config_id, value)

    def _send(self, config_id: str, value: str | bool) -> None:
        self.app.run_worker(self._set(config_id, value), group="config")

    def _chosen(self, choice: ConfigChoice | None) -> None:
        if choice is not None:
            self.set(choice.config_id, choice.value)

    async def _set(self, config_id: str, value: str | bool) -> None:
        try:
            await self.controller.set_config(config_id, value)
        except ControllerError as exc:
            self.app.notify(
                f"could not change {plain(config_id)}: {plain(str(exc))}",
                title="session settings",
                severity="error",
                markup=False,
            )


__all__ = ["ConfigControl", "mode_option"]
