"""Elicitation, the pure parts: wire decoding (v1 and v2), the form model, validation, and URL display.

Tables, no event loop. The service that answers the agent is tested in test_service_elicitation.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_tui.protocol.codec import MalformedMessage
from acp_tui.protocol.elicitation import (
    ElicitationRequestScope,
    ElicitationSessionScope,
    FormElicitation,
    MultiSelectPropertySchema,
    StringPropertySchema,
    TitledMultiSelectItems,
    UnknownElicitation,
    UnknownPropertySchema,
    UrlElicitation,
    client_capabilities,
    decode_complete,
    decode_create,
    encode_create,
)
from acp_tui.services.elicitation_form import (
    BooleanField,
    Choice,
    FieldError,
    FormModel,
    MultiSelectField,
    NumberField,
    SelectField,
    TextField,
    Unrenderable,
    _may_backtrack_badly,
    build_form,
    check_content,
    check_field,
    check_form,
    field_hint,
    initial_value,
    placeholder,
)
from acp_tui.services.elicitation_url import describe_url
from tests.support.elicitation_form import EVERY_TYPE, form_params
from tests.support.schema_check import def_validator


def decode(params: dict[str, Any], version: int = 2) -> Any:
    return decode_create(json.dumps(params).encode(), version)


def form_of(properties: dict[str, Any], required: list[str] | None = None) -> FormModel:
    request = decode(form_params(properties, required))
    assert isinstance(request, FormElicitation)
    form = build_form(request.requested_schema)
    assert isinstance(form, FormModel), form
    return form


# --- wire types ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_every_property_type_decodes_and_encodes_back_schema_valid(version: int) -> None:
    params = form_params(EVERY_TYPE, ["name", "langs"], toolCallId="call-1")
    request = decode(params, version)
    assert isinstance(request, FormElicitation)
    assert request.scope == ElicitationSessionScope(session_id="s1", tool_call_id="call-1")
    assert list(request.requested_schema.properties) == list(EVERY_TYPE)
    pets = request.requested_schema.properties["pets"]
    assert isinstance(pets, MultiSelectPropertySchema) and isinstance(pets.items, TitledMultiSelectItems)
    encoded = encode_create(request)
    assert encoded == params
    def_validator(version, "CreateElicitationRequest").validate(encoded)


@pytest.mark.parametrize("version", [1, 2])
def test_url_mode_and_request_scope(version: int) -> None:
    params = {"requestId": 7, "message": "Log in", "mode": "url", "elicitationId": "e1", "url": "https://x.test/a"}
    request = decode(params, version)
    assert request == UrlElicitation(
        message="Log in", scope=ElicitationRequestScope(request_id=7), elicitation_id="e1", url="https://x.test/a"
    )
    assert encode_create(request) == params
    def_validator(version, "CreateElicitationRequest").validate(params)


def test_v1_allows_a_null_request_id_v2_does_not() -> None:
    params = {"requestId": None, "message": "m", "mode": "url", "elicitationId": "e", "url": "https://x.test"}
    assert decode(params, 1).scope == ElicitationRequestScope(request_id=None)
    with pytest.raises(MalformedMessage):
        decode(params, 2)


def test_v1_schema_type_and_properties_default() -> None:
    request = decode({"sessionId": "s", "message": "m", "mode": "form", "requestedSchema": {"type": "nope"}}, 1)
    assert isinstance(request, FormElicitation)
    assert request.requested_schema.properties == {} and request.requested_schema.type == "object"
    with pytest.raises(MalformedMessage):
        decode({"sessionId": "s", "message": "m", "mode": "form", "requestedSchema": {"type": "nope"}}, 2)
    with pytest.raises(MalformedMessage):
        decode({"sessionId": "s", "message": "m", "mode": "form", "requestedSchema": {"type": "object"}}, 2)


def test_default_on_error_fields_are_dropped_not_fatal() -> None:
    request = decode(
        form_params(
            {
                "a": {"type": "string", "title": 5, "description": ["x"], "default": 3, "_meta": "m"},
                "b": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": ["x", 3, None]},
            },
            toolCallId=12,
        )
    )
    assert isinstance(request, FormElicitation)
    a = request.requested_schema.properties["a"]
    assert isinstance(a, StringPropertySchema) and a.title is a.default is a.description is a.meta
    b = request.requested_schema.properties["b"]
    assert isinstance(b, MultiSelectPropertySchema) and b.default == ["x"]
    assert isinstance(request.scope, ElicitationSessionScope) and request.scope.tool_call_id is not None


@pytest.mark.parametrize(
    "params",
    [
        {"sessionId": "s", "mode": "form", "requestedSchema": {"type": "object", "properties": {}}},  # no message
        {"message": "m", "mode": "form", "requestedSchema": {"type": "object", "properties": {}}},  # no scope
        {"sessionId": 5, "message": "m", "mode": "url", "elicitationId": "e", "url": "u"},
        {"sessionId": "s", "message": "m", "mode": "url", "url": "u"},  # no elicitationId
        {"sessionId": "s", "message": "m", "mode": 3},
        form_params({"a": {"type": "string", "minLength": "three"}}),  # a known type, malformed
        form_params({"a": {"title": "no type"}}),
        form_params({"a": {"type": "array", "items": "x"}}),
        form_params({"a": {"type": "string"}}, required="a"),  # type: ignore[arg-type]
    ],
)
def test_malformed_requests_raise(params: dict[str, Any]) -> None:
    with pytest.raises(MalformedMessage):
        decode(params)


def test_unknown_mode_and_property_type_survive_as_data() -> None:
    other = decode({"sessionId": "s", "message": "m", "mode": "_vendor/chat", "extra": 1})
    assert isinstance(other, UnknownElicitation) and other.mode == "_vendor/chat" and other.raw["extra"] == 1
    nested = {"type": "object", "properties": {"street": {"type": "string"}}}
    request = decode(form_params({"address": nested}))
    assert isinstance(request, FormElicitation)
    prop = request.requested_schema.properties["address"]
    assert isinstance(prop, UnknownPropertySchema) and prop.type == "object" and prop.raw == nested
    assert encode_create(request)["requestedSchema"]["properties"]["address"] == nested


def test_mode_missing_with_a_schema_is_a_form() -> None:
    params = form_params({"a": {"type": "string"}})
    del params["mode"]
    assert isinstance(decode(params), FormElicitation)


def test_complete_notification() -> None:
    assert decode_complete(b'{"elicitationId": "e1", "_meta": 5}').elicitation_id == "e1"
    with pytest.raises(MalformedMessage):
        decode_complete(b'{"elicitationId": 1}')


@pytest.mark.parametrize("version", [1, 2])
def test_capability_fragment_is_valid_client_capabilities(version: int) -> None:
    fragment = client_capabilities(form=True, url=True)
    assert fragment == {"elicitation": {"form": {}, "url": {}}}
    def_validator(version, "ClientCapabilities").validate(fragment)
    assert client_capabilities(form=True, url=False) == {"elicitation": {"form": {}}}
    assert client_capabilities(form=False, url=False) == {}


# --- the form model ---------------------------------------------------------------------------------------


def test_every_type_becomes_its_field_in_order() -> None:
    form = form_of(EVERY_TYPE, ["name", "langs"])
    kinds = {field.name: type(field) for field in form.fields}
    assert list(kinds) == list(EVERY_TYPE)
    assert kinds["name"] is TextField and kinds["rating"] is NumberField and kinds["subscribe"] is BooleanField
    assert kinds["size"] is SelectField and kinds["colour"] is SelectField
    assert kinds["langs"] is MultiSelectField and kinds["pets"] is MultiSelectField
    name = form.field("name")
    assert isinstance(name, TextField) and name.label == "Your name" and name.required
    assert form.field("email").label == "email" and not form.field("email").required
    colour = form.field("colour")
    assert isinstance(colour, SelectField)
    assert colour.choices == (Choice("r", "Red"), Choice("g", "Green", "like grass"))
    years = form.field("years")
    assert isinstance(years, NumberField) and years.integer and (years.minimum, years.maximum) == (0, 80)


def test_defaults_fill_in_and_are_the_content_of_an_untouched_form() -> None:
    form = form_of(EVERY_TYPE)
    assert [initial_value(form.field(n)) for n in ("name", "rating", "subscribe", "size", "pets", "email")] == [
        "Ada",
        "4.5",
        True,
        "M",
        ("dog",),
        "",
    ]
    result = check_form(form, {})
    assert result.ok
    assert result.content == {"name": "Ada", "rating": 4.5, "subscribe": True, "size": "M", "pets": ["dog"]}


def test_a_default_that_is_not_a_choice_is_ignored() -> None:
    form = form_of(
        {
            "s": {"type": "string", "enum": ["a"], "default": "zzz"},
            "m": {"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": ["zzz", "a"]},
        }
    )
    assert initial_value(form.field("s")) is None and initial_value(form.field("m")) == ("a",)


FIELD_CASES: list[tuple[str, Any, Any]] = [
    # (property, raw value, expected: a value, None for omitted, or an error message prefix)
    ("name", "Al", "Al"),
    ("name", "A", FieldError("At least 2 characters")),
    ("name", "x" * 21, FieldError("At most 20 characters")),
    ("name", "", FieldError("Required")),
    ("email", "", None),
    ("email", "ada@example.com", "ada@example.com"),
    ("email", "ada@localhost", "ada@localhost"),
    ("email", "ada example.com", FieldError("Not an email address")),
    ("email", "ada@@x", FieldError("Not an email address")),
    ("email", "ada@x..y", FieldError("Not an email address")),
    ("site", "https://example.com/a?b", "https://example.com/a?b"),
    ("site", "mailto:ada@example.com", "mailto:ada@example.com"),
    ("site", "example.com", FieldError("Not a URI")),
    ("site", "https://", FieldError("Not a URI")),
    ("site", "https://exa mple.com", FieldError("Not a URI")),
    ("born", "1815-12-10", "1815-12-10"),
    ("born", "1815-13-10", FieldError("Not a date")),
    ("born", "18151210", FieldError("Not a date")),
    ("when", "2025-01-31T09:30:00Z", "2025-01-31T09:30:00Z"),
    ("when", "2025-01-31t09:30:00.123456789+05:30", "2025-01-31t09:30:00.123456789+05:30"),
    ("when", "2025-01-31 09:30:00Z", FieldError("Not a date and time")),
    ("when", "2025-01-31T25:30:00Z", FieldError("Not a date and time")),
    ("when", "2025-01-31T09:30Z", FieldError("Not a date and time")),
    ("branch", "feat/elicit-1", "feat/elicit-1"),
    ("branch", "Feat", FieldError("Does not have the form")),
    ("rating", "3", 3.0),
    ("rating", " 2.5 ", 2.5),
    ("rating", "1e0", 1.0),
    ("rating", "", None),
    ("rating", "5.01", FieldError("Must be at most 5")),
    ("rating", "-1", FieldError("Must be at least 0")),
    ("rating", "nan", FieldError("Not a number")),
    ("rating", "inf", FieldError("Not a number")),
    ("rating", "1_0", FieldError("Not a number")),
    ("rating", "1e999", FieldError("Out of range")),
    ("years", "42", 42),
    ("years", "+7", 7),
    ("years", "7.0", 7),
    ("years", "7.5", FieldError("Not a whole number")),
    ("years", "81", FieldError("Must be at most 80")),
    ("years", "9" * 70, FieldError("Too long")),
    ("subscribe", False, False),
    ("subscribe", True, True),
    ("size", "L", "L"),
    ("size", None, None),
    ("size", "XL", FieldError("Not one of the choices")),
    ("colour", "g", "g"),
    ("colour", "Green", FieldError("Not one of the choices")),
    ("langs", ("py", "go"), ["py", "go"]),
    ("langs", (), FieldError("Required")),
    ("langs", ("py", "rs", "go"), FieldError("Pick at most 2")),
    ("langs", ("java",), FieldError("Not one of the choices")),
    ("pets", (), None),
    ("pets", ("cat", "cat"), FieldError("A choice is picked twice")),
]


@pytest.mark.parametrize(("name", "raw", "expected"), FIELD_CASES, ids=[f"{c[0]}={c[1]!r}"[:40] for c in FIELD_CASES])
def test_check_field(name: str, raw: Any, expected: Any) -> None:
    form = form_of(EVERY_TYPE, ["name", "langs"])
    result = check_field(form.field(name), raw)
    if isinstance(expected, FieldError):
        assert isinstance(result, FieldError) and result.message.startswith(expected.message), result
    else:
        assert result == expected and type(result) is type(expected)


def test_check_form_reports_every_failing_field() -> None:
    form = form_of(EVERY_TYPE, ["name", "langs"])
    result = check_form(form, {"name": "", "years": "old", "email": "nope"})
    assert not result.ok
    assert set(result.errors) == {"name", "years", "email", "langs"}
    assert result.errors["langs"] == "Required"


def test_min_items_applies_to_an_optional_multi_select_with_a_choice() -> None:
    form = form_of({"m": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 2}})
    assert check_field(form.field("m"), ()) is None
    assert check_field(form.field("m"), ("a",)) == FieldError("Pick at least 2")


def test_check_content_catches_what_a_buggy_asker_might_send() -> None:
    form = form_of(EVERY_TYPE, ["name", "langs"])
    good = check_form(form, {"langs": ("py",)}).content
    assert check_content(form, good) == []
    problems = check_content(form, {**good, "years": "42", "extra": 1, "size": "XL", "rating": True})
    assert any("'years'" in p for p in problems) and any("'extra'" in p for p in problems)
    assert any("'size'" in p for p in problems) and any("'rating'" in p for p in problems)
    assert check_content(form, {"name": "Ada"}) == ["'langs': required"]


def test_hints_and_placeholders() -> None:
    form = form_of(EVERY_TYPE)
    assert field_hint(form.field("name")) == "2–20 characters"
    assert field_hint(form.field("email")) == "email address"
    assert field_hint(form.field("rating")) == "0 to 5"
    assert field_hint(form.field("years")) == "0 to 80 · whole number"
    assert field_hint(form.field("langs")) == "pick 1–2 choices"
    assert field_hint(form.field("pets")) == "pick any"
    assert field_hint(form.field("branch")) == "pattern ^[a-z0-9/-]+$"
    assert placeholder(form.field("born")) == "YYYY-MM-DD" and placeholder(form.field("years")) == "a whole number"


@pytest.mark.parametrize(
    ("properties", "reason"),
    [
        ({"address": {"type": "object", "properties": {}}}, "'address': a field of type 'object'"),
        ({"x": {"type": "_vendor/colour"}}, "'x': a field of type '_vendor/colour'"),
        ({"tags": {"type": "array", "items": {"type": "integer"}}}, "'tags': choices of type 'integer'"),
        ({"e": {"type": "string", "enum": []}}, "'e': offers no choices"),
        ({"e": {"type": "string", "enum": [str(n) for n in range(1001)]}}, "'e': 1001 choices"),
        ({f"f{n}": {"type": "boolean"} for n in range(501)}, "501 fields"),
    ],
)
def test_unrenderable_schemas_say_why(properties: dict[str, Any], reason: str) -> None:
    request = decode(form_params(properties), 1)  # v1 allows the empty enum too
    assert isinstance(request, FormElicitation)
    form = build_form(request.requested_schema)
    assert isinstance(form, Unrenderable)
    assert form.reasons[0].startswith(reason), form.reasons


def test_hostile_labels_are_sanitised_and_keys_kept_exact() -> None:
    hostile = "[bold red]Name[/] \x1b]8;;https://evil\x1b\\click\x1b]8;;\x1b\\ \x1b]52;c;aGk=\x07\u202egnp.exe"
    form = form_of(
        {
            "na\u202eme": {"type": "string", "title": hostile, "description": "line1\n\x1b[2Jline2"},
            "pick": {"type": "string", "oneOf": [{"const": "v\x1b", "title": "\x1b[31mred\u2066"}]},
        }
    )
    field = form.fields[0]
    assert field.name == "na\u202eme"  # sent back exactly as the agent named it
    assert field.label == "[bold red]Name[/] click gnp.exe"
    assert field.description == "line1\nline2"
    pick = form.field("pick")
    assert isinstance(pick, SelectField) and pick.choices == (Choice("v\x1b", "red"),)


def test_two_hundred_fields() -> None:
    properties = {f"field_{n:03}": {"type": "string", "title": f"Field {n}", "default": str(n)} for n in range(200)}
    form = form_of(properties, list(properties))
    assert len(form.fields) == 200 and form.fields[-1].label == "Field 199"
    result = check_form(form, {})
    assert result.ok and result.content["field_150"] == "150"


# --- patterns that must not freeze the UI ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "risky"),
    [
        ("^[a-z]+$", False),
        ("^\\d{4}-\\d{2}$", False),
        ("^(ab)+$", False),
        ("^(?:[a-z0-9]+(?:-[a-z0-9]+)*)$", True),
        ("(a+)+$", True),
        ("(a*)*b", True),
        ("(a|aa)+", True),
        ("((ab)*c)+", True),
        ("(a{2,})+", True),
        ("(a+){2}", True),
        ("(a+)?", False),
        ("(a+){1}", False),
        ("[(a+)+]", False),
        ("\\(a+\\)+", False),
        ("a{,5}", False),
        ("x{", False),
    ],
)
def test_backtracking_shapes(pattern: str, risky: bool) -> None:
    assert _may_backtrack_badly(pattern) is risky


def test_a_catastrophic_pattern_is_left_to_the_agent() -> None:
    form = form_of({"a": {"type": "string", "pattern": "^(a+)+$"}, "b": {"type": "string", "pattern": "(["}})
    # without the guard this match would never end (the test's timeout would fail it); with it, it returns
    assert check_field(form.field("a"), "a" * 40 + "!") == "a" * 40 + "!"
    assert check_field(form.field("b"), "anything") == "anything"
    field = form.field("a")
    assert isinstance(field, TextField) and not field.pattern_checked


# --- URLs ----------------------------------------------------------------------------------------------


def test_plain_url_marks_the_host() -> None:
    view = describe_url("https://user@login.example.com:8443/path?q=1#f")
    assert view.can_open and view.host == "login.example.com"
    assert view.segments == (
        ("https://user@", "text"),
        ("login.example.com", "host"),
        (":8443/path?q=1#f", "text"),
    )
    assert any("user name" in w for w in view.warnings)


@pytest.mark.parametrize(
    ("url", "warning", "can_open"),
    [
        ("https://example.com/\u202egnp.exe", "invisible or control", False),
        ("https://example.com/\x1b]8;;https://evil\x1b\\x", "invisible or control", False),
        ("https://example.com/\x1b]52;c;aGk=\x07", "invisible or control", False),
        ("https://xn--80ak6aa92e.com/", "international name", True),
        ("https://аррӏе.com/", "international name", True),
        ("http://192.168.0.1/login", "bare IP address", True),
        ("javascript:alert(1)", "not a web address", False),
        ("file:///etc/passwd", "not a web address", False),
        ("https://exa mple.com", "spaces", False),
        ("https:///path", "no host", False),
        ("https://[::1/", "cannot be read", False),
        ("https://example.com/" + "a" * 2100, "very long", True),
    ],
)
def test_suspicious_urls_warn(url: str, warning: str, can_open: bool) -> None:
    view = describe_url(url)
    assert any(warning in w for w in view.warnings), view.warnings
    assert view.can_open is can_open
    shown = "".join(text for text, _ in view.segments)
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown


def test_hidden_characters_are_shown_as_escapes() -> None:
    view = describe_url("https://ok.test/\u202eexe.txt\x1b[2J")
    assert ("\\u202e", "hidden") in view.segments and ("\\x1b", "hidden") in view.segments
    assert "".join(t for t, _ in view.segments) == "https://ok.test/\\u202eexe.txt\\x1b[2J"


def test_idn_host_is_shown_in_both_forms() -> None:
    view = describe_url("https://xn--80ak6aa92e.com/")
    assert view.host == "xn--80ak6aa92e.com" and view.host_unicode == "аррӏе.com"
