"""Finishing a session's worktree (``f``): merge, keep or discard, after seeing what is
there. A discard that would lose work (uncommitted files, commits the base branch lacks, a
live process) lists it and asks once more before it is forced.

Its keys are its choices, shown on its own key line (as the confirmation modal's are), not
in the app's key table: ``m`` merge, ``k`` keep, ``x`` discard, ``y`` discard anyway,
``esc`` back or cancel.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from cctui.core import FinishPreview
from cctui.core.worktrees import Action
from cctui.tui.keymap import key_line
from cctui.tui.modal import Modal

Choice = tuple[Action, bool]
"""(action, force)."""
_SHOWN = 12


class FinishScreen(Modal[Choice | None]):
    """What the worktree holds, and the three ways to finish it."""

    def __init__(self, preview: FinishPreview, title: str) -> None:
        super().__init__()
        self.preview = preview
        self._title = title
        self._confirming = False

    def compose(self) -> ComposeResult:
        p = self.preview
        wt = p.worktree
        with Vertical(id="dialog"):
            yield Static(
                Content.assemble(
                    ("⎇ ", "$text-accent"),
                    ("Finish ", "bold"),
                    (wt.branch, "bold $text-accent"),
                    (f"  from {wt.base_branch or 'a detached HEAD'}", "$text-muted"),
                ),
                id="title",
            )
            yield Static(Content.styled(f"{self._title}\n{wt.path}", "$text-muted"), id="context")
            yield Static(self._state(), id="state")
            yield Static("", id="warning")
            yield Static(self._keys(), id="keys")

    def _state(self) -> Content:
        p = self.preview
        lines: list[Content] = []
        if p.gone:
            lines.append(Content.styled("Its directory was removed by hand.", "$text-warning"))
        if p.live:
            run = "a turn is running" if p.busy else "idle"
            lines.append(Content(f"A claude process runs in it ({run}); finishing ends it."))
        lines.append(_listed("Uncommitted", p.uncommitted, "nothing uncommitted"))
        base = p.worktree.base_branch or "its base"
        lines.append(_listed(f"Commits not on {base}", p.unmerged, "no commits of its own"))
        return Content("\n").join(lines)

    def _keys(self) -> Content:
        if self._confirming:
            return key_line([("y", "discard anyway"), ("esc", "back")])
        into = self.preview.worktree.base_branch or "?"
        return key_line(
            [("m", f"merge into {into}"), ("k", "keep"), ("x", "discard"), ("esc", "cancel")]
        )

    def on_key(self, event: events.Key) -> None:
        act = {
            "m": self.action_merge,
            "k": self.action_keep,
            "x": self.action_discard,
            "y": self.action_force,
            "escape": self.action_cancel,
        }.get(event.key)
        if act is not None:
            event.stop()
            act()

    def action_merge(self) -> None:
        if not self._confirming:
            self.dismiss(("merge", False))

    def action_keep(self) -> None:
        if not self._confirming:
            self.dismiss(("keep", False))

    def action_discard(self) -> None:
        lost = self.preview.would_lose
        if not lost:
            self.dismiss(("discard", False))
            return
        self._confirming = True
        shown = "\n".join(f"  {line}" for line in lost[:_SHOWN])
        more = f"\n  and {len(lost) - _SHOWN} more" if len(lost) > _SHOWN else ""
        warning = self.query_one("#warning", Static)
        warning.update(Content.styled(f"Discarding loses:\n{shown}{more}", "bold $text-error"))
        warning.add_class("-shown")
        self.query_one("#keys", Static).update(self._keys())

    def action_force(self) -> None:
        if self._confirming:
            self.dismiss(("discard", True))

    def action_cancel(self) -> None:
        if self._confirming:
            self._confirming = False
            self.query_one("#warning", Static).remove_class("-shown")
            self.query_one("#keys", Static).update(self._keys())
            return
        self.dismiss(None)


def _listed(label: str, items: list[str], empty: str) -> Content:
    if not items:
        return Content.styled(f"{label}: {empty}", "$text-muted")
    more = f" (+{len(items) - _SHOWN})" if len(items) > _SHOWN else ""
    shown = ", ".join(items[:_SHOWN]) + more
    return Content.assemble((f"{label} ({len(items)}): ", "bold"), shown)
