"""Model changes → widgets: each change touches exactly one widget (the view of its entity).

`TimelineRenderer` keeps the map from entity keys to the widgets that show them, builds a widget when
an entity appears (rendered from the model as it is then, through `view_class`: one view class per
entity kind), and forwards appends and field changes to that widget's `EntityView` methods. It never
recomposes anything. Its dispatch over `Change` is exhaustive (`assert_never`).

Prompt submissions are shown as pending bubbles until the agent inserts them; the bubble then becomes
the user message it turned into (or goes away when the agent reported the message first). Terminals
that a tool call refers to are shown inside that card; others stand alone in the timeline.

The views of the agent's output (messages, thoughts, tool calls, file access, compaction summaries,
subagents, unknown updates) and of the user's messages are imported with the first entity of their kind
(`view_class`): they draw with Markdown and Pygments, which the first screen, an empty conversation, does not
need (issue 27's start-up).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, assert_never, cast, runtime_checkable

import msgspec
from textual.widget import Widget

from acp_tui.protocol.methods import RequestPermissionRequest
from acp_tui.services.permission import named_call_id
from acp_tui.session import changes as ch
from acp_tui.session.model import (
    AGENT_MESSAGE,
    AGENT_THOUGHT,
    COMPACTION,
    FILE_ACCESS,
    PLAN,
    SUBAGENT,
    TERMINAL,
    TOOL_CALL,
    UNKNOWN,
    USER_MESSAGE,
    EntityKey,
    Message,
    SessionState,
    ToolCall,
)
from acp_tui.ui.timeline.terminal_view import TerminalView
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.plan_view import PlanView

if TYPE_CHECKING:
    from acp_tui.ui.timeline.user_message import UserMessageView


@runtime_checkable
class TextView(Protocol):
    """A view whose entity streams text (messages, thoughts, compaction summaries)."""

    def append_text(self, text: str) -> None: ...


@runtime_checkable
class ContentView(Protocol):
    """A view that takes appended content items and whole-content replacements."""

    def append_content(self, item: Any) -> None: ...

    def replace_content(self) -> None: ...


@runtime_checkable
class FieldsView(Protocol):
    """A view that re-renders named scalar fields of its entity."""

    def apply_fields(self, fields: frozenset[str]) -> None: ...


@runtime_checkable
class StreamingView(Protocol):
    """A view that folds or settles once its entity stops growing."""

    def finish(self) -> None: ...


@runtime_checkable
class TerminalHolder(Protocol):
    """A view that shows the terminals its entity refers to inside it (a tool call's card)."""

    @property
    def terminal_ids(self) -> list[str]: ...

    def attach_terminal(self, view: Widget) -> bool: ...

    def terminal_changed(self) -> None: ...


class _Capabilities(msgspec.Struct, frozen=True):
    """Which view protocols a view class provides (a Protocol isinstance check costs microseconds, and the
    timeline asks for every change of every frame, so it is asked once per class)."""

    text: bool
    content: bool
    fields: bool
    streaming: bool
    terminals: bool


_CAPABILITIES: dict[type, _Capabilities] = {}


def _capabilities(view: object) -> _Capabilities:
    kind = type(view)
    known = _CAPABILITIES.get(kind)
    if known is None:
        known = _CAPABILITIES[kind] = _Capabilities(
            isinstance(view, TextView),
            isinstance(view, ContentView),
            isinstance(view, FieldsView),
            isinstance(view, StreamingView),
            isinstance(view, TerminalHolder),
        )
    return known


def holds_terminals(view: object) -> TerminalHolder | None:
    """`view` as a holder of terminals (a tool call's card), else None."""
    return cast(TerminalHolder, view) if _capabilities(view).terminals else None


def view_class(kind: str) -> Callable[[Any], Widget] | None:
    """The view class of an entity kind (None: a kind not shown this way); the views of the agent's output are
    imported here, with the first entity of their kind. Tool calls, terminals and subagents are built in
    `TimelineRenderer._build` (they take more than the entity)."""
    if kind == USER_MESSAGE:
        return _user_message_view()
    if kind == TERMINAL:
        return TerminalView
    if kind == PLAN:
        return PlanView
    if kind == UNKNOWN:
        from acp_tui.ui.timeline.unknown_update import UnknownUpdateView

        return UnknownUpdateView
    if kind == AGENT_MESSAGE:
        from acp_tui.ui.timeline.agent_message import AgentMessageView

        return AgentMessageView
    if kind == AGENT_THOUGHT:
        from acp_tui.ui.timeline.thought_view import ThoughtView

        return ThoughtView
    if kind == COMPACTION:
        from acp_tui.ui.timeline.compaction import CompactionView

        return CompactionView
    if kind == FILE_ACCESS:
        from acp_tui.ui.timeline.file_access import FileAccessView

        return FileAccessView
    if kind == SUBAGENT:
        from acp_tui.ui.timeline.subagent_lane import SubagentLane

        return SubagentLane
    return None


def _user_message_view() -> type[UserMessageView]:
    """The user's messages' view, imported with the first of them (as `view_class` imports the agent's)."""
    from acp_tui.ui.timeline.user_message import UserMessageView

    return UserMessageView


#: Kinds whose arrival means the agent moved on: a thought before a tool call folds away.
MOVES_ON = frozenset({AGENT_MESSAGE, AGENT_THOUGHT, TOOL_CALL})
STREAMING_KINDS = frozenset({AGENT_MESSAGE, AGENT_THOUGHT})


class CallClock:
    """How long each live tool call ran, on our clock: agents do not say, and the line says `· 1.2 s`.

    A call's run starts when we first see it unfinished, again when it goes `in_progress` and again when its
    permission request is answered (time spent waiting for the user is not the tool's), and ends when we see
    it finished. Only changes seen live count: a call first seen finished (a history, or a call that came and
    went within one frame) has no duration rather than a wrong one.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._started: dict[EntityKey, float] = {}
        self._status: dict[EntityKey, str] = {}
        self._took: dict[EntityKey, float] = {}
        self._asked: dict[int | str, str] = {}  # open permission request id → the tool call id it names

    def seen(self, call: ToolCall) -> None:
        """The call was added or its status changed (as the model says now)."""
        key = call.key
        if key in self._took:
            return  # the first finish counts
        before = self._status.get(key)
        self._status[key] = call.status
        if call.finished:
            start = self._started.pop(key, None)
            self._status.pop(key, None)
            if start is not None:
                self._took[key] = max(0.0, self._clock() - start)
        elif key not in self._started or (call.status == "in_progress" and before != "in_progress"):
            self._started[key] = self._clock()

    def permissions(self, state: SessionState, change: ch.PermissionsChanged) -> None:
        """Permission requests opened (remember the call each names) or answered (its run starts now)."""
        opened, resolved = change.opened, tuple(request_id for request_id, _ in change.resolved)
        for request_id in change.dropped:
            self._asked.pop(request_id, None)
        for request_id in opened:
            pending = state.permissions.get(request_id)
            request = pending.request if pending is not None else None
            call_id = named_call_id(request) if isinstance(request, RequestPermissionRequest) else None
            if call_id is not None:
                self._asked[request_id] = call_id
        for request_id in resolved:
            call_id = self._asked.pop(request_id, None)
            call = state.tool_call(call_id) if call_id is not None else None
            if call is not None and call.key in self._started:
                self._started[call.key] = self._clock()

    def took(self, key: EntityKey) -> float | None:
        """Seconds the call ran, once it finished (None: not measured)."""
        return self._took.get(key)

    def forget(self, key: EntityKey) -> None:
        for table in (self._started, self._status, self._took):
            table.pop(key, None)


class TimelineRenderer:
    """Routes entity changes of one `SessionState` to the widgets in one `Conversation`."""

    def __init__(self, conversation: Conversation, state: SessionState) -> None:
        self.conversation = conversation
        self.state = state
        self.views: dict[EntityKey, Widget] = {}
        self._bubbles: dict[int | str, UserMessageView] = {}
        self._streaming: set[EntityKey] = set()  # messages and thoughts still growing
        self.clock = CallClock()

    # -- dispatch --------------------------------------------------------------------------------

    def apply(self, change: ch.Change) -> None:
        """Apply one change; those about state beside the timeline are the status renderer's."""
        self._time(change)
        match change:
            case ch.EntityAdded(key=key):
                self._add(key)
            case ch.SubmissionChanged(request_id=request_id):
                self.submission_changed(request_id)
            case ch.StateChanged(busy=busy):
                if not busy:
                    self.finish_streams()  # the turn is over: its last thought folds away
            case ch.TextAppended(key=key, text=text):
                view = self._view(key)
                if _capabilities(view).text:
                    cast(TextView, view).append_text(text)
            case ch.ContentAppended(key=key, item=item):
                view = self._view(key)
                if _capabilities(view).content:
                    cast(ContentView, view).append_content(item)
            case ch.BytesAppended(key=key, data=data):
                view = self._view(key)
                if isinstance(view, TerminalView):
                    view.append_bytes(data)
                    self._terminal_changed(view)  # a finished card's output tail
            case ch.ContentReplaced(key=key):
                self._replace(key)
            case ch.EntityChanged(key=key, fields=fields):
                view = self._view(key)
                if _capabilities(view).fields:
                    cast(FieldsView, view).apply_fields(fields)
                if (card := holds_terminals(view)) is not None:
                    self._attach_terminals(card)
                elif isinstance(view, TerminalView):
                    self._terminal_changed(view)
            case ch.EntityRemoved(key=key):
                removed = self.views.pop(key, None)
                if removed is not None:
                    removed.remove()
            case (
                ch.UsageChanged()
                | ch.AccountChanged()
                | ch.NoticeRaised()
                | ch.CommandsChanged()
                | ch.ConfigChanged()
                | ch.InfoChanged()
                | ch.PermissionsChanged()
                | ch.ProblemAdded()
                | ch.AgentGone()
                | ch.TurnEnded()
            ):
                pass
            case _:
                assert_never(change)

    def _time(self, change: ch.Change) -> None:
        """Keep the tool calls' clock (before the views draw the change, so a finished line has its duration)."""
        match change:
            case ch.EntityAdded(key=key) | ch.EntityChanged(key=key) if key[0] == TOOL_CALL:
                if not isinstance(change, ch.EntityChanged) or "status" in change.fields:
                    call = self._entity(key)
                    if isinstance(call, ToolCall):
                        self.clock.seen(call)
            case ch.PermissionsChanged():
                self.clock.permissions(self.state, change)
            case ch.EntityRemoved(key=key):
                self.clock.forget(key)
            case _:
                pass

    def _view(self, key: EntityKey) -> object:
        """The view of `key` (typed loosely: what it can do is asked with the view protocols)."""
        return self.views.get(key)

    def _replace(self, key: EntityKey) -> None:
        view = self._view(key)
        if isinstance(view, TerminalView):
            view.reset_and_replay()
            self._terminal_changed(view)
        elif isinstance(view, _user_message_view()):
            view.replace_content(self._entity(key))
        elif _capabilities(view).content:
            cast(ContentView, view).replace_content()

    def _entity(self, key: EntityKey) -> Any:
        return self.state.entities.get(key)

    # -- new entities ----------------------------------------------------------------------------

    def _add(self, key: EntityKey) -> None:
        if key in self.views:
            return  # already shown (an adopted bubble)
        entity = self._entity(key)
        if entity is None:
            return
        kind = key[0]
        if kind in MOVES_ON:
            self.finish_streams()
        if kind == USER_MESSAGE and self._adopt_bubble(entity):
            return
        view = self._build(kind, entity)
        if view is None:
            return
        self.views[key] = view
        if kind in STREAMING_KINDS:
            self._streaming.add(key)
        if isinstance(view, TerminalView) and self._place_terminal_in_card(view):
            return
        self._mount(view)

    def _build(self, kind: str, entity: Any) -> Widget | None:
        """The view of a new entity, rendered from the model as it is now (None: a kind not shown)."""
        if kind == TOOL_CALL:
            from acp_tui.ui.timeline.tool_call import ToolCallCard  # with the first tool call (see the docstring)

            return ToolCallCard(
                entity,
                terminal_factory=self._terminal_for_card,
                context=self.conversation.context,
                took=self.clock.took,
            )
        if kind == TERMINAL:
            return TerminalView(entity, context=self.conversation.context)
        if kind == SUBAGENT:
            from acp_tui.ui.timeline.subagent_lane import SubagentLane

            return SubagentLane(entity, context=self.conversation.context)
        view = view_class(kind)
        return view(entity) if view is not None else None

    def _mount(self, view: Widget) -> None:
        """Put a new entity's view in the conversation (at the end; a history view may put it higher)."""
        self.conversation.add_entry(view)

    def _flush_pending(self) -> None:
        """Mount what waits for the end of the frame (a timeline that defers its mounts)."""

    def finish_streams(self) -> None:
        """The agent moved on or the turn ended: every growing message and thought is complete."""
        for key in self._streaming:
            view = self._view(key)
            if _capabilities(view).streaming:
                cast(StreamingView, view).finish()
        self._streaming.clear()

    # -- submissions -------------------------------------------------------------------------------

    def submission_changed(self, request_id: int | str) -> None:
        """A prompt submission appeared, changed state, or left the table (inserted or dismissed)."""
        submission = self.state.submissions.get(request_id)
        bubble = self._bubbles.get(request_id)
        if submission is not None:
            if bubble is None:
                bubble = _user_message_view().from_submission(submission)
                self._bubbles[request_id] = bubble
                self._flush_pending()  # after what the frame built before it
                self.conversation.add_entry(bubble)
            else:
                bubble.apply_submission(submission)
            return
        if bubble is None:
            return
        del self._bubbles[request_id]
        message = self._message_for_submission(request_id)
        if message is not None and message.key not in self.views:
            self._adopt(bubble, message)
        elif bubble.message is None:
            bubble.remove()  # the agent reported this message first: its own view is already shown

    def _adopt_bubble(self, message: Message) -> bool:
        bubble = self._bubbles.pop(message.submission_id, None) if message.submission_id is not None else None
        if bubble is None:
            return False
        self._adopt(bubble, message)
        return True

    def _adopt(self, bubble: UserMessageView, message: Message) -> None:
        bubble.replace_content(message)
        bubble.set_sent()
        self.views[message.key] = bubble

    def _message_for_submission(self, request_id: int | str) -> Message | None:
        for key, entity in reversed(self.state.entities.items()):
            if key[0] == USER_MESSAGE and isinstance(entity, Message) and entity.submission_id == request_id:
                return entity
        return None

    # -- terminals inside tool cards ---------------------------------------------------------------

    def _terminal_for_card(self, terminal_id: str) -> Widget | None:
        """A card refers to a terminal: give it a view (moving a standalone one into the card)."""
        key = (TERMINAL, terminal_id)
        terminal = self._entity(key)
        if terminal is None:
            return None  # not reported yet; it goes into the card when it appears
        existing = self.views.get(key)
        if existing is not None and existing.parent is not None and not isinstance(existing.parent, Conversation):
            return None  # already shown in a card
        if existing is not None and existing.is_attached:
            existing.remove()
        view = TerminalView(terminal, context=self.conversation.context)
        self.views[key] = view
        return view

    def _place_terminal_in_card(self, view: TerminalView) -> bool:
        for candidate in self.views.values():
            card = holds_terminals(candidate)
            if card is not None and view.terminal_id in card.terminal_ids and card.attach_terminal(view):
                return True
        return False

    def _terminal_changed(self, view: TerminalView) -> None:
        """A terminal shown in a card changed: the card's line says how it ended, and shows its last output."""
        for node in view.ancestors:
            if (card := holds_terminals(node)) is not None:
                card.terminal_changed()
                return

    def _attach_terminals(self, card: TerminalHolder) -> None:
        for terminal_id in card.terminal_ids:
            view = self.views.get((TERMINAL, terminal_id))
            if isinstance(view, TerminalView) and not view.is_attached:
                card.attach_terminal(view)


__all__ = ["MOVES_ON", "STREAMING_KINDS", "TerminalHolder", "TimelineRenderer", "holds_terminals", "view_class"]
