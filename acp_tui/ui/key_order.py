"""Every key lands, in the order typed: the app hands the focus one key (or paste) at a time.

Textual forwards each key the terminal sends into the focused widget's message queue at once, and a key
the widget does not use itself *bubbles*: it is posted to the parent's queue, then the grandparent's, and
the app finally runs the non-priority bindings (TextArea's and Input's Backspace, Ctrl+W, Ctrl+U, Home;
a checkbox's Space) when it arrives back at the app. Keys that come in one read (a fast typist, a paste of
keys, a remote terminal) or pile up while the loop is busy are all forwarded before the first has finished
that journey, so `abc` Backspace `Z` gave `abcZ`, then the Backspace: `abc`; and a key that moves the focus
(Tab, Escape, a dialog's arrival) left the keys behind it in the old widget's queue.

`KeyOrder` keeps one queue of input for the whole app. It delivers the next key only once the one before
has ended its journey: stopped by a widget, or back at the app with its bindings run. It follows the key
with a probe (a callback posted to the same queue right behind it, so it runs once the key was handled
there) from queue to queue along the path Textual bubbles it. Each key goes to whatever has the focus when
its turn comes, so a key that moves the focus hands every later key to the new focus.

A handler that holds its queue for long (awaiting a worker, a closed widget that never runs the probe)
must not hold the keyboard: if a journey makes no progress for `STALL_AFTER` seconds while the loop itself
keeps running, the next key is delivered anyway. Time the process spent stopped (SIGSTOP) or the loop spent
blocked (a long frame) does not count: the queues cannot have moved then. The minimal upstream repro is
in docs/keys.md.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual import events
from textual.app import App

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

__all__ = ["STALL_AFTER", "KeyOrder", "KeysInOrderApp", "OrderedInput", "hold_keys", "keys_of_text", "release_keys"]

ReturnType = TypeVar("ReturnType")

#: input events that go through the queue: what the user types, in the order typed
OrderedInput = events.Key | events.Paste

#: seconds of a live loop with no progress after which a journey counts as stuck
STALL_AFTER = 0.5
#: how often a journey in flight is looked at
_TICK = 0.1
#: a tick that comes this much later than asked means the loop (or the process) was held: not counted
_LATE = 0.05


#: stands in for the event in flight while a screen that just arrived settles
_SETTLING = events.Key("settling", None)


class KeyOrder:
    """The app's one queue of keys and pastes; `deliver` is Textual's own handling of one input event."""

    def __init__(
        self,
        app: App[Any],
        deliver: Callable[[OrderedInput], Awaitable[None]],
        translate: Callable[[OrderedInput, bool], Sequence[OrderedInput]] | None = None,
        looks_ahead: Callable[[OrderedInput], bool] | None = None,
    ) -> None:
        self._app = app
        self._deliver = deliver
        #: what a key means when its turn comes (see `KeysInOrderApp.translate_key`)
        self._translate = translate
        self._looks_ahead = looks_ahead
        self._waiting: deque[OrderedInput] = deque()
        #: the event on its way through the widgets' queues, and how many hops it has made
        self._in_flight: OrderedInput | None = None
        #: the last screen whose arrival was waited for (see `_settling`)
        self._settled: object = None
        self._hops = 0
        self._delivering = False
        #: a widget is handing the keys to another focus (`hold`): nothing is delivered until it is there
        self._held = False
        self._watch: asyncio.TimerHandle | None = None
        self._watched_hops = 0
        self._live = 0.0
        self._ticked_at = 0.0

    @property
    def pending(self) -> int:
        """Events typed and not yet handed to the focus (the one in flight included)."""
        return len(self._waiting) + (self._in_flight not in (None, _SETTLING))

    def type_ahead(self, text: str) -> None:
        """Keys typed before the app could read any (`typeahead.typed_ahead`): first in the queue, `\n` as Enter.
        They are delivered with the first key read, or when the screen that takes them calls `release`."""
        self._waiting.extendleft(reversed(keys_of_text(text)))

    async def accept(self, event: OrderedInput) -> None:
        """A key or paste from the terminal (on the app's task): queue it and deliver what is due. A key whose
        meaning depends on what came with it (`looks_ahead`) waits for the input already on its way to the app."""
        self._waiting.append(event)
        if self._looks_ahead is not None and len(self._waiting) == 1 and self._looks_ahead(event):
            self._app.call_later(self._pump)
            return
        await self._pump()

    async def _pump(self) -> None:
        """Deliver waiting events until one is on a journey through the queues (runs on the app's task)."""
        if self._delivering:
            return
        self._delivering = True
        try:
            while self._in_flight is None and not self._held and self._waiting:
                if self._settling():
                    return
                event = self._waiting.popleft()
                if self._translate is not None:
                    meant = self._translate(event, bool(self._waiting))
                    if len(meant) != 1 or meant[0] is not event:
                        self._waiting.extendleft(reversed(meant))
                        continue
                await self._deliver(event)
                if event.is_forwarded and not event._stop_propagation:
                    target = self._target(event)
                    if target is not None and self._follow(event, target):
                        self._in_flight = event
                        self._hops = 0
                        self._start_watch()
        finally:
            self._delivering = False

    def _settling(self) -> bool:
        """A screen that has just arrived has no focus yet (it gives it once its own queue has run): wait
        for that queue, once per screen, then the app's, so the keys go to the field it focuses."""
        app = self._app
        try:
            screen = app.screen
        except Exception:  # noqa: BLE001 - no screen yet (the app is starting or ending): nothing settled
            return False
        if app.focused is not None or screen is self._settled:
            return False
        self._settled = screen
        self._in_flight = _SETTLING
        if not screen.call_later(self._settled_in, screen):
            self._in_flight = None
            return False
        self._start_watch()
        return True

    def _settled_in(self, screen: object) -> None:
        if self._in_flight is _SETTLING:
            self._finish()

    def _target(self, event: OrderedInput) -> MessagePump | None:
        """Where Textual just forwarded `event` (the focus, else the screen), as `App.on_event` picks it."""
        app = self._app
        try:
            return app.focused or app.screen
        except Exception:  # noqa: BLE001 - no screen yet (the app is starting or ending): nothing to follow
            return None

    def _follow(self, event: OrderedInput, node: MessagePump) -> bool:
        """Post the probe behind `event` in `node`'s queue; False if that queue takes nothing any more."""
        return node.call_later(self._probe, event, node)

    async def _probe(self, event: OrderedInput, node: MessagePump) -> None:
        """Runs in `node`'s queue right after `event` was handled there: follow it on, or end its journey."""
        if event is not self._in_flight:
            return  # a journey given up as stuck: the keyboard has moved on
        self._hops += 1
        parent = node._parent
        bubbled = (
            event.bubble
            and parent is not None
            and not event._stop_propagation
            and node is not self._app
            and getattr(node, "is_parent_active", True)
            and getattr(node, "is_attached", True)
        )
        if bubbled and parent is not None and self._follow(event, parent):
            return
        self._finish()

    def _finish(self) -> None:
        """The event in flight is done: deliver the next one on the app's own task."""
        self._in_flight = None
        if self._held:
            return  # the watch goes on for the hold
        self._stop_watch()
        if self._waiting:
            self._app.call_later(self._pump)

    def hold(self) -> None:
        """Deliver nothing until `release`: the key being handled moves the focus by a message (a card hands
        it to the prompt), and the keys behind it belong to where the focus is going, not where it is."""
        self._held = True
        self._start_watch()

    def release(self, first: OrderedInput | None = None) -> None:
        """The focus has been asked for: deliver `first` (the key that moved it, typed again there), then the
        rest. The delivery is queued on the app behind the focus change itself (`Widget.focus` queues it there)."""
        if first is not None:
            self._waiting.appendleft(first)
        self._held = False
        if self._in_flight is None:
            self._stop_watch()
        self._app.call_later(self._pump)

    # -- a journey that makes no progress --------------------------------------------------------

    def _start_watch(self) -> None:
        self._stop_watch()
        self._watched_hops = self._hops
        self._live = 0.0
        self._ticked_at = time.monotonic()
        self._watch = asyncio.get_running_loop().call_later(_TICK, self._tick)

    def _stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None

    def _tick(self) -> None:
        """Count only time in which the loop ran: a process stopped or a loop blocked moved no queue."""
        self._watch = None
        if self._in_flight is None and not self._held:
            return
        now = time.monotonic()
        elapsed, self._ticked_at = now - self._ticked_at, now
        if self._hops != self._watched_hops:
            self._watched_hops = self._hops
            self._live = 0.0
        elif elapsed < _TICK + _LATE:
            self._live += elapsed
        if self._live >= STALL_AFTER:
            if self._held:  # the focus it waited for never came: the keys go where the focus is
                self.release()
            if self._in_flight is not None:
                self._finish()
            return
        self._watch = asyncio.get_running_loop().call_later(_TICK, self._tick)


class KeysInOrderApp(App[ReturnType], Generic[ReturnType]):
    """An app whose keys and pastes from the terminal go through one `KeyOrder` (acp-tui's, and test hosts')."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key_order = KeyOrder(self, super().on_event, self.translate_key, self.looks_ahead)

    def looks_ahead(self, event: OrderedInput) -> bool:
        """Does `translate_key` need to know whether more input came with `event`? (By default no key does.)"""
        return False

    def translate_key(self, event: OrderedInput, followed: bool) -> Sequence[OrderedInput]:
        """What `event` means now that its turn has come (by default itself); `followed`: more input waits right
        behind it (it came in the same read, or piled up). An app may read one key as several when the state
        the key is delivered in says so (acp-tui: `Esc 1` followed by text, when no tab 1 is to be shown, is
        Escape then `1`)."""
        return (event,)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            await self.key_order.accept(event)
        else:
            await super().on_event(event)


def keys_of_text(text: str) -> list[events.Key]:
    """The key presses that type `text` (a line feed is Enter); other control characters are left out."""
    from textual.keys import _character_to_key

    keys: list[events.Key] = []
    for character in text:
        if character in "\r\n":
            keys.append(events.Key("enter", "\r"))
        elif character == "\t":
            keys.append(events.Key("tab", "\t"))
        elif character.isprintable():
            keys.append(events.Key(character if character.isalnum() else _character_to_key(character), character))
    return keys


def hold_keys(app: App[Any]) -> None:
    """`KeyOrder.hold` where the app orders its keys (elsewhere nothing: keys go on as Textual sends them)."""
    if isinstance(app, KeysInOrderApp):
        app.key_order.hold()


def release_keys(app: App[Any], first: OrderedInput | None = None) -> bool:
    """`KeyOrder.release`; False where the app does not order its keys (the caller sends `first` itself)."""
    if isinstance(app, KeysInOrderApp):
        app.key_order.release(first)
        return True
    return False
