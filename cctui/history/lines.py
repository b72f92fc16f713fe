"""Complete lines of a growing JSONL file, from a byte offset, in bounded memory.

A transcript can be 60 MB and a single line (a whole API request) several MB; reading it
whole, or with ``readline()`` that keeps any line entire, would make the indexer's memory grow
with the input. Here the file is read in fixed chunks; a line longer than ``max_line`` is
dropped as it streams past (reported as ``None`` so the caller counts it), and a last line
without its newline (the CLI still writing it) is not returned at all: the caller's offset
stays before it and the next pass reads it complete.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import BinaryIO

CHUNK = 1 << 20


def complete_lines(
    fh: BinaryIO, offset: int, *, max_line: int, chunk: int = CHUNK
) -> Generator[tuple[int, bytes | None], None, None]:
    """``(end, line)`` for each complete line after ``offset``; ``end`` is just past its ``\\n``.

    ``line`` excludes the newline; it is ``None`` for a line longer than ``max_line`` bytes.
    """
    fh.seek(offset)
    buf = bytearray()
    pos = offset  # file offset of buf[0]
    dropping = False  # inside an oversized line, discarding until its newline
    while True:
        data = fh.read(chunk)
        if not data:
            return
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                if not dropping:
                    buf += data[start:]
                    if len(buf) > max_line:
                        dropping = True
                        pos += len(buf)
                        buf.clear()
                else:
                    pos += len(data) - start
                break
            end = pos + len(buf) + (nl - start) + 1
            if dropping:
                dropping = False
                yield end, None
            else:
                if buf:
                    buf += data[start:nl]
                    line = bytes(buf)
                    buf.clear()
                else:
                    line = data[start:nl]
                yield end, (line if len(line) <= max_line else None)
            pos = end
            start = nl + 1
