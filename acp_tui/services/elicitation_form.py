"""The form an elicitation's `requestedSchema` describes, and checking what the user entered (pure).

`build_form` turns the restricted schema (docs/protocol.md §10.1) into one field per property, in the
order the agent sent them, with labels and descriptions already sanitised (`acp_tui.sanitize`), or
says why it cannot (`Unrenderable`: an unknown property type, nesting, choices of an unknown kind,
no choices, too many fields). A dialog, a headless policy and the tests all use the same model.

Values go through two steps. The UI holds a *raw* value per field (the text typed, the box ticked,
the choices picked); `check_form` parses every raw value and checks it against its field, giving
either the `content` to send or one message per field that needs attention. `check_content`
re-checks a finished `content` mapping, so the service never sends an answer that does not match the
schema it was asked with, whatever the asker returned.

An empty text, number or selection counts as "not given": omitted when optional, "Required" when
required. Booleans always have a value (a checkbox cannot be unset). Patterns use Python's `re` with
ASCII classes, close to ECMA-262 for the common cases; a pattern Python cannot compile, or one whose
nested repetition could backtrack for minutes on a short input, is not checked here (the agent
checks it), so an agent's regex can never freeze the UI.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Final, TypeAlias, assert_never
from urllib.parse import urlsplit

import msgspec

from acp_tui.protocol.elicitation import (
    BooleanPropertySchema,
    ElicitationSchema,
    EnumOption,
    IntegerPropertySchema,
    MultiSelectPropertySchema,
    NumberPropertySchema,
    StringMultiSelectItems,
    StringPropertySchema,
    TitledMultiSelectItems,
    UnknownMultiSelectItems,
    UnknownPropertySchema,
)
from acp_tui.sanitize import multiline, plain

__all__ = [
    "BooleanField",
    "Choice",
    "ContentValue",
    "FieldError",
    "FormCheck",
    "FormField",
    "FormModel",
    "MAX_CHOICES",
    "MAX_FIELDS",
    "MultiSelectField",
    "NumberField",
    "RawValue",
    "SelectField",
    "TextField",
    "Unrenderable",
    "build_form",
    "check_content",
    "check_field",
    "check_form",
    "field_hint",
    "initial_value",
    "placeholder",
]

#: More fields than this is not a question for a person: refused (the dialog scrolls up to here).
MAX_FIELDS: Final = 500
#: More choices than this in one select is refused for the same reason.
MAX_CHOICES: Final = 1000
#: JSON Schema `int64` bounds of integer answers (schema `ElicitationContentValue`).
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
#: Longest number text parsed (a guard against pathological input, far beyond any real number).
_MAX_NUMBER_TEXT: Final = 64

ContentValue: TypeAlias = str | int | float | bool | list[str]
#: What the UI holds for a field: text (text and number fields), a tick (boolean), the chosen value or
#: None (select), the chosen values in choice order (multi-select).
RawValue: TypeAlias = str | bool | tuple[str, ...] | None


class Choice(msgspec.Struct, frozen=True):
    """One option of a select: `value` is sent back exactly; `label` is what the user reads (sanitised)."""

    value: str
    label: str
    description: str = ""


class TextField(msgspec.Struct, frozen=True):
    """A line of text, maybe with a format, length limits and a pattern."""

    name: str
    label: str
    description: str
    required: bool
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    #: False when the pattern cannot be checked here (see the module docstring)
    pattern_checked: bool = False
    format: str | None = None
    default: str | None = None


class NumberField(msgspec.Struct, frozen=True):
    """A number; `integer` for whole numbers (sent as JSON integers)."""

    name: str
    label: str
    description: str
    required: bool
    integer: bool
    minimum: float | None = None
    maximum: float | None = None
    default: float | None = None


class BooleanField(msgspec.Struct, frozen=True):
    """A checkbox."""

    name: str
    label: str
    description: str
    required: bool
    default: bool = False


class SelectField(msgspec.Struct, frozen=True):
    """One value out of `choices`."""

    name: str
    label: str
    description: str
    required: bool
    choices: tuple[Choice, ...]
    default: str | None = None


class MultiSelectField(msgspec.Struct, frozen=True):
    """Any number of values out of `choices`, within `min_items`..`max_items`."""

    name: str
    label: str
    description: str
    required: bool
    choices: tuple[Choice, ...]
    min_items: int | None = None
    max_items: int | None = None
    default: tuple[str, ...] = ()


FormField: TypeAlias = TextField | NumberField | BooleanField | SelectField | MultiSelectField


class FormModel(msgspec.Struct, frozen=True):
    """The whole form: the schema's own title and description (sanitised) and its fields."""

    title: str
    description: str
    fields: tuple[FormField, ...]

    def field(self, name: str) -> FormField:
        """The field for property `name` (KeyError when there is none)."""
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError(name)


class Unrenderable(msgspec.Struct, frozen=True):
    """Why a schema cannot be shown as a form, one reason per problem (property names as sent)."""

    reasons: tuple[str, ...]


# --- building ------------------------------------------------------------------------------------------


def build_form(schema: ElicitationSchema) -> FormModel | Unrenderable:
    """The form for `schema`, or every reason it cannot be rendered."""
    reasons: list[str] = []
    if len(schema.properties) > MAX_FIELDS:
        reasons.append(f"{len(schema.properties)} fields (at most {MAX_FIELDS} can be shown)")
        return Unrenderable(tuple(reasons))
    required = set(schema.required) if isinstance(schema.required, list) else set()
    fields: list[FormField] = []
    for name, prop in schema.properties.items():
        built = _field(name, prop, name in required)
        if isinstance(built, str):
            reasons.append(built)
        else:
            fields.append(built)
    if reasons:
        return Unrenderable(tuple(reasons))
    return FormModel(
        title=plain(schema.title) if isinstance(schema.title, str) else "",
        description=multiline(schema.description) if isinstance(schema.description, str) else "",
        fields=tuple(fields),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _label(name: str, title: object) -> str:
    """The schema's title, else the property name; sanitised; never empty."""
    label = plain(title).strip() if isinstance(title, str) else ""
    return label or plain(name).strip() or "(unnamed)"


def _field(name: str, prop: object, required: bool) -> FormField | str:
    """One field, or why it cannot be shown."""
    match prop:
        case StringPropertySchema():
            label, description = _label(name, prop.title), multiline(_text(prop.description))
            default = prop.default if isinstance(prop.default, str) else None
            if isinstance(prop.one_of, list) or isinstance(prop.enum, list):
                choices = _choices(prop.one_of if isinstance(prop.one_of, list) else prop.enum or [])
                if isinstance(choices, str):
                    return f"{name!r}: {choices}"
                values = {choice.value for choice in choices}
                return SelectField(name, label, description, required, choices, default if default in values else None)
            pattern = prop.pattern if isinstance(prop.pattern, str) else None
            return TextField(
                name,
                label,
                description,
                required,
                min_length=_count(prop.min_length),
                max_length=_count(prop.max_length),
                pattern=pattern,
                pattern_checked=pattern is not None and _compiled(pattern) is not None,
                format=prop.format if isinstance(prop.format, str) else None,
                # shown in an input and sent as shown: no controls or invisible characters
                default=plain(default) if default is not None else None,
            )
        case NumberPropertySchema() | IntegerPropertySchema():
            integer = isinstance(prop, IntegerPropertySchema)
            return NumberField(
                name,
                _label(name, prop.title),
                multiline(_text(prop.description)),
                required,
                integer=integer,
                minimum=_number(prop.minimum),
                maximum=_number(prop.maximum),
                default=_number(prop.default),
            )
        case BooleanPropertySchema():
            return BooleanField(
                name,
                _label(name, prop.title),
                multiline(_text(prop.description)),
                required,
                default=prop.default is True,
            )
        case MultiSelectPropertySchema():
            items = prop.items
            match items:
                case StringMultiSelectItems():
                    choices = _choices(items.enum)
                case TitledMultiSelectItems():
                    choices = _choices(items.any_of)
                case UnknownMultiSelectItems():
                    return f"{name!r}: choices of type {items.type!r}"
                case _:
                    assert_never(items)
            if isinstance(choices, str):
                return f"{name!r}: {choices}"
            values = {choice.value for choice in choices}
            defaults = prop.default if isinstance(prop.default, list) else []
            return MultiSelectField(
                name,
                _label(name, prop.title),
                multiline(_text(prop.description)),
                required,
                choices,
                min_items=_count(prop.min_items),
                max_items=_count(prop.max_items),
                default=tuple(choice.value for choice in choices if choice.value in defaults),
            )
        case UnknownPropertySchema():
            return f"{name!r}: a field of type {prop.type!r}"
        case _:
            return f"{name!r}: an unsupported property"


def _choices(options: list[EnumOption] | list[str]) -> tuple[Choice, ...] | str:
    """Deduplicated choices (first wins), or why there are none to offer."""
    if not options:
        return "offers no choices"
    if len(options) > MAX_CHOICES:
        return f"{len(options)} choices (at most {MAX_CHOICES} can be shown)"
    seen: set[str] = set()
    choices: list[Choice] = []
    for option in options:
        if isinstance(option, EnumOption):
            value, label = option.const, plain(option.title).strip()
            description = multiline(option.description) if isinstance(option.description, str) else ""
        else:
            value, label, description = option, "", ""
        if value in seen:
            continue
        seen.add(value)
        choices.append(Choice(value, label or plain(value).strip() or repr(value), description))
    return tuple(choices)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    """A finite number (an `int` stays one), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


# --- raw values ---------------------------------------------------------------------------------------


def initial_value(field: FormField) -> RawValue:
    """What the field shows on arrival: the schema's default, else empty."""
    match field:
        case TextField():
            return field.default or ""
        case NumberField():
            return "" if field.default is None else _format_number(field.default, field.integer)
        case BooleanField():
            return field.default
        case SelectField():
            return field.default
        case MultiSelectField():
            return field.default
        case _:
            assert_never(field)


_PLACEHOLDERS: Final = {
    "email": "name@example.com",
    "uri": "https://example.com/…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDTHH:MM:SSZ",
}


def placeholder(field: FormField) -> str:
    """A hint shown in an empty input: the format's shape, or the kind of number."""
    match field:
        case TextField(format=str() as fmt) if fmt in _PLACEHOLDERS:
            return _PLACEHOLDERS[fmt]
        case NumberField(integer=True):
            return "a whole number"
        case NumberField():
            return "a number"
        case _:
            return ""


def field_hint(field: FormField) -> str:
    """The field's constraints in a few words ("3–20 characters · email"), or ""."""
    parts: list[str] = []
    match field:
        case TextField():
            parts.append(_range_words(field.min_length, field.max_length, "character"))
            if field.format in _FORMAT_WORDS:
                parts.append(_FORMAT_WORDS[field.format])
            elif field.format:
                parts.append(plain(field.format))
            if field.pattern is not None:
                shown = plain(field.pattern)
                parts.append(f"pattern {shown[:40]}{'…' if len(shown) > 40 else ''}")
        case NumberField():
            low, high = field.minimum, field.maximum
            fmt = functools.partial(_format_number, integer=field.integer)
            if low is not None and high is not None:
                parts.append(f"{fmt(low)} to {fmt(high)}")
            elif low is not None:
                parts.append(f"at least {fmt(low)}")
            elif high is not None:
                parts.append(f"at most {fmt(high)}")
            if field.integer:
                parts.append("whole number")
        case MultiSelectField():
            words = _range_words(field.min_items, field.max_items, "choice")
            parts.append(f"pick {words}" if words else "pick any")
        case BooleanField() | SelectField():
            pass
        case _:
            assert_never(field)
    return " · ".join(part for part in parts if part)


_FORMAT_WORDS: Final = {"email": "email address", "uri": "URI", "date": "date", "date-time": "date and time"}


def _range_words(low: int | None, high: int | None, noun: str) -> str:
    def nouns(n: int) -> str:
        return f"{n} {noun}" + ("" if n == 1 else "s")

    if low and high is not None:
        return nouns(high) if low == high else f"{low}–{nouns(high)}"
    if low:
        return f"at least {nouns(low)}"
    if high is not None:
        return f"at most {nouns(high)}"
    return ""


def _format_number(value: float, integer: bool) -> str:
    if integer or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


# --- checking ------------------------------------------------------------------------------------------


class FormCheck(msgspec.Struct, frozen=True):
    """The outcome of checking a whole form: `content` to send, or a message per failing field."""

    content: dict[str, ContentValue]
    errors: dict[str, str]

    @property
    def ok(self) -> bool:
        return not self.errors


class FieldError(msgspec.Struct, frozen=True):
    """Why a field's value cannot be sent, in words for the user."""

    message: str


class _Missing:
    """Nothing given for a field (empty text, no selection)."""


_MISSING: Final = _Missing()


def check_form(form: FormModel, raws: Mapping[str, RawValue]) -> FormCheck:
    """Parse and check every field's raw value (a field absent from `raws` shows its initial value)."""
    content: dict[str, ContentValue] = {}
    errors: dict[str, str] = {}
    for field in form.fields:
        raw = raws.get(field.name, initial_value(field))
        result = check_field(field, raw)
        if isinstance(result, FieldError):
            errors[field.name] = result.message
        elif result is not None:
            content[field.name] = result
    return FormCheck(content, errors)


def check_field(field: FormField, raw: RawValue) -> ContentValue | None | FieldError:
    """The value to send for one field, `None` to omit it, or a `FieldError` for the user."""
    value = _parse(field, raw)
    if isinstance(value, FieldError):
        return value
    if value is _MISSING:
        return FieldError("Required") if field.required else None
    assert not isinstance(value, _Missing)
    problem = _problem(field, value)
    return FieldError(problem) if problem else value


def _parse(field: FormField, raw: RawValue) -> ContentValue | _Missing | FieldError:
    match field:
        case TextField():
            text = raw if isinstance(raw, str) else ""
            return text if text else _MISSING
        case NumberField():
            text = raw.strip() if isinstance(raw, str) else ""
            return _parse_number(text, field.integer) if text else _MISSING
        case BooleanField():
            return raw is True
        case SelectField():
            return raw if isinstance(raw, str) else _MISSING
        case MultiSelectField():
            chosen = list(raw) if isinstance(raw, tuple) else []
            return chosen if chosen else _MISSING
        case _:
            assert_never(field)


_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _parse_number(text: str, integer: bool) -> int | float | FieldError:
    if len(text) > _MAX_NUMBER_TEXT:
        return FieldError("Too long for a number")
    if integer:
        if _INTEGER.fullmatch(text):
            return int(text)
        if _NUMBER.fullmatch(text) and float(text).is_integer() and abs(float(text)) < 2**53:
            return int(float(text))  # "5.0" and "1e3" are whole numbers too
        return FieldError("Not a whole number")
    if not _NUMBER.fullmatch(text):
        return FieldError("Not a number")
    number = float(text)
    return number if math.isfinite(number) else FieldError("Out of range")


def check_content(form: FormModel, content: Mapping[str, Any]) -> list[str]:
    """Every way `content` fails to answer `form` (unknown keys, wrong types, constraints, missing required)."""
    problems: list[str] = []
    names = {field.name for field in form.fields}
    problems.extend(f"{key!r}: not a field of the form" for key in content if key not in names)
    for field in form.fields:
        if field.name not in content:
            if field.required:
                problems.append(f"{field.name!r}: required")
            continue
        value = content[field.name]
        if not _type_ok(field, value):
            problems.append(f"{field.name!r}: {type(value).__name__} is the wrong type")
            continue
        problem = _problem(field, value)
        if problem:
            problems.append(f"{field.name!r}: {problem}")
    return problems


def _type_ok(field: FormField, value: object) -> bool:
    match field:
        case TextField() | SelectField():
            return isinstance(value, str)
        case NumberField(integer=True):
            return isinstance(value, int) and not isinstance(value, bool)
        case NumberField():
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        case BooleanField():
            return isinstance(value, bool)
        case MultiSelectField():
            return isinstance(value, list) and all(isinstance(item, str) for item in value)
        case _:
            assert_never(field)


def _problem(field: FormField, value: ContentValue) -> str | None:
    """What is wrong with a parsed value, or None."""
    match field:
        case TextField():
            assert isinstance(value, str)
            return _text_problem(field, value)
        case NumberField():
            assert isinstance(value, (int, float)) and not isinstance(value, bool)
            if field.integer and not INT64_MIN <= value <= INT64_MAX:
                return "Out of range"
            if not math.isfinite(value):
                return "Out of range"
            if field.minimum is not None and value < field.minimum:
                return f"Must be at least {_format_number(field.minimum, field.integer)}"
            if field.maximum is not None and value > field.maximum:
                return f"Must be at most {_format_number(field.maximum, field.integer)}"
            return None
        case BooleanField():
            return None
        case SelectField():
            return None if value in {choice.value for choice in field.choices} else "Not one of the choices"
        case MultiSelectField():
            assert isinstance(value, list)
            offered = {choice.value for choice in field.choices}
            if any(item not in offered for item in value):
                return "Not one of the choices"
            if len(set(value)) != len(value):
                return "A choice is picked twice"
            if field.min_items is not None and len(value) < field.min_items:
                return f"Pick at least {field.min_items}"
            if field.max_items is not None and len(value) > field.max_items:
                return f"Pick at most {field.max_items}"
            return None
        case _:
            assert_never(field)


def _text_problem(field: TextField, value: str) -> str | None:
    if field.min_length is not None and len(value) < field.min_length:
        return f"At least {_range_words(field.min_length, None, 'character').removeprefix('at least ')}"
    if field.max_length is not None and len(value) > field.max_length:
        return f"At most {_range_words(None, field.max_length, 'character').removeprefix('at most ')}"
    match field.format:
        case "email" if not _EMAIL.fullmatch(value):
            return "Not an email address (name@example.com)"
        case "uri" if not _is_uri(value):
            return "Not a URI (such as https://example.com)"
        case "date" if not _is_date(value):
            return "Not a date (YYYY-MM-DD)"
        case "date-time" if not _is_date_time(value):
            return "Not a date and time (such as 2025-01-31T09:30:00Z)"
    if field.pattern is not None and field.pattern_checked:
        compiled = _compiled(field.pattern)
        if compiled is not None and compiled.search(value) is None:
            return "Does not have the form the agent asks for"
    return None


_EMAIL = re.compile(r"[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:\S+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})")


def _is_uri(value: str) -> bool:
    """An absolute URI (RFC 3986 shape); http(s) also needs a host."""
    if not _SCHEME.fullmatch(value):
        return False
    parts = urlsplit(value)
    return parts.scheme.lower() not in ("http", "https") or bool(parts.netloc)


def _is_date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_date_time(value: str) -> bool:
    """RFC 3339 `date-time`: date, `T`, time with seconds, optional fraction, `Z` or an offset."""
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    day, clock, fraction, zone = match.groups()
    zone = "+00:00" if zone in ("Z", "z") else zone
    fraction = f".{fraction[:6].ljust(6, '0')}" if fraction else ""
    try:
        datetime.fromisoformat(f"{day}T{clock}{fraction}{zone}")
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    """The pattern compiled for checking here, or None when it cannot or should not be."""
    if len(pattern) > 1000 or _may_backtrack_badly(pattern):
        return None
    try:
        return re.compile(pattern, re.ASCII)
    except (re.error, RecursionError, OverflowError):
        return None


_BOUNDED_REPEAT = re.compile(r"\{(\d*)(,?)(\d*)\}")


def _may_backtrack_badly(pattern: str) -> bool:
    """True when a repeated group itself contains a repetition or an alternation (`(a+)+`, `(a|aa)*`).

    Those are the shapes that backtrack exponentially in a backtracking engine like `re`. The scan
    is deliberately coarse: it may refuse a harmless pattern (then the agent checks it), never the
    other way round for these shapes.
    """
    stack: list[bool] = [False]  # per open group: does it contain a repetition or an alternation?
    closed: bool | None = None  # the flag of a group closed just before this character
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        just_closed, closed = closed, None
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i = _class_end(pattern, i)
            continue
        if char == "(":
            stack.append(False)
            i += 2 if pattern.startswith("(?", i) else 1
            continue
        if char == ")":
            inner = stack.pop() if len(stack) > 1 else False
            stack[-1] = stack[-1] or inner
            closed = inner
            i += 1
            continue
        if char in "*+?{":
            repeat = _BOUNDED_REPEAT.match(pattern, i) if char == "{" else None
            if char == "{" and repeat is None:
                i += 1  # a literal brace
                continue
            many = char in "*+" or (repeat is not None and _repeats_many(repeat))
            if many and just_closed:
                return True
            stack[-1] = True
            i = repeat.end() if repeat is not None else i + 1
            if i < n and pattern[i] in "?+":  # lazy or possessive modifier
                i += 1
            continue
        if char == "|":
            stack[-1] = True
        i += 1
    return False


def _repeats_many(repeat: re.Match[str]) -> bool:
    low, comma, high = repeat.groups()
    if not comma:
        return bool(low) and int(low) > 1
    return not high or int(high) > 1


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class that opens at `start` (`]` first in the class is literal)."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == "]":
            return i + 1
        i += 1
    return i
