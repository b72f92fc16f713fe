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


def test_the_version_is_written_once_and_read_from_the_package_metadata() -> None:
    """pyproject.toml holds the one literal; the package and the MCP server report it."""
    from cctui import __version__
    from cctui.mcp_server.tools.health import SERVER_VERSION

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert __version__ == SERVER_VERSION == declared
    literal = f'"{declared}"'
    copies = [p for p in (ROOT / "cctui").rglob("*.py") if literal in p.read_text()]
    assert not copies, f"the version is copied in {copies}; read cctui.__version__"
