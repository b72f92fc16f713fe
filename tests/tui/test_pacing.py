"""What keeps the loop free for keys while sessions stream: the GC pacer, the list's held
order, and the bridge's two ticks (plain logic, no app)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from cctui.core import AssistantTextEvent, ResultEvent, StatusChanged
from cctui.core.session.states import SessionStatus
from cctui.tui import bridge as bridge_module
from cctui.tui import gc_pause
from cctui.tui.bridge import EventBridge
from cctui.tui.messages import SessionsActivity
from cctui.tui.rows import SessionRow
from cctui.tui.widgets.session_list import _Ordering

T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, unfrozen: None) -> Iterator[list[float]]:
    now = [1000.0]
    monkeypatch.setattr("cctui.tui.gc_pause.time.monotonic", lambda: now[0])
    yield now
    gc.unfreeze()


def test_pacer_freezes_each_tick_and_collects_only_when_quiet(clock: list[float]) -> None:
    pacer = gc_pause.GcPacer()
    pacer.start()
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
    clock[0] += 1
    assert pacer.tick() is False
    assert gc.get_freeze_count() > 0  # the last second's survivors are frozen
    # Due, but a key came in just now: no full pass while someone types.
    clock[0] += gc_pause.REFREEZE_S
    pacer.input_seen()
    assert pacer.tick() is False
    clock[0] += gc_pause.QUIET_S
    assert pacer.tick() is True and pacer.full_collections == 1
    # Keys all the time: after FORCE_S it runs anyway, so frozen garbage is bounded.
    clock[0] += gc_pause.FORCE_S
    pacer.input_seen()
    assert pacer.tick() is True and pacer.full_collections == 2
    pacer.stop()
    assert gc.get_freeze_count() == 0


def test_keys_that_never_pause_delay_the_full_pass_until_memory_has_grown(
    clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    peak = [1000]
    monkeypatch.setattr(gc_pause, "_peak_memory", lambda: peak[0])
    pacer = gc_pause.GcPacer()
    pacer.start()
    clock[0] += gc_pause.REFREEZE_S
    pacer.input_seen()
    peak[0] = 1400
    assert pacer.tick() is False  # due, someone typing, memory up by less than half
    clock[0] += 1
    pacer.input_seen()
    peak[0] = 1500
    assert pacer.tick() is False  # up by half, but a key came just now: not into a burst
    clock[0] += gc_pause.LULL_S
    assert pacer.tick() is True and pacer.full_collections == 1  # the first gap
    clock[0] += gc_pause.REFREEZE_S
    pacer.input_seen()
    peak[0] = 2000
    clock[0] += gc_pause.LULL_S
    assert pacer.tick() is False  # measured from that pass: not up by half again


def test_pacer_frees_cyclic_garbage_that_was_frozen(clock: list[float]) -> None:
    class Node:
        other: object = None

    pacer = gc_pause.GcPacer()
    pacer.start()
    a, b = Node(), Node()
    a.other, b.other = b, a
    alive = weakref.ref(a)
    clock[0] += 1
    pacer.tick()  # a and b are in use: frozen
    del a, b
    gc.collect(1)  # an automatic pass does not see them
    assert alive() is not None
    clock[0] += gc_pause.FORCE_S
    assert pacer.tick() is True
    assert alive() is None


def _row(status: str, at: datetime, sid: str = "s1") -> SessionRow:
    return SessionRow(
        session_id=sid,
        status=status,
        project="p",
        title="t",
        last_activity=at,
        cost_usd=None,
        cwd=None,
        live=True,
        created_at=T0,
    )


def test_a_row_keeps_its_place_whatever_its_status_or_activity() -> None:
    order = _Ordering()
    order.note(first := _row("running", T0))
    place = order(first)
    # Output every 10 ms for 20 s, then the turn ends, then a day of activity: same place.
    assert order(_row("running", T0 + timedelta(seconds=20))) == place
    assert order(_row("idle", T0 + timedelta(seconds=21))) == place
    assert order(_row("idle", T0 + timedelta(days=1))) == place
    # A session started later in the same project goes above it, and the group moves up.
    newer = replace(_row("running", T0, sid="s2"), created_at=T0 + timedelta(hours=1))
    assert order.note(newer) is True
    assert order(newer) < order(first)


async def test_stream_output_is_batched_slower_than_status_changes() -> None:
    posted: list[SessionsActivity] = []

    class Target:
        def post_message(self, message: SessionsActivity) -> bool:
            posted.append(message)
            return True

    bridge = EventBridge.__new__(EventBridge)
    EventBridge.__init__(bridge, manager=None, target=Target())  # type: ignore[arg-type]
    text = AssistantTextEvent(session_id="s1", message_id="m", text="hi")
    bridge._on_event(text)
    await asyncio.sleep(bridge_module.STREAM_TICK_S / 5)
    assert posted == []  # output alone waits for the stream tick
    bridge._on_event(StatusChanged(session_id="s1", status=SessionStatus.IDLE))
    bridge._on_event(
        ResultEvent(
            session_id="s1",
            is_error=False,
            result="ok",
            num_turns=1,
            total_cost_usd=None,
            duration_ms=5,
        )
    )
    await asyncio.sleep(0)  # a status change goes out on the next turn of the loop, with
    await asyncio.sleep(0)  # the output before it, in one batch
    assert [(set(m.session_ids), m.list_changed) for m in posted] == [({"s1"}, True)]
    bridge.stop()
