"""Usage and cost of every session on this machine: cost per day, then the tables.

Read from the history index (``HistoryIndex.usage``) in a worker thread. A chart of the last
``DAYS`` days' cost (Textual's Sparkline), then days, models, the costliest sessions and the
5-hour blocks. A model without a known price shows its tokens and "no price", never $0.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Sparkline, Static

from cctui.errors import CctuiError
from cctui.history import HistoryIndex
from cctui.history.models import UsageReport, UsageRow
from cctui.tui import format as fmt
from cctui.tui.keymap import bindings
from cctui.tui.modal import Modal
from cctui.tui.remote import RemoteView

DAYS = 30
TOP_SESSIONS = 10


@dataclass(frozen=True)
class _Reports:
    daily: UsageReport
    models: UsageReport
    sessions: UsageReport
    blocks: UsageReport


def money(row: UsageRow) -> Text:
    """``$1.23``, ``$1.23*`` when some replies have no price, ``no price`` when none has."""
    if row.cost_usd is None:
        return Text("no price", style="dim", justify="right")
    star = "*" if row.unpriced_replies else ""
    return Text(f"${row.cost_usd:,.2f}{star}", justify="right")


def tokens(n: int) -> Text:
    """A token count, short: 950, 12.3k, 4.5M, 5.0B (months of cache reads pass a billion)."""
    if n >= 1_000_000_000:
        s = f"{n / 1e9:.1f}B"
    elif n >= 1_000_000:
        s = f"{n / 1e6:.1f}M"
    elif n >= 1_000:
        s = f"{n / 1e3:.1f}k"
    else:
        s = str(n)
    return Text(s, justify="right")


def daily_costs(report: UsageReport, today: date, days: int = DAYS) -> list[float]:
    """Cost per day for the ``days`` days up to ``today`` (0 for days without use)."""
    by_day = {r.key: r.cost_usd or 0.0 for r in report.rows}
    first = today - timedelta(days=days - 1)
    return [by_day.get((first + timedelta(days=i)).isoformat(), 0.0) for i in range(days)]


class UsageScreen(Modal[None]):
    """Cost per day, then days, models, sessions and 5-hour blocks."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("UsageScreen")

    def __init__(
        self, index: HistoryIndex, *, today: date | None = None, remote: RemoteView | None = None
    ) -> None:
        super().__init__()
        self._index = index
        self._remote = remote if remote else None
        """Other machines: each one's total joins the Machines table as it answers."""
        self.machines: dict[str, UsageRow | str] = {}
        """Each machine's total (or why not), as drawn (tests read it)."""
        self._today = today or date.today()
        self.reports: _Reports | None = None
        """The reports on screen (tests read them)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Static(Content.styled("Usage and cost", "bold"), id="title")
            yield Static(id="totals")
            if self._remote is not None:
                yield Static(Content.styled("Machines", "bold $text-primary"), classes="heading")
                yield DataTable[Text](id="machines", cursor_type="none", zebra_stripes=True)
            yield Static(
                Content.styled(f"Cost per day, last {DAYS} days", "bold"), id="chart-title"
            )
            yield Sparkline([], id="chart")
            yield Static(id="chart-axis")
            yield Static(Content.styled("Days", "bold $text-primary"), classes="heading")
            yield DataTable[Text](id="days", cursor_type="none", zebra_stripes=True)
            yield Static(Content.styled("Models", "bold $text-primary"), classes="heading")
            yield DataTable[Text](id="models", cursor_type="none", zebra_stripes=True)
            yield Static(
                Content.styled(f"Costliest {TOP_SESSIONS} sessions", "bold $text-primary"),
                classes="heading",
            )
            yield DataTable[Text](id="sessions", cursor_type="none", zebra_stripes=True)
            yield Static(Content.styled("5-hour blocks", "bold $text-primary"), classes="heading")
            yield DataTable[Text](id="blocks", cursor_type="none", zebra_stripes=True)
            yield Static(
                Content.styled(
                    "esc to close · each reply counted once · prices: genai-prices "
                    "(offline) or [prices] in the config · also `cctui usage`, claude_usage",
                    "$text-muted",
                ),
                id="keys",
            )

    def on_mount(self) -> None:
        columns = ("input", "output", "cache w", "cache r", "cost")
        tables = [
            ("days", "day"),
            ("models", "model"),
            ("sessions", "session"),
            ("blocks", "block"),
        ]
        if self._remote is not None:
            tables.append(("machines", "machine"))
            self.load_hosts()
        for table_id, first in tables:
            table: DataTable[Text] = self.query_one(f"#{table_id}", DataTable)
            table.add_column(first, key="key")
            for c in columns:
                table.add_column(c, key=c)
        self.query_one("#totals", Static).update(
            Content.styled("reading the index…", "$text-muted")
        )
        self.load()

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False)
    def load(self) -> None:
        """Read the four reports off the event loop."""
        since = (self._today - timedelta(days=DAYS - 1)).isoformat()
        try:
            reports = _Reports(
                daily=self._index.usage("daily", since=since),
                models=self._index.usage("model"),
                sessions=self._index.usage("session"),
                blocks=self._index.usage("blocks", since=since),
            )
        except CctuiError as exc:
            self.app.call_from_thread(self._failed, exc.message)
            return
        self.app.call_from_thread(self._draw, reports)

    def _failed(self, message: str) -> None:
        self.query_one("#totals", Static).update(Content.styled(message, "$text-error"))

    def _draw(self, reports: _Reports) -> None:
        if not self.is_attached:
            return
        self.reports = reports
        everything = reports.models.total
        month = reports.daily.total
        t = everything.tokens
        parts = [
            Content.styled(_money_str(everything), "bold"),
            Content(f" in total over {everything.sessions:,} sessions and {t.replies:,} replies"),
            Content(f" · last {DAYS} days "),
            Content.styled(_money_str(month), "bold"),
        ]
        if everything.unpriced_replies:
            parts.append(
                Content.styled(
                    f" · * {everything.unpriced_replies:,} repl"
                    f"{'y' if everything.unpriced_replies == 1 else 'ies'} of models without a "
                    "price (tokens only)",
                    "$text-warning",
                )
            )
        indexing = self._index.progress.describe()
        if indexing:
            parts.append(Content.styled(f" · {indexing}", "$text-warning"))
        self.query_one("#totals", Static).update(Content.assemble(*parts))
        costs = daily_costs(reports.daily, self._today)
        self.query_one("#chart", Sparkline).data = costs
        peak = max(costs) if costs else 0.0
        first = self._today - timedelta(days=DAYS - 1)
        self.query_one("#chart-axis", Static).update(
            Content.styled(
                f"{first:%b %d} … {self._today:%b %d} · highest day ${peak:,.2f}", "$text-muted"
            )
        )
        self._draw_machines()
        self._fill("days", list(reversed(reports.daily.rows)), lambda r: Text(r.key))
        self._fill("models", reports.models.rows, lambda r: Text(r.key))
        self._fill(
            "sessions",
            reports.sessions.rows[:TOP_SESSIONS],
            lambda r: Text(fmt.one_line(r.label or r.key[:8], 40)),
        )
        self._fill(
            "blocks",
            list(reversed(reports.blocks.rows))[:10],
            lambda r: Text(
                (r.start.astimezone().strftime("%m-%d %H:%M") if r.start else r.key)
                + (" (active)" if r.active else ""),
                style="bold" if r.active else "",
            ),
        )

    @work(exclusive=True, group="usage-hosts", exit_on_error=False)
    async def load_hosts(self) -> None:
        """Each host's total, drawn as each answers (a slow host holds up nobody)."""
        if self._remote is None:
            return
        async for host, answer in self._remote.usage("model"):
            if not self.is_attached:
                return
            if isinstance(answer, CctuiError):
                self.machines[host] = answer.message.removeprefix(host + ": ")
            else:
                self.machines[host] = answer.total
            self._draw_machines()

    def _draw_machines(self) -> None:
        if self._remote is None or not self.is_attached:
            return
        rows = [r.model_copy(update={"key": name}) for name, r in self.machines.items()
                if isinstance(r, UsageRow)]  # fmt: skip
        if self.reports is not None:
            rows.insert(0, self.reports.models.total.model_copy(update={"key": "this machine"}))
        self._fill("machines", rows, lambda r: Text(r.key))
        table: DataTable[Text] = self.query_one("#machines", DataTable)
        for name, why in self.machines.items():
            if isinstance(why, str):
                table.add_row(Text(name), Text(fmt.one_line(why, 60), style="dim"), *[Text("")] * 4)

    def _fill(self, table_id: str, rows: list[UsageRow], label: object) -> None:
        table: DataTable[Text] = self.query_one(f"#{table_id}", DataTable)
        table.clear()
        for r in rows:
            t = r.tokens
            table.add_row(
                label(r),  # type: ignore[operator]
                tokens(t.input),
                tokens(t.output),
                tokens(t.cache_write_5m + t.cache_write_1h),
                tokens(t.cache_read),
                money(r),
            )
        if not rows:
            table.add_row(Text("nothing yet", style="dim"), *[Text("")] * 5)

    def action_close(self) -> None:
        self.dismiss(None)


def _money_str(row: UsageRow) -> str:
    return "no price" if row.cost_usd is None else f"${row.cost_usd:,.2f}"
