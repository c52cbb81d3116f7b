"""Fold a burst of `Change`s into the fewest widget operations, so a frame costs O(new data).

Streaming agents send thousands of chunks a second; the UI applies what arrived since the last frame
in one go. Two folds keep that cheap and correct (see the rendering guide in `changes.py`):
- an entity added in this batch is rendered from the model as it is now, so its later changes in the
  same batch are dropped (the model already holds them);
- consecutive text appends to one entity become one append, and repeated field changes of one
  entity merge into one `EntityChanged` with the union of the fields, kept at its first position.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias, cast

from acp_tui.session.changes import (
    BytesAppended,
    Change,
    ContentAppended,
    ContentReplaced,
    EntityAdded,
    EntityChanged,
    TextAppended,
)
from acp_tui.session.model import EntityKey

_ENTITY_CHANGES = (TextAppended, ContentAppended, BytesAppended, ContentReplaced, EntityChanged)

# A run of consecutive appends to one key; all of one type (text or bytes) by construction.
_Run: TypeAlias = list[TextAppended | BytesAppended]


def coalesce(changes: Iterable[Change], added: set[EntityKey] | None = None) -> list[Change]:
    """The same effect as applying `changes` in order, with fewer and larger operations.

    `added` carries the keys added earlier in the same frame when one frame is applied in several
    pieces (their later changes are in the model already); it is updated in place.
    """
    out: list[Change | _Run] = []
    if added is None:
        added = set()
    field_slot: dict[EntityKey, int] = {}  # index in `out` of the merged EntityChanged for a key
    for change in changes:
        if isinstance(change, EntityAdded):
            added.add(change.key)
            out.append(change)
            continue
        if not isinstance(change, _ENTITY_CHANGES):
            out.append(change)
            continue
        key = change.key
        if key in added:
            continue
        if isinstance(change, EntityChanged):
            slot = field_slot.get(key)
            if slot is None:
                field_slot[key] = len(out)
                out.append(change)
            else:
                merged = out[slot]
                assert isinstance(merged, EntityChanged)
                out[slot] = EntityChanged(key, merged.fields | change.fields)
            continue
        if isinstance(change, (TextAppended, BytesAppended)):
            # Runs of appends to one key are collected in a list and joined once (no quadratic concat).
            last = out[-1] if out else None
            if isinstance(last, list) and type(last[0]) is type(change) and last[0].key == key:
                last.append(change)
            else:
                out.append([change])
            continue
        out.append(change)
    return [_join(item) if isinstance(item, list) else item for item in out]


def _join(run: _Run) -> Change:
    first = run[0]
    if len(run) == 1:
        return first
    if isinstance(first, TextAppended):
        return TextAppended(first.key, "".join(c.text for c in cast(list[TextAppended], run)))
    return BytesAppended(first.key, b"".join(c.data for c in cast(list[BytesAppended], run)))
