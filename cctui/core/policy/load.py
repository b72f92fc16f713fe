"""Reading policy files: line-precise problems, the user's and the project's merged, and the
last good policy kept when a file goes bad.

- ``check_text`` validates one file's text and returns its problems, each with a line (and
  a column for TOML syntax): tomllib says where the syntax breaks; a validation error's key
  path is mapped back to the line that sets it.
- A project file may only add restrictions and allow rules (``[hard_deny]``, ``[rules]``):
  grants to clients, timeouts and the breaker belong to the user, since a session (or a
  client writing files) can change a project's files.
- ``PolicyStore`` re-reads a file when it changes. A file that fails keeps the last good
  version of it in force (the user's is also saved in the state directory, so a restart
  with a bad file still has it); with no good version ever, only the defaults hold: the
  shipped hard denies, no allow rules, no grants. Nothing is allowed by an unreadable file.
"""

from __future__ import annotations

import logging
import os
import re
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from cctui.core.policy.model import HardDeny, Policy, Rules
from cctui.errors import CctuiError
from cctui.fs.atomic import write_atomic

log = logging.getLogger(__name__)

PROJECT_FILE = Path(".claude") / "cctui-policy.toml"
"""A project's policy, beside its Claude Code settings (the repository root's ``.claude/``)."""
USER_FILE = "policy.toml"
"""The user's policy, in cctui's config directory (``$XDG_CONFIG_HOME/cctui/``)."""
LAST_GOOD = "policy.last-good.toml"
"""The user's last policy that loaded, kept in the state directory."""
RECHECK_S = 1.0
"""A policy file is stat'ed at most this often: an ask within it reuses the policy in force
(a changed file is in force within a second; ``PolicyStore.clock`` for tests)."""
_PROJECT_SECTIONS = frozenset({"version", "hard_deny", "rules"})
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')
_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


class PolicyProblem(BaseModel):
    """One thing wrong with a policy file, and where."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    file: str
    line: int | None = None
    column: int | None = None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        return f"{where}: {self.message}"


class PolicyError(CctuiError):
    """A policy file that cannot be used; ``problems`` says where and why."""

    code = "policy_error"

    def __init__(self, problems: Sequence[PolicyProblem]) -> None:
        super().__init__(
            "; ".join(str(p) for p in problems),
            suggestion="Fix the file (cctui policy check FILE); the last good policy stays in "
            "force meanwhile.",
        )
        self.problems = tuple(problems)


def check_text(
    text: str, file: str, *, project: bool = False
) -> tuple[Policy | None, list[PolicyProblem]]:
    """Parse and validate one policy file's text: the policy, or its problems."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's error has no lineno attribute: its message ends "(at line L, column C)".
        where = _AT.search(str(exc))
        line = int(where.group(1)) if where else None
        column = int(where.group(2)) if where else None
        message = _AT.sub("", str(exc)).strip()
        if line is None and "(at end of document)" in message:  # an unclosed array, string
            line = max(1, len(text.splitlines()))
            message = message.replace("(at end of document)", "(the file ends first)").strip()
        return None, [
            PolicyProblem(file=file, line=line, column=column, message=f"not valid TOML: {message}")
        ]
    lines = _key_lines(text)
    problems: list[PolicyProblem] = []
    if project:
        for key in data:
            if key not in _PROJECT_SECTIONS:
                problems.append(
                    PolicyProblem(
                        file=file,
                        line=_line_of(lines, (key,)),
                        message=f"[{key}] is not allowed in a project policy (only [hard_deny] "
                        "and [rules]; grants, timeouts and the breaker belong in the user's "
                        "policy, which a session cannot write)",
                    )
                )
        if problems:
            return None, problems
    try:
        return Policy.model_validate(data), []
    except ValidationError as exc:
        for err in exc.errors():
            loc = tuple(err["loc"])
            key = ".".join(str(part) for part in loc) or "(file)"
            if err["type"] == "extra_forbidden":
                message = f"unknown key {key!r}"
            else:
                message = f"{key}: {err['msg'].removeprefix('Value error, ')}"
            line = _line_of(lines, loc)
            if line is not None and loc and isinstance(loc[-1], int):
                line = _item_line(text, line, loc[-1])
            problems.append(PolicyProblem(file=file, line=line, message=message))
        return None, problems


def check_file(
    path: Path, *, project: bool | None = None
) -> tuple[Policy | None, list[PolicyProblem]]:
    """``check_text`` on a file (``project`` defaults to "is it named like a project's")."""
    if project is None:
        project = path.name == PROJECT_FILE.name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, [PolicyProblem(file=str(path), message="no such file")]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [PolicyProblem(file=str(path), message=f"cannot be read ({exc})")]
    return check_text(text, str(path), project=project)


def merge(user: Policy, project: Policy | None) -> Policy:
    """The user's policy with a project's restrictions and allow rules added."""
    if project is None:
        return user
    hard = HardDeny(
        rules=tuple(dict.fromkeys((*user.hard_deny.rules, *project.hard_deny.rules))),
        writes_outside_project=user.hard_deny.writes_outside_project
        or project.hard_deny.writes_outside_project,
        protected_branches=tuple(
            dict.fromkeys(
                (*user.hard_deny.protected_branches, *project.hard_deny.protected_branches)
            )
        ),
    )
    rules = Rules(
        allow=tuple(dict.fromkeys((*user.rules.allow, *project.rules.allow))),
        deny=tuple(dict.fromkeys((*user.rules.deny, *project.rules.deny))),
    )
    return user.model_copy(update={"hard_deny": hard, "rules": rules})


@dataclass
class _Loaded:
    """One file as last seen: its stamp, the policy in force from it, and its problems."""

    stamp: tuple[int, int] | None = None
    policy: Policy | None = None
    problems: list[PolicyProblem] = field(default_factory=list)
    checked: float | None = None
    """When the file was last stat'ed (the store's clock)."""
    generation: int = 0
    """Bumped whenever what the file gives changes (the merged policies are cached by it)."""


@dataclass(frozen=True)
class InForce:
    """The policy that applies to one directory, and where each part came from."""

    policy: Policy
    sources: tuple[str, ...]
    """The files read (user first); empty when only the defaults apply."""
    problems: tuple[PolicyProblem, ...]
    """Files that failed (their last good version, if any, is in ``policy``)."""
    origins: dict[str, str] = field(default_factory=dict)
    """Rule -> the file it came from (``shipped`` for the shipped hard denies)."""

    def origin(self, rule: str) -> str:
        """Which file a rule comes from, for "allowed by rule X in FILE"."""
        return self.origins.get(rule, "shipped hard denies")


class PolicyStore:
    """The user's policy and each project's, re-read when they change (see the module)."""

    def __init__(
        self,
        user_file: Path | None,
        state_dir: Path | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``user_file``: the user's policy (None: none); ``state_dir``: where the user's
        last good policy is kept across restarts."""
        self.user_file = user_file
        self._state_dir = state_dir
        self._clock = clock
        self._files: dict[Path, _Loaded] = {}
        self._merged: dict[Path | None, tuple[tuple[int, ...], InForce]] = {}
        """The policy in force per directory, with the generations of the files it came from."""
        self._restore_last_good()

    def start_problems(self) -> list[PolicyProblem]:
        """Read the user's policy now; its problems (to print or show at start)."""
        if self.user_file is None:
            return []
        return list(self._read(self.user_file, project=False, fresh=True).problems)

    def in_force(self, directory: Path | None) -> InForce:
        """The merged policy for a session in ``directory`` (None: the user's alone).

        Every ask of every session comes here, often more than once: each file is stat'ed
        at most every ``RECHECK_S``, and the merge is redone only when a file changed."""
        wanted = [(self.user_file, False)] if self.user_file is not None else []
        if directory is not None:
            wanted.append((directory / PROJECT_FILE, True))
        loaded = [(path, self._read(path, project=project)) for path, project in wanted]
        key = tuple(one.generation for _, one in loaded)
        cached = self._merged.get(directory)
        if cached is not None and cached[0] == key:
            return cached[1]
        force = self._merge(loaded)
        if len(self._merged) > 256:  # directories come and go: keep the cache bounded
            self._merged.clear()
        self._merged[directory] = (key, force)
        return force

    def _merge(self, loaded: list[tuple[Path, _Loaded]]) -> InForce:
        read: list[tuple[str, Policy]] = []
        problems: list[PolicyProblem] = []
        for path, one in loaded:
            problems += one.problems
            if one.policy is not None:
                read.append((str(path), one.policy))
        origins: dict[str, str] = {}
        for source, policy in reversed(read):  # the project's own file names its rules
            for rule in (*policy.hard_deny.rules, *policy.rules.allow, *policy.rules.deny):
                origins.setdefault(rule, source)
        user = (
            read[0][1]
            if read and self.user_file is not None and read[0][0] == str(self.user_file)
            else Policy()
        )
        project_policy = read[-1][1] if read and read[-1][0] != str(self.user_file) else None
        return InForce(
            merge(user, project_policy), tuple(s for s, _ in read), tuple(problems), origins
        )

    def _read(self, path: Path, *, project: bool, fresh: bool = False) -> _Loaded:
        loaded = self._files.setdefault(path, _Loaded())
        now = self._clock()
        if not fresh and loaded.checked is not None and now - loaded.checked < RECHECK_S:
            return loaded
        loaded.checked = now
        policy, problems = loaded.policy, loaded.problems
        self._stat_and_load(loaded, path, project=project)
        if loaded.policy is not policy or loaded.problems is not problems:
            loaded.generation += 1
        return loaded

    def _stat_and_load(self, loaded: _Loaded, path: Path, *, project: bool) -> None:
        try:
            st = os.stat(path)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        except OSError as exc:
            loaded.problems = [PolicyProblem(file=str(path), message=f"cannot be read ({exc})")]
            return
        if stamp == loaded.stamp:
            return
        loaded.stamp = stamp
        if stamp is None:  # removed: the file no longer applies
            loaded.policy, loaded.problems = None, []
            return
        policy, problems = check_file(path, project=project)
        loaded.problems = problems
        if policy is not None:
            loaded.policy = policy
            if not project:
                self._save_last_good(path)
        else:
            log.warning("policy %s refused; %s", path, "; ".join(str(p) for p in problems))

    def _save_last_good(self, path: Path) -> None:
        if self._state_dir is None:
            return
        try:
            write_atomic(self._state_dir / LAST_GOOD, path.read_bytes(), mode=0o600)
        except OSError as exc:
            log.warning("could not keep the last good policy: %s", exc)

    def _restore_last_good(self) -> None:
        """A restart with a bad user file still has the last policy that loaded."""
        if self._state_dir is None or self.user_file is None:
            return
        kept = self._state_dir / LAST_GOOD
        if not kept.is_file():
            return
        policy, _ = check_file(kept, project=False)
        if policy is not None:
            self._files[self.user_file] = _Loaded(stamp=(-1, -1), policy=policy)


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The first line that sets each key path (tables and keys; dotted keys expanded)."""
    out: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            inner = line.lstrip("[").split("]", 1)[0]
            path = _key_path(inner)
            if path is not None:
                table = path
                for i in range(1, len(table) + 1):
                    out.setdefault(table[:i], number)
            continue
        if "=" in line:
            path = _key_path(line.split("=", 1)[0])
            if path is not None:
                for i in range(1, len(path) + 1):
                    out.setdefault(table + path[:i], number)
    return out


def _key_path(key: str) -> tuple[str, ...] | None:
    """A TOML key (``a.b``, ``a."b c"``) as its parts; None when it is not one."""
    try:
        data: Any = tomllib.loads(f"{key.strip()} = 0")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        ((name, data),) = data.items()
        parts.append(name)
    return tuple(parts) or None


def _item_line(text: str, line: int, index: int) -> int:
    """The line of item ``index`` of the array whose key is on ``line`` (a string array
    written over several lines); ``line`` itself when it cannot tell."""
    rest = text.splitlines()[line - 1 :]
    seen = 0
    for offset, raw in enumerate(rest):
        body = raw.split("=", 1)[1] if offset == 0 and "=" in raw else raw
        for _ in _STRING.finditer(body):
            if seen == index:
                return line + offset
            seen += 1
        if "]" in _STRING.sub("", body):
            break
    return line


def _line_of(lines: dict[tuple[str, ...], int], loc: tuple[Any, ...]) -> int | None:
    """The line of the longest prefix of ``loc`` the file sets (list indices skipped)."""
    keys = tuple(str(part) for part in loc if not isinstance(part, int))
    for end in range(len(keys), 0, -1):
        found = lines.get(keys[:end])
        if found is not None:
            return found
    return None
