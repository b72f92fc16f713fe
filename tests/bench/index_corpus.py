"""A generated ``~/.claude`` for the index benchmarks: realistic sizes, the CLI's own line shapes.

    python -m tests.bench.index_corpus OUT [--sessions 2000] [--mean-kb 425] [--seed 1]

Transcript sizes are log-normal (sigma 1.5, capped at 60 MB; 2,000 at a 425 KB mean make
~850 MB). Each session is a sequence of turns written the way Claude Code 2.1.330 writes them
(``tests/history/samples``): queue operations, the user prompt, attachments, the stored API
request (``api-request-shape``/``-blob``/``api-request``: most of a real file's bytes), then
**one assistant line per content block** carrying the same ``message.id``, ``requestId`` and
``usage``, tool results as user lines, ``system``/``last-prompt`` lines and now and then a
``cost-state``. About one session in ten has a subagent transcript under
``<session>/subagents/``. Text comes from a Zipf-weighted vocabulary of English and code words,
with identifiers such as ``Session._pump``, ``src/api/auth.ts`` and ``error-401`` mixed in.
Deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

MODELS = [
    ("claude-sonnet-4-5-20250929", 0.55),
    ("claude-opus-4-5-20251101", 0.25),
    ("claude-haiku-4-5-20251001", 0.15),
    ("claude-experimental-zz", 0.05),  # genai-prices does not know it: "no price"
]
_COMMON = """the a to of and in is for that it on with as this be are by file function test
error return value code type data not if we need should can use will from at an config update
change fix add remove check run build module import class method call request response server
client session index search query cache token user message tool result output input path
directory project branch commit merge review diff line string number list dict key field
parse read write open close start stop wait time event handler callback async await thread
process memory size limit timeout retry status state model prompt context window stream api
json yaml toml sql table column row schema migration version release package dependency
install lint format mypy ruff pytest fixture mock assert raise except try finally yield
lambda loop iterate map filter reduce sort group merge split join strip replace encode
decode bytes utf offset length buffer chunk flush sync lock mutex queue channel worker pool
widget screen layout style color theme key binding footer header sidebar panel modal dialog
"""
_WORDS = _COMMON.split()
_IDENTS = [
    "Session._pump", "src/api/auth.ts", "error-401", "status:500", "HistoryIndex.refresh",
    "tests/test_index.py", "ValueError", "KeyError: 'id'", "useEffect", "fetch_rows()",
    "config.toml", "npm run build", "git rebase -i", "SELECT * FROM users", "TODO(perf)",
]  # fmt: skip
_TOOLS = ["Bash", "Read", "Edit", "Write", "Grep", "Glob"]


@dataclass
class Corpus:
    """What was generated."""

    home: Path
    transcripts: int
    subagents: int
    bytes: int
    seconds: float


class _Text:
    """Zipf-weighted word soup, cheap: sentences are drawn from a pre-built pool."""

    def __init__(self, rng: random.Random) -> None:
        # Common words first, then identifiers, then 30,000 made-up words: a Zipf tail like a
        # real vocabulary's, so posting lists and the index size behave like real ones.
        syll = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "den", "par", "quo", "zen"]
        made = {"".join(rng.choices(syll, k=rng.randint(2, 4))) for _ in range(40_000)}
        words = _WORDS + _IDENTS + sorted(made)[:30_000]
        # Accumulated once: given plain weights, `choices` sums all 30,000 of them again at
        # every call (20,000 calls: ~30 s of CPU, over pytest's 120 s guard under load). The
        # draws are the very same either way, so a seed still makes the same corpus.
        cum_weights = list(itertools.accumulate(1 / (i + 1) ** 1.07 for i in range(len(words))))
        self.rng = rng
        self.pool = [
            " ".join(rng.choices(words, cum_weights=cum_weights, k=rng.randint(6, 24))).capitalize()
            + "."
            for _ in range(20_000)
        ]

    def words(self, n_chars: int, salt: str = "") -> str:
        out: list[str] = []
        size = 0
        while size < n_chars:
            s = self.rng.choice(self.pool)
            out.append(s)
            size += len(s) + 1
        if salt:
            out.insert(self.rng.randrange(len(out) + 1), salt)
        return " ".join(out)


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts * 1000) % 1000:03d}Z"


def _dump(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class _Session:
    def __init__(self, rng: random.Random, text: _Text, sid: str, cwd: str, t0: float) -> None:
        self.rng, self.text, self.sid, self.cwd, self.t = rng, text, sid, cwd, t0
        self.parent: str | None = None
        self.model = rng.choices([m for m, _ in MODELS], [w for _, w in MODELS])[0]
        self.n = 0

    def _base(self, sidechain: bool = False) -> dict[str, object]:
        u = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        base: dict[str, object] = {"parentUuid": self.parent, "isSidechain": sidechain}
        self.parent = u
        self.t += self.rng.uniform(0.2, 20)
        return base | {"uuid": u, "timestamp": _iso(self.t), "cwd": self.cwd,
                       "sessionId": self.sid, "version": "2.1.330", "gitBranch": "main",
                       "userType": "external", "entrypoint": "cli"}  # fmt: skip

    def turn(self, sidechain: bool = False) -> list[bytes]:
        rng, text = self.rng, self.text
        self.n += 1
        prompt = text.words(rng.randint(40, 600), salt=f"turn{self.n}-{self.sid[:8]}")
        lines = [
            _dump({"type": "queue-operation", "operation": "enqueue", "timestamp": _iso(self.t),
                   "sessionId": self.sid, "content": prompt}),
            _dump(self._base(sidechain) | {"type": "user", "promptId": self.sid[:8],
                  "message": {"role": "user", "content": prompt}, "permissionMode": "default"}),
            _dump(self._base(sidechain) | {"type": "attachment", "attachment": {
                  "type": "skill_listing", "content": text.words(rng.randint(500, 6000))}}),
            _dump({"type": "api-request-shape", "sessionId": self.sid,
                   "shape": text.words(int(rng.lognormvariate(9.5, 0.8)))}),
            _dump({"type": "api-request-blob", "sessionId": self.sid,
                   "blob": text.words(rng.randint(500, 12000))}),
            _dump({"type": "api-request", "sessionId": self.sid, "requestRef": self.sid[:8]}),
        ]  # fmt: skip
        for _call in range(rng.choice([0, 1, 1, 2, 3, 5])):
            lines += self._reply(sidechain, with_tool=True)
            tool_id = f"toolu_{rng.getrandbits(48):012x}"
            result = text.words(int(min(rng.lognormvariate(7.5, 1.4), 200_000)))
            lines.append(
                _dump(self._base(sidechain) | {"type": "user", "message": {"role": "user",
                      "content": [{"tool_use_id": tool_id, "type": "tool_result",
                                   "content": result}]},
                      "toolUseResult": {"stdout": result[:2000]}})
            )  # fmt: skip
        lines += self._reply(sidechain, with_tool=False)
        lines.append(
            _dump(
                self._base(sidechain)
                | {
                    "type": "system",
                    "subtype": "turn_duration",
                    "durationMs": rng.randint(500, 90000),
                }
            )
        )
        lines.append(_dump({"type": "last-prompt", "lastPrompt": prompt[:200],
                            "sessionId": self.sid}))  # fmt: skip
        return lines

    def _reply(self, sidechain: bool, *, with_tool: bool) -> list[bytes]:
        rng, text = self.rng, self.text
        msg_id = f"msg_{rng.getrandbits(96):024x}"
        req_id = f"req_{rng.getrandbits(96):024x}"
        cw = rng.choice([0, 0, rng.randint(100, 30000)])
        one_hour = rng.random() < 0.2
        usage = {
            "input_tokens": rng.randint(1, 4000),
            "cache_creation_input_tokens": cw,
            "cache_read_input_tokens": rng.choice([0, rng.randint(1000, 250_000)]),
            "output_tokens": rng.randint(10, 4000),
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": cw if one_hour else 0,
                               "ephemeral_5m_input_tokens": 0 if one_hour else cw},
            "inference_geo": "", "speed": "standard",
        }  # fmt: skip
        blocks: list[dict[str, object]] = [
            {"type": "text", "text": text.words(int(rng.lognormvariate(6, 1)))}
        ]
        if rng.random() < 0.3:
            blocks.insert(0, {"type": "thinking", "thinking": text.words(400), "signature": "x"})
        if with_tool:
            tool = rng.choice(_TOOLS)
            args = {"command": text.words(60)} if tool == "Bash" else {
                "file_path": f"{self.cwd}/src/{rng.choice(_WORDS)}.py",
                "old_string": text.words(200), "new_string": text.words(300)}  # fmt: skip
            blocks.append({"type": "tool_use", "id": f"toolu_{rng.getrandbits(48):012x}",
                           "name": tool, "input": args})  # fmt: skip
        out = []
        for i, block in enumerate(blocks):
            u = dict(usage)
            if i == 0 and len(blocks) > 1 and rng.random() < 0.1:
                u["output_tokens"] = 1  # an intermediate snapshot: ccusage keeps the larger
            out.append(_dump(self._base(sidechain) | {"type": "assistant", "requestId": req_id,
                             "message": {"id": msg_id, "type": "message", "role": "assistant",
                                         "model": self.model, "content": [block],
                                         "stop_reason": None, "usage": u}}))  # fmt: skip
        return out


def generate(
    home: Path, sessions: int = 2000, *, mean_kb: float = 425, seed: int = 1, days: int = 90
) -> Corpus:
    """Write the corpus under ``home`` (a ``~/.claude``); returns what was written."""
    started = time.perf_counter()
    rng = random.Random(seed)
    text = _Text(rng)
    sigma = 1.5
    mu = math.log(mean_kb * 1024) - sigma * sigma / 2
    now = time.time()
    total = subagents = 0
    for i in range(sessions):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        cwd = f"/work/project-{i % 40}"
        d = home / "projects" / cwd.replace("/", "-")
        d.mkdir(parents=True, exist_ok=True)
        target = int(min(max(rng.lognormvariate(mu, sigma), 3000), 60e6))
        t0 = now - rng.uniform(0, days * 86400)
        s = _Session(rng, text, sid, cwd, t0)
        path = d / f"{sid}.jsonl"
        size = 0
        with path.open("wb") as fh:
            while size < target:
                for line in s.turn():
                    fh.write(line)
                    size += len(line)
                if s.n % 7 == 0:
                    line = _dump({"type": "cost-state", "sessionId": sid, "totalCostUSD": 0.0})
                    fh.write(line)
                    size += len(line)
        total += size
        if rng.random() < 0.1:
            sub = d / sid / "subagents" / f"agent-{rng.getrandbits(32):08x}.jsonl"
            sub.parent.mkdir(parents=True, exist_ok=True)
            a = _Session(rng, text, sid, cwd, t0 + 60)
            with sub.open("wb") as fh:
                for _ in range(rng.randint(1, 4)):
                    for line in a.turn(sidechain=True):
                        fh.write(line)
                        total += len(line)
            subagents += 1
    return Corpus(home, sessions, subagents, total, time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--mean-kb", type=float, default=425)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    c = generate(args.out, args.sessions, mean_kb=args.mean_kb, seed=args.seed)
    print(
        f"{c.transcripts} transcripts + {c.subagents} subagent files, {c.bytes / 1e6:,.0f} MB "
        f"in {c.seconds:.0f} s under {c.home}"
    )


if __name__ == "__main__":
    main()
