"""Reading files in bounded pieces: a caller never makes cctui hold a whole file.

``read_lines`` streams a line range of a text file inside a root (a range deep in a 2 GB log
costs what the range costs; without a range at most ``MAX_READ_BYTES`` are returned and the
result says there is more). ``read_head`` reads the start of an open file up to a number of
characters, for the rooms that paste files into a prompt (context sync, the review menu).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from cctui.errors import ValidationFailed
from cctui.fs.errors import BinaryFile
from cctui.fs.safepath import open_read

MAX_READ_BYTES = 256 * 1024
"""Most text one read returns; ask for a line range to go further."""
SNIFF_BYTES = 8192
SKIP_BLOCK = 1 << 20


@dataclass(frozen=True)
class ReadResult:
    """A slice of a text file."""

    path: Path
    content: str
    start_line: int
    end_line: int
    """Last line returned (``start_line - 1`` when nothing was)."""
    total_lines: int | None
    """Known when the read reached the end of the file."""
    size: int
    truncated: bool
    """The byte cap cut the range short."""
    has_more: bool
    """Lines exist after ``end_line``."""
    note: str | None = None
    """Set when the range starts past the end of the file (nothing returned): says so, with
    the file's line count."""


def has_nul(head: bytes) -> bool:
    """A NUL in the first ``SNIFF_BYTES``: binary to every reader (text never has one)."""
    return b"\x00" in head[:SNIFF_BYTES]


def _looks_binary(head: bytes) -> bool:
    """A NUL, or bytes that are not UTF-8: what ``read_lines`` will not return as text."""
    if has_nul(head):
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(head, final=False)  # a cut multi-byte char at the end is fine
    except UnicodeDecodeError:
        return True
    return False


def _skip_lines(fh: BinaryIO, count: int) -> int:
    """Move past ``count`` lines reading 1 MB blocks (counting newlines in C, not per
    line in Python); returns how many lines were skipped (fewer at the end of the file)."""
    skipped = 0
    pos = fh.tell()
    partial = False  # the bytes read so far end inside a line
    while skipped < count:
        block = fh.read(SKIP_BLOCK)
        if not block:
            skipped += partial  # a last line without a newline is a line too
            break
        need = count - skipped
        found = block.count(b"\n")
        if found < need:
            skipped += found
            pos += len(block)
            partial = not block.endswith(b"\n")
            continue
        idx = -1
        for _ in range(need):
            idx = block.index(b"\n", idx + 1)
        skipped += need
        pos += idx + 1
        break
    fh.seek(pos)
    return skipped


def read_lines(
    root: Path, rel: str, start_line: int | None = None, end_line: int | None = None
) -> ReadResult:
    """Lines ``start_line..end_line`` (1-indexed, inclusive) of a text file inside ``root``."""
    start = start_line or 1
    if start < 1 or (end_line is not None and end_line < start):
        raise ValidationFailed(
            f"Bad line range {start_line}..{end_line}.",
            suggestion="startLine >= 1 and endLine >= startLine (both 1-indexed).",
        )
    with open_read(root, rel) as (path, fh, st):
        head = fh.read(SNIFF_BYTES)
        if _looks_binary(head):
            raise BinaryFile(
                f"{rel} is a binary file ({st.st_size} bytes); only text files can be read.",
                suggestion="Read a text file, or use the files resource for its size.",
            )
        fh.seek(0)
        line_no = _skip_lines(fh, start - 1)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        kept: list[str] = []
        kept_bytes = 0
        last = start - 1
        at_line_start = True
        truncated = False
        reached_end = True
        while True:
            # Bounded reads: one huge line (minified JS, a log) is never held whole.
            raw = fh.readline(MAX_READ_BYTES)
            if not raw:
                break
            if at_line_start:
                line_no += 1
            at_line_start = raw.endswith(b"\n")
            if line_no < start:
                continue
            if end_line is not None and line_no > end_line:
                reached_end = False
                break
            if kept_bytes + len(raw) > MAX_READ_BYTES:
                truncated = True
                reached_end = False
                break
            kept.append(decoder.decode(raw))
            kept_bytes += len(raw)
            last = line_no
        kept.append(decoder.decode(b"", final=True))
        note = None
        if reached_end and line_no < start and start > 1:  # line_no: the file's line count
            lines = "1 line" if line_no == 1 else f"{line_no} lines"
            note = f"{rel} has {lines}; startLine {start} is past its end, so nothing was returned."
        return ReadResult(
            path=path,
            content="".join(kept),
            start_line=start,
            end_line=last,
            total_lines=line_no if reached_end else None,
            size=st.st_size,
            truncated=truncated,
            has_more=not reached_end,
            note=note,
        )


@dataclass(frozen=True)
class TextHead:
    """The start of a file, as text."""

    text: str
    """Up to the asked number of characters (invalid UTF-8 replaced); empty when binary."""
    truncated: bool
    """The file has more than ``text``."""
    binary: bool
    """A NUL in the first ``SNIFF_BYTES``: ``text`` is left empty."""


def read_head(fh: BinaryIO, max_chars: int) -> TextHead:
    """At most ``max_chars`` characters from the start of ``fh``.

    Reads no more than those characters can take (4 bytes each in UTF-8) plus one byte to
    tell a longer file, so a huge log is never read whole.
    """
    data = fh.read(max_chars * 4 + 1)
    if has_nul(data):
        return TextHead("", truncated=False, binary=True)
    text = data.decode("utf-8", errors="replace")
    if len(text) > max_chars:
        return TextHead(text[:max_chars], truncated=True, binary=False)
    return TextHead(text, truncated=False, binary=False)
