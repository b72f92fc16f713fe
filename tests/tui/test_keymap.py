"""The key table is the truth: every key in it is bound where it says, has an action there,
is on the help page, and (the app's keys) in the command palette; no class binds a key the
table does not know. The classes are found by walking ``cctui.tui``, not listed."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import Counter

from textual.binding import Binding
from textual.dom import DOMNode

import cctui.tui
from cctui.tui import keymap
from cctui.tui.screens.help import HelpScreen
from cctui.tui.screens.metrics import MetricsScreen
from tests.tui.conftest import RunApp


def _tui_classes() -> dict[str, type[DOMNode]]:
    """Every app, screen and widget class defined in cctui.tui, by name."""
    found: dict[str, type[DOMNode]] = {}
    for module_info in pkgutil.walk_packages(cctui.tui.__path__, "cctui.tui."):
        module = importlib.import_module(module_info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and issubclass(cls, DOMNode):
                assert name not in found, f"two classes named {name}: the table could not tell"
                found[name] = cls
    return found


CLASSES = _tui_classes()


def _pairs(bindings: object) -> set[tuple[str, str]]:
    """(single key, action) of a BINDINGS list."""
    pairs = set()
    assert isinstance(bindings, list)
    for binding in bindings:
        assert isinstance(binding, Binding), "bind with Binding(...) so the table can match it"
        pairs |= {(key.strip(), binding.action) for key in binding.key.split(",")}
    return pairs


def _table_pairs(owner: str) -> set[tuple[str, str]]:
    return {
        (key.strip(), k.bind[owner].replace("{key}", key.strip()))
        for k in keymap.KEYS
        if owner in k.bind
        for key in k.keys.split(",")
    }


def test_every_class_that_binds_keys_binds_exactly_its_keys_in_the_table() -> None:
    binders = {name: cls for name, cls in CLASSES.items() if "BINDINGS" in cls.__dict__}
    assert {"CctuiApp", "PendingInputScreen", "InboxScreen", "HelpScreen"} <= set(binders)
    for name, cls in binders.items():
        assert _pairs(cls.__dict__["BINDINGS"]) == _table_pairs(name), name


def test_every_owner_in_the_table_is_a_class_with_the_action() -> None:
    for key in keymap.KEYS:
        for owner, action in key.bind.items():
            assert owner in CLASSES, f"{key.keys}: no class named {owner} in cctui.tui"
            method = "action_" + re.sub(r"\(.*\)$", "", action)  # choose({key}) too
            assert callable(getattr(CLASSES[owner], method, None)), f"{owner}.{method}"


def test_no_key_is_bound_twice_on_one_class() -> None:
    for owner in {o for k in keymap.KEYS for o in k.bind}:
        keys = Counter(key for key, _action in _table_pairs(owner))
        assert [k for k, n in keys.items() if n > 1] == [], owner


def test_every_app_key_has_a_palette_command() -> None:
    app_keys = [k for k in keymap.KEYS if keymap.APP in k.bind]
    assert app_keys
    assert [k.keys for k in app_keys if k.command is None] == []


async def test_the_help_page_shows_every_line_of_the_table(run_app: RunApp) -> None:
    async with run_app() as h:
        await h.pilot.press("question_mark")
        screen = h.app.screen
        assert isinstance(screen, HelpScreen)
        lines = [" ".join(line.split()) for line in screen.text.splitlines()]
        for section in keymap.SECTIONS:
            assert section.title in lines
            for line in section.lines:
                assert " ".join(f"{line.shown} {line.help}".split()) in lines, line


async def test_the_palette_offers_every_app_key_and_runs_its_action(run_app: RunApp) -> None:
    async with run_app() as h:
        commands = {c.title: c for c in h.app.get_system_commands(h.app.screen)}
        for key in keymap.KEYS:
            if key.command is not None:
                assert key.command.title in commands, key.keys
                assert commands[key.command.title].help.endswith(f"({key.shown})")
        # Textual's own "Quit" and "Keys" give way to cctui's (which end sessions, show
        # every key); the rest of Textual's stay.
        titles = [c.title for c in h.app.get_system_commands(h.app.screen)]
        assert titles.count("Quit") == titles.count("Keys") == 1
        assert "Theme" in titles
        h.app.call_later(commands["Metrics"].callback)
        await h.until(lambda: isinstance(h.app.screen, MetricsScreen))
