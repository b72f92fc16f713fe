"""stdin and stdout for the mcp SDK's stdio transport, read and written on the event loop.

``mcp.server.stdio.stdio_server`` reads stdin and writes stdout through ``anyio.wrap_file``:
every request line read, and every message written and then flushed, is a trip to a worker
thread and back. A trivial tool call over stdio took 1.88 ms that way and 1.35 ms on the
loop (median of 1,400 interleaved calls, stop 37), and the gap widens while a ``claude``
process holds a core. ``stdio_server`` takes its two streams as arguments; here they are the
same descriptors, non-blocking, read and written when the loop sees them ready.

While serving, fd 0 reads the null device and fd 1 writes to stderr, as the SDK's own claim
does: a child that inherits them, or a stray print, cannot write into the JSON-RPC stream.
That path is taken only where both are pipes or sockets on a POSIX system; anything else (a
terminal, a regular file, Windows) gets the SDK's default streams.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

CHUNK = 1 << 16
"""Bytes read at a time; a longer line is read in several (lines have no length limit)."""


class LineReader:
    """stdin's lines, as the SDK's reader iterates a text file: decoded, newline kept."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._scanned = 0
        """How much of the buffer is known to hold no newline (a long line is not rescanned
        from its start on every chunk)."""

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        while (end := self._buffer.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self._buffer)
            chunk = await self._read()
            if not chunk:  # end of input: what is left is the last line
                if not self._buffer:
                    raise StopAsyncIteration
                end = len(self._buffer) - 1
                break
            self._buffer += chunk
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        self._scanned = 0
        return line.decode("utf-8", errors="replace")

    async def _read(self) -> bytes:
        while True:
            try:
                return os.read(self._fd, CHUNK)
            except BlockingIOError:
                await anyio.wait_readable(self._fd)


class LineWriter:
    """stdout as the SDK's writer uses a text file: ``write`` then ``flush``."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, text: str) -> None:
        """Write all of ``text``, waiting while the pipe is full (the reader's pace)."""
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                data = data[os.write(self._fd, data) :]
            except BlockingIOError:
                await anyio.wait_writable(self._fd)

    async def flush(self) -> None:
        """Nothing to do: ``write`` returns once the kernel has every byte."""


def _pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _divert(fd: int, target: int) -> None:
    """Point ``fd`` at ``target`` (or at the null device if that fails)."""
    try:
        os.dup2(target, fd)
    except OSError:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, fd)
        os.close(null)


@contextlib.contextmanager
def _claimed() -> Any:
    """Private non-blocking copies of fd 0 and 1; the originals diverted until exit."""
    sys.stdout.flush()
    wire_in = os.dup(0)  # not inherited by children (os.dup's default)
    wire_out = os.dup(1)
    for fd in (wire_in, wire_out):
        os.set_blocking(fd, False)
    null = os.open(os.devnull, os.O_RDONLY)
    _divert(0, null)
    os.close(null)
    _divert(1, 2)
    try:
        yield wire_in, wire_out
    finally:
        sys.stdout.flush()
        for fd, wire in ((0, wire_in), (1, wire_out)):
            # The flag belongs to the pipe, which the process that started us may share.
            os.set_blocking(wire, True)
            os.dup2(wire, fd)
            os.close(wire)


@contextlib.asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """``stdio_server``'s read and write streams, on the loop where stdin and stdout allow."""
    if sys.platform == "win32" or not (_pipe_or_socket(0) and _pipe_or_socket(1)):
        async with stdio_server() as streams:
            yield streams
        return
    with _claimed() as (wire_in, wire_out):
        stdin: Any = LineReader(wire_in)  # the SDK types them as anyio.AsyncFile[str]
        stdout: Any = LineWriter(wire_out)
        async with stdio_server(stdin, stdout) as streams:
            yield streams
