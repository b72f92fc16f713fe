"""``cctui policy test``: the audit log's past permission decisions through a policy.

Each past ``decision`` record of a permission (allowed or denied; withdrawn ones are skipped)
goes through the rules rung of the policy under test, with the session's directory and the
call's fields the record kept (older records without them: the command or path in
``detail``). The report counts what the policy would have allowed and denied on its own,
and lists where it disagrees with what happened: what it would allow that was denied, what
it would deny that was allowed, and what a past rule decided that it would now leave to the
delegates and the human.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from cctui.core.policy.ladder import Ladder
from cctui.core.policy.patterns import REPLAY_KEYS

_DETAIL_FIELD = {
    "Bash": "command",
    "WebFetch": "url",
    "Grep": "path",
    "Glob": "path",
    "LS": "path",
    "NotebookEdit": "notebook_path",
}


class ReplayRow(BaseModel):
    """One past decision the policy would have decided differently."""

    at: str
    session_id: str
    tool: str
    detail: str
    past: str
    """``allow`` or ``deny``."""
    past_by: str
    """Who decided then: ``tui``, ``mcp:<client>``, ``policy``, ``timeout`` …"""
    would: Literal["allow", "deny", "ask"]
    """``ask``: no rule decides; it would go on to the delegates and the human."""
    because: str = ""
    """The rule that would decide, in words."""


class ReplayReport(BaseModel):
    """What the policy would have done with the past decisions."""

    total: int = 0
    """Past permission decisions replayed."""
    would_allow: int = 0
    would_deny: int = 0
    allowed_you_denied: list[ReplayRow] = []
    denied_you_allowed: list[ReplayRow] = []
    now_asked: list[ReplayRow] = []
    """Decided by a rule then; no rule of this policy decides them."""
    skipped: int = 0
    """Records too old to replay (no tool input kept)."""

    def summary(self) -> str:
        """One line: ``would have allowed 212 of 260; 3 of them you denied`` ("you": the
        human at the TUI; denials by a rule, a client or the timeout are counted apart)."""
        if not self.total:
            line = "no permission decision in the audit log to replay"
            return line + (f" ({self.skipped} too old: no tool input kept)" if self.skipped else "")
        line = f"would have allowed {self.would_allow} of {self.total}"
        if self.allowed_you_denied:
            by_you = sum(1 for r in self.allowed_you_denied if r.past_by == "tui")
            others = len(self.allowed_you_denied) - by_you
            said = [f"{by_you} of them you denied"] if by_you else []
            said += [f"{others} denied then by a rule, a client or the timeout"] if others else []
            line += "; " + ", ".join(said) + " (listed)"
        if self.would_deny:
            line += f"; would have denied {self.would_deny}"
            if self.denied_you_allowed:
                line += f", {len(self.denied_you_allowed)} of them allowed then (listed)"
        if self.now_asked:
            line += f"; {len(self.now_asked)} a rule decided then would now be asked (listed)"
        return line


def replay(
    records: Iterable[dict[str, Any]], ladder: Ladder, *, since: datetime | None = None
) -> ReplayReport:
    """Replay ``records`` (the audit log's lines) through ``ladder``'s policy."""
    report = ReplayReport()
    for record in records:
        if record.get("event") != "decision" or record.get("input_kind") != "permission":
            continue
        past = record.get("decision")
        if past not in ("allow", "deny"):
            continue
        at = str(record.get("at", ""))
        when = _when(at)
        if since is not None and when is not None and when < since:
            continue
        tool = str(record.get("tool", ""))
        tool_input = _input_of(record, tool)
        if tool_input is None:
            report.skipped += 1
            continue
        cwd = Path(str(record.get("cwd") or "/"))
        verdict = ladder.screen("policy-test", "permission", tool, tool_input, cwd)
        would: Literal["allow", "deny", "ask"] = (
            "ask"
            if verdict is None or verdict.behavior == "escalate"
            else ("allow" if verdict.behavior == "allow" else "deny")
        )
        report.total += 1
        report.would_allow += would == "allow"
        report.would_deny += would == "deny"
        row = ReplayRow(
            at=at,
            session_id=str(record.get("session_id", "")),
            tool=tool,
            detail=str(record.get("detail", "")),
            past=past,
            past_by=str(record.get("decided_by", "")),
            would=would,
            because=verdict.words() if verdict is not None else "",
        )
        if would == "allow" and past == "deny":
            report.allowed_you_denied.append(row)
        elif would == "deny" and past == "allow":
            report.denied_you_allowed.append(row)
        elif would == "ask" and record.get("decided_by") == "policy":
            report.now_asked.append(row)
    return report


def _input_of(record: dict[str, Any], tool: str) -> dict[str, Any] | None:
    kept = record.get("input")
    if isinstance(kept, dict):
        return {k: v for k, v in kept.items() if k in REPLAY_KEYS}
    detail = record.get("detail")
    if not isinstance(detail, str) or not detail:
        return None
    return {_DETAIL_FIELD.get(tool, "file_path"): detail}


def _when(at: str) -> datetime | None:
    try:
        return datetime.fromisoformat(at)
    except ValueError:
        return None
