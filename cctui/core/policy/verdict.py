"""A rung's verdict: who decided an input, on what basis, and why, in words for the pane."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Rung = Literal[
    "hard-deny",
    "policy",
    "cli-rule",
    "judge",
    "breaker",
    "delegate",
    "auto-mode",
    "human",
    "timeout",
]
"""Which rung of the ladder decided (or, for ``escalate``, sent it up)."""


class Verdict(BaseModel):
    """What one rung of the ladder said about an input."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    behavior: Literal["allow", "deny", "escalate"]
    """``escalate``: this rung does not decide; the input goes up to the human."""
    rung: Rung
    basis: str = ""
    """The rule, grant or verdict that decided: ``Bash(npm test*)``, ``own session``."""
    source: str = ""
    """Where the rule is written (a policy file, ``shipped hard denies``)."""
    reason: str = ""
    """One sentence: why (for the audit log, the inbox and a refused client)."""
    client: str = ""
    """The delegate that answered, for ``delegate``."""

    def words(self) -> str:
        """For the pane's tool line: ``rule Bash(npm test*) in .claude/cctui-policy.toml``,
        ``delegate ci-bot (grant: Bash(npm test*))``, ``hard deny Bash(rm -rf /*)``."""
        if self.rung == "delegate":
            return (
                f"delegate {self.client} ({self.basis})"
                if self.basis
                else f"delegate {self.client}"
            )
        if self.rung == "hard-deny":
            return f"hard deny {self.basis}" + (f" in {self.source}" if self.source else "")
        if self.rung == "policy":
            return f"rule {self.basis}" + (f" in {self.source}" if self.source else "")
        if self.rung == "judge" and self.behavior == "allow":
            return f"the judge ({self.basis})"
        if self.rung == "cli-rule":
            return self.reason.removeprefix("refused by ").removeprefix("denied by ") or (
                "a deny rule in Claude Code's settings"
            )
        if self.rung == "breaker":
            return f"breaker: {self.reason}"
        return self.reason or self.rung
