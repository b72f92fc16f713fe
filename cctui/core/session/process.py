"""The claude process behind a session: its owner task, and the verbs that reach it.

The SDK requires a client to connect and disconnect in the same task, so each process
gets one *owner task* that connects, pumps frames, and closes. Other tasks send,
interrupt and request a stop through ``Process``; they never touch the driver's lifetime.
How a process ends (stopped by cctui, killed, or dying on its own) decides the session's
end status, so the exit is handled here rather than with the other frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from cctui.claude.driver import Driver, DriverFactory
from cctui.claude.frames import (
    Frame,
    LaunchSpec,
    ModelOption,
    PermissionModeName,
    ProcessExited,
    RewindAnswer,
)
from cctui.core.session.events import ErrorEvent, UserMessageEvent
from cctui.core.session.host import Desk
from cctui.core.session.session_state import SessionState
from cctui.core.session.states import SessionStatus
from cctui.errors import CctuiError, CliNotFound, SessionNotReady
from cctui.redact import redact_text

log = logging.getLogger(__name__)

S = SessionStatus
# How long to wait for the CLI to exit after close() before giving up on its last frame.
_EXIT_WAIT_S = 3.0
STUCK_AFTER_S = 5.0
"""How long past its kill grace ``Process.stop`` waits for the owner task before cancelling
it: the owner notices the stop only once connected, and one stuck connecting (the SDK's
initialize) never does."""


class TurnTimer:
    """Interrupts a turn that outlives ``max_execution_time_ms``."""

    def __init__(
        self,
        state: SessionState,
        limit_ms: int | None,
        *,
        interrupt: Callable[[], Coroutine[Any, Any, None]],
        keep: Callable[[asyncio.Task[Any]], None],
    ) -> None:
        """``interrupt`` stops the turn; ``keep`` holds the task that does it."""
        self._state = state
        self._limit_ms = limit_ms
        self._interrupt = interrupt
        self._keep = keep
        self._handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        """Start the running turn's deadline (no-op when armed or unlimited)."""
        if self._limit_ms is None or self._handle is not None:
            return
        loop = asyncio.get_running_loop()
        self._handle = loop.call_later(self._limit_ms / 1000, self._overran)

    def disarm(self) -> None:
        """Forget the running turn's deadline."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _overran(self) -> None:
        self._handle = None
        self._state.publish(
            ErrorEvent(
                session_id=self._state.id,
                message=f"The turn ran longer than {self._limit_ms} ms; interrupting.",
            )
        )
        task = asyncio.get_running_loop().create_task(self._interrupt())
        self._keep(task)


class Process:
    """One session's current process (a resume starts a new one in the same object)."""

    def __init__(
        self,
        state: SessionState,
        *,
        desk: Desk,
        handle: Callable[[Frame], None],
        timer: TurnTimer,
        driver_factory: DriverFactory,
        kill_grace_s: Callable[[], float],
        lifetime_ms: int | None = None,
        keep: Callable[[asyncio.Task[Any]], None] | None = None,
    ) -> None:
        """``desk`` answers the process's permission asks; ``handle`` takes every frame (the
        exit too, before this process reads it); ``kill_grace_s``: the SIGTERM -> SIGKILL
        grace when it is ended; ``lifetime_ms``: a process alive longer is ended (seed 004's
        ``MAX_SESSION_DURATION``), by a task ``keep`` holds."""
        self._state = state
        self._desk = desk
        self._handle = handle
        self._timer = timer
        self._driver_factory = driver_factory
        self._kill_grace_s = kill_grace_s
        self.alive = False
        """Connected and not yet exited."""
        self.started_at = 0.0
        """Wall-clock time the current process connected."""
        self.exit_code: int | None = None
        """The last process's exit code once it ended (None while one runs, or if unknown)."""
        self._driver: Driver | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._alive = asyncio.Event()
        self._stop_status: SessionStatus | None = None
        self._stop_grace_s: float | None = None
        self._lifetime_ms = lifetime_ms
        self._keep = keep
        self._life_timer: asyncio.TimerHandle | None = None
        self._end_reason: str | None = None
        """Why cctui ended the process itself (a limit), kept as the session's error."""

    @property
    def pid(self) -> int | None:
        """The live CLI's pid."""
        driver = self._driver
        return driver.pid if self.alive and driver is not None else None

    @property
    def busy(self) -> bool:
        """A process is starting or alive (the owner task has not finished)."""
        return self._owner is not None and not self._owner.done()

    async def start(
        self, spec: LaunchSpec, first_message: str | None, prompt_id: str | None = None
    ) -> None:
        """Spawn a process in a new owner task; returns once it is connected.

        ``prompt_id``: ``first_message`` was announced already (``queue``), with this id.

        Raises:
            CliNotFound (or another ``CctuiError``) when the process cannot start.
        """
        session = self._state
        self._stop = asyncio.Event()
        self._stop_status = None
        self._stop_grace_s = None
        session.interrupting = False
        self.exit_code = None
        self._end_reason = None
        session.turns.process_starting(first_message is not None)
        session.set_status(S.STARTING, force=True)
        if first_message is not None and prompt_id is None:
            prompt_id = self._announce(first_message)
        connected: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(
            self._own(spec, connected, first_message, prompt_id), name=f"session-{session.id}"
        )
        await connected

    def _announce(self, text: str) -> str:
        """Number the prompt, publish it, and return the uuid to send it with."""
        mark = self._state.prompts.add(text)
        self._state.publish(
            UserMessageEvent(
                session_id=self._state.id, text=text, prompt_id=mark.id, prompt_index=mark.index
            )
        )
        return mark.id

    async def _own(
        self,
        spec: LaunchSpec,
        connected: asyncio.Future[None],
        first_message: str | None,
        prompt_id: str | None,
    ) -> None:
        session = self._state
        # Every launch (new, resumed, a warm spare) carries the hard denies in force now.
        deny, block_outside = await asyncio.to_thread(self._desk.cli_limits)
        spec = spec.model_copy(update={"deny_rules": deny, "block_writes_outside": block_outside})
        driver = self._driver_factory(spec, self._desk.ask, self._desk.guard)
        self._driver = driver
        try:
            await driver.connect()
        except BaseException as exc:
            self._driver = None
            session.turns.process_ended()
            err = (
                exc
                if isinstance(exc, CctuiError)
                else CliNotFound(f"claude could not be started: {redact_text(str(exc))}")
            )
            session.set_status(S.ERROR, error=err.message)
            session.publish(ErrorEvent(session_id=session.id, message=err.message))
            if not connected.done():
                connected.set_exception(err)
            with contextlib.suppress(Exception):
                await driver.close(0.5)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        self.alive = True
        self._alive.set()
        self.started_at = time.time()
        self._arm_life_timer()
        pump = asyncio.create_task(self._pump(driver), name=f"session-{session.id}-frames")
        try:
            if first_message is not None:
                session.set_status(S.RUNNING)
                self._timer.arm()
                await driver.send(first_message, prompt_id)
            else:
                # A prompt queued while it connected (a taken spare) is a turn already.
                session.set_status(S.RUNNING if session.turns.busy else S.IDLE)
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
                grace = self._stop_grace_s
                await driver.close(self._kill_grace_s() if grace is None else grace)
            except Exception:
                log.exception("session %s: closing the driver failed", session.id)
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
                    self._handle(frame)  # for the exit: what the session still had to say
                    if isinstance(frame, ProcessExited):
                        self._on_exit(frame)
                except Exception:
                    log.exception("session %s: cannot handle frame %r", self._state.id, frame)
                if isinstance(frame, ProcessExited):
                    return
        except Exception as exc:
            log.exception("session %s: frame stream failed", self._state.id)
            self._on_exit(ProcessExited(exit_code=None, error=redact_text(str(exc))))

    async def settled(self, timeout_s: float) -> None:
        """Wait until a spawning process is connected or its owner task has ended."""
        owner = self._owner
        if owner is None or owner.done() or self.alive:
            return
        alive = asyncio.create_task(self._alive.wait())
        try:
            await asyncio.wait(
                {alive, owner}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            alive.cancel()

    def queue(self, text: str) -> str:
        """Publish a user message and count its turn before it can be written; returns the
        id ``send`` (or ``start``) writes it with. A session taken from a spare is listed,
        and waited on, while its process may still be connecting: from then on it is busy
        with its prompt, or a ``wait`` would read its idle spare as a turn that ended."""
        session = self._state
        prompt_id = self._announce(text)
        session.turns.message_sent()
        if self.alive and session.status != S.WAITING_FOR_INPUT:
            session.set_status(S.RUNNING)
        return prompt_id

    async def send(self, text: str, prompt_id: str | None = None) -> None:
        """Publish a user message and write it to the live process (``prompt_id``: it was
        queued already)."""
        driver, session = self._driver, self._state
        assert driver is not None and self.alive
        if prompt_id is None:
            prompt_id = self.queue(text)
        if session.turns.outstanding == 1:  # the only turn: its deadline starts now
            self._timer.arm()
        await driver.send(text, prompt_id)

    async def rewind_files(self, prompt_id: str, *, dry_run: bool) -> RewindAnswer:
        """Ask the live process to put files back as before ``prompt_id`` (or what would change)."""
        driver = self._driver
        if not self.alive or driver is None:
            raise SessionNotReady(f"Session {self._state.id} has no running claude process.")
        return await driver.rewind_files(prompt_id, dry_run=dry_run)

    async def set_permission_mode(self, mode: PermissionModeName) -> None:
        """Ask the live process to switch mode (also mid-turn).

        Raises:
            SessionNotReady: no process runs. SettingRefused: the CLI said no.
        """
        await self._live().set_permission_mode(mode)

    async def set_model(self, model: str | None) -> None:
        """Ask the live process to use ``model`` from its next request on.

        Raises:
            SessionNotReady: no process runs. SettingRefused: the CLI said no.
        """
        await self._live().set_model(model)

    @property
    def models(self) -> tuple[ModelOption, ...]:
        """The models the live process offers (empty when none runs)."""
        driver = self._driver
        return driver.models if self.alive and driver is not None else ()

    def _live(self) -> Driver:
        driver = self._driver
        if not self.alive or driver is None:
            raise SessionNotReady(f"Session {self._state.id} has no running claude process.")
        return driver

    async def interrupt(self) -> None:
        """Stop the running turn (the process lives on)."""
        driver = self._driver
        if not self.alive or driver is None or not self._state.turns.busy:
            return
        self._state.interrupting = True
        self._desk.withdraw("interrupted")
        await driver.interrupt()

    async def stop(self, status: SessionStatus | None = None, *, force: bool = False) -> None:
        """End the process and wait for the owner task; ``status`` overrides the end state.

        ``force``: no grace between SIGTERM and SIGKILL (a stuck process goes at once).
        """
        owner = self._owner
        if owner is None or owner.done():
            return
        self._stop_status = status
        self._stop_grace_s = 0.0 if force else None
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), self._kill_grace_s() + STUCK_AFTER_S)
        except TimeoutError:
            # Stuck (e.g. still in the SDK's initialize): cancel; the owner's finally
            # still closes the driver, and the SDK's atexit reaper is the last resort.
            log.warning("session %s: process did not stop in time; cancelling", self._state.id)
            owner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(owner, 3.0)
        except Exception:
            log.exception("session %s: stopping failed", self._state.id)

    def _on_exit(self, frame: ProcessExited) -> None:
        session = self._state
        if not self.alive:
            return
        self.alive = False
        self._alive.clear()
        self.exit_code = frame.exit_code
        self._timer.disarm()
        if self._life_timer is not None:
            self._life_timer.cancel()
            self._life_timer = None
        busy = session.turns.process_ended()
        self._desk.withdraw("session-ended")
        self._desk.forget_allowances()
        if self._end_reason is not None:
            session.set_status(S.ERROR, error=self._end_reason)
            return
        if self._stop_status is not None:
            new = self._stop_status
        elif self._stop.is_set():
            new = S.INTERRUPTED if busy else S.COMPLETED
        elif frame.error or frame.exit_code not in (0, None):
            message = redact_text(frame.error or f"claude exited with code {frame.exit_code}")
            session.publish(ErrorEvent(session_id=session.id, message=message))
            session.set_status(S.ERROR, error=message)
            return
        else:
            new = S.ERROR if session.status == S.ERROR else S.COMPLETED
        # Said even when the status stays (an interrupted turn, then a kill): the process
        # ended, and the list and the pane say whether one runs ("interrupted" / "stopped").
        session.set_status(
            new, error=session.error if new == S.ERROR else None, force=True, ended=True
        )

    # ------------------------------------------------------------------ lifetime

    def _arm_life_timer(self) -> None:
        """End the process once it outlives ``lifetime_ms`` (seed 004)."""
        if self._lifetime_ms is not None:
            self._life_timer = asyncio.get_running_loop().call_later(
                self._lifetime_ms / 1000, self._lived_too_long
            )

    def _lived_too_long(self) -> None:
        self._life_timer = None
        self._end_reason = (
            f"The session ran longer than MAX_SESSION_DURATION ({self._lifetime_ms} ms); "
            "cctui ended its process. A new message resumes it."
        )
        self._state.publish(ErrorEvent(session_id=self._state.id, message=self._end_reason))
        task = asyncio.get_running_loop().create_task(self.stop())
        if self._keep is not None:
            self._keep(task)
