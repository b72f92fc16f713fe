"""The command that opens a host's session in Claude Code's own terminal UI (``o``).

Built from the host's configured command: what comes before its cctui is how the machine is
reached (``ssh devbox``, ``ssh -p 2222 me@gpu``, ``docker exec -i box``); that part runs
``claude --resume ID`` in the session's directory instead, with a terminal (``ssh -t``,
``docker exec -it``). The host's cctui says which ``claude`` it drives (``claude_health``, asked
when a take-over needs it: ``hosts.Host.claude``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from cctui.errors import CctuiError


def reach_of(command: Sequence[str]) -> list[str]:
    """The words of ``command`` before the program that runs cctui (``python -m cctui``
    counts as that program).

    Raises:
        CctuiError: no ``cctui`` in the command.
    """
    words = list(command)
    for i, word in enumerate(words):
        if word == "cctui" or word.endswith("/cctui"):
            if i >= 2 and words[i - 1] == "-m":
                return words[: i - 2]  # python -m cctui: the interpreter is the program
            return words[:i]
    raise CctuiError(
        f"cannot tell how the host is reached from its command {shlex.join(words)}",
        suggestion="its command should run cctui, e.g. ssh HOST cctui bridge --start",
    )


def terminal_command(
    command: Sequence[str], claude: str, session_id: str, cwd: str | None
) -> list[str]:
    """The argv that opens ``session_id`` in ``claude`` on the host, with a terminal."""
    inner = " ".join(
        [
            *(["cd", shlex.quote(cwd), "&&"] if cwd else []),
            "exec",
            shlex.quote(claude),
            "--resume",
            shlex.quote(session_id),
        ]
    )
    reach = reach_of(command)
    if reach and reach[0].rsplit("/", 1)[-1] == "ssh":
        # ssh joins its remote words into one line for the remote shell, so the line is
        # quoted once for it; and it runs under ``sh -c``, because the reach may end in a
        # program of its own (``ssh box env PATH=… cctui``: ``env`` cannot run ``cd``).
        return [reach[0], "-t", *reach[1:], "sh", "-c", shlex.quote(inner)]
    if len(reach) >= 2 and reach[0].rsplit("/", 1)[-1] in ("docker", "podman"):
        extra = ["-t"] if "-t" not in reach and "-it" not in reach else []
        return [*reach[:2], *extra, *reach[2:], "sh", "-c", inner]
    return [*reach, "sh", "-c", inner]
