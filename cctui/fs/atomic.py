"""Atomic file writes and ``fcntl`` locks: the one way cctui replaces a file on disk.

A write goes to a temporary file beside the target (``.<name>.<random>.tmp``), is fsynced and
``os.replace``d, so a reader or a crash sees the old file or the new one, never half of one.
``cctui.fs.safepath`` writes inside a caller's root through directory file descriptors
instead (it must not follow symbolic links) and shares only ``flocked`` from here.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def flocked(fd: int) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the open descriptor ``fd`` for the block."""
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def locked(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path`` (created 0600, with its directory).

    Raises:
        OSError: the directory or the lock file cannot be created.
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        with flocked(fd):
            yield
    finally:
        os.close(fd)


def temp_name(path: Path) -> Path:
    """The temporary file ``write_atomic`` uses for ``path`` (matches ``temp_glob``)."""
    return path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")


def temp_glob(path: Path) -> str:
    """A glob, relative to ``path.parent``, for temp files of writers killed mid-write."""
    return f".{path.name}.*.tmp"


def write_atomic(
    path: Path, data: bytes | str, *, mode: int = 0o600, sync_dir: bool = False
) -> None:
    """Replace ``path`` with ``data`` (str is UTF-8) atomically, with permission bits ``mode``.

    ``sync_dir`` also fsyncs the directory, so the rename itself survives a power cut.

    Raises:
        OSError: the file cannot be written; the temp file is removed first.
    """
    body = data.encode("utf-8") if isinstance(data, str) else data
    tmp = temp_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)  # the umask may have narrowed the bits os.open was given
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if sync_dir:
        dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def append_line(path: Path, line: bytes, *, mode: int = 0o600) -> None:
    """Append ``line`` (ending in a newline) to ``path`` in one ``O_APPEND`` write: a reader,
    or another process appending to the same file, sees it whole or not at all. The file
    (``mode``) and its directory are created when missing.

    Raises:
        OSError: the file cannot be opened or written.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, mode)
    except FileNotFoundError:  # the directory, made on the first line (not checked on each)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, mode)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
