"""The owner of a state dir's sessions, from the command line: ``cctui`` (the window, which
may go on in the background), ``serve``, ``stop``, ``bridge [--start]``, ``mcp-config``.

One cctui owns the sessions of a state dir at a time (``cctui.owner``: a lock, not a port).
A second ``serve`` says where the first one listens instead of taking another port; only
the owner writes and removes ``server.json``. A window whose sessions are still working when
it closes (``q`` then ``b``, or the terminal hanging up) leaves this process running
headless: the sessions and the MCP server go on, ``cctui stop`` ends them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cctui.config import Settings
from cctui.detach import Front, leave_terminal, split_front
from cctui.owner import (
    Owner,
    OwnerLock,
    find_owner,
    owner_endpoint,
    owner_pids,
    owners_elsewhere,
)

if TYPE_CHECKING:
    from cctui.core import SessionManager

log = logging.getLogger(__name__)

STOP_WAIT_S = 30.0
"""``cctui stop`` waits this long for the owner to end its sessions and let go."""
START_WAIT_S = 30.0
"""``bridge --start`` waits this long for the owner it started to listen."""
HEADLESS_TICK_S = 1.0


def add_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """``cctui stop``."""
    sub.add_parser(
        "stop",
        parents=[common],
        help="end the cctui that owns the sessions (a background one, or a window) and every "
        "claude it runs",
    )


def already_owned(owner: Owner, settings: Settings, doing: str) -> str:
    """The message for a second owner: who owns the sessions and what to do instead."""
    return (
        f"cctui: a cctui already owns the sessions of {settings.state_dir} ({owner.where()}); "
        f"not {doing}.\n  `cctui mcp-config` connects a client to it, `cctui stop` ends it."
    )


# -- serve --http ----------------------------------------------------------------------------


async def serve_http(settings: Settings) -> int:
    """``cctui serve --http``: own the sessions and serve MCP until stopped."""
    import asyncio

    lock = OwnerLock.acquire(settings.state_dir, "serve")
    if lock is None:
        owner = find_owner(settings.state_dir)
        if owner is not None:
            print(already_owned(owner, settings, "serving a second one"), file=sys.stderr)
            return 1
        lock = OwnerLock.acquire(settings.state_dir, "serve")  # it ended meanwhile
        if lock is None:
            print("cctui: could not take ownership of the sessions; try again", file=sys.stderr)
            return 1
    from cctui.core import SessionManager
    from cctui.mcp_server.transport.entry import serve_http as serve
    from cctui.services import Services

    def listening(url: str) -> None:
        lock.publish(url=url)
        print(f"cctui: serving MCP at {url} (pid {os.getpid()})", flush=True)

    try:
        manager = SessionManager(settings)
        await manager.start(owner=lock.held)
        services = Services.build(settings, manager)
        task = asyncio.ensure_future(serve(services, settings, listening))
        watch = asyncio.ensure_future(record_lost(lock))
        watch.add_done_callback(lambda _: task.cancel())
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, task.cancel)
        loop.add_signal_handler(signal.SIGHUP, _hung_up_headless)
        try:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        finally:
            watch.cancel()
            with contextlib.suppress(Exception):
                await services.close()
            # No claude child may outlive cctui.
            await manager.shutdown()
    finally:
        lock.release()
    return 0


def _hung_up_headless() -> None:
    log.info("hang-up received: still serving, headless (sessions keep running)")


def _record_kept(lock: OwnerLock) -> bool:
    if lock.keep():
        return True
    log.error(
        "%s is gone or another cctui's: nothing can find this cctui any more (a state dir "
        "deleted under it?), so `cctui stop` could not end it; ending every session and exiting",
        lock.path,
    )
    return False


async def record_lost(lock: OwnerLock) -> None:
    """Return once this owner's record is lost for good (``OwnerLock.keep``): an owner nobody
    can find would run, with its ``claude`` processes, until the machine restarts."""
    import asyncio

    while True:
        if not _record_kept(lock):
            return
        await asyncio.sleep(HEADLESS_TICK_S)


# -- the window ------------------------------------------------------------------------------


def tui(
    settings: Settings,
    run: Callable[[Settings, OwnerLock, Front], int],
    attach: Callable[[Settings, Owner], int],
) -> int:
    """``cctui``: the window, owning the sessions; ``run`` runs the app (the composition
    root's ``_tui``) once the front is split off and the lock is held. Beside a running owner,
    ``attach`` opens a window attached to it instead."""
    owner = find_owner(settings.state_dir)
    if owner is not None:
        if owner.url is None:
            time.sleep(2.0)  # it is starting: its MCP server listens in a moment
            owner = find_owner(settings.state_dir)
        if owner is not None:
            return attach(settings, owner)
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    front = split_front() if terminal else Front(None)
    lock = OwnerLock.acquire(settings.state_dir, "tui")
    if lock is None:
        owner = find_owner(settings.state_dir)
        where = owner.where() if owner is not None else "it just ended"
        print(
            f"cctui: another cctui took the sessions of {settings.state_dir} as this one "
            f"started ({where})",
            file=sys.stderr,
        )
        return 1
    try:
        return run(settings, lock, front)
    finally:
        lock.release()


async def go_background(
    manager: SessionManager,
    settings: Settings,
    lock: OwnerLock,
    front: Front,
    start_http: Callable[[], object],
    why: str,
) -> None:
    """The window closed with sessions to keep: carry on headless until ``cctui stop``
    (SIGTERM), or until nothing has been live for ``background_idle_exit_s``."""
    import asyncio

    from cctui.core import LIVE

    lock.publish(mode="background")
    live = sum(1 for info in manager.list() if info.status in LIVE)
    log.info("%s: %d session(s) keep running in the background", why, live)
    message = (
        f"cctui: {live} session{'s' if live != 1 else ''} keep{'' if live != 1 else 's'} "
        f"running in the background (pid {os.getpid()}).\n"
        "  `cctui` shows them again; `cctui stop` ends them."
    )
    if front.fd is None:
        with contextlib.suppress(OSError):
            print(message, file=sys.stderr, flush=True)
    # The terminal's session first, then the front: a front that leads a hung-up terminal's
    # session makes the kernel send SIGHUP and SIGCONT, as it exits, to the terminal's old
    # foreground group, which this process is in until it leaves the session.
    leave_terminal()
    front.release(message)
    started = start_http()
    if asyncio.iscoroutine(started):
        try:
            await started
        except Exception:
            log.exception("the MCP server did not start in the background")
    await headless(manager, idle_exit_s=settings.background_idle_exit_s, lock=lock)


async def headless(
    manager: SessionManager, *, idle_exit_s: float | None, lock: OwnerLock | None = None
) -> None:
    """Run until SIGTERM or SIGINT, or (``idle_exit_s``) until no session has been live, no
    input has waited and no window has been attached for that long, or until ``lock``'s
    record is lost (``record_lost``)."""
    import asyncio

    from cctui.core import LIVE

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, _hung_up_headless)
    idle_since: float | None = None
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), HEADLESS_TICK_S)
        if lock is not None and not _record_kept(lock):
            return
        if idle_exit_s is None:
            continue
        busy = (
            any(info.status in LIVE for info in manager.list())
            or bool(manager.pending())
            or manager.decisions.human_attached
            or bool(manager.dispatch.waiting_work())  # a queue, a pause, a schedule
        )
        now = time.monotonic()
        if busy:
            idle_since = None
        elif idle_since is None:
            idle_since = now
        elif now - idle_since >= idle_exit_s:
            log.info("nothing live for %.0f s in the background: exiting", idle_exit_s)
            return
    log.info("stopping (signal): ending every session")


# -- stop, bridge --start, mcp-config ----------------------------------------------------------


def stop(settings: Settings) -> int:
    """``cctui stop``: end every owner of the state dir and every claude it runs; wait until
    each process has ended. Every owner: the one the lock file names, and any that lost its
    record while it ran (``owner.pids``: its ``owner.lock`` removed or replaced)."""
    from cctui.pids import pid_running

    owner = find_owner(settings.state_dir)
    if owner is not None and owner.pid == 0:  # it is writing who it is: ask again
        time.sleep(0.5)
    pids = owner_pids(settings.state_dir)
    if not pids:
        if find_owner(settings.state_dir) is not None:
            print(
                "cctui stop: a cctui holds the sessions but does not say who it is",
                file=sys.stderr,
            )
            return 1
        print("cctui stop: no cctui is running; nothing to stop", file=sys.stderr)
        for pid, where in sorted(owners_elsewhere(settings.state_dir).items()):
            # Another HOME's or XDG_STATE_HOME's (a benchmark's temporary one): said, not
            # touched, since it is not this state dir's.
            gone = where.endswith(" (deleted)")
            state = Path(where.removesuffix(" (deleted)"))
            how = (
                f"that dir was deleted; `kill {pid}` ends it and its claude"
                if gone
                else f"`XDG_STATE_HOME={state.parent} cctui stop` ends it"
            )
            print(f"  another cctui (pid {pid}) owns {state}: {how}", file=sys.stderr)
        return 0
    for pid in sorted(pids):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass  # gone meanwhile
        except PermissionError:
            print(f"cctui stop: not allowed to signal pid {pid}", file=sys.stderr)
            return 1
    named = ", ".join(str(pid) for pid in sorted(pids))
    deadline = time.monotonic() + STOP_WAIT_S
    while time.monotonic() < deadline:
        running = {pid for pid in pids if pid_running(pid)}
        if not running and find_owner(settings.state_dir) is None:
            print(f"cctui stop: stopped cctui (pid {named}) and its sessions", file=sys.stderr)
            return 0
        time.sleep(0.1)
    left = ", ".join(str(pid) for pid in sorted(pids) if pid_running(pid)) or named
    print(
        f"cctui stop: cctui (pid {left}) is still running after {STOP_WAIT_S:.0f} s",
        file=sys.stderr,
    )
    return 1


def start_background_owner(settings: Settings, argv: list[str]) -> Owner | None:
    """Start ``cctui serve --http`` detached (its own session, no terminal) and wait until it
    listens; the owner found (it or one that won the race), or None."""
    log_file = settings.log_file
    log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    import subprocess  # here: every other command (``sessions``, ``usage``) goes without it

    subprocess.Popen(
        [sys.executable, "-m", "cctui", *argv, "serve", "--http"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        owner = find_owner(settings.state_dir)
        if owner is not None and owner.url is not None:
            return owner
        time.sleep(0.1)
    return None


def settings_argv(args: argparse.Namespace) -> list[str]:
    """The options given to this command, for a ``cctui`` it starts with the same settings."""
    flags = {
        "config": "--config",
        "http_port": "--port",
        "claude_code_path": "--claude",
        "tools_profile": "--tools",
        "projects_config": "--projects-config",
        "log_level": "--log-level",
    }
    argv: list[str] = []
    for attr, flag in flags.items():
        value = getattr(args, attr, None)
        if value is not None:
            argv += [flag, str(value)]
    return argv


async def bridge(settings: Settings, args: argparse.Namespace) -> int:
    """``cctui bridge [--start]``: forward stdio MCP to this machine's owner, starting a
    background one first with ``--start`` when none runs."""
    import asyncio

    from cctui.mcp_server.transport.stdio_bridge import run_bridge, say

    if getattr(args, "start", False) and owner_endpoint(settings.state_dir) is None:
        owner = await asyncio.to_thread(start_background_owner, settings, settings_argv(args))
        if owner is None:
            say(
                f"started a background cctui, but it did not listen within {START_WAIT_S:.0f} s; "
                f"see {settings.log_file}"
            )
            return 1
        log.info("started a background owner: %s", owner.where())
    return await run_bridge(settings, as_window=getattr(args, "window", False))


def print_mcp_config(settings: Settings) -> int:
    """How clients connect to the owner; 1 (and why) when no cctui serves."""
    endpoint = owner_endpoint(settings.state_dir)
    if endpoint is None:
        owner = find_owner(settings.state_dir)
        why = (
            f"the cctui running ({owner.where()}) does not listen yet"
            if owner is not None
            else "no running cctui found"
        )
        print(f"cctui: {why} (start `cctui` or `cctui serve --http` first)", file=sys.stderr)
        return 1
    url, token = endpoint
    print("# Claude Code")
    print(f'claude mcp add --transport http cctui {url} -H "Authorization: Bearer {token}"')
    print("\n# Any client that speaks Streamable HTTP (Cursor, Gemini CLI, ...)")
    print(
        json.dumps(
            {
                "mcpServers": {
                    "cctui": {"url": url, "headers": {"Authorization": f"Bearer {token}"}}
                }
            },
            indent=2,
        )
    )
    command, *args = _this_cctui()
    print("\n# stdio-only clients (Claude Desktop's claude_desktop_config.json)")
    print(
        json.dumps(
            {"mcpServers": {"cctui": {"command": command, "args": [*args, "bridge"]}}},
            indent=2,
        )
    )
    return 0


def _this_cctui() -> list[str]:
    """The command that runs this cctui, by absolute path: a client such as Claude Desktop
    starts servers without the shell's PATH or the virtual environment, so a bare ``cctui``
    is not found there. The console script beside this Python, else this Python's ``-m``."""
    script = Path(sys.executable).parent / "cctui"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "cctui"]
