"""What the permission-rule tools return (camelCase on the wire)."""

from __future__ import annotations

from typing import Literal

from cctui.core.rules import RuleChange, RulesInForce
from cctui.mcp_server.schemas.common import Out

Source = Literal["managed", "user", "project", "local"]


class RuleOut(Out):
    """One permission rule and the settings file it comes from."""

    rule: str
    """As the file spells it: ``Tool`` or ``Tool(content)``, e.g. ``Bash(npm test *)``."""
    behavior: Literal["allow", "deny", "ask"]
    source: Source
    file: str


class RuleFileOut(Out):
    """One settings file that applies to the directory."""

    source: Source
    path: str
    exists: bool
    writable: bool
    """cctui may remove rules from it (every source but ``managed``)."""
    problem: str | None = None


class RulesOut(Out):
    """``claude_list_rules``: the allow, deny and ask rules in force for a directory."""

    directory: str
    repo_root: str
    """Where project rules (``local``) are written: the canonical repository root, for a
    worktree the main checkout."""
    rules: list[RuleOut]
    files: list[RuleFileOut]

    @classmethod
    def of(cls, view: RulesInForce) -> RulesOut:
        """Build from the core's view."""
        return cls(
            directory=str(view.directory),
            repo_root=str(view.repo_root),
            rules=[
                RuleOut(rule=r.rule, behavior=r.behavior, source=r.source, file=str(r.file))
                for r in view.rules
            ],
            files=[
                RuleFileOut(
                    source=f.source,
                    path=str(f.path),
                    exists=f.exists,
                    writable=f.writable,
                    problem=f.problem,
                )
                for f in view.files
            ],
        )


class RuleRemovedOut(Out):
    """``claude_remove_rule``: the rule is gone from its file; the old file is kept."""

    rule: str
    behavior: Literal["allow", "deny", "ask"]
    source: Source
    file: str
    backup: str | None = None
    """The file as it was, beside it (``<name>.bak``)."""

    @classmethod
    def of(cls, change: RuleChange) -> RuleRemovedOut:
        """Build from the core's record."""
        return cls(
            rule=change.rule,
            behavior=change.behavior,
            source=change.source,
            file=str(change.file),
            backup=str(change.backup) if change.backup else None,
        )
