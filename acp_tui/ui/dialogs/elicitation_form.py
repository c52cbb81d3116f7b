"""The elicitation form dialog: the agent's question as one field per property of its schema.

A `ModalScreen[FormOutcome]` over a `FormQuestion` (docs/protocol.md §10.1): the message, then each
field with its label, description, control, constraint hint and inline error, in the schema's order.
Text and numbers are inputs, booleans checkboxes, single choices a select, multiple choices a
selection list; defaults are filled in. Everything the agent wrote arrives sanitised in the model
and is shown as plain text (`rich.text.Text`), never markup.

Keyboard first: Tab / Shift+Tab move between fields; Enter in a text field or on a checkbox moves on
(and submits from the last field), while on a select it opens the choices and in a multi-select Space
ticks; Ctrl+S submits from anywhere, Ctrl+N declines, Escape cancels. A field is checked when the
user leaves it and again as they type after that; Submit checks every field and, if any is wrong,
focuses the first one instead of sending. The dialog scrolls, so a 200-field form works.

The same typing guard as the permission dialog: nothing is focused on arrival and nothing counts
until the dialog has been on screen for `arm_delay` seconds with no key pressed, so a user still
typing a prompt cannot fill in or submit the form by accident. Once armed, the first field has the
keys; keys typed while arming were dropped, and the hint line says how many (until the user types
or moves on), so nobody types on believing the first letters landed.
"""

from __future__ import annotations

from typing import ClassVar, Final, assert_never

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from acp_tui.sanitize import multiline, plain
from acp_tui.services.elicitation import Cancelled, Declined, FormAccepted, FormOutcome, FormQuestion
from acp_tui.services.elicitation_form import (
    BooleanField,
    Choice,
    FieldError,
    FormField,
    MultiSelectField,
    NumberField,
    RawValue,
    SelectField,
    TextField,
    check_field,
    check_form,
    field_hint,
    initial_value,
    placeholder,
)
from acp_tui.ui.dialogs.guarded import ARM_DELAY, FIELD_FOCUS_KEYS, GuardedDialog, key_hints
from acp_tui.ui.widgets.content_blocks import head_lines, more_lines_text

__all__ = ["ARM_DELAY", "ElicitationFormScreen", "FieldRow"]

#: The dialog takes at most this fraction of the screen's height.
MAX_HEIGHT_FRACTION: Final = 0.9
#: The scrolling body keeps at least this many rows.
MIN_BODY_HEIGHT: Final = 3
#: Lines of the agent's message, and of one field's description, shown before "… N more lines".
MAX_MESSAGE_LINES: Final = 40
MAX_DESCRIPTION_LINES: Final = 6

_KEYS: Final = (("tab", "next"), ("⏎", "next/submit"), ("^S", "submit"), ("^N", "decline"), ("esc", "cancel"))


def _bounded(text: str, max_lines: int, classes: str) -> Static:
    """Agent text as a plain-text Static (sanitised again: cheap, and the screen cannot know who built it)."""
    head, more = head_lines(multiline(text).rstrip("\n"), max_lines)
    body = Text(head)
    if more:
        body.append("\n").append_text(more_lines_text(more))
    return Static(body, classes=classes)


def _choice_text(choice: Choice) -> Text:
    text = Text(choice.label)
    if choice.description:
        text.append(f"  {plain(choice.description)}", "dim")
    return text


class FormCheckbox(Checkbox):
    """A checkbox where Space toggles and Enter moves on like in every other field."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "screen.advance", show=False)]


class FieldRow(Vertical):
    """One field: label, description, control, hint and error; checks its own value."""

    def __init__(self, field: FormField, index: int) -> None:
        super().__init__(id=f"field-{index}", classes="field")
        self.field = field
        #: checked as the user types only once they have left the field (or tried to submit)
        self.touched = False
        self.control = self._make_control(index)
        self._error = Static("", classes="error")
        self._error.display = False

    def _make_control(self, index: int) -> Widget:
        field, control_id = self.field, f"control-{index}"
        initial = initial_value(field)
        match field:
            case TextField() | NumberField():
                return Input(
                    value=initial if isinstance(initial, str) else "",
                    placeholder=placeholder(field),
                    compact=True,
                    select_on_focus=False,
                    id=control_id,
                )
            case BooleanField():
                label = Text(field.label)
                if field.required:
                    label.append(" *", "bold")
                return FormCheckbox(label, value=initial is True, compact=True, id=control_id)
            case SelectField():
                return Select(
                    [(_choice_text(choice), choice.value) for choice in field.choices],
                    prompt="Choose…",
                    value=initial if isinstance(initial, str) else Select.NULL,
                    compact=True,
                    id=control_id,
                )
            case MultiSelectField():
                chosen = initial if isinstance(initial, tuple) else ()
                return SelectionList[str](
                    *((_choice_text(choice), choice.value, choice.value in chosen) for choice in field.choices),
                    compact=True,
                    id=control_id,
                )
            case _:
                assert_never(field)

    def compose(self) -> ComposeResult:
        head = self.head()
        if head:
            yield Static(head, classes="head")
        yield self.control
        yield self._error

    def head(self) -> Content:
        """Label, description and constraint hint in one plain-text block (few widgets: 200 fields stay quick).

        A checkbox carries its own label, so its head is only the description and hint.
        """
        field = self.field
        lines: list[Content] = []
        if not isinstance(field, BooleanField):
            lines.append(Content.styled(field.label + (" *" if field.required else ""), "bold"))
        if field.description:
            head, more = head_lines(multiline(field.description).rstrip("\n"), MAX_DESCRIPTION_LINES)
            lines.append(Content.styled(head + (f"\n… {more} more lines" if more else ""), "$text-muted"))
        hint = field_hint(field)
        if hint:
            lines.append(Content.styled(hint, "$text-muted italic"))
        return Content("\n").join(lines)

    def raw(self) -> RawValue:
        """What the control holds now, in the form model's terms."""
        control = self.control
        if isinstance(control, Input):
            return control.value
        if isinstance(control, Checkbox):
            return control.value
        if isinstance(control, Select):
            value = control.value
            return value if isinstance(value, str) else None
        if isinstance(control, SelectionList):
            selected = set(control.selected)
            choices = self.field.choices if isinstance(self.field, MultiSelectField) else ()
            return tuple(choice.value for choice in choices if choice.value in selected)
        return None

    @property
    def error(self) -> str | None:
        """The message shown under the field, if any."""
        return str(self._error.render()) if self._error.display else None

    def show_error(self, message: str | None) -> None:
        self._error.update(Text(message or ""))
        self._error.display = message is not None
        self.set_class(message is not None, "-invalid")

    def check(self) -> None:
        """Check the current value and show (or clear) its message."""
        result = check_field(self.field, self.raw())
        self.show_error(result.message if isinstance(result, FieldError) else None)


class ElicitationFormScreen(GuardedDialog[FormOutcome]):
    """Ask the agent's form; dismiss with `FormAccepted`, `Declined` or `Cancelled` (see the module docstring)."""

    CSS_PATH = "elicitation_form.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Submit", show=False),
        Binding("ctrl+n", "decline", "Decline", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
        *FIELD_FOCUS_KEYS,
    ]

    def __init__(
        self,
        question: FormQuestion,
        *,
        agent: str = "the agent",
        tool_call: str | None = None,
        arm_delay: float = ARM_DELAY,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """`agent` names who asks (shown in the border); `tool_call` is the title of the tool call it is for."""
        super().__init__(arm_delay=arm_delay, name=name, id=id)
        self.question = question
        self.form = question.form
        self._agent = plain(agent) or "the agent"
        self._tool_call = plain(tool_call) if tool_call else None
        self.rows = [FieldRow(field, index) for index, field in enumerate(self.form.fields)]
        self._dialog = Vertical(id="dialog")
        self._context_line_widget = Static(Text(self._context_line()), id="context")
        # Built disabled: switching a 200-field body costs a full restyle, so it happens once, on arming.
        self._body = VerticalScroll(id="body", can_focus=False, disabled=True)
        self._buttons = [
            Button("Submit", id="submit", variant="primary", compact=True, disabled=True),
            Button("Decline", id="decline", compact=True, disabled=True),
            Button("Cancel", id="cancel", compact=True, disabled=True),
        ]
        self._footer = Horizontal(id="buttons")
        #: the hint line says keys were dropped while arming (until the user types or moves on)
        self._dropped_note = False

    def _context_line(self) -> str:
        if self._tool_call:
            return f"For the tool call: {self._tool_call}"
        if self.question.before_session:
            return "Before the session starts (for a request in progress)"
        return ""

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with self._dialog:
            if self._context_line():
                yield self._context_line_widget
            with self._body:
                if self.question.message:
                    yield _bounded(self.question.message, MAX_MESSAGE_LINES, "message")
                if self.form.title:
                    yield Static(Text(self.form.title), classes="form-title")
                if self.form.description:
                    yield _bounded(self.form.description, MAX_DESCRIPTION_LINES, "form-description")
                if not self.rows:
                    yield Static(Text("No fields: submitting answers with nothing."), classes="form-description")
                yield from self.rows
            with self._footer:
                yield from self._buttons
            yield self._hint

    def on_mount(self) -> None:
        self._dialog.border_title = Content(f"Question from {self._agent}")  # plain: never markup
        self.call_after_refresh(self._fit_body)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_body)

    def _fit_body(self) -> None:
        """Cap the scrolling body so context, buttons and hint always fit (CSS cannot say "what is left")."""
        cap = int(self.size.height * MAX_HEIGHT_FRACTION)
        chrome = self._dialog.styles.gutter.height + self._footer.outer_size.height + self._hint.outer_size.height
        if self._context_line_widget.parent is not None:
            chrome += self._context_line_widget.outer_size.height
        self._body.styles.max_height = max(MIN_BODY_HEIGHT, cap - chrome)

    # -- the typing guard (guarded.py) -----------------------------------------------------

    def _controls(self) -> list[Widget]:
        return [self._body, *self._buttons]

    def _on_armed(self) -> None:
        """The first field takes the keys (Submit, for a form with none); dropped keys are owned up to."""
        target: Widget = self.rows[0].control if self.rows else self._buttons[0]
        target.focus(scroll_visible=False)
        self._body.scroll_home(animate=False)
        if self.dropped_keys:
            count = self.dropped_keys
            where = f"“{self.rows[0].field.label}”" if self.rows else "the form"
            self._dropped_note = True
            self._hint.update(
                Text(
                    f"⚠ {count} key{'s' if count != 1 else ''} typed before the form was ready "
                    f"went nowhere; type again in {where}",
                    "bold",
                )
            )

    def _clear_dropped_note(self) -> None:
        if self._dropped_note:
            self._dropped_note = False
            self._hint.update(self._armed_hints())

    def _armed_hints(self) -> Text:
        text = key_hints(list(_KEYS))
        if any(row.field.required for row in self.rows):
            text.append("  * required")
        return text

    # -- moving and checking -------------------------------------------------------------------

    def _row_of(self, widget: Widget | None) -> FieldRow | None:
        node = widget
        while node is not None and not isinstance(node, FieldRow):
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        return node

    def action_advance(self) -> None:
        """Enter in a field: the next field, or submit from the last one."""
        self._clear_dropped_note()
        row = self._row_of(self.focused)
        if row is not None and self.rows and row is self.rows[-1]:
            self.action_submit()
        else:
            self.focus_next()

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_advance()

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        if self._armed:
            self._clear_dropped_note()
        row = self._row_of(event.input)
        if row is not None and row.touched:
            row.check()

    @on(Input.Blurred)
    def _input_blurred(self, event: Input.Blurred) -> None:
        self._clear_dropped_note()
        row = self._row_of(event.input)
        if row is not None and self._armed and not self._decided:
            row.touched = True
            row.check()

    @on(Checkbox.Changed)
    @on(Select.Changed)
    @on(SelectionList.SelectedChanged)
    def _choice_changed(self, event: Checkbox.Changed | Select.Changed | SelectionList.SelectedChanged[str]) -> None:
        row = self._row_of(event.control)
        if row is not None and self._armed:
            self._clear_dropped_note()
            row.touched = True
            row.check()

    # -- deciding ------------------------------------------------------------------------------

    def action_submit(self) -> None:
        """Check every field; send if all are fine, else show why and focus the first one that is not."""
        if not self._armed or self._decided:
            return
        result = check_form(self.form, {row.field.name: row.raw() for row in self.rows})
        for row in self.rows:
            row.touched = True
            row.show_error(result.errors.get(row.field.name))
        if result.ok:
            self._finish(FormAccepted(result.content))
            return
        count = len(result.errors)
        self._dropped_note = False
        self._hint.update(Text(f"{count} field{'s' if count > 1 else ''} to fix before sending", "bold"))
        first = next(row for row in self.rows if row.field.name in result.errors)
        first.control.focus()
        self._body.scroll_to_widget(first, animate=False)

    def action_decline(self) -> None:
        if self._armed:
            self._finish(Declined())

    def action_cancel(self) -> None:
        if self._armed:
            self._finish(Cancelled("dismissed"))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        match event.button.id:
            case "submit":
                self.action_submit()
            case "decline":
                self.action_decline()
            case "cancel":
                self.action_cancel()

    def close_because(self, reason: str) -> None:
        """Close without the user (the agent withdrew the question, the turn was cancelled)."""
        self._finish(Cancelled(reason))

    @property
    def values(self) -> dict[str, RawValue]:
        """Every field's raw value now, by property name (for tests and the app)."""
        return {row.field.name: row.raw() for row in self.rows}
