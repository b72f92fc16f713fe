"""A link that drops mid-request: ``cut_link.py MARKER WORD CMD...`` runs CMD (a bridge) and
passes its stdin and stdout on line by line; the first request holding WORD goes through,
its answer never comes back, and a second later (the host has acted on it) CMD is killed:
the SSH link dropping with a request in flight. MARKER (a file) makes it happen once: the
link's next run passes everything."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

marker, word, command = Path(sys.argv[1]), sys.argv[2].encode(), sys.argv[3:]
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
assert child.stdin is not None and child.stdout is not None
cut = threading.Event()


def answers() -> None:
    assert child.stdout is not None
    for line in child.stdout:
        if cut.is_set():
            return
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()


threading.Thread(target=answers, daemon=True).start()
for line in sys.stdin.buffer:
    if word in line and not marker.exists():
        marker.write_text("cut")
        cut.set()
        child.stdin.write(line)
        child.stdin.flush()
        time.sleep(1.0)
        child.kill()
        os._exit(1)
    child.stdin.write(line)
    child.stdin.flush()
child.stdin.close()
sys.exit(child.wait())
