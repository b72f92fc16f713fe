"""One cctui owns the sessions of a state directory at a time: a lock in that directory.

The owner holds ``fcntl.flock(LOCK_EX)`` on ``<state_dir>/owner.lock`` for its whole life
and writes into that same file who it is (pid, version, how it runs, its MCP endpoint once
it listens). The kernel drops the lock when the process dies, however it dies, so a lock is
never stale: a file left behind by a killed owner names nobody, because nobody holds it.

A port is not an owner: two cctuis could each find a free port (the second one used to take
another port and, on exit, delete the first one's server.json). Anyone else asks
:func:`find_owner`, which tries a shared lock without waiting: if it cannot get one, an
owner holds the exclusive lock and the file says who.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import cctui

LOCK_FILE = "owner.lock"
TOKEN_FILE = "token"
WINDOW_KEY_FILE = "window.key"
"""Proof that a caller is a cctui window of this user on this machine (mode 0600 in the
state dir; never printed by ``mcp-config``, so an MCP client holding the token alone cannot
answer as the human)."""
"""The MCP server's bearer token, in the state dir (mode 0600), kept across restarts."""

ATTACH_TOOL = "cctui_attach_window"
ANSWER_TOOL = "cctui_answer_as_window"
CALL_TOOL = "cctui_window_call"
"""The owner's internal tool that runs one ``CoreApi`` call for an attached window."""
KEYED_TOOLS = frozenset({ATTACH_TOOL, ANSWER_TOOL, CALL_TOOL})
"""The owner's internal window tools (``mcp_server.tools.window``): each takes the window
key, which ``cctui bridge --window`` puts into their calls. Named here, beside the key, so
the bridge knows them without importing the MCP server and the core (~0.5 s of CPU)."""

Mode = Literal["tui", "background", "serve"]
"""How the owner runs: a window (``tui``), a window's process left running headless
(``background``), or ``cctui serve --http``."""

_ACQUIRE_WINDOW_S = 0.5
"""How long acquiring retries: a reader's probe holds a shared lock for microseconds, and
must not make a starting owner believe another one runs."""
_READ_TRIES = 20


@dataclass(frozen=True)
class Owner:
    """Who owns the sessions, as the lock file says."""

    pid: int
    """The owner's process id (``cctui stop`` signals it when the endpoint does not answer)."""
    version: str
    """The owner's cctui version."""
    mode: Mode
    """How it runs (see :data:`Mode`)."""
    url: str | None
    """Its MCP endpoint (``http://127.0.0.1:PORT/mcp``), None until it listens."""
    started_at: str
    """When it took the lock (UTC, ISO 8601)."""

    def where(self) -> str:
        """``pid 123, MCP at http://…`` for messages to a person."""
        at = f"MCP at {self.url}" if self.url else "its MCP server not listening yet"
        return f"pid {self.pid}, {self.mode}, {at}"


def _lock_path(state_dir: Path) -> Path:
    return state_dir / LOCK_FILE


def _open(state_dir: Path) -> int:
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    # Not inherited by children (PEP 446): a claude holding the descriptor would keep the
    # lock after cctui died.
    return os.open(_lock_path(state_dir), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


class OwnerLock:
    """The lock held by the owner; released by :meth:`release` or by the process's death."""

    def __init__(self, fd: int, path: Path, mode: Mode) -> None:
        self._fd: int | None = fd
        self.path = path
        self._mode: Mode = mode
        self._url: str | None = None
        self._started_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        self._dir = os.stat(path.parent)
        """The state dir as it was: one deleted and made again (by this process's own next
        write) is not it."""
        self._missing = False
        """The record was missing at the last :meth:`keep`: made again at the next."""
        self._write()

    @classmethod
    def acquire(cls, state_dir: Path, mode: Mode) -> OwnerLock | None:
        """Take ownership of ``state_dir``'s sessions; None when another process owns them."""
        fd = _open(state_dir)
        try:
            if not _lock_within(fd, _ACQUIRE_WINDOW_S):
                os.close(fd)
                return None
            return cls(fd, _lock_path(state_dir), mode)
        except BaseException:
            os.close(fd)
            raise

    @property
    def held(self) -> bool:
        """True until released."""
        return self._fd is not None

    def publish(self, *, url: str | None = None, mode: Mode | None = None) -> None:
        """Say where the owner listens, or that it now runs in the background."""
        if url is not None:
            self._url = url
        if mode is not None:
            self._mode = mode
        self._write()

    def owner(self) -> Owner:
        """This process, as the lock file describes it."""
        return Owner(os.getpid(), cctui.__version__, self._mode, self._url, self._started_at)

    def _write(self) -> None:
        if self._fd is None:
            return
        me = self.owner()
        data = json.dumps(
            {
                "pid": me.pid,
                "version": me.version,
                "mode": me.mode,
                "url": me.url,
                "started_at": me.started_at,
            }
        ).encode()
        # In place, not by rename: the lock belongs to this inode. A reader that catches the
        # file half-written retries (find_owner).
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data + b"\n", 0)

    def keep(self) -> bool:
        """Whether this owner can still be found: ``owner.lock`` at its path is the file it
        holds. Removed alone (the same state dir stays, missing at two looks running), the
        record is made again and locked; lost for good (False) when the state dir went (a
        temporary HOME deleted under a background owner) or another process owns a new file
        there. An owner nobody can find cannot be
        stopped by ``cctui stop``: the caller ends itself then."""
        if self._fd is None:
            return False
        missing = False
        try:
            if _same_file(os.fstat(self._fd), os.stat(self.path)):
                self._missing = False
                return True
        except FileNotFoundError:
            missing = True
        try:
            if not _same_file(self._dir, os.stat(self.path.parent)):
                return False
            if missing and not self._missing:
                # Seen missing once: maybe the whole dir is being deleted (`rm -rf` unlinks
                # the files, then the dir). Made again now, the file would stop that rmdir
                # ("Directory not empty") and keep this owner running in a dir nobody
                # looks at; a deletion is over by the next look.
                self._missing = True
                return True
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return False
        if not _lock_within(fd, _ACQUIRE_WINDOW_S):
            os.close(fd)  # another owner holds the file now there
            return False
        old, self._fd = self._fd, fd
        self._missing = False
        os.close(old)
        self._write()
        return True

    def release(self) -> None:
        """Give ownership up (idempotent). The file stays: only holding it means anything."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing the only descriptor drops the flock


def _lock_within(fd: int, window_s: float) -> bool:
    """Take the exclusive lock on ``fd``, retrying for ``window_s``; False when held."""
    deadline = time.monotonic() + window_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def owner_pids(state_dir: Path) -> set[int]:
    """Every process holding an owner lock of ``state_dir``: the one :func:`find_owner` names,
    and any that lost its record (its ``owner.lock`` was removed or replaced while it ran, so
    the file there names someone else or nobody). Read from ``/proc/locks`` and each locker's
    open files (Linux; elsewhere only the recorded owner). A reader probing the file holds a
    shared lock, never an exclusive one, so it is not counted."""
    found: set[int] = set()
    owner = find_owner(state_dir)
    if owner is not None and owner.pid > 0:
        found.add(owner.pid)
    paths = {str(_lock_path(state_dir)), os.path.realpath(_lock_path(state_dir))}
    for pid, path in _lockers():
        if path.removesuffix(_DELETED) in paths:
            found.add(pid)
    return found


def owners_elsewhere(state_dir: Path) -> dict[int, str]:
    """This user's cctui owners of other state dirs (pid -> that dir, `` (deleted)`` when it
    is gone): what ``cctui stop`` names when it finds none here (another HOME or
    ``XDG_STATE_HOME``, a temporary HOME)."""
    mine = {str(_lock_path(state_dir)), os.path.realpath(_lock_path(state_dir))}
    found: dict[int, str] = {}
    for pid, path in _lockers():
        bare = path.removesuffix(_DELETED)
        if bare not in mine and bare.endswith(f"/cctui/{LOCK_FILE}"):
            found[pid] = str(Path(bare).parent) + path[len(bare) :]
    return found


_DELETED = " (deleted)"
"""How ``/proc/PID/fd`` names a file removed while open."""


def _lockers() -> list[tuple[int, str]]:
    """(pid, path) of every ``owner.lock`` held exclusively by another process of this user
    (``/proc/locks`` and the holder's open files; Linux, else nothing)."""
    try:
        locks = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    held: list[tuple[int, str]] = []
    for line in locks.splitlines():
        fields = line.split()
        if "->" in fields or "FLOCK" not in fields or "WRITE" not in fields:
            continue  # a waiter, a POSIX lock, or a shared one
        try:
            pid = int(fields[fields.index("WRITE") + 1])
        except (IndexError, ValueError):
            continue
        if pid != os.getpid():
            held += [(pid, path) for path in _open_locks(pid)]
    return held


def _open_locks(pid: int) -> list[str]:
    """The ``owner.lock`` files ``pid`` has open (none when gone, or another user's)."""
    try:
        entries = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return []
    paths: list[str] = []
    for fd in entries:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.removesuffix(_DELETED).endswith(f"/{LOCK_FILE}"):
            paths.append(target)
    return paths


def find_owner(state_dir: Path) -> Owner | None:
    """The process owning ``state_dir``'s sessions, or None when nobody holds the lock."""
    path = _lock_path(state_dir)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # held exclusively: an owner runs
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        for _ in range(_READ_TRIES):
            owner = _parse(os.pread(fd, 4096, 0))
            if owner is not None:
                return owner
            time.sleep(0.01)
        # Held, but the owner has not said who it is yet (it is writing the file).
        return Owner(0, "?", "tui", None, "")
    finally:
        os.close(fd)


def _parse(raw: bytes) -> Owner | None:
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    pid, url, mode = data.get("pid"), data.get("url"), data.get("mode")
    if not isinstance(pid, int) or mode not in ("tui", "background", "serve"):
        return None
    return Owner(
        pid=pid,
        version=str(data.get("version", "?")),
        mode=mode,
        url=url if isinstance(url, str) else None,
        started_at=str(data.get("started_at", "")),
    )


def owner_endpoint(state_dir: Path) -> tuple[str, str] | None:
    """The owner's MCP URL and bearer token, or None when no owner listens."""
    owner = find_owner(state_dir)
    if owner is None or owner.url is None:
        return None
    try:
        token = (state_dir / TOKEN_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return (owner.url, token) if token else None


def window_key(state_dir: Path, *, create: bool = False) -> str | None:
    """The window key (made, 0600, when ``create`` and missing); None when there is none."""
    path = state_dir / WINDOW_KEY_FILE
    try:
        key = path.read_text(encoding="utf-8").strip()
    except OSError:
        key = ""
    if key or not create:
        return key or None
    import secrets

    key = secrets.token_urlsafe(32)
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(key + "\n")
    return key
