"""One cctui owns a state dir's sessions: the lock, who holds it, and no stale lock."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from cctui.owner import OwnerLock, find_owner, owner_endpoint, owner_pids, owners_elsewhere


def test_one_owner_at_a_time_and_the_file_says_who(tmp_path: Path) -> None:
    assert find_owner(tmp_path) is None
    lock = OwnerLock.acquire(tmp_path, "serve")
    assert lock is not None
    try:
        assert OwnerLock.acquire(tmp_path, "tui") is None  # another descriptor: refused
        owner = find_owner(tmp_path)
        assert owner is not None
        assert (owner.pid, owner.mode, owner.url) == (os.getpid(), "serve", None)
        assert "not listening yet" in owner.where()
        lock.publish(url="http://127.0.0.1:5555/mcp", mode="background")
        owner = find_owner(tmp_path)
        assert owner is not None and owner.url == "http://127.0.0.1:5555/mcp"
        assert owner.mode == "background"
        assert owner_endpoint(tmp_path) is None  # no token yet
        (tmp_path / "token").write_text("tok\n")
        assert owner_endpoint(tmp_path) == ("http://127.0.0.1:5555/mcp", "tok")
        assert oct((tmp_path / "owner.lock").stat().st_mode & 0o777) == "0o600"
    finally:
        lock.release()
    assert find_owner(tmp_path) is None
    assert owner_endpoint(tmp_path) is None
    again = OwnerLock.acquire(tmp_path, "tui")
    assert again is not None
    again.release()


def test_a_killed_owner_leaves_no_stale_lock(tmp_path: Path) -> None:
    """SIGKILL gives no chance to clean up: the kernel drops the lock with the process."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from cctui.owner import OwnerLock; "
            "lock = OwnerLock.acquire(Path(sys.argv[1]), 'serve'); "
            "lock.publish(url='http://127.0.0.1:1/mcp'); print('held', flush=True); "
            "time.sleep(60)",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        owner = find_owner(tmp_path)
        assert owner is not None and owner.pid == holder.pid
        assert OwnerLock.acquire(tmp_path, "serve") is None
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        assert (tmp_path / "owner.lock").read_text()  # the file is still there, unheld
        assert find_owner(tmp_path) is None
        lock = OwnerLock.acquire(tmp_path, "serve")
        assert lock is not None
        lock.release()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_the_lock_is_not_inherited_by_children(tmp_path: Path) -> None:
    """A claude started by the owner must not keep the lock after the owner is gone."""
    lock = OwnerLock.acquire(tmp_path, "serve")
    assert lock is not None
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lock.release()
        deadline = time.monotonic() + 2
        while find_owner(tmp_path) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert find_owner(tmp_path) is None
    finally:
        child.kill()
        child.wait()


def _holder(state: Path) -> subprocess.Popen[str]:
    """Another process owning ``state`` (owner_pids leaves the asking process out)."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from cctui.owner import OwnerLock; "
            "lock = OwnerLock.acquire(Path(sys.argv[1]), 'serve'); "
            "print('held' if lock else 'refused', flush=True); time.sleep(60)",
            str(state),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_removed_record_is_made_again_by_its_owner(tmp_path: Path) -> None:
    lock = OwnerLock.acquire(tmp_path, "background")
    assert lock is not None
    try:
        assert lock.keep()
        (tmp_path / "owner.lock").unlink()  # a cleanup that removed it while the owner ran
        assert find_owner(tmp_path) is None  # nobody could find it now
        assert lock.keep()  # the first look only notes it (see the next test)
        assert lock.keep()
        owner = find_owner(tmp_path)
        assert owner is not None and (owner.pid, owner.mode) == (os.getpid(), "background")
        assert OwnerLock.acquire(tmp_path, "serve") is None  # and it is held again
    finally:
        lock.release()


def test_a_state_dir_being_deleted_is_not_filled_again(tmp_path: Path) -> None:
    """`rm -rf` of a temporary HOME unlinks owner.lock, then the dir: an owner looking in
    between must not make the record again, or the rmdir fails ("Directory not empty") and
    the owner runs on in a dir nobody looks at (seen in a whole run of the suite)."""
    state = tmp_path / "home" / "state"
    lock = OwnerLock.acquire(state, "background")
    assert lock is not None
    try:
        (state / "owner.lock").unlink()  # rm -rf, half-way
        assert lock.keep()
        assert not (state / "owner.lock").exists()
        shutil.rmtree(tmp_path / "home")  # the rest of it: nothing in the way
        assert not lock.keep()
        assert not state.exists()
    finally:
        lock.release()


def test_a_record_lost_for_good_is_said_and_every_owner_is_found(tmp_path: Path) -> None:
    """owner.lock removed, then a second cctui took a new one: the first cannot make its
    record again (keep is False: it ends itself), and until it does, owner_pids finds both."""
    state = tmp_path / "state"
    first = _holder(state)
    (state / "owner.lock").unlink()
    second = _holder(state)  # a second start: the path names a new file, free to lock
    try:
        owner = find_owner(state)
        assert owner is not None and owner.pid == second.pid  # the record names the second
        assert owner_pids(state) == {first.pid, second.pid}
    finally:
        for proc in (first, second):
            proc.kill()
            proc.wait()
    assert owner_pids(state) == set()
    lock = OwnerLock.acquire(state, "serve")
    assert lock is not None
    try:
        (state / "owner.lock").unlink()
        other = _holder(state)
        try:
            assert not lock.keep()
        finally:
            other.kill()
            other.wait()
    finally:
        lock.release()


def test_a_deleted_state_dir_loses_the_record(tmp_path: Path) -> None:
    """A temporary HOME deleted under a background owner: nothing there to make again."""
    state = tmp_path / "home" / "state"
    lock = OwnerLock.acquire(state, "background")
    assert lock is not None
    try:
        shutil.rmtree(tmp_path / "home")
        assert not lock.keep()
        assert not state.exists()  # not made again
    finally:
        lock.release()


def test_stop_names_an_owner_of_another_state_dir(tmp_path: Path) -> None:
    """A cctui owning another HOME's state dir (a benchmark's temporary HOME) is not this
    one's to stop; `cctui stop` finding none here says where it is and how to end it."""
    other = tmp_path / "other-home" / ".local" / "state" / "cctui"
    holder = _holder(other)
    try:
        here = tmp_path / "home" / ".local" / "state" / "cctui"
        assert owner_pids(here) == set()
        assert owners_elsewhere(here).get(holder.pid) == str(other)
        env = {
            **os.environ,
            "HOME": str(tmp_path / "home"),
            "XDG_STATE_HOME": str(tmp_path / "home" / ".local" / "state"),
        }
        done = subprocess.run(
            [sys.executable, "-m", "cctui", "stop"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0
        assert "nothing to stop" in done.stderr
        assert f"another cctui (pid {holder.pid}) owns {other}" in done.stderr
        assert f"XDG_STATE_HOME={other.parent} cctui stop" in done.stderr
        assert holder.poll() is None  # not this state dir's: left alone
    finally:
        holder.kill()
        holder.wait()
