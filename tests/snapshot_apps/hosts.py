"""Two hosts for the snapshot demo: ``devbox`` online (a session waiting for a permission,
one running, one done) and ``gpu``, whose link drops after its first look.

A scripted ``Link`` (the protocol ``remote.hosts`` follows) stands in for the MCP client, so
the rows, times and events are the same on every run; the real client against a real second
cctui is in tests/remote.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from cctui.config import HostConfig
from cctui.core import (
    AssistantTextEvent,
    Decision,
    PendingInput,
    SessionEvent,
    ToolUseEvent,
    UserMessageEvent,
)
from cctui.core.catalog import CatalogEntry
from cctui.core.session.states import SessionStatus
from cctui.history.models import SearchHit, TranscriptMessage, TranscriptPage, UsageReport
from cctui.remote.hosts import Hosts
from cctui.remote.models import (
    Answered,
    ConnectFailed,
    Followed,
    HostUnreachable,
    RemoteError,
    StatusPage,
)

BILLING = "7d0c5a1e-3b8f-4c2a-9e61-2f4d8b7a0c11"
TOKENIZER = "a41f9e20-6c3d-4b7e-8a15-9d2c0e4f6b73"
DEPS = "c9e2b7d4-1a6f-4e83-b5c0-7f3a9d1e2b48"
KERNELS = "5b8a3c1d-9e7f-4a20-8c64-1d3e5f7a9b02"
LOADER = "e3f1a9c7-2d4b-4f68-a0b3-6c8e1d5f7a94"


class DemoLink:
    """One host's cctui, scripted: fixed sessions, events and pending inputs."""

    version: str | None = "0.1.0"
    tools = frozenset({"claude_search_transcripts", "claude_usage"})

    def __init__(self, now: datetime, entries: list[CatalogEntry], *, drops: bool) -> None:
        self.now = now
        self.entries = entries
        self.drops = drops
        self.closed = False
        self.looked = False
        self.pending: dict[str, PendingInput] = {}
        self.events: dict[str, list[SessionEvent]] = {}
        self.answers: list[tuple[str, Decision]] = []
        self.past: dict[str, list[TranscriptMessage]] = {}
        """Each past session's transcript there."""

    async def connect(self) -> None:
        if self.drops and self.looked:
            raise ConnectFailed(
                "offline", "gpu: no connection (ssh: connect to host gpu port 22: timed out)"
            )

    async def close(self) -> None:
        self.closed = True

    async def call(self, tool: str, **_: Any) -> dict[str, Any]:
        raise HostUnreachable("demo", f"{tool} is not in the demo")

    async def health(self) -> dict[str, Any]:
        return {"ok": True, "path": "/home/me/.local/bin/claude"}

    async def list_sessions(self, **_: Any) -> list[CatalogEntry]:
        if self.drops and self.looked:
            self.closed = True
            raise HostUnreachable("gpu", "the link dropped")
        self.looked = True
        return self.entries

    async def follow(self, *_: Any, **__: Any) -> list[Followed]:
        raise RemoteError("demo", "no such tool", code="unknown_tool")  # polled, as of old

    async def transcript(
        self, session_id: str, *, offset: int = 0, limit: int = 50
    ) -> TranscriptPage:
        past = self.past.get(session_id, [])
        return TranscriptPage(session_id=session_id, offset=offset, limit=limit, total=len(past),
                              messages=tuple(past[offset : offset + limit]))  # fmt: skip

    async def status(self, session_id: str, **kw: Any) -> StatusPage:
        since = kw.get("since_seq", 0)
        events = [e for e in self.events.get(session_id, []) if e.seq > since]
        entry = next(e for e in self.entries if e.session_id == session_id)
        return StatusPage(
            session_id=session_id,
            state=entry.status.value,
            events=events,
            next_seq=events[-1].seq if events else since,
            epoch="demo",
            pending=[p for p in self.pending.values() if p.session_id == session_id],
        )

    async def respond(self, session_id: str, input_id: str, decision: Decision) -> Answered:
        self.pending.pop(input_id)
        self.answers.append((input_id, decision))
        return Answered(input_id=input_id, decided_by="mcp:cctui@demo", state="running")

    async def create(self, prompt: str | None, **_: Any) -> str:
        raise HostUnreachable("demo", "not in the demo")

    async def send(self, session_id: str, text: str) -> None: ...
    async def interrupt(self, session_id: str) -> None: ...
    async def kill(self, session_id: str) -> None: ...

    async def search(self, query: str, **_: Any) -> list[SearchHit]:
        return []

    async def usage(self, period: str = "daily", **_: Any) -> UsageReport:
        raise HostUnreachable("demo", "not in the demo")


def _entry(sid: str, status: str, title: str, cwd: str, ago: timedelta, now: datetime,
           cost: float | None = None) -> CatalogEntry:  # fmt: skip
    return CatalogEntry(
        session_id=sid,
        status=SessionStatus(status),
        is_active=status in ("running", "waiting_for_input", "idle"),
        cwd=cwd,
        title=title,
        last_activity=now - ago,
        created_at=now - ago - timedelta(minutes=20),
        total_cost_usd=cost,
    )


def demo_links(now: datetime) -> dict[str, DemoLink]:
    """``devbox`` and ``gpu``, as the demo shows them."""
    m = timedelta(minutes=1)
    devbox = DemoLink(
        now,
        [
            _entry(
                BILLING,
                "waiting_for_input",
                "Migrate the billing tables",
                "/srv/billing",
                m,
                now,
                0.42,
            ),
            _entry(
                TOKENIZER,
                "running",
                "Train the tokenizer on the new corpus",
                "/srv/ml",
                m * 0,
                now,
                1.87,
            ),
            _entry(DEPS, "completed", "Bump dependencies", "/srv/billing", m * 95, now, 0.12),
        ],
        drops=False,
    )
    devbox.pending["in_devbox01"] = PendingInput(
        id="in_devbox01",
        session_id=BILLING,
        kind="permission",
        tool_name="Bash",
        tool_input={"command": "alembic upgrade head", "description": "Run the migrations"},
        description="Run the migrations",
        created_at=now - m,
        route="nobody",
        allow_for_session="Bash(alembic upgrade:*) until the session ends",
    )
    devbox.events[TOKENIZER] = [
        UserMessageEvent(session_id=TOKENIZER, seq=1, at=now - m * 6,
                         text="Train the tokenizer on the new corpus and report the vocab size."),
        AssistantTextEvent(session_id=TOKENIZER, seq=2, at=now - m * 6, message_id="m1",
                           text="I'll start the training run and watch its loss.", complete=True),
        ToolUseEvent(session_id=TOKENIZER, seq=3, at=now - m * 5, tool_use_id="t1", name="Bash",
                     input={"command": "python train_tokenizer.py --corpus data/v2"},
                     state="completed", result="epoch 3/3 · vocab 32000 · loss 1.92"),
        AssistantTextEvent(session_id=TOKENIZER, seq=4, at=now, message_id="m2",
                           text="Training finished: **32,000** tokens. Now checking coverage"),
    ]  # fmt: skip
    devbox.past[DEPS] = [
        TranscriptMessage(index=0, uuid="deps-1", role="user", text="Bump the dependencies."),
        TranscriptMessage(index=1, uuid="deps-2", role="assistant",
                          text="Bumped **12** dependencies; the tests pass."),
    ]  # fmt: skip
    gpu = DemoLink(
        now,
        [
            _entry(
                KERNELS,
                "idle",
                "Benchmark the attention kernels",
                "/home/me/kernels",
                m * 3,
                now,
                3.05,
            ),
            _entry(
                LOADER,
                "completed",
                "Profile the data loader",
                "/home/me/loader",
                m * 140,
                now,
                0.66,
            ),
        ],
        drops=True,
    )
    return {"devbox": devbox, "gpu": gpu}


def demo_hosts(now: datetime) -> tuple[Hosts, dict[str, DemoLink]]:
    """The demo's hosts over scripted links (and the links, to look at what they were told)."""
    links = demo_links(now)
    configs = [HostConfig(name="devbox"), HostConfig(name="gpu")]
    return Hosts(configs, lambda c: links[c.name], me="mcp:cctui@demo"), links
