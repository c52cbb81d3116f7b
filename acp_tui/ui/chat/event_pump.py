"""The controller's events, applied to the screen once per frame and in order.

The controller reports synchronously (thousands of updates a second); the pump only queues, and a
timer drains the queue once per frame: model changes are folded (`coalesce`) and handed to the
timeline and the status renderer, the controller's own facts to the status renderer, its notes to the
conversation. So a burst costs one refresh. The dispatch is exhaustive (`assert_never`).

A chat screen in a hidden tab renders nothing (`hide`): its events wait, the model changes among them
folded as they would be in one frame, and are applied in one go when the tab is shown again (`show`). What
waits is bounded, not just folded: once `FOLD_AT` events or `FOLD_BYTES` of streamed text and output wait,
every entity's appends (text, bytes, content items) fold into one `ContentReplaced`, which on `show`
renders that entity from the model as it is then. So a hidden tab that receives a hundred megabytes holds
the model's copy and a few thousand small events, never a second copy of the stream. Either way the owner hears `activity` at most
once a frame, so the tab bar follows the tab's state.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import assert_never

from textual.timer import Timer
from textual.widget import Widget

from acp_tui.controller.controller import SessionController
from acp_tui.controller.controller_events import (
    AgentIdentified,
    CancelStateChanged,
    ControllerEvent,
    LifecycleChanged,
    ModelChanged,
    Note,
    QueueChanged,
    SessionOpened,
    StderrLine,
    Waiting,
)
from acp_tui.path_text import ViewContext
from acp_tui.session.changes import BytesAppended, Change, ContentAppended, ContentReplaced, TextAppended
from acp_tui.session.coalesce import coalesce
from acp_tui.session.model import EntityKey
from acp_tui.ui.chat.history_timeline import HistoryTimeline, open_timeline, show_session_status
from acp_tui.ui.chat.status import StatusRenderer
from acp_tui.ui.chat.warm_up import warm_up_markdown
from acp_tui.ui.timeline.system_line import SystemLine
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.file_picker import FilePicker
from acp_tui.ui.widgets.stderr_panel import StderrPanel

#: Frame budget for applying queued controller events (≈ 60 fps).
FRAME = 1 / 60
#: A hidden screen folds its waiting events once there are this many (and again at twice what was left).
FOLD_AT = 4096
#: Stderr lines a hidden screen keeps for its panel (the panel itself keeps no more).
HIDDEN_STDERR = 2000
#: A hidden screen folds once this many bytes of streamed text and output wait (appends then hold none).
FOLD_BYTES = 1 << 20

#: Changes that add to an entity's content; a hidden fold turns each entity's into one `ContentReplaced`.
_GROWS = (TextAppended, BytesAppended, ContentAppended, ContentReplaced)


class EventPump:
    """Queues controller events (it is the controller's `ControllerListener`) and applies them on the next
    frame (`flush`)."""

    def __init__(
        self,
        owner: Widget,
        *,
        agent_named: Callable[[str], None] = lambda name: None,
        activity: Callable[[bool], None] = lambda output: None,
    ) -> None:
        """`agent_named` hears the agent's name at once (`AgentIdentified`): a question may come before the
        next frame, and its dialog must say "Question from Gemini CLI", not the program's name. `activity`
        hears, at most once a frame, that events came (True when among them the model changed)."""
        self.owner = owner
        self._agent_named = agent_named
        self._activity = activity
        self._events: deque[ControllerEvent] = deque()
        self._timer: Timer | None = None
        self._transcript_warned = False
        self.closed = False
        #: False while the screen's tab is hidden: events wait (folded) until `show`
        self.visible = True
        self._fold_at = FOLD_AT
        #: bytes of appended text and output waiting while hidden (folded away at `FOLD_BYTES`)
        self.waiting_bytes = 0
        self._output = False  # the model changed since `activity` was last told
        #: the widgets are known (`attach`): until then events only wait (the agent starts before the screen is
        #: mounted, so its start-up overlaps the screen's)
        self._attached = False

    def attach(
        self,
        controller: SessionController,
        *,
        conversation: Conversation,
        renderer: StatusRenderer,
        stderr: StderrPanel,
        files: FilePicker,
        transcript_error: Callable[[str], None],
    ) -> None:
        """The widgets to render into, once the screen is mounted; what the controller said before is applied on
        the next frame. `files` is indexed once the session is up (for the first `@`), not during start-up."""
        self.controller = controller
        self.conversation = conversation
        conversation.context = ViewContext(str(controller.launch.cwd))  # paths show relative to it
        self.renderer = renderer
        self.stderr = stderr
        self.files = files
        self.timeline = HistoryTimeline(conversation, controller.state)
        self._transcript_error = transcript_error
        self._attached = True
        if self._events and self._timer is None:
            self._timer = self.owner.set_timer(FRAME, self.flush if self.visible else self._tell)

    @property
    def pending(self) -> bool:
        """Events are waiting for the next frame."""
        return bool(self._events)

    def controller_event(self, event: ControllerEvent) -> None:
        """Called by the controller (same event loop); only queues, never touches a widget."""
        if self.closed:
            return  # the screen is going away; the transcript already holds what was shown
        if isinstance(event, AgentIdentified):
            self._agent_named(event.name)
        self._events.append(event)
        if isinstance(event, ModelChanged):
            self._output = True
            if not self.visible:
                self.waiting_bytes += _appended_bytes(event.changes)
        if not self.visible and (len(self._events) >= self._fold_at or self.waiting_bytes >= FOLD_BYTES):
            self._fold()
        if self._timer is None:
            self._timer = self.owner.set_timer(FRAME, self.flush if self.visible else self._tell)

    def hide(self) -> None:
        """The screen's tab is hidden: keep what comes for when it is shown."""
        self.visible = False

    def show(self) -> None:
        """The screen's tab is shown: apply everything that waited, now."""
        self.visible = True
        self.waiting_bytes = 0
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._events:
            self.flush()

    def _tell(self) -> None:
        """A hidden frame: nothing is drawn, the owner only hears that something came."""
        self._timer = None
        if self.visible:
            self.flush()
            return
        output, self._output = self._output, False
        self._activity(output)

    def _fold(self) -> None:
        """Fold the waiting events of a hidden screen: each run of model changes as one frame would fold it,
        and only the newest stderr lines the panel would keep. Order and effect are unchanged."""
        stderr_left = HIDDEN_STDERR
        kept: list[ControllerEvent] = []
        run: list[Change] = []
        # Appends go first (no joined copy of the stream is ever made), then each run folds as a frame would.
        for event in reversed(_replaced(list(self._events))):  # newest first: the newest stderr lines are kept
            if isinstance(event, ModelChanged):
                run.extend(reversed(event.changes))
                continue
            if run:
                kept.append(ModelChanged(coalesce(reversed(run))))
                run = []
            if isinstance(event, StderrLine):
                if stderr_left <= 0:
                    continue
                stderr_left -= 1
            kept.append(event)
        if run:
            kept.append(ModelChanged(coalesce(reversed(run))))
        kept.reverse()
        self._events = deque(kept)
        self.waiting_bytes = 0
        self._fold_at = max(FOLD_AT, 2 * len(self._events))

    def flush(self) -> None:
        self._timer = None
        if not self._attached and not self.closed:
            return  # the screen is not mounted yet: `attach` applies what waits
        if self.closed or not self.owner.is_attached:
            self._events.clear()
            return
        if not self.visible:
            self._tell()
            return
        changes: list[Change] = []
        stderr: list[str] = []
        added: set[EntityKey] = set()  # entities built this frame already show the model as it is now
        state = self.controller.state
        while self._events:
            event = self._events.popleft()
            if isinstance(event, ModelChanged):
                changes.extend(event.changes)
                continue
            self._apply(changes, added)  # in order: what the model said before this event comes first
            changes = []
            match event:
                case StderrLine(text=text):
                    stderr.append(text)
                case Note(text=text, severity=severity, detail=detail):
                    self.conversation.add_entry(SystemLine(text, detail=detail, severity=severity))
                case LifecycleChanged(phase="starting"):
                    state = self.controller.state
                    self.timeline = HistoryTimeline(self.conversation, state)  # a new connection's model
                    self.renderer.apply_event(state, event)
                case SessionOpened(cwd=cwd, replaces=replaces):
                    state = self.controller.state  # another session's model, shown whole (docs/protocol.md §3)
                    self.conversation.context = ViewContext(cwd)  # its paths show relative to its own folder
                    self.timeline = open_timeline(self.conversation, state, replaces=replaces)
                    if replaces:
                        self.renderer.notices.clear()  # F5 lists the session shown, as its palette entry says
                    added.update(state.entities)  # built as the model is now: later changes this frame are in it
                    show_session_status(self.renderer, state, cwd)
                case LifecycleChanged(phase="ready"):
                    self.renderer.apply_event(state, event)
                    self.files.warm()  # the first `@` finds a complete index
                    warm_up_markdown(self.owner)  # and the first answer, its Markdown and Pygments
                case Waiting() | LifecycleChanged() | AgentIdentified() | QueueChanged() | CancelStateChanged():
                    self.renderer.apply_event(state, event)
                case _:
                    assert_never(event)
        self._apply(changes, added)
        if stderr:
            self.stderr.add_lines(stderr)
            self.renderer.status.update_values(stderr_unseen=self.stderr.unseen)
        output, self._output = self._output, False
        self._activity(output)

    def _apply(self, changes: list[Change], added: set[EntityKey]) -> None:
        if not changes:
            return
        state = self.controller.state
        for change in coalesce(changes, added):
            self.timeline.apply(change)
            self.renderer.apply(state, change)
        self.timeline.trim()  # a long turn keeps a few screens built; the rest on scroll
        error = self.controller.transcript.error
        if error is not None and not self._transcript_warned:
            self._transcript_warned = True  # say it once; the conversation itself goes on
            self._transcript_error(error)


def _appended_bytes(changes: list[Change]) -> int:
    """How much streamed text or output `changes` carry (what a hidden screen would hold for them)."""
    size = 0
    for change in changes:
        if isinstance(change, TextAppended):
            size += len(change.text)
        elif isinstance(change, BytesAppended):
            size += len(change.data)
    return size


def _replaced(events: list[ControllerEvent]) -> list[ControllerEvent]:
    """`events` with every entity's appends and replacements folded into one `ContentReplaced` where its last
    one was: from there on the view renders the model as it is then, which holds everything appended."""
    last: dict[EntityKey, tuple[int, int]] = {}
    for i, event in enumerate(events):
        if isinstance(event, ModelChanged):
            for j, change in enumerate(event.changes):
                if isinstance(change, _GROWS):
                    last[change.key] = (i, j)
    if not last:
        return events
    out: list[ControllerEvent] = []
    for i, event in enumerate(events):
        if not isinstance(event, ModelChanged):
            out.append(event)
            continue
        changes: list[Change] = []
        for j, change in enumerate(event.changes):
            if not isinstance(change, _GROWS):
                changes.append(change)
            elif last[change.key] == (i, j):
                changes.append(change if isinstance(change, ContentReplaced) else ContentReplaced(change.key))
        if changes:
            out.append(ModelChanged(changes))
    return out


__all__ = ["EventPump", "FOLD_AT", "FOLD_BYTES", "FRAME", "HIDDEN_STDERR"]
