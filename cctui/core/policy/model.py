"""The policy file's model: hard denies, rules, delegates' grants, timeouts, the breaker.

One TOML file per user (``$XDG_CONFIG_HOME/cctui/policy.toml``) and one per project
(``<project>/.claude/cctui-policy.toml``, beside the project's Claude Code settings). Both
are optional; with neither, the shipped hard denies and the defaults below apply. See
docs/policy.md for the file, and ``load.py`` for how the two are read and merged.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from cctui.core.policy.patterns import Pattern, PatternError

SHIPPED_HARD_DENY: tuple[str, ...] = (
    "Bash(rm -rf /)",
    "Bash(rm -rf /*)",
    "Bash(rm -rf ~)",
    "Bash(rm -rf ~/*)",
    "Bash(rm -fr /)",
    "Bash(rm -fr /*)",
    "Bash(sudo rm -rf /*)",
    "Bash(mkfs*)",
    "Bash(dd * of=/dev/*)",
    "Bash(*~/.ssh*)",
    "Bash(*$HOME/.ssh*)",
    "Read(~/.ssh/**)",
    "Edit(~/.ssh/**)",
    "Edit(**/.claude/cctui-policy.toml)",
    "Edit(~/.config/cctui/**)",
)
"""Refused whatever any rung below the human says (docs/policy.md#hard-denies). A policy's
``[hard_deny] rules`` extend this list; nothing shortens it."""


def _check_rule(rule: str) -> str:
    try:
        Pattern.parse(rule)
    except PatternError as exc:
        raise ValueError(str(exc)) from None
    return rule.strip()


Rule = Annotated[str, Field(min_length=1), AfterValidator(_check_rule)]
"""A rule in Claude Code's syntax, checked when the file is read."""


class HardDeny(BaseModel):
    """``[hard_deny]``: what nothing below the human may allow."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rules: tuple[Rule, ...] = ()
    """Rules refused besides the shipped list (``SHIPPED_HARD_DENY``), e.g.
    ``"Bash(terraform destroy*)"``."""
    writes_outside_project: bool = True
    """Refuse Edit/Write/MultiEdit/NotebookEdit of a path outside the session's directory."""
    protected_branches: tuple[str, ...] = ("main", "master")
    """``git push`` naming one of these branches (``origin main``, ``HEAD:main``,
    ``+main``) is refused; a force push (``-f``/``--force``) to any branch too."""


class Rules(BaseModel):
    """``[rules]``: the policy's own allow and deny rules, in Claude Code's syntax."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    allow: tuple[Rule, ...] = ()
    """Calls allowed without asking anyone (e.g. ``"Bash(npm test*)"``, ``"Read"``)."""
    deny: tuple[Rule, ...] = ()
    """Calls refused; a deny always wins over an allow."""


class ClientGrant(BaseModel):
    """``[clients.NAME]``: what an MCP client holding its own token (``cctui clients add
    NAME``) may answer beyond the sessions it created."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    projects: tuple[str, ...] = ()
    """Directories whose sessions it may answer (a session whose directory is inside one);
    ``"*"`` for every session."""
    rules: tuple[Rule, ...] = ()
    """Permission requests it may allow, as rules (``"Bash(npm test*)"``, ``"Edit(src/**)"``).
    Empty: any permission of a session it may answer. Given: only these, in every session
    (its own included)."""
    plans: bool = False
    """It may approve or reject plans of sessions it did not create."""
    questions: bool = False
    """It may answer questions of sessions it did not create."""
    persist_rules: bool = False
    """Its "always allow in this project" is written at once (as the configuration's
    ``mcp_may_persist_rules`` does for every client)."""


class Timeouts(BaseModel):
    """``[timeouts]``: how long each rung may take. A timeout never allows: a delegate out of
    time hands the input to the human; the human out of time denies it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    delegate_s: float = Field(default=120.0, gt=0, le=3600)
    """An MCP client asked about an input has this long before the human gets it."""
    human_s: float | None = Field(default=None, gt=0, le=86_400)
    """An unanswered input is denied after this long; unset, the configuration's
    ``permission_timeout_ms`` (default 300 s)."""


class Breaker(BaseModel):
    """``[breaker]``: after this many automated decisions, the human decides again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_allows: int = Field(default=20, ge=1)
    """Automated allows (policy rules, delegates) in one session within ``window_s`` …"""
    window_s: float = Field(default=600.0, gt=0)
    """… after which every decision of that session goes to the human until the human
    answers one (which closes the breaker again)."""
    deny_streak: int = Field(default=3, ge=1)
    """Automated denials in a row (delegates, auto mode) that send the session to the
    human the same way."""


class JudgeClass(BaseModel):
    """``[judge.classes.NAME]``: one class of calls the judge may allow."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    description: str = Field(min_length=1, max_length=500)
    """What belongs in the class, in words the judge reads (``"Running the project's own
    test suite, without network or writes outside the project"``)."""
    rules: tuple[Rule, ...] = Field(min_length=1)
    """The calls the class can cover at most (``"Bash(npm test*)"``, ``"Bash(pytest*)"``):
    the judge is asked only about a call one of them matches, and its allow counts only
    then. So even a fooled judge cannot allow beyond these."""


class Judge(BaseModel):
    """``[judge]``: a rung between the rules and the delegates, off by default. A small
    model, asked with a fixed prompt and no tools, may allow a call only as one of the
    classes named here; any other answer, a failure or a timeout sends the call on up."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    """Off unless the user turns it on."""
    model: str = "claude-haiku-4-5"
    """The model the judge's ``claude -p`` runs on."""
    timeout_s: float = Field(default=30.0, gt=0, le=300)
    """A judge with no answer by then allows nothing: the call goes to the human."""
    classes: dict[Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")], JudgeClass] = Field(
        default_factory=dict
    )
    """The classes it may allow, by name (letters, digits, ``-`` and ``_``)."""


class Policy(BaseModel):
    """One policy file (or the merge of the user's and the project's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = Field(default=1, ge=1, le=1)
    """The file format; only 1 exists."""
    hard_deny: HardDeny = Field(default_factory=HardDeny)
    rules: Rules = Field(default_factory=Rules)
    clients: dict[str, ClientGrant] = Field(default_factory=dict)
    """Grants by client name (a client's token is recorded by ``cctui clients add``)."""
    timeouts: Timeouts = Field(default_factory=Timeouts)
    breaker: Breaker = Field(default_factory=Breaker)
    judge: Judge = Field(default_factory=Judge)

    @property
    def hard_deny_rules(self) -> tuple[str, ...]:
        """The shipped hard denies and this policy's own."""
        return tuple(dict.fromkeys((*SHIPPED_HARD_DENY, *self.hard_deny.rules)))
