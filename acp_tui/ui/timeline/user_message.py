"""The user's message: its text in a bubble, non-text blocks as chips, and the submission state.

Built from a model `Message` (an inserted or echoed user message) or from the blocks of a prompt
submission that the agent has not inserted yet. Attached files, links, images and audio show as chips
with their names and sizes, never their bytes, whether sent now or replayed; the `@` mentions in the
text that name an attachment are drawn as chips too. While not inserted it looks "pending" (greyed); a
rejected prompt shows its error, a cancelled one "not sent (cancelled)". The text is plain
(sanitized with `multiline`), never markdown or markup: it is what the user typed or the agent echoed.
A prompt steered into a running turn (`Message.steered`) is drawn inside that turn and says so.
A prompt sent again after a login (`resend_of`) repeats a bubble already shown: it is not drawn while it
goes out or once sent (the conversation says "sending your prompt again"), only if it fails.
A long message (a sent paste) is folded to its first `FOLD_HEAD` lines and "… N more lines (Enter)":
the bubble then takes the focus, and Enter or a click opens it (up to `OPEN_LINES` lines) and folds it
again; trailing blank lines are never drawn as empty rows.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal
from urllib.parse import unquote, urlsplit

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import HorizontalGroup, Vertical
from textual.content import Content

from acp_tui.context.blocks import describe_block
from acp_tui.context.mentions import find_tokens
from acp_tui.protocol.v2 import ContentBlock, TextContent
from acp_tui.sanitize import multiline, plain
from acp_tui.session.model import Message, Submission
from acp_tui.ui.widgets.content_blocks import TextStatic, attachment_widget, head_lines, more_lines_text, to_content

__all__ = ["UserMessageView", "DeliveryState"]

#: The line under a prompt steered into a running turn (agent/steering.py).
STEERED_TEXT = "↪ steered into the running turn"

#: How far the message got: shown normally once "sent" (inserted by the agent).
DeliveryState = Literal["sent", "pending", "failed", "cancelled", "unknown"]

#: A message of more lines than this is folded (a short multi-line prompt is shown whole).
FOLD_ABOVE: Final = 12
#: Lines of a folded message shown above "… N more lines (Enter)".
FOLD_HEAD: Final = 6
#: Lines an opened message shows before "… N more lines" (the transcript and export keep them all).
OPEN_LINES: Final = 2000


class UserMessageView(Vertical, can_focus=False):
    """A user message bubble; update it with the methods below, never by recomposing."""

    DEFAULT_CSS = """
    UserMessageView {
        height: auto;
        width: 1fr;
        margin: 1 0;  /* a turn starts here: the one rhythm break that always shows */
        background: $user-message-background;
        border-left: outer $primary;
        padding: 0 1;
    }
    UserMessageView > .user--text { width: 1fr; height: auto; }
    UserMessageView > .user--chips { height: auto; width: 1fr; }
    UserMessageView > .user--chips > * { margin-right: 1; }
    UserMessageView > .user--status { display: none; color: $text-muted; text-style: italic; }
    UserMessageView.-pending { opacity: 70%; border-left: outer $panel; }
    UserMessageView.-pending > .user--status { display: block; }
    UserMessageView.-failed { border-left: outer $error; }
    UserMessageView.-failed > .user--status { display: block; color: $error; }
    UserMessageView.-cancelled { opacity: 70%; border-left: outer $panel; }
    UserMessageView.-cancelled > .user--status { display: block; }
    UserMessageView.-unknown > .user--status { display: block; color: $warning; }
    UserMessageView.-steered { margin: 0 0 1 2; border-left: outer $accent; }
    UserMessageView.-steered > .user--status { display: block; }
    UserMessageView:focus { background: $boost; outline-left: thick $primary; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Open or fold", show=False)]

    _STATES: ClassVar[tuple[str, ...]] = ("-pending", "-failed", "-cancelled", "-unknown")

    def __init__(self, message: Message | None = None, *, blocks: list[ContentBlock] | None = None) -> None:
        """Show `message` (from the model) or, for a submission not inserted yet, `blocks`."""
        super().__init__()
        self.message = message
        self._blocks: list[ContentBlock] = list(blocks or [])
        self._text = TextStatic(classes="user--text")
        self._chips = HorizontalGroup(classes="user--chips")
        self._status = TextStatic(classes="user--status")
        self._parts: list[str] = []
        #: what the attachments are called (names, file paths), to draw the mentions naming them as chips
        self._attached: list[str] = []
        self._initial_chips: list[Any] = []
        self.state: DeliveryState = "sent"
        #: the user message this one repeats (sent again after a login), if any
        self.resend_of: str | None = message.resend_of if message is not None else None
        self._status_plain = ""
        #: a long message is shown whole (opened with Enter or a click)
        self.opened = False
        self._load(self._source_blocks())
        if message is None:
            self.set_pending()
        elif message.steered:
            self._status_plain = STEERED_TEXT  # a prompt steered into the running turn: shown inside it
            self._status.update(Text(STEERED_TEXT))
            self.add_class("-steered")
        self._fit()

    @classmethod
    def from_submission(cls, submission: Submission) -> UserMessageView:
        """A bubble for a prompt submission, in its current state."""
        view = cls(blocks=submission.blocks)
        view.apply_submission(submission)
        return view

    def compose(self) -> ComposeResult:
        yield self._text
        with self._chips:
            yield from self._initial_chips
        yield self._status
        self._initial_chips = []

    # -- content -----------------------------------------------------------------------------

    def _source_blocks(self) -> list[ContentBlock]:
        return list(self.message.content.blocks) if self.message is not None else self._blocks

    def _load(self, blocks: list[ContentBlock]) -> None:
        self._parts = []
        self._attached = []
        chips = []
        for block in blocks:
            if isinstance(block, TextContent):
                self._parts.append(multiline(block.text))
            else:
                self._remember(block)
                chips.append(attachment_widget(block))
        self._render_text()
        self._chips.display = bool(chips)
        if self._chips.is_mounted:
            self._chips.remove_children()
            if chips:
                self._chips.mount(*chips)
        else:
            self._initial_chips = chips

    def _render_text(self) -> None:
        text = "".join(self._parts).rstrip("\n")  # a paste's last newline is not an empty row
        head, more = head_lines(text, OPEN_LINES if self.opened else FOLD_ABOVE)
        if more and not self.opened:
            head, more = head_lines(text, FOLD_HEAD)
        self.can_focus = self.opened or more > 0
        shown = self._with_mentions(head) if self._attached and "@" in head else Content(head)
        if more:
            hint = more_lines_text(more, "" if self.opened else " (Enter)")
            shown = Content.assemble(shown, "\n", to_content(hint))
        self._text.update(shown)
        self._text.display = bool(text)

    @property
    def folded(self) -> bool:
        """Is part of the message left out ("… N more lines (Enter)" shown)?"""
        return self.can_focus and not self.opened

    def action_toggle_open(self) -> None:
        """Show the whole message, or fold it again (a message short enough is never folded)."""
        if self.can_focus:
            self.opened = not self.opened
            self._render_text()

    def on_click(self, event: events.Click) -> None:
        if self.can_focus:
            event.stop()
            self.action_toggle_open()

    def _remember(self, block: ContentBlock) -> None:
        attachment = describe_block(block)
        if attachment is not None:
            self._attached.append(attachment.name)
            if attachment.uri is not None and attachment.uri.startswith("file://"):
                self._attached.append(unquote(urlsplit(attachment.uri).path))

    def _names_attachment(self, path: str) -> bool:
        tail = "/" + path.lstrip("./")
        return any(name == path or name.endswith(tail) for name in self._attached)

    def _with_mentions(self, text: str) -> Content:
        """The text with each `@` mention that names an attachment styled as a chip (theme variables)."""
        content = Content(text)
        for start, end, path in find_tokens(text):
            if self._names_attachment(path):
                content = content.stylize("bold $text-accent on $accent-muted", start, end)
        return content

    @property
    def text(self) -> str:
        """The (sanitized) message text shown."""
        return "".join(self._parts)

    def append_text(self, text: str) -> None:
        """A text chunk arrived (a `TextAppended`)."""
        self._parts.append(multiline(text))
        self._render_text()

    def append_content(self, block: ContentBlock) -> None:
        """A non-text block arrived (a `ContentAppended`)."""
        if isinstance(block, TextContent):
            self.append_text(block.text)
            return
        self._remember(block)
        self._render_text()
        chip = attachment_widget(block)
        self._chips.display = True
        if self._chips.is_mounted:
            self._chips.mount(chip)
        else:
            self._initial_chips.append(chip)

    def replace_content(self, message: Message | None = None) -> None:
        """Re-render from the model (a `ContentReplaced`, or the agent replacing a local echo)."""
        if message is not None:
            self.message = message
            self._set_resend(message.resend_of)
        self._load(self._source_blocks())

    def apply_fields(self, fields: frozenset[str]) -> None:
        """A field of the message changed: only `resend_of` changes how it looks."""
        if "resend_of" in fields and self.message is not None:
            self._set_resend(self.message.resend_of)

    def _set_resend(self, resend_of: str | None) -> None:
        self.resend_of = resend_of
        self._fit()

    def _fit(self) -> None:
        """A repeat of a bubble already shown is drawn only when it did not get through."""
        self.display = self.resend_of is None or self.state not in ("sent", "pending")

    # -- delivery state ----------------------------------------------------------------------

    def _set_state(self, state: DeliveryState, status: str) -> None:
        self.state = state
        self.remove_class(*self._STATES)
        if state != "sent":
            self.add_class(f"-{state}")
        self._status_plain = status
        self._status.update(Text(status))
        self._fit()

    def set_pending(self) -> None:
        """Submitted, not yet inserted by the agent."""
        self._set_state("pending", "sending…")

    def set_failed(self, error: str) -> None:
        """The agent rejected the prompt; `error` is its message (agent text, sanitized here)."""
        self._set_state("failed", f"not sent: {plain(error)}")

    def set_cancelled(self) -> None:
        """The prompt was cancelled before the agent took it."""
        self._set_state("cancelled", "not sent (cancelled)")

    def set_unknown(self) -> None:
        """The agent went away before answering: we do not know whether it got the prompt."""
        self._set_state("unknown", "delivery unknown (the agent stopped)")

    def set_sent(self) -> None:
        """Inserted by the agent: the normal look."""
        self._set_state("sent", "")

    def apply_submission(self, submission: Submission) -> None:
        """Show the state of a submission from `state.submissions`."""
        self.resend_of = submission.resend_of
        if submission.status == "pending":
            self.set_pending()
        elif submission.status == "failed":
            error = submission.error.message if submission.error is not None else "error"
            self.set_failed(error)
        elif submission.status == "cancelled":
            self.set_cancelled()
        else:
            self.set_unknown()

    @property
    def status_text(self) -> str:
        """The status line shown under the text ("" once sent)."""
        return self._status_plain
