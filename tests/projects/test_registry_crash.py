"""kill -9 in the middle of registry writes never leaves a broken registry."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import time
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

from cctui.projects.registry import ProjectRegistry

ITERATIONS = 100


def _write_forever(registry_path: str, root: str, seed: int, writing: Event) -> None:
    registry = ProjectRegistry(Path(registry_path))
    n = 0
    while True:
        n += 1
        # Varying sizes, so a torn write would show as truncated or trailing garbage.
        name = f"project {seed}-{n} " + "x" * random.randint(0, 4000)
        registry.register(name, root, project_id=f"p{n % 7}", overwrite=True)
        writing.set()


@pytest.mark.slow
def test_kill_9_during_writes_leaves_old_or_new_file(tmp_path: Path) -> None:
    path = tmp_path / "projects.json"
    root = tmp_path / "root"
    root.mkdir()
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(1234)
    seen_versions: set[str] = set()
    for i in range(ITERATIONS):
        writing = ctx.Event()
        proc = ctx.Process(
            target=_write_forever, args=(str(path), str(root), i, writing), daemon=True
        )
        proc.start()
        # Killed once it is writing (a loaded machine may start it late), a random moment
        # into its stream of writes.
        assert writing.wait(60), "the writer never wrote"
        time.sleep(rng.uniform(0.0, 0.01))
        assert proc.pid is not None
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(10)
        assert proc.exitcode == -signal.SIGKILL
        data = json.loads(path.read_text())  # never torn
        registry = ProjectRegistry(path)
        projects = registry.all()  # every entry still validates
        assert all(p.root_path == str(root.resolve()) for p in projects)
        seen_versions.add(json.dumps(data, sort_keys=True))
    assert len(seen_versions) > ITERATIONS / 2  # the kills landed during a stream of writes
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # A killed writer may leave its temp file; the next writer sweeps it (under the lock).
    assert len(leftovers) <= 1 and all(n.startswith(".projects.json.") for n in leftovers)
    ProjectRegistry(path).register("after", str(root), project_id="after", overwrite=True)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
