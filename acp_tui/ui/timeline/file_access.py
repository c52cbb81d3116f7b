"""A file the client read or wrote for the agent (v1 `fs/*`, docs/protocol.md §10.2): one line, and a
write's diff.

The line is the client's voice: what was done, to which file (relative to the session folder when
inside it, else with `~` for the home directory), and how it ended — `read src/app.py (lines 10–60)`,
`created notes/hello.txt (+1)`, `write refused: ~/.bashrc — …`; a file outside the session folder is
marked `⚠ … — outside the session folder`. A completed write shows its change as
a diff with `DiffView` (open by default; Enter or a click folds it). Paths and error texts come from
the agent's request and are sanitized; nothing is markup.

`FileAccessView` stands alone in the timeline; `FileAccessList` is the block a tool card shows for the
accesses that belong to it (`ToolCall.files`).
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget

from acp_tui.path_text import ViewContext
from acp_tui.protocol.v2 import Diff
from acp_tui.sanitize import escape_controls, plain
from acp_tui.session.model import FileAccess, read_range_text
from acp_tui.ui.timeline.diff_view import DiffView
from acp_tui.ui.widgets.content_blocks import TextStatic
from acp_tui.ui.widgets.icons import GLYPHS

__all__ = ["FileAccessView", "FileAccessList", "access_path", "access_line", "access_diff", "access_text"]

_ICONS: Final = {"read": "▤", "write": "✎"}
_STATUS_ICONS: Final = {"refused": "⊘", "failed": "✗", "cancelled": "⊘"}


#: What an access outside the session folder says (a refusal's detail may say it already).
OUTSIDE: Final = "outside the session folder"


def access_path(access: FileAccess) -> str:
    """The path as the user reads it: relative to the session folder when inside it, else `~/…` or
    absolute; control characters shown as escapes (`\\x1b`, `\\n`), never dropped."""
    return ViewContext(escape_controls(access.cwd)).path(escape_controls(access.path))


def outside_note(access: FileAccess) -> str:
    """For a file outside the folder: says so, and names what the agent asked for when that differs
    (a link or `..` led there); empty inside."""
    if not access.outside:
        return ""
    note = "" if access.detail.startswith(OUTSIDE) else OUTSIDE
    if access.requested_path and access.requested_path != access.path:
        asked = ViewContext(escape_controls(access.cwd)).path(escape_controls(access.requested_path))
        note += f"{' ' if note else ''}(asked for {asked})"
    return note


def access_diff(access: FileAccess) -> Diff | None:
    """The change a completed write made (None when there is none to show: binary, too large, unchanged)."""
    if access.kind != "write" or access.status != "done":
        return None
    if not access.created and not access.added and not access.removed:
        return None
    return access.diff


def access_line(access: FileAccess) -> Text:
    """The one line for an access: icon, verb, path, then the range, the change or why it failed."""
    status = access.status
    icon = _STATUS_ICONS.get(status) or (GLYPHS["attention"] if access.outside else _ICONS.get(access.kind, "•"))
    text = Text(icon + " ", style="bold")
    verb = "read" if access.kind == "read" else ("created" if access.created else "wrote")
    if status != "done":
        verb = f"{access.kind} {plain(status)}"
    text.append(verb, style="bold" if status == "done" else "bold italic")
    text.append(" ")
    text.append(access_path(access))
    if status == "done":
        if access.kind == "read":
            text.append(read_range_text(access.first_line, access.line_count), style="dim")
        elif access.diff is not None and (access.added or access.removed):
            removed = f" −{access.removed}" if access.removed or not access.created else ""
            text.append(f" (+{access.added}{removed})", style="dim")
    note = outside_note(access)
    if note:
        text.append(" — ")
        text.append(plain(note), style="bold")
    if access.detail:
        text.append("; " if note else " — ", style="dim")
        text.append(plain(access.detail), style="dim")
    return text


def access_text(access: FileAccess) -> str:
    """An access as plain text: its line, then a write's whole diff (for saving)."""
    text = access_line(access).plain
    diff = access_diff(access)
    return text if diff is None else f"{text}\n{DiffView(diff).full_text()}"


class FileAccessView(Vertical, can_focus=True):
    """One file access in the timeline: its line, and below it a write's diff (see the module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Show or hide the change", show=False)]

    DEFAULT_CSS = """
    FileAccessView { height: auto; width: 1fr; padding: 0 1; }
    FileAccessView > .file-access--line { color: $text-muted; }
    FileAccessView:focus { outline-left: thick $primary; }
    FileAccessView:focus > .file-access--line { color: $text; }
    FileAccessView.-problem > .file-access--line { color: $warning; }
    FileAccessView > DiffView { margin-left: 2; display: none; }
    FileAccessView.-expanded > DiffView { display: block; }
    """

    def __init__(self, access: FileAccess, *, show_diff: bool = True) -> None:
        super().__init__(classes="-expanded")
        self.access = access
        item = access_diff(access) if show_diff else None
        # The line names the file: the diff starts with its rows.
        self.diff: DiffView | None = (
            DiffView(item, context=ViewContext(access.cwd), hide_path=access.path, said=True)
            if item is not None
            else None
        )
        self._text = access_line(access)
        self._line = TextStatic(self._text, classes="file-access--line")
        self.set_class(access.status != "done" or access.outside, "-problem")

    def compose(self) -> ComposeResult:
        yield self._line
        if self.diff is not None:
            yield self.diff

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def line_text(self) -> str:
        """The line as shown (for tests and copying)."""
        return self._text.plain

    def full_text(self) -> str:
        """The line and the whole diff, as plain text (for saving)."""
        return access_text(self.access)

    def action_toggle_open(self) -> None:
        if self.diff is not None:
            self.toggle_class("-expanded")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_open()


class FileAccessList(Vertical):
    """The files a tool call touched, in order, inside its card. A write's diff is shown only when the
    card has no diff of its own for that file (agents usually send one)."""

    DEFAULT_CSS = """
    FileAccessList { height: auto; width: 1fr; }
    FileAccessList > FileAccessView { padding: 0; }
    """

    def __init__(self, accesses: list[FileAccess], diff_paths: set[str], *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._diff_paths = diff_paths
        self._pending = [self._view(access) for access in accesses]
        self._shown = len(accesses)

    def _view(self, access: FileAccess) -> FileAccessView:
        covered = access.path in self._diff_paths or access.requested_path in self._diff_paths
        return FileAccessView(access, show_diff=not covered)

    def compose(self) -> ComposeResult:
        yield from self._pending
        self._pending = []

    def sync(self, accesses: list[FileAccess], diff_paths: set[str]) -> None:
        """Show the accesses not shown yet (the list only grows)."""
        self._diff_paths = diff_paths
        new = [self._view(access) for access in accesses[self._shown :]]
        self._shown = len(accesses)
        if not new:
            return
        if self.is_mounted:
            self.mount(*new)
        else:
            self._pending.extend(new)

    def full_text(self) -> str:
        return "\n".join(view.full_text() for view in self.query(FileAccessView))

    @property
    def views(self) -> list[Widget]:
        return list(self.query(FileAccessView))
