"""stdin and stdout read and written on the loop (``transport.stdio``), in child processes.

The streams take over fd 0 and 1, so each case runs in a process of its own. The MCP path
through them (``cctui serve --stdio`` behind a real client) is in ``test_e2e``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.mcp.conftest import INITIALIZE

REPO = Path(__file__).resolve().parents[2]

ECHO = textwrap.dedent(
    """
    import subprocess, anyio
    from cctui.mcp_server.transport.stdio import LineReader, LineWriter, _claimed

    async def main():
        with _claimed() as (wire_in, wire_out):
            print("a stray print", flush=True)
            subprocess.run(["sh", "-c", "echo a child writes; cat"], check=True)
            out = LineWriter(wire_out)
            async for line in LineReader(wire_in):
                await out.write(f"{len(line)} {line[:12]!r}\\n")
                await out.write(line.upper())
            await out.flush()
        print("stdout is back", flush=True)

    anyio.run(main)
    """
)


def run_child(code: str, stdin: bytes | Path) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, "-c", code]
    if isinstance(stdin, Path):
        with stdin.open("rb") as fh:
            return subprocess.run(argv, stdin=fh, capture_output=True, cwd=REPO, timeout=60)
    return subprocess.run(argv, input=stdin, capture_output=True, cwd=REPO, timeout=60)


@pytest.mark.process
def test_lines_come_whole_and_nothing_else_reaches_the_wire() -> None:
    long = "x" * 3_000_000  # longer than a pipe holds, both ways, and than one read
    lines = ["first\n", f"{long}\n", "héllo\n", "no newline at the end"]
    done = run_child(ECHO, "".join(lines).encode())

    assert done.returncode == 0, done.stderr.decode()[-2000:]
    expected = "".join(f"{len(line)} {line[:12]!r}\n{line.upper()}" for line in lines)
    assert done.stdout.decode() == expected + "stdout is back\n"
    # What the process and its child wrote to fd 1 while serving went to stderr, and the
    # child read the null device on fd 0 (its `cat` ended at once instead of eating input).
    assert b"a stray print\n" in done.stderr
    assert b"a child writes\n" in done.stderr


@pytest.mark.process
def test_undecodable_bytes_are_replaced_not_fatal() -> None:
    done = run_child(ECHO, b"ok\n\xff\xfe bad\n")

    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().splitlines()[2] == "7 '\ufffd\ufffd bad\\n'"


@pytest.mark.slow
def test_serve_answers_from_a_pipe_and_from_a_file(tmp_path: Path) -> None:
    """A pipe takes the loop's streams, a regular file the SDK's own: both answer."""
    request = tmp_path / "request.jsonl"
    request.write_text(json.dumps(INITIALIZE) + "\n")
    serve = "import sys; from cctui.cli import main; sys.exit(main(['serve', '--stdio']))"
    env_code = (
        f"import os; os.environ['XDG_STATE_HOME'] = {str(tmp_path / 'state')!r}; "
        f"os.environ['HOME'] = {str(tmp_path)!r}; {serve}"
    )
    for stdin in (request.read_bytes(), request):
        done = run_child(env_code, stdin)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        answer = json.loads(done.stdout.decode().splitlines()[0])
        assert answer["id"] == 1
        assert answer["result"]["serverInfo"]["name"] == "cctui"
