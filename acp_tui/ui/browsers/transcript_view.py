"""Reading a transcript in the app, and saving a conversation as Markdown.

`TranscriptScreen` shows a past session from our own transcript (read-only), also when the agent cannot
list or load it; `e` saves it as Markdown, `o` asks to open the session with the agent when it can.
`ExportScreen` asks where to save a Markdown rendering (prefilled, editable; an existing file is
overwritten only on a second Enter). The Markdown is `acp_tui.transcript.render_markdown`: a chat log,
not the event records.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar, Literal

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Markdown, Static, TextArea

from acp_tui.path_text import display_path
from acp_tui.paths import saves_dir
from acp_tui.sanitize import plain
from acp_tui.transcript import render_markdown

#: Larger renderings are shown as plain text (the Markdown widget builds one widget per block).
MARKDOWN_LIMIT = 200_000

TranscriptAction = Literal["open"]


def save_markdown(markdown: str, target: Path) -> Path:
    """Write `markdown` to `target` (a new file private to the user, or replacing one); returns the path."""
    target = target.expanduser()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(markdown)
    return target


class ExportScreen(ModalScreen[Path | None]):
    """Where to save the Markdown: Enter saves (twice over an existing file), Escape cancels."""

    CSS_PATH = "transcript_view.tcss"
    AUTO_FOCUS = "#export-path"  # (an Escape typed at once may close it before a mount handler runs)
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, markdown: str, suggested: Path) -> None:
        super().__init__()
        self.markdown = markdown
        self.suggested = suggested
        self._confirm: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog") as box:
            box.border_title = "Save as Markdown"
            yield Static("File (⏎ saves, Esc cancels):", classes="export-label")
            yield Input(str(self.suggested), id="export-path", compact=True)
            yield Static("", id="export-message")

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        message = self.query_one("#export-message", Static)
        if not raw:
            message.update("a file name is needed")
            return
        target = Path(raw).expanduser()
        if not target.is_absolute():
            target = self.suggested.parent / target
        if target.exists() and self._confirm != target:
            self._confirm = target
            message.update(f"{display_path(str(target))} exists; ⏎ again replaces it")
            return
        try:
            saved = save_markdown(self.markdown, target)
        except OSError as exc:
            message.update(f"could not save: {plain(exc.strerror or str(exc))}")
            return
        self.dismiss(saved)

    @on(Input.Changed, "#export-path")
    def _changed(self) -> None:
        self._confirm = None
        self.query_one("#export-message", Static).update("")

    def action_cancel(self) -> None:
        self.dismiss(None)


class TranscriptScreen(ModalScreen[TranscriptAction | None]):
    """A past session from our transcript, read-only: Esc closes, `e` saves it, `o` opens it with the agent."""

    CSS_PATH = "transcript_view.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("e", "export", "Save as Markdown"),
        Binding("o", "open", "Open with the agent"),
    ]

    def __init__(self, path: Path, title: str | None = None, *, can_open: bool = False) -> None:
        super().__init__()
        self.path = path
        self.heading = plain(title) if title else path.name
        self.can_open = can_open
        self.markdown: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="transcript-dialog") as box:
            box.border_title = self.heading
            hints = "Esc closes · e saves as Markdown" + (" · o opens it with the agent" if self.can_open else "")
            yield Static(hints, id="transcript-hints")
            yield Static("reading the transcript…", id="transcript-loading")

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True)
    def _load(self) -> None:
        try:
            markdown = render_markdown(self.path)
        except OSError as exc:
            markdown = f"The transcript could not be read: {plain(exc.strerror or str(exc))}"
        self.app.call_from_thread(self._show, markdown)

    def _show(self, markdown: str) -> None:
        self.markdown = markdown
        box = self.query_one("#transcript-dialog", Vertical)
        self.query_one("#transcript-loading", Static).remove()
        body: VerticalScroll | TextArea
        if len(markdown) <= MARKDOWN_LIMIT:
            body = VerticalScroll(Markdown(markdown, open_links=False), id="transcript-body")
        else:
            body = TextArea(markdown, id="transcript-body", read_only=True, soft_wrap=True)
        box.mount(body)
        body.focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_open(self) -> None:
        if self.can_open:
            self.dismiss("open")
        else:
            self.app.notify("the agent cannot open this session; its transcript is all there is", markup=False)

    def action_export(self) -> None:
        if self.markdown is None:
            return
        suggested = saves_dir() / f"{self.path.stem}.md"  # as the chat's export: never the session's folder

        def saved(path: Path | None) -> None:
            if path is not None:
                self.app.notify(f"saved to {display_path(str(path))}", title="transcript", markup=False)

        self.app.push_screen(ExportScreen(self.markdown, suggested), saved)


__all__ = ["ExportScreen", "MARKDOWN_LIMIT", "TranscriptScreen", "save_markdown"]
