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

    remote = cctui("--config", str(config), "sessions", "--json", "--host", "box")
    assert remote.returncode == 0, remote.stderr
    rows = json.loads(remote.stdout)
    assert {r["host"] for r in rows} == {"box"}
    assert sid in {r["session_id"] for r in rows}
    both = cctui("--config", str(config), "sessions", "--json", "--host", "*")
    assert both.returncode == 0, both.stderr  # bare is left out, and says why on stderr
    assert "not installed" in both.stderr
    assert {r["host"] for r in json.loads(both.stdout)} <= {None, "box"}
    assert sid in {r["session_id"] for r in json.loads(both.stdout) if r["host"] == "box"}


def test_the_hosts_words_without_reaching_any(tmp_path: Path) -> None:
    """Text output, an unknown host, and a host that is not there: nothing to start."""
    config = write_config(
        tmp_path / "config.toml", {"bare": ["sh", "-c", "exec cctui-not-installed bridge"]}
    )
    text = cctui("--config", str(config), "hosts")
    assert text.returncode == 1
    assert "bare" in text.stdout and "missing" in text.stdout
    assert "fix: install cctui on bare" in text.stdout
    failed = cctui("--config", str(config), "sessions", "--host", "bare")
    assert failed.returncode == 1 and "not installed" in failed.stderr
    unknown = cctui("--config", str(config), "sessions", "--host", "nowhere")
    assert unknown.returncode == 2 and "no host named 'nowhere'" in unknown.stderr
    local = cctui("--config", str(config), "sessions", "--json")
    assert local.returncode == 0 and all(r["host"] is None for r in json.loads(local.stdout))
