"""The dispatcher: who starts when. A queue past the limits, sessions that run ``after``
others, schedules, and the usage limit's hold, in one durable place.

A slot is held only by a session that is *working* (``states.WORKING``: starting or running
a turn); one waiting on a human, idle or paused holds none, so pending inputs never starve the
queue (anthropics/claude-code#91387). ``max_sessions`` bounds the working sessions overall,
``project_max_sessions`` per project. A new session over a limit, or ``after`` sessions not
ended yet, or while the usage limit holds, is *queued*: listed at once with its prompt
(status ``queued``), started by ``_drain`` when it may.

Only the cctui that owns the state directory's sessions dispatches (``owner``: the window
or ``cctui serve --http``, holding ``cctui.owner``'s lock); ``serve --stdio``, its client's
own server, refuses at the limit as before, queues nothing and fires no schedule.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from cctui.config import Settings
from cctui.core.dispatch import after as deps
from cctui.core.dispatch import queue, schedules, usage
from cctui.core.dispatch.clock import Clock, WallClock
from cctui.core.dispatch.models import (
    DispatchRequest,
    DispatchState,
    MissedRule,
    QueueEntry,
    Schedule,
    UsageHold,
)
from cctui.core.dispatch.store import DispatchStore
from cctui.core.session.events import ResultEvent, SessionEvent, StatusChanged
from cctui.core.session.models import DispatchView, SessionConfig, SessionInfo
from cctui.core.session.session import Session
from cctui.core.session.states import WORKING, SessionStatus
from cctui.errors import CctuiError, SessionLimitReached, SessionNotReady, ValidationFailed
from cctui.fs import git

log = logging.getLogger(__name__)
S = SessionStatus

_REPAUSE = frozenset({S.IDLE, S.ERROR, S.COMPLETED})
"""States a session the usage limit paused goes back to paused from, while the hold lasts
(not ``interrupted``: someone stopped it on purpose)."""

_NOT_OWNER = (
    "this cctui (serve --stdio) does not own the state directory's sessions, so it queues "
    "and schedules nothing; ask the cctui that owns them (the window, or cctui serve --http)."
)

_TURN = frozenset({S.RUNNING, S.WAITING_FOR_INPUT})
"""A turn under way: a schedule's run leaving these for ``idle`` or ``error`` ended its turn."""

_TICK_S = 30.0
"""The dispatcher's loop wakes at least this often (schedules, the hold's end)."""


class DispatchHost(Protocol):
    """The manager, as the dispatcher sees it."""

    settings: Settings

    def tracked(self) -> Iterable[Session]:
        """Every session cctui knows."""

    def session(self, session_id: str) -> Session | None:
        """A session cctui knows, or None."""

    def new_queued(self, session_id: str, config: SessionConfig) -> Session:
        """Make, track and save a session that has not started (status ``queued``)."""

    async def launch_queued(
        self, session: Session, prompt: str | None, worktree: bool | str | None
    ) -> None:
        """Start a queued session's first process."""

    async def continue_paused(self, session: Session, text: str | None) -> None:
        """Send a paused session its continue message (resuming it if it ended)."""

    async def create_dispatched(
        self,
        prompt: str,
        config: SessionConfig,
        *,
        session_id: str,
        worktree: bool | str | None,
        dispatch: DispatchRequest,
    ) -> SessionInfo:
        """``SessionManager.create``."""

    async def results_of(self, session_id: str, kind: str) -> str:
        """A parent's final reply, or the files it changed."""

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a background task."""


class Dispatcher:
    """Queue, ``after``, schedules and the usage-limit hold for one ``SessionManager``."""

    def __init__(self, host: DispatchHost, state_dir: Path, clock: Clock | None = None) -> None:
        self._host = host
        self.settings = host.settings
        self.clock: Clock = clock or WallClock()
        self.store = DispatchStore(state_dir)
        self.state = DispatchState()
        self.owner = False
        """This cctui dispatches (it owns the state dir's sessions); False before
        ``start``."""
        self._launching: dict[str, SessionConfig] = {}
        """Queued sessions being started: they hold a slot before their status says so."""
        self._drain_soon: asyncio.Handle | None = None
        self._places: dict[str, int] = {}
        """Each queued session's place when its front ends were last told."""
        self._unattended: set[str] = set()
        """Schedule runs whose first turn has not ended: their process ends with that turn
        (``_run_status``), so runs every 15 minutes do not leave 96 idle ``claude`` a day."""
        self._loop_task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._closed = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def problems(self) -> list[str]:
        return list(self.store.problems)

    async def start(self, *, owner: bool) -> None:
        """Read the file, settle it against the sessions, create a schedule's run that was
        recorded but not created, and start the loop; only when ``owner`` (this process
        holds the state dir's owner lock: ``cctui.owner``), else dispatch nothing."""
        self.owner = owner
        if not owner:
            log.info("not the owner of %s: this cctui dispatches nothing", self.store.path)
            return
        self.state = self.store.load()
        self._settle()
        self._repause()
        await self.repair_runs()
        self._loop_task = asyncio.create_task(self._loop(), name="dispatcher")
        self._kick()

    async def close(self) -> None:
        """Stop the loop (the state is on disk already)."""
        self._closed = True
        if self._drain_soon is not None:
            self._drain_soon.cancel()
        task, self._loop_task = self._loop_task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _settle(self) -> None:
        """Queued sessions and queue entries agree after a restart: an entry whose session
        is gone is dropped; a queued session with no entry is cancelled, saying why."""
        keep: list[QueueEntry] = []
        for entry in self.state.queue:
            session = self._host.session(entry.session_id)
            if session is not None and session.status == S.QUEUED:
                keep.append(entry)
        self.state.queue = keep
        queued = {e.session_id for e in keep}
        for session in self._host.tracked():
            if session.status == S.QUEUED and session.id not in queued:
                session.set_status(S.CANCELLED, "its queue entry was lost (dispatch.json)")
        self._save()

    def _save(self) -> None:
        if self.owner:
            self.store.save(self.state)
        self._announce()

    def _announce(self) -> None:
        """Tell the front ends of each queued session whose place changed (a status event
        with the same status): its row says "queued 2nd" now, not "queued 3rd"."""
        if self._closed:
            return
        places: dict[str, int] = {}
        for i, entry in enumerate(queue.ordered(self.state), start=1):
            places[entry.session_id] = i
            if self._places.get(entry.session_id) != i:
                session = self._host.session(entry.session_id)
                if session is not None and session.status == S.QUEUED:
                    session.set_status(S.QUEUED, force=True)
        self._places = places

    # ------------------------------------------------------------------ admission

    def working(self, project: str | None = None) -> int:
        """Sessions holding a slot (overall, or of ``project``): working ones, and those
        being started (not yet listed, or not yet ``starting``)."""
        holding = {
            s.id: s.config for s in self._host.tracked() if s.status in WORKING
        } | self._launching
        return sum(1 for c in holding.values() if project is None or _project_of(c) == project)

    def project_limit(self, config: SessionConfig) -> int | None:
        """The configured limit for ``config``'s project (by label or directory)."""
        limits = self.settings.project_max_sessions
        if not limits:
            return None
        for key in (config.project, _project_of(config), str(config.cwd)):
            if key is not None and key in limits:
                return limits[key]
        return None

    def full_for(self, config: SessionConfig) -> str | None:
        """Why a session of ``config`` may not start now (None: it may)."""
        hold = self.hold
        if hold is not None:
            return f"the usage limit holds until {_hhmm(hold.until)}"
        working = self.working()
        if working >= self.settings.max_sessions:
            return f"{working} sessions are working; max_sessions is {self.settings.max_sessions}"
        limit = self.project_limit(config)
        project = _project_of(config)
        if limit is not None and self.working(project) >= limit:
            return f"project {project} has {limit} working session(s), its limit"
        return None

    def check_limit(self) -> None:
        """Raise SessionLimitReached when no slot is free (a resume is not queued)."""
        working = self.working()
        if working >= self.settings.max_sessions:
            raise SessionLimitReached(
                f"{working} sessions are working; MAX_SESSIONS is {self.settings.max_sessions}.",
                suggestion="Wait for one to finish its turn, or raise MAX_SESSIONS.",
            )

    def admit(
        self, session_id: str, config: SessionConfig, request: DispatchRequest
    ) -> tuple[str, ...] | None:
        """Check ``request`` for a new session; None: start it now, else its cleaned
        ``after`` (possibly empty) and it is to be queued.

        Raises:
            ValidationFailed (after: unknown, failed, a cycle), SessionLimitReached (full
            and ``queue_when_full`` is off, or another cctui dispatches).
        """
        edges = {e.session_id: e.after for e in self.state.queue}
        parents = deps.check(session_id, request.after, self._host.session, edges)
        waiting, _ = deps.standing(parents, self._host.session)
        if request.start_now:
            return None
        why = self.full_for(config)
        if not waiting and why is None:
            return None
        if not self.owner:
            if waiting:
                raise ValidationFailed(f"after: {_NOT_OWNER}")
            self.check_limit()
            return None
        if why is not None and not waiting and not request.queue_when_full:
            raise SessionLimitReached(f"{why}.", suggestion="Queue it, or wait for a slot.")
        return parents

    @contextlib.contextmanager
    def reserved(self, session_id: str, config: SessionConfig) -> Iterator[None]:
        """Hold a slot for a session being started outside the queue (``create`` admitted
        it): concurrent creates must not all see the same free slot."""
        self._launching[session_id] = config
        try:
            yield
        finally:
            self._launching.pop(session_id, None)
            self._kick()

    def enqueue(
        self,
        session_id: str,
        config: SessionConfig,
        prompt: str | None,
        worktree: bool | str | None,
        request: DispatchRequest,
        parents: tuple[str, ...],
    ) -> Session:
        """List a new session as queued; it starts when ``_drain`` may start it."""
        session = self._host.new_queued(session_id, config)
        self.state.queue.append(
            QueueEntry(
                session_id=session_id,
                prompt=prompt,
                worktree=worktree,
                priority=request.priority,
                seq=self.state.next_seq,
                after=parents,
                parent_results=request.parent_results,
                schedule_id=request.schedule_id,
                queued_at=self.clock.now(),
            )
        )
        self.state.next_seq += 1
        self._save()
        self._kick()
        return session

    # ------------------------------------------------------------------ verbs

    def move(self, session_id: str, position: int) -> int:
        """Reorder a queued session (1 = next). Raises SessionNotFound, ValidationFailed."""
        at = queue.move(self.state, session_id, position)
        self._save()
        self._kick()
        return at

    def cancel(self, session_id: str, by: str) -> None:
        """Take a session off the queue for good; those waiting for it are stopped too.
        Raises SessionNotFound (not queued)."""
        queue.find(self.state, session_id)
        queue.take(self.state, session_id)
        self._save()
        session = self._host.session(session_id)
        if session is not None and session.status == S.QUEUED:
            session.set_status(S.CANCELLED, f"cancelled by {by}")
        self._kick()

    def start_now(self, session_id: str) -> None:
        """Start a queued session now, over the limits (someone said so).
        Raises SessionNotFound (not queued), SessionNotReady (shutting down)."""
        entry = queue.find(self.state, session_id)
        if self._closed:
            raise SessionNotReady("cctui is shutting down.")
        self._launch(entry)

    # ------------------------------------------------------------------ views

    def view(self, session: Session) -> DispatchView | None:
        """What the dispatcher says of ``session``, for lists and status."""
        schedule = self._schedule_of(session.id)
        sched = {"schedule_id": schedule.id, "schedule_name": schedule.name} if schedule else {}
        if session.status == S.QUEUED:
            entry = next((e for e in self.state.queue if e.session_id == session.id), None)
            if entry is None:
                return DispatchView(note="queued", **sched)
            waiting, _ = deps.standing(entry.after, self._host.session)
            pos = queue.position(self.state, session.id)
            if waiting:
                n = len(waiting)
                note = f"waits for {n} session{'s' if n != 1 else ''}"
            elif self.hold is not None:
                note = f"queued until {_hhmm(self.hold.until)} (usage limit)"
            else:
                note = f"queued {queue.ordinal(pos or 1)}"
            return DispatchView(
                note=note,
                queue_position=pos,
                after=entry.after,
                waits_for=tuple(waiting),
                priority=entry.priority,
                **sched,
            )
        hold = self.state.hold
        if session.status == S.PAUSED and hold is not None:
            return DispatchView(
                note=f"paused until {_hhmm(hold.until)} (usage limit)",
                resumes_at=hold.until,
                **sched,
            )
        if schedule is not None:
            return DispatchView(note=f"run of schedule {schedule.name}", **sched)
        return None

    def annotate(self, info: SessionInfo, session: Session) -> SessionInfo:
        """``info`` with the dispatcher's view of it."""
        view = self.view(session)
        return info if view is None else info.model_copy(update={"dispatch": view})

    def waiting_work(self) -> list[str]:
        """What would not happen if this cctui stopped now: queued sessions, a usage-limit
        pause to continue, schedules with a next run (a background owner stays up for
        them; ``q`` asks before closing the window on them)."""
        if not self.owner:
            return []
        work: list[str] = []
        if self.state.queue:
            n = len(self.state.queue)
            work.append(f"{n} queued session{'s' if n != 1 else ''}")
        hold = self.hold
        if hold is not None and hold.paused:
            n = len(hold.paused)
            work.append(
                f"{n} session{'s' if n != 1 else ''} to continue at {_hhmm(hold.until)}"
                " (usage limit)"
            )
        for schedule in self.list_schedules():
            if schedule.next_due is not None and not schedule.paused:
                work.append(f"schedule {schedule.name} · next {_when(schedule.next_due)}")
        return work

    def queued(self) -> list[QueueEntry]:
        """The queue, in the order it starts."""
        return queue.ordered(self.state)

    def _schedule_of(self, session_id: str) -> Schedule | None:
        for schedule in self.state.schedules:
            if any(run.session_id == session_id for run in schedule.runs):
                return schedule
        return None

    # ------------------------------------------------------------------ draining

    def observe(self, event: SessionEvent) -> None:
        """A fan-out listener: a status change may free a slot or end a parent; a result
        may carry the usage limit."""
        if isinstance(event, ResultEvent):
            hit = usage.limit_hit(event, self.clock.now())
            if hit is not None:
                self._usage_limit(event.session_id, *hit)
        if isinstance(event, StatusChanged):
            if event.session_id in self._unattended:
                self._run_status(event)
            hold = self.hold
            if (
                hold is not None
                and event.session_id in hold.paused
                and event.status in _REPAUSE
                and not self._closed
            ):
                # The refused turn's result (idle, error) or the process's end: paused still.
                session = self._host.session(event.session_id)
                if session is not None:
                    asyncio.get_running_loop().call_soon(self._pause, session)
            self._kick()

    def _run_status(self, event: StatusChanged) -> None:
        """A schedule's run whose turn ended (idle, or failed with its process up): its
        process ends too. Nobody waits at it for a next message; the session stays listed and
        resumable, and a message to it starts a process again. Paused at the usage limit it is
        left to the hold, which continues it."""
        sid = event.session_id
        status = event.status
        if status in _TURN or status in (S.QUEUED, S.STARTING, S.PAUSED):
            return  # its turn is still to come, under way, or paused
        hold = self.hold
        if hold is not None and sid in hold.paused:
            return  # refused at the usage limit: the hold continues it, its turn ends later
        self._unattended.discard(sid)
        if status not in (S.IDLE, S.ERROR) or event.previous not in _TURN or self._closed:
            return  # interrupted or stopped by someone, or its process ended on its own
        session = self._host.session(sid)
        if session is not None and session.process.alive:
            self._host.keep(asyncio.create_task(self._end_run(session)))

    async def _end_run(self, session: Session) -> None:
        try:
            await session.process.stop()
        except Exception:
            log.exception("schedule run %s: its process did not end", session.id)

    def _kick(self) -> None:
        """Drain soon (once per loop turn, however many events asked)."""
        if self._closed or not self.owner or self._drain_soon is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._drain_soon = loop.call_soon(self._drain)

    def _drain(self) -> None:
        """Start every queued session that may start now, in order."""
        self._drain_soon = None
        if self._closed or not self.owner:
            return
        changed = False
        for entry in queue.ordered(self.state):
            session = self._host.session(entry.session_id)
            if session is None or session.status != S.QUEUED:
                queue.take(self.state, entry.session_id)
                changed = True
                continue
            waiting, failed = deps.standing(entry.after, self._host.session)
            if failed is not None:
                queue.take(self.state, entry.session_id)
                changed = True
                session.set_status(S.CANCELLED, f"not started: {failed}")
                self._kick()  # its own dependents learn it next
                continue
            if waiting:
                continue
            why = self.full_for(session.config)
            if why is not None:
                if self.hold is not None or self.working() >= self.settings.max_sessions:
                    break  # nobody else may start either
                continue  # only its project is full
            self._launch(entry)
            changed = True
        if changed:
            self._save()

    def _launch(self, entry: QueueEntry) -> None:
        """Start a queued session in the background; a failure is its error."""
        queue.take(self.state, entry.session_id)
        self._save()
        session = self._host.session(entry.session_id)
        if session is None:
            return
        self._launching[session.id] = session.config
        self._host.keep(asyncio.create_task(self._start(session, entry)))

    async def _start(self, session: Session, entry: QueueEntry) -> None:
        try:
            prompt = entry.prompt
            if entry.parent_results != "none" and entry.after:
                prompt = await self._with_results(prompt, entry)
            await self._host.launch_queued(session, prompt, entry.worktree)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            message = exc.message if isinstance(exc, CctuiError) else str(exc)
            log.warning("queued session %s did not start: %s", session.id, message)
            if session.status in (S.QUEUED, S.STARTING):
                session.set_status(S.ERROR, f"did not start: {message}")
        finally:
            self._launching.pop(session.id, None)
            self._kick()

    async def _with_results(self, prompt: str | None, entry: QueueEntry) -> str:
        parts = [prompt or ""]
        what = "final reply" if entry.parent_results == "reply" else "changed files"
        parts.append(f"\n\n--- The sessions this one ran after ({what}) ---")
        for pid in entry.after:
            parent = self._host.session(pid)
            title = parent.title if parent is not None and parent.title else ""
            text = await self._host.results_of(pid, entry.parent_results)
            parts.append(f"\n## Session {deps.short(pid)} {title}".rstrip() + f"\n{text}")
        return "\n".join(parts).strip()

    # ------------------------------------------------------------------ the loop

    async def _loop(self) -> None:
        """Fire schedules and end the usage-limit hold by the wall clock."""
        while not self._closed:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("dispatcher tick failed")
            wait = self._next_wake()
            self._wake.clear()
            sleeper = asyncio.create_task(self.clock.sleep(wait))
            waker = asyncio.create_task(self._wake.wait())
            try:
                await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                waker.cancel()

    def _next_wake(self) -> float:
        now = self.clock.now()
        times = [s.next_due for s in self.state.schedules if s.next_due and not s.paused]
        if self.state.hold is not None:
            times.append(self.state.hold.until)
        soonest = min(times, default=now + timedelta(seconds=_TICK_S))
        return max(0.05, min(_TICK_S, (soonest - now).total_seconds()))

    def wake(self) -> None:
        """Look at the clock now (a schedule changed)."""
        self._wake.set()

    async def tick(self) -> None:
        """Do what is due at ``clock.now()``: end an expired hold (continuing the paused
        sessions), then fire due schedules."""
        now = self.clock.now()
        hold = self.state.hold
        if hold is not None and now >= hold.until:
            self.state.hold = None
            self._save()
            await self._continue_paused(hold)
            self._kick()
        if self.state.hold is None:
            await self._fire_due(now)

    # ------------------------------------------------------------------ usage limit

    @property
    def hold(self) -> UsageHold | None:
        """The usage limit's hold, while it lasts."""
        hold = self.state.hold
        if hold is None or self.clock.now() >= hold.until:
            return None
        return hold

    def _usage_limit(self, session_id: str, until: datetime, message: str) -> None:
        session = self._host.session(session_id)
        hold = self.state.hold
        if hold is None or until > hold.until:
            paused = hold.paused if hold is not None else []
            hold = UsageHold(until=until, message=message, seen_at=self.clock.now(), paused=paused)
        if session_id not in hold.paused:
            hold.paused.append(session_id)
        self.state.hold = hold
        self._save()
        if session is not None:
            # After the result's own status change (idle or error): paused until the reset.
            asyncio.get_running_loop().call_soon(self._pause, session)
        self.wake()

    def _repause(self) -> None:
        """After a restart: sessions the hold paused are paused still (their processes
        ended with the last cctui)."""
        hold = self.hold
        for sid in hold.paused if hold is not None else ():
            session = self._host.session(sid)
            if session is not None:
                self._pause(session)

    def _pause(self, session: Session) -> None:
        hold = self.state.hold
        if hold is None or session.id not in hold.paused:
            return
        if session.status in _REPAUSE:
            session.set_status(S.PAUSED)

    async def _continue_paused(self, hold: UsageHold) -> None:
        text = self.settings.usage_limit_continue if self.settings.usage_limit_resume else None
        for sid in hold.paused:
            session = self._host.session(sid)
            if session is None or session.status != S.PAUSED:
                continue
            if text is None:
                session.set_status(S.IDLE if session.process.alive else S.COMPLETED)
                continue
            try:
                await self._host.continue_paused(session, text)
            except CctuiError as exc:
                log.warning("session %s was not continued: %s", sid, exc.message)
                session.set_status(S.ERROR, f"not continued after the usage limit: {exc.message}")

    # ------------------------------------------------------------------ schedules

    def add_schedule(
        self,
        name: str,
        when: str,
        prompt: str,
        config: SessionConfig,
        *,
        worktree: bool | str | None = None,
        missed: MissedRule = "once",
        timezone: str | None = None,
        priority: int = 0,
    ) -> Schedule:
        """A new schedule. Raises ValidationFailed (``when``, a name in use, not owner)."""
        if not self.owner:
            raise ValidationFailed(f"Not scheduled: {_NOT_OWNER}")
        if any(s.name == name.strip() for s in self.state.schedules):
            raise ValidationFailed(f"A schedule is already named {name!r}.")
        _check_worktree(worktree, config)
        schedule = schedules.make(
            name, when, prompt, config, self.clock.now(), worktree, missed, timezone, priority
        )
        self.state.schedules.append(schedule)
        self._save()
        self.wake()
        return schedule

    def schedule(self, ref: str) -> Schedule:
        """A schedule by id or name. Raises ValidationFailed."""
        return schedules.find(self.state.schedules, ref)

    def list_schedules(self) -> list[Schedule]:
        """Every schedule, the next to fire first."""
        far = datetime.max.replace(tzinfo=self.clock.now().tzinfo)
        return sorted(self.state.schedules, key=lambda s: (s.paused, s.next_due or far))

    def cancel_schedule(self, ref: str) -> Schedule:
        """Delete a schedule (its past runs stay listed). Raises ValidationFailed."""
        schedule = self.schedule(ref)
        self.state.schedules.remove(schedule)
        self._save()
        return schedule

    def edit_schedule(self, ref: str, **changes: Any) -> Schedule:
        """Pause, resume or change a schedule (``when``, ``prompt``, ``missed``...)."""
        schedule = self.schedule(ref)
        name = changes.get("name")
        if name and any(s.name == name.strip() and s is not schedule for s in self.state.schedules):
            raise ValidationFailed(f"A schedule is already named {name!r}.")
        _check_worktree(changes.get("worktree"), schedule.config)
        updated = schedules.edit(schedule, self.clock.now(), **changes)
        self.state.schedules[self.state.schedules.index(schedule)] = updated
        self._save()
        self.wake()
        return updated

    async def run_schedule_now(self, ref: str) -> SessionInfo:
        """One run of a schedule now, besides its own times."""
        schedule = self.schedule(ref)
        return await self._fire(schedule, self.clock.now())

    async def _fire_due(self, now: datetime) -> None:
        for schedule in list(self.state.schedules):
            if schedule.paused:
                continue
            runs, updated = schedules.due(schedule, now)
            if updated is not schedule:
                index = self.state.schedules.index(schedule)
                self.state.schedules[index] = updated
                self._save()  # the next time is on disk before the run starts: fired once
                schedule = updated
            for due in runs:
                await self._fire(schedule, due)
            if schedule.owed and not self._schedule_busy(schedule):
                schedule.owed -= 1
                self._save()
                await self._fire(schedule, now)

    def _schedule_busy(self, schedule: Schedule) -> bool:
        """Its last run has not finished (rule ``all`` starts owed runs one at a time)."""
        if not schedule.runs:
            return False
        last = self._host.session(schedule.runs[-1].session_id)
        return last is not None and last.status in (
            S.QUEUED,
            S.STARTING,
            S.RUNNING,
            S.WAITING_FOR_INPUT,
            S.PAUSED,
        )

    async def _fire(self, schedule: Schedule, due: datetime) -> SessionInfo:
        """Start one run: recorded (with its session id) before it is created, so a crash
        between the two is repaired at the next start rather than run twice."""
        run = schedules.record_run(schedule, due, self.clock.now())
        self._save()
        return await self._create_run(schedule, run.session_id)

    async def repair_runs(self) -> None:
        """A run recorded but never created (cctui stopped between the two) is created now."""
        for schedule in self.state.schedules:
            if schedule.runs and self._host.session(schedule.runs[-1].session_id) is None:
                with contextlib.suppress(CctuiError):  # said in the log by _create_run
                    await self._create_run(schedule, schedule.runs[-1].session_id)

    async def _create_run(self, schedule: Schedule, session_id: str) -> SessionInfo:
        """A schedule's run as a session (queued like any other when the limits say so);
        its process ends with its turn (``_run_status``)."""
        self._unattended.add(session_id)  # before: its turn may end before create returns
        try:
            return await self._host.create_dispatched(
                schedule.prompt,
                schedule.config,
                session_id=session_id,
                worktree=schedule.worktree,
                dispatch=DispatchRequest(schedule_id=schedule.id, priority=schedule.priority),
            )
        except BaseException as exc:
            self._unattended.discard(session_id)
            if isinstance(exc, CctuiError):
                log.warning("schedule %s: run not started: %s", schedule.name, exc.message)
            raise


def _check_worktree(worktree: bool | str | None, config: SessionConfig) -> None:
    """A schedule whose runs want a worktree needs a git repository: said when it is made,
    not at 3 a.m. by every run failing."""
    if worktree and git.toplevel(Path(config.cwd)) is None:
        raise ValidationFailed(
            f"worktree: {config.cwd} is not in a git repository; each run's worktree needs one."
        )


def _project_of(config: SessionConfig) -> str:
    return config.project or Path(config.cwd).name


def _when(when: datetime) -> str:
    """``14:05`` today, else ``Mon 14:05``."""
    local = when.astimezone()
    if local.date() == datetime.now().astimezone().date():
        return local.strftime("%H:%M")
    return local.strftime("%a %H:%M")


def _hhmm(when: datetime) -> str:
    """A time of day in the machine's zone, as lists show it."""
    return when.astimezone().strftime("%H:%M")
