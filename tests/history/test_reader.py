"""Transcript pages: simplified messages, paging, and clear errors instead of tracebacks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cctui.errors import SessionNotFound
from cctui.history import TranscriptUnreadable, aread_transcript, read_transcript
from cctui.history.reader import find_transcript
from tests.history.conftest import INTERACTIVE_ID, MULTI_ID, SAMPLES, WRITE_ID

NEW_ID = "0f0f0f0f-1111-4222-8333-444455556666"


def test_a_conversation_reads_as_user_and_assistant_turns(claude_home: Path) -> None:
    page = read_transcript(claude_home, MULTI_ID)

    assert page.total == 8 and not page.has_more and page.skipped_lines == 0
    assert [m.role for m in page.messages] == ["user", "assistant"] * 4
    assert [m.text for m in page.messages if m.role == "user"] == [
        "hello turn one",
        "hello turn two",
        "follow up after exit",
        "second follow up",
    ]
    assert page.messages[1].text == "OK from fake."
    assert page.messages[1].model == "claude-opus-5-5"
    assert page.messages[0].timestamp is not None
    assert [m.index for m in page.messages] == list(range(8))


def test_tool_calls_and_results_are_summarised(claude_home: Path) -> None:
    page = read_transcript(claude_home, WRITE_ID)

    call_msg = next(m for m in page.messages if m.tool_calls)
    assert call_msg.role == "assistant"
    assert call_msg.text == "I'll create the file."  # text and tool_use blocks merged by message id
    (call,) = call_msg.tool_calls
    assert call.name == "Write" and call.input_preview == "<tmp>/ccp/proj/hello.txt"
    result_msg = page.messages[call_msg.index + 1]
    (result,) = result_msg.tool_results
    assert result.tool_use_id == call.tool_use_id and not result.is_error
    assert result.preview.startswith("File created successfully")


def test_pages_follow_offset_and_limit(claude_home: Path) -> None:
    first = read_transcript(claude_home, MULTI_ID, offset=0, limit=3)
    second = read_transcript(claude_home, MULTI_ID, offset=3, limit=3)
    last = read_transcript(claude_home, MULTI_ID, offset=6, limit=3)
    beyond = read_transcript(claude_home, MULTI_ID, offset=50, limit=3)

    assert [m.index for m in first.messages] == [0, 1, 2] and first.has_more
    assert [m.index for m in second.messages] == [3, 4, 5] and second.has_more
    assert [m.index for m in last.messages] == [6, 7] and not last.has_more
    assert beyond.messages == () and beyond.total == 8 and not beyond.has_more


def test_corrupt_and_truncated_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    path = home / "projects" / "-p" / f"{NEW_ID}.jsonl"
    path.parent.mkdir(parents=True)
    lines = (SAMPLES / "transcript-multiturn-then-resumed.jsonl").read_text().splitlines()
    message_line = next(ln for ln in lines if ln.startswith('{"parentUuid"'))
    lines.insert(5, "{this is not json")
    lines.append(message_line[:50])  # a write cut off mid-line at the end
    path.write_text("\n".join(lines) + "\n")

    page = read_transcript(home, NEW_ID)

    assert page.skipped_lines == 2
    assert page.total == 8


def test_unknown_session_is_a_clear_error(claude_home: Path) -> None:
    with pytest.raises(SessionNotFound, match="no transcript"):
        read_transcript(claude_home, NEW_ID)
    with pytest.raises(SessionNotFound):
        read_transcript(claude_home, "not-a-uuid")
    with pytest.raises(SessionNotFound):
        read_transcript(claude_home.parent / "missing", MULTI_ID)


def test_a_directory_in_place_of_the_transcript_is_unreadable(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    (home / "projects" / "-p" / f"{NEW_ID}.jsonl").mkdir(parents=True)

    with pytest.raises(TranscriptUnreadable, match="directory") as info:
        read_transcript(home, NEW_ID)
    assert info.value.code == "transcript_unreadable"


def test_an_empty_transcript_is_an_empty_page(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    path = home / "projects" / "-p" / f"{NEW_ID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("")

    page = read_transcript(home, NEW_ID)
    assert page.total == 0 and page.messages == ()


def test_cwd_finds_the_file_in_its_project_dir(claude_home: Path) -> None:
    found = find_transcript(claude_home, INTERACTIVE_ID, cwd="<tmp>/cci/proj")
    assert found is not None and found.parent.name == "-tmp--cci-proj"


def test_an_appended_turn_shows_up_on_the_next_read(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    path = home / "projects" / "-p" / f"{MULTI_ID}.jsonl"
    path.parent.mkdir(parents=True)
    shutil.copyfile(SAMPLES / "transcript-multiturn-then-resumed.jsonl", path)
    assert read_transcript(home, MULTI_ID).total == 8

    entries = [json.loads(ln) for ln in path.read_text().splitlines()]
    last_uuid = [e["uuid"] for e in entries if e.get("type") == "assistant"][-1]
    entry = {
        "parentUuid": last_uuid,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": "one more"},
        "uuid": "a0a0a0a0-1111-4222-8333-444455556666",
        "timestamp": "2026-11-22T07:30:00.000Z",
        "sessionId": MULTI_ID,
    }
    with path.open("a") as fh:
        fh.write(json.dumps(entry) + "\n")

    page = read_transcript(home, MULTI_ID)
    assert page.total == 9 and page.messages[-1].text == "one more"


async def test_async_read_runs_off_the_loop(claude_home: Path) -> None:
    page = await aread_transcript(claude_home, INTERACTIVE_ID, limit=2)
    assert [m.text for m in page.messages] == ["hello interactive", "OK from fake."]
    assert page.has_more


def test_naive_timestamps_and_invalid_utf8_are_read(tmp_path: Path) -> None:
    """A timestamp without a zone is taken as UTC (aware, comparable with the rest), and a
    line with bytes that are not UTF-8 is read with replacement characters, not dropped."""
    home = tmp_path / "claude"
    path = home / "projects" / "-p" / f"{NEW_ID}.jsonl"
    path.parent.mkdir(parents=True)
    lines = (SAMPLES / "transcript-multiturn-then-resumed.jsonl").read_text().splitlines()
    out: list[bytes] = []
    for line in lines:
        entry = json.loads(line)
        if isinstance(entry.get("timestamp"), str):
            entry["timestamp"] = entry["timestamp"].replace("Z", "").split("+")[0]
        data = json.dumps(entry).encode()
        if entry.get("type") == "user" and b"\\u" not in data:
            data = data.replace(b'"content": "', b'"content": "\xff\xfe ', 1)
        out.append(data)
    path.write_bytes(b"\n".join(out) + b"\n")

    page = read_transcript(home, NEW_ID)

    assert page.skipped_lines == 0 and page.total == 8
    stamps = [m.timestamp for m in page.messages if m.timestamp is not None]
    assert stamps and all(s.tzinfo is not None for s in stamps)
    assert sorted(stamps) == stamps  # comparable: no naive/aware TypeError
