"""The headless rooms never load the UI (import-linter checks the source; this checks what
actually lands in ``sys.modules``).

claude-agent-sdk itself imports ``mcp.server`` (for its in-process tool servers), so whether
our headless code imports mcp is left to import-linter's static contracts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEADLESS = [
    "cctui.services",
    "cctui.review",
    "cctui.projects",
    "cctui.core",
    "cctui.claude",
    "cctui.history",
    "cctui.config",
    "cctui.fs",
    "cctui.cli_index",
    "cctui.cli_policy",
]
"""The rooms under the front ends (the first contract's layers), and the subcommands that
print without a UI."""


def _ui_loaded_by(*modules: str) -> str:
    """The UI packages a fresh Python has loaded after importing ``modules``."""
    code = (
        f"import sys, {', '.join(modules)}\n"
        "print(','.join(m for m in ('textual', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.process
def test_headless_modules_do_not_load_the_ui() -> None:
    """All of them in one fresh Python: a module that loads the UI alone loads it with the
    others too, so one process answers for all (each costs a Python start, ~1 s of CPU);
    only when it fails is each tried alone, to name the one."""
    if not _ui_loaded_by(*HEADLESS):
        return
    culprits = {m: bad for m in HEADLESS if (bad := _ui_loaded_by(m))}
    raise AssertionError(f"headless modules imported the UI: {culprits}")


@pytest.mark.process
def test_the_bridge_and_the_mcp_server_load_only_their_own() -> None:
    """``cctui bridge`` (each attached window and host link starts one) serves nothing: it
    loads no server, tool or core manager (uvicorn comes with any ``mcp`` import). The
    server, imported after it in the same Python (one start, ~1 s of CPU), loads no textual."""
    code = (
        "import sys, cctui.cli, cctui.cli_owner, cctui.mcp_server.transport.stdio_bridge\n"
        "served = ('cctui.mcp_server.server', 'cctui.mcp_server.tools', 'cctui.core.manager')\n"
        "print(','.join(m for m in served if m in sys.modules))\n"
        "import cctui.mcp_server.server\n"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["", "False"]


@pytest.mark.process
def test_the_tui_draws_before_the_sdks_are_imported() -> None:
    """What cctui imports before its first frame leaves out claude-agent-sdk and mcp (about a
    second: ``cli._LaterHttp`` imports them once the list is on screen), and the review room
    (``Services.review``, made for the MCP server's tools)."""
    code = (
        "import sys, cctui.cli, cctui.services, cctui.history, cctui.tui.app\n"
        "print(','.join(m for m in ('claude_agent_sdk', 'mcp', 'cctui.review')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


ONE_SHOT_NEVER = (
    "importlib.metadata",
    "email",
    "textual",
    "rich",
    "mcp",
    "claude_agent_sdk",
    "asyncio",
    "concurrent.futures",
    "multiprocessing",
    "subprocess",
)
"""What ``cctui usage`` and ``cctui sessions`` never import on a warm index: each costs every
run CPU at start-up (``importlib.metadata`` and ``email`` ~0.05 s; ``subprocess``, which only
``cctui``'s start of a background owner uses, ~5 ms; the SDKs and the UI far more)."""


@pytest.mark.process
def test_one_shot_commands_import_only_what_they_use(tmp_path: Path) -> None:
    """``importlib.metadata`` (and the ``email`` package it loads) cost every command ~0.05 s
    of CPU at start-up: pydantic asked it for plugins, the price data's fingerprint for a
    version. ``cctui usage`` and ``cctui sessions`` run without it, without the UI, the SDKs
    (the transcripts' helpers load alone: ``_sdk.one_shot_command``), an event loop or the
    build's worker pool (``Prefetch``: only when a build starts one), and say the same."""
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    code = (
        "import sys\nfrom cctui.entry import main\n"
        "code = main(sys.argv[1:])\n"
        f"print(','.join(m for m in {ONE_SHOT_NEVER!r} if m in sys.modules), code)"
    )
    for argv in (["usage", "session"], ["sessions", "--limit", "5", "--json"]):
        out = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, env=env
        ).stdout.splitlines()
        assert out[-1] == " 0", (argv, out)
    assert out[:-1] == ["[]"]  # (the sessions list, empty)


def test_the_pydantic_plugin_stand_in_answers_as_pydantics_loader() -> None:
    """``entry.no_pydantic_plugins`` stands in for ``pydantic.plugin._loader``: pydantic calls
    its ``get_plugins()`` with no argument, and with no plugin installed it finds none."""
    import importlib
    import inspect

    from cctui.entry import PYDANTIC_PLUGIN_LOADER

    loader = importlib.import_module(PYDANTIC_PLUGIN_LOADER)
    assert list(inspect.signature(loader.get_plugins).parameters) == []
    assert list(loader.get_plugins()) == []
    caller = inspect.getsource(importlib.import_module("pydantic.plugin._schema_validator"))
    assert "from ._loader import get_plugins" in caller and "get_plugins()" in caller


def test_session_ids_are_told_apart_as_the_sdk_does() -> None:
    """``history._sdk.validate_uuid`` is cctui's (no SDK import to scan a directory); it
    must agree with the SDK's on what names a transcript."""
    from claude_agent_sdk._internal import sessions

    from cctui.history import _sdk

    names = [
        "0b7e5c1a-3f2d-4c8e-9a1b-2c3d4e5f6a7b",
        "0B7E5C1A-3F2D-4C8E-9A1B-2C3D4E5F6A7B",
        "0b7e5c1a3f2d4c8e9a1b2c3d4e5f6a7b",
        "0b7e5c1a-3f2d-4c8e-9a1b-2c3d4e5f6a7",
        "0b7e5c1a-3f2d-4c8e-9a1b-2c3d4e5f6a7b-x",
        "agent-0b7e5c1a",
        "",
        "memory",
    ]
    for name in names:
        assert _sdk.validate_uuid(name) == sessions._validate_uuid(name), name


FIRST_FRAME_MODELS = {
    "cctui.config.NotifySettings",
    "cctui.config.Settings",
    "cctui.config.ToolGroups",
    "cctui.core.catalog.CatalogEntry",
    "cctui.core.catalog.CatalogQuery",
    "cctui.core.dispatch.models.DispatchRequest",
    "cctui.core.dispatch.models.DispatchState",
    "cctui.core.policy.model.Breaker",
    "cctui.core.policy.model.HardDeny",
    "cctui.core.policy.model.Judge",
    "cctui.core.policy.model.Policy",
    "cctui.core.policy.model.Rules",
    "cctui.core.policy.model.Timeouts",
    "cctui.history.models.IndexChange",
    "cctui.history.models.IndexProgress",
    "cctui.history.models.Problems",
    "cctui.history.models.SessionSummary",
}
"""The pydantic models the TUI's first frame validates (the settings, the policy, the list's
rows and filter, the dispatcher's state): built at import. Every other model is
``defer_build=True``, its validator built at its first use: ~40 of them built at import cost
the first frame ~60-70 ms of CPU."""


@pytest.mark.process
def test_models_the_first_frame_does_not_use_are_built_at_first_use() -> None:
    """A new model is ``defer_build=True`` unless the first frame validates it (then it
    joins ``FIRST_FRAME_MODELS``)."""
    code = (
        "import sys, pydantic, cctui.cli, cctui.services, cctui.history, cctui.tui.app\n"
        "seen, todo = set(), [pydantic.BaseModel]\n"
        "while todo:\n"
        "    for sub in todo.pop().__subclasses__():\n"
        "        if sub not in seen: seen.add(sub); todo.append(sub)\n"
        "print('\\n'.join(f'{c.__module__}.{c.__qualname__}' for c in seen\n"
        "    if c.__module__.startswith('cctui') and c.__pydantic_complete__))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    built = set(out.stdout.split())
    assert built <= FIRST_FRAME_MODELS, (
        f"built at import, not deferred: {built - FIRST_FRAME_MODELS}"
    )
