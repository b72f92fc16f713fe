"""The base of every cctui page and dialog over the main screen: it closes once.

Two keys that each close a dialog (Enter then Escape, Enter twice) can both be queued
before the first is handled when the machine is busy. Textual's ``dismiss`` calls the
result callback and then pops whatever screen is on top, so the second one called back
again (a second session from one form, a second answer to one question) and popped the
screen under the dialog, or, with only the main screen left, raised and took the app down
with every session it ran.
"""

from __future__ import annotations

from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

ResultT = TypeVar("ResultT")


class Modal(ModalScreen[ResultT]):
    """A ``ModalScreen`` whose ``dismiss`` acts once: the first takes it off the stack at
    once, so a second finds it gone and does nothing."""

    def dismiss(self, result: ResultT | None = None) -> AwaitComplete:
        if self not in self.app.screen_stack:
            return AwaitComplete()  # already closed: nothing to wait for
        if self.app.screen is not self:
            # Closed from outside (answered elsewhere) while something covers it, such as
            # the command palette: what covers it goes first, then it closes.
            self.pop_until_active()
            self.app.call_later(self.dismiss, result)
            return AwaitComplete()
        return super().dismiss(result)


class FormModal(Modal[ResultT]):
    """A form that says what the core refused under its fields (an ``#error`` Static it
    composes) and stays open with what was typed; ``esc`` dismisses it with None."""

    def show_error(self, message: str) -> None:
        """Say what is wrong; the form stays open with what was typed."""
        error = self.query_one("#error", Static)
        error.update(Content.styled(message, "$text-error"))
        error.display = True

    def action_cancel(self) -> None:
        self.dismiss(None)
