"""Where a long reply may be cut into separately drawn markdown chunks (plain logic).

Every layout walks every displayed widget, and a 50 KB reply is over a thousand markdown
blocks; drawn as one ``Markdown`` widget each new fragment costs more than the last. Cut
into chunks of a few KB, finished chunks never change, only the last one streams, and the
transcript can keep just the newest chunks mounted.

A cut goes only where the markdown means the same on both sides: at the start of a line that
opens a paragraph or a list item, right after a blank line, outside any code fence, once the
chunk holds ``size`` characters. (Before a heading, a table or a fence the chunk's margins
would differ; those lines are not cut before.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_OPENS_BLOCK = re.compile(r"[A-Za-z0-9(\[\"'*_]|[-+*] |\d{1,3}[.)] ")


@dataclass
class Chunker:
    """Finds cut points in a text that only grows; feed it the whole text each time."""

    size: int = 4000
    start: int = 0
    """Where the current (last) chunk begins."""
    scanned: int = 0
    """Start of the first line not classified yet."""
    fence: str | None = None
    """The marker of the code fence open at ``scanned`` (``` or ~~~), if any."""
    blank_before: bool = False
    """The line before ``scanned`` was blank."""

    def advance(self, text: str) -> list[int]:
        """New cut points in ``text`` (ascending); the last chunk may be drawn to its end.

        Whether a cut goes before a line depends only on its first character and on the
        lines before it, so once a line has begun the decision is final and the last chunk
        can be drawn to the end of ``text``: a cut never falls inside text already drawn.
        """
        cuts: list[int] = []
        pos = self.scanned
        while pos < len(text):
            end = text.find("\n", pos)
            line = text[pos:] if end < 0 else text[pos:end]
            if pos > self.start and self._cut_here(line, pos):
                cuts.append(pos)
                self.start = pos
            if end < 0:
                break  # a partial line: its fence/blank state is applied once it is whole
            self._after(line)
            pos = end + 1
        self.scanned = pos
        return cuts

    def _cut_here(self, line: str, pos: int) -> bool:
        return (
            self.fence is None
            and self.blank_before
            and pos - self.start >= self.size
            and _FENCE.match(line) is None
            and _OPENS_BLOCK.match(line) is not None
        )

    def _after(self, line: str) -> None:
        """Update the fence and blank-line state for a classified line."""
        marker = _FENCE.match(line)
        if self.fence is None:
            if marker is not None:
                self.fence = marker.group(1)[:3]
        elif marker is not None and marker.group(1).startswith(self.fence):
            self.fence = None
        self.blank_before = not line.strip()
