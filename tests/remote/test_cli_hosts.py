"""``cctui hosts`` and ``cctui sessions --host``: each host reached once by its command."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cctui.remote.client import CctuiClient
from tests.helpers import call_cctui
from tests.remote.conftest import bridge_argv, module_host

pytestmark = pytest.mark.e2e


def write_config(path: Path, hosts: dict[str, list[str]]) -> Path:
    lines = []
    for name, command in hosts.items():
        lines += ["[[hosts]]", f"name = {json.dumps(name)}", f"command = {json.dumps(command)}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def cctui(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m cctui args``, a real process (``hosts``: the whole command once)."""
    return subprocess.run(
        [sys.executable, "-m", "cctui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def here(*args: str) -> subprocess.CompletedProcess[str]:
    """The same command run in this process (``call_cctui``): what it decides and says,
    without a Python importing the MCP stack per call (~2 s of CPU each; the words test's
    four were ~10 s). The hosts it reaches are still real: each host's command (its bridge)
    runs as a process, as from a real ``cctui``."""
    return call_cctui(dict(os.environ), *args)


class Box:
    """A host ``box`` (a second cctui under its own HOME, reached by its bridge) with one
    session made there, and a config naming it and a host that is not installed."""

    def __init__(self, config: Path, command: list[str], session_id: str) -> None:
        self.config = config
        self.command = command
        self.session_id = session_id


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    """One host for the module's three looks at it. The host's owner, its first bridge and
    its session cost about 8 s of CPU and each look about 4 (the CLI and a bridge, each a
    Python that imports the MCP stack): done in one test, that was 20 s of CPU, over
    pytest's 120 s guard at load 10 on two cores; shared, each test pays for its own look."""
    with module_host(tmp_path_factory.mktemp("hosts"), "host-proj") as host:
        host_project = host.projects["host-proj"]
        command = bridge_argv(host.home, host_project, host.root / "bridge.pid")
        config = write_config(
            host.root / "config.toml",
            {"box": command, "bare": ["sh", "-c", "exec cctui-not-installed bridge --start"]},
        )

        async def made() -> str:
            async with CctuiClient("box", command) as c:
                return await c.create(
                    "[[say text=hello]]", cwd=str(host_project), title="on the box"
                )

        yield Box(config, command, asyncio.run(made()))


@pytest.mark.xdist_group("cli-hosts")
def test_hosts_lists_each_host_and_how_to_fix_a_missing_one(box: Box) -> None:
    listed = cctui("--config", str(box.config), "hosts", "--json")
    assert listed.returncode == 1, listed.stderr  # one host is not reachable
    online, bare = json.loads(listed.stdout)
    assert (online["name"], online["state"], online["problem"]) == ("box", "online", None)
    assert online["version"] and online["sessions"] >= 1 and online["command"] == box.command
    assert bare["state"] == "missing" and "pipx install cctui" in bare["fix"]


@pytest.mark.xdist_group("cli-hosts")
def test_sessions_of_one_host(box: Box) -> None:
    remote = here("--config", str(box.config), "sessions", "--json", "--host", "box")
    assert remote.returncode == 0, remote.stderr
    rows = json.loads(remote.stdout)
    assert {r["host"] for r in rows} == {"box"}
    assert box.session_id in {r["session_id"] for r in rows}


@pytest.mark.xdist_group("cli-hosts")
def test_sessions_of_every_host(box: Box) -> None:
    both = here("--config", str(box.config), "sessions", "--json", "--host", "*")
    assert both.returncode == 0, both.stderr  # bare is left out, and says why on stderr
    assert "not installed" in both.stderr
    assert {r["host"] for r in json.loads(both.stdout)} <= {None, "box"}
    assert box.session_id in {
        r["session_id"] for r in json.loads(both.stdout) if r["host"] == "box"
    }


def test_the_hosts_words_without_reaching_any(tmp_path: Path) -> None:
    """Text output, an unknown host, and a host that is not there: nothing to start."""
    config = write_config(
        tmp_path / "config.toml", {"bare": ["sh", "-c", "exec cctui-not-installed bridge"]}
    )
    text = here("--config", str(config), "hosts")
    assert text.returncode == 1
    assert "bare" in text.stdout and "missing" in text.stdout
    assert "fix: install cctui on bare" in text.stdout
    failed = here("--config", str(config), "sessions", "--host", "bare")
    assert failed.returncode == 1 and "not installed" in failed.stderr
    unknown = here("--config", str(config), "sessions", "--host", "nowhere")
    assert unknown.returncode == 2 and "no host named 'nowhere'" in unknown.stderr
    local = here("--config", str(config), "sessions", "--json")
    assert local.returncode == 0 and all(r["host"] is None for r in json.loads(local.stdout))


def test_no_hosts_says_where_to_add_one_and_what_it_runs(tmp_path: Path) -> None:
    empty = tmp_path / "config.toml"
    empty.write_text("")
    said = here("--config", str(empty), "hosts")
    assert said.returncode == 0
    assert f"No hosts configured. Add one to {empty}:" in said.stdout
    assert "ssh devbox cctui bridge --start --window" in said.stdout  # the default command
    assert here("--config", str(empty), "hosts", "--json").stdout.strip() == "[]"
