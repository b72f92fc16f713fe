"""The key footer, rebuilt only when the keys it shows change.

Textual's ``Footer`` composes itself again (a widget per key, each with its data binding,
its styles and a restyle of the bar) whenever its screen *may* have new bindings: on every
focus change and every time the screen comes back from under a dialog. The keys are almost
always the same ones. With cctui's dozen keys that rebuild was the largest single cost of
closing a dialog, paid again by the session that opens behind the new-session form (issue
15).
"""

from __future__ import annotations

import sys

from textual.app import ComposeResult
from textual.binding import Binding
from textual.keys import key_to_character
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

__all__ = ["KeyFooter"]

FIRST = ("help", "quit")
"""Actions whose keys lead the footer: a narrow terminal (80 columns) cuts its end, and
``?`` and ``q`` are the keys a newcomer must always see."""


_CHARACTERS = {"slash": "/"}
"""Key names ``key_to_character`` does not know (``slash``: unicodedata calls it SOLIDUS)."""


def typed(binding: Binding) -> bool:
    """A text field takes this binding's key as a character (unless the binding has priority):
    while one has the keyboard, the key types, it does not do what the footer would say."""
    if binding.priority:
        return False
    char = _CHARACTERS.get(binding.key) or key_to_character(binding.key)
    return char is not None and char.isprintable()


class KeyFooter(Footer):
    """``Footer`` that skips a rebuild when it would show what it shows already."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[object, ...] | None = None
        """What the last compose drew from: every input of ``Footer.compose``."""
        self.rebuilds = 0
        """How many times the keys were composed (tests read it)."""

    def _keys(self) -> tuple[object, ...]:
        # What ``Footer.compose`` draws from: the shown bindings and the palette's. Hidden
        # ones are left out: a focused list or button brings its own, with nothing to draw.
        palette = self.app.COMMAND_PALETTE_BINDING
        typing = self._typing()
        bindings = tuple(
            (key, binding, enabled, tooltip)
            for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if (binding.show or key == palette) and not (typing and typed(binding))
        )
        return (self._bindings_ready, self.show_command_palette, self.compact, bindings)

    def _typing(self) -> bool:
        """A text field has the keyboard (the message line, the filter, a form's field)."""
        focused = self.screen.focused
        if isinstance(focused, Input):
            return True
        # A TextArea exists only once its module is imported: cctui has none, and importing
        # it for this check cost the first frame ~10 ms.
        text_area = sys.modules.get("textual.widgets._text_area")
        return text_area is not None and isinstance(focused, text_area.TextArea)

    def compose(self) -> ComposeResult:
        typing = self._typing()
        hidden = {
            key
            for key, (_node, binding, _enabled, _tip) in self.screen.active_bindings.items()
            if typing and typed(binding)
        }
        widgets = [
            w for w in super().compose() if not (isinstance(w, FooterKey) and w.key in hidden)
        ]
        for key in widgets:
            # A FooterKey starts compact, and Footer.compose binds each binding's key to the
            # footer's compact (not compact): each was styled compact as it mounted, then
            # restyled for the binding (~30 restyles, ~20 ms before the first frame). It
            # mounts with the footer's. (The palette's key is not bound: it stays compact.)
            if isinstance(key, FooterKey) and not key.has_class("-command-palette"):
                key.set_reactive(FooterKey.compact, self.compact)
        first = [w for w in widgets if isinstance(w, FooterKey) and w.action in FIRST]
        yield from first
        yield from (w for w in widgets if w not in first)

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        shown = self._keys()
        if shown == self._shown:
            return
        self._shown = shown
        self.rebuilds += 1
        await super().recompose()
