"""A non-editable install ships only the packages pyproject lists: every one must be there."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_cctui_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "cctui").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    missing = sorted(on_disk - listed)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
    assert "cctui.styles" in listed and config["package-dir"]["cctui.styles"] == "styles"
