"""Stylesheets are found, not listed: each screen module has its ``styles/<module>.tcss``,
every stylesheet is loaded, and every rule sits under a screen's type (a screen's CSS applies
app-wide in Textual, so a bare ``#dialog`` rule would style every modal)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path, PurePath

from textual.screen import Screen

import cctui.tui.screens
from cctui.tui.app import CctuiApp, stylesheet_paths
from tests.tui.conftest import RunApp

TOP_LEVEL_RULE = re.compile(r"^([^\s/*}][^{]*?)\s*\{", re.MULTILINE)
"""A rule that starts in the first column (nested rules are indented, comments skipped)."""


def _screens_by_module() -> dict[str, list[type[Screen[object]]]]:
    """Module name (``approval``) -> the screen classes defined in it."""
    found: dict[str, list[type[Screen[object]]]] = {}
    for info in pkgutil.iter_modules(cctui.tui.screens.__path__):
        module = importlib.import_module(f"cctui.tui.screens.{info.name}")
        found[info.name] = [
            cls
            for _name, cls in inspect.getmembers(module, inspect.isclass)
            if cls.__module__ == module.__name__ and issubclass(cls, Screen)
        ]
    return found


def _sheets() -> dict[str, Path]:
    paths = CctuiApp.CSS_PATH
    assert isinstance(paths, list)
    return {PurePath(p).name: Path(p) for p in paths}


def test_each_screen_module_has_its_stylesheet_with_a_rule_per_screen() -> None:
    sheets = _sheets()
    screens = _screens_by_module()
    assert {"main", "pending_input", "confirm", "help"} <= set(screens)
    for module, classes in screens.items():
        if not classes:
            continue
        sheet = sheets.get(f"{module}.tcss")
        assert sheet is not None and sheet.is_file(), f"styles/{module}.tcss"
        rules = set(TOP_LEVEL_RULE.findall(sheet.read_text()))
        for cls in classes:
            assert cls.__name__ in rules, f"{cls.__name__} has no rule in {sheet.name}"


def test_every_rule_outside_app_tcss_nests_under_a_screen_type() -> None:
    names = {cls.__name__ for classes in _screens_by_module().values() for cls in classes}
    for name, sheet in _sheets().items():
        if name == "app.tcss":
            continue
        for selector in TOP_LEVEL_RULE.findall(sheet.read_text()):
            assert selector in names, f"{name}: top-level rule {selector} is not a screen"


def test_the_globals_load_first_and_every_tcss_file_is_used() -> None:
    paths = stylesheet_paths()
    assert PurePath(paths[0]).name == "app.tcss"
    on_disk = {p.name for p in Path(paths[0]).parent.glob("*.tcss")}
    assert {PurePath(p).name for p in paths} == on_disk


async def test_every_stylesheet_is_loaded_by_the_running_app(run_app: RunApp) -> None:
    async with run_app() as h:
        for path in stylesheet_paths():
            assert h.app.stylesheet.has_source(str(path)), path
