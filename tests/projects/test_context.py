"""Context sync's file section: long files are cut, and the header gives the real size."""

from __future__ import annotations

from pathlib import Path

from cctui.projects import context


async def test_a_long_file_is_cut_and_a_short_one_sent_whole(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_bytes(b"x" * (3 * 1024 * 1024) + b"\n")
    (tmp_path / "small.txt").write_text("hello é\n", encoding="utf-8")
    built = await context.build(tmp_path, "files", ["big.log", "small.txt"])
    size = big.stat().st_size
    assert f"### big.log ({size} bytes) (truncated)" in built.text
    assert "x" * context.FILE_MAX_CHARS in built.text
    assert "x" * (context.FILE_MAX_CHARS + 1) not in built.text
    assert any(w.startswith("big.log: cut to") and str(size) in w for w in built.warnings)
    assert "### small.txt (9 bytes)\n\n```\nhello é\n```" in built.text
    assert built.files_synced == 2
