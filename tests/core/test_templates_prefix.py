"""Session templates and launch prefixes: from the config file into a session's config."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cctui.config import SessionTemplate, load_settings
from cctui.core import launch
from cctui.core.manager import SessionManager
from cctui.errors import ConfigError, LaunchPrefixNotFound, TemplateNotFound
from tests.core.conftest import MakeManager
from tests.fakes.settings import make_settings

CONFIG = """
launch_prefix = ["env", "CCTUI_DEFAULT=1"]

[project_launch_prefixes]
"{outer}" = ["env", "OUTER=1"]
"{inner}" = ["env", "INNER=1", "--"]

[templates.review]
description = "Read-only review"
prompt = "Review the uncommitted changes."
model = "opus"
permission_mode = "plan"
allowed_tools = ["Read", "Grep"]
max_turns = 5
system_prompt = "Be terse."
"""


def test_config_file_holds_templates_and_prefixes(tmp_path: Path) -> None:
    outer, inner = tmp_path / "work", tmp_path / "work" / "api"
    inner.mkdir(parents=True)
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.format(outer=outer, inner=inner))
    settings = load_settings(env={"HOME": str(tmp_path)}, config_path=path)
    review = settings.templates["review"]
    assert review.permission_mode == "plan" and review.allowed_tools == ("Read", "Grep")
    assert launch.prefix_for(settings, inner / "src") == ("env", "INNER=1", "--")  # innermost
    assert launch.prefix_for(settings, outer) == ("env", "OUTER=1")
    assert launch.prefix_for(settings, tmp_path) == ("env", "CCTUI_DEFAULT=1")


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('launch_prefix = "doppler run --"', "launch_prefix"),  # a shell string: refused
        ('launch_prefix = ["", "x"]', "launch_prefix"),
        ("[templates.x]\nmax_turns = 0", "templates"),
        ('[templates.x]\nprompt = "p"\nbogus = 1', "templates"),
    ],
)
def test_bad_template_or_prefix_names_the_key(tmp_path: Path, line: str, needle: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(line + "\n")
    with pytest.raises(ConfigError, match=needle):
        load_settings(env={"HOME": str(tmp_path)}, config_path=path)


def test_template_under_explicit_values(tmp_path: Path, project: Path) -> None:
    settings = make_settings(
        tmp_path,
        allowed_tools=("Glob",),
        launch_prefix=("env",),
        templates={"review": SessionTemplate(model="opus", permission_mode="plan", max_turns=5)},
    )
    config = launch.default_config(settings, project, template="review", model="haiku")
    assert config.model == "haiku"  # explicit wins
    assert config.permission_mode == "plan" and config.max_turns == 5  # from the template
    assert config.template == "review" and config.launch_prefix == ("env",)
    plain = launch.default_config(settings, project)
    assert plain.permission_mode is None and plain.template is None  # the CLI's own mode
    assert launch.launch_spec(settings, plain).allowed_tools == ("Glob",)  # added at launch
    assert launch.default_config(settings, project, launch_prefix=()).launch_prefix == ()


def test_unknown_template_lists_the_known_ones(tmp_path: Path, project: Path) -> None:
    settings = make_settings(
        tmp_path, templates={"review": SessionTemplate(), "fix": SessionTemplate()}
    )
    with pytest.raises(TemplateNotFound) as err:
        launch.default_config(settings, project, template="reveiw")
    assert err.value.code == "template_not_found"
    assert "fix, review" in err.value.message and "reveiw" in err.value.message


def test_prefix_executable_is_checked(tmp_path: Path, project: Path) -> None:
    launch.check_prefix((), project)
    launch.check_prefix(("env", "A=1"), project)  # on PATH
    script = project / "wrap.sh"
    script.write_text('#!/bin/sh\nexec "$@"\n')
    with pytest.raises(LaunchPrefixNotFound):  # there, but not executable
        launch.check_prefix(("./wrap.sh",), project)
    script.chmod(0o755)
    launch.check_prefix(("./wrap.sh",), project)  # relative to the session's cwd
    launch.check_prefix((str(script), "--"), tmp_path)
    with pytest.raises(LaunchPrefixNotFound, match="no-such-doppler") as err:
        launch.check_prefix(("no-such-doppler", "run", "--"), project)
    assert err.value.suggestion and "launchPrefix" in err.value.suggestion
    # The prefix's words are quoted in the message, but not a secret passed as a flag value.
    with pytest.raises(LaunchPrefixNotFound) as err:
        launch.check_prefix(("no-such-doppler", "--token", "dp.st.s3cr3tvalue", "--"), project)
    assert "dp.st.s3cr3tvalue" not in err.value.message and "--token" in err.value.message


async def test_missing_prefix_fails_create_before_anything_starts(
    make_manager: MakeManager, project: Path, factory: object
) -> None:
    manager: SessionManager = make_manager(launch_prefix=("no-such-wrapper-xyz",))
    await manager.start()
    with pytest.raises(LaunchPrefixNotFound):
        await manager.create("hi", manager.default_config(project))
    assert manager.list() == []
    assert factory.drivers == []  # type: ignore[attr-defined]
    # An explicit empty prefix overrides the default.
    info = await manager.create("hi", manager.default_config(project, launch_prefix=()))
    assert info.config.launch_prefix == ()


async def test_resume_checks_the_prefix_again(
    manager: SessionManager, project: Path, tmp_path: Path
) -> None:
    wrapper = tmp_path / "wrap"
    wrapper.write_text('#!/bin/sh\nexec "$@"\n')
    wrapper.chmod(0o755)
    info = await manager.create(
        "hi", manager.default_config(project, launch_prefix=(str(wrapper),))
    )
    await manager.wait(info.session_id, 5)
    await manager.kill(info.session_id)
    os.remove(wrapper)
    with pytest.raises(LaunchPrefixNotFound):
        await manager.send(info.session_id, "again")
    assert not manager.get(info.session_id).is_active
