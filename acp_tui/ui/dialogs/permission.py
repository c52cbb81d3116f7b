"""The permission dialog: what the agent wants to do, and one button per option it offers.

A `ModalScreen[PermissionChoice]` built from a decoded `session/request_permission` (always the v2
`RequestPermissionRequest`: the core translates v1 requests). It is docked at the bottom and
leaves the conversation visible above it (and the status bar below it); PageUp/PageDown and ctrl+Up/ctrl+Down still scroll the
conversation underneath.

Slips are guarded twice. Keys and clicks are ignored until the dialog has been on screen for
`arm_delay` seconds (measured from its first refresh after being shown, with the screen's own timer),
so a user typing a prompt when the request arrives cannot approve it with a stray Enter. And every
agent string (title, description, option names, paths, command) is sanitized and shown as plain
text, never markup, so it can neither style itself as a button nor run an action.

Escape picks the agent's reject_once option when there is one; otherwise it dismisses with
`cancel_turn=True` and the app cancels the turn (the request is then answered `cancelled`).

It always names the call it approves: a request that names an announced tool call by its id alone shows
that call as the model knows it (`call`: its title, kind, locations and diff, the permission service's
`PermissionQuestion.call`), and one whose call was never announced says "unknown call" plainly. The
options are the service's bounded ones (`bound_request`): names cut, at most `MAX_OPTIONS`, the rest
counted on a line of their own, never chosen.

A write or edit whose request carries no diff (Claude Code sends none when the file already holds the text)
shows the change its raw input describes against the file on disk, or "no change to PATH", rather than the
raw input as JSON (`services/write_preview.py`); a diff that changes nothing says so too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from msgspec import UNSET
from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Static

from acp_tui.path_text import NO_CONTEXT, ViewContext
from acp_tui.protocol.methods import (
    CommandPermissionSubject,
    PermissionOption,
    RequestPermissionRequest,
    ToolCallPermissionSubject,
    UnknownPermissionSubject,
)
from acp_tui.protocol.v2 import (
    Diff,
    TerminalRef,
    TextContent,
    ToolCallLocation,
    ToolCallUpdate,
    ToolContent,
    UnknownToolContent,
)
from acp_tui.sanitize import escape_controls, multiline, plain
from acp_tui.services.write_preview import WritePreview, empty_diff, planned_write
from acp_tui.sizes import human_size
from acp_tui.ui.dialogs.guarded import ARM_DELAY, GuardedDialog, key_hints
from acp_tui.ui.dialogs.permission_keys import (
    MAX_NUMBERED,
    first_of_kind,
    key_for_option,
    kind_variant,
    option_for_kind_key,
    option_for_number,
)
from acp_tui.ui.timeline.diff_view import DiffView
from acp_tui.ui.widgets.content_blocks import ContentChip, head_lines, more_lines_text, pretty_json
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.icons import GLYPHS, kind_icon

__all__ = ["ARM_DELAY", "PermissionChoice", "PermissionRequest", "PermissionScreen", "request_title"]

#: The dialog is as tall as its content, up to `dialog_rows`: this fraction of a tall screen (the turn it asks
#: about stays readable above it), at least `MIN_DIALOG_ROWS` on a short one (options and some of the diff),
#: never over `MAX_HEIGHT_FRACTION`; the status bar's row below it stays in view.
TALL_FRACTION: Final = 0.4
MIN_DIALOG_ROWS: Final = 15
MAX_HEIGHT_FRACTION: Final = 0.65
#: The body keeps at least this many rows even when many options crowd the dialog.
MIN_BODY_HEIGHT: Final = 3
#: Lines of a text block, raw input or unknown subject shown before "… N more lines".
MAX_BODY_LINES: Final = 200
#: Lines of a diff shown inside the dialog (the tool card in the conversation shows more).
MAX_DIFF_LINES: Final = 300
#: Cells between two options on one row (`#options.-inline` in permission.tcss).
OPTION_GAP: Final = 1
#: Cells an option takes on one row beside its label (a compact button's own edges).
OPTION_WIDTH: Final = 2

#: v1 requests reach the UI translated into the v2 shape (acp_tui.session.v1_adapter)
PermissionRequest = RequestPermissionRequest


@dataclass(frozen=True, slots=True)
class PermissionChoice:
    """The dialog's result: the chosen option, or none (`cancel_turn` says whether to cancel the turn).

    `reason` is set by `close_because` (the agent withdrew the request or exited).
    """

    option_id: str | None
    cancel_turn: bool = False
    reason: str | None = None


def request_title(request: PermissionRequest) -> str:
    """The dialog's title, sanitized (a v1 request's is its tool call's title, set in the core)."""
    return plain(request.title)


def _bounded(text: str, classes: str = "") -> Static:
    """A Static of sanitized multi-line text, cut at `MAX_BODY_LINES` (never markup)."""
    head, more = head_lines(multiline(text).rstrip("\n"), MAX_BODY_LINES)
    body = Text(head)
    if more:
        body.append("\n").append_text(more_lines_text(more))
    return Static(body, classes=classes)


def _location_text(location: ToolCallLocation, context: ViewContext = NO_CONTEXT) -> str:
    """ "↳ path:line" for follow-along (the line only when given; the path relative to the session folder)."""
    line = f":{location.line}" if isinstance(location.line, int) else ""
    return f"↳ {context.path(location.path)}{line}"


def _call_header(tool_call: ToolCallUpdate, dialog_title: str, context: ViewContext = NO_CONTEXT) -> Static:
    """The call's kind icon and title (its kind when the title is the dialog's own)."""
    kind = tool_call.kind if isinstance(tool_call.kind, str) and tool_call.kind else "other"
    header = Text(f"{kind_icon(kind)} ")
    title = context.text(tool_call.title) if isinstance(tool_call.title, str) else ""
    if title and title != dialog_title:
        header.append(title, "bold")
    else:
        header.append(plain(kind), "bold")
    return Static(header, classes="subject-header")


def _tool_call_widgets(tool_call: ToolCallUpdate, dialog_title: str, context: ViewContext = NO_CONTEXT) -> list[Widget]:
    """What a tool call would do: kind and title, content (text, diffs), locations, else raw input.
    Each path shows once (a diff's file is not listed again as a location)."""
    widgets: list[Widget] = [_call_header(tool_call, dialog_title, context)]
    title = context.text(tool_call.title) if isinstance(tool_call.title, str) else ""
    contents = tool_call.content if isinstance(tool_call.content, list) else []
    locations = tool_call.locations if isinstance(tool_call.locations, list) else []
    diff_paths = {change.path for item in contents if isinstance(item, Diff) for change in item.changes}
    for item in contents:
        if isinstance(item, ToolContent):
            if isinstance(item.content, TextContent):
                widgets.append(_bounded(item.content.text, "subject-text"))
            else:
                widgets.append(ContentChip(item.content))
        elif isinstance(item, Diff) and empty_diff(item):
            widgets.extend(_no_change(change.path, context) for change in item.changes)
        elif isinstance(item, Diff):
            named = [c.path for c in item.changes if context.path(c.path) in f"{title} {dialog_title}"]
            widgets.append(
                DiffView(
                    item,
                    max_lines=MAX_DIFF_LINES,
                    context=context,
                    hide_path=named[0] if len(item.changes) == 1 and named else None,
                )
            )
        elif isinstance(item, TerminalRef):
            widgets.append(Static(Text(f"terminal {plain(item.terminal_id)}"), classes="subject-note"))
        elif isinstance(item, UnknownToolContent):
            widgets.append(Static(Text(f"[unsupported content: {plain(item.type)}]"), classes="subject-note"))
    listed = [loc for loc in locations if loc.path not in diff_paths or isinstance(loc.line, int)]
    if listed:
        widgets.append(
            Static(Text("\n".join(_location_text(loc, context) for loc in listed)), classes="subject-locations")
        )
    if not contents and tool_call.raw_input not in (UNSET, None):
        preview = planned_write(tool_call.raw_input, context.cwd)
        if preview is None:
            widgets.append(_bounded(pretty_json(tool_call.raw_input), "subject-raw"))
        else:
            widgets.append(_preview_widget(preview, f"{title} {dialog_title}", context))
    return widgets


def _no_change(path: str, context: ViewContext) -> Static:
    """A write of the text the file already holds (Claude Code's second identical Write)."""
    return Static(Text(f"no change to {context.path(path)}: it already holds this text"), classes="subject-same")


def _preview_widget(preview: WritePreview, titles: str, context: ViewContext) -> Widget:
    """The change a write or edit's raw input describes, against the file on disk (services/write_preview.py),
    in place of that raw input as JSON."""
    if preview.unchanged:
        return _no_change(preview.path, context)
    if preview.diff is not None:
        shown = context.path(preview.path)
        return DiffView(
            preview.diff, max_lines=MAX_DIFF_LINES, context=context, hide_path=preview.path if shown in titles else None
        )
    what = f"{context.path(preview.path)}: {human_size(preview.size)} of new text, not compared ({preview.note})"
    return Static(Text(what), classes="subject-note")


def _unknown_call(call_id: str) -> Static:
    """The request names a tool call that was never announced, and says nothing of what it does."""
    text = Text(f"{GLYPHS['attention']} unknown call: ", style="bold")
    text.append(f"the agent names tool call {escape_controls(call_id)[:200]!r}, which it never announced;")
    text.append(" this dialog cannot show what it would do.")
    return Static(text, classes="subject-unknown")


def _subject_widgets(
    request: PermissionRequest,
    dialog_title: str,
    context: ViewContext = NO_CONTEXT,
    call: ToolCallUpdate | None = None,
    unknown_call: str | None = None,
) -> list[Widget]:
    """The dialog body: description, then what the request is about (`call`: the announced call it names,
    as the model knows it; `unknown_call`: the id it names that was never announced)."""
    widgets: list[Widget] = []
    if isinstance(request.description, str) and request.description.strip():
        widgets.append(_bounded(request.description, "description"))
    subject = request.subject
    if unknown_call is not None:
        widgets.append(_unknown_call(unknown_call))
    if isinstance(subject, ToolCallPermissionSubject):
        if unknown_call is None:
            widgets.extend(_tool_call_widgets(call if call is not None else subject.tool_call, dialog_title, context))
    elif isinstance(subject, CommandPermissionSubject):
        if call is not None:
            widgets.append(_call_header(call, dialog_title, context))
        command = Text("$ ", "bold")
        # What runs is shown: its lines as lines, any other control character written out (`\x1b`, `\t`).
        lines = subject.command.split("\n")
        command.append("\n".join(plain(escape_controls(line)) for line in lines[:MAX_BODY_LINES]))
        if len(lines) > MAX_BODY_LINES:
            command.append("\n").append_text(more_lines_text(len(lines) - MAX_BODY_LINES))
        widgets.append(Static(command, classes="subject-command"))
        where = context.path(subject.cwd)
        widgets.append(Static(Text("in the session folder" if where == "." else f"in {where}"), classes="subject-note"))
    elif isinstance(subject, UnknownPermissionSubject):
        widgets.append(
            Static(
                Text(f"The agent asks permission for something this client does not know ({plain(subject.type)})."),
                classes="subject-note",
            )
        )
        widgets.append(_bounded(pretty_json(subject.raw), "subject-raw"))
    return widgets


def _option_label(options: list[PermissionOption], index: int) -> Content:
    """A button label: number key, the agent's own name (plain text), letter key when it has one."""
    number = f"{index + 1} " if index < MAX_NUMBERED else "  "
    key = key_for_option(options, index)
    parts: list[str | tuple[str, str]] = [(number, "bold"), plain(options[index].name) or "(unnamed)"]
    if key is not None:
        parts.append((f"  {key}", "italic"))
    return Content.assemble(*parts)


class OptionButton(Button):
    """A button for one permission option; keeps the option it stands for."""

    def __init__(self, option: PermissionOption, label: Content, index: int) -> None:
        super().__init__(label, variant=kind_variant(option.kind), compact=True, disabled=True)
        self.option = option
        self.index = index


def dialog_rows(height: int) -> int:
    """The most rows the dialog takes on a screen `height` rows tall (its last row is the status bar's)."""
    room = height - 1
    return max(1, min(int(room * MAX_HEIGHT_FRACTION), max(MIN_DIALOG_ROWS, int(room * TALL_FRACTION))))


class PermissionScreen(GuardedDialog[PermissionChoice]):
    """Ask the user to choose one of the agent's permission options (see the module docstring)."""

    CSS_PATH = "permission.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"choose_kind('{key}')", show=False) for key in ("a", "A", "r", "R")),
        *(Binding(str(n), f"choose_number({n})", show=False) for n in range(1, MAX_NUMBERED + 1)),
        Binding("escape", "escape", "Reject / cancel", show=False),
        Binding("up,left,shift+tab", "move(-1)", show=False),
        Binding("down,right,tab", "move(1)", show=False),
        Binding("pageup", "scroll_conversation('page_up')", show=False),
        Binding("pagedown", "scroll_conversation('page_down')", show=False),
        Binding("ctrl+up", "scroll_conversation('up')", show=False),
        Binding("ctrl+down", "scroll_conversation('down')", show=False),
        Binding("shift+up", "scroll_body(-1)", show=False),
        Binding("shift+down", "scroll_body(1)", show=False),
    ]

    def __init__(
        self,
        request: PermissionRequest,
        *,
        arm_delay: float = ARM_DELAY,
        position: int | None = None,
        total: int | None = None,
        subagent: str | None = None,
        call: ToolCallUpdate | None = None,
        unknown_call: str | None = None,
        more_options: int = 0,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(arm_delay=arm_delay, name=name, id=id)
        self.request = request
        #: the subagent that asks (its name as the agent labelled it); None: the agent itself
        self.subagent = subagent
        #: the announced tool call the request names, as the model knows it (`PermissionQuestion.call`)
        self.call = call
        #: the id it names that was never announced (said plainly in the body)
        self.unknown_call = unknown_call
        #: options the agent offered beyond those shown (the service's `bound_request`): counted only
        self.more_options = more_options
        self.options: list[PermissionOption] = list(request.options)
        self._position = position
        self._total = total
        self._title = request_title(request)
        self._buttons = [
            OptionButton(option, _option_label(self.options, index), index) for index, option in enumerate(self.options)
        ]
        self._dialog = Vertical(id="dialog")
        self._title_widget = Static(self._title_text(), id="title")
        self._body = VerticalScroll(id="body", can_focus=False)
        self._options = Vertical(id="options")

    def _title_text(self) -> Text:
        """The request's title; a subagent's request names the subagent first (agent text: plain, never markup)."""
        if self.subagent is None:
            return Text(self._title)
        text = Text(f"{GLYPHS['subagent']} subagent ", style="dim")
        text.append(plain(self.subagent)[:120], style="bold")
        text.append("\n")
        text.append(self._title)
        return text

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with self._dialog:
            yield self._title_widget
            with self._body:
                yield from _subject_widgets(
                    self.request, self._title, self._view_context(), self.call, self.unknown_call
                )
            with self._options:
                yield from self._buttons
            if self.more_options:
                more = self.more_options
                yield Static(
                    Text(f"… {more:,} more option{'s' if more != 1 else ''} not shown (the agent offered too many)"),
                    id="more-options",
                )
            yield self._hint

    def _view_context(self) -> ViewContext:
        """The session folder of the conversation under the dialog (paths show relative to it)."""
        below = self._underlying_scrollable()
        return below.context if isinstance(below, Conversation) else NO_CONTEXT

    def on_mount(self) -> None:
        self._update_border_title()
        self._arrange_options(self.app.size.width)
        self.call_after_refresh(self._fit_body)

    def on_resize(self, event: events.Resize) -> None:
        self._arrange_options(event.size.width)
        self.call_after_refresh(self._fit_body)

    def _arrange_options(self, width: int) -> None:
        """The options on one row when they all fit (the body keeps the rows), else one per row."""
        needed = sum(cell_len(str(button.label)) + OPTION_WIDTH + OPTION_GAP for button in self._buttons)
        room = width - 4  # the dialog's border and padding
        self._options.set_class(bool(self._buttons) and needed <= room, "-inline")

    def _fit_body(self) -> None:
        """Cap the dialog at `dialog_rows` and its scrolling body so title, options and hints always fit.

        The dialog is as tall as its content up to that; CSS alone cannot say "the body takes what is
        left, but no more than it needs", nor "40% of a tall screen but 15 rows of a short one", so the
        caps are set here.
        """
        chrome = self._dialog.styles.gutter.height
        for widget in (self._title_widget, self._options, *self.query("#more-options"), self._hint):
            chrome += widget.outer_size.height
        # many options: the dialog grows for its own controls (up to the status bar), the body keeps a few rows
        cap = min(max(dialog_rows(self.size.height), chrome + MIN_BODY_HEIGHT), max(1, self.size.height - 1))
        self._dialog.styles.max_height = cap
        self._body.styles.max_height = max(MIN_BODY_HEIGHT, cap - chrome)

    def _update_border_title(self) -> None:
        title = "Permission"
        if self._position is not None and self._total is not None and self._total > 1:
            title += f" · request {self._position} of {self._total}"
        self._dialog.border_title = title

    def set_queue(self, position: int, total: int) -> None:
        """Show "request `position` of `total`" (the app keeps the queue)."""
        self._position = position
        self._total = total
        self._update_border_title()

    @property
    def queue_label(self) -> str:
        """The border title as shown (for the app and tests)."""
        return str(self._dialog.border_title or "")

    # -- the typing guard (guarded.py) -----------------------------------------------------

    def _controls(self) -> list[Widget]:
        # No option is focused on arrival, so a stray Enter decides nothing; arrows pick one first.
        return list(self._buttons)

    def _armed_hints(self) -> Text:
        # The number and letter keys are on the options themselves (`1 Allow once  a`): said once, there.
        escape = "reject" if first_of_kind(self.options, "reject_once") is not None else "cancel turn"
        return key_hints([("↑↓ ⏎", "choose"), ("esc", escape), ("PgUp/PgDn", "scroll chat")])

    # -- choosing ----------------------------------------------------------------------------

    def _choose(self, option: PermissionOption | None) -> None:
        if option is not None and self._armed:
            self._finish(PermissionChoice(option_id=option.option_id))

    def action_choose_kind(self, key: str) -> None:
        """a / A / r / R: the first option of that kind."""
        self._choose(option_for_kind_key(self.options, key))

    def action_choose_number(self, number: int) -> None:
        """1-9: the option at that position."""
        self._choose(option_for_number(self.options, number))

    def action_escape(self) -> None:
        """The agent's reject_once option, else cancel the turn."""
        if not self._armed:
            return
        reject = first_of_kind(self.options, "reject_once")
        if reject is not None:
            self._choose(reject)
        else:
            self._finish(PermissionChoice(option_id=None, cancel_turn=True))

    def action_move(self, step: int) -> None:
        """Move focus to the previous / next option button (wrapping)."""
        if not self._armed or not self._buttons:
            return
        focused = self.focused
        # With nothing focused yet, Down starts at the first option and Up at the last.
        index = self._buttons.index(focused) if isinstance(focused, OptionButton) else (-1 if step > 0 else 0)
        self._buttons[(index + step) % len(self._buttons)].focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if isinstance(event.button, OptionButton):
            self._choose(event.button.option)

    def close_because(self, reason: str) -> None:
        """Close without an answer (the agent withdrew the request or exited); `reason` is for the app."""
        self._finish(PermissionChoice(option_id=None, cancel_turn=False, reason=reason))

    # -- scrolling ---------------------------------------------------------------------------

    def _underlying_scrollable(self) -> Widget | None:
        """The conversation (or first vertical scroller) of the screen below this dialog."""
        stack = self.app.screen_stack
        if self not in stack:
            return None
        index = stack.index(self)
        if index == 0:
            return None
        below = stack[index - 1]
        for kind in (Conversation, VerticalScroll):
            found = below.query(kind)
            if found:
                return found.first()
        return None

    def action_scroll_conversation(self, how: str) -> None:
        """Scroll the conversation under the dialog (works while arming too: it decides nothing)."""
        target = self._underlying_scrollable()
        if target is None:
            return
        if how == "page_up":
            target.scroll_page_up()
        elif how == "page_down":
            target.scroll_page_down()
        elif how == "up":
            target.scroll_up()
        elif how == "down":
            target.scroll_down()

    def action_scroll_body(self, step: int) -> None:
        """Scroll the dialog's own content by a line."""
        if step < 0:
            self._body.scroll_up()
        else:
            self._body.scroll_down()
