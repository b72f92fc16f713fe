"""Renaming and removing a registered project (the TUI's projects page uses these)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cctui.errors import ValidationFailed
from cctui.projects import ProjectRegistry
from cctui.projects.errors import ProjectNotFound


def test_rename_keeps_everything_else_and_unknown_keys(tmp_path: Path) -> None:
    root = tmp_path / "app"
    root.mkdir()
    registry = ProjectRegistry(tmp_path / "projects.json")
    registry.register("App", str(root))
    data = json.loads(registry.path.read_text())
    data["projects"][0]["otherTool"] = {"kept": True}
    data["extra"] = 1
    registry.path.write_text(json.dumps(data))
    renamed = registry.rename("app", "  The App ")
    assert renamed.name == "The App" and renamed.id == "app"
    after = json.loads(registry.path.read_text())
    assert after["extra"] == 1
    assert after["projects"][0]["otherTool"] == {"kept": True}
    assert after["projects"][0]["rootPath"] == str(root.resolve())
    with pytest.raises(ValidationFailed):
        registry.rename("app", "   ")
    with pytest.raises(ProjectNotFound):
        registry.rename("nope", "x")


def test_remove_takes_only_the_entry(tmp_path: Path) -> None:
    registry = ProjectRegistry(tmp_path / "projects.json")
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        registry.register(name, str(tmp_path / name))
    removed = registry.remove("one")
    assert removed.id == "one"
    assert [p.id for p in registry.all()] == ["two"]
    assert (tmp_path / "one").is_dir()
    assert not [p for p in tmp_path.glob("projects.json.*") if p.suffix != ".lock"]
    with pytest.raises(ProjectNotFound):
        registry.remove("one")
