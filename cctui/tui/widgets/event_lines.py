"""The one-line widgets of a transcript: a prompt, a status ending, a pending input asked and
answered, a change of mode or model, a turn's result and what it changed, files rewound,
an error (what ``Transcript`` mounts for each such event)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual.binding import BindingType
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from cctui.core import (
    SETTING_NAMES,
    ApiRetryEvent,
    ChangesEvent,
    ErrorEvent,
    FilesRewoundEvent,
    InputRequestedEvent,
    InputResolvedEvent,
    PendingInput,
    ResultEvent,
    SessionEvent,
    SettingChangedEvent,
    StatusChanged,
)
from cctui.tui import format as fmt
from cctui.tui.keymap import bindings
from cctui.tui.widgets.blocks import Note, ResultBlock, UserBlock

_NOTED_STATUSES = frozenset({"completed", "interrupted", "error", "cancelled"})
"""Endings the pane notes with their reason (a cancelled session says which session it
waited for did not end well, or who cancelled it)."""
_KIND_LABEL = {
    "permission": "permission",
    "plan_review": "plan review",
    "user_question": "question",
}


class PromptBlock(UserBlock, can_focus=True):
    """A prompt with its user message id: ``r`` on it rewinds the files to before it."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("PromptBlock")

    class Rewind(Message):
        """Put the shown session's files back as they were before this prompt."""

        def __init__(self, prompt_id: str, index: int | None, text: str) -> None:
            super().__init__()
            self.prompt_id = prompt_id
            self.index = index
            """Its place among the prompts cctui sent (None: read from the transcript)."""
            self.text = text

    def __init__(self, content: Content, *, prompt_id: str, index: int | None, text: str) -> None:
        super().__init__(content)
        self.prompt_id = prompt_id
        self.index = index
        self.text = text

    def action_rewind(self) -> None:
        self.post_message(self.Rewind(self.prompt_id, self.index, self.text))


def user_block(text: str, prompt_id: str | None = None, index: int | None = None) -> UserBlock:
    """A prompt; with its id (a rewind target) it can be focused and rewound to."""
    content = Content.assemble(("❯ ", "bold $text-primary"), text)
    if prompt_id is None:
        return UserBlock(content)
    return PromptBlock(content, prompt_id=prompt_id, index=index, text=text)


def ask_line(item: PendingInput, *, answered: bool) -> Content:
    """The line of a request the session made; the inbox hint only while it is open (an
    answered request is no longer in the inbox)."""
    who = item.route_label if item.route == "client" else "you"
    what = _KIND_LABEL.get(item.kind, item.kind)
    line = f"◆ asks {who}: {what} for {item.tool_name}" + ("" if answered else " (a: inbox)")
    if item.escalation:
        line += f" · escalated: {item.escalation}"
    return Content(line)


def event_widget(event: SessionEvent) -> Callable[[], Widget] | None:
    """A factory for the one-line widget of a status, pending input, result or error event."""
    if isinstance(event, StatusChanged):
        if event.status.value not in _NOTED_STATUSES:
            return None  # the header shows the live status; notes are for endings
        # An interrupted turn whose process runs on: its result line says "turn interrupted"
        # already; "stopped" is for the process ending (a kill), as in the list.
        if event.status.value == "interrupted" and not event.ended:
            return None
        glyph, label, _ = fmt.badge(event.status.value)
        text = f"{glyph} {label}" + (f": {event.error}" if event.error else "")
        status = event.status.value
        return lambda: Note(Content(text), classes=f"status -{status}")
    if isinstance(event, InputRequestedEvent):
        asked = ask_line(event.input, answered=False)
        return lambda: Note(asked, classes="input")
    if isinstance(event, InputResolvedEvent):
        verb = {"allow": "allowed", "deny": "denied"}.get(event.decision, event.decision)
        extra = f": {event.message}" if event.message and not event.why else ""
        what = f"{event.tool_name} " if event.tool_name else ""
        line = f"  {what}{verb} by {event.why or _who(event.decided_by)}{extra}"
        return lambda: Note(Content(line), classes="input")
    if isinstance(event, ResultEvent):
        content = _result_line(event)
        classes = "-interrupted" if event.interrupted else "-error" if event.is_error else ""
        return lambda: ResultBlock(content, classes=classes)
    if isinstance(event, ChangesEvent):
        if not event.files:
            return None
        changed = Content.assemble(
            ("  ± ", "$text-muted"),
            (event.summary, "bold"),
            ("  this turn · d: the session's diff", "$text-muted"),
        )
        return lambda: Note(changed, classes="changes")
    if isinstance(event, SettingChangedEvent):
        setting = setting_line(event)
        return lambda: Note(setting, classes="setting")
    if isinstance(event, FilesRewoundEvent):
        rewound = _rewound_line(event)
        return lambda: Note(rewound, classes="rewound")
    if isinstance(event, ErrorEvent):
        message = f"✗ {event.message}"
        return lambda: Note(Content(message), classes="error")
    if isinstance(event, ApiRetryEvent):
        why = event.error_status or event.error or "error"
        retry = f"↻ API {why}: retry {event.attempt} in {event.retry_delay_ms or 0} ms"
        return lambda: Note(Content(retry), classes="status")
    return None


def setting_line(event: SettingChangedEvent) -> Content:
    """``◇ mode default → plan · claude confirmed it``: what changed and when it took effect."""
    what = SETTING_NAMES[event.setting]
    before, after = event.previous or "default", event.value or "default"
    if event.applies == "next_start":
        when = "from the next start"
    elif event.setting == "permission_mode":
        when = "claude confirmed it"
    else:
        when = "from the next request"
    return Content.assemble(
        ("◇ ", "$text-accent"),
        (f"{what} ", "bold"),
        f"{before} → ",
        (after, "bold"),
        (f" · {when}", "$text-muted"),
    )


def _result_line(event: ResultEvent) -> Content:
    # The CLI reports an interrupted turn as an error (error_during_execution,
    # aborted_streaming / aborted_tools); the core knows it was asked to stop, so say that.
    if event.interrupted:
        head = "■ turn interrupted"
    else:
        head = "✗ turn failed" if event.is_error else "✓ turn complete"
    bits = [f"{event.num_turns} turn{'s' if event.num_turns != 1 else ''}"]
    if event.total_cost_usd:
        bits.append(fmt.cost(event.total_cost_usd))
    bits.append(fmt.duration(event.duration_ms))
    reason = event.terminal_reason
    if reason and reason != "completed" and not event.interrupted:
        bits.append(reason)
    line = Content.assemble((head, "bold"), ("  " + " · ".join(bits), "$text-muted"))
    if event.is_error and event.result and not event.interrupted:
        line = Content("\n").join([line, Content(event.result)])
    return line


def _rewound_line(event: FilesRewoundEvent) -> Content:
    where = "that prompt" if event.prompt_index is None else f"prompt {event.prompt_index}"
    names = ", ".join(Path(f).name for f in event.files[:4])
    if len(event.files) > 4:
        names += f" and {len(event.files) - 4} more"
    counts = f"+{event.insertions} −{event.deletions}"
    who = f" by {event.by}" if event.by else ""
    return Content.assemble(
        (f"↶ files put back as before {where}{who}: ", "bold"),
        names or "no file changed",
        ("  " + counts + " · the conversation is not rewound", "$text-muted"),
    )


def _who(decided_by: str) -> str:
    """Who answered, as the person reading the line says it: ``tui`` is a window of this
    cctui, its own or one attached to it (``tui:window``), ``tui:NAME`` a window on the
    machine NAME ("allowed by tui" read as jargon)."""
    if decided_by in ("tui", "tui:window"):
        return "you"
    if decided_by.startswith("tui:"):
        return f"you, at {decided_by.removeprefix('tui:')}"
    return decided_by
