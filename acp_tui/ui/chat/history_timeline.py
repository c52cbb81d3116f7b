"""A session shown whole in a fresh timeline: its newest entries at once, earlier ones as the user scrolls up.

When a session opens (a new one, or a past one with its replayed history, docs/protocol.md §3) the screen
shows the controller's model from scratch. A history of thousands of entries would take seconds to build
as widgets, and the user looks at its end first: so the newest `TAIL` entities are built at once and a
line above them says how many are earlier. Reaching that line (scrolling to the top, or clicking it)
builds the previous `STEP` above, and the view stays where it was. An entity is built from the model as
it is then, so nothing that changed meanwhile is lost.

A live conversation is the same timeline: while the user follows the newest output, the oldest built
entries beyond `LIVE` fold back into that line (`trim`, once per frame), so a turn of hundreds of blocks
costs Textual's layout the same as a short one; scrolling up builds them again from the model. A frame
that brings a burst (the app fell behind a fast agent) mounts at most `BURST` of its newest entries and
keeps fewer built, so catching up costs what the screen shows, not what arrived; once the burst is
over (the turn ended and no frame built anything for a poll) the followed conversation is built back up
to `LIVE` in one go, so PageUp stays cheap.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.path_text import display_path
from acp_tui.protocol.v2 import TerminalRef
from acp_tui.session.changes import InfoChanged, PermissionsChanged, StateChanged, UsageChanged
from acp_tui.session.model import (
    AGENT_MESSAGE,
    AGENT_THOUGHT,
    TERMINAL,
    TOOL_CALL,
    EntityKey,
    SessionState,
    ToolCall,
)
from acp_tui.ui.chat.status import StatusRenderer
from acp_tui.ui.timeline.renderer import MOVES_ON, STREAMING_KINDS, TimelineRenderer, holds_terminals
from acp_tui.ui.widgets.conversation import Conversation

#: Entities built when a session opens (the end of its history).
TAIL = 40
#: Entities built each time the user reaches the top.
STEP = 100
#: Entries a followed conversation keeps built (several screens: PageUp stays cheap); older ones fold into the "earlier" line.
LIVE = 150
#: Entries a frame mounts at most while following (more than a screen: 1 row is the least an entry takes).
BURST = 60
#: Kinds whose views a followed frame builds only at its end, and only if they stay (most of a long turn).
DEFERRED_KINDS = frozenset({AGENT_MESSAGE, AGENT_THOUGHT, TOOL_CALL})
#: How often the "earlier" line checks whether it is in view, or builds back after a burst (only while its
#: screen is shown).
POLL = 0.2


class EarlierEntries(Static):
    """`↑ 1,234 earlier entries`: reaching it (in view, or clicked) shows the previous ones."""

    DEFAULT_CLASSES = "earlier-entries"

    def __init__(self, count: int, reveal: Callable[[], object], refill: Callable[[], object] = lambda: None) -> None:
        super().__init__(self._label(count), markup=False)
        self._reveal = reveal
        self._refill = refill
        self._timer: Timer | None = None
        self._asked = False

    @staticmethod
    def _label(count: int) -> str:
        return f"↑ {count:,} earlier {'entry' if count == 1 else 'entries'} — scroll up or click to show them"

    def set_count(self, count: int) -> None:
        self.update(self._label(count))
        self._asked = False

    def on_mount(self) -> None:
        self._timer = self.set_interval(POLL, self._check, pause=not self.screen.is_current)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def _screen_changed(self, screen: object) -> None:
        """Poll only while this line's screen is on the terminal: a hidden tab (or one under a full screen)
        costs no CPU, and nobody can scroll it meanwhile."""
        if self._timer is None:
            return
        if self.screen.is_current:
            self._timer.resume()
        else:
            self._timer.pause()

    def on_click(self) -> None:
        self._ask()

    def _check(self) -> None:
        parent = self.parent
        if not isinstance(parent, Conversation) or parent.max_scroll_y <= 0:
            return
        if parent.following:
            self._refill()  # at the newest entry: not asked for, but built back up after a burst
            return
        if parent.scroll_y <= self.virtual_region.bottom:
            self._ask()

    def _ask(self) -> None:
        if not self._asked:
            self._asked = True  # once per chunk: the next one is asked for when this one is shown
            self._reveal()


class HistoryTimeline(TimelineRenderer):
    """A `TimelineRenderer` over a model that already holds entities: the newest built now, the rest on demand."""

    def __init__(self, conversation: Conversation, state: SessionState, *, tail: int = TAIL) -> None:
        super().__init__(conversation, state)
        keys = list(state.entities)
        split = max(0, len(keys) - tail)
        self._hidden: list[EntityKey] = keys[:split]
        self._hidden_set: set[EntityKey] = set(self._hidden)
        self._before: Widget | None = None
        self._deferring = False
        self._pending: list[Widget | EntityKey] = []  # this frame's new views, or the keys of those built at its end
        self._built_at = 0.0  # when a frame last built views (the followed end is built back once quiet)
        self._owed = 0  # entries a burst folded beyond `LIVE`'s rule, built back by `refill`
        self._removing: set[int] = set()  # folded views Textual has not removed yet (ids)
        self._deferred: set[EntityKey] = set()  # the keys in `_pending`
        self.earlier: EarlierEntries | None = None
        if self._hidden:
            self.earlier = self._earlier_line()
            conversation.add_entry(self.earlier)
        for key in keys[split:]:
            self._add(key)
        self.finish_streams()  # a history is complete: nothing of it is still streaming
        self._pending = []
        self._deferring = True  # from now on views built in a frame are mounted at its end (`trim`)

    @property
    def hidden(self) -> int:
        """How many entities are not built yet."""
        return len(self._hidden)

    def _add(self, key: EntityKey) -> None:
        if key in self._hidden_set:
            return  # built when the user reaches it, from the model as it is then
        if key[0] == TERMINAL:
            self._flush_pending()  # it may go into a card built this frame
        if self._deferring and self._before is None and self._defer(key):
            return
        super()._add(key)

    def _defer(self, key: EntityKey) -> bool:
        """A message, thought or card that arrives in a frame is built at the frame's end (`trim`), from
        the model as it is then, and only if it is not folded at once: a burst builds what it shows.
        Later changes in the same frame are in the model already (`coalesce` drops them)."""
        kind = key[0]
        if kind not in DEFERRED_KINDS or key in self.views or key in self._deferred:
            return False
        entity = self._entity(key)
        if entity is None:
            return False
        if isinstance(entity, ToolCall) and any(isinstance(item, TerminalRef) for item in entity.content):
            return False  # its terminals look for the card as they arrive
        if kind in MOVES_ON:
            self.finish_streams()
        if kind in STREAMING_KINDS:
            self._streaming.add(key)
        self._pending.append(key)
        self._deferred.add(key)
        return True

    def _build_pending(self, pending: list[Widget | EntityKey], skip: set[EntityKey]) -> list[Widget]:
        """The views of this frame, in order: those built already, and the deferred ones (but `skip`)."""
        self._deferred.clear()
        views: list[Widget] = []
        for item in pending:
            if isinstance(item, Widget):
                views.append(item)
                continue
            if item in skip or item in self.views:
                continue
            entity = self._entity(item)
            view = self._build(item[0], entity) if entity is not None else None
            if view is None:
                self._streaming.discard(item)
                continue
            self.views[item] = view
            if item[0] in STREAMING_KINDS and item not in self._streaming:
                finish = getattr(view, "finish", None)
                if callable(finish):
                    finish()  # the agent moved on (or the turn ended) before the frame's end
            views.append(view)
        return views

    def _mount(self, view: Widget) -> None:
        if self._before is not None:
            self.conversation.mount(view, before=self._before)
        elif self._deferring:
            self._pending.append(view)
        else:
            super()._mount(view)

    def _earlier_line(self) -> EarlierEntries:
        return EarlierEntries(len(self._hidden), self.show_earlier, self.refill)

    def refill(self) -> int:
        """Once the turn is over and no frame built anything for a poll, while the user follows the end,
        build back what bursts folded beyond `LIVE`'s rule, in one go (one frame's pause, when the user
        reads the end; in small steps it slowed every key typed for seconds); returns how many were built."""
        if not self._owed or not self.conversation.following or self.state.foreground.busy:
            return 0
        if time.monotonic() - self._built_at < POLL:
            return 0
        entries = self._entries()
        shown = len(entries) - (entries.index(self.earlier) + 1 if self.earlier in entries else 0)
        owed, self._owed = min(self._owed, max(0, LIVE - shown)), 0
        return self.show_earlier(owed, keep_view=False) if owed else 0

    def show_earlier(self, count: int = STEP, *, keep_view: bool = True) -> int:
        """Build the `count` entities before the oldest shown, above it; returns how many were built.
        `keep_view`: keep what the user reads in place (a followed view is kept at the end by its anchor)."""
        if not self._hidden or self.earlier is None:
            return 0
        chunk = self._hidden[-count:]
        del self._hidden[-count:]
        self._hidden_set.difference_update(chunk)
        entries = self._entries()
        position = entries.index(self.earlier) if self.earlier in entries else -1
        self._before = entries[position + 1] if 0 <= position < len(entries) - 1 else None
        conversation = self.conversation
        old_height, old_y = conversation.virtual_size.height, conversation.scroll_y
        self._flush_pending()
        live = self._streaming  # what is still growing at the end goes on growing
        self._streaming = set()
        try:
            for key in chunk:
                self._add(key)
            self.finish_streams()  # what is earlier is complete
        finally:
            self._before = None
            self._streaming = live
        if self._hidden:
            self.earlier.set_count(len(self._hidden))
        else:
            self.earlier.remove()
            self.earlier = None
        if keep_view:
            # Keep what the user was reading where it was: the new entries push it down by their height.
            conversation.call_after_refresh(
                lambda: conversation.scroll_to(y=old_y + conversation.virtual_size.height - old_height, animate=False)
            )
        return len(chunk)

    def _entries(self) -> list[Widget]:
        """The conversation's entries less those folded and still being removed (Textual removes them
        later: counted, they stopped the next frame's folding, and a burst's views piled up)."""
        entries = self.conversation.entries
        if self._removing:
            self._removing.intersection_update(id(widget) for widget in entries)
            entries = [widget for widget in entries if id(widget) not in self._removing]
        return entries

    def _flush_pending(self) -> None:
        """Mount the views built this frame now (a terminal or a bubble must find them in place)."""
        pending, self._pending = self._pending, []
        views = self._build_pending(pending, set())
        if views:
            self.conversation.mount_all(views)

    def trim(self, keep: int = LIVE) -> int:
        """End of a frame: mount the views built in it and, while the user follows the end, fold the
        oldest entries beyond `keep` into the earlier line; returns how many folded. A frame that built
        many views keeps fewer: `keep` less what it built, but at least `BURST` (so a burst mounts at
        most `BURST`, and `refill` builds back once the turn is over). A view built and folded in the same frame is
        never mounted (mounting is most of what a block costs). Only complete entity views fold (they
        are built again from the model when scrolled to); a note, a growing message or a card holding a
        terminal stops the folding where it is."""
        pending, self._pending = self._pending, []
        conversation = self.conversation
        entries = self._entries()
        start = entries.index(self.earlier) + 1 if self.earlier is not None and self.earlier in entries else 0
        sequence = entries[start:] + pending
        if pending:
            self._built_at = time.monotonic()
        following = conversation.following
        excess = len(sequence) - max(min(keep, BURST), keep - len(pending)) if following else 0
        folded: list[EntityKey] = []
        if excess > 0:
            key_of = {id(view): key for key, view in self.views.items()}
            for item in sequence[:excess]:
                key = key_of.get(id(item)) if isinstance(item, Widget) else item
                if key is None or key in self._streaming or key[0] == TERMINAL:
                    break
                if (card := holds_terminals(item)) is not None and card.terminal_ids:
                    break
                folded.append(key)
        if following:
            self._owed = min(keep, self._owed + max(0, len(folded) - max(0, len(sequence) - keep)))
        folded_keys = set(folded)
        gone = {id(self.views[key]) for key in folded if key in self.views}
        for key in folded:
            self.views.pop(key, None)
            self._hidden.append(key)
            self._hidden_set.add(key)
        mounted = [widget for widget in entries[start:] if id(widget) in gone]
        if mounted:
            self._removing.update(id(widget) for widget in mounted)
            conversation.remove_children(mounted)
        if folded:
            if self.earlier is None:
                self.earlier = self._earlier_line()
                kept = [widget for widget in entries if id(widget) not in gone]
                if kept:
                    conversation.mount(self.earlier, before=kept[0])
                else:
                    conversation.mount(self.earlier)
            else:
                self.earlier.set_count(len(self._hidden))
        fresh = self._build_pending([item for item in pending if id(item) not in gone], folded_keys)
        if fresh:
            conversation.mount_all(fresh)
        return len(folded)


def open_timeline(conversation: Conversation, state: SessionState, *, replaces: bool) -> HistoryTimeline:
    """A fresh timeline for the session now shown; `replaces`: the previous conversation goes first."""
    if replaces:
        conversation.remove_children(conversation.entries)
    timeline = HistoryTimeline(conversation, state)
    # The replay is over (this is its `SessionOpened`): show its newest entry. Following now found nothing
    # to scroll yet (the entries are not laid out), which left the view mid-history; after the refresh
    # that lays them out it has the whole height.
    conversation.follow()
    conversation.call_after_refresh(conversation.follow)
    return timeline


def show_session_status(renderer: StatusRenderer, state: SessionState, cwd: str) -> None:
    """Header, status bar, config chips and commands of the session now shown."""
    renderer.reset(state)
    for change in (
        InfoChanged(frozenset({"title", "updated_at"})),
        UsageChanged(),
        StateChanged(state.foreground.state, state.foreground.busy),
        PermissionsChanged(),
    ):
        renderer.apply(state, change)
    renderer.status.update_values(problems=state.problem_count)
    renderer.header.update_values(cwd=display_path(cwd))


__all__ = [
    "BURST",
    "DEFERRED_KINDS",
    "EarlierEntries",
    "HistoryTimeline",
    "LIVE",
    "POLL",
    "STEP",
    "TAIL",
    "open_timeline",
    "show_session_status",
]
