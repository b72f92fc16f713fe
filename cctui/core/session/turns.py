"""Turn accounting of one session: outstanding turns, agentic turns, cost and tokens.

One owner for these numbers: the process (spawn, send, exit) and the frame translator
(init, result) report what happened through these methods and never write the fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cctui.core.session.models import SessionRecord

TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
"""The parts of a result's usage that ``tokens_used`` adds up."""


class TurnLedger:
    """Counts a session's turns and cost across every process it has had."""

    def __init__(self, record: SessionRecord | None = None) -> None:
        self.outstanding = 0
        """Messages sent and not yet answered by their result (each yields its own)."""
        self.num_turns = record.num_turns if record else 0
        """Agentic turns, summed over every result."""
        self._cost_base = record.total_cost_usd if record else 0.0
        """Cost of earlier processes: the CLI's figure is cumulative per process only."""
        self._process_cost = 0.0
        self.tokens_used = record.tokens_used if record else None
        """Tokens summed over every result's usage (the CLI reports them per turn); None
        until a result reports some, rather than a made-up 0."""

    @property
    def total_cost(self) -> float:
        """Cost over every process this session has had."""
        return round(self._cost_base + self._process_cost, 6)

    @property
    def busy(self) -> bool:
        """A turn is outstanding."""
        return self.outstanding > 0

    def process_starting(self, with_message: bool) -> None:
        """A new process is spawned, with its first message or idle."""
        self.outstanding = 1 if with_message else 0

    def message_sent(self) -> bool:
        """A message went to the live process; True when it is the only outstanding one."""
        self.outstanding += 1
        return self.outstanding == 1

    def init_seen(self) -> bool:
        """The CLI began a turn; True when it is one we did not count (queued before an
        interrupt), which now counts as outstanding."""
        if self.outstanding:
            return False
        self.outstanding = 1
        return True

    def result(
        self, cumulative_cost: float | None, turns: int, usage: Mapping[str, Any] | None = None
    ) -> None:
        """A turn's result arrived (cost is the process's cumulative figure; usage the
        turn's own)."""
        self.outstanding = max(0, self.outstanding - 1)
        if cumulative_cost:
            self._process_cost = cumulative_cost
        self.num_turns += turns
        counts = [n for n in ((usage or {}).get(key) for key in TOKEN_KEYS) if isinstance(n, int)]
        if counts:
            self.tokens_used = (self.tokens_used or 0) + sum(counts)

    def process_ended(self) -> bool:
        """The process is gone: bank its cost; True when a turn was still outstanding."""
        busy = self.busy
        self.outstanding = 0
        self._cost_base += self._process_cost
        self._process_cost = 0.0
        return busy
