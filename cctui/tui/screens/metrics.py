"""This run's metrics: totals, MCP tool calls with latency percentiles, and per session."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from cctui.core.metrics import MetricsSnapshot
from cctui.errors import CctuiError
from cctui.tui import format as fmt
from cctui.tui.keymap import bindings
from cctui.tui.modal import Modal

REFRESH_S = 2.0


class MetricsScreen(Modal[None]):
    """Totals, then one row per MCP tool and per session; refreshed while open."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("MetricsScreen")

    def __init__(self, snapshot: Callable[[], Awaitable[MetricsSnapshot]]) -> None:
        super().__init__()
        self._snapshot = snapshot

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled("Metrics (this run)", "bold"), id="title")
            yield Static(id="totals")
            yield Static(Content.styled("MCP tools", "bold $text-primary"), classes="heading")
            yield DataTable[Text](id="tools", cursor_type="none", zebra_stripes=True)
            yield Static(Content.styled("Sessions", "bold $text-primary"), classes="heading")
            yield DataTable[Text](id="sessions", cursor_type="none", zebra_stripes=True)
            yield Static(
                Content.styled(
                    "esc to close · also as MCP resource cctui://metrics", "$text-muted"
                ),
                id="keys",
            )

    def on_mount(self) -> None:
        tools = self.query_one("#tools", DataTable)
        for label in ("tool", "calls", "errors", "p50", "p90", "p99", "max"):
            tools.add_column(label, key=label)
        sessions = self.query_one("#sessions", DataTable)
        for label in ("session", "sent", "replies", "chars in", "chars out", "cost", "turn p50"):
            sessions.add_column(label, key=label)
        self.reload()
        self.set_interval(REFRESH_S, self.reload)

    @work(exclusive=True, group="metrics", exit_on_error=False)
    async def reload(self) -> None:
        """Redraw from a fresh snapshot (an attached window's comes from the owner)."""
        try:
            snap = await self._snapshot()
        except CctuiError as exc:
            self.query_one("#totals", Static).update(Content.styled(exc.message, "$text-error"))
            return
        self.query_one("#totals", Static).update(_totals(snap))
        tools = self.query_one("#tools", DataTable)
        tools.clear()
        for t in snap.tools:
            lat = t.latency
            tools.add_row(
                Text(t.tool),
                _num(t.calls),
                Text(str(t.errors), style="bold red" if t.errors else "dim"),
                *_ms(lat.p50_ms, lat.p90_ms, lat.p99_ms, lat.max_ms),
            )
        if not snap.tools:
            tools.add_row(Text("no MCP calls yet", style="dim"), *[Text("")] * 6)
        sessions = self.query_one("#sessions", DataTable)
        sessions.clear()
        for s in snap.sessions:
            name = fmt.one_line(s.title or s.session_id[:8], 40)
            sessions.add_row(
                Text(name),
                _num(s.messages_sent),
                _num(s.replies),
                _num(s.chars_in),
                _num(s.chars_out),
                Text(fmt.cost(s.cost_usd) or "-", justify="right"),
                *_ms(s.turn_duration.p50_ms),
            )
        if not snap.sessions:
            sessions.add_row(Text("no session activity yet", style="dim"), *[Text("")] * 6)

    def action_close(self) -> None:
        self.dismiss(None)


def _totals(snap: MetricsSnapshot) -> Content:
    rows = [
        (
            "Sessions",
            [
                ("started", str(snap.sessions_started)),
                ("processes", str(snap.processes_started)),
                ("messages", str(snap.messages_sent)),
                ("chars in/out", f"{snap.chars_in}/{snap.chars_out}"),
                ("cost", fmt.cost(snap.cost_usd) or "$0"),
            ],
        ),
        (
            "MCP",
            [
                ("calls", str(snap.tool_calls)),
                ("errors", str(snap.tool_errors)),
                ("latency p50", _ms(snap.latency.p50_ms)[0].plain),
                ("p90", _ms(snap.latency.p90_ms)[0].plain),
                ("p99", _ms(snap.latency.p99_ms)[0].plain),
            ],
        ),
    ]
    lines = []
    for title, parts in rows:
        pieces: list[tuple[str, str]] = [(f"{title:<9}", "bold")]
        for i, (label, value) in enumerate(parts):
            pieces += [("  " if i else "", ""), (f"{label} ", "$text-muted"), (value, "bold")]
        lines.append(Content.assemble(*pieces))
    return Content("\n").join(lines)


def _num(value: int) -> Text:
    return Text(str(value), justify="right")


def _ms(*values: float | None) -> list[Text]:
    return [Text(fmt.duration(round(v)) if v is not None else "-", justify="right") for v in values]
