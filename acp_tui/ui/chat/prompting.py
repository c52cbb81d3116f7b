"""What the prompt's neighbours ask of the screen: a prompt submitted, a slash command chosen from the menu, a
queued prompt removed (or promoted to steer now).

The screen hands each message to `PromptActions.handle`; sending, queueing and steering are the controller's
(`SteerControl` for the steer keys), this only turns the messages into those intents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias, assert_never

from textual.app import App

from acp_tui.controller.controller import SessionController
from acp_tui.history import PromptHistory
from acp_tui.ui.chat.steer_control import NOT_RUNNING, SteerControl
from acp_tui.ui.widgets.command_menu import CommandMenu
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queued_prompts import QueuedPrompts

#: Every message the prompt, its command menu and the queue post to the screen.
PromptEvent: TypeAlias = PromptInput.Submitted | CommandMenu.Chosen | QueuedPrompts.Removed


class PromptActions:
    """Turns the prompt's messages into the controller's intents, for one chat screen."""

    def __init__(
        self,
        app: App[object],
        controller: SessionController,
        steer: SteerControl,
        history: PromptHistory,
        widgets: Callable[[], tuple[PromptInput, Conversation]],
    ) -> None:
        self.app = app
        self.controller = controller
        self.steer = steer
        self.history = history
        self._widgets = widgets  # the screen's prompt and conversation, once mounted

    def handle(self, event: PromptEvent) -> None:
        prompt, conversation = self._widgets()
        match event:
            case PromptInput.Submitted():
                self._submitted(event, conversation)
            case CommandMenu.Chosen():
                prompt.complete_command(event.command)
                prompt.focus()
            case QueuedPrompts.Removed():
                (self.steer.promote if event.steer else self.controller.prompts.unqueue)(event.index)
                if event.focus_released:
                    prompt.focus()
            case _:
                assert_never(event)

    def _submitted(self, event: PromptInput.Submitted, conversation: Conversation) -> None:
        if not event.text.strip():
            if self.controller.queue.paused:
                self.controller.prompts.send_next()  # Enter on an empty prompt resumes a paused queue
            return
        self.history.add(event.text)  # the prompt emptied itself as Enter was handled (keys behind it are kept)
        conversation.follow()
        if event.steer:
            return self.steer.now(event.submission)
        if not self.controller.submit(event.submission) and self.controller.stopped:
            self.app.notify(NOT_RUNNING, severity="warning", markup=False)


__all__ = ["PromptActions", "PromptEvent"]
