"""``cctui search``, ``cctui usage``, ``cctui index`` and ``cctui sessions`` on the index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import call_cctui, cctui_env, run_cctui
from tests.history import make_lines as mk
from tests.history.conftest import INTERACTIVE_ID, WRITE_ID


def _run(home: Path, claude: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command in this process (``call_cctui``); the slow tier's test below runs the
    same commands as real processes."""
    return call_cctui(cctui_env(home, CLAUDE_CONFIG_DIR=str(claude)), *args)


def _process(home: Path, claude: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cctui(cctui_env(home, CLAUDE_CONFIG_DIR=str(claude)), *args)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_a_word_in_the_middle_of_a_200_kb_tool_result_is_found(
    claude_home: Path, home: Path
) -> None:
    path = mk.plant(claude_home)
    assert path.stat().st_size > 200_000
    out = _run(home, claude_home, "search", mk.PLANTED, "--json")
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)["hits"]
    assert [h["session_id"] for h in hits] == [mk.PLANTED_SID]
    snippet, spans = hits[0]["snippet"], hits[0]["highlights"]
    assert [snippet[a:b] for a, b in spans] == [mk.PLANTED] and hits[0]["role"] == "tool"
    stats = _run(home, claude_home, "index", "--stats").stdout
    assert "not indexed" in stats and "images" in stats


@pytest.mark.slow
def test_search_usage_index_and_sessions_share_one_index(claude_home: Path, home: Path) -> None:
    """Real ``python -m cctui`` processes: what the in-process tests above and below check
    holds for the command as a person runs it (exit codes, stdout, stderr, one index)."""
    out = _process(home, claude_home, "search", "PLEASE_WRITE", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert [h["session_id"] for h in result["hits"]] == [WRITE_ID]
    index_file = home / ".cache" / "cctui" / "index.sqlite"
    assert index_file.exists()  # $XDG_CACHE_HOME/cctui by default

    text = _process(home, claude_home, "search", "hello", "interactive").stdout
    assert text.splitlines()[0].startswith("(1 session(s) with every word")
    assert text.splitlines()[1].split()[2] == INTERACTIVE_ID  # the one with both words
    assert "of the words]" in text  # then sessions with only some of them

    usage = json.loads(_process(home, claude_home, "usage", "session", "--json").stdout)
    costs = {r["key"]: r["cost_usd"] for r in usage["rows"]}
    assert costs[WRITE_ID] == pytest.approx(0.057272, abs=1e-6)
    assert usage["total"]["tokens"]["replies"] == 10  # 11 assistant lines, 10 replies

    daily = _process(home, claude_home, "usage")
    assert "2026-11-22" in daily.stdout and "total" in daily.stdout

    stats = json.loads(_process(home, claude_home, "index", "--stats", "--json").stdout)
    assert stats["files"] == 3 and stats["sessions"] == 3 and stats["messages"] > 10

    every = _process(home, claude_home, "sessions", "--json")
    listed = json.loads(every.stdout)
    assert {e["session_id"] for e in listed} >= {WRITE_ID, INTERACTIVE_ID}
    assert "--limit" not in every.stderr  # no limit: every session, nothing to say
    cut = _process(home, claude_home, "sessions", "--json", "--limit", "1")
    assert len(json.loads(cut.stdout)) == 1
    assert f"1 of {len(listed)} sessions shown (--limit 1)" in cut.stderr

    rebuilt = _process(home, claude_home, "index", "--rebuild", "--json")
    assert rebuilt.returncode == 0 and json.loads(rebuilt.stdout)["files"] == 3

    wrong = _process(home, claude_home, "usage", "fortnightly")
    assert wrong.returncode == 2 and "unknown period" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_errors_are_one_clear_line(claude_home: Path, home: Path) -> None:
    for args, words in [
        (("search", "role:robot", "x"), "role:robot"),
        (("search", "x", "--since", "someday"), "cannot read the date"),
        (("usage", "fortnightly"), "unknown period"),
    ]:
        out = _run(home, claude_home, *args)
        assert out.returncode == 2 and words in out.stderr, out.stderr
        assert "Traceback" not in out.stderr


def test_a_query_that_is_all_punctuation_is_not_a_traceback(
    claude_home: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cctui.cli import main

    for key in [k for k in os.environ if k.startswith(("CLAUDE", "XDG_"))]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home))
    for query in ['"', "-", "AND", "(", "*", 'NEAR("a" "b")', "a:b:c", "(((", "^x"]:
        code = main(["search", query])  # in-process: any exception fails the test
        err = capsys.readouterr().err
        assert code == 0 or (code == 2 and err.startswith("cctui: ")), (query, err)


def test_a_corrupt_index_file_is_rebuilt_with_a_note(claude_home: Path, home: Path) -> None:
    index_file = home / ".cache" / "cctui" / "index.sqlite"
    index_file.parent.mkdir(parents=True)
    index_file.write_bytes(b"garbage" * 1000)
    out = _run(home, claude_home, "search", "PLEASE_WRITE")
    assert out.returncode == 0 and WRITE_ID in out.stdout
    assert "rebuilding" in out.stderr


@pytest.mark.slow  # a generated corpus and ccusage (node): ~9 s of CPU, the most of any
@pytest.mark.skipif(
    not (os.environ.get("CCUSAGE") or shutil.which("ccusage")),
    reason="ccusage not installed (set CCUSAGE to its binary to compare)",
)
def test_token_totals_equal_ccusage_on_a_generated_corpus(tmp_path: Path, home: Path) -> None:
    from tests.bench.index_corpus import generate

    claude = tmp_path / "claude"
    generate(claude, 20, mean_kb=60, seed=7)
    ccusage = os.environ.get("CCUSAGE") or shutil.which("ccusage") or ""
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(claude))
    theirs = json.loads(
        subprocess.run(
            [ccusage, "daily", "--json", "--offline"],
            env=env, capture_output=True, text=True, check=True, timeout=120,
        ).stdout
    )  # fmt: skip
    ours = json.loads(_run(home, claude, "usage", "daily", "--json").stdout)
    mine = {
        r["key"]: [r["tokens"]["input"], r["tokens"]["output"],
                   r["tokens"]["cache_write_5m"] + r["tokens"]["cache_write_1h"],
                   r["tokens"]["cache_read"]]
        for r in ours["rows"]
    }  # fmt: skip
    other = {
        d.get("date") or d["period"]: [d["inputTokens"], d["outputTokens"],
                                       d["cacheCreationTokens"], d["cacheReadTokens"]]
        for d in theirs["daily"]
    }  # fmt: skip
    assert mine == other

    # `cctui usage session`'s table (each session's line ready from the index, its token
    # columns formatted by SQL) against ccusage's sessions: by id's first 8 characters, as
    # the table names a titled session; input, output, cache writes, cache reads, total.
    by_session = json.loads(
        subprocess.run(
            [ccusage, "session", "--json", "--offline"],
            env=env, capture_output=True, text=True, check=True, timeout=120,
        ).stdout
    )["session"]  # fmt: skip
    table = _run(home, claude, "usage", "session").stdout.splitlines()
    printed = {
        row[:8]: [int(n.replace(",", "")) for n in row[27:].split()[:5]]
        for row in table[1:] if not row.startswith(("-", "total", "*"))
    }  # fmt: skip
    assert len(printed) == len(by_session) > 10
    assert printed == {
        s["period"][:8]: [s["inputTokens"], s["outputTokens"], s["cacheCreationTokens"],
                          s["cacheReadTokens"], s["totalTokens"]]
        for s in by_session
    }  # fmt: skip


def test_search_takes_an_unquoted_minus_word(claude_home: Path, home: Path) -> None:
    """Issue 39, item 9: ``cctui search word -other`` failed unless quoted, although the
    help documents ``-exclude``; an unknown ``--option`` is still an error."""
    quoted = _run(home, claude_home, "search", "hello -nosuchword", "--json")
    bare = _run(home, claude_home, "search", "hello", "-nosuchword", "--json")
    assert bare.returncode == 0, bare.stderr
    assert json.loads(bare.stdout)["hits"] == json.loads(quoted.stdout)["hits"] != []
    wrong = _run(home, claude_home, "search", "hello", "--nosuchflag")
    assert wrong.returncode == 2 and "--nosuchflag" in wrong.stderr


def test_corrupt_lines_are_said_by_index_stats_not_by_every_command(
    claude_home: Path, home: Path
) -> None:
    """Issue 39, item 9: every command repeated "N corrupt line(s) skipped" on stderr."""
    (claude_home / "history.jsonl").write_text("garbage\n{not json\n")
    for args in (("search", "hello"), ("usage",), ("sessions",)):
        out = _run(home, claude_home, *args)
        assert out.returncode == 0 and "corrupt" not in out.stderr, (args, out.stderr)
    stats = _run(home, claude_home, "index", "--stats")
    assert "corrupt line(s) skipped" in stats.stdout + stats.stderr


@pytest.mark.slow  # a pipe to head needs real processes: three, over 700 transcripts
def test_a_reader_that_leaves_early_is_no_traceback(tmp_path: Path, home: Path) -> None:
    """Issue 39, item 9: ``cctui sessions | head`` printed a BrokenPipeError traceback."""
    for n in range(700):
        sid = f"0b0c7c1e-1111-4222-8333-{n:012d}"
        project = tmp_path / "claude" / "projects" / "-work-demo"
        project.mkdir(parents=True, exist_ok=True)
        line = {
            "type": "user",
            "sessionId": sid,
            "cwd": "/work/demo",
            "timestamp": "2026-11-20T10:00:00.000Z",
            "uuid": f"u{n}",
            "message": {"role": "user", "content": f"session number {n} " + "x" * 40},
        }
        (project / f"{sid}.jsonl").write_text(json.dumps(line) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "XDG_"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    for args in (("sessions",), ("search", "session", "--limit", "1000"), ("usage", "session")):
        done = subprocess.run(
            f"{sys.executable} -m cctui {' '.join(args)} | head -2",
            shell=True,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert len(done.stdout.splitlines()) == 2, (args, done.stdout)
        assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_the_session_table_counts_a_reply_written_after_the_index_was_built(
    claude_home: Path, home: Path
) -> None:
    """``cctui usage session`` prints from the index after its sweep: a reply appended to a
    transcript the index already holds is in the next table (its line and the total)."""

    def line(out: str, key: str) -> list[str]:
        return next(row.split() for row in out.splitlines() if row.startswith(key))

    before = _run(home, claude_home, "usage", "session").stdout
    [path] = claude_home.glob(f"projects/*/{WRITE_ID}.jsonl")
    with path.open("a") as f:
        f.write(mk.assistant([mk.text("later")], WRITE_ID, msg_id="msg_later",
                             ts="2026-11-22T12:00:00.000Z",
                             use=mk.usage(inp=1_234_567, out=7)))  # fmt: skip
    after = _run(home, claude_home, "usage", "session").stdout

    def tokens(row: list[str]) -> int:  # the total column, right of the name's words
        return int(row[-2].replace(",", ""))

    assert tokens(line(after, WRITE_ID[:8])) == tokens(line(before, WRITE_ID[:8])) + 1_234_574
    assert tokens(line(after, "total")) == tokens(line(before, "total")) + 1_234_574
