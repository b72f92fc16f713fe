"""Keep the garbage collector's full passes away from the keys.

A full (generation 2) collection walks every tracked object, and a Textual app keeps hundreds
of thousands of them (cached strips, segments, styles). With ten sessions streaming, CPython
ran one every couple of seconds and each stopped the loop for 0.3-1 s on a small machine
(``tests/bench/bench_tui.py``): a key pressed then waited behind it.

So survivors are frozen (``gc.freeze``, which only splices lists) once the app is up and then
once a second: automatic passes walk only the last second's objects, a few milliseconds. Every
``REFREEZE_S``, at a moment when no key or click has come in for ``QUIET_S``, everything is
unfrozen, collected and frozen again: one pause while nobody is typing instead of many while
someone is, and cyclic garbage that was frozen young (closed panes, removed widgets) is still
freed. Keys that never pause that long delay it until the process's peak memory has grown
by half (``FORCE_GROWTH``), and then until the next gap between keys (``LULL_S``), or until
``FORCE_S`` has passed: the pass costs half a second to a second of wall time on a busy
two-core machine with ten sessions streaming (the terminal bench), so it is forced only when
memory asks for it, and not into a burst of keys. (Counting the frozen objects instead walks
them all: tens of milliseconds a second.)
"""

from __future__ import annotations

import gc
import resource
import time

REFREEZE_S = 30.0
"""How often the frozen heap is collected and frozen again (at a quiet moment). A full pass
walks the whole heap, ~165,000 objects before any session is open (imports, styles): about
0.1 s on a small machine, so it runs as seldom as memory allows."""
QUIET_S = 3.0
"""No input for this long before a full collection may run: a person who paused for a
second is often about to press the next key."""
FORCE_S = 600.0
"""A full collection runs after this long even while keys keep coming: only cyclic garbage
frozen young waits for it, and little is made while nothing is opened or closed."""
FORCE_GROWTH = 1.5
"""... or sooner (after ``REFREEZE_S``) once the process's peak memory is this many times what
it was at the last full collection, at the next ``LULL_S`` without input."""
LULL_S = 1.0
"""A gap between keys long enough for a collection forced by memory: a burst of keys (moving
through the list, opening and closing a form) is over, and the pass does not land in it."""


def hold() -> None:
    """No automatic collection until ``release`` (``CctuiApp`` calls it after its first frame).

    Starting allocates ~170,000 objects that nearly all survive (modules, styles, the list's
    rows), and CPython walked them in ~350 passes, two of them full, before the first frame:
    0.15-0.3 s of a 1.4 s start with 2,000 past sessions. Nothing cyclic worth freeing is made
    meanwhile."""
    gc.disable()


def release() -> None:
    """Collect again; a no-op when nothing held it."""
    gc.enable()


def _peak_memory() -> int:
    """The process's peak resident memory (in the platform's unit: only ratios are used)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class GcPacer:
    """Freezes the heap and schedules the full collections. Call ``tick`` once a second."""

    def __init__(self) -> None:
        self._now = time.monotonic
        self._last_input = self._now()
        self._last_full = self._now()
        self._memory_at_full = _peak_memory()
        """Peak memory when the last full collection was done."""
        self.full_collections = 0
        """How many full collections ran (tests read it)."""

    def start(self) -> None:
        """Collect once and freeze what survives (call when the app is up)."""
        gc.collect()
        gc.freeze()
        self._last_full = self._now()
        self._memory_at_full = _peak_memory()

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
        idle = now - self._last_input
        quiet = idle >= QUIET_S
        # Memory asks for it: at the next gap between keys, not in the middle of a burst.
        memory_asks = idle >= LULL_S and _peak_memory() >= FORCE_GROWTH * self._memory_at_full
        if since < FORCE_S and (since < REFREEZE_S or not (quiet or memory_asks)):
            gc.collect(1)  # young garbage first: only what is still in use gets frozen
            gc.freeze()
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._last_full = self._now()
        self._memory_at_full = _peak_memory()
        self.full_collections += 1
        return True
