"""The peek: one session seen from the list without opening it (``space`` on a row).

What it waits for comes first and can be answered right there (``y``/``n``/``A`` on the
request; ``enter`` opens the full request, for a deny reason or plan feedback); then its last
reply; then a line to reply into, which sends a message (an ended session is resumed).
``esc`` closes. Claude Code's own agent view has the same gesture: space peeks, enter attaches.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from cctui.core import Decision, PendingInput
from cctui.errors import CctuiError
from cctui.history import TranscriptPage, aread_transcript
from cctui.tui import format as fmt
from cctui.tui import render
from cctui.tui.keymap import KEYS, bindings, key_line
from cctui.tui.markdown import MarkdownView
from cctui.tui.modal import Modal
from cctui.tui.rows import SessionRow
from cctui.tui.screens.decision import DecisionModal
from cctui.tui.screens.pending_input import allow_scope, choose_by_number
from cctui.tui.widgets.questions import QuestionForm, one_choice

TAIL = 12
"""Transcript messages read from the end to find the last reply."""

_ASK_LINES = 12
"""A tool input is cut to this many lines in the peek (``enter`` shows all of it)."""

Said = tuple[str, datetime | None]
"""A reply's text and when it was said (None: unknown)."""


def _newer(a: datetime | None, b: datetime | None) -> bool:
    """``a`` is later than ``b`` (an unknown time loses)."""
    return a is not None and (b is None or a >= b)


_ANSWER_KEYS = frozenset(key for k in KEYS if "PeekAsk" in k.bind for key in k.keys.split(","))
"""The keys the request answers to (the table's); any other printable key starts a reply."""

_SWITCH_KEYS = [("tab", "request ↔ reply"), ("esc", "close")]
_CLOSE_KEYS = [("esc", "close")]

_WHAT = {"permission": "Permission", "plan_review": "Plan review", "user_question": "Question"}


class PeekAsk(VerticalScroll, can_focus=True):
    """The request the session waits for; its keys answer it."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("PeekAsk")

    class Answer(Message):
        """Answer the request shown with ``decision``, or open its full modal (None)."""

        def __init__(self, pending: PendingInput, decision: Decision | None) -> None:
            super().__init__()
            self.pending = pending
            self.decision = decision

    class Typing(Message):
        """A key that answers nothing was typed at the request: it starts a reply."""

        def __init__(self, character: str) -> None:
            super().__init__()
            self.character = character

    def __init__(self, pending: PendingInput, *, more: int) -> None:
        super().__init__(id="ask", classes=f"-{pending.kind}")
        self.pending = pending
        self._more = more
        self._armed_at = 0.0

    def compose(self) -> ComposeResult:
        p = self.pending
        tool = f"  {p.tool_name}" if p.kind == "permission" else ""
        yield Static(
            Content.assemble(
                ("◆ ", "$text-warning"),
                (_WHAT.get(p.kind, p.kind), "bold"),
                (tool, "bold $text-accent"),
                (f"  waiting {fmt.waited(p.created_at)}", "$text-muted"),
            ),
            classes="ask-title",
        )
        if p.kind == "plan_review":
            yield MarkdownView(p.plan or "_(the plan is empty)_", classes="ask-body")
        elif p.kind == "user_question" and p.questions:
            yield QuestionForm(p.questions, id="questions")
        else:
            described = render.request_description(p.description, p.tool_name, p.tool_input)
            if described:
                yield Static(Content.styled(described, "$text-secondary"))
            body = render.tool_input(p.tool_name, p.tool_input, limit=_ASK_LINES)
            yield Static(body, classes="ask-body")
            yield Static(
                Content.assemble(("A ", "bold $text-accent"), allow_scope(p)), classes="scope"
            )
        yield Static(key_line(self.key_pairs(), queued=self._more), classes="keys")

    def on_key(self, event: events.Key) -> None:
        # Typing at the request starts a reply: a printable key that answers nothing goes
        # to the reply line, so a sentence typed into the peek is neither lost nor taken for
        # commands. The request keeps its keys (y n A 1-9; space and enter in the options).
        character = event.character
        if (
            event.is_printable
            and character
            and not character.isspace()
            and event.key not in _ANSWER_KEYS
            and not isinstance(self.screen.focused, Input)
        ):
            event.stop()
            event.prevent_default()
            self.post_message(self.Typing(character))

    def key_pairs(self) -> list[tuple[str, str]]:
        """The keys that answer this kind of request."""
        if self.pending.kind == "plan_review":
            return [("y 1", "approve"), ("n 2", "reject"), ("enter", "reject with feedback")]
        if self.pending.kind == "user_question":
            if one_choice(self.pending.questions):
                return [("1-9", "answer"), ("n", "decline"), ("enter", "full view")]
            return [("1-9", "choose"), ("y", "send"), ("n", "decline"), ("enter", "full view")]
        return [
            ("y 1", "allow"),
            ("A 2", "for session"),
            ("n 3", "deny"),
            ("enter", "full view"),
        ]

    def on_mount(self) -> None:
        # The same guard as the modals: a key typed a moment ago never answers a request.
        self._armed_at = time.monotonic() + DecisionModal.ARM_DELAY_S

    def _armed(self) -> bool:
        return time.monotonic() >= self._armed_at

    def action_allow(self) -> None:
        if not self._armed():
            return
        if self.pending.kind == "user_question":
            forms = self.query(QuestionForm)
            answers = forms.first().answers() if forms else {}
            missing = [q for q, a in answers.items() if not a]
            if missing:
                self.notify(f"Choose an answer for: {missing[0]}", severity="warning")
                return
            decision = Decision(behavior="allow", answers=answers)
            self.post_message(self.Answer(self.pending, decision))
            return
        self.post_message(self.Answer(self.pending, Decision(behavior="allow")))

    def action_allow_always(self) -> None:
        if self._armed() and self.pending.kind == "permission":
            self.post_message(self.Answer(self.pending, Decision(behavior="allow", always=True)))

    def action_deny(self) -> None:
        if not self._armed():
            return
        message = {
            "plan_review": "The user rejected the plan.",
            "user_question": "The user declined to answer.",
        }.get(self.pending.kind, "Denied from the cctui peek.")
        self.post_message(self.Answer(self.pending, Decision(behavior="deny", message=message)))

    def action_choose(self, number: int) -> None:
        """``1``-``9``: as in the pending input's modal (``choose_by_number``)."""
        if self._armed():
            choose_by_number(self, self.pending.kind, number)

    def action_open(self) -> None:
        # Enter is this widget's priority key, so a question's text line never sees it:
        # there it moves on (and, on the last question, sends), as in the modal.
        focused = self.screen.focused
        forms = self.query(QuestionForm)
        if forms and isinstance(focused, Input) and focused.has_class("other"):
            if forms.first().advance(focused):
                self.action_allow()
            return
        self.post_message(self.Answer(self.pending, None))

    @on(QuestionForm.Done)
    def _questions_done(self) -> None:
        self.action_allow()


class ReplyInput(Input):
    """The line to reply into; ``enter`` sends."""


class PeekScreen(Modal[None]):
    """One session at a glance: what it waits for, its last reply, a line to reply into."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("PeekScreen")

    class Reply(Message):
        """Send ``text`` to ``session_id`` (the app resumes an ended session)."""

        def __init__(self, session_id: str, text: str) -> None:
            super().__init__()
            self.session_id = session_id
            self.text = text

    def __init__(
        self,
        row: SessionRow,
        pending: Callable[[str], list[PendingInput]],
        *,
        config_dir: Path,
        own_reply: Callable[[str], Said | None],
        remote_transcript: Callable[[str, int, int], Awaitable[TranscriptPage]] | None = None,
    ) -> None:
        """``pending(session_id)``: its open inputs, oldest first; ``own_reply``: the last
        assistant text the core has of a session it drives (or followed on its host), and
        when (None: it has none); ``remote_transcript``: a page of a host's session's
        transcript (``RemoteView.transcript``)."""
        super().__init__()
        self.row = row
        self._pending = pending
        self._config_dir = config_dir
        self._own_reply = own_reply
        self._remote_transcript = remote_transcript
        self._asked: str | None = None
        """The id of the request shown (the view is rebuilt only when it changes)."""
        self._drawn = False
        self.reply_text: str | None = None
        """The last reply as shown (markdown), once read."""

    @property
    def session_id(self) -> str:
        return self.row.session_id

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="head")
            yield Vertical(id="waiting")
            yield Static(Content.styled("Last reply", "bold $text-muted"), id="reply-title")
            with VerticalScroll(id="reply"):
                yield MarkdownView("", id="reply-body")
            yield ReplyInput(
                placeholder="Reply · enter sends (an ended session is resumed) · esc closes",
                id="reply-line",
                select_on_focus=False,  # a reply started at the request keeps its first key
            )
            yield Static(key_line(_CLOSE_KEYS), id="keys")

    def on_mount(self) -> None:
        # tab goes from the request straight to the reply line (the reply scrolls by mouse).
        self.query_one("#reply").can_focus = False
        self._draw_head()
        self.reload()
        self.read_reply()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    SHORT_ROWS = 34
    """Below this many rows the dialog takes the whole height and drops its blank lines
    (``-short`` in its stylesheet)."""

    def _fit(self) -> None:
        """The request and the last reply share what the dialog's other lines leave, the
        request first: at 80x24 a question pushed the reply line and the keys off the dialog
        (a letter typed at the request moves to that line, so it was typed unseen). When
        short and a request waits, the last reply gives way altogether."""
        if not self.is_attached or not self.query("#dialog"):
            return
        short = self.size.height < self.SHORT_ROWS
        if short != self.has_class("-short"):
            self.set_class(short, "-short")
            self.call_after_refresh(self._fit)  # measured again without the blanks
            return
        dialog = self.query_one("#dialog")
        waiting = self.query_one("#waiting")
        reply = self.query_one("#reply")
        title = self.query_one("#reply-title")
        asks = list(self.query(PeekAsk))
        hide_reply = short and bool(asks)
        for part in (reply, title):
            if part.display == hide_reply:
                part.display = not hide_reply
        shared = (waiting, reply)
        others = sum(
            _outer(w) for w in dialog.children if w.display and w not in shared and w is not title
        ) + (0 if hide_reply else _outer(title))
        chrome = dialog.outer_size.height - dialog.size.height  # its border and padding
        room = int(self.size.height * (1 if short else 0.9)) - chrome - others
        reply_room = 0 if hide_reply else 4  # its border and two lines at the least
        if asks:
            ask = asks[0]
            ask_room = max(4, min(20, room - reply_room - waiting.styles.margin.bottom))
            ask.styles.max_height = ask_room
            room -= min(ask_room, ask.outer_size.height or ask_room)
            room -= waiting.styles.margin.bottom
        if not hide_reply:
            reply.styles.max_height = max(3, min(16, room))

    def _draw_head(self) -> None:
        row = self.row
        glyph, label, var = fmt.badge(row.status, live=row.live)
        if row.waiting_since is not None:
            label = f"{label} {fmt.waited(row.waiting_since)}"
        bits = [row.project, str(row.cwd or ""), row.session_id[:8], fmt.cost(row.cost_usd)]
        self.query_one("#head", Static).update(
            Content.assemble(
                (f"{glyph} {label}", f"bold ${var}"),
                "  ",
                (fmt.one_line(row.title or "(untitled)", 90), "bold"),
                "\n",
                (" · ".join(b for b in bits if b), "$text-muted"),
            )
        )

    def update_row(self, row: SessionRow) -> None:
        """New list data for this session (status, waiting time)."""
        if row.session_id == self.session_id:
            self.row = row
            self._draw_head()

    def reload(self) -> None:
        """Show what the session waits for now (after an answer, or a new request)."""
        open_inputs = self._pending(self.session_id)
        first = open_inputs[0] if open_inputs else None
        shown = first.id if first is not None else None
        if self._drawn and shown == self._asked:
            return
        self._drawn, self._asked = True, shown
        waiting = self.query_one("#waiting", Vertical)
        waiting.remove_children()
        waiting.display = first is not None
        # tab switches between the request and the reply only while a request waits.
        self.query_one("#keys", Static).update(
            key_line(_CLOSE_KEYS if first is None else _SWITCH_KEYS)
        )
        if first is not None:
            ask = PeekAsk(first, more=len(open_inputs) - 1)
            waiting.mount(ask)
            self.call_after_refresh(self._focus_ask)
        else:
            self.query_one(ReplyInput).focus()

    def _focus_ask(self) -> None:
        self._fit()
        forms = self.query(QuestionForm)
        if forms:
            forms.first().focus()
        else:
            asks = self.query(PeekAsk)
            if asks:
                asks.first().focus()

    @work(exclusive=True, group="peek", exit_on_error=False)
    async def read_reply(self) -> None:
        """Find the session's last reply: the newer of the transcript's last assistant text
        and the core's (a turn still streaming; a session taken over in Claude Code has newer
        turns in its transcript only)."""
        said: Said | None = None
        row = self.row
        cwd = str(row.cwd) if row.cwd else None
        try:
            if row.host is not None and self._remote_transcript is not None:
                # A host's session: its transcript is read there, through its link.
                probe = await self._remote_transcript(self.session_id, 0, 1)
                page = await self._remote_transcript(
                    self.session_id, max(0, probe.total - TAIL), TAIL
                )
            else:
                probe = await aread_transcript(
                    self._config_dir, self.session_id, limit=1, cwd=cwd, path=row.transcript_path
                )
                page = await aread_transcript(
                    self._config_dir,
                    self.session_id,
                    offset=max(0, probe.total - TAIL),
                    limit=TAIL,
                    cwd=cwd,
                    path=probe.transcript_path,
                )
            texts = [m for m in page.messages if m.role == "assistant" and m.text.strip()]
            if texts:
                said = (texts[-1].text, texts[-1].timestamp)
        except CctuiError:
            pass  # no transcript yet (a session that has not answered): the core may know
        own = self._own_reply(self.session_id)
        if own is not None and (said is None or _newer(own[1], said[1])):
            said = own
        self.reply_text = said[0] if said is not None else None
        body = self.query_one("#reply-body", MarkdownView)
        body.show(self.reply_text or "_No reply yet._")
        self.call_after_refresh(self._fit)

    @on(PeekAsk.Typing)
    def _start_reply(self, message: PeekAsk.Typing) -> None:
        line = self.query_one(ReplyInput)
        line.focus()
        line.insert_text_at_cursor(message.character)

    @on(Input.Submitted, "#reply-line")
    def _send(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            return
        event.input.value = ""
        self.post_message(self.Reply(self.session_id, text))
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


def _outer(widget: Widget) -> int:
    """The rows ``widget`` takes in a vertical layout (its margins collapse to the larger)."""
    margin = widget.styles.margin
    return widget.outer_size.height + max(margin.top, margin.bottom)
