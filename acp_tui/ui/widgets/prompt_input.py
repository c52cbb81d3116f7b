"""The multi-line prompt: Enter sends, Shift+Enter / Ctrl+J add a line, Up/Down recall history.

Ctrl+Enter or Alt+Enter sends it as a *steer* (`Submitted.steer`): into the agent's running turn where the
agent offers steering. A terminal delivers those keys only with an extended keyboard protocol (kitty's, or
xterm's modifyOtherKeys, which Textual reads as `ctrl+\r`); a plain one sends Alt+Enter as Enter and
Ctrl+Enter as Enter or Ctrl+J, so there the queued prompt's `s` key steers instead (queued_prompts.py).

With a `CommandMenu` attached, a `/` word at the start opens the agent's slash commands; while the
menu is open Up/Down move its highlight, Tab/Enter complete the command and Escape closes it;
with none open, Tab goes to the newest card of the attached timeline, and End, once the cursor is
at the end of its line, jumps to the timeline's newest output.
With a `FilePicker` attached, `@` mentions files the same way, and mentions and huge pastes show as
chips (see `prompt_context`); Enter then submits a `PromptSubmission` (text and mentions).
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual import events, on
from textual.actions import SkipAction
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea

from acp_tui.context.mentions import PromptSubmission
from acp_tui.history import PromptHistory
from acp_tui.protocol.v2 import AvailableCommand
from acp_tui.sanitize import plain
from acp_tui.ui.key_order import release_keys
from acp_tui.ui.widgets.command_menu import CommandMenu
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.file_picker import FilePicker
from acp_tui.ui.widgets.prompt_context import MENTION_HIGHLIGHT, PromptContext

#: The keys that steer (see the module's docstring for what terminals deliver).
STEER_KEYS = ("ctrl+enter", "alt+enter", "ctrl+\r")


class PromptInput(TextArea):
    """A TextArea that turns Enter into a `Submitted` message instead of a newline."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 40%;
        background: $surface;
        padding: 0 1;
    }
    PromptInput:focus {
        border: round $primary;
    }
    PromptInput .text-area--placeholder {
        color: $text-muted;  /* Textual's 40% is below 4.5:1 */
    }
    PromptInput:light .text-area--cursor {
        color: $input-cursor-foreground;  /* Textual's light cursor is below 4.5:1 */
        background: $input-cursor-background;
    }
    PromptInput > .prompt-input--mention {
        color: $text-accent;
        background: $accent-muted;
        text-style: bold;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = TextArea.COMPONENT_CLASSES | {"prompt-input--mention"}

    class Submitted(Message):
        """The user pressed Enter; `text` is what is sent (collapsed pastes expanded) and
        `submission` the same text with the files it mentions."""

        def __init__(
            self, prompt: PromptInput, text: str, submission: PromptSubmission | None = None, *, steer: bool = False
        ) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text
            self.submission = submission if submission is not None else PromptSubmission(text)
            #: Ctrl+Enter / Alt+Enter: steer it into the running turn rather than queue it
            self.steer = steer

    def __init__(
        self,
        history: PromptHistory,
        *,
        id: str | None = None,
        command_menu: CommandMenu | None = None,
        file_picker: FilePicker | None = None,
        timeline: Conversation | None = None,
    ) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder="Message the agent…  (Enter sends, Ctrl+J adds a line)",
        )
        self.prompt_history = history
        self.command_menu = command_menu
        self.timeline = timeline
        self.context = PromptContext(self, file_picker)

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def _screen_changed(self, screen: object) -> None:
        """The cursor blinks only while this prompt's screen is on the terminal: in a hidden tab (or under a
        dialog) it stays drawn and its timer sleeps, so an idle hidden tab costs no CPU (TextArea's own
        blink keeps going for as long as the widget has the focus of its screen)."""
        if not self.is_mounted:
            return
        if self.screen.is_current and self.has_focus:
            if self.cursor_blink:
                self._restart_blink()
                self.blink_timer.resume()
        else:
            self._pause_blink(visible=True)

    async def _on_key(self, event: events.Key) -> None:
        if self.context.handle_key(event) or self._menu_key(event):
            event.stop()
            event.prevent_default()
            return
        if event.key in ("enter", *STEER_KEYS):
            event.stop()
            event.prevent_default()
            # An empty Enter is submitted too: it sends the next prompt of a paused queue.
            submission = self.context.submission()
            if submission.text.strip():
                # Emptied here, as Enter is handled, not when the screen gets `Submitted`: the keys typed
                # behind the Enter are the next message's and are already on their way here.
                self.load_text("")
            self.post_message(self.Submitted(self, submission.text, submission, steer=event.key in STEER_KEYS))
            return
        if event.key == "tab" and self.timeline is not None:
            event.stop()
            event.prevent_default()
            self._tab_away(self.timeline)
            return
        if event.key == "end" and self.timeline is not None and self._at_line_end():
            event.stop()  # nothing left to move over: End jumps to the newest output (the hint says so)
            event.prevent_default()
            self.timeline.follow()
            return
        if event.key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            start, end = self.selection
            self._replace_via_keyboard("\n", start, end)
            return
        if event.key == "up" and self.cursor_location[0] == 0:
            recalled = self.prompt_history.previous(self.text)
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._show(recalled, at_end=False)
                return
        if event.key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            recalled = self.prompt_history.next()
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._show(recalled, at_end=True)
                return
        await super()._on_key(event)

    def action_cursor_page_up(self) -> None:
        """PageUp scrolls the conversation, not the prompt: skipping lets the screen's binding run."""
        raise SkipAction()

    def action_cursor_page_down(self) -> None:
        """PageDown scrolls the conversation (see `action_cursor_page_up`)."""
        raise SkipAction()

    def take_focus(self, key: str | None = None, character: str | None = None) -> None:
        """Focus the prompt and, if given, press `key` there (a key typed on a card, which types `character`).

        The key goes back through the app as a new key press, delivered right after the focus change and
        before the keys typed behind it (the widget that sent it here held them: `hold_keys`), so it is
        handled exactly as if typed in the prompt (Enter sends, Backspace deletes, a menu takes its keys).
        """
        self.focus()
        again = events.Key(key, character) if key is not None and self.focusable else None
        # (a prompt that cannot take the focus would send the key back here)
        if not release_keys(self.app, again) and again is not None:
            self.app.post_message(again)

    def _at_line_end(self) -> bool:
        """Would End not move the cursor (at the end of its line, or of its wrapped row; no selection)?"""
        return self.selection.is_empty and self.get_cursor_line_end_location() == self.cursor_location

    def _tab_away(self, timeline: Conversation) -> None:
        """Tab with no menu or picker open: the newest card, else the next part with something to do
        (a queued prompt), else nowhere. Never the bare timeline, where the focus was not seen and Enter
        did nothing; from the card on, Tab and Shift+Tab walk the screen as usual."""
        target = timeline.newest_entry()
        if target is None:
            chain = self.screen.focus_chain
            at = chain.index(self) if self in chain else -1
            others = [widget for widget in chain[at + 1 :] + chain[:at] if widget is not timeline]
            target = others[0] if others else None
        if target is not None:
            target.focus()

    def _menu_key(self, event: events.Key) -> bool:
        """Route a key to the open command menu; True when the menu used it."""
        menu = self.command_menu
        if menu is None or not menu.is_open:
            return False
        key = event.key
        if key in ("up", "down"):
            menu.move(-1 if key == "up" else 1)
            return True
        if key == "escape":
            menu.dismiss()
            return True
        command = menu.highlighted_command
        if command is None:
            return False
        if key == "tab":
            self.complete_command(command)
            return True
        if key == "enter":
            if self.text == f"/{plain(command.name)}":
                return False  # already complete: Enter sends it
            self.complete_command(command)
            return True
        return False

    def complete_command(self, command: AvailableCommand) -> None:
        """Put `/name ` in the prompt, cursor at the end, ready for the command's arguments."""
        self.load_text(f"/{plain(command.name)} ")
        self.move_cursor(self.document.end)

    @on(TextArea.Changed)
    def _text_changed(self, event: TextArea.Changed) -> None:
        if self.command_menu is not None and event.text_area is self:
            self.command_menu.update_for(self.text)
        if event.text_area is self:
            self.context.prune()
            self.context.sync_picker()

    @on(TextArea.SelectionChanged)
    def _cursor_moved(self, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self:
            self.context.sync_picker()

    async def _on_paste(self, event: events.Paste) -> None:
        """Image paths become mentions and huge pastes a collapsed token; other text is left to
        `TextArea._on_paste`, which Textual calls after this (unless the default is prevented).

        Line ends are LF first: tmux and many terminals paste with CR or CRLF, which would leave a
        120-line paste uncollapsed (its lines are counted by LF) and send the CRs to the agent."""
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if self.read_only:
            return
        if self.context.paste(text):
            event.stop()
            event.prevent_default()
            self.focus()
        elif text != event.text:
            event.text = text  # what `TextArea._on_paste` inserts

    def _build_highlight_map(self) -> None:
        """No syntax highlighting: the only highlights are the chips of mentions and pastes."""
        super()._build_highlight_map()
        context: PromptContext | None = getattr(self, "context", None)  # None while TextArea.__init__ runs
        if context is not None:
            for row, spans in context.highlights().items():
                self._highlights[row].extend(spans)

    def render_lines(self, crop: Region) -> list[Strip]:
        theme = self._theme
        if theme is not None:
            style = self.get_component_rich_style("prompt-input--mention", partial=True)
            if theme.syntax_styles.get(MENTION_HIGHLIGHT) != style:
                theme.syntax_styles = {**theme.syntax_styles, MENTION_HIGHLIGHT: style or Style()}
                self._line_cache.clear()
        return super().render_lines(crop)

    def _show(self, text: str, *, at_end: bool) -> None:
        """Replace the content with a recalled prompt; the cursor goes where the next key expects it."""
        self.load_text(text)
        if at_end:
            self.move_cursor(self.document.end)
        else:
            last_line = self.document.line_count - 1
            self.move_cursor((0, len(self.document.get_line(0))) if last_line == 0 else (0, 0))
