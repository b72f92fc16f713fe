"""The index build's worker process starts under the TUI too, where ``sys.stderr`` is
Textual's capture (``fileno()`` -1): the pool's resource tracker used to be handed that fd
and the build failed ("history not watched (ValueError)" on a large home)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent / "samples"


@pytest.mark.process
def test_the_worker_prepares_a_file_while_stderr_is_a_capture() -> None:
    sample = next(p for p in sorted(SAMPLES.rglob("*.jsonl")))
    code = textwrap.dedent(
        f"""
        import sys
        from cctui.history.prepare import Prefetch

        class Capture:  # as Textual's: no file behind it
            def write(self, text): return len(text)
            def flush(self): pass
            def fileno(self): return -1

        sys.stderr = Capture()
        worker = Prefetch(thinking=False)
        worker._warm.result()  # started (until then the writer reads files itself)
        worker.feed([({str(sample)!r}, "s1", "main", 1)])
        prepared = worker.take({str(sample)!r})
        worker.close()
        print("prepared" if prepared is not None else "not prepared")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "prepared", out.stdout + out.stderr
