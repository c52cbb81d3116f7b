"""Coalescing a burst of changes: fewer operations, same effect."""

from __future__ import annotations

from acp_tui.session.changes import (
    BytesAppended,
    Change,
    ContentReplaced,
    EntityAdded,
    EntityChanged,
    StateChanged,
    TextAppended,
)
from acp_tui.session.coalesce import coalesce

MSG = ("agent_message", "m1")
TOOL = ("tool_call", "t1")
TERM = ("terminal", "x")


def test_runs_of_appends_to_one_entity_become_one_append() -> None:
    changes: list[Change] = [
        TextAppended(MSG, "a"),
        TextAppended(MSG, "b"),
        BytesAppended(TERM, b"1"),
        BytesAppended(TERM, b"2"),
        TextAppended(MSG, "c"),
    ]
    assert coalesce(changes) == [TextAppended(MSG, "ab"), BytesAppended(TERM, b"12"), TextAppended(MSG, "c")]


def test_changes_to_an_entity_added_in_the_same_batch_are_dropped() -> None:
    changes: list[Change] = [
        EntityAdded(MSG, 0),
        TextAppended(MSG, "hello"),
        EntityChanged(MSG, frozenset({"meta"})),
        StateChanged("running", True),
    ]
    assert coalesce(changes) == [EntityAdded(MSG, 0), StateChanged("running", True)]


def test_field_changes_merge_at_their_first_position() -> None:
    changes: list[Change] = [
        EntityChanged(TOOL, frozenset({"status"})),
        TextAppended(MSG, "x"),
        EntityChanged(TOOL, frozenset({"title"})),
        ContentReplaced(TOOL),
    ]
    assert coalesce(changes) == [
        EntityChanged(TOOL, frozenset({"status", "title"})),
        TextAppended(MSG, "x"),
        ContentReplaced(TOOL),
    ]


def test_a_long_burst_is_joined_once() -> None:
    changes = [TextAppended(MSG, "x") for _ in range(50_000)]
    (only,) = coalesce(changes)
    assert isinstance(only, TextAppended) and only.text == "x" * 50_000
