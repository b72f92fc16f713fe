"""``cctui policy check|test|show`` and ``cctui clients add|list|remove``: the authority
ladder's policy and its registered MCP clients from the shell (docs/policy.md)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from cctui import paths
from cctui.config import Settings

if TYPE_CHECKING:  # the policy room loads only when one of these commands runs
    from cctui.core.policy import Ladder

COMMANDS = ("policy", "clients")


def add_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Add ``policy`` and ``clients`` to ``cctui``'s parser."""
    policy = sub.add_parser("policy", parents=[common], help="check, test or show the policy")
    verbs = policy.add_subparsers(dest="policy_command", required=True)
    check = verbs.add_parser("check", help="validate a policy file (line-precise errors)")
    check.add_argument("file", type=Path)
    check.add_argument(
        "--project",
        action="store_true",
        default=None,
        help="check it as a project's policy (default: when named cctui-policy.toml)",
    )
    test = verbs.add_parser("test", help="replay the audit log's past decisions through a policy")
    test.add_argument("--since", help="2026-11-01, 7d, 12h, today, ...")
    test.add_argument(
        "--policy", type=Path, help="the policy to test (default: the user's policy in force)"
    )
    test.add_argument("--json", action="store_true", help="the report as JSON")
    show = verbs.add_parser("show", help="print the policy in force for a directory")
    show.add_argument("directory", nargs="?", type=Path, default=None)

    clients = sub.add_parser(
        "clients", parents=[common], help="MCP clients with their own token and grants"
    )
    cverbs = clients.add_subparsers(dest="clients_command", required=True)
    add = cverbs.add_parser("add", help="register a client: prints its new token once")
    add.add_argument("name")
    add.add_argument(
        "--project",
        action="append",
        default=[],
        help="it may answer sessions under this directory (repeatable; '*' for every session)",
    )
    add.add_argument(
        "--rule",
        action="append",
        default=[],
        help="it may allow only calls matching this rule, e.g. 'Bash(npm test*)' (repeatable)",
    )
    add.add_argument("--plans", action="store_true", help="it may answer others' plans")
    add.add_argument("--questions", action="store_true", help="it may answer others' questions")
    add.add_argument(
        "--persist-rules", action="store_true", help="its allow-in-project is written at once"
    )
    add.add_argument("--replace", action="store_true", help="replace an existing client's token")
    cverbs.add_parser("list", help="registered clients and their grants")
    remove = cverbs.add_parser("remove", help="forget a client (its token stops working)")
    remove.add_argument("name")


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run ``policy …`` or ``clients …``; returns the exit code."""
    if args.command == "clients":
        return _clients(settings, args)
    if args.policy_command == "check":
        return _check(args.file, args.project)
    if args.policy_command == "show":
        return _show(settings, args.directory)
    return _test(settings, args)


def _check(file: Path, project: bool | None) -> int:
    from cctui.core.policy import check_file

    policy, problems = check_file(file, project=project)
    for problem in problems:
        print(str(problem), file=sys.stderr)
    if policy is None:
        return 1
    print(
        f"{file}: ok ({len(policy.rules.allow)} allow, {len(policy.rules.deny)} deny, "
        f"{len(policy.hard_deny_rules)} hard deny rules, {len(policy.clients)} client grants)"
    )
    return 0


def _ladder(settings: Settings, policy_file: Path | None = None) -> Ladder:
    from cctui.core.policy import ClientRegistry, Ladder, PolicyStore

    store = PolicyStore(policy_file or settings.policy_file)
    return Ladder(
        store,
        ClientRegistry(settings.state_dir),
        home=str(paths.home()),
        plans=settings.claude_config_dir / "plans",
    )


def _show(settings: Settings, directory: Path | None) -> int:
    ladder = _ladder(settings)
    force = ladder.in_force(directory.resolve() if directory else None)
    for problem in force.problems:
        print(f"refused: {problem}", file=sys.stderr)
    print("sources: " + (", ".join(force.sources) or "(none: the defaults)"))
    print(json.dumps(force.policy.model_dump(mode="json"), indent=2))
    return 0


def _test(settings: Settings, args: argparse.Namespace) -> int:
    from cctui.core.audit import AuditLog
    from cctui.core.policy import check_file
    from cctui.core.policy.replay import replay
    from cctui.history.search import parse_when

    if args.policy is not None:
        policy, problems = check_file(args.policy, project=False)
        if policy is None:
            for problem in problems:
                print(str(problem), file=sys.stderr)
            return 1
    ladder = _ladder(settings, args.policy)
    since = datetime.fromtimestamp(parse_when(args.since), UTC) if args.since is not None else None
    report = replay(AuditLog(settings.state_dir).read(), ladder, since=since)
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    print(report.summary())
    sections = (
        ("would allow, denied then", report.allowed_you_denied),
        ("would deny, allowed then", report.denied_you_allowed),
        ("decided by a rule then, would be asked now", report.now_asked),
    )
    for title, rows in sections:
        if rows:
            print(f"\n{title}:")
        for row in rows:
            because = f"  [{row.because}]" if row.because else ""
            print(
                f"  {row.at[:19]}  {row.session_id[:8]}  {row.tool}  {row.detail}  "
                f"({row.past} by {row.past_by}){because}"
            )
    if report.skipped:
        print(f"\n{report.skipped} older records kept no input to replay.")
    return 0


def _clients(settings: Settings, args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from cctui.core.policy import ClientGrant, ClientRegistry

    registry = ClientRegistry(settings.state_dir)
    if args.clients_command == "add":
        try:
            grant = ClientGrant(
                projects=tuple(
                    p if p == "*" else str(Path(p).expanduser().resolve()) for p in args.project
                ),
                rules=tuple(args.rule),
                plans=args.plans,
                questions=args.questions,
                persist_rules=args.persist_rules,
            )
        except ValidationError as exc:
            for err in exc.errors():
                print(
                    f"cctui: --{err['loc'][0]}: {err['msg'].removeprefix('Value error, ')}",
                    file=sys.stderr,
                )
            return 2
        token = registry.add(args.name, grant, replace=args.replace)
        print(token)
        print(
            f"# {args.name}: send it as 'Authorization: Bearer <token>' to the cctui MCP "
            "server (see cctui mcp-config). It is shown only now; cctui keeps its hash.",
            file=sys.stderr,
        )
        return 0
    if args.clients_command == "remove":
        if not registry.remove(args.name):
            print(f"cctui: no client named {args.name!r}", file=sys.stderr)
            return 1
        return 0
    for record in registry.records():
        granted = record.grant.model_dump(exclude_defaults=True)
        print(f"{record.name}\t{record.created_at:%Y-%m-%d}\t{json.dumps(granted)}")
    if registry.problem:
        print(f"cctui: {registry.problem}", file=sys.stderr)
        return 1
    return 0
