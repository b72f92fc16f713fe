"""Fixtures for the review room: a project with a handoff contract, settings rooted there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cctui.config import Settings
from tests.fakes.settings import make_settings

CONTRACT = {
    "task_id": "T-42",
    "specification": {
        "requirements": ["greet() returns 'hello'"],
        "acceptance_criteria": ["tests pass"],
    },
    "handoff_data": {"changed_files": ["src/greet.py", "src/gone.py"]},
}


@pytest.fixture
def handoff(project: Path) -> Path:
    """``project/_handoff/TASK_CONTRACT.json`` naming one existing and one deleted file."""
    (project / "src").mkdir()
    (project / "src" / "greet.py").write_text("def greet():\n    return 'hello'\n")
    (project / "_handoff").mkdir()
    contract = project / "_handoff" / "TASK_CONTRACT.json"
    contract.write_text(json.dumps(CONTRACT))
    return contract


@pytest.fixture
def review_settings(tmp_path: Path, project: Path) -> Settings:
    return make_settings(tmp_path, default_cwd=project)
