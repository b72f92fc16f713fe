"""The line above the key footer: what waits for you, what runs, what the services say."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static


class StatusBar(Static):
    """Pending inputs, live sessions, service status lines, and what reading skipped."""

    _shown: Content | None = None

    def show(
        self,
        *,
        pending: int,
        live: int,
        services: Sequence[str],
        problems: str,
        indexing: str = "",
    ) -> None:
        """Redraw with the current counts (``indexing``: a history index build's progress)."""
        parts: list[Content] = []
        if pending:
            parts.append(Content.styled(f"◆ {pending} waiting for you · a", "bold $text-warning"))
        else:
            parts.append(Content.styled("◇ nothing waiting", "$text-muted"))
        parts.append(Content.styled(f"● {live} live", "$text-primary" if live else "$text-muted"))
        parts += [Content(s) for s in services if s]
        if indexing:
            parts.append(Content.styled(f"⟳ {indexing}", "$text-accent"))
        if problems:
            parts.append(Content.styled(f"⚠ {problems}", "$text-warning"))
        sep = Content.styled("  │  ", "$text-muted")
        content = sep.join(parts)
        # Called on every batch of activity: an unchanged line must not cost a layout.
        if content != self._shown:
            self._shown = content
            self.update(content)
        self.set_class(bool(pending), "-pending")
