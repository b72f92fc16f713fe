"""Shared pytest configuration. Fixtures for the real CLI live in tests/fakes/plugin.py.

Also here: ``--repeat N`` (every selected test N times, to show a test stable or catch a
flake).
"""

import gc
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.location import PyTestLocation

# Cache bytecode even where the shell says not to (PYTHONDONTWRITEBYTECODE): without it each
# xdist worker re-rewrites the asserts of every test module (about 8 s of CPU per worker,
# more than half of collection), and each `python -m cctui` the tests start recompiles
# cctui. The caches go to the (ignored) __pycache__ folders; children inherit the setting.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

from tests.fakes import speedups
from tests.fakes.fake_driver import FakeDriverFactory, fake_driver_factory

speedups.install()  # parsed stylesheets and MCP tool schemas, once per test process

pytest_plugins = ["tests.fakes.plugin"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run every selected test N times (ids end in -runK); with -x, stop at the first "
        "failure",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    runs: int = metafunc.config.getoption("repeat")
    if runs > 1:
        metafunc.fixturenames.append("_run")
        metafunc.parametrize("_run", range(runs), ids=lambda n: f"run{n}")


class _Location(PyTestLocation):
    """A test's snapshot location without ``--repeat``'s ``runK`` in its name, so every
    repetition compares with the one stored snapshot (not with none)."""

    def __attrs_post_init_def__(self) -> None:
        super().__attrs_post_init_def__()
        if self.nodename is not None:
            self.nodename = re.sub(r"\[run\d+\]$", "", re.sub(r"\[run\d+-", "[", self.nodename))
            self.testname = self.nodename


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion, request: pytest.FixtureRequest) -> SnapshotAssertion:
    """syrupy's own fixture (snap_compare asks for it), named without ``--repeat``'s run."""
    if request.config.getoption("repeat") > 1:
        snapshot.test_location = _Location(request.node)
    return snapshot


REAL_CLI_FIXTURES = frozenset({"claude_bin", "claude_env", "fake_api", "real_settings"})
"""A test that asks for one of these runs the real CLI: it is ``e2e`` whether or not its
module says so (``make test-fast`` leaves those out)."""


TUI_TESTS = Path(__file__).resolve().parent / "tui"
"""Every test here runs the Textual app under Pilot (or its snapshots): it is ``tui``, the
tier ``make test-fast`` leaves out (most of the suite's CPU: docs/development.md)."""


LONG_FIRST = (("slow", "e2e"), ("process",), ("tui",))
"""The tiers, longest tests first: the suite runs in this order (each tier in collection
order). xdist hands out tests in the order collected, one or two at a time per worker, so a
long real-process test collected last (tests/e2e sorts before tests/tui, tests/remote
after it) ran alone at the end while the other workers had nothing left to do; run first,
the short tests fill in around them and every worker ends at about the same time. The
``slow`` tests stay among the ``e2e`` ones in collection order rather than all at once at
the start: they are the ones that load the machine most (ten CLIs at once, a generated
corpus, kill -9 loops), and four of them together at load 15 timed out."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & REAL_CLI_FIXTURES and item.get_closest_marker("e2e") is None:
            item.add_marker(pytest.mark.e2e)
        if item.path.is_relative_to(TUI_TESTS) and item.get_closest_marker("tui") is None:
            item.add_marker(pytest.mark.tui)
    items.sort(key=_tier)


GC_THRESHOLDS = (20_000, 20)
"""The collector's first two thresholds in a test process (CPython's are 700 and 10).

A Pilot app makes ~100,000 objects that mostly die with it; at 700 allocations a young pass,
many of them lived through enough passes to reach the oldest generation, so CPython ran a
full pass (the whole heap: Textual, the caches, the app) about once a test, about a fifth of
a TUI test's CPU. With 20,000 they mostly die young: in ``test_list_actions`` and
``test_keys`` (one process) the collector's time went from 5.8 to 1.8 s of 27 s (33 full
passes to one), the process's peak memory from 154 to 178 MB. Nothing is collected less:
every cycle is still found by the next pass that looks at it, and ``gc.collect()`` is as
before. Only the test processes: the ``python -m cctui`` they start keep CPython's."""
gc.set_threshold(*GC_THRESHOLDS)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what the imports built, once per test process, after collection (every test
    module, and with them Textual, the MCP SDK and cctui, is imported by then).

    Those ~370,000 objects live as long as the process, and each full collection walked them
    all: a Pilot app makes enough survivors for about one full pass a test, about a fifth of
    a TUI test's CPU. Frozen, the collector never walks them again. Everything a test makes
    is collected as before (a test that checks something is freed checks its own objects);
    the tests that read the collector itself take ``unfrozen``."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The whole heap back in the collector's hands for this test (``gc.unfreeze``), so what
    it reads of collections and freezing is the collector's, not the suite's import-time
    freeze; frozen again afterwards (after a full collection: only what is alive)."""
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _tier(item: pytest.Item) -> int:
    return next(
        (n for n, marks in enumerate(LONG_FIRST) if any(map(item.get_closest_marker, marks))),
        len(LONG_FIRST),
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: two workers per core. A worker of the real-process tests waits most of
    its time (a real ``claude`` and a ``python -m cctui`` talking over pipes and sockets, a
    paced stream, a process asked to end): a quiet whole run used its two cores two thirds
    of the time with one worker per core (800 s of CPU in 600 s), so a second worker per
    core runs while the first waits. The edit loop's tests wait more than they compute too
    (``make test-fast``: four workers 33-37 s, two 40-50 s on two cores). ``-n logical`` and
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` keep xdist's own count."""
    if config.option.numprocesses == "logical" or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return 2 * len(os.sched_getaffinity(0))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def factory() -> FakeDriverFactory:
    """A FakeDriverFactory with the default script."""
    return fake_driver_factory()
