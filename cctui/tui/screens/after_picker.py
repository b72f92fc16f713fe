"""Which sessions a new one waits for (``after``), picked from the new-session form.

The sessions are typed by id or prefix (``1a2b 9f``: what a person copies from a row or an
MCP answer), or ticked in the list (``space``); ``enter`` in the id line ticks what it names,
``ctrl+s`` is done. The new session starts when all of them ended well (``core.dispatch``).
The form only gathers the choice: unknown ids, a cycle or a parent that already failed are
refused by the dispatcher when the session is created, as over MCP.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Label, Select, SelectionList, Static

from cctui.core.dispatch import ParentResults
from cctui.tui.keymap import bindings, key_line
from cctui.tui.modal import FormModal
from cctui.tui.widgets.ticks import TickList

RESULTS: tuple[tuple[str, ParentResults], ...] = (
    ("nothing of theirs", "none"),
    ("their final replies", "reply"),
    ("the files they changed", "diff"),
)
"""What the new session's prompt is given of the sessions it ran after."""


@dataclass(frozen=True)
class AfterCandidate:
    """A session the new one may wait for, as the picker lists it."""

    session_id: str
    name: str
    """``project · title``."""
    status: str
    """As the list says it (``◆ waiting``)."""

    @property
    def label(self) -> Content:
        """``1a2b3c4d  idle      project · title`` (text, never markup; the status before
        the title, which a narrow list cuts)."""
        return Content.assemble(
            (self.session_id[:8], "$text-muted"),
            "  ",
            (f"{self.status:<10}", "$text-muted"),
            " ",
            self.name,
        )


@dataclass(frozen=True)
class AfterChoice:
    """The sessions to wait for and what of them the prompt gets."""

    after: tuple[str, ...] = ()
    parent_results: ParentResults = "none"

    def describe(self, labels: dict[str, str]) -> str:
        """``waits for 2 sessions: api · fix, web · docs · with their final replies``."""
        if not self.after:
            return "none: it starts when a slot is free"
        n = len(self.after)
        names = ", ".join(labels.get(sid, sid[:8]) for sid in self.after)
        what = {v: k for k, v in RESULTS}[self.parent_results]
        given = "" if self.parent_results == "none" else f" · given {what}"
        return f"waits for {n} session{'s' if n != 1 else ''}: {names}{given}"


class AfterPicker(FormModal[AfterChoice | None]):
    """Ids or prefixes typed, or sessions ticked; dismisses with the choice (None: cancel)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("AfterPicker")

    def __init__(self, candidates: Sequence[AfterCandidate], chosen: AfterChoice) -> None:
        super().__init__()
        self._candidates = list(candidates)
        self._chosen = chosen

    def compose(self) -> ComposeResult:
        known = {c.session_id for c in self._candidates}
        with Vertical(id="dialog"):
            yield Static(Content.styled("Start after these sessions end well", "bold"), id="title")
            yield Input(
                " ".join(sid[:8] for sid in self._chosen.after if sid not in known),
                placeholder="ids or prefixes (1a2b 9f0c); enter ticks them below",
                id="ids",
            )
            yield TickList(
                *(
                    (c.label, c.session_id, c.session_id in self._chosen.after)
                    for c in self._candidates
                ),
                id="sessions",
            )
            yield Label("Its prompt is given")
            yield Select(
                list(RESULTS),
                value=self._chosen.parent_results,
                allow_blank=False,
                id="results",
            )
            yield Static(id="error")
            yield Static(
                key_line([("space", "tick"), ("ctrl+s", "done"), ("esc", "cancel")]), id="keys"
            )

    def on_mount(self) -> None:
        self.query_one("#error").display = False
        self.query_one("#ids" if not self._candidates else "#sessions").focus()

    @on(Input.Submitted, "#ids")
    def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        self._tick_typed()

    def _tick_typed(self) -> list[str] | None:
        """Tick the sessions the id line names; the ids it names that the list does not
        have (full ids: the dispatcher checks them). None, with the error shown, when a
        prefix names no session or several."""
        ids = self.query_one("#ids", Input)
        listed = self.query_one("#sessions", SelectionList)
        extra: list[str] = []
        for token in (t for t in re.split(r"[\s,]+", ids.value.strip()) if t):
            found = [c.session_id for c in self._candidates if c.session_id.startswith(token)]
            if len(found) == 1:
                listed.select(found[0])
            elif len(found) > 1:
                self.show_error(f"{token!r} starts {len(found)} sessions' ids: type more of it.")
                return None
            elif len(token) >= 32:
                extra.append(token)  # a whole id of a session not listed here
            else:
                self.show_error(f"No session listed here has an id starting {token!r}.")
                return None
        ids.value = " ".join(extra)
        self.query_one("#error").display = False
        return extra

    def action_done(self) -> None:
        extra = self._tick_typed()
        if extra is None:
            return
        ticked = [str(v) for v in self.query_one("#sessions", SelectionList).selected]
        results = self.query_one("#results", Select).value
        self.dismiss(
            AfterChoice(
                tuple(dict.fromkeys([*ticked, *extra])),
                cast("ParentResults", results) if isinstance(results, str) else "none",
            )
        )
