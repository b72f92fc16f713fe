"""Keep the garbage collector's full passes away from the keys.

A full (generation 2) collection walks every tracked object, and a Textual app keeps hundreds
of thousands of them (cached strips, segments, styles). With ten sessions streaming, CPython
ran one every couple of seconds and each stopped the loop for 0.3-1 s on a small machine
(``tests/bench/bench_tui.py``): a key pressed then waited behind it.

So survivors are frozen (``gc.freeze``, which only splices lists) once the app is up and then
once a second: automatic passes walk only the last second's objects, a few milliseconds. Every
``REFREEZE_S``, at a moment when no key or click has come in for ``QUIET_S`` (or after
``FORCE_S`` whatever the keys do), everything is unfrozen, collected and frozen again: one
pause while nobody is typing instead of many while someone is, and cyclic garbage that was
frozen young (closed panes, removed widgets) is still freed.
"""

from __future__ import annotations

import gc
import time

REFREEZE_S = 30.0
"""How often the frozen heap is collected and frozen again (at a quiet moment). A full pass
walks the whole heap, ~165,000 objects before any session is open (imports, styles): about
0.1 s on a small machine, so it runs as seldom as memory allows."""
QUIET_S = 3.0
"""No input for this long before a full collection may run: a person who paused for a
second is often about to press the next key."""
FORCE_S = 60.0
"""A full collection runs after this long even while keys keep coming (memory stays bounded:
only cyclic garbage waits for it, and little is made while nothing is opened or closed)."""


class GcPacer:
    """Freezes the heap and schedules the full collections. Call ``tick`` once a second."""

    def __init__(self) -> None:
        self._now = time.monotonic
        self._last_input = self._now()
        self._last_full = self._now()
        self.full_collections = 0
        """How many full collections ran (tests read it)."""

    def start(self) -> None:
        """Collect once and freeze what survives (call when the app is up)."""
        gc.collect()
        gc.freeze()
        self._last_full = self._now()

    def stop(self) -> None:
        """Hand everything back to the collector (the app is going away)."""
        gc.unfreeze()

    def input_seen(self) -> None:
        """A key or a click came in."""
        self._last_input = self._now()

    def tick(self) -> bool:
        """Freeze the last second's survivors, or run the full collection if it is due and
        the user is quiet; True when the full collection ran."""
        now = self._now()
        since = now - self._last_full
        if since < FORCE_S and (since < REFREEZE_S or now - self._last_input < QUIET_S):
            gc.collect(1)  # young garbage first: only what is still in use gets frozen
            gc.freeze()
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._last_full = self._now()
        self.full_collections += 1
        return True
