"""The audit log: one JSON line per decision and per MCP tool call, secrets redacted.

Lines are appended whole (``fs.atomic.append_line``) so two cctui processes sharing a state
directory (the TUI and ``serve``) never interleave half lines.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cctui.core.policy.verdict import Verdict
from cctui.fs.atomic import append_line
from cctui.redact import redact

log = logging.getLogger(__name__)

AUDIT_FILE = "audit.jsonl"


class AuditLog:
    """Appends redacted records to ``<state_dir>/audit.jsonl`` (mode 0600)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / AUDIT_FILE
        self.failures = 0
        """Lines that could not be written (each is logged; ``problem`` says the last)."""
        self.problem: str | None = None

    def decision(
        self,
        *,
        session_id: str,
        input_id: str,
        tool: str,
        kind: str,
        decision: str,
        decided_by: str,
        message: str = "",
        detail: str = "",
        always: bool = False,
        project_rules: tuple[str, ...] = (),
        project_file: str = "",
        why: Verdict | None = None,
        cwd: str = "",
        tool_input: dict[str, Any] | None = None,
    ) -> None:
        """Record who answered a pending input (``decision``: allow / deny / withdrawn).

        ``detail`` is what was decided on (the command, path or URL), redacted like the
        rest; ``always`` marks an allow-for-the-session; ``project_rules`` were sent back to
        be written to ``project_file`` (allow in this project). ``why`` says which rung of
        the ladder decided, on what basis (rule, grant, verdict), by whom and why;
        ``cwd`` and ``tool_input`` (redacted) let ``cctui policy test`` replay it.
        """
        self._write(
            {
                "event": "decision",
                "session_id": session_id,
                "input_id": input_id,
                "tool": tool,
                "input_kind": kind,
                "decision": decision,
                "decided_by": decided_by,
                "message": message,
                "detail": detail,
                **({"cwd": cwd} if cwd else {}),
                **({"input": tool_input} if tool_input is not None else {}),
                **(
                    {
                        "rung": why.rung,
                        "basis": why.basis,
                        "source": why.source,
                        "reason": why.reason,
                        **({"client": why.client} if why.client else {}),
                    }
                    if why is not None
                    else {}
                ),
                **({"always": True} if always else {}),
                **(
                    {"project_rules": list(project_rules), "project_file": project_file}
                    if project_rules
                    else {}
                ),
            }
        )

    def rule_change(
        self, *, action: str, rule: str, behavior: str, file: str, by: str, reason: str = ""
    ) -> None:
        """Record a permission rule cctui added to or removed from a settings file."""
        self._write(
            {
                "event": "rule",
                "action": action,
                "rule": rule,
                "behavior": behavior,
                "file": file,
                "by": by,
                **({"reason": reason} if reason else {}),
            }
        )

    def worktree(self, session_id: str, action: str, *, force: bool, note: str) -> None:
        """Record a session's worktree being finished (merged, kept or discarded)."""
        self._write(
            {
                "event": "worktree",
                "session_id": session_id,
                "action": action,
                "force": force,
                "note": note,
            }
        )

    def rewind(
        self,
        *,
        session_id: str,
        prompt_id: str,
        prompt_index: int | None,
        by: str,
        outcome: str,
        files: tuple[str, ...] = (),
        message: str = "",
    ) -> None:
        """Record a rewind of a session's files (``outcome``: ``rewound`` or the error code),
        who asked for it and the files it changed."""
        self._write(
            {
                "event": "rewind",
                "session_id": session_id,
                "prompt_id": prompt_id,
                "prompt_index": prompt_index,
                "by": by,
                "outcome": outcome,
                "files": list(files),
                **({"message": message} if message else {}),
            }
        )

    def tool_call(
        self,
        client: str,
        tool: str,
        arguments: dict[str, object],
        *,
        outcome: str,
        duration_ms: float,
        retry: bool = False,
    ) -> None:
        """Record an MCP tool call: who, which tool, its (redacted) arguments, the outcome
        (``ok``, ``input_required``, ``cancelled`` or the error code) and how long it took.

        A ``retry`` (the same call coming back with elicitation answers) is written as a
        ``tool_call_retry`` line without the arguments, so counting ``tool_call`` lines
        counts calls.
        """
        record: dict[str, Any] = {
            "event": "tool_call_retry" if retry else "tool_call",
            "client": client,
            "tool": tool,
        }
        if not retry:
            record["arguments"] = arguments
        self._write(record | {"outcome": outcome, "duration_ms": round(duration_ms, 1)})

    def _write(self, record: dict[str, Any]) -> bool:
        record = {"at": datetime.now(UTC).isoformat(), **redact(record)}
        line = (json.dumps(record, default=str, ensure_ascii=False) + "\n").encode()
        try:
            append_line(self.path, line)
        except OSError as exc:
            # Losing an audit line must not take a session down, but it is reported: in the
            # log, and through ``problem`` (the TUI and claude_health show it).
            self.failures += 1
            self.problem = (
                f"Cannot append to the audit log {self.path}: {exc} ({self.failures} lost)"
            )
            log.error("%s", self.problem)
            return False
        return True

    def read(self) -> list[dict[str, Any]]:
        """Every record so far (tests and diagnostics)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]
