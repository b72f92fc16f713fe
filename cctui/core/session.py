"""One session: its state, its event buffer and the owner task of its current process.

The SDK requires a client to connect and disconnect in the same task, so each process
gets one *owner task* that connects, pumps frames into events, and closes. Other tasks
send, interrupt and request a stop through the session; they never touch the driver's
lifetime.

Status rules (see ``states.py``): ``starting`` while the process spawns; ``running``
while a turn is outstanding (every sent message yields its own result, so outstanding
turns are counted); ``waiting_for_input`` while a pending input is open; ``idle`` after
the last outstanding result; ``interrupted`` after an interrupt's result, or when the
process was killed; ``error`` when a turn fails (API error, text kept) or the process dies
on its own; ``completed`` when the process ended cleanly (including cctui's own shutdown
of an idle session).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from cctui.claude.driver import Driver
from cctui.claude.frames import (
    AssistantText,
    Frame,
    Init,
    LaunchSpec,
    ModeChanged,
    ProcessExited,
    TextDelta,
    ToolCall,
    ToolOutcome,
    TurnResult,
)
from cctui.core.buffer import EventBuffer
from cctui.core.desk import InputDesk
from cctui.core.events import (
    AssistantTextEvent,
    ErrorEvent,
    ResultEvent,
    SessionEvent,
    StatusChanged,
    ToolUseEvent,
    UserMessageEvent,
)
from cctui.core.models import SessionConfig, SessionInfo, SessionRecord, ToolUseSummary
from cctui.core.pending import Decision, Resolution
from cctui.core.states import SessionStatus, can_transition
from cctui.errors import CctuiError, CliNotFound
from cctui.redact import redact_text

if TYPE_CHECKING:
    from cctui.core.host import SessionHost

log = logging.getLogger(__name__)

S = SessionStatus
_TOOL_RESULT_MAX = 2000
# Tool calls remembered per session for status readers; the ring buffer holds the rest.
_TOOLS_KEPT = 200
# How long to wait for the CLI to exit after close() before giving up on its last frame.
_EXIT_WAIT_S = 3.0


class Session:
    """State and process of one session id."""

    def __init__(self, host: SessionHost, session_id: str, config: SessionConfig, *,
                 record: SessionRecord | None = None) -> None:
        self.host = host
        self.id = session_id
        self.config = config
        now = datetime.now(UTC)
        self.created_at = record.created_at if record else now
        self.last_activity = record.last_activity if record else now
        self.title = (record.title if record else None) or config.title
        self.status = record.status if record else S.STARTING
        self.forked_from = record.forked_from if record else None
        self.cost_base = record.total_cost_usd if record else 0.0
        """Cost of earlier processes (the CLI's figure is cumulative per process only)."""
        self.process_cost = 0.0
        self.num_turns = record.num_turns if record else 0
        self.last_result: str | None = None
        self.error: str | None = None
        self.buffer: EventBuffer[SessionEvent] = EventBuffer(host.settings.event_buffer_size)
        self.tools: dict[str, ToolUseEvent] = {}
        self.alive = False
        self.outstanding = 0
        self.permission_mode: str | None = config.permission_mode
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._alive = asyncio.Event()
        self._stop_status: SessionStatus | None = None
        self._interrupting = False
        self._texts: dict[str, tuple[list[str], str]] = {}
        self._turn_timer: asyncio.TimerHandle | None = None
        self.process_started = 0.0
        self._driver: Driver | None = None
        self.desk = InputDesk(self)
        """This session's pending inputs: asks in, answers out."""

    # ------------------------------------------------------------------ snapshots

    @property
    def total_cost(self) -> float:
        """Cost over every process this session has had."""
        return round(self.cost_base + self.process_cost, 6)

    @property
    def pid(self) -> int | None:
        """The live CLI's pid."""
        driver = self._driver
        return driver.pid if self.alive and driver is not None else None

    @property
    def busy(self) -> bool:
        """A process is starting or alive (the owner task has not finished)."""
        return self._owner is not None and not self._owner.done()

    @property
    def active(self) -> bool:
        """A process is alive, or being spawned."""
        return self.alive or (self.busy and self.status == S.STARTING)

    def info(self) -> SessionInfo:
        """A snapshot for front ends."""
        return SessionInfo(
            session_id=self.id, status=self.status, config=self.config,
            created_at=self.created_at, last_activity=self.last_activity, title=self.title,
            total_cost_usd=self.total_cost, num_turns=self.num_turns,
            last_result=self.last_result, error=self.error, pid=self.pid,
            last_seq=self.buffer.last_seq,
            pending_input_ids=tuple(i.id for i in self.host.pending_inputs.list(self.id)),
            is_active=self.active)

    def resolve(self, input_id: str, decision: Decision, decided_by: str) -> Resolution:
        """Answer one of this session's inputs (first answer wins); published and audited."""
        return self.desk.resolve(input_id, decision, decided_by)

    def record(self) -> SessionRecord:
        """What the registry keeps."""
        return SessionRecord(
            session_id=self.id, config=self.config, created_at=self.created_at,
            last_activity=self.last_activity, title=self.title, status=self.status,
            total_cost_usd=self.total_cost, num_turns=self.num_turns,
            forked_from=self.forked_from)

    def tool_summaries(self) -> list[ToolUseSummary]:
        """Tool calls of this session's current buffer lifetime, oldest first."""
        return [ToolUseSummary(tool_use_id=t.tool_use_id, name=t.name, state=t.state,
                               input_preview=_preview(t.input)) for t in self.tools.values()]

    # ------------------------------------------------------------------ events

    def publish(self, event: SessionEvent, merge_key: str | None = None) -> SessionEvent:
        """Store ``event`` in the buffer and fan it out."""
        stored = self.buffer.append(event, merge_key=merge_key)
        self.last_activity = stored.at
        self.host.publish(stored)
        return stored

    def set_status(self, new: SessionStatus, error: str | None = None, *,
                   force: bool = False) -> None:
        """Move to ``new`` (no event when nothing changes, unless ``force``)."""
        old = self.status
        if old == new and error is None and not force:
            return
        if not can_transition(old, new):
            log.warning("session %s: unexpected transition %s -> %s", self.id, old, new)
        self.status = new
        if new == S.ERROR:
            self.error = error
        elif new in (S.RUNNING, S.STARTING):
            self.error = None
        self.publish(StatusChanged(session_id=self.id, status=new,
                                   previous=None if old == new else old, error=error))
        if new not in (S.RUNNING, S.WAITING_FOR_INPUT):
            self.host.save(self)

    # ------------------------------------------------------------------ process

    async def start(self, spec: LaunchSpec, first_message: str | None) -> None:
        """Spawn a process in a new owner task; returns once it is connected.

        Raises:
            CliNotFound (or another ``CctuiError``) when the process cannot start.
        """
        self._stop = asyncio.Event()
        self._stop_status = None
        self._interrupting = False
        self.outstanding = 1 if first_message is not None else 0
        self.set_status(S.STARTING, force=True)
        if first_message is not None:
            self.publish(UserMessageEvent(session_id=self.id, text=first_message))
        connected: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(spec, connected, first_message),
                                          name=f"session-{self.id}")
        await connected

    async def _own(self, spec: LaunchSpec, connected: asyncio.Future[None],
                   first_message: str | None) -> None:
        driver = self.host.driver_factory(spec, self.desk.ask)
        self._driver = driver
        try:
            await driver.connect()
        except BaseException as exc:
            self._driver = None
            self.outstanding = 0
            err = exc if isinstance(exc, CctuiError) else CliNotFound(
                f"claude could not be started: {redact_text(str(exc))}")
            self.set_status(S.ERROR, error=err.message)
            self.publish(ErrorEvent(session_id=self.id, message=err.message))
            if not connected.done():
                connected.set_exception(err)
            with contextlib.suppress(Exception):
                await driver.close(0.5)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        self.alive = True
        self._alive.set()
        self.process_started = time.time()
        pump = asyncio.create_task(self._pump(driver), name=f"session-{self.id}-frames")
        try:
            if first_message is not None:
                self.set_status(S.RUNNING)
                self._arm_turn_timer()
                await driver.send(first_message)
            else:
                self.set_status(S.IDLE)
            if not connected.done():
                connected.set_result(None)
            stopper = asyncio.create_task(self._stop.wait())
            try:
                await asyncio.wait({pump, stopper}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopper.cancel()
        finally:
            if not connected.done():
                connected.set_result(None)
            # Close in this task, the one that connected (the SDK's rule).
            try:
                await driver.close(self.host.kill_grace_s)
            except Exception:
                log.exception("session %s: closing the driver failed", self.id)
            try:
                await asyncio.wait_for(asyncio.shield(pump), _EXIT_WAIT_S)
            except (TimeoutError, asyncio.CancelledError):
                pump.cancel()
            if self.alive:  # the driver never reported the exit; do it ourselves
                self._on_exit(ProcessExited(exit_code=None))

    async def _pump(self, driver: Driver) -> None:
        try:
            async for frame in driver.frames():
                try:
                    self.handle(frame)
                except Exception:
                    log.exception("session %s: cannot handle frame %r", self.id, frame)
                if isinstance(frame, ProcessExited):
                    return
        except Exception as exc:
            log.exception("session %s: frame stream failed", self.id)
            self.handle(ProcessExited(exit_code=None, error=redact_text(str(exc))))

    async def settled(self, timeout_s: float) -> None:
        """Wait until a spawning process is connected or its owner task has ended."""
        owner = self._owner
        if owner is None or owner.done() or self.alive:
            return
        alive = asyncio.create_task(self._alive.wait())
        try:
            await asyncio.wait({alive, owner}, timeout=timeout_s,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            alive.cancel()

    async def send(self, text: str) -> None:
        """Write a user message to the live process."""
        driver = self._driver
        assert driver is not None and self.alive
        self.outstanding += 1
        if self.status != S.WAITING_FOR_INPUT:
            self.set_status(S.RUNNING)
        if self.outstanding == 1:
            self._arm_turn_timer()
        await driver.send(text)

    async def interrupt(self) -> None:
        """Stop the running turn (the process lives on)."""
        driver = self._driver
        if not self.alive or driver is None or self.outstanding == 0:
            return
        self._interrupting = True
        self.desk.withdraw("interrupted")
        await driver.interrupt()

    async def stop(self, status: SessionStatus | None = None) -> None:
        """End the process and wait for the owner task; ``status`` overrides the end state."""
        owner = self._owner
        if owner is None or owner.done():
            return
        self._stop_status = status
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), self.host.kill_grace_s + 5.0)
        except TimeoutError:
            # Stuck (e.g. still in the SDK's initialize): cancel; the owner's finally
            # still closes the driver, and the SDK's atexit reaper is the last resort.
            log.warning("session %s: process did not stop in time; cancelling", self.id)
            owner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(owner, 3.0)
        except Exception:
            log.exception("session %s: stopping failed", self.id)

    # ------------------------------------------------------------------ frames

    def handle(self, frame: Frame) -> None:
        """Turn one driver frame into state changes and events."""
        sid = self.id
        if isinstance(frame, Init):
            if self.outstanding == 0:  # a turn we did not count (queued before an interrupt)
                self.outstanding = 1
                self.set_status(S.RUNNING)
            self.permission_mode = frame.permission_mode or self.permission_mode
        elif isinstance(frame, TextDelta):
            done, current = self._texts.get(frame.message_id, ([], ""))
            self._texts[frame.message_id] = (done, current + frame.text)
            self._publish_text(frame.message_id, complete=False)
        elif isinstance(frame, AssistantText):
            done, _ = self._texts.get(frame.message_id, ([], ""))
            self._texts[frame.message_id] = ([*done, frame.text], "")
            self._publish_text(frame.message_id, complete=True)
        elif isinstance(frame, ToolCall):
            event = ToolUseEvent(session_id=sid, tool_use_id=frame.tool_use_id,
                                 name=frame.name, input=frame.input)
            self._remember_tool(event)
            self.publish(event)
        elif isinstance(frame, ToolOutcome):
            self._on_tool_outcome(frame)
        elif isinstance(frame, ModeChanged):
            self.permission_mode = frame.permission_mode
        elif isinstance(frame, TurnResult):
            self._on_result(frame)
        elif isinstance(frame, ProcessExited):
            self._on_exit(frame)

    def _publish_text(self, message_id: str, complete: bool) -> None:
        done, current = self._texts[message_id]
        text = "\n\n".join([*done, current] if current else done)
        self.publish(AssistantTextEvent(session_id=self.id, message_id=message_id, text=text,
                                        complete=complete), merge_key="text:" + message_id)

    def _on_tool_outcome(self, frame: ToolOutcome) -> None:
        call = self.tools.get(frame.tool_use_id)
        name, tool_input = (call.name, call.input) if call else ("?", {})
        if frame.tool_use_id in self.desk.denied:
            state = "denied"
        elif frame.is_error:
            state = "failed"
        else:
            state = "completed"
        event = ToolUseEvent(session_id=self.id, tool_use_id=frame.tool_use_id, name=name,
                             input=tool_input, state=state,
                             result=frame.content[:_TOOL_RESULT_MAX])
        self._remember_tool(event)
        self.publish(event)

    def _remember_tool(self, event: ToolUseEvent) -> None:
        """Keep the newest ``_TOOLS_KEPT`` calls so a long session's memory stays bounded."""
        self.tools[event.tool_use_id] = event  # an update keeps the call's place in order
        while len(self.tools) > _TOOLS_KEPT:
            del self.tools[next(iter(self.tools))]

    def _on_result(self, frame: TurnResult) -> None:
        self.outstanding = max(0, self.outstanding - 1)
        self.process_cost = frame.total_cost_usd or self.process_cost
        self.num_turns += frame.num_turns
        self.last_result = frame.result
        self._texts.clear()
        self._disarm_turn_timer()
        if self.outstanding:
            self._arm_turn_timer()
        interrupted, self._interrupting = self._interrupting, False
        self.publish(ResultEvent(
            session_id=self.id, is_error=frame.is_error, result=frame.result,
            num_turns=frame.num_turns, total_cost_usd=self.total_cost,
            duration_ms=frame.duration_ms, terminal_reason=frame.terminal_reason))
        if frame.is_error and not interrupted:
            message = redact_text(frame.result or "; ".join(frame.errors) or frame.subtype)
            self.publish(ErrorEvent(session_id=self.id, message=message))
            if not self.outstanding:
                self.set_status(S.ERROR, error=message)
                return
        if self.outstanding:
            self.set_status(S.RUNNING)
        else:
            self.set_status(S.INTERRUPTED if interrupted else S.IDLE)

    def _on_exit(self, frame: ProcessExited) -> None:
        if not self.alive:
            return
        self.alive = False
        self._alive.clear()
        self._disarm_turn_timer()
        busy = self.outstanding > 0
        self.outstanding = 0
        self.cost_base += self.process_cost
        self.process_cost = 0.0
        self.desk.withdraw("session-ended")
        if self._stop_status is not None:
            new = self._stop_status
        elif self._stop.is_set():
            new = S.INTERRUPTED if busy else S.COMPLETED
        elif frame.error or frame.exit_code not in (0, None):
            message = redact_text(frame.error or f"claude exited with code {frame.exit_code}")
            self.publish(ErrorEvent(session_id=self.id, message=message))
            self.set_status(S.ERROR, error=message)
            return
        else:
            new = S.ERROR if self.status == S.ERROR else S.COMPLETED
        self.set_status(new, error=self.error if new == S.ERROR else None)

    # ------------------------------------------------------------------ turn timer

    def _arm_turn_timer(self) -> None:
        limit = self.host.settings.max_execution_time_ms
        if limit is None or self._turn_timer is not None:
            return
        self._turn_timer = asyncio.get_running_loop().call_later(
            limit / 1000, self._turn_overran)

    def _disarm_turn_timer(self) -> None:
        if self._turn_timer is not None:
            self._turn_timer.cancel()
            self._turn_timer = None

    def _turn_overran(self) -> None:
        self._turn_timer = None
        limit = self.host.settings.max_execution_time_ms
        self.publish(ErrorEvent(session_id=self.id,
                                message=f"The turn ran longer than {limit} ms; interrupting."))
        task = asyncio.get_running_loop().create_task(self.interrupt())
        self.host.keep(task)


def _preview(tool_input: dict[str, object]) -> str:
    for key in ("command", "file_path", "path", "pattern", "url", "description"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return value[:120]
    return str(tool_input)[:120]
