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
from textual.screen import ModalScreen

ResultT = TypeVar("ResultT")


class Modal(ModalScreen[ResultT]):
    """A ``ModalScreen`` whose ``dismiss`` acts only while it is the screen on top (the
    first ``dismiss`` takes it off the stack at once, so a second one finds it gone)."""

    def dismiss(self, result: ResultT | None = None) -> AwaitComplete:
        if self.app.screen is not self:
            return AwaitComplete()  # nothing to wait for
        return super().dismiss(result)
