"""The one place core events become Textual messages.

The manager calls our listener synchronously on the loop for every event of every session;
a chatty session can emit hundreds per second (text deltas merge into new seqs). Posting one
message per event would flood the app's queue, so activity is batched: ids collect in a set
and one ``SessionsActivity`` goes out per tick. Pending-input events are rare and matter
individually, so they go out at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from textual.message_pump import MessagePump

from cctui.core import (
    InputRequestedEvent,
    InputResolvedEvent,
    ResultEvent,
    SessionEvent,
    StatusChanged,
    UserMessageEvent,
)
from cctui.core.api import CoreApi
from cctui.tui.messages import InputRequested, InputResolved, SessionsActivity

log = logging.getLogger(__name__)

STREAM_TICK_S = 1 / 4
"""How soon streamed output alone reaches the UI: the pane draws at most this often anyway,
and every batch costs a pass over the list, so ten chatty sessions must not each wake the UI
20 times a second. A status change (a turn ended, a question came) goes out on the next turn
of the loop, with whatever output came before it: the end of a reply is on screen as soon as
the CLI says the turn is over."""

_LIST_EVENTS = (
    StatusChanged,
    ResultEvent,
    UserMessageEvent,
    InputRequestedEvent,
    InputResolvedEvent,
)


class EventBridge:
    """Subscribes once to the manager and posts messages to ``target`` (the app)."""

    def __init__(self, manager: CoreApi, target: MessagePump) -> None:
        self._manager = manager
        self._target = target
        self._dirty: set[str] = set()
        self._list_changed = False
        self._flush_handle: asyncio.Handle | None = None
        self._flush_urgent = False
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        """Begin listening; idempotent."""
        if self._unsubscribe is None:
            self._unsubscribe = self._manager.subscribe(self._on_event)

    def stop(self) -> None:
        """Stop listening and drop any batch not yet sent."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None

    def _on_event(self, event: SessionEvent) -> None:
        # Never raise into the manager: a UI bug must not break a session.
        try:
            if isinstance(event, InputRequestedEvent):
                self._target.post_message(InputRequested(event.input))
            elif isinstance(event, InputResolvedEvent):
                self._target.post_message(
                    InputResolved(
                        event.input_id,
                        event.session_id,
                        event.decision,
                        event.decided_by,
                        event.message,
                    )
                )
            self._dirty.add(event.session_id)
            urgent = isinstance(event, _LIST_EVENTS)
            self._list_changed |= urgent
            if urgent and self._flush_handle is not None and not self._flush_urgent:
                self._flush_handle.cancel()  # a status change does not wait for the stream tick
                self._flush_handle = None
            if self._flush_handle is None:
                loop = asyncio.get_running_loop()
                self._flush_urgent = urgent
                self._flush_handle = (
                    loop.call_soon(self._flush)
                    if urgent
                    else loop.call_later(STREAM_TICK_S, self._flush)
                )
        except Exception:
            log.exception("bridge failed on %s", type(event).__name__)

    def flush(self) -> None:
        """Post the batch collected so far now (``CctuiApp.settle``)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        self._flush()

    def _flush(self) -> None:
        self._flush_handle = None
        if not self._dirty:
            return
        ids, self._dirty = frozenset(self._dirty), set()
        changed, self._list_changed = self._list_changed, False
        self._target.post_message(SessionsActivity(ids, changed))
