"""Model changes → widgets: each change touches exactly one widget (the view of its entity).

`TimelineRenderer` keeps the map from entity keys to the widgets that show them, builds a widget
when an entity appears (rendered from the model as it is then), and forwards appends and field
changes to that widget's small update methods. It never recomposes anything.

Prompt submissions are shown as pending bubbles until the agent inserts them; the bubble then
becomes the user message it turned into (or goes away when the agent reported the message first).
Terminals that a tool call refers to are shown inside that card; others stand alone in the timeline.
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget

from acp_tui.session.changes import (
    BytesAppended,
    ContentAppended,
    ContentReplaced,
    EntityAdded,
    EntityChanged,
    EntityRemoved,
    TextAppended,
)
from acp_tui.session.model import (
    AGENT_MESSAGE,
    AGENT_THOUGHT,
    COMPACTION,
    PLAN,
    TERMINAL,
    TOOL_CALL,
    UNKNOWN,
    USER_MESSAGE,
    EntityKey,
    Message,
    SessionState,
)
from acp_tui.ui.widgets.agent_message import AgentMessageView
from acp_tui.ui.widgets.compaction import CompactionView
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.thought_view import ThoughtView
from acp_tui.ui.widgets.tool_call import ToolCallCard
from acp_tui.ui.widgets.unknown_update import UnknownUpdateView
from acp_tui.ui.widgets.user_message import UserMessageView

_ENTITY_CHANGES = (EntityAdded, EntityRemoved, TextAppended, ContentAppended, BytesAppended, ContentReplaced,
                   EntityChanged)


class TimelineRenderer:
    """Routes entity changes of one `SessionState` to the widgets in one `Conversation`."""

    def __init__(self, conversation: Conversation, state: SessionState) -> None:
        self.conversation = conversation
        self.state = state
        self.views: dict[EntityKey, Widget] = {}
        self._bubbles: dict[int | str, UserMessageView] = {}
        self._streaming: set[EntityKey] = set()  # messages and thoughts still growing

    # -- dispatch --------------------------------------------------------------------------------

    def apply(self, change: object) -> bool:
        """Apply one entity change; False when the change is not about a timeline entity."""
        if not isinstance(change, _ENTITY_CHANGES):
            return False
        key = change.key
        if type(change) is EntityAdded:
            self._add(key)
            return True
        view = self.views.get(key)
        if view is None:
            return True  # e.g. a change in the same frame as an adoption; the model is authoritative
        kind = type(change)
        if kind is TextAppended:
            view.append_text(change.text)  # type: ignore[attr-defined, union-attr]
        elif kind is ContentAppended:
            view.append_content(change.item)  # type: ignore[attr-defined, union-attr]
        elif kind is BytesAppended:
            view.append_bytes(change.data)  # type: ignore[attr-defined, union-attr]
        elif kind is ContentReplaced:
            if isinstance(view, TerminalView):
                view.reset_and_replay()
            elif isinstance(view, UserMessageView):
                view.replace_content(self._entity(key))
            else:
                view.replace_content()  # type: ignore[attr-defined]
        elif kind is EntityChanged:
            apply_fields = getattr(view, "apply_fields", None)
            if apply_fields is not None:
                apply_fields(change.fields)  # type: ignore[union-attr]
            if key[0] == TOOL_CALL and isinstance(view, ToolCallCard):
                self._attach_terminals(view)
        elif kind is EntityRemoved:
            self.views.pop(key, None)
            view.remove()
        return True

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
        if kind == AGENT_MESSAGE or kind == AGENT_THOUGHT or kind == TOOL_CALL:
            self._finish_streams()  # the agent moved on: a thought before a tool call folds away
        if kind == USER_MESSAGE:
            if self._adopt_bubble(key, entity):
                return
            view: Widget = UserMessageView(entity)
        elif kind == AGENT_MESSAGE:
            view = AgentMessageView(entity)
            self._streaming.add(key)
        elif kind == AGENT_THOUGHT:
            view = ThoughtView(entity)
            self._streaming.add(key)
        elif kind == TOOL_CALL:
            view = ToolCallCard(entity, terminal_factory=self._terminal_for_card)
        elif kind == TERMINAL:
            view = TerminalView(entity)
            self.views[key] = view
            if self._place_terminal_in_card(view):
                return
        elif kind == PLAN:
            view = PlanView(entity)
        elif kind == COMPACTION:
            view = CompactionView(entity)
        elif kind == UNKNOWN:
            view = UnknownUpdateView(entity)
        else:
            return
        self.views[key] = view
        self.conversation.add_entry(view)

    def finish_streams(self) -> None:
        """Foreground work ended: every growing message and thought is complete."""
        self._finish_streams()

    def _finish_streams(self) -> None:
        for key in self._streaming:
            view = self.views.get(key)
            finish = getattr(view, "finish", None)
            if finish is not None:
                finish()
        self._streaming.clear()

    # -- submissions -------------------------------------------------------------------------------

    def submission_changed(self, request_id: int | str) -> None:
        """A prompt submission appeared, changed state, or left the table (inserted or dismissed)."""
        submission = self.state.submissions.get(request_id)
        bubble = self._bubbles.get(request_id)
        if submission is not None:
            if bubble is None:
                bubble = UserMessageView.from_submission(submission)
                self._bubbles[request_id] = bubble
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

    def _adopt_bubble(self, key: EntityKey, message: Message) -> bool:
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
        view = TerminalView(terminal)
        self.views[key] = view
        return view

    def _place_terminal_in_card(self, view: TerminalView) -> bool:
        for card in self.views.values():
            if isinstance(card, ToolCallCard) and view.terminal_id in card.terminal_ids:
                if card.attach_terminal(view):
                    return True
        return False

    def _attach_terminals(self, card: ToolCallCard) -> None:
        for terminal_id in card.terminal_ids:
            view = self.views.get((TERMINAL, terminal_id))
            if isinstance(view, TerminalView) and not view.is_attached:
                card.attach_terminal(view)

