"""What goes wrong with a path or a file, as ``CctuiError``s the front ends render.

The codes are the ones MCP clients have seen from the project tools since seed 000
(``path_outside_project`` included, although the root may be any allowed directory): a
room that speaks of its paths differently (the review menu's ``path_not_allowed``, context
sync's ``validation_error``) catches these and raises its own.
"""

from __future__ import annotations

from cctui.errors import CctuiError


class PathRefused(CctuiError):
    """A path that is malformed, or would resolve outside its root, was refused."""

    code = "path_outside_project"

    def __init__(self, message: str, *, why: str, suggestion: str | None = None) -> None:
        super().__init__(message, suggestion=suggestion)
        self.why = why
        """The rule that refused it, as a clause ("'..' is not allowed")."""


class PathNotFound(CctuiError):
    """A root, file or parent directory does not exist."""

    code = "path_not_found"


class PathNotAccessible(CctuiError):
    """The operating system refused access (permissions)."""

    code = "permission_denied"


class NotAFile(CctuiError):
    """The path names a directory, device, socket or FIFO, not a regular file."""

    code = "not_a_file"


class FileAlreadyExists(CctuiError):
    """A create-only write found the file there already."""

    code = "file_exists"


class BinaryFile(CctuiError):
    """A text read of a file that is not text."""

    code = "binary_file"


class NotAGitRepository(CctuiError):
    """A git operation (a worktree, a merge) was asked for outside a git repository."""

    code = "not_a_git_repository"


class GitFailed(CctuiError):
    """git refused or failed; the message carries what git said."""

    code = "git_failed"


class DirectoryNotAllowed(CctuiError):
    """A session's working directory lies outside every configured ``allowed_roots``."""

    code = "path_not_allowed"
