"""Search every transcript as you type; ``enter`` opens the hit's session at that message.

The query goes to the history index (``HistoryIndex.search``) in a worker thread, a short
pause after the last key; an older query's answer that arrives late is dropped. The syntax is
the CLI's and the MCP tool's: words, "phrases", prefix*, -word, project: since: role: ...
"""

from __future__ import annotations

import logging
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import ColumnKey

from cctui.errors import CctuiError
from cctui.history import HistoryIndex
from cctui.history.models import SearchHit, SearchResult
from cctui.tui import format as fmt
from cctui.tui.keymap import bindings
from cctui.tui.modal import Modal
from cctui.tui.remote import RemoteView

log = logging.getLogger(__name__)

TYPING_PAUSE_S = 0.15
"""Search this long after the last key (a query per key would queue behind each other)."""
LIMIT = 50
_FIXED = (("when", 16), ("project", 14), ("session", 28))
_NARROW = (("when", 11), ("project", 10), ("session", 16))
"""The same columns below ``_NARROW_AT`` cells of table (80x24): the date without its
year, shorter names, so the match keeps room for what matched."""
_NARROW_AT = 100


def snippet_text(hit: SearchHit) -> Text:
    """The snippet with its matched words in bold."""
    text = Text(hit.snippet, no_wrap=True, overflow="ellipsis")
    for a, b in hit.highlights:
        text.stylize("bold reverse", a, b)
    return text


class SearchScreen(Modal[SearchHit | None]):
    """A query line over a table of hits (one per session); returns the chosen hit."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("SearchScreen")

    def __init__(
        self, index: HistoryIndex, query: str = "", remote: RemoteView | None = None
    ) -> None:
        super().__init__()
        self._index = index
        self._remote = remote
        """Other machines, searched at the same time; their hits follow as they come."""
        self._from_hosts: list[str] = []
        """What the hosts said for the query on screen (``devbox: 3 session(s)``,
        ``gpu: offline``)."""
        self._query = query
        self._hits: list[SearchHit] = []
        self._timer: Timer | None = None
        self._asked = 0
        self._summary = ""
        self.last: SearchResult | None = None
        """The result on screen (tests read it)."""
        self._narrow = False
        """The table is narrow (``_NARROW`` columns), decided with its first result."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content.styled("Search every transcript", "bold"), id="title")
            yield Input(
                value=self._query,
                placeholder='words, "a phrase", prefix*, -word, project: since: role:',
                id="query",
            )
            yield Static(id="summary")
            yield DataTable[Text](id="hits", cursor_type="row", zebra_stripes=True)
            yield Static(
                Content.from_markup(
                    "[b]enter[/b] open at that message · [b]↓[/b] to the hits · "
                    "[b]esc[/b] close · also [b]cctui search[/b] and claude_search_transcripts"
                ),
                id="hint",
            )

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        # Fixed widths: auto widths are measured when the app is idle, which a running index
        # build (the list refilling every step) can put off for a long time.
        for key, width in _FIXED:
            table.add_column(key, key=key, width=width)
        self.query_one("#query", Input).focus()
        if self._query:
            self._run(self._query)
        else:
            self._say("Type to search prompts, replies, tool calls and results.")

    def _say(self, text: str, style: str = "$text-muted") -> None:
        self.query_one("#summary", Static).update(Content.styled(text, style))

    @on(Input.Changed, "#query")
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        query = event.value
        self._timer = self.set_timer(TYPING_PAUSE_S, lambda: self._run(query))

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        if self._hits:
            self.query_one(DataTable).focus()

    def key_down(self) -> None:
        if self.query_one("#query", Input).has_focus and self._hits:
            self.query_one(DataTable).focus()

    def _run(self, query: str) -> None:
        self._asked += 1
        if not query.strip():
            self._show(None, self._asked)
            self._say("Type to search prompts, replies, tool calls and results.")
            return
        self.search(query, self._asked)

    @work(thread=True, group="search", exit_on_error=False)
    def search(self, query: str, asked: int) -> None:
        """Run one query off the event loop; the answer is drawn unless a newer one was asked."""
        try:
            result = self._index.search(query, limit=LIMIT)
        except CctuiError as exc:
            hint = f" · {exc.suggestion}" if exc.suggestion else ""
            self.app.call_from_thread(self._error, exc.message + hint, asked)
            return
        except Exception as exc:  # the index file itself failing: say so, keep the screen
            log.exception("search failed")
            self.app.call_from_thread(self._error, f"search failed: {exc}", asked)
            return
        self.app.call_from_thread(self._show, result, asked)

    def _error(self, message: str, asked: int) -> None:
        if asked == self._asked:
            self._say(message, "$text-warning")

    def _show(self, result: SearchResult | None, asked: int) -> None:
        if asked != self._asked or not self.is_attached:
            return  # a newer query was typed meanwhile
        self.last = result
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear()
        if "match" not in table.columns:
            self._narrow = 0 < table.size.width < _NARROW_AT
            fixed = _NARROW if self._narrow else _FIXED
            for key, width in fixed:
                table.columns[ColumnKey(key)].width = width
            used = sum(w for _, w in fixed) + 2 * (len(fixed) + 1)
            table.add_column("match", key="match", width=max(20, table.size.width - used))
        self._hits = []
        self._add_hits(list(result.hits) if result is not None else [])
        self._from_hosts = []
        if result is None:
            return
        if self._remote:
            self.search_hosts(result.query, asked)
        indexing = self._index.progress.describe()
        found = f"{result.total} session(s)" if result.hits else "no match"
        # With hosts, each count says whose it is ("this machine: no match · devbox: 1 …").
        parts = [f"this machine: {found}" if self._remote else found]
        if result.loose:
            parts.append(
                f"{result.exact} with every word, then {result.total - result.exact} with some"
                if result.exact
                else "no message has every word: the closest first"
            )
        if result.capped:
            parts.append("older matches not searched")
        if indexing:
            parts.append(indexing)
        self._summary = " · ".join(parts)
        self._say(self._summary)

    def _add_hits(self, hits: list[SearchHit], host: str | None = None) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        widths = dict(_NARROW if self._narrow else _FIXED)
        stamp = "%m-%d %H:%M" if self._narrow else "%Y-%m-%d %H:%M"
        for hit in hits:
            when = hit.timestamp.astimezone().strftime(stamp) if hit.timestamp else ""
            title = fmt.one_line(
                hit.title or hit.session_id.rpartition("/")[2][:8], widths["session"]
            )
            role = Text(f"{hit.role}: ", style="dim")
            where = f"{host}:{hit.project_name or ''}" if host else hit.project_name or ""
            table.add_row(
                Text(when, style="dim"),
                Text(fmt.one_line(where, widths["project"])),
                Text(title),
                role + snippet_text(hit),
                key=hit.session_id,
            )
            self._hits.append(hit)

    @work(group="search-hosts", exclusive=True, exit_on_error=False)
    async def search_hosts(self, query: str, asked: int) -> None:
        """Each host's hits, appended as each answers (a slow one holds up nobody)."""
        if self._remote is None:
            return
        async for host, answer in self._remote.search(query, limit=LIMIT):
            if asked != self._asked or not self.is_attached:
                return
            if isinstance(answer, CctuiError):
                self._from_hosts.append(f"{host}: {answer.message.removeprefix(host + ': ')}")
            else:
                self._add_hits(answer, host)
                self._from_hosts.append(
                    f"{host}: {len(answer)} session(s)" if answer else f"{host}: no match"
                )
            self._say(" · ".join([self._summary, *self._from_hosts]))

    @on(DataTable.RowSelected, "#hits")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        row = event.cursor_row
        if 0 <= row < len(self._hits):
            self.dismiss(self._hits[row])

    def action_close(self) -> None:
        self.dismiss(None)
