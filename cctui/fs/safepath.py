"""Paths inside a root, and nothing else: cctui's one path policy.

Every room that takes a path from a caller (project files, context sync, the review menu)
checks it here, so a path one of them refuses the others refuse too.

A caller's path is checked as text first (no NUL, control or bidirectional control
characters, no ``~`` paths, no backslashes, no ``..``, no percent-encodings, no Unicode
lookalikes of ``.``, ``/`` or ``\\``, sane lengths; ``resolve_inside`` also refuses
absolute paths), then resolved with ``realpath`` and required to stay under the root's own
realpath: a symlink anywhere on the way that points out is refused, one that points to
another place inside is followed. ``.git`` is git's and refused in any case (macOS and
Windows filesystems open ``.GIT`` as ``.git``), and a file with several hard links is never
read (its other name may be outside the root).

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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from cctui.fs.atomic import flocked
from cctui.fs.errors import (
    FileAlreadyExists,
    NotAFile,
    PathNotAccessible,
    PathNotFound,
    PathRefused,
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
# One wording wherever the root is (a project, a session's working directory, a review
# root): front ends match on the code, people on the words.
_OUTSIDE = "it resolves outside the project root"
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
_DRIVE = re.compile(r"^[A-Za-z]:")

WriteMode = Literal["create", "overwrite", "append"]


def shown(raw: str) -> str:
    """``raw`` made printable (escapes for control and bidi characters) and cut to 120
    characters: a refused path is quoted in messages and logs without acting on a terminal."""
    text = raw.encode("unicode_escape").decode("ascii")
    return text[:117] + "..." if len(text) > 120 else text


def _refuse(rel: str, why: str) -> PathRefused:
    return PathRefused(
        f"Path {shown(rel)!r} refused: {why}.",
        why=why,
        suggestion="Give a plain relative path inside the project, e.g. 'docs/spec.md'.",
    )


def _check_text(raw: str, *, absolute: bool) -> tuple[str, ...]:
    """The components of ``raw`` if its text is acceptable; raises ``PathRefused``.

    ``absolute`` accepts a leading ``/`` (where it lands is for the caller to check).
    """
    if not isinstance(raw, str) or not raw.strip():
        raise _refuse(str(raw), "it is empty")
    if "\x00" in raw:
        raise _refuse(raw, "it contains a NUL byte")
    # C0, DEL and C1 (U+0080-U+009F: U+009B is a terminal's CSI, as ESC [ is).
    if any(ord(c) < 32 or 127 <= ord(c) <= 159 for c in raw):
        raise _refuse(raw, "it contains control characters")
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise _refuse(raw, f"it is longer than {MAX_PATH_BYTES} bytes")
    if _DRIVE.match(raw) or (raw.startswith("/") and not absolute):
        raise _refuse(raw, "absolute paths are not allowed")
    if raw.startswith("~"):
        raise _refuse(raw, "home-directory paths are not allowed")
    if "\\" in raw:
        raise _refuse(raw, "backslashes are not allowed")
    if _PERCENT.search(raw):
        raise _refuse(raw, "percent-encoded characters are not allowed")
    for ch in raw:
        if ch in _BIDI:
            raise _refuse(raw, f"it contains {unicodedata.name(ch)}, a bidirectional control")
        if ch in _LOOKALIKES or (
            ord(ch) > 127 and any(c in "./\\" for c in unicodedata.normalize("NFKC", ch))
        ):
            raise _refuse(raw, f"it contains {unicodedata.name(ch, hex(ord(ch)))}, a lookalike")
        if 0xD800 <= ord(ch) <= 0xDFFF:
            raise _refuse(raw, "it is not valid Unicode")
    parts = []
    for part in raw.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            raise _refuse(raw, "'..' is not allowed")
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise _refuse(raw, f"a name is longer than {MAX_NAME_BYTES} bytes")
        parts.append(part)
    return tuple(parts)


def check_relative(rel: str) -> tuple[str, ...]:
    """The components of ``rel`` if it is an acceptable relative path below a root (not
    the root itself); raises ``PathRefused`` otherwise."""
    parts = _check_text(rel, absolute=False)
    if not parts:
        raise _refuse(rel, "it names the project root itself")
    return parts


def real_root(root: Path | str) -> Path:
    """The root's realpath; it must be an existing directory."""
    real = Path(os.path.realpath(root))
    if not real.is_dir():
        raise PathNotFound(f"Project root {root} is not an existing directory.")
    return real


def within(path: Path | str, roots: Iterable[Path | str]) -> bool:
    """``path`` (its realpath) is one of ``roots`` or below one (theirs); a root that does
    not exist holds nothing."""
    real = Path(os.path.realpath(path))
    for root in roots:
        base = Path(os.path.realpath(Path(root).expanduser()))
        if base.is_dir() and real.is_relative_to(base):
            return True
    return False


def _inside(base: Path, target: Path, given: tuple[str, ...], raw: str) -> tuple[str, ...]:
    """``target``'s components under ``base`` (both real); refuses ``.git`` on the way."""
    inside = target.relative_to(base).parts
    if any(_is_dotgit(p) for p in (*inside, *given)):
        # Hooks there run code and config there holds remotes (tokens): git's, not ours.
        raise _refuse(raw, "'.git' belongs to git and is not readable or writable here")
    return inside


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
        raise _refuse(rel, _OUTSIDE)
    return target, _inside(base, target, parts, rel)


@dataclass(frozen=True)
class Located:
    """Where a caller's path landed: inside ``root``, links resolved."""

    path: Path
    """Absolute, every symlink resolved (open it with ``open_resolved``)."""
    root: Path
    """The innermost allowed root (its realpath) that holds ``path``."""
    parts: tuple[str, ...]
    """``path``'s components under ``root``; empty when it is the root itself."""

    @property
    def rel(self) -> str:
        """``path`` relative to ``root``, ``/``-separated (``.`` for the root)."""
        return "/".join(self.parts) or "."


def locate(raw: str, roots: Iterable[Path | str], *, base: Path | None = None) -> Located:
    """Where ``raw`` lands if inside one of ``roots``: the text rules of ``check_relative``
    (absolute paths accepted), then ``realpath``, then containment and ``.git``.

    A relative ``raw`` is taken against ``base`` (default: the first root). A root itself
    is accepted (a working directory, a listing); whether the path exists is not checked.

    Raises:
        PathRefused: the text breaks a rule, or the path resolves outside every root.
    """
    given = _check_text(raw, absolute=True)
    reals = [Path(os.path.realpath(r)) for r in roots]
    anchor = base if base is not None else (reals[0] if reals else None)
    candidate = Path(raw) if raw.startswith("/") else None
    if candidate is None:
        if anchor is None:
            raise _refuse(raw, _OUTSIDE)
        candidate = anchor.joinpath(*given)
    target = Path(os.path.realpath(candidate))
    holding = [r for r in reals if target.is_relative_to(r)]
    if not holding:
        raise _refuse(raw, _OUTSIDE)
    root = max(holding, key=lambda r: len(r.parts))
    return Located(target, root, _inside(root, target, given, raw))


def fold_name(name: str) -> str:
    """``name`` as a case-insensitive filesystem (macOS, Windows) compares it: names with
    the same fold may open the same file there."""
    return name.translate(_HFS_IGNORED).casefold()


def _is_dotgit(name: str) -> bool:
    return fold_name(name) == ".git"


def _os_error(exc: OSError, what: str) -> Exception:
    if isinstance(exc, FileNotFoundError):
        return PathNotFound(f"{what} does not exist.")
    if isinstance(exc, PermissionError):
        return PathNotAccessible(f"{what}: permission denied.")
    if exc.errno in (40, 20):  # ELOOP, ENOTDIR: a component changed into a link or a file
        why = "a component is not a plain directory (link?)"
        return PathRefused(f"{what}: {why}.", why=why)
    return PathNotAccessible(f"{what}: {exc.strerror}.")


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
def _open_file(
    base: Path, parts: tuple[str, ...], what: str
) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """``base/parts...`` opened for reading without following a link anywhere below
    ``base``; a regular file with one name, or an error."""
    try:
        with _dir_fd(base, parts[:-1], create=False) as dfd:
            fd = os.open(
                parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd
            )
    except OSError as exc:
        raise _os_error(exc, what) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotAFile(f"{what} is not a regular file.", suggestion="Read a file, not a directory.")
    if st.st_nlink > 1:
        # Another name for the same inode may live outside the root (``ln /etc/x proj/y``);
        # no path check can tell, so a file with several names is not read at all.
        os.close(fd)
        why = f"it has {st.st_nlink} hard links"
        raise PathRefused(
            f"{what} has {st.st_nlink} hard links; a hard-linked file may be a file from "
            "outside the project, so it is not read.",
            why=why,
            suggestion="Copy the file into the project (cp, not ln) to make it readable here.",
        )
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as fh:
        yield fh, st


@contextlib.contextmanager
def open_read(root: Path | str, rel: str) -> Iterator[tuple[Path, BinaryIO, os.stat_result]]:
    """Open a regular file inside the root for reading: ``(path, binary file, stat)``."""
    target, parts = resolve_inside(root, rel)
    with _open_file(real_root(root), parts, rel) as (fh, st):
        yield target, fh, st


@contextlib.contextmanager
def open_resolved(path: Path, what: str) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """Open ``path``, a ``Located.path`` (absolute, links resolved), for reading: every
    component from ``/`` down is opened with ``O_NOFOLLOW``, so a link swapped in since
    ``locate`` checked it makes the open fail. ``what`` names the path in errors."""
    if not path.is_absolute() or not path.parts[1:]:
        raise _refuse(str(path), "it is not an absolute path to a file")
    with _open_file(Path(path.anchor), path.parts[1:], what) as opened:
        yield opened


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
            why = "it became a symbolic link"
            raise PathRefused(f"{rel} became a symbolic link; refused.", why=why)
        if not stat.S_ISREG(old.st_mode):
            raise NotAFile(f"{rel} exists and is not a regular file.")
        if mode == "append" and old.st_nlink > 1:
            # Appending copies the old content into the new file: from a hard link to a
            # file outside the root, that would copy the outside file in (see open_read).
            raise PathRefused(
                f"{rel} has {old.st_nlink} hard links; appending to it would copy a file "
                "that may live outside the project.",
                why=f"it has {old.st_nlink} hard links",
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
