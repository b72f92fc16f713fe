"""bench_tui's disk-heavy parts: a past transcript with 2,000 tool calls opened from the list,
and the first frame with 2,000 transcripts on disk (see ``bench_tui``)."""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.bench.bench_tui import SIZE, Results, until
from tests.snapshot_apps.history import write_history, write_transcript

NOW = datetime.now(UTC).replace(microsecond=0)


def _tool_turns(calls: int) -> list[tuple[str, list[Any]]]:
    blocks: list[Any] = []
    for i in range(calls):
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_{i}",
                "name": "Read",
                "input": {"file_path": f"/src/m{i}.py"},
            }
        )
        blocks.append({"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"line {i}"})
    blocks.append({"type": "text", "text": "All files read: LAST-MESSAGE."})
    return [("Read every module", blocks)]


def _settings(root: Path) -> Any:
    from cctui.config import load_settings

    (root / "proj").mkdir(exist_ok=True)
    return load_settings(
        env={"HOME": str(root / "home")},
        config_path=root / "none.toml",
        overrides={"default_cwd": root / "proj"},
    )


async def _open_time(calls: int) -> float:
    from cctui.core import SessionManager
    from cctui.services import Services
    from cctui.tui.app import CctuiApp
    from cctui.tui.widgets.transcript import AssistantBlock, Transcript

    with tempfile.TemporaryDirectory(prefix="cctui-bench-past-") as tmp:
        root = Path(tmp)
        settings = _settings(root)
        sid = f"0a1b2c3d-0000-4000-8000-{calls:012d}"
        write_transcript(
            settings.claude_config_dir, sid, str(root / "proj"), NOW, _tool_turns(calls)
        )
        manager = SessionManager(settings)
        await manager.start()
        app = CctuiApp(settings, Services.build(settings, manager))
        try:
            async with app.run_test(size=SIZE) as pilot:
                await app.history_loaded.wait()
                await pilot.pause(0.2)
                transcript = app.main.pane.query_one(Transcript)
                start = time.perf_counter()
                app.main.open_session(sid)

                def shown() -> bool:
                    return app.main.pane.session_id == sid and any(
                        "LAST-MESSAGE" in b.text for b in transcript.query(AssistantBlock)
                    )

                ok = await until(shown, 60)
                await pilot.pause()
                return time.perf_counter() - start if ok else float("inf")
        finally:
            await manager.shutdown()


async def past(res: Results) -> None:
    small, big = await _open_time(20), await _open_time(2000)
    print("\n  a past transcript opened from the list")
    res.add("past: 20 tool calls opened (s)", f"{small:.2f}", "", None)
    res.add("past: 2,000 tool calls opened (s)", f"{big:.2f}", "", None)
    res.rows.append(("tui: past transcript 2,000 / 20 tool calls", big / small))


async def _first(transcripts: int) -> tuple[float, float]:
    from cctui.core import SessionManager
    from cctui.services import Services
    from cctui.tui.app import CctuiApp

    with tempfile.TemporaryDirectory(prefix="cctui-bench-first-") as tmp:
        root = Path(tmp)
        settings = _settings(root)
        prompts: list[tuple[str, datetime, str, str | None]] = []
        for i in range(transcripts):
            sid = f"1a1b2c3d-0000-4000-8000-{i:012d}"
            cwd = str(root / f"p{i % 40}")
            when = NOW - timedelta(minutes=i)
            write_transcript(
                settings.claude_config_dir,
                sid,
                cwd,
                when,
                [(f"task {i}", [{"type": "text", "text": f"done {i}"}])],
            )
            prompts.append((f"task {i}", when, cwd, sid))
        if prompts:
            write_history(settings.claude_config_dir, prompts)
        start = time.perf_counter()
        manager = SessionManager(settings)
        await manager.start()
        app = CctuiApp(settings, Services.build(settings, manager))
        try:
            async with app.run_test(size=SIZE):
                first = time.perf_counter() - start  # composed, mounted and painted once
                await app.history_loaded.wait()
                await until(lambda: app.main.sessions.total >= transcripts, 60)
                filled = time.perf_counter() - start
        finally:
            await manager.shutdown()
    return first, filled


async def first_frame(res: Results) -> None:
    empty_first, _ = await _first(0)
    first, filled = await _first(2000)
    print("\n  start-up with 2,000 transcripts on disk")
    res.add("first: first frame, no transcripts (s)", f"{empty_first:.2f}", "", None)
    res.add("first: first frame, 2,000 transcripts (s)", f"{first:.2f}", "<= 1", first <= 1.0)
    res.add("first: list filled, 2,000 transcripts (s)", f"{filled:.2f}", "", None)
    res.rows.append(("tui: first frame 2,000 transcripts / none", first / empty_first))
