"""Counters for this run: per session (from its events) and server-wide (MCP tool calls).

One owner: ``SessionManager`` holds a ``Metrics`` and feeds it every event it publishes, so
the per-session numbers follow whatever the session reports (messages, text, results) without
any other part of the core writing into them. The MCP server reports each tool call through
``SessionManager.record_tool_call``. Only recent samples are kept for percentiles, so memory
stays bounded however long cctui runs.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from cctui.core.session.events import (
    AssistantTextEvent,
    ResultEvent,
    SessionEvent,
    StatusChanged,
    UserMessageEvent,
)
from cctui.core.session.states import SessionStatus

SAMPLES_KEPT = 1000
"""Latency / duration samples kept per tool and per session for percentiles."""


class Percentiles(BaseModel):
    """Nearest-rank percentiles over the recent samples, in milliseconds."""

    model_config = ConfigDict(defer_build=True)

    count: int = 0
    """Samples ever recorded (percentiles use the most recent ``SAMPLES_KEPT``)."""
    mean_ms: float | None = None
    p50_ms: float | None = None
    p90_ms: float | None = None
    p99_ms: float | None = None
    max_ms: float | None = None
    last_ms: float | None = None


class SessionMetrics(BaseModel):
    """One session's activity in this run."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    title: str | None = None
    messages_sent: int = 0
    """User messages sent to it (from the TUI, MCP, broadcasts, context syncs)."""
    replies: int = 0
    """Turns answered (each sent message ends with one result)."""
    assistant_messages: int = 0
    """Assistant messages that carried text."""
    chars_in: int = 0
    """Characters of the messages sent."""
    chars_out: int = 0
    """Characters of assistant text received."""
    errors: int = 0
    """Turns that ended in an error (an interrupted turn is not one)."""
    interrupted: int = 0
    """Turns stopped because someone asked (the user, an MCP client, the turn time limit)."""
    cost_usd: float = 0.0
    """The session's total cost as last reported."""
    processes_started: int = 0
    """Processes spawned for it (the first one and every resume)."""
    turn_duration: Percentiles = Field(default_factory=Percentiles)
    """Turn durations as the CLI reports them."""
    last_activity: datetime | None = None


class ToolMetrics(BaseModel):
    """One MCP tool's calls in this run."""

    model_config = ConfigDict(defer_build=True)

    tool: str
    calls: int = 0
    """Calls (an elicitation retry of a call is not another call)."""
    errors: int = 0
    """Calls that ended in a structured error (or were cancelled)."""
    latency: Percentiles = Field(default_factory=Percentiles)
    """Server time of each call's last round."""


class MetricsSnapshot(BaseModel):
    """Everything, at one moment; what ``cctui://metrics`` and the TUI's metrics page show."""

    model_config = ConfigDict(defer_build=True)

    generated_at: datetime
    uptime_s: float
    sessions_started: int
    """New sessions (created or forked) in this run."""
    processes_started: int
    """Processes spawned, resumes included."""
    messages_sent: int
    chars_in: int
    chars_out: int
    cost_usd: float
    """Summed over the sessions active in this run."""
    tool_calls: int
    tool_errors: int
    latency: Percentiles
    """Over every tool call."""
    tools: list[ToolMetrics]
    """Busiest first."""
    sessions: list[SessionMetrics]
    """Most recently active first."""


@dataclass
class _Samples:
    count: int = 0
    total: float = 0.0
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES_KEPT))

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.recent.append(value)

    def summary(self) -> Percentiles:
        if not self.recent:
            return Percentiles(count=self.count)
        ordered = sorted(self.recent)
        return Percentiles(
            count=self.count,
            mean_ms=round(self.total / self.count, 1),
            p50_ms=_rank(ordered, 50),
            p90_ms=_rank(ordered, 90),
            p99_ms=_rank(ordered, 99),
            max_ms=round(ordered[-1], 1),
            last_ms=round(self.recent[-1], 1),
        )


def _rank(ordered: list[float], pct: float) -> float:
    """Nearest-rank percentile of a sorted, non-empty list."""
    index = max(0, math.ceil(pct / 100 * len(ordered)) - 1)
    return round(ordered[index], 1)


@dataclass
class _Session:
    sent: int = 0
    replies: int = 0
    texts: int = 0
    chars_in: int = 0
    chars_out: int = 0
    errors: int = 0
    interrupted: int = 0
    cost: float = 0.0
    processes: int = 0
    durations: _Samples = field(default_factory=_Samples)
    last: datetime | None = None
    text_seen: dict[str, int] = field(default_factory=dict)
    """Per assistant message id of the running turn: characters already counted."""


@dataclass
class _Tool:
    calls: int = 0
    errors: int = 0
    latency: _Samples = field(default_factory=_Samples)


class Metrics:
    """Counts sessions' events and MCP tool calls."""

    def __init__(self) -> None:
        self._started = time.monotonic()
        self._sessions: dict[str, _Session] = {}
        self._tools: dict[str, _Tool] = {}
        self._all_calls = _Samples()
        self.sessions_started = 0
        self.processes_started = 0

    # ------------------------------------------------------------------ feeding

    def observe(self, event: SessionEvent) -> None:
        """A ``Listener``: count one published event."""
        s = self._sessions.get(event.session_id)
        if s is None:  # not setdefault: this runs for every event, a _Session is not free
            s = self._sessions[event.session_id] = _Session()
        s.last = event.at
        if isinstance(event, UserMessageEvent):
            s.sent += 1
            s.chars_in += len(event.text)
        elif isinstance(event, AssistantTextEvent) and event.complete:
            # Each complete event carries the whole message so far: count what is new.
            seen = s.text_seen.get(event.message_id)
            if seen is None:
                s.texts += 1
            s.chars_out += max(0, len(event.text) - (seen or 0))
            s.text_seen[event.message_id] = len(event.text)
        elif isinstance(event, ResultEvent):
            s.replies += 1
            # The CLI reports an interrupted turn as an error; it was asked for.
            s.interrupted += int(event.interrupted)
            s.errors += int(event.is_error and not event.interrupted)
            s.cost = event.total_cost_usd or s.cost
            s.durations.add(float(event.duration_ms))
            s.text_seen.clear()
        elif isinstance(event, StatusChanged) and event.status == SessionStatus.STARTING:
            s.processes += 1
            self.processes_started += 1
            if event.previous is None:  # a session's first process (created or forked)
                self.sessions_started += 1

    def tool_call(self, tool: str, outcome: str, duration_ms: float, *, retry: bool) -> None:
        """Count one round of an MCP tool call.

        ``outcome`` is ``ok``, ``input_required`` (the client is asked and will retry),
        ``cancelled`` or an error code. A ``retry`` round (carrying elicitation answers)
        is the same call: it is not counted again, but its outcome and time are the call's.
        """
        t = self._tools.get(tool)
        if t is None:
            t = self._tools[tool] = _Tool()
        if not retry:
            t.calls += 1
        if outcome == "input_required":
            return
        t.latency.add(duration_ms)
        self._all_calls.add(duration_ms)
        if outcome != "ok":
            t.errors += 1

    # ------------------------------------------------------------------ reading

    def session(self, session_id: str, title: str | None = None) -> SessionMetrics:
        """One session's numbers (zeros when it has done nothing in this run)."""
        s = self._sessions.get(session_id) or _Session()
        return SessionMetrics(
            session_id=session_id,
            title=title,
            messages_sent=s.sent,
            replies=s.replies,
            assistant_messages=s.texts,
            chars_in=s.chars_in,
            chars_out=s.chars_out,
            errors=s.errors,
            interrupted=s.interrupted,
            cost_usd=round(s.cost, 6),
            processes_started=s.processes,
            turn_duration=s.durations.summary(),
            last_activity=s.last,
        )

    def snapshot(self, titles: Mapping[str, str | None] | None = None) -> MetricsSnapshot:
        """Everything now; ``titles`` names the sessions (by id) where known."""
        titles = titles or {}
        sessions = sorted(
            (self.session(sid, titles.get(sid)) for sid in self._sessions),
            key=lambda m: m.last_activity or datetime.min.replace(tzinfo=UTC),
            reverse=True,
        )
        tools = sorted(
            (
                ToolMetrics(tool=name, calls=t.calls, errors=t.errors, latency=t.latency.summary())
                for name, t in self._tools.items()
            ),
            key=lambda m: (-m.calls, m.tool),
        )
        return MetricsSnapshot(
            generated_at=datetime.now(UTC),
            uptime_s=round(time.monotonic() - self._started, 1),
            sessions_started=self.sessions_started,
            processes_started=self.processes_started,
            messages_sent=sum(m.messages_sent for m in sessions),
            chars_in=sum(m.chars_in for m in sessions),
            chars_out=sum(m.chars_out for m in sessions),
            cost_usd=round(sum(m.cost_usd for m in sessions), 6),
            tool_calls=sum(t.calls for t in tools),
            tool_errors=sum(t.errors for t in tools),
            latency=self._all_calls.summary(),
            tools=tools,
            sessions=sessions,
        )
