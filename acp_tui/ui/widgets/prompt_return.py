"""Keys typed away from the prompt come back to it: Escape returns there, and so does a typed character.

The prompt is where the user works; the other focusable parts of the chat screen (timeline cards,
the conversation itself, queued prompts, the stderr panel) are visited. `ReturnsToPrompt` is mixed
into the containers of those parts, so it sees every key their focused widget does not use (keys
bubble up from the focused widget; bindings are only looked at after that):

- Escape, unless something in the focus chain binds it, asks for the prompt; so does Enter (never a
  key that does nothing: the focus going back shows where the next Enter sends);
- a printable character that nothing in the focus chain binds (a card's own letters such as `s`
  stay the card's) asks for the prompt *with the key*, so it is typed there, never lost;
- once it has, every key that follows goes to the prompt too, bound or not, until the focus comes back
  into the container: a fast typist's `edit` reaches the card as four queued keys before the focus has
  moved, and the `i` (a card's own key) or an Enter behind the `e` was meant for the prompt as well.

The mixin only posts `FocusPrompt`; the screen owns the prompt and handles it
(`PromptInput.take_focus(event.key, event.character)` sends the key there as if typed again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widget import Widget

from acp_tui.ui.key_order import hold_keys

__all__ = ["FocusPrompt", "ReturnsToPrompt"]

# A plain mixin at run time: a Widget subclass would pin `can_focus` (Widget.__init_subclass__ copies it
# into every subclass) and hide the container's own value.
if TYPE_CHECKING:
    _Base = Widget
else:
    _Base = object


class FocusPrompt(Message):
    """Give the focus back to the prompt; `key`, when set, is pressed there (`character` is what it types)."""

    def __init__(self, character: str | None = None, *, key: str | None = None) -> None:
        super().__init__()
        self.character = character
        self.key = key if key is not None or character is None else character


class ReturnsToPrompt(_Base):
    """Mixin for non-modal containers: Escape and unbound printable keys go back to the prompt."""

    #: a key was sent to the prompt and the focus has not come back here since: keys queued behind it follow
    _typing_to_prompt = False

    def on_key(self, event: events.Key) -> None:
        if self._typing_to_prompt and event.key != "escape":
            event.stop()
            event.prevent_default()
            self._to_prompt(FocusPrompt(event.character, key=event.key))
            return
        if event.key in ("escape", "enter"):
            character = None
        elif event.is_printable and event.character is not None:
            character = event.character
        else:
            return
        if event.key in self.screen.active_bindings:
            return  # the focused widget (or a container of it) uses this key itself
        event.stop()
        event.prevent_default()
        if character is None:
            self._to_prompt(FocusPrompt())
            return
        self._typing_to_prompt = True
        self._to_prompt(FocusPrompt(character, key=event.key))

    def _to_prompt(self, message: FocusPrompt) -> None:
        """Ask for the prompt, holding the keys typed behind this one until the prompt has the focus."""
        hold_keys(self.app)
        self.post_message(message)

    def on_focus(self, event: events.Focus) -> None:
        self._typing_to_prompt = False  # the user came back: the keys are this widget's again

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._typing_to_prompt = False
