"""``cctui hosts`` and ``cctui sessions --host``: each host reached once by its command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cctui.remote.client import CctuiClient

pytestmark = pytest.mark.e2e


def write_config(path: Path, hosts: dict[str, list[str]]) -> Path:
    lines = []
    for name, command in hosts.items():
        lines += ["[[hosts]]", f"name = {json.dumps(name)}", f"command = {json.dumps(command)}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def cctui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cctui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


async def test_hosts_and_their_sessions(
    bridge_command: list[str], host_project: Path, tmp_path: Path
) -> None:
    config = write_config(
        tmp_path / "config.toml",
        {"box": bridge_command, "bare": ["sh", "-c", "exec cctui-not-installed bridge --start"]},
    )
    async with CctuiClient("box", bridge_command) as c:
        sid = await c.create("[[say text=hello]]", cwd=str(host_project), title="on the box")

    listed = cctui("--config", str(config), "hosts", "--json")
    assert listed.returncode == 1, listed.stderr  # one host is not reachable
    box, bare = json.loads(listed.stdout)
    assert (box["name"], box["state"], box["problem"]) == ("box", "online", None)
    assert box["version"] and box["sessions"] >= 1 and box["command"] == bridge_command
    assert bare["state"] == "missing" and "pipx install cctui" in bare["fix"]

    text = cctui("--config", str(config), "hosts")
    assert "box" in text.stdout and "online" in text.stdout
    assert "missing" in text.stdout and "fix: install cctui on bare" in text.stdout

    remote = cctui("--config", str(config), "sessions", "--json", "--host", "box")
    assert remote.returncode == 0, remote.stderr
    rows = json.loads(remote.stdout)
    assert {r["host"] for r in rows} == {"box"}
    assert sid in {r["session_id"] for r in rows}
    local = cctui("--config", str(config), "sessions", "--json")
    assert local.returncode == 0 and all(r["host"] is None for r in json.loads(local.stdout))
    assert sid not in {r["session_id"] for r in json.loads(local.stdout)}

    failed = cctui("--config", str(config), "sessions", "--host", "bare")
    assert failed.returncode == 1 and "not installed" in failed.stderr
    unknown = cctui("--config", str(config), "sessions", "--host", "nowhere")
    assert unknown.returncode == 2 and "no host named 'nowhere'" in unknown.stderr
