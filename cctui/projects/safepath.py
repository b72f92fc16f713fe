"""Paths inside a project root, and nothing else.

A caller's relative path is checked as text first (no NUL, control or bidirectional
control characters, no absolute or ``~`` paths, no backslashes, no ``..``, no
percent-encodings, no Unicode lookalikes of ``.``, ``/`` or ``\\``, sane lengths), then
resolved with ``realpath`` and required to stay under the root's own realpath: a symlink
anywhere on the way that points out is refused, one that points to another place inside
is followed. ``.git`` is git's and refused in any case (macOS and Windows filesystems
open ``.GIT`` as ``.git``), and a file with several hard links is never read (its other
name may be outside the root).

Opening never trusts that check alone (a symlink could be swapped in between): every
component of the resolved path is opened relative to its parent directory's descriptor
with ``O_NOFOLLOW``, so a link appearing after the check makes the open fail instead of
leaving the root. Writes go to a temporary file in the target directory, are fsynced and
``os.replace``d under an ``flock`` on that directory, so readers see the old or the new
file, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from cctui.files import flocked
from cctui.projects.errors import (
    FileAlreadyExists,
    NotAFile,
    PathNotAccessible,
    PathNotFound,
    PathOutsideProject,
)

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
# Characters that look like (or normalise to) a dot, slash or backslash: a name built from
# them reads as a traversal to a human even where the filesystem would not follow it.
_LOOKALIKES = frozenset(
    "\u2024\u2025\u2026\u2027\u2215\u2044\u2216\u29f5\u29f8\u29f9\u0338\u2052"
    "\uff0e\uff0f\uff3c\ufe52\ufe68\u3002\uff61\u2e31"
)
# Bidirectional overrides, isolates and marks (LRM, RLM, ALM): they make a name display in
# another order than it is stored ("docs/\u202etxt.exe" shows as "docs/exe.txt"), or
# invisibly different from a name it looks identical to.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
# Code points HFS+ ignores in names (git's is_hfs_dotgit list): on macOS ".g\u200cit" is ".git".
_HFS_IGNORED = dict.fromkeys(
    map(
        ord,
        "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
        "\u206a\u206b\u206c\u206d\u206e\u206f\ufeff",
    ),
)
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
_DRIVE = re.compile(r"^[A-Za-z]:")

WriteMode = Literal["create", "overwrite", "append"]


def _refuse(rel: str, why: str) -> PathOutsideProject:
    shown = rel.encode("unicode_escape").decode("ascii")
    if len(shown) > 120:
        shown = shown[:117] + "..."
    return PathOutsideProject(
        f"Path {shown!r} refused: {why}.",
        suggestion="Give a plain relative path inside the project, e.g. 'docs/spec.md'.",
    )


def check_relative(rel: str) -> tuple[str, ...]:
    """The components of ``rel`` if it is an acceptable relative path; raises otherwise."""
    if not isinstance(rel, str) or not rel.strip():
        raise _refuse(str(rel), "it is empty")
    if "\x00" in rel:
        raise _refuse(rel, "it contains a NUL byte")
    # C0, DEL and C1 (U+0080-U+009F: U+009B is a terminal's CSI, as ESC [ is).
    if any(ord(c) < 32 or 127 <= ord(c) <= 159 for c in rel):
        raise _refuse(rel, "it contains control characters")
    if len(rel.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise _refuse(rel, f"it is longer than {MAX_PATH_BYTES} bytes")
    if rel.startswith("/") or _DRIVE.match(rel):
        raise _refuse(rel, "absolute paths are not allowed")
    if rel.startswith("~"):
        raise _refuse(rel, "home-directory paths are not allowed")
    if "\\" in rel:
        raise _refuse(rel, "backslashes are not allowed")
    if _PERCENT.search(rel):
        raise _refuse(rel, "percent-encoded characters are not allowed")
    for ch in rel:
        if ch in _BIDI:
            raise _refuse(rel, f"it contains {unicodedata.name(ch)}, a bidirectional control")
        if ch in _LOOKALIKES or (
            ord(ch) > 127 and any(c in "./\\" for c in unicodedata.normalize("NFKC", ch))
        ):
            raise _refuse(rel, f"it contains {unicodedata.name(ch, hex(ord(ch)))}, a lookalike")
        if 0xD800 <= ord(ch) <= 0xDFFF:
            raise _refuse(rel, "it is not valid Unicode")
    parts = []
    for part in rel.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            raise _refuse(rel, "'..' is not allowed")
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise _refuse(rel, f"a name is longer than {MAX_NAME_BYTES} bytes")
        parts.append(part)
    if not parts:
        raise _refuse(rel, "it names the project root itself")
    return tuple(parts)


def real_root(root: Path | str) -> Path:
    """The root's realpath; it must be an existing directory."""
    real = Path(os.path.realpath(root))
    if not real.is_dir():
        raise PathNotFound(f"Project root {root} is not an existing directory.")
    return real


def resolve_inside(root: Path | str, rel: str) -> tuple[Path, tuple[str, ...]]:
    """``(absolute path, components under the real root)`` for ``rel``; refuses escapes.

    Existing symlinks on the way are followed and must land inside the root; components
    that do not exist yet are kept as given.
    """
    parts = check_relative(rel)
    base = real_root(root)
    target = Path(os.path.realpath(base.joinpath(*parts)))
    if target == base:
        raise _refuse(rel, "it names the project root itself")
    if not target.is_relative_to(base):
        raise _refuse(rel, "it resolves outside the project root")
    inside = target.relative_to(base).parts
    if any(_is_dotgit(p) for p in (*inside, *parts)):
        # Hooks there run code and config there holds remotes (tokens): git's, not ours.
        raise _refuse(rel, "'.git' belongs to git and is not readable or writable here")
    return target, inside


def fold_name(name: str) -> str:
    """``name`` as a case-insensitive filesystem (macOS, Windows) compares it: names with
    the same fold may open the same file there."""
    return name.translate(_HFS_IGNORED).casefold()


def _is_dotgit(name: str) -> bool:
    return fold_name(name) == ".git"


def _os_error(exc: OSError, shown: str) -> Exception:
    if isinstance(exc, FileNotFoundError):
        return PathNotFound(f"{shown} does not exist.")
    if isinstance(exc, PermissionError):
        return PathNotAccessible(f"{shown}: permission denied.")
    if exc.errno in (40, 20):  # ELOOP, ENOTDIR: a component changed into a link or a file
        return PathOutsideProject(f"{shown}: a component is not a plain directory (link?).")
    return PathNotAccessible(f"{shown}: {exc.strerror}.")


@contextlib.contextmanager
def _dir_fd(base: Path, parts: tuple[str, ...], create: bool) -> Iterator[int]:
    """A descriptor of ``base/parts...``, each step opened with ``O_NOFOLLOW``."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(base, flags)
    try:
        for part in parts:
            try:
                nxt = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                nxt = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def open_read(root: Path | str, rel: str) -> Iterator[tuple[Path, BinaryIO, os.stat_result]]:
    """Open a regular file inside the root for reading: ``(path, binary file, stat)``."""
    target, parts = resolve_inside(root, rel)
    base = real_root(root)
    try:
        with _dir_fd(base, parts[:-1], create=False) as dfd:
            fd = os.open(
                parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd
            )
    except OSError as exc:
        raise _os_error(exc, rel) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotAFile(f"{rel} is not a regular file.", suggestion="Read a file, not a directory.")
    if st.st_nlink > 1:
        # Another name for the same inode may live outside the root (``ln /etc/x proj/y``);
        # no path check can tell, so a file with several names is not read at all.
        os.close(fd)
        raise PathOutsideProject(
            f"{rel} has {st.st_nlink} hard links; a hard-linked file may be a file from "
            "outside the project, so it is not read.",
            suggestion="Copy the file into the project (cp, not ln) to make it readable here.",
        )
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as fh:
        yield target, fh, st


def exists(root: Path | str, rel: str) -> bool:
    """True when ``rel`` (checked like any other path) names something that exists."""
    target, _ = resolve_inside(root, rel)
    return os.path.lexists(target)


@dataclass(frozen=True)
class WriteResult:
    """What a write did."""

    path: Path
    action: Literal["created", "overwritten", "appended"]
    bytes: int
    """Bytes written by this call (for an append: the appended part)."""
    note: str | None = None
    """Something the caller should know although the write succeeded."""


def write_file(
    root: Path | str, rel: str, data: bytes, *, mode: WriteMode, create_dirs: bool = True
) -> WriteResult:
    """Write ``data`` to ``rel`` atomically (temp file, fsync, ``os.replace``) under a lock.

    ``create`` refuses an existing file (``FileAlreadyExists``); ``append`` copies the old
    content into the new file first, so a crash leaves the old file or the whole new one.
    """
    target, parts = resolve_inside(root, rel)
    base = real_root(root)
    name = parts[-1]
    try:
        with _dir_fd(base, parts[:-1], create=create_dirs) as dfd, flocked(dfd):
            return _write_in(dfd, target, name, data, mode, rel)
    except FileNotFoundError:
        raise PathNotFound(
            f"The parent directory of {rel} does not exist.",
            suggestion="Pass createDirs=true to create it.",
        ) from None
    except OSError as exc:
        raise _os_error(exc, rel) from None


def _write_in(
    dfd: int, target: Path, name: str, data: bytes, mode: WriteMode, rel: str
) -> WriteResult:
    try:
        old = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    if old is not None:
        if stat.S_ISLNK(old.st_mode):
            raise PathOutsideProject(f"{rel} became a symbolic link; refused.")
        if not stat.S_ISREG(old.st_mode):
            raise NotAFile(f"{rel} exists and is not a regular file.")
        if mode == "append" and old.st_nlink > 1:
            # Appending copies the old content into the new file: from a hard link to a
            # file outside the root, that would copy the outside file in (see open_read).
            raise PathOutsideProject(
                f"{rel} has {old.st_nlink} hard links; appending to it would copy a file "
                "that may live outside the project.",
                suggestion="Pass overwrite=true to replace it, or write another file.",
            )
        if mode == "create":
            raise FileAlreadyExists(
                f"{rel} already exists.",
                suggestion="Pass overwrite=true, or choose another path.",
            )
    tmp = f".cctui-{secrets.token_hex(8)}.tmp"
    perms = stat.S_IMODE(old.st_mode) if old is not None else 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, perms, dir_fd=dfd)
    try:
        with os.fdopen(fd, "wb") as out:
            if mode == "append" and old is not None:
                src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
                with os.fdopen(src, "rb") as fh:
                    while chunk := fh.read(1 << 20):
                        out.write(chunk)
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        raise
    os.fsync(dfd)  # the rename itself survives a power cut
    if old is None:
        action: Literal["created", "overwritten", "appended"] = "created"
    else:
        action = "appended" if mode == "append" else "overwritten"
    return WriteResult(path=target, action=action, bytes=len(data))
