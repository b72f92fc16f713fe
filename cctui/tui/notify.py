"""Telling a person who is looking elsewhere that a session needs them: bell + OSC 9/777."""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[\x00-\x1f\x7f;]")


def _clean(text: str, limit: int = 120) -> str:
    # A control character or ';' in a prompt would end the escape sequence early.
    return _UNSAFE.sub(" ", text)[:limit].strip()


def desktop_notification(title: str, body: str) -> str:
    """OSC 9 (iTerm2, Windows Terminal, kitty…) and OSC 777 (rxvt, foot, WezTerm…) in one go.

    Terminals ignore the sequence they do not know, so sending both reaches the most.
    """
    t, b = _clean(title, 40), _clean(body)
    return f"\x1b]9;{t}: {b}\x07\x1b]777;notify;{t};{b}\x07"
