"""Write screenshots/*.svg from the snapshot apps: ``python -m tests.snapshot_apps.screenshots``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from textual.widgets import Input

from cctui.tui.screens.decision import DecisionModal
from tests.snapshot_apps.demo import SIZE, demo_app, demo_root, ready

OUT = Path(__file__).resolve().parents[2] / "screenshots"
SHOTS = {
    "main": "main",
    "empty": "empty",
    "bash": "approval-bash",
    "edit": "approval-edit",
    "plan": "plan-review",
    "question": "question",
    "inbox": "inbox",
    "help": "help",
    "new": "new-session",
    "metrics": "metrics",
    "projects": "projects",
    "confirm": "confirm",
    "model": "model-picker",
    "rules": "rules",
    "steer": "steered",
}


async def shoot(scenario: str, name: str) -> Path:
    """Run one scenario and save its screen as ``screenshots/<name>.svg``."""
    with demo_root():  # before the app: making it resets the demo's shared directories
        app = demo_app(scenario)
        async with app.run_test(size=SIZE) as pilot:
            await ready(scenario)(pilot)
            path = app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
    return Path(path)


def main() -> int:
    """Write every screenshot; prints the paths."""
    DecisionModal.ARM_DELAY_S = 0.0
    Input._toggle_cursor = lambda self: None  # type: ignore[method-assign]
    OUT.mkdir(exist_ok=True)
    for scenario, name in SHOTS.items():
        print(asyncio.run(shoot(scenario, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
