"""Benchmark of the authority ladder's rules rung, as differences against an in-run baseline.

    python -m tests.bench.bench_ladder [--n 2000]

What each permission ask now pays first, and what a decision costs when the rules decide:

- ``screen`` on a miss: the policy (its two files stat'ed), the hard denies and the allow
  rules matched against a Bash call no rule decides (the cost added to every ask that goes
  on to a client or the human);
- ``screen`` on a hit: the same call allowed by ``Bash(npm test*)``;
- a whole ``InputDesk.ask`` answered by a policy rule (publish, audit line, answer) against
  the same ask answered by "allow for the session" (this exact call allowed before: the
  cheapest answer the desk had before the ladder; it publishes nothing but writes the same
  audit line). The difference is what a decision through the ladder adds; the target is
  at most 1 ms;
- ``InputDesk.guard`` on a call nothing refuses: what the session's PreToolUse hook costs
  cctui before every tool call (the CLI's round trip to it is not in this number), on a
  Bash call and on a Write (the hard deny rules and deny rules; writes outside the project
  the CLI checks itself).

A session is created with the FakeDriver (no CLI); its desk is called directly. Not part of
the pytest run: timings vary by machine; the differences mostly don't.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from cctui.claude.frames import PermissionAsk, ToolAbout
from cctui.core import SessionManager
from cctui.core.decisions.allowances import call_key
from cctui.core.decisions.desk import InputDesk
from tests.fakes.fake_driver import FakeDriverFactory
from tests.fakes.settings import make_settings

POLICY = """
[rules]
allow = ["Read", "Bash(make lint*)", "Bash(npm test*)", "Edit(src/**)"]
deny = ["Bash(curl *)"]
[hard_deny]
rules = ["Bash(terraform destroy*)"]
"""


def _per_call_us(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1e6:8.1f} µs (p90 {_p90(samples) * 1e6:.1f})"


def _p90(samples: list[float]) -> float:
    return sorted(samples)[int(len(samples) * 0.9)]


async def _time(n: int, call: Callable[[], Awaitable[object] | object]) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        result = call()
        if asyncio.iscoroutine(result):
            await result
        out.append(time.perf_counter() - t0)
    return out


async def run(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "proj"
        project.mkdir()
        policy = root / "policy.toml"
        policy.write_text(POLICY)
        settings = make_settings(root, default_cwd=project).model_copy(
            update={"policy_file": policy}
        )
        manager = SessionManager(settings, driver_factory=FakeDriverFactory())
        await manager.start()
        try:
            info = await manager.create(None, manager.default_config(project))
            desk = manager._desk_of(info.session_id)  # a bench reaches in
            assert isinstance(desk, InputDesk)
            ladder = manager.decisions.ladder
            miss = {"command": "python -m build --wheel"}
            hit = {"command": "npm test -- --watch=false"}
            screen_miss = await _time(
                n, lambda: ladder.screen("s", "permission", "Bash", miss, project)
            )
            screen_hit = await _time(
                n, lambda: ladder.screen("s", "permission", "Bash", hit, project)
            )
            by_rule = PermissionAsk(tool_name="Bash", input=hit)

            async def through_rules() -> None:
                ladder.human_answered(info.session_id)  # keep the breaker closed
                answer = await desk.ask(by_rule)
                assert answer.allow

            baseline_ask = PermissionAsk(tool_name="Bash", input=miss)
            # The exact-call shortcut comes before the rules rung: the desk without the ladder.
            desk.allowed_calls.add(call_key("Bash", miss))

            async def allowed_before() -> None:
                answer = await desk.ask(baseline_ask)
                assert answer.allow

            base = await _time(n, allowed_before)
            rules = await _time(n, through_rules)
            write = {"file_path": str(project / "src" / "app.py"), "content": "x"}
            guard_bash = await _time(n, lambda: desk.guard(ToolAbout("Bash", miss)))
            guard_write = await _time(n, lambda: desk.guard(ToolAbout("Write", write)))
        finally:
            await manager.shutdown()
    diff = statistics.median(rules) - statistics.median(base)
    print(f"n = {n}")
    print(f"screen, no rule decides      {_per_call_us(screen_miss)}")
    print(f"screen, an allow rule decides {_per_call_us(screen_hit)}")
    print(f"desk.ask allowed before (baseline) {_per_call_us(base)}")
    print(f"desk.ask decided by a rule         {_per_call_us(rules)}")
    print(f"added by the ladder when rules decide: {diff * 1e3:.3f} ms (target <= 1 ms)")
    print(f"guard (PreToolUse), a Bash call      {_per_call_us(guard_bash)}")
    print(f"guard (PreToolUse), a Write          {_per_call_us(guard_write)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    asyncio.run(run(args.n))


if __name__ == "__main__":
    main()
