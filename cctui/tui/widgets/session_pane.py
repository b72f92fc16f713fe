"""The right-hand pane: the selected session's header, its output, and a message line."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.await_remove import AwaitRemove
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Static

from cctui.config import Settings
from cctui.core import Page, SessionEvent, UserMessageEvent
from cctui.core.api import CoreApi
from cctui.errors import CctuiError
from cctui.history import TranscriptMessage, TranscriptPage, aread_transcript
from cctui.tui import format as fmt
from cctui.tui.keymap import bindings
from cctui.tui.rows import SessionRow
from cctui.tui.widgets.transcript import Transcript

log = logging.getLogger(__name__)

PAGE = 200
"""Events read per call; a long backlog is drawn in a few mounts, not one huge one."""

HISTORY_PAGE = 40
"""Transcript messages per page of a past session (the newest page is shown first)."""
AT_MESSAGE_PAGE = 200
"""Messages drawn from a search hit's message on (earlier ones stay behind the ▲ line)."""
REMOTE_PAGE = 200
"""A host's transcript is read at most this many messages per call (``claude_get_transcript``)."""

EMPTY = """\
[b]No session selected[/b]

[$text-muted]Pick one on the left, or press [b]n[/b] to start a new session.
Pending inputs from every session wait in the inbox: [b]a[/b]. Help: [b]?[/b][/]"""


class SessionHeader(Static):
    """Title, status, project and totals of the shown session."""


class MessageInput(Input):
    """The line that sends a message to the shown session."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("MessageInput")

    class Leave(Message):
        """The user is done typing; focus goes back to the list."""

    def action_leave(self) -> None:
        self.post_message(self.Leave())


class LoadEarlier(Button):
    """Loads the previous page of a past session's transcript."""

    def __init__(self, label: str) -> None:
        super().__init__(label, compact=True)


class SessionPane(Vertical):
    """Shows one session; pulls its events from the manager by seq so none are lost."""

    class Send(Message):
        """The user asked to send ``text`` to ``session_id``."""

        def __init__(self, session_id: str, text: str) -> None:
            super().__init__()
            self.session_id = session_id
            self.text = text

    def __init__(
        self,
        manager: CoreApi,
        settings: Settings,
        *,
        remote_events: Callable[[str, int, int], Page[SessionEvent]] | None = None,
        remote_transcript: Callable[[str, int, int], Awaitable[TranscriptPage]] | None = None,
        id: str | None = None,
    ) -> None:
        # Empty until a session is shown: the class given here is styled with the pane as
        # it mounts (set in on_mount, it restyled the whole pane again before the first frame).
        super().__init__(id=id, classes="-empty")
        self._manager = manager
        self._settings = settings
        self._remote_events = remote_events
        """A host's session's events followed from here, by key (``RemoteView.events``)."""
        self._remote_transcript = remote_transcript
        """A page of a host's session's transcript, read there (``RemoteView.transcript``)."""
        self.session_id: str | None = None
        self._seq = 0
        self._row: SessionRow | None = None
        self._buffered = False
        """The core holds events for the shown session (cctui drives or drove it this run)."""
        self._first_event_at: datetime | None = None
        self._history_start: int | None = None
        """Index of the oldest transcript message drawn; None before any was."""
        self._at: tuple[str | None, datetime | None] | None = None
        """A message to open the history at (a search hit's uuid and time), once."""
        self._header: Content | None = None
        self.starting = False
        """A session the form just sent is shown before it exists (``show_starting``)."""
        self._releases: set[asyncio.Task[None]] = set()
        """The tasks that end a held paint (``_paint_once``), kept until they have run."""
        self._drafts: dict[str, str] = {}
        """What was typed on the message line and not sent, by session, while another is
        shown: a draft is that session's, and Enter must never send it to the next one."""

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="pane-header")
        yield Static(Content.from_markup(EMPTY), id="pane-empty")
        yield Transcript(id="transcript")
        yield MessageInput(
            placeholder="Message this session · enter sends · esc back to list", id="message"
        )

    def _show_empty(self, empty: bool) -> None:
        self.set_class(empty, "-empty")

    def show(
        self,
        row: SessionRow | None,
        *,
        at_message: tuple[str | None, datetime | None] | None = None,
        from_transcript: bool = False,
    ) -> None:
        """Show ``row``'s session (or the empty state), reading its output from the start;
        ``at_message`` (uuid, time) opens its transcript at that message instead of the end.

        ``from_transcript``: draw it again from its transcript, not from what cctui's process
        said (after Claude Code itself wrote to it: the transcript holds both); only events
        after this point are pulled from the core."""
        transcript = self.query_one(Transcript)
        self.starting = False
        self._swap_draft(row.session_id if row is not None else None)
        if row is None:
            self.session_id, self._row = None, None
            transcript.reset()
            self._show_empty(True)
            return
        same = row.session_id == self.session_id
        self._row = row
        self._at = at_message
        self._update_header()
        if same and at_message is None and not from_transcript:
            self.pull()
            return
        if same:
            self.session_id = None  # shown again from the message asked for
        self.session_id = row.session_id
        self._seq = 0
        self._buffered = False
        self._first_event_at = None
        self._start_over(transcript)
        self._show_empty(False)
        if from_transcript:
            # Not one of cctui's sessions: it has no events to skip.
            with contextlib.suppress(CctuiError):
                self._seq = self._manager.get(row.session_id).last_seq
            self.load_history(row.session_id)
            return
        self.pull()
        if row.host is not None and self._remote_transcript is None:
            return
        if not self._buffered:
            # After the header is drawn: the first read of a transcript imports the SDK's
            # reader (a second, in the worker's thread), and cctui's first frame must not wait.
            self.call_after_refresh(self.load_history, row.session_id)
        elif row.has_past:
            transcript.mount(LoadEarlier("▲ earlier conversation (from the transcript)"), before=0)

    def _start_over(self, transcript: Transcript) -> None:
        """Forget what is drawn, and the transcript page being read for it."""
        self._history_start = None
        # A page still being read belongs to the view shown before: the same session shown
        # afresh (previewed, then resumed) would get it drawn over what it shows now.
        self.workers.cancel_group(self, "transcript")
        self._paint_once(transcript.reset())

    def _paint_once(self, removal: AwaitRemove) -> None:
        """Hold the screen's paints until the old session's widgets are gone, so that the
        new header, the old widgets' removal and the new ones are laid out and drawn in one
        pass: each is a turn of the loop apart, and each turn painted (and laid out the
        whole screen) on its own, three passes per preview of a `j`."""
        batch = self.app.batch_update()
        batch.__enter__()

        async def release() -> None:
            try:
                await removal
            finally:
                batch.__exit__(None, None, None)
                self._releases.discard(task)

        task = asyncio.get_running_loop().create_task(release())
        self._releases.add(task)

    def _swap_draft(self, session_id: str | None) -> None:
        """The message line holds ``session_id``'s draft (kept when it was left), and the
        shown session's is kept for its return."""
        if session_id == self.session_id:
            return
        line = self.query_one("#message", MessageInput)
        if self.session_id is not None and line.value:
            self._drafts[self.session_id] = line.value
        line.value = self._drafts.pop(session_id, "") if session_id is not None else ""

    def show_starting(self, row: SessionRow, prompt: str | None, note: str) -> None:
        """Show a session the form just sent, before it exists: its header (``row``, with
        no id yet), its prompt as it will be drawn, and ``note`` (what it waits for), until
        ``show`` draws the session itself. Its process takes half a second to start (a new
        worktree longer); the pane must not show the last session meanwhile."""
        self.show(None)
        self.starting = True
        self._row = row
        self._update_header()
        self._show_empty(False)
        transcript = self.query_one(Transcript)
        if prompt:
            transcript.apply([UserMessageEvent(session_id=row.session_id, text=prompt)])
        transcript.note(note, classes="muted")

    def update_row(self, row: SessionRow) -> None:
        """New list data for the shown session (status, cost). A session running in someone's
        terminal has no events here, only its transcript: what it wrote since is drawn (its
        newest page read again) while the reader follows its end."""
        if row.session_id != self.session_id:
            return
        before, self._row = self._row, row
        self._update_header()
        # Called on every batch of activity: cctui's own sessions (most rows) stop here.
        if row.ours or self._buffered or before is None:
            return
        if (before.last_activity, before.status) == (row.last_activity, row.status):
            return
        transcript = self.query_one(Transcript)
        if transcript.following():
            # Not through ``show``'s from_transcript: that asks the core, which would take
            # the session on as one of cctui's.
            self._start_over(transcript)
            self.load_history(row.session_id)

    def pull(self) -> None:
        """Draw every event after the last one drawn."""
        if self.session_id is None:
            return
        transcript = self.query_one(Transcript)
        remote = self._row is not None and self._row.host is not None
        while True:
            try:
                if remote and self._remote_events is not None:
                    page = self._remote_events(self.session_id, self._seq, PAGE)
                else:
                    page = self._manager.events(self.session_id, since=self._seq, limit=PAGE)
            except CctuiError:
                return  # a session known only from disk: its transcript is the history
            if page.events and self._first_event_at is None:
                self._first_event_at = page.events[0].at
            if page.events and not self._buffered and self._history_start is not None:
                # The transcript was drawn before the session's first events came (a window
                # attached to the owner, or a host's session, gets them by push a moment
                # later; the CLI had written the prompt by then): drawn again, it keeps only
                # what came before these events, or the run's first prompt shows twice.
                transcript.reset()
                self._history_start = None
                self.call_after_refresh(self.load_history, self.session_id)
            self._buffered = self._buffered or bool(page.events) or page.next_seq > 0
            if page.missed and self._seq > 0:
                transcript.note(
                    f"… output before seq {page.oldest_seq} was dropped (EVENT_BUFFER_SIZE)",
                    classes="muted",
                )
            elif self._seq == 0 and page.oldest_seq > 1:
                transcript.note("… earlier output is no longer buffered", classes="muted")
            if not page.events:
                return
            transcript.apply(page.events)
            self._seq = page.next_seq
            if len(page.events) < PAGE:
                return

    @work(exclusive=True, group="transcript", exit_on_error=False)
    async def load_history(self, session_id: str) -> None:
        """Draw the newest page of a session's transcript, or the page before the oldest shown."""
        if session_id != self.session_id:
            return  # asked for after a refresh, and the user moved on meanwhile
        transcript = self.query_one(Transcript)
        row = self._row
        cwd = str(row.cwd) if row is not None and row.cwd else None
        path = row.transcript_path if row is not None else None
        config_dir = self._settings.claude_config_dir
        at, self._at = self._at, None
        remote = self._remote_transcript if row is not None and row.host is not None else None

        async def read(offset: int, limit: int) -> TranscriptPage:
            if remote is not None:  # a host's session: read there, through its link
                return await remote(session_id, offset, min(limit, REMOTE_PAGE))
            return await aread_transcript(
                config_dir, session_id, offset=offset, limit=limit, cwd=cwd, path=path
            )

        try:
            end = self._history_start
            start = None
            if end is None:
                probe = await read(0, 1)
                end = probe.total
                if at is not None and end and remote is None:
                    whole = await read(0, end)
                    found = _position(whole.messages, *at)
                    if found is not None:
                        start = max(0, found - 1)
                        end = min(end, start + AT_MESSAGE_PAGE)
            if start is None:
                start = max(0, end - HISTORY_PAGE)
            else:
                self.query_one(Transcript).call_after_refresh(transcript.scroll_home, animate=False)
            page = await read(start, max(1, end - start))
        except CctuiError as exc:
            if session_id == self.session_id and not self._buffered:
                transcript.note(f"No transcript to show: {exc.message}", classes="muted")
            return
        if session_id != self.session_id:
            return  # the user moved on while we read
        self._draw_history(page, start)

    def _draw_history(self, page: TranscriptPage, start: int) -> None:
        transcript = self.query_one(Transcript)
        for old in self.query(LoadEarlier):
            old.remove()
        messages: list[TranscriptMessage] = list(page.messages)
        if self._buffered and self._first_event_at is not None:
            # Only what happened before this run's events, which are drawn already.
            first = self._first_event_at
            messages = [m for m in messages if m.timestamp is None or m.timestamp < first]
        transcript.history(messages)
        self._history_start = start
        if page.skipped_lines:
            transcript.mount(
                Static(
                    Content.styled(
                        f"… {page.skipped_lines} unreadable line(s) of the transcript skipped",
                        "$text-warning",
                    ),
                    classes="note",
                ),
                before=0,
            )
        if start > 0:
            transcript.mount(
                LoadEarlier(f"▲ {start} earlier message(s) · load {min(start, HISTORY_PAGE)} more"),
                before=0,
            )
        elif not messages and not self._buffered:
            transcript.note("This session has no messages yet.", classes="muted")

    @on(Button.Pressed, "LoadEarlier")
    def _load_earlier(self, event: Button.Pressed) -> None:
        event.stop()
        if self.session_id is not None:
            event.button.disabled = True
            self.load_history(self.session_id)

    def _update_header(self) -> None:
        row = self._row
        if row is None:
            return
        glyph, label, var = fmt.badge(row.status, live=row.live)
        # One line, cut at the pane's width: what changes and matters first, the path last.
        bits = [row.project or ""]
        if row.worktree_label is not None:
            hint = {"active": "f: finish", "gone": "removed by hand · f: finish"}.get(
                row.worktree or ""
            )
            bits.append(row.worktree_label + (f" · {hint}" if hint else ""))
        if row.pending:
            bits.append(f"{row.pending} waiting for you")
        bits.append(self._mode_and_model(row))
        if row.cost_usd:
            bits.append(fmt.cost(row.cost_usd))
        if row.host is not None:
            seen = f" · last seen {fmt.age(row.offline_since)}" if row.offline_since else ""
            bits.append(f"on {row.host}{seen}")
        bits += [row.remote_id[:8], str(row.cwd or "")]
        header = Content.assemble(
            (f"{glyph} {label}", f"bold ${var}"),
            "  ",
            (fmt.one_line(row.title or "(untitled)", 200), "bold"),
            "\n",
            (" · ".join(b for b in bits if b), "$text-muted"),
        )
        if header != self._header:  # called on every batch: unchanged costs nothing
            self._header = header
            # Its height is fixed (main.tcss): a repaint, not a layout of the screen.
            self.query_one(SessionHeader).update(header, layout=False)

    def _mode_and_model(self, row: SessionRow) -> str:
        """``plan mode · sonnet``: the mode and model of a session cctui knows (shift+tab, M)."""
        if not row.ours:
            return ""
        try:
            info = self._manager.get(row.session_id)
        except CctuiError:
            return ""
        model = info.model or info.config.model or "default model"
        mode = info.permission_mode or info.config.permission_mode
        # A session whose mode is not known (an attached window's, before the owner's list
        # said it): nothing rather than "None mode".
        return f"{mode} mode · {model}" if mode else model

    @on(Input.Submitted, "#message")
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text or self.session_id is None:
            return
        event.input.value = ""
        self.post_message(self.Send(self.session_id, text))


def _position(
    messages: Sequence[TranscriptMessage], uuid: str | None, when: datetime | None
) -> int | None:
    """Where a search hit's message is: by uuid, else (a later content block of a reply,
    merged into its first block's message) the last message at or before its time."""
    for m in messages:
        if uuid is not None and m.uuid == uuid:
            return m.index
    if when is None:
        return None
    before = [m.index for m in messages if m.timestamp is not None and m.timestamp <= when]
    return before[-1] if before else None
